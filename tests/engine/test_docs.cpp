// The docs name every entry of the engine's tables: a positional encoding, a mask kind, a hand-made
// head or a task added to its table and not to the reference fails here, naming the line to extend.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "handmade_heads.h"
#include "learn/tasks.h"
#include "mask.h"
#include "positional.h"

namespace {

std::string read_doc(const char* name) {
  std::ifstream f(std::string(ATTNLAB_SOURCE_DIR) + "/docs/" + name, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The docs' text from the line that starts with `start` to the next line that starts with `end`
// ("" when there is no such line).
std::string part(const std::string& doc, const std::string& start, const std::string& end = "\n") {
  const size_t at = doc.find("\n" + start);
  if (at == std::string::npos) return "";
  const size_t stop = doc.find("\n" + end, at + 1 + start.size());
  return doc.substr(at + 1, stop == std::string::npos ? std::string::npos : stop - at - 1);
}

TEST(Docs, TheCliDocsNameEveryPositionalEncodingMaskKindAndHandmadeHead) {
  const std::string cli = read_doc("cli.md");
  ASSERT_FALSE(cli.empty()) << "docs/cli.md not found";
  const std::string positional = part(cli, "| `positional` |");
  for (const attn::PositionalKind& k : attn::positional_kinds())
    EXPECT_NE(positional.find("`\"" + std::string(k.name) + "\"`"), std::string::npos)
        << "docs/cli.md's `positional` row does not name \"" << k.name << "\"";
  const std::string masks = part(cli, "### Mask terms", "### ");
  for (const attn::MaskKind& k : attn::mask_kinds())
    EXPECT_NE(masks.find("\"" + std::string(k.name) + "\""), std::string::npos)
        << "docs/cli.md's Mask terms table has no row for \"" << k.name << "\"";
  const std::string handmade = part(cli, "| `handmade` |");
  for (const attn::HandmadeKind& k : attn::handmade_kinds())
    EXPECT_NE(handmade.find("`\"" + std::string(k.name) + "\"`"), std::string::npos)
        << "docs/cli.md's `handmade` row does not name \"" << k.name << "\"";
}

TEST(Docs, TheTrainingDocsHaveARowForEveryTask) {
  const std::string train = read_doc("train.md");
  ASSERT_FALSE(train.empty()) << "docs/train.md not found";
  for (const attn::learn::Task& t : attn::learn::tasks())
    EXPECT_NE(train.find("\n| `" + std::string(t.name) + "` |"), std::string::npos) << "docs/train.md's task table has no row for " << t.name;
}

}  // namespace
