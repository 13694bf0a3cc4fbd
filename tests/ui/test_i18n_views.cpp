// The matrix views' names on screen (views.h view_label): where a name is words ("Masked scores"),
// en.txt has it as view.<key>.label with the same English, so translators see it and every catalogue
// must have it (tests/io/test_catalog.cpp); notation (W_Q, X_src, P) has no key and shows as it is.
// The ImGui ID keeps the English name in every language.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "i18n.h"
#include "ui_state.h"

TEST(ViewLabels, WordsAreInTheCatalogueNotationIsNot) {
  const std::regex words(R"([A-Z][a-z]+( [a-z]+)*)");
  int worded = 0;
  for (const attnlab::ViewInfo& v : attnlab::views()) {
    const std::string key = std::string("view.") + v.key + ".label";
    const attn::i18n::Message* m = attnlab::english().find(key);
    if (std::regex_match(v.name, words)) {
      ++worded;
      ASSERT_NE(m, nullptr) << "put this line in assets/lang/en.txt: " << key << " = " << v.name;
      EXPECT_EQ(m->text, v.name) << key;
    } else {
      EXPECT_EQ(m, nullptr) << v.name << " is notation: the same in every language, no key";
    }
    EXPECT_EQ(std::string(attnlab::view_label_id(v.view)), std::string(attnlab::view_label(v.view)) + (m ? std::string("###") + v.name : ""));
  }
  EXPECT_GT(worded, 0);
  EXPECT_TRUE(std::regex_match("Masked scores", words) && !std::regex_match("W_Q", words) && !std::regex_match("X_src", words));
}
