#include "config_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "json_util.h"
#include "mask.h"
#include "positional.h"

namespace attn {
namespace {

using json = nlohmann::json;

// A string as it may appear in a one-line message: printable ASCII kept, every other byte as \xNN
// (so invalid UTF-8 or a NUL never reaches a terminal), at most `max` bytes of s.
std::string printable(std::string_view s, size_t max = 40) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch < 0x7F) {
      out += (char)ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", ch);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// "line L, column C" of byte offset `at` in text (both from 1).
std::string line_column(std::string_view text, size_t at) {
  at = std::min(at, text.size());
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// nlohmann's SAX DOM builder, plus: a duplicate key is an error (JSON allows it, but a config whose
// second "heads" silently wins is a trap), and the error says where, by path or by line and column.
class StrictDom {
 public:
  explicit StrictDom(json& root) : dom_(root, /*allow_exceptions=*/false) {}
  std::string error;

  bool null() { return value(), dom_.null(); }
  bool boolean(bool v) { return value(), dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value(), dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(), dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) { return value(), dom_.number_float(v, s); }
  bool string(std::string& v) { return value(), dom_.string(v); }
  bool binary(json::binary_t& v) { return value(), dom_.binary(v); }
  bool start_object(std::size_t n) {
    value();
    path_.push_back({false, 0, {}, {}});
    return dom_.start_object(n);
  }
  bool key(std::string& k) {
    Level& l = path_.back();
    if (!l.keys.insert(k).second) {
      error = "config: duplicate key \"" + printable(k) + "\"" + (path_.size() > 1 ? " in " + where() : "");
      return false;
    }
    l.key = k;
    return dom_.key(k);
  }
  bool end_object() { path_.pop_back(); return dom_.end_object(); }
  bool start_array(std::size_t n) {
    value();
    path_.push_back({true, -1, {}, {}});
    return dom_.start_array(n);
  }
  bool end_array() { path_.pop_back(); return dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    std::string what = ex.what();
    if (const size_t p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
    if (what.rfind("parse error", 0) == 0)
      if (const size_t p = what.find(": "); p != std::string::npos) what.erase(0, p + 2);
    if (const size_t p = what.find("; last read"); p != std::string::npos) what.erase(p);
    const size_t at = ex.id >= 100 && ex.id < 200 ? static_cast<const nlohmann::detail::parse_error&>(ex).byte : position;
    error = "config: not valid JSON at " + line_column(text_, at ? at - 1 : 0) + ": " + printable(what, 160);
    return false;
  }
  std::string_view text_;

 private:
  struct Level {
    bool array;
    long index;           // arrays: the element being read
    std::string key;      // objects: the key being read
    std::set<std::string> keys;
  };
  void value() {  // a value starts: in an array, it is the next element
    if (!path_.empty() && path_.back().array) ++path_.back().index;
  }
  std::string where() const {  // the enclosing object, as a field name: mask[0], source
    std::string out;
    for (size_t i = 0; i + 1 < path_.size(); ++i) {
      const Level& l = path_[i];
      if (l.array) out += "[" + std::to_string(l.index) + "]";
      else out += (out.empty() ? "" : ".") + printable(l.key);
    }
    return out;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Level> path_;
};

// Every accessor checks the type first, so no nlohmann call below can throw.
struct Reader {
  std::string error;
  bool fail(const std::string& field, const std::string& what) {
    if (error.empty()) error = field + ": " + what;
    return false;
  }
  bool get_int(const json& v, const std::string& field, long long lo, long long hi, int& out) {
    if (!v.is_number() || (v.is_number_float() && std::floor(v.get<double>()) != v.get<double>()))
      return fail(field, "expected an integer");
    const double d = v.get<double>();
    if (d < (double)lo || d > (double)hi)
      return fail(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    out = (int)d;
    return true;
  }
  bool get_float(const json& v, const std::string& field, float& out) {
    if (!v.is_number()) return fail(field, "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 1e30) return fail(field, "expected a finite number");
    out = (float)d;
    return true;
  }
  bool get_string(const json& v, const std::string& field, std::string& out) {
    if (!v.is_string()) return fail(field, "expected a string");
    out = v.get<std::string>();
    return true;
  }
  bool get_strings(const json& v, const std::string& field, std::vector<std::string>& out) {
    if (!v.is_array()) return fail(field, "expected a list of strings");
    out.clear();
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) return fail(field + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return true;
  }
  // A rows×cols matrix of numbers, row-major; rows and cols are reported back. max_rows bounds memory.
  bool get_matrix(const json& v, const std::string& field, std::vector<float>& out, int& rows, int& cols,
                  int expect_cols = -1) {
    if (!v.is_array() || v.empty()) return fail(field, "expected a non-empty list of rows");
    rows = (int)v.size();
    cols = -1;
    out.clear();
    for (size_t r = 0; r < v.size(); ++r) {
      const json& row = v[r];
      const std::string rf = field + "[" + std::to_string(r) + "]";
      if (!row.is_array()) return fail(rf, "expected a list of numbers");
      if (cols < 0) cols = (int)row.size();
      if ((int)row.size() != cols) return fail(rf, "expected " + std::to_string(cols) + " numbers like the first row, got " + std::to_string(row.size()));
      if (expect_cols >= 0 && cols != expect_cols) return fail(rf, "expected " + std::to_string(expect_cols) + " numbers, got " + std::to_string(cols));
      for (size_t c = 0; c < row.size(); ++c) {
        float f;
        if (!get_float(row[c], rf + "[" + std::to_string(c) + "]", f)) return false;
        out.push_back(f);
      }
    }
    return true;
  }
  // [heads][rows][cols] into one flat buffer, checking every shape.
  bool get_tensor3(const json& v, const std::string& field, int heads, int rows, int cols, std::vector<float>& out) {
    if (!v.is_array() || (int)v.size() != heads)
      return fail(field, "expected a list of " + std::to_string(heads) + " matrices (one per head) of " + std::to_string(rows) + "x" + std::to_string(cols));
    out.clear();
    for (int h = 0; h < heads; ++h) {
      std::vector<float> m;
      int r = 0, c = 0;
      const std::string hf = field + "[" + std::to_string(h) + "]";
      if (!get_matrix(v[(size_t)h], hf, m, r, c, cols)) return false;
      if (r != rows) return fail(hf, "expected " + std::to_string(rows) + " rows (d_model), got " + std::to_string(r));
      out.insert(out.end(), m.begin(), m.end());
    }
    return true;
  }

  bool sequence(const json& obj, const std::string& prefix, SequenceInput& s, int d_model) {
    s = SequenceInput{};
    if (auto it = obj.find("text"); it != obj.end() && !get_string(*it, prefix + "text", s.text)) return false;
    if (auto it = obj.find("tokens"); it != obj.end()) {
      if (!get_strings(*it, prefix + "tokens", s.tokens)) return false;
      s.use_tokens = true;
    }
    if (auto it = obj.find("x"); it != obj.end()) {
      int cols = 0;
      if (!get_matrix(*it, prefix + "x", s.x, s.x_rows, cols, d_model)) return false;
    }
    return true;
  }

  // One mask term: a bare kind name ("causal") or an object {name: payload} (mask.cpp registers the kinds).
  bool mask_term(const json& v, const std::string& field, MaskTerm& t) {
    t = MaskTerm{};
    std::string bare, objects;
    for (const MaskKind& k : mask_kinds())
      (k.bare ? bare : objects) += std::string(k.bare ? (bare.empty() ? "\"" : ", \"") : (objects.empty() ? "" : "|")) +
                                   k.name + (k.bare ? "\"" : "");
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      const MaskKind* k = find_mask_kind(s);
      if (!k || !k->bare) return fail(field, "expected " + bare + " or an object {" + objects + "}, got \"" + printable(s) + "\"");
      t.kind = k->kind;
      return true;
    }
    if (!v.is_object()) return fail(field, "expected a string or an object");
    bool causal_given = false;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      const MaskKind* k = find_mask_kind(key);
      if (k && !k->bare) {
        if (t.kind != MaskTerm::Kind::none)
          return fail(field, std::string("one kind per term, got both ") + to_string(t.kind) + " and " + k->name);
        t.kind = k->kind;
        if (!mask_payload(*it, field + "." + key, t)) return false;
      } else if (key == "causal") {
        if (!it->is_boolean()) return fail(field + ".causal", "expected true or false");
        t.window_causal = it->get<bool>();
        causal_given = true;
      } else {
        return fail(field + "." + printable(key), "unknown key (expected " + objects + " or causal)");
      }
    }
    if (t.kind == MaskTerm::Kind::none) return fail(field, "expected one of " + objects);
    if (causal_given && t.kind != MaskTerm::Kind::window) return fail(field + ".causal", "only a window term takes causal");
    return true;
  }

  // The parameters of a term given as {name: payload}; one case per kind that has a payload.
  bool mask_payload(const json& v, const std::string& f, MaskTerm& t) {
    switch (t.kind) {
      case MaskTerm::Kind::window: return get_int(v, f, 1, Limits::max_tokens, t.window);
      case MaskTerm::Kind::padding:
        if (!v.is_array()) return fail(f, "expected a list of key indices");
        if (v.size() > (size_t)Limits::max_padding_keys)
          return fail(f, std::to_string(v.size()) + " keys listed, at most " + std::to_string(Limits::max_padding_keys));
        for (size_t i = 0; i < v.size(); ++i) {
          int k = 0;
          if (!get_int(v[i], f + "[" + std::to_string(i) + "]", 0, Limits::max_tokens - 1, k)) return false;
          t.keys.push_back(k);
        }
        return true;
      case MaskTerm::Kind::custom: {
        std::vector<float> cells;
        if (v.is_array() && v.size() > (size_t)Limits::max_tokens)
          return fail(f, std::to_string(v.size()) + " rows, at most " + std::to_string(Limits::max_tokens));
        if (!get_matrix(v, f, cells, t.rows, t.cols)) return false;
        for (float c : cells) {
          if (c != 0.0f && c != 1.0f) return fail(f, "expected only 0 and 1");
          t.cells.push_back(c != 0.0f);
        }
        return true;
      }
      default: return true;
    }
  }
};

}  // namespace

std::string parse_config(std::string_view text, Config& c) {
  if ((int64_t)text.size() > Limits::max_config_bytes)
    return "config: " + format_bytes((int64_t)text.size()) + " of text, at most " + format_bytes(Limits::max_config_bytes);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return "config: empty (expected a JSON object)";
  json root;
  StrictDom dom(root);
  dom.text_ = text;
  if (!json::sax_parse(text.begin(), text.end(), &dom)) return dom.error.empty() ? "config: not valid JSON" : dom.error;
  if (!root.is_object()) return "config: expected a JSON object";
  Reader r;
  c = Config{};
  // Sizes first: the shapes of explicit arrays depend on them.
  if (auto it = root.find("d_model"); it != root.end() && !r.get_int(*it, "d_model", 1, Limits::max_d_model, c.d_model)) return r.error;
  if (auto it = root.find("heads"); it != root.end()) {
    if (!r.get_int(*it, "heads", 1, Limits::max_heads, c.heads)) return r.error;
  }
  // d_k and d_v default to d_model / heads when not given (at least 1).
  c.d_k = c.d_v = std::max(1, c.d_model / c.heads);

  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    const json& v = *it;
    bool ok = true;
    if (key == "d_model" || key == "heads" || key == "text" || key == "tokens" || key == "x") continue;
    if (key == "d_k") ok = r.get_int(v, key, 1, Limits::max_d_head, c.d_k);
    else if (key == "d_v") ok = r.get_int(v, key, 1, Limits::max_d_head, c.d_v);
    else if (key == "seed") {
      if (!v.is_number_unsigned()) ok = r.fail(key, "expected a non-negative integer");
      else c.seed = v.get<uint64_t>();
    } else if (key == "positional") {
      std::string s;
      ok = r.get_string(v, key, s);
      if (ok) {
        if (const PositionalKind* p = find_positional_kind(s)) {
          c.positional = p->kind;
        } else {
          std::string names;
          for (const PositionalKind& k : positional_kinds()) names += (names.empty() ? "\"" : ", \"") + std::string(k.name) + "\"";
          ok = r.fail(key, "expected one of " + names + "; got \"" + printable(s) + "\"");
        }
      }
    } else if (key == "embedding") {
      std::string s;
      ok = r.get_string(v, key, s);
      if (ok) {
        if (s == "hashed") c.embedding = Embedding::hashed;
        else if (s == "interpretable") c.embedding = Embedding::interpretable;
        else ok = r.fail(key, "expected \"hashed\" or \"interpretable\", got \"" + s + "\"");
      }
    } else if (key == "scale") {
      if (v.is_boolean()) c.scale_mode = v.get<bool>() ? ScaleMode::inv_sqrt_dk : ScaleMode::none;
      else if (v.is_number()) {
        c.scale_mode = ScaleMode::custom;
        ok = r.get_float(v, key, c.scale_value);
      } else ok = r.fail(key, "expected true (1/sqrt(d_k)), false (1) or a number");
    } else if (key == "temperature") ok = r.get_float(v, key, c.temperature);
    else if (key == "mask") {
      // A single term is the list of that one term: it is mask[0] in every message.
      c.mask.clear();
      const json one = json::array({v});
      const json& terms = v.is_array() ? v : one;
      if (terms.size() > (size_t)Limits::max_mask_terms)
        ok = r.fail(key, std::to_string(terms.size()) + " terms, at most " + std::to_string(Limits::max_mask_terms));
      for (size_t i = 0; i < terms.size() && ok; ++i) {
        MaskTerm t;
        ok = r.mask_term(terms[i], mask_field(i), t);
        if (ok && t.kind != MaskTerm::Kind::none) c.mask.push_back(std::move(t));
      }
    } else if (key == "cross") {
      if (!v.is_boolean()) ok = r.fail(key, "expected true or false");
      else c.cross = v.get<bool>();
    } else if (key == "source") {
      c.cross = true;
      if (v.is_string()) c.source.text = v.get<std::string>();
      else if (v.is_array()) { ok = r.get_strings(v, key, c.source.tokens); c.source.use_tokens = true; }
      else if (v.is_object()) {
        for (auto s = v.begin(); s != v.end() && ok; ++s)
          if (s.key() != "text" && s.key() != "tokens" && s.key() != "x") ok = r.fail("source." + s.key(), "unknown key (expected text, tokens or x)");
        ok = ok && r.sequence(v, "source.", c.source, c.d_model);
      } else ok = r.fail(key, "expected text, a list of tokens, or an object {text|tokens|x}");
    } else if (key == "max_tokens") ok = r.get_int(v, key, 1, Limits::max_tokens, c.max_tokens);
    else if (key == "truncate") {
      if (!v.is_boolean()) ok = r.fail(key, "expected true or false");
      else c.truncate = v.get<bool>();
    } else if (key == "w_q" || key == "w_k" || key == "w_v" || key == "w_o" || key == "edits") {
      continue;  // second pass: needs d_k / d_v
    } else if (key == "$schema" || key == "comment" || key == "name" || key == "description") {
      continue;  // free-form, ignored (presets carry a name and a description)
    } else {
      ok = r.fail(key, "unknown key");
    }
    if (!ok) return r.error;
  }
  if (!r.sequence(root, "", c.target, c.d_model)) return r.error;
  if (!root.contains("text") && !root.contains("tokens") && !root.contains("x")) c.target = Config{}.target;

  if (auto it = root.find("w_q"); it != root.end() && !r.get_tensor3(*it, "w_q", c.heads, c.d_model, c.d_k, c.w_q)) return r.error;
  if (auto it = root.find("w_k"); it != root.end() && !r.get_tensor3(*it, "w_k", c.heads, c.d_model, c.d_k, c.w_k)) return r.error;
  if (auto it = root.find("w_v"); it != root.end() && !r.get_tensor3(*it, "w_v", c.heads, c.d_model, c.d_v, c.w_v)) return r.error;
  if (auto it = root.find("w_o"); it != root.end()) {
    int rows = 0, cols = 0;
    if (!r.get_matrix(*it, "w_o", c.w_o, rows, cols, c.d_model)) return r.error;
    if (rows != c.heads * c.d_v) return "w_o: expected " + std::to_string(c.heads * c.d_v) + " rows (heads*d_v), got " + std::to_string(rows);
  }
  if (auto it = root.find("edits"); it != root.end()) {
    if (!it->is_array()) return "edits: expected a list of {matrix, head, row, col, value}";
    if (it->size() > (size_t)Limits::max_edits)
      return "edits: " + std::to_string(it->size()) + " entries, at most " + std::to_string(Limits::max_edits);
    for (size_t i = 0; i < it->size(); ++i) {
      const json& e = (*it)[i];
      const std::string f = "edits[" + std::to_string(i) + "]";
      if (!e.is_object()) return f + ": expected an object {matrix, head, row, col, value}";
      Override o;
      std::string m;
      auto mt = e.find("matrix");
      if (mt == e.end()) return f + ".matrix: missing";
      if (!r.get_string(*mt, f + ".matrix", m)) return r.error;
      bool found = false;
      for (Target t : {Target::x, Target::w_q, Target::w_k, Target::w_v, Target::w_o, Target::q, Target::k, Target::v})
        if (m == to_string(t)) o.target = t, found = true;
      if (!found) return f + ".matrix: expected one of x, w_q, w_k, w_v, w_o, q, k, v; got \"" + m + "\"";
      for (auto k = e.begin(); k != e.end(); ++k) {
        const std::string& key = k.key();
        const std::string kf = f + "." + key;
        bool ok = true;
        if (key == "matrix") continue;
        if (key == "head") ok = r.get_int(*k, kf, 0, c.heads - 1, o.head);
        else if (key == "row") ok = r.get_int(*k, kf, 0, 1 << 20, o.row);
        else if (key == "col") ok = r.get_int(*k, kf, 0, 1 << 20, o.col);
        else if (key == "value") ok = r.get_float(*k, kf, o.value);
        else ok = r.fail(kf, "unknown key (expected matrix, head, row, col, value)");
        if (!ok) return r.error;
      }
      if (!e.contains("row") || !e.contains("col") || !e.contains("value")) return f + ": needs row, col and value";
      c.overrides.push_back(o);
    }
  }
  return validate(c);
}

std::string config_to_json(const Config& c, int indent) {
  ojson j;
  const auto seq = [&](const SequenceInput& s) {
    ojson o;
    if (s.use_tokens) o["tokens"] = s.tokens;
    else if (!s.text.empty() || s.x.empty()) o["text"] = s.text;
    if (!s.x.empty()) o["x"] = matrix_json(s.x.data(), s.x_rows, (int)(s.x.size() / (size_t)s.x_rows), (int)(s.x.size() / (size_t)s.x_rows));
    return o;
  };
  const ojson target = seq(c.target);
  for (auto it = target.begin(); it != target.end(); ++it) j[it.key()] = *it;
  j["d_model"] = c.d_model;
  j["heads"] = c.heads;
  j["d_k"] = c.d_k;
  j["d_v"] = c.d_v;
  j["seed"] = c.seed;
  j["embedding"] = to_string(c.embedding);
  j["positional"] = to_string(c.positional);
  if (c.scale_mode == ScaleMode::custom) j["scale"] = c.scale_value;
  else j["scale"] = c.scale_mode == ScaleMode::inv_sqrt_dk;
  j["temperature"] = c.temperature;
  ojson mask = ojson::array();
  for (const MaskTerm& t : c.mask) {
    const char* name = to_string(t.kind);
    switch (t.kind) {
      case MaskTerm::Kind::none: break;
      case MaskTerm::Kind::window: mask.push_back({{name, t.window}, {"causal", t.window_causal}}); break;
      case MaskTerm::Kind::padding: mask.push_back({{name, t.keys}}); break;
      case MaskTerm::Kind::custom: {
        ojson rows = ojson::array();
        for (int i = 0; i < t.rows; ++i) {
          ojson row = ojson::array();
          for (int k = 0; k < t.cols; ++k) row.push_back((int)t.cells[(size_t)i * t.cols + k]);
          rows.push_back(std::move(row));
        }
        mask.push_back({{name, std::move(rows)}});
        break;
      }
      default: mask.push_back(name); break;  // kinds without parameters: the bare name
    }
  }
  j["mask"] = mask.empty() ? ojson("none") : mask;
  j["cross"] = c.cross;
  if (c.cross) j["source"] = seq(c.source);
  j["max_tokens"] = c.max_tokens;
  j["truncate"] = c.truncate;
  const auto tensor3 = [&](const std::vector<float>& w, int dh) {
    ojson heads = ojson::array();
    for (int h = 0; h < c.heads; ++h) heads.push_back(matrix_json(w.data() + (size_t)h * c.d_model * dh, c.d_model, dh, dh));
    return heads;
  };
  if (!c.w_q.empty()) j["w_q"] = tensor3(c.w_q, c.d_k);
  if (!c.w_k.empty()) j["w_k"] = tensor3(c.w_k, c.d_k);
  if (!c.w_v.empty()) j["w_v"] = tensor3(c.w_v, c.d_v);
  if (!c.w_o.empty()) j["w_o"] = matrix_json(c.w_o.data(), c.heads * c.d_v, c.d_model, c.d_model);
  if (!c.overrides.empty()) {
    ojson edits = ojson::array();
    for (const Override& o : c.overrides)
      edits.push_back({{"matrix", to_string(o.target)}, {"head", o.head}, {"row", o.row}, {"col", o.col}, {"value", o.value}});
    j["edits"] = edits;
  }
  return j.dump(indent);
}

}  // namespace attn
