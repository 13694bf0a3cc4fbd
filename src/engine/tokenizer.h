// tokenizer.h — text to tokens, by a rule simple enough to predict by eye:
//   * white space separates tokens and is dropped;
//   * a run of letters, digits, apostrophes inside a word, and any non-ASCII letters (é, ß, ж, …)
//     is one word token: "don't", "naïve", "GPT4";
//   * every other ASCII character (punctuation, symbols) is a token of its own: "cat." -> "cat" ".";
//   * CJK ideographs, kana and Hangul syllables are one token each (those scripts do not use spaces);
//   * an emoji or pictograph is one token, together with the joiners and modifiers that follow it;
//   * bytes that are not valid UTF-8 become U+FFFD "�" tokens and are counted in `invalid_bytes`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attn {

struct Tokenized {
  std::vector<std::string> tokens;
  int invalid_bytes = 0;   // bytes replaced by U+FFFD
  int dropped_tokens = 0;  // tokens past max_tokens (only counted up to a bound: see tokenize)
};

// Splits `text` into at most max_tokens tokens; the rest are counted in dropped_tokens.
Tokenized tokenize(std::string_view text, int max_tokens);

// Decodes one UTF-8 code point at s[i]; returns its length in bytes (1 for an invalid byte, with
// *cp = 0xFFFD). Exposed for tests.
int decode_utf8(std::string_view s, size_t i, char32_t* cp);

// True if `s` is valid UTF-8.
bool is_valid_utf8(std::string_view s);

}  // namespace attn
