// Learn mode's words that are keys made at run time: every experiment's texts (assets/experiments.json,
// shown through the catalogue as experiment.<key>.<field>: docs/translating.md), every task's label,
// relation and phase. en.txt holds the same English as the file and the engine; the other catalogues
// follow en.txt (test_catalog.cpp checks they have its every key and placeholder).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "learn/tasks.h"

namespace fs = std::filesystem;
using attn::i18n::Catalog;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Catalog english() {
  Catalog c;
  std::string error;
  const fs::path p = fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "lang" / "en.txt";
  EXPECT_TRUE(c.parse(read_file(p), "en.txt", &error)) << error;
  return c;
}

}  // namespace

// Every text of every experiment is in en.txt under experiment.<key>.<field>, with the file's English;
// a changed text prints the line to put there, and en.txt keeps no key of an experiment that is gone.
TEST(Catalogues, ExperimentsAreInEnglish) {
  const Catalog en = english();
  const auto j = nlohmann::json::parse(read_file(fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "experiments.json"));
  std::string missing;
  std::set<std::string> expected;
  const auto check = [&](const std::string& key, const std::string& text) {
    expected.insert(key);
    const attn::i18n::Message* m = en.find(key);
    if (!m || m->text != text) missing += key + " = " + text + "\n";
  };
  int experiments = 0;
  for (const auto& e : j.at("experiments")) {
    ++experiments;
    const std::string at = "experiment." + e.at("key").get<std::string>() + ".";
    check(at + "question", e.at("question"));
    check(at + "ask", e.at("predict").at("ask"));
    for (size_t i = 0; i < e.at("predict").at("choices").size(); ++i) check(at + "choice." + std::to_string(i), e.at("predict").at("choices")[i]);
    check(at + "measured", e.at("measured"));
    for (size_t i = 0; i < e.at("variants").size(); ++i) check(at + "variant." + std::to_string(i), e.at("variants")[i].at("label"));
    if (e.contains("sweep")) check(at + "budget", e.at("sweep").at("budget"));
    if (e.contains("wall_time")) check(at + "wall_time", e.at("wall_time").at("source"));
  }
  EXPECT_GE(experiments, 5);
  EXPECT_EQ(missing, "") << "put these lines in assets/lang/en.txt:\n" << missing;
  for (const auto& m : en.messages())
    if (m.key.rfind("experiment.", 0) == 0) {
      EXPECT_TRUE(expected.count(m.key)) << "en.txt: " << m.key << " belongs to no experiment's text";
    }
}

// The keys Learn mode builds from the engine's names: a task's label, a relation of its ideal pattern,
// a run's phase (SessionState::phase). Missing ones would show in English in every language.
TEST(Catalogues, LearnModesRunTimeKeysAreInEnglish) {
  const Catalog en = english();
  for (const attn::learn::Task& t : attn::learn::tasks()) {
    EXPECT_NE(en.find(std::string("task.") + t.name + ".label"), nullptr) << "en.txt lacks task." << t.name << ".label";
    for (int r = 0; r < t.relations; ++r) {
      if (!t.relation_names[r] || !*t.relation_names[r]) continue;
      std::string key = std::string("learn.relation.") + t.relation_names[r];  // relation_label's key: spaces as _
      std::replace(key.begin(), key.end(), ' ', '_');
      EXPECT_NE(en.find(key), nullptr) << "en.txt lacks " << key;
    }
  }
  for (const char* phase : {"idle", "running", "paused", "done", "diverged"})
    EXPECT_NE(en.find(std::string("learn.phase.") + phase), nullptr) << "en.txt lacks learn.phase." << phase;
}
