#include "tokenizer.h"

#include <cctype>

namespace attn {
namespace {

enum class Class { space, word, punct, single, joiner };

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

Class classify(char32_t c) {
  if (c < 0x80) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return Class::space;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') return Class::word;
    if (c < 0x20 || c == 0x7F) return Class::space;  // control characters separate like spaces
    return Class::punct;
  }
  if (c == 0x00A0 || in(c, 0x2000, 0x200A) || c == 0x3000 || c == 0x2028 || c == 0x2029) return Class::space;
  if (c == 0x200D || in(c, 0xFE00, 0xFE0F) || in(c, 0x1F3FB, 0x1F3FF) || in(c, 0xE0020, 0xE007F))
    return Class::joiner;  // zero-width joiner, variation selectors, skin tones, tag characters
  if (in(c, 0x3040, 0x30FF) || in(c, 0x3400, 0x4DBF) || in(c, 0x4E00, 0x9FFF) || in(c, 0xAC00, 0xD7AF) ||
      in(c, 0xF900, 0xFAFF) || in(c, 0x20000, 0x3FFFF) || in(c, 0x3000, 0x303F) || in(c, 0xFF00, 0xFFEF))
    return Class::single;  // CJK, kana, Hangul, CJK punctuation, full-width forms
  if (in(c, 0x2190, 0x2BFF) || in(c, 0x1F000, 0x1FAFF) || c == 0xFFFD || in(c, 0x2010, 0x205E) ||
      in(c, 0x00A1, 0x00BF) || c == 0x00D7 || c == 0x00F7)
    return Class::single;  // arrows, symbols, emoji, general punctuation, Latin-1 punctuation
  return Class::word;      // other scripts' letters join words
}

}  // namespace

int decode_utf8(std::string_view s, size_t i, char32_t* cp) {
  const auto b = [&](size_t k) { return (unsigned char)s[k]; };
  const unsigned char c0 = b(i);
  const size_t left = s.size() - i;
  const auto cont = [&](size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
  if (c0 < 0x80) { *cp = c0; return 1; }
  if (c0 >= 0xC2 && c0 <= 0xDF && left >= 2 && cont(i + 1)) {
    *cp = (char32_t)((c0 & 0x1F) << 6 | (b(i + 1) & 0x3F));
    return 2;
  }
  if (c0 >= 0xE0 && c0 <= 0xEF && left >= 3 && cont(i + 1) && cont(i + 2)) {
    char32_t v = (char32_t)((c0 & 0x0F) << 12 | (b(i + 1) & 0x3F) << 6 | (b(i + 2) & 0x3F));
    if (v >= 0x800 && !(v >= 0xD800 && v <= 0xDFFF)) { *cp = v; return 3; }  // no overlong, no surrogates
  }
  if (c0 >= 0xF0 && c0 <= 0xF4 && left >= 4 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
    char32_t v = (char32_t)((c0 & 0x07) << 18 | (b(i + 1) & 0x3F) << 12 | (b(i + 2) & 0x3F) << 6 | (b(i + 3) & 0x3F));
    if (v >= 0x10000 && v <= 0x10FFFF) { *cp = v; return 4; }
  }
  *cp = 0xFFFD;
  return 1;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    const int len = decode_utf8(s, i, &cp);
    if (cp == 0xFFFD && !(len == 3 && s.compare(i, 3, "\xEF\xBF\xBD") == 0)) return false;
    i += (size_t)len;
  }
  return true;
}

Tokenized tokenize(std::string_view text, int max_tokens) {
  Tokenized out;
  std::string current;
  Class current_class = Class::space;
  // Counting dropped tokens stops at a bound so a huge paste costs O(bound), not O(text).
  const int count_bound = max_tokens + 1000000;
  const auto flush = [&] {
    if (current.empty()) return;
    if ((int)out.tokens.size() < max_tokens) out.tokens.push_back(std::move(current));
    else ++out.dropped_tokens;
    current.clear();
    current_class = Class::space;
  };
  for (size_t i = 0; i < text.size();) {
    if ((int)out.tokens.size() + out.dropped_tokens >= count_bound) break;
    char32_t cp;
    const int len = decode_utf8(text, i, &cp);
    const bool invalid = (cp == 0xFFFD && len == 1);
    if (invalid) ++out.invalid_bytes;
    // A special token such as <pad>, <s> or <|endoftext|> stays whole: letters, digits, _ or | between < and >.
    if (cp == '<') {
      size_t k = i + 1;
      const auto inside = [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_' || ch == '|'; };
      while (k < text.size() && k - i <= 32 && inside(text[k])) ++k;
      if (k > i + 1 && k < text.size() && text[k] == '>') {
        flush();
        current.assign(text.substr(i, k + 1 - i));
        flush();
        i = k + 1;
        continue;
      }
    }
    std::string_view bytes = invalid ? std::string_view("\xEF\xBF\xBD") : text.substr(i, (size_t)len);
    Class cls = classify(cp);
    // An apostrophe between two word characters stays inside the word: "don't".
    if (cp == '\'' && current_class == Class::word && i + 1 < text.size()) {
      char32_t next;
      decode_utf8(text, i + 1, &next);
      if (classify(next) == Class::word) cls = Class::word;
    }
    switch (cls) {
      case Class::space: flush(); break;
      case Class::word:
        if (current_class != Class::word) flush();
        current += bytes;
        current_class = Class::word;
        break;
      case Class::joiner:  // glue to whatever came before (an emoji sequence), else drop
        if (!current.empty()) current += bytes;
        break;
      case Class::punct:
      case Class::single:
        // A zero-width joiner followed by a pictograph continues the same emoji sequence.
        if (cls == Class::single && current_class == Class::single && current.size() >= 3 &&
            current.compare(current.size() - 3, 3, "\xE2\x80\x8D") == 0) {
          current += bytes;
          break;
        }
        flush();
        current = bytes;
        current_class = (cls == Class::single) ? Class::single : Class::punct;
        break;
    }
    i += (size_t)len;
  }
  flush();
  return out;
}

}  // namespace attn
