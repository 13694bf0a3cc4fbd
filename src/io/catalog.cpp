#include "catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attn::i18n {

namespace {

constexpr const char* kPluralNames[] = {"zero", "one", "two", "few", "many", "other"};

// [SECTION] plural rules (CLDR's cardinal rules for whole numbers)
const PluralRule kRules[] = {
    {"one_other", {Plural::one, Plural::other}, [](long long n) { return n == 1 ? Plural::one : Plural::other; }},
    {"other", {Plural::other}, [](long long) { return Plural::other; }},
    {"one_0_1", {Plural::one, Plural::other}, [](long long n) { return n == 0 || n == 1 ? Plural::one : Plural::other; }},
    {"slavic", {Plural::one, Plural::few, Plural::many, Plural::other}, [](long long n) {
       const long long a = n % 10, b = n % 100;
       if (a == 1 && b != 11) return Plural::one;
       if (a >= 2 && a <= 4 && (b < 12 || b > 14)) return Plural::few;
       return Plural::many;
     }},
    {"polish", {Plural::one, Plural::few, Plural::many, Plural::other}, [](long long n) {
       const long long a = n % 10, b = n % 100;
       if (n == 1) return Plural::one;
       if (a >= 2 && a <= 4 && (b < 12 || b > 14)) return Plural::few;
       return Plural::many;
     }},
};

// Which rule each language uses (its code before any "-"). Unlisted languages use one_other.
struct LanguageRule { const char* code; const char* rule; };
constexpr LanguageRule kLanguageRules[] = {
    {"zh", "other"}, {"ja", "other"}, {"ko", "other"}, {"vi", "other"}, {"th", "other"}, {"id", "other"},
    {"fr", "one_0_1"}, {"pt-BR", "one_0_1"},
    {"ru", "slavic"}, {"uk", "slavic"}, {"be", "slavic"}, {"pl", "polish"},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "\n" becomes a line break and "\\" a backslash; nothing else is an escape.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == '\\')) {
      out += s[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

const char* plural_name(Plural p) { return kPluralNames[(int)p]; }

const PluralRule& plural_rule_for(std::string_view code) {
  for (const LanguageRule& lr : kLanguageRules)
    if (code == lr.code || (code.size() > 2 && code.substr(0, code.find('-')) == lr.code && std::string_view(lr.code).find('-') == std::string_view::npos))
      for (const PluralRule& r : kRules)
        if (std::string_view(r.name) == lr.rule) return r;
  return kRules[0];
}

std::vector<Piece> parse_pieces(std::string_view t) {
  std::vector<Piece> out;
  std::string lit;
  for (size_t i = 0; i < t.size(); ++i) {
    if ((t[i] == '{' || t[i] == '}') && i + 1 < t.size() && t[i + 1] == t[i]) {
      lit += t[i++];
    } else if (t[i] == '{') {
      const size_t close = t.find('}', i);
      if (close == std::string_view::npos) { lit += t.substr(i); break; }
      if (!lit.empty()) out.push_back({std::move(lit), false}), lit.clear();
      out.push_back({std::string(t.substr(i + 1, close - i - 1)), true});
      i = close;
    } else {
      lit += t[i];
    }
  }
  if (!lit.empty()) out.push_back({std::move(lit), false});
  return out;
}

std::vector<std::string> placeholders(const Message& m) {
  std::vector<std::string> names;
  for (const auto& pieces : m.pieces)
    for (const Piece& p : pieces)
      if (p.placeholder) names.push_back(p.text);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// [SECTION] reading a catalogue
bool Catalog::parse(std::string_view text, std::string_view source, std::string* error) {
  messages_.clear();
  rule = nullptr;
  const auto fail = [&](int line, const std::string& what) {
    if (error) *error = std::string(source) + ":" + std::to_string(line) + ": " + what;
    return false;
  };
  std::vector<std::pair<std::string, std::string>> forms_of;  // (key, "form") of each plural line, to find duplicates
  Message* last = nullptr;  // the message a continuation line extends
  std::string* last_text = nullptr;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t') && !trim(line).empty() && trim(line).front() != '#') {
      if (!last_text) return fail(line_no, "an indented line continues a message, but no message comes before it");
      *last_text += ' ' + unescape(trim(line));
      continue;
    }
    line = trim(line);
    last_text = nullptr;
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '@') {
      const size_t sp = line.find(' ');
      const std::string_view field = line.substr(1, sp == std::string_view::npos ? line.size() : sp - 1);
      const std::string_view value = sp == std::string_view::npos ? std::string_view() : trim(line.substr(sp));
      if (field == "language") code = std::string(value);
      else if (field == "name") name = std::string(value);
      else if (field == "decimal") decimal = std::string(value);
      else if (field == "script") cjk = value == "cjk";
      else if (field == "status") incomplete = value == "incomplete";
      else return fail(line_no, "unknown header @" + std::string(field) + " (known: @language, @name, @decimal, @script, @status)");
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return fail(line_no, "expected 'key = text'");
    std::string_view key = trim(line.substr(0, eq));
    std::string value = unescape(trim(line.substr(eq + 1)));
    std::string_view form;
    if (const size_t br = key.find('['); br != std::string_view::npos) {
      if (key.back() != ']') return fail(line_no, "a plural form is written key[one], key[other], ...");
      form = key.substr(br + 1, key.size() - br - 2);
      key = key.substr(0, br);
    }
    if (!valid_key(key)) return fail(line_no, "a key is letters, digits, '.', '_' and '-' only: '" + std::string(key) + "'");
    const auto same = [&](const Message& m) { return m.key == key; };
    auto it = std::find_if(messages_.begin(), messages_.end(), same);
    if (form.empty()) {
      if (it != messages_.end()) return fail(line_no, "the key " + std::string(key) + " is given twice");
      messages_.push_back({std::string(key), std::move(value), {}, {}, {}});
      last = &messages_.back();
      last_text = &last->text;
      continue;
    }
    const auto p = std::find(std::begin(kPluralNames), std::end(kPluralNames), form);
    if (p == std::end(kPluralNames)) return fail(line_no, "unknown plural form [" + std::string(form) + "] (zero, one, two, few, many, other)");
    if (it == messages_.end()) {
      messages_.push_back({std::string(key), {}, std::vector<std::string>((int)Plural::count), {}, {}});
      it = messages_.end() - 1;
    } else if (it->forms.empty()) {
      return fail(line_no, "the key " + std::string(key) + " is given as a plain message and as a plural");
    }
    std::string& slot = it->forms[p - std::begin(kPluralNames)];
    if (!slot.empty()) return fail(line_no, "the form " + std::string(key) + "[" + std::string(form) + "] is given twice");
    slot = std::move(value);
    last = &*it;
    last_text = &slot;
  }
  rule = &plural_rule_for(code);
  for (Message& m : messages_) {
    if (m.forms.empty()) {
      m.pieces = {parse_pieces(m.text)};
      continue;
    }
    m.pieces.assign((int)Plural::count, {});
    for (Plural c : rule->categories)
      if (m.forms[(int)c].empty())
        return fail(0, "the plural " + m.key + " lacks its [" + plural_name(c) + "] form, which " + code + " (rule " + rule->name + ") needs");
    m.text = m.forms[(int)Plural::other];
    for (int c = 0; c < (int)Plural::count; ++c) m.pieces[c] = parse_pieces(m.forms[c]);
  }
  index();
  return true;
}

void Catalog::index() {
  size_t n = 16;
  while (n < messages_.size() * 2) n *= 2;
  slots_.assign(n, -1);
  for (size_t i = 0; i < messages_.size(); ++i) {
    size_t s = key_hash(messages_[i].key) & (n - 1);
    while (slots_[s] >= 0) s = (s + 1) & (n - 1);
    slots_[s] = (int32_t)i;
  }
}

const Message* Catalog::find(uint64_t hash) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash & mask; slots_[s] >= 0; s = (s + 1) & mask) {
    const Message& m = messages_[slots_[s]];
    if (key_hash(m.key) == hash) return &m;
  }
  return nullptr;
}

// [SECTION] formatting
std::string Catalog::number(double v, int digits) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::clamp(digits, 0, 12), v);
  std::string out = buf;
  if (decimal != ".")
    if (const size_t dot = out.find('.'); dot != std::string::npos) out.replace(dot, 1, decimal);
  return out;
}

std::string Catalog::format(const Message& m, std::initializer_list<Arg> args, long long count) const {
  const std::vector<Piece>* pieces = &m.pieces[0];
  if (!m.forms.empty()) {
    const Plural c = (rule ? rule : &plural_rule_for(code))->pick(count < 0 ? -count : count);
    pieces = m.forms[(int)c].empty() ? &m.pieces[(int)Plural::other] : &m.pieces[(int)c];
  }
  std::string out;
  for (const Piece& p : *pieces) {
    if (!p.placeholder) { out += p.text; continue; }
    const Arg* a = nullptr;
    for (const Arg& x : args)
      if (p.text == x.name) a = &x;
    if (!a) { out += '{' + p.text + '}'; continue; }
    switch (a->kind) {
      case Arg::integer: out += std::to_string(a->i); break;
      case Arg::number: out += number(a->d, a->digits); break;
      case Arg::text: out += a->s; break;
    }
  }
  return out;
}

// [SECTION] the pseudo-language
namespace {

// Each ASCII letter as an accented letter of Latin-1 or Latin Extended-A/B (in the UI font's ranges);
// m, v and x, which have none there, stay plain: the « » around every message still marks them.
const char* accented(char c) {
  static const char* const lower[26] = {"á", "ƀ", "ç", "ð", "é", "ƒ", "ĝ", "ĥ", "í", "ĵ", "ķ", "ĺ", "m",
                                        "ñ", "ö", "þ", "ǫ", "ŕ", "š", "ţ", "ü", "v", "ŵ", "x", "ý", "ž"};
  static const char* const upper[26] = {"Å", "Ɓ", "Ç", "Ð", "É", "Ƒ", "Ĝ", "Ĥ", "Í", "Ĵ", "Ķ", "Ĺ", "M",
                                        "Ñ", "Ö", "Þ", "Ǫ", "Ŕ", "Š", "Ţ", "Û", "V", "Ŵ", "X", "Ý", "Ž"};
  if (c >= 'a' && c <= 'z') return lower[c - 'a'];
  if (c >= 'A' && c <= 'Z') return upper[c - 'A'];
  return nullptr;
}

std::string pseudo_text(const std::string& text) {
  if (text.empty()) return text;
  std::string out = "\xC2\xAB";  // «
  int depth = 0;  // inside {placeholder}
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{') depth++;
    if (depth == 0 && accented(c)) {
      out += accented(c);
    } else {
      out += c;
    }
    if (c == '}') depth = std::max(0, depth - 1);
  }
  const size_t pad = (text.size() * 4 + 9) / 10;  // 40 % longer
  out += ' ';
  for (size_t i = 1; i < pad; ++i) out += '~';
  return out + "\xC2\xBB";  // »
}

}  // namespace

Catalog Catalog::pseudo(const Catalog& en) {
  Catalog c;
  c.code = "pseudo";
  c.name = "Pseudo";
  c.decimal = ",";
  c.rule = &plural_rule_for("en");
  c.messages_ = en.messages_;
  for (Message& m : c.messages_) {
    m.text = pseudo_text(m.text);
    for (std::string& f : m.forms) f = pseudo_text(f);
    m.titled.clear();
    m.pieces.clear();
    if (m.forms.empty()) m.pieces = {parse_pieces(m.text)};
    else
      for (const std::string& f : m.forms) m.pieces.push_back(parse_pieces(f));
  }
  c.index();
  return c;
}

}  // namespace attn::i18n
