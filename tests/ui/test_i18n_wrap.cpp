// Where sentences wrap (widgets.h wrap_lines, the helper behind text_wrapped_words): Chinese has no spaces,
// so a line may end between two CJK characters, but never inside a run of Latin letters, digits and
// punctuation ("0.02", "d_k", "1/sqrt(d_model)"), never before a closing mark (，。）) nor after an
// opening one (（); English still wraps at spaces. Widths here are a fixed-pitch stand-in for a font:
// one unit per Latin character, two per CJK character (a CJK glyph is about twice as wide as a digit).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "widgets.h"

namespace {

float units(std::string_view s) {
  float w = 0.0f;
  for (unsigned char c : s)
    if (c < 0x80) w += 1.0f;                 // ASCII
    else if (c >= 0xE0) w += 2.0f;           // the lead byte of a 3-byte character: CJK here
    else if (c >= 0xC0) w += 1.0f;           // a 2-byte character (Latin-1, Greek)
  return w;
}

std::vector<std::string> wrap(std::string_view text, float width) {
  std::vector<std::string> out;
  for (std::string_view line : attnlab::wrap_lines(text, width, units)) out.emplace_back(line);
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

// A Chinese sentence with no spaces: lines end between CJK characters, and a number or a name in
// Latin letters stays whole with the comma that follows it.
TEST(Wrap, ChineseBreaksBetweenCharactersNotInsideNumbers) {
  EXPECT_EQ(wrap("补上的头把差距缩小了0.02，也就是d_k的一半左右", 12.0f),
            (Lines{"补上的头把差", "距缩小了", "0.02，也就是", "d_k的一半左", "右"}));
}

// Spaces, as the catalogues put them around Latin words in Chinese, are breaks too and are not drawn
// at a line's ends.
TEST(Wrap, ChineseWithSpacesAroundLatinWords) {
  EXPECT_EQ(wrap("头 L0 h1 补回了差距的 0.75，约为 1/sqrt(d_model)。", 18.0f),
            (Lines{"头 L0 h1 补回了差", "距的 0.75，约为", "1/sqrt(d_model)。"}));
}

// No break after an opening bracket or before a closing one or a colon.
TEST(Wrap, BracketsStayWithWhatTheyHold) {
  EXPECT_EQ(wrap("注意力展开（rollout）：经过每一层", 16.0f), (Lines{"注意力展开", "（rollout）：经", "过每一层"}));
}

// Chinese quotation marks are brackets too: no line starts with a closing ” (or ）。) nor ends with an
// opening “ (or （), at every width that holds the longest run they bind ("“实验”）。", 12 units).
TEST(Wrap, QuotesStayWithWhatTheyQuote) {
  const std::string text = "有些配置根本学不会这个任务（见“实验”）。点“探针”看看‘这里’。";
  for (float width = 12.0f; width <= 40.0f; width += 1.0f)
    for (const std::string& l : wrap(text, width)) {
      for (const char* mark : {"”", "’", "）", "。"}) EXPECT_NE(l.rfind(mark, 0), 0u) << "'" << l << "' starts with " << mark << " at width " << width;
      for (const char* mark : {"“", "‘", "（"})
        EXPECT_FALSE(l.size() >= 3 && l.compare(l.size() - 3, 3, mark) == 0) << "'" << l << "' ends with " << mark << " at width " << width;
    }
}

// At every width a mixed sentence fits its lines, loses no character and keeps its Latin runs whole.
TEST(Wrap, EveryWidthKeepsRunsWhole) {
  const std::string text = "补上的头把差距缩小了0.02，也就是d_k的一半左右，W_Q不变。";
  for (float width = 6.0f; width <= 60.0f; width += 1.0f) {
    const Lines lines = wrap(text, width);
    std::string joined;
    for (const std::string& l : lines) {
      EXPECT_LE(units(l), width) << "'" << l << "' at width " << width;
      joined += l;
    }
    EXPECT_EQ(joined, text) << "at width " << width;
    for (const char* run : {"0.02，", "d_k", "W_Q"}) {
      bool whole = false;
      for (const std::string& l : lines) whole = whole || l.find(run) != std::string::npos;
      EXPECT_TRUE(whole) << run << " is split at width " << width;
    }
  }
}

// English wraps at spaces as before, a line break in the message starts a line, and a word longer than
// the whole line is cut where it must be rather than drawn past the edge.
TEST(Wrap, EnglishLineBreaksAndOverlongWords) {
  EXPECT_EQ(wrap("Patching restores 0.75 of the gap", 12.0f), (Lines{"Patching", "restores", "0.75 of the", "gap"}));
  EXPECT_EQ(wrap("第一行\n第二行 two", 100.0f), (Lines{"第一行", "第二行 two"}));
  EXPECT_EQ(wrap("abcdefghij", 4.0f), (Lines{"abcd", "efgh", "ij"}));
  EXPECT_EQ(wrap("", 10.0f), Lines{});
}
