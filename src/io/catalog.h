// catalog.h — a message catalogue: one language's UI strings, read from assets/lang/<code>.txt
// (docs/translating.md describes the format for translators). No ImGui include: the UI's lookup
// (ui/i18n.h) and the tests read catalogues through this.
//
// A message is found by the 64-bit FNV-1a hash of its key. UI code writes keys as literals, so the
// hash is computed at compile time (i18n::Key is consteval) and a lookup is one probe into a flat table.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace attn::i18n {

constexpr uint64_t key_hash(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits
  for (char c : s) h = (h ^ (unsigned char)c) * 0x100000001b3ull;
  return h;
}

// The hash of "a.b.c" from its parts, without building the string.
constexpr uint64_t key_hash(std::initializer_list<std::string_view> parts) {
  uint64_t h = 0xcbf29ce484222325ull;
  bool first = true;
  for (std::string_view s : parts) {
    if (!first) h = (h ^ (unsigned char)'.') * 0x100000001b3ull;
    first = false;
    for (char c : s) h = (h ^ (unsigned char)c) * 0x100000001b3ull;
  }
  return h;
}

// Plural categories (CLDR's names). A language's rule says which it uses and which a count picks.
enum class Plural : uint8_t { zero, one, two, few, many, other, count };
const char* plural_name(Plural p);

// The plural rules a catalogue can name by its language code; a language with a new rule is one entry
// in catalog.cpp's table (the only part of adding a language that is C++).
struct PluralRule {
  const char* name;                         // "one_other"
  std::vector<Plural> categories;           // the forms a catalogue in this rule must give
  Plural (*pick)(long long n);
};
const PluralRule& plural_rule_for(std::string_view language_code);

// One piece of a parsed message: literal text, or a placeholder {name}.
struct Piece {
  std::string text;     // the literal, or the placeholder's name
  bool placeholder = false;
};

struct Message {
  std::string key;
  std::string text;                            // the message as written (the `other` form for plurals)
  std::vector<std::string> forms;              // by Plural category; empty: not a plural message
  std::vector<std::vector<Piece>> pieces;      // parsed text (index 0) or forms (by category)
  mutable std::string titled;                  // "text###id", filled on first use (ui::tr_id)
};

// A formatting argument: an integer, a number with a number of decimals, or text.
struct Arg {
  const char* name;
  enum Kind { integer, number, text } kind;
  long long i = 0;
  double d = 0;
  int digits = 0;
  std::string_view s;
  Arg(const char* n, int v) : name(n), kind(integer), i(v) {}
  Arg(const char* n, long long v) : name(n), kind(integer), i(v) {}
  Arg(const char* n, std::string_view v) : name(n), kind(text), s(v) {}
  Arg(const char* n, const char* v) : name(n), kind(text), s(v ? v : "") {}
  Arg(const char* n, const std::string& v) : name(n), kind(text), s(v) {}
  Arg(const char* n, double v, int digits_) : name(n), kind(number), d(v), digits(digits_) {}
};

class Catalog {
 public:
  // Reads a catalogue's text. On a malformed line, returns false and says where in *error
  // ("en.txt:12: ..."). `source` names the file in messages.
  bool parse(std::string_view text, std::string_view source, std::string* error);

  // The pseudo-language: every message of `english` with its letters accented, wrapped in « » and
  // lengthened by 40 %; placeholders kept. What a test drives the lab in to find untranslated text.
  static Catalog pseudo(const Catalog& english);

  const Message* find(uint64_t hash) const;
  const Message* find(std::string_view key) const { return find(key_hash(key)); }
  const std::vector<Message>& messages() const { return messages_; }

  // Fills a message's placeholders from args; a plural message picks its form by `count`.
  // A placeholder with no argument is kept as written ({name}), so a mistake shows on screen.
  std::string format(const Message& m, std::initializer_list<Arg> args, long long count = 1) const;
  // A number with `digits` decimals and this language's decimal separator.
  std::string number(double v, int digits) const;

  std::string code = "en";     // @language
  std::string name = "English";  // @name: the language's own name, as the menu shows it
  std::string decimal = ".";   // @decimal
  bool cjk = false;            // @script cjk: the UI needs the CJK font
  bool incomplete = false;     // @status incomplete: a translation in progress (the check lists its missing keys)
  const PluralRule* rule = nullptr;

 private:
  void index();
  std::vector<Message> messages_;
  std::vector<int32_t> slots_;  // open addressing by hash: index into messages_, -1 empty
};

// Splits a message into literal text and {placeholders} ({{ and }} are literal braces).
std::vector<Piece> parse_pieces(std::string_view text);
// The placeholder names of a message, sorted (the key check compares them across languages).
std::vector<std::string> placeholders(const Message& m);

}  // namespace attn::i18n
