// The UI's catalogues (assets/lang/*.txt, docs/translating.md): the format's reader and formatter, and
// every catalogue against English — the same keys, the same placeholders, the plural forms its
// language needs — and every key the UI's source uses present in English.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "handmade_heads.h"
#include "learn/tasks.h"
#include "mask.h"
#include "positional.h"

namespace fs = std::filesystem;
using attn::i18n::Catalog;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const fs::path kLangDir = fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "lang";

Catalog load(const fs::path& p) {
  Catalog c;
  std::string error;
  EXPECT_TRUE(c.parse(read(p), p.filename().string(), &error)) << error;
  return c;
}

}  // namespace

// [SECTION] the format
TEST(Catalog, ReadsMessagesContinuationsEscapesAndHeaders) {
  Catalog c;
  std::string error;
  ASSERT_TRUE(c.parse("# comment\n@language de\n@name Deutsch\n@decimal ,\n\na.b = Eins {n}\n  und zwei\nc = x\\ny = z\n", "t.txt", &error)) << error;
  EXPECT_EQ(c.code, "de");
  EXPECT_EQ(c.name, "Deutsch");
  ASSERT_NE(c.find("a.b"), nullptr);
  EXPECT_EQ(c.find("a.b")->text, "Eins {n} und zwei");
  EXPECT_EQ(c.find("c")->text, "x\ny = z");  // only the first '=' splits
  EXPECT_EQ(c.format(*c.find("a.b"), {{"n", 3}}), "Eins 3 und zwei");
  EXPECT_EQ(c.number(0.75, 2), "0,75");
  EXPECT_EQ(c.find("missing"), nullptr);
}

TEST(Catalog, RefusesWhatItCannotRead) {
  Catalog c;
  std::string error;
  EXPECT_FALSE(c.parse("a = 1\na = 2\n", "t.txt", &error));
  EXPECT_EQ(error, "t.txt:2: the key a is given twice");
  EXPECT_FALSE(c.parse("just text\n", "t.txt", &error));
  EXPECT_EQ(error, "t.txt:1: expected 'key = text'");
  EXPECT_FALSE(c.parse("@colour red\n", "t.txt", &error));
  EXPECT_FALSE(c.parse("  continued\n", "t.txt", &error));
  EXPECT_FALSE(c.parse("@language en\nn[one] = {n} token\n", "t.txt", &error));  // English needs [other] too
  EXPECT_NE(error.find("lacks its [other] form"), std::string::npos) << error;
  EXPECT_FALSE(c.parse("n[lots] = x\n", "t.txt", &error));
}

TEST(Catalog, PluralsFollowTheLanguagesRule) {
  Catalog en, zh, ru;
  std::string error;
  ASSERT_TRUE(en.parse("@language en\nt[one] = {n} token\nt[other] = {n} tokens\n", "en", &error)) << error;
  EXPECT_EQ(en.format(*en.find("t"), {{"n", 1}}, 1), "1 token");
  EXPECT_EQ(en.format(*en.find("t"), {{"n", 0}}, 0), "0 tokens");
  ASSERT_TRUE(zh.parse("@language zh\nt[other] = {n} 个词元\n", "zh", &error)) << error;
  EXPECT_EQ(zh.format(*zh.find("t"), {{"n", 1}}, 1), "1 个词元");
  ASSERT_TRUE(ru.parse("@language ru\nt[one] = {n} токен\nt[few] = {n} токена\nt[many] = {n} токенов\nt[other] = {n} токена\n", "ru", &error)) << error;
  EXPECT_EQ(ru.format(*ru.find("t"), {{"n", 21}}, 21), "21 токен");
  EXPECT_EQ(ru.format(*ru.find("t"), {{"n", 3}}, 3), "3 токена");
  EXPECT_EQ(ru.format(*ru.find("t"), {{"n", 11}}, 11), "11 токенов");
}

TEST(Catalog, PseudoLanguageMarksLengthensAndKeepsPlaceholders) {
  Catalog en;
  std::string error;
  ASSERT_TRUE(en.parse("@language en\na = Heads {n} of {total}\n", "en", &error)) << error;
  const Catalog p = Catalog::pseudo(en);
  const std::string t = p.find("a")->text;
  EXPECT_EQ(t.rfind("\xC2\xAB", 0), 0u) << t;  // «
  EXPECT_NE(t.find("{n}"), std::string::npos) << t;
  EXPECT_NE(t.find("{total}"), std::string::npos) << t;
  EXPECT_EQ(t.find("Heads"), std::string::npos) << t;
  EXPECT_GE(t.size(), en.find("a")->text.size() * 14 / 10) << t;
  EXPECT_EQ(attn::i18n::placeholders(*p.find("a")), attn::i18n::placeholders(*en.find("a")));
}

// [SECTION] the catalogues in assets/lang
TEST(Catalogues, EveryLanguageHasEnglishsKeysAndPlaceholders) {
  const Catalog en = load(kLangDir / "en.txt");
  ASSERT_GT(en.messages().size(), 10u);
  int languages = 0;
  for (const auto& entry : fs::directory_iterator(kLangDir)) {
    if (entry.path().extension() != ".txt" || entry.path().filename() == "en.txt") continue;
    ++languages;
    const std::string file = entry.path().filename().string();
    const Catalog c = load(entry.path());
    EXPECT_EQ(c.code + ".txt", file) << file << ": @language must be the file's name";
    EXPECT_FALSE(c.name.empty() || c.name == "English") << file << ": @name is the language's own name";
    int missing = 0;
    for (const auto& m : en.messages()) {
      const attn::i18n::Message* t = c.find(m.key);
      if (!t) {
        ++missing;
        EXPECT_TRUE(c.incomplete) << file << ": the key " << m.key << " is missing (it is in en.txt)";
        continue;
      }
      EXPECT_EQ(attn::i18n::placeholders(*t), attn::i18n::placeholders(m))
          << file << ": " << m.key << " must have the placeholders English has";
      EXPECT_EQ(t->forms.empty(), m.forms.empty()) << file << ": " << m.key << " is a plural in one language and not the other";
    }
    for (const auto& m : c.messages())
      EXPECT_NE(en.find(m.key), nullptr) << file << ": the key " << m.key << " is not in en.txt (a typo, or a key English dropped)";
    if (c.incomplete) std::printf("%s: @status incomplete, %d of %zu keys missing\n", file.c_str(), missing, en.messages().size());
  }
  EXPECT_GE(languages, 1);
}

// Every key the UI writes as a literal (tr("..."), tr_id("..."), trf(...), trn(...)) is in English:
// a key that is not would show as the key itself.
TEST(Catalogues, EveryKeyTheSourceUsesIsInEnglish) {
  const Catalog en = load(kLangDir / "en.txt");
  const std::regex call(R"(\b(?:tr(?:_id|f|n)?|Key)\(\s*"([A-Za-z0-9_.\-]+)\")");
  int found = 0;
  for (const char* dir : {"src/ui", "src/platform"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      const std::string text = read(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), call); it != std::sregex_iterator(); ++it) {
        ++found;
        EXPECT_NE(en.find((*it)[1].str()), nullptr) << entry.path().filename().string() << ": the key " << (*it)[1] << " is not in en.txt";
      }
    }
  }
  EXPECT_GT(found, 10);
}

// Keys in tables (the shortcuts, the tour's steps) are plain literals: any literal "section.name" whose
// section is one of en.txt's is a key, and must be there.
TEST(Catalogues, EveryKeyInATableIsInEnglish) {
  const Catalog en = load(kLangDir / "en.txt");
  std::set<std::string> sections;
  for (const auto& m : en.messages()) sections.insert(m.key.substr(0, m.key.find('.')));
  const std::regex literal(R"re("([a-z_]+)\.([A-Za-z0-9_.\-]+)")re");
  int found = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "src" / "ui")) {
    const std::string text = read(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it) {
      if (!sections.count((*it)[1].str())) continue;
      const std::string key = (*it)[1].str() + "." + (*it)[2].str();
      if (key.back() == '.' || std::regex_search(key, std::regex(R"(\.(h|cpp|json|txt|csv|png)$)"))) continue;  // a prefix; a file
      ++found;
      EXPECT_NE(en.find(key), nullptr) << entry.path().filename().string() << ": the key " << key << " is not in en.txt";
    }
  }
  EXPECT_GT(found, 10);
}

// The engine's tables (mask kinds, positional encodings, Learn mode's tasks) carry their English for
// the CLI and docs; the lab shows them through the catalogue ("mask.causal.help"), so en.txt holds the
// same English for translators. A new or changed entry prints the line to put in en.txt.
TEST(Catalogues, EngineTablesAreInEnglish) {
  const Catalog en = load(kLangDir / "en.txt");
  std::string missing;
  const auto check = [&](const std::string& key, const char* english) {
    if (!english) return;
    const attn::i18n::Message* m = en.find(key);
    if (!m || m->text != english) missing += key + " = " + english + "\n";
  };
  for (const attn::MaskKind& k : attn::mask_kinds()) {
    check(std::string("mask.") + k.name + ".label", k.label);
    check(std::string("mask.") + k.name + ".help", k.help);
  }
  for (const attn::PositionalKind& p : attn::positional_kinds()) {
    const std::string at = std::string("positional.") + p.name + ".";
    check(at + "label", p.label), check(at + "help", p.help), check(at + "x_title", p.x_title), check(at + "x_help", p.x_help);
    check(at + "p_title", p.p_title), check(at + "p_help", p.p_help), check(at + "p_words", p.p_words);
  }
  for (const attn::HandmadeKind& h : attn::handmade_kinds()) {
    check(std::string("handmade.") + h.name + ".label", h.label);
    check(std::string("handmade.") + h.name + ".help", h.help);
  }
  for (const attn::learn::Task& t : attn::learn::tasks()) {
    const std::string at = std::string("task.") + t.name + ".";
    check(at + "help", t.help), check(at + "pattern", t.pattern);
  }
  EXPECT_EQ(missing, "") << "put these lines in assets/lang/en.txt:\n" << missing;
}

// The presets' names and explanations on screen come from the catalogue (preset.<key>.name,
// .description); en.txt holds the files' own English.
TEST(Catalogues, PresetsAreInEnglish) {
  const Catalog en = load(kLangDir / "en.txt");
  int presets = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets")) {
    const auto j = nlohmann::json::parse(read(entry.path()));
    std::string key = entry.path().stem().string();
    key.erase(0, key.find('_') + 1);  // "02_causal" -> "causal"
    ++presets;
    for (const char* field : {"name", "description"}) {
      if (!j.contains(field)) continue;
      const attn::i18n::Message* m = en.find("preset." + key + "." + field);
      ASSERT_NE(m, nullptr) << "en.txt lacks preset." << key << "." << field;
      EXPECT_EQ(m->text, j[field].get<std::string>()) << "preset." << key << "." << field << " differs from " << entry.path().filename();
    }
  }
  EXPECT_GE(presets, 10);
}

// The page's own words (web/app.js: word, words, and bootWord for the boot screen) keep their English
// beside the key, for a page that cannot read a catalogue: that English must be en.txt's, so the two
// never drift apart.
TEST(Catalogues, PageWordsMatchEnglish) {
  const Catalog en = load(kLangDir / "en.txt");
  const std::string js = read(fs::path(ATTNLAB_SOURCE_DIR) / "web" / "app.js");
  const std::regex call(R"(\b(?:words?|bootWord)\('(page\.[A-Za-z0-9_.]+)',\s*'((?:[^'\\]|\\.)*)')");
  int found = 0;
  for (auto it = std::sregex_iterator(js.begin(), js.end(), call); it != std::sregex_iterator(); ++it) {
    ++found;
    const attn::i18n::Message* m = en.find((*it)[1].str());
    ASSERT_NE(m, nullptr) << "web/app.js uses " << (*it)[1] << ", which en.txt lacks";
    EXPECT_EQ(m->text, (*it)[2].str()) << "web/app.js's English for " << (*it)[1] << " differs from en.txt's";
  }
  EXPECT_GT(found, 10);
}
