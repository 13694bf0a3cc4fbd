#include "config_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "json_reader.h"
#include "json_util.h"
#include "mask.h"
#include "positional.h"
#include "table.h"

namespace attn {
namespace {

using json = nlohmann::json;

// The config's own parts (a sequence, a mask term), read through the shared accessors.
struct Reader : JsonReader {
  bool sequence(const json& obj, const std::string& prefix, SequenceInput& s, int d_model) {
    s = SequenceInput{};
    if (auto it = obj.find("text"); it != obj.end() && !string(*it, prefix + "text", s.text)) return false;
    if (auto it = obj.find("tokens"); it != obj.end()) {
      if (!strings(*it, prefix + "tokens", s.tokens)) return false;
      s.use_tokens = true;
    }
    if (auto it = obj.find("x"); it != obj.end()) {
      int cols = 0;
      if (!rows_of_numbers(*it, prefix + "x", s.x, s.x_rows, cols, d_model)) return false;
    }
    return true;
  }

  // One mask term: a bare kind name ("causal") or an object {name: payload, flag: bool}, read as the
  // kind's entry in mask.cpp says.
  bool mask_term(const json& v, const std::string& field, MaskTerm& t) {
    t = MaskTerm{};
    std::string bare, objects, flags;
    for (const MaskKind& k : mask_kinds()) {
      if (k.bare()) bare += (bare.empty() ? "\"" : ", \"") + std::string(k.name) + "\"";
      else objects += (objects.empty() ? "" : "|") + std::string(k.name);
      if (k.param.flag) flags += (flags.empty() ? "" : ", ") + std::string(k.param.flag);
    }
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      const MaskKind* k = find_mask_kind(s);
      if (!k || !k->bare()) return fail(field, "expected " + bare + " or an object {" + objects + "}, got \"" + printable(s) + "\"");
      t.kind = k->kind;
      return true;
    }
    if (!v.is_object()) return fail(field, "expected a string or an object");
    std::vector<std::pair<std::string, bool>> flags_given;  // checked once the kind is known
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      const MaskKind* k = find_mask_kind(key);
      if (k && !k->bare()) {
        if (t.kind != MaskTerm::Kind::none)
          return fail(field, std::string("one kind per term, got both ") + to_string(t.kind) + " and " + k->name);
        t.kind = k->kind;
        if (!mask_payload(*it, field + "." + key, k->param, t)) return false;
      } else if (std::any_of(mask_kinds().begin(), mask_kinds().end(),
                             [&](const MaskKind& o) { return o.param.flag && key == o.param.flag; })) {
        if (!it->is_boolean()) return fail(field + "." + key, "expected true or false");
        flags_given.emplace_back(key, it->get<bool>());
      } else {
        return fail(field + "." + printable(key), "unknown key (expected " + objects + " or " + flags + ")");
      }
    }
    if (t.kind == MaskTerm::Kind::none) return fail(field, "expected one of " + objects);
    const MaskParam& p = mask_kind(t.kind).param;
    for (const auto& [flag, on] : flags_given) {
      if (!p.flag || flag != p.flag) {
        std::string takers;  // the kinds that take this flag
        for (const MaskKind& o : mask_kinds())
          if (o.param.flag && flag == o.param.flag) takers += (takers.empty() ? "" : " or ") + std::string(o.name);
        return fail(field + "." + flag, "only a " + takers + " term takes " + flag);
      }
      t.*p.flag_field = on;
    }
    return true;
  }

  // The payload of a term given as {name: payload}; one case per shape of parameter (mask.h).
  bool mask_payload(const json& v, const std::string& f, const MaskParam& p, MaskTerm& t) {
    switch (p.payload) {
      case MaskPayload::none: return true;
      case MaskPayload::integer: return integer(v, f, p.lo, p.hi, t.*p.integer);
      case MaskPayload::index_list:
        if (!v.is_array()) return fail(f, "expected a list of key indices");
        if (v.size() > (size_t)p.max_items)
          return fail(f, std::to_string(v.size()) + " keys listed, at most " + std::to_string(p.max_items));
        for (size_t i = 0; i < v.size(); ++i) {
          int k = 0;
          if (!integer(v[i], f + "[" + std::to_string(i) + "]", p.lo, p.hi, k)) return false;
          t.keys.push_back(k);
        }
        return true;
      case MaskPayload::matrix01: {
        std::vector<float> cells;
        if (v.is_array() && v.size() > (size_t)p.max_items)
          return fail(f, std::to_string(v.size()) + " rows, at most " + std::to_string(p.max_items));
        if (!rows_of_numbers(v, f, cells, t.rows, t.cols)) return false;
        for (float c : cells) {
          if (c != 0.0f && c != 1.0f) return fail(f, "expected only 0 and 1");
          t.cells.push_back(c != 0.0f);
        }
        return true;
      }
    }
    return true;
  }
};

}  // namespace

std::string parse_config(std::string_view text, Config& c) {
  if ((int64_t)text.size() > Limits::max_config_bytes)
    return "config: " + format_bytes((int64_t)text.size()) + " of text, at most " + format_bytes(Limits::max_config_bytes);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return "config: empty (expected a JSON object)";
  json root;
  if (std::string e = parse_json(text, "config", root); !e.empty()) return e;
  if (!root.is_object()) return "config: expected a JSON object";
  Reader r;
  c = Config{};
  // Sizes first: the shapes of explicit arrays depend on them.
  if (auto it = root.find("d_model"); it != root.end() && !r.integer(*it, "d_model", 1, Limits::max_d_model, c.d_model)) return r.error;
  if (auto it = root.find("heads"); it != root.end()) {
    if (!r.integer(*it, "heads", 1, Limits::max_heads, c.heads)) return r.error;
  }
  // d_k and d_v default to d_model / heads when not given (at least 1).
  c.d_k = c.d_v = std::max(1, c.d_model / c.heads);

  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    const json& v = *it;
    bool ok = true;
    if (key == "d_model" || key == "heads" || key == "text" || key == "tokens" || key == "x") continue;
    if (key == "d_k") ok = r.integer(v, key, 1, Limits::max_d_head, c.d_k);
    else if (key == "d_v") ok = r.integer(v, key, 1, Limits::max_d_head, c.d_v);
    else if (key == "seed") {
      if (!v.is_number_unsigned()) ok = r.fail(key, "expected a non-negative integer");
      else c.seed = v.get<uint64_t>();
    } else if (key == "positional") {
      std::string s;
      ok = r.string(v, key, s);
      if (ok) {
        if (const PositionalKind* p = find_positional_kind(s)) {
          c.positional = p->kind;
        } else {
          ok = r.fail(key, "expected one of " + names_of(positional_kinds(), "\"") + "; got \"" + printable(s) + "\"");
        }
      }
    } else if (key == "embedding") {
      std::string s;
      ok = r.string(v, key, s);
      if (ok) {
        if (s == "hashed") c.embedding = Embedding::hashed;
        else if (s == "interpretable") c.embedding = Embedding::interpretable;
        else ok = r.fail(key, "expected \"hashed\" or \"interpretable\", got \"" + s + "\"");
      }
    } else if (key == "scale") {
      if (v.is_boolean()) c.scale_mode = v.get<bool>() ? ScaleMode::inv_sqrt_dk : ScaleMode::none;
      else if (v.is_number()) {
        c.scale_mode = ScaleMode::custom;
        ok = r.number(v, key, c.scale_value);
      } else ok = r.fail(key, "expected true (1/sqrt(d_k)), false (1) or a number");
    } else if (key == "temperature") ok = r.number(v, key, c.temperature);
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
      else if (v.is_array()) { ok = r.strings(v, key, c.source.tokens); c.source.use_tokens = true; }
      else if (v.is_object()) {
        for (auto s = v.begin(); s != v.end() && ok; ++s)
          if (s.key() != "text" && s.key() != "tokens" && s.key() != "x") ok = r.fail("source." + s.key(), "unknown key (expected text, tokens or x)");
        ok = ok && r.sequence(v, "source.", c.source, c.d_model);
      } else ok = r.fail(key, "expected text, a list of tokens, or an object {text|tokens|x}");
    } else if (key == "max_tokens") ok = r.integer(v, key, 1, Limits::max_tokens, c.max_tokens);
    else if (key == "truncate") {
      if (!v.is_boolean()) ok = r.fail(key, "expected true or false");
      else c.truncate = v.get<bool>();
    } else if (key == "w_q" || key == "w_k" || key == "w_v" || key == "w_o" || key == "edits") {
      continue;  // second pass: needs d_k / d_v
    } else if (key == "handmade") {
      c.handmade.clear();
      if (!v.is_array()) ok = r.fail(key, "expected a list of {head, kind}");
      for (size_t i = 0; ok && i < v.size(); ++i) {
        const std::string f = "handmade[" + std::to_string(i) + "]";
        HandmadeHead hh;
        if (!v[i].is_object()) ok = r.fail(f, "expected an object {head, kind}");
        for (auto k = ok ? v[i].begin() : v[i].end(); ok && k != v[i].end(); ++k) {
          if (k.key() == "head") ok = r.integer(*k, f + ".head", 0, Limits::max_heads - 1, hh.head);
          else if (k.key() == "kind") ok = r.string(*k, f + ".kind", hh.kind);
          else ok = r.fail(f + "." + k.key(), "unknown key (expected head, kind)");
        }
        if (ok && !v[i].contains("kind")) ok = r.fail(f + ".kind", "missing");
        if (ok) c.handmade.push_back(std::move(hh));
      }
    } else if (key == "$schema" || key == "comment" || key == "name" || key == "description" || key == "view") {
      continue;  // free-form, ignored (presets carry a name, a description and the lab's view settings)
    } else {
      ok = r.fail(key, "unknown key");
    }
    if (!ok) return r.error;
  }
  if (!r.sequence(root, "", c.target, c.d_model)) return r.error;
  if (!root.contains("text") && !root.contains("tokens") && !root.contains("x")) c.target = Config{}.target;

  if (auto it = root.find("w_q"); it != root.end() && !r.tensor3(*it, "w_q", c.heads, c.d_model, c.d_k, c.w_q)) return r.error;
  if (auto it = root.find("w_k"); it != root.end() && !r.tensor3(*it, "w_k", c.heads, c.d_model, c.d_k, c.w_k)) return r.error;
  if (auto it = root.find("w_v"); it != root.end() && !r.tensor3(*it, "w_v", c.heads, c.d_model, c.d_v, c.w_v)) return r.error;
  if (auto it = root.find("w_o"); it != root.end()) {
    int rows = 0, cols = 0;
    if (!r.rows_of_numbers(*it, "w_o", c.w_o, rows, cols, c.d_model)) return r.error;
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
      if (!r.string(*mt, f + ".matrix", m)) return r.error;
      bool found = false;
      for (Target t : {Target::x, Target::w_q, Target::w_k, Target::w_v, Target::w_o, Target::q, Target::k, Target::v})
        if (m == to_string(t)) o.target = t, found = true;
      if (!found) return f + ".matrix: expected one of x, w_q, w_k, w_v, w_o, q, k, v; got \"" + m + "\"";
      for (auto k = e.begin(); k != e.end(); ++k) {
        const std::string& key = k.key();
        const std::string kf = f + "." + key;
        bool ok = true;
        if (key == "matrix") continue;
        if (key == "head") ok = r.integer(*k, kf, 0, c.heads - 1, o.head);
        else if (key == "row") ok = r.integer(*k, kf, 0, 1 << 20, o.row);
        else if (key == "col") ok = r.integer(*k, kf, 0, 1 << 20, o.col);
        else if (key == "value") ok = r.number(*k, kf, o.value);
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
    if (t.kind == MaskTerm::Kind::none) continue;
    const MaskKind& k = mask_kind(t.kind);
    ojson term;
    switch (k.param.payload) {
      case MaskPayload::none: mask.push_back(k.name); continue;  // no parameters: the bare name
      case MaskPayload::integer: term[k.name] = t.*k.param.integer; break;
      case MaskPayload::index_list: term[k.name] = t.keys; break;
      case MaskPayload::matrix01: {
        ojson rows = ojson::array();
        for (int i = 0; i < t.rows; ++i) {
          ojson row = ojson::array();
          for (int col = 0; col < t.cols; ++col) row.push_back((int)t.cells[(size_t)i * t.cols + col]);
          rows.push_back(std::move(row));
        }
        term[k.name] = std::move(rows);
        break;
      }
    }
    if (k.param.flag) term[k.param.flag] = t.*k.param.flag_field;
    mask.push_back(std::move(term));
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
  if (!c.handmade.empty()) {
    ojson hand = ojson::array();
    for (const HandmadeHead& hh : c.handmade) hand.push_back({{"head", hh.head}, {"kind", hh.kind}});
    j["handmade"] = hand;
  }
  if (!c.overrides.empty()) {
    ojson edits = ojson::array();
    for (const Override& o : c.overrides)
      edits.push_back({{"matrix", to_string(o.target)}, {"head", o.head}, {"row", o.row}, {"col", o.col}, {"value", o.value}});
    j["edits"] = edits;
  }
  return j.dump(indent);
}

}  // namespace attn
