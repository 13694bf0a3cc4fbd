// i18n.h — the UI's words in the learner's language. Every user-visible string is a key into the
// catalogue of the current language (assets/lang/<code>.txt; docs/translating.md):
//
//   ImGui::Button(tr("bar.share"));                              // a message
//   ImGui::Button(tr_id("bar.share", "share"));                  // a label whose ImGui ID is the same in every language
//   notify(app, trf("notice.preset", {{"name", p.name}}));       // placeholders filled in
//   trn("status.tokens", n, {{"n", n}})                          // a plural: the form is picked by n
//
// A key written as a literal is hashed at compile time (Key is consteval), so a lookup is one probe
// into the catalogue's table. A key missing in a language falls back to English; one missing in
// English shows the key itself, and tests/i18n fails on it first.
#pragma once
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "catalog.h"

namespace attnlab {

struct Key {
  uint64_t hash;
  const char* name;
  consteval Key(const char* key) : hash(attn::i18n::key_hash(key)), name(key) {}
};

const char* tr(Key key);
const char* tr_id(Key key, const char* id);
std::string trf(Key key, std::initializer_list<attn::i18n::Arg> args);
std::string trn(Key key, long long count, std::initializer_list<attn::i18n::Arg> args);
// A key built at run time ("preset.causal.name"): `fallback` when no catalogue has it.
const char* tr_dynamic(std::string_view key, const char* fallback);
std::string trf_dynamic(std::string_view key, const char* fallback, std::initializer_list<attn::i18n::Arg> args);
// A field of an entry in one of the engine's tables (mask kinds, positional encodings, tasks): the
// catalogue's "<table>.<name>.<field>" ("mask.causal.help"), else the table's own English.
const char* tr_entry(std::string_view table, std::string_view name, std::string_view field, const char* english);
// The label of such an entry ("<table>.<name>.label") as "text###english", so its ImGui ID stays.
const char* tr_id_entry(std::string_view table, std::string_view name, const char* english);
// A number with `digits` decimals, written as the current language writes it (0.75, 0,75).
std::string num(double v, int digits);

// [SECTION] languages
struct Language {
  const char* code;  // "zh"
  const char* name;  // the language's own name: "简体中文"
  bool cjk;          // needs the CJK font
  const char* text;  // the catalogue compiled in, or nullptr: the shell loads lang/<code>.txt on demand
  bool hidden;       // not offered in the menu (the pseudo-language)
};
std::span<const Language> languages();
const Language* find_language(std::string_view code);
// The best available language for a preference list entry ("de-AT" -> "de", "zh-Hans-CN" -> "zh"); nullptr: none.
const Language* match_language(std::string_view wanted);

// The current language's code and catalogue.
const std::string& language();
const attn::i18n::Catalog& catalog();
const attn::i18n::Catalog& english();
// Makes `code` current. `text` is its catalogue when it is not compiled in (an empty view: compiled
// in). False, with the reason in *error, when the code is unknown or the text does not parse; the
// current language then stays.
bool set_language(std::string_view code, std::string_view text, std::string* error);
// Bumped on every change of language, so what caches translated text knows to rebuild it.
int language_generation();

}  // namespace attnlab
