#include <gtest/gtest.h>

#include "tokenizer.h"

namespace {

std::vector<std::string> toks(const std::string& s, int max = 256) { return attn::tokenize(s, max).tokens; }
using V = std::vector<std::string>;

TEST(Tokenizer, WordsAndPunctuation) {
  EXPECT_EQ(toks("The cat sat."), (V{"The", "cat", "sat", "."}));
  EXPECT_EQ(toks("don't stop, GPT4!"), (V{"don't", "stop", ",", "GPT4", "!"}));
  EXPECT_EQ(toks("  \t\n "), V{});
  EXPECT_EQ(toks(""), V{});
  EXPECT_EQ(toks("'quoted'"), (V{"'", "quoted", "'"}));
}

TEST(Tokenizer, NonAsciiLettersJoinWords) {
  EXPECT_EQ(toks("naïve café straße"), (V{"naïve", "café", "straße"}));
  EXPECT_EQ(toks("кошка сидит"), (V{"кошка", "сидит"}));
}

TEST(Tokenizer, CjkAndEmojiAreOneTokenEach) {
  EXPECT_EQ(toks("猫が寝る"), (V{"猫", "が", "寝", "る"}));
  EXPECT_EQ(toks("I ❤️ 🐈‍⬛ cats"), (V{"I", "❤️", "🐈‍⬛", "cats"}));
  EXPECT_EQ(toks("ok👍🏽"), (V{"ok", "👍🏽"}));
}

TEST(Tokenizer, InvalidUtf8BecomesReplacementCharacters) {
  const attn::Tokenized t = attn::tokenize("ab\xff\xfe cd \xc3", 10);
  EXPECT_EQ(t.invalid_bytes, 3);
  EXPECT_EQ(t.tokens, (V{"ab", "\xEF\xBF\xBD", "\xEF\xBF\xBD", "cd", "\xEF\xBF\xBD"}));
  EXPECT_FALSE(attn::is_valid_utf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_FALSE(attn::is_valid_utf8("\xc0\xaf"));      // overlong
  EXPECT_TRUE(attn::is_valid_utf8("héllo 猫 🐈"));
}

TEST(Tokenizer, LimitCountsWhatWasDropped) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s += "word ";
  const attn::Tokenized t = attn::tokenize(s, 256);
  EXPECT_EQ(t.tokens.size(), 256u);
  EXPECT_EQ(t.dropped_tokens, 744);
}

TEST(Tokens, SpecialTokensStayWhole) {
  const attn::Tokenized t = attn::tokenize("hello world ! <pad> <pad> <|endoftext|> a<b", 100);
  const std::vector<std::string> want = {"hello", "world", "!", "<pad>", "<pad>", "<|endoftext|>", "a", "<", "b"};
  EXPECT_EQ(t.tokens, want);
}

}  // namespace
