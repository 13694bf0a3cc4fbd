#include "config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "handmade_heads.h"

#include "mask.h"
#include "positional.h"
#include "table.h"

namespace attn {

float AttentionSpec::effective_scale() const {
  switch (scale_mode) {
    case ScaleMode::inv_sqrt_dk: return 1.0f / std::sqrt((float)d_k);
    case ScaleMode::none: return 1.0f;
    case ScaleMode::custom: return scale_value;
  }
  return 1.0f;
}

std::string check_range(const char* field, long long v, long long lo, long long hi) {
  if (v >= lo && v <= hi) return "";
  return std::string(field) + ": must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
         std::to_string(v);
}

namespace {

std::string check_values(const char* field, const std::vector<float>& v, size_t expected, const char* shape) {
  if (v.empty()) return "";
  if (v.size() != expected)
    return std::string(field) + ": expected " + shape + " = " + std::to_string(expected) + " numbers, got " +
           std::to_string(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]) || std::fabs(v[i]) > Limits::max_abs_value)
      return std::string(field) + ": element " + std::to_string(i) + " is not a finite number within ±1e4";
  return "";
}

}  // namespace

std::string validate(const AttentionSpec& s, const AttentionLimits& limits) {
  std::string e;
  if (!(e = check_range("d_model", s.d_model, 1, limits.max_d_model)).empty()) return e;
  if (!(e = check_range("heads", s.heads, 1, limits.max_heads)).empty()) return e;
  if (!(e = check_range("d_k", s.d_k, 1, limits.max_d_head)).empty()) return e;
  if (!(e = check_range("d_v", s.d_v, 1, limits.max_d_head)).empty()) return e;
  if ((long long)s.heads * s.d_k > Limits::max_head_width)
    return "d_k: heads x d_k must be at most " + std::to_string(Limits::max_head_width);
  if ((long long)s.heads * s.d_v > Limits::max_head_width)
    return "d_v: heads x d_v must be at most " + std::to_string(Limits::max_head_width);
  if (!std::isfinite(s.temperature) || s.temperature < Limits::min_temperature || s.temperature > Limits::max_temperature)
    return "temperature: must be a number between 0.001 and 1000";
  if (s.scale_mode == ScaleMode::custom &&
      (!std::isfinite(s.scale_value) || std::fabs(s.scale_value) > Limits::max_abs_scale))
    return "scale: must be true, false or a finite number within ±1e4";
  return "";
}

std::string validate(const Config& c) {
  std::string e;
  if (!(e = validate(static_cast<const AttentionSpec&>(c), kLabLimits)).empty()) return e;
  if (!(e = check_range("max_tokens", c.max_tokens, 1, Limits::max_tokens)).empty()) return e;
  for (const SequenceInput* s : {&c.target, &c.source}) {
    const char* name = s == &c.target ? "text" : "source";
    if (s->text.size() > (size_t)Limits::max_text_bytes) return std::string(name) + ": text longer than 1 MiB";
    if (!s->x.empty()) {
      if (s->x_rows < 1 || s->x_rows > Limits::max_tokens || s->x.size() != (size_t)s->x_rows * c.d_model)
        return std::string(name == std::string("text") ? "x" : "source.x") + ": expected rows of d_model = " +
               std::to_string(c.d_model) + " numbers (1 to " + std::to_string(Limits::max_tokens) + " rows)";
      if (!(e = check_values(name == std::string("text") ? "x" : "source.x", s->x, s->x.size(), "rows x d_model")).empty())
        return e;
    }
  }
  const size_t hdk = (size_t)c.heads * c.d_model * c.d_k, hdv = (size_t)c.heads * c.d_model * c.d_v;
  if (!(e = check_values("w_q", c.w_q, hdk, "heads x d_model x d_k")).empty()) return e;
  if (!(e = check_values("w_k", c.w_k, hdk, "heads x d_model x d_k")).empty()) return e;
  if (!(e = check_values("w_v", c.w_v, hdv, "heads x d_model x d_v")).empty()) return e;
  if (!(e = check_values("w_o", c.w_o, hdv, "(heads*d_v) x d_model")).empty()) return e;
  if (c.mask.size() > (size_t)Limits::max_mask_terms)
    return "mask: " + std::to_string(c.mask.size()) + " terms, at most " + std::to_string(Limits::max_mask_terms);
  for (size_t i = 0; i < c.mask.size(); ++i)
    if (c.mask[i].kind == MaskTerm::Kind::custom && c.mask[i].cells.size() != (size_t)c.mask[i].rows * c.mask[i].cols)
      return mask_field(i) + ".custom: rows have different lengths";
  for (size_t i = 0; i < c.handmade.size(); ++i) {
    const std::string f = "handmade[" + std::to_string(i) + "]";
    if (c.handmade[i].head < 0 || c.handmade[i].head >= c.heads)
      return f + ".head: must be between 0 and heads - 1 = " + std::to_string(c.heads - 1);
    if (!find_handmade_kind(c.handmade[i].kind)) {
      return f + ".kind: expected one of " + names_of(handmade_kinds(), "\"") + ", got \"" + c.handmade[i].kind + "\"";
    }
  }
  if (c.overrides.size() > (size_t)Limits::max_edits)
    return "edits: " + std::to_string(c.overrides.size()) + " entries, at most " + std::to_string(Limits::max_edits);
  for (size_t i = 0; i < c.overrides.size(); ++i) {
    const Override& o = c.overrides[i];
    if (!std::isfinite(o.value) || std::fabs(o.value) > Limits::max_abs_value)
      return "edits[" + std::to_string(i) + "].value: must be a finite number within ±1e4";
    if (o.row < 0 || o.col < 0 || o.head < 0 || o.head >= c.heads)
      return "edits[" + std::to_string(i) + "]: index out of range";
  }
  return "";
}

MemoryEstimate estimate_memory(const Config& c, int n, int m, bool keep_scores) {
  const int64_t D = c.d_model, H = c.heads, dk = c.d_k, dv = c.d_v, f = sizeof(float);
  // the config itself (held by the caller and by the engine: twice)
  int64_t config = (int64_t)(c.target.x.size() + c.source.x.size() + c.w_q.size() + c.w_k.size() + c.w_v.size() +
                             c.w_o.size()) * f;
  for (const MaskTerm& t : c.mask) config += (int64_t)(t.cells.size() + t.keys.size() * sizeof(int));
  config *= 2;
  const int64_t vectors = (2 * n + 3 * m) * D * f;              // X_raw, X (and the source's), Xs
  const int64_t w = (2 * D * H * dk + 2 * D * H * dv) * f;      // W_Q, W_K, W_V, W_O
  const int64_t qkv = ((n + m) * H * dk + m * H * dv) * f;      // Q, K, V
  const int64_t attention = H * n * m * f * (keep_scores ? 2 : 1) + n * m;  // scores, weights; the mask
  const int64_t outputs = (n * H * dv + n * D + 2 * H * n) * f; // concat, output, entropy, max weight
  const int64_t scratch = std::max({D * H * dk, D * H * dv, H * dv * D, m * dk, m * dv}) * f + 64 * D * f;  // packed B
  MemoryEstimate e;
  e.bytes = config + vectors + w + qkv + attention + outputs + scratch;
  if (attention >= w && attention >= vectors + qkv) {
    e.field = H > 1 ? "heads" : "text", e.part = "scores and weights, heads x n x m";
  } else if (w >= vectors + qkv) {
    e.field = "d_model", e.part = "W matrices, heads x d_model x (d_k, d_v)";
  } else {
    e.field = "d_model", e.part = "token vectors and Q, K, V, n x d_model";
  }
  return e;
}

std::string format_bytes(int64_t bytes) {
  char buf[32];
  if (bytes >= (int64_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  else if (bytes >= (int64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.0f KiB", bytes / 1024.0);
  return buf;
}

std::string check_memory(const Config& c, int n, int m, bool keep_scores) {
  const MemoryEstimate e = estimate_memory(c, n, m, keep_scores);
  if (e.bytes <= Limits::max_memory_bytes) return "";
  return std::string(e.field) + ": this config needs about " + format_bytes(e.bytes) + " of memory (mostly " + e.part +
         "), over the budget of " + format_bytes(Limits::max_memory_bytes);
}

Shape target_shape(const Config& c, Target target, int n, int m) {
  switch (target) {
    case Target::x: return {n, c.d_model};
    case Target::q: return {n, c.d_k};
    case Target::k: return {m, c.d_k};
    case Target::v: return {m, c.d_v};
    case Target::w_q: case Target::w_k: return {c.d_model, c.d_k};
    case Target::w_v: return {c.d_model, c.d_v};
    case Target::w_o: return {c.heads * c.d_v, c.d_model};
  }
  return {};
}

const char* to_string(Positional p) { return positional_kind(p).name; }

const char* to_string(Embedding e) { return e == Embedding::hashed ? "hashed" : "interpretable"; }

const char* to_string(Target t) {
  switch (t) {
    case Target::x: return "x";
    case Target::w_q: return "w_q";
    case Target::w_k: return "w_k";
    case Target::w_v: return "w_v";
    case Target::w_o: return "w_o";
    case Target::q: return "q";
    case Target::k: return "k";
    case Target::v: return "v";
  }
  return "x";
}

const char* to_string(MaskTerm::Kind k) { return mask_kind(k).name; }

}  // namespace attn
