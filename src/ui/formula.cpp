// The formula strip as data: one part per symbol, each pointing at the matrix it produces.
#include "formula.h"

#include "positional.h"

#include <cmath>
#include <cstdio>

namespace attnlab {

namespace {

bool has_mask(const attn::Config& c) {
  for (const attn::MaskTerm& t : c.mask)
    if (t.kind != attn::MaskTerm::Kind::none) return true;
  return false;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

std::string scale_words(const attn::Config& c) {
  switch (c.scale_mode) {
    case attn::ScaleMode::inv_sqrt_dk:
      return "1/\xE2\x88\x9A" "d_k = 1/\xE2\x88\x9A" + std::to_string(c.d_k) + " = " + number(1.0 / std::sqrt((double)c.d_k));
    case attn::ScaleMode::none: return "none (\xC3\x97" "1)";
    case attn::ScaleMode::custom: return "custom \xC3\x97" + number(c.scale_value);
  }
  return "?";
}

std::vector<FormulaPart> formula_parts(const attn::Config& c) {
  std::vector<FormulaPart> p;
  const auto text = [&](std::string t) { p.push_back({std::move(t), View::count, ""}); };
  const auto part = [&](std::string t, View v, std::string tip) { p.push_back({std::move(t), v, std::move(tip)}); };
  const bool multi = c.heads > 1;
  const bool rope = attn::positional_kind(c.positional).rotates_qk;
  const bool tau = c.temperature != 1.0f;

  text("out = ");
  if (multi) {
    part("concat", View::concat, "Put the " + std::to_string(c.heads) + " heads' outputs side by side (each head runs what is inside the brackets with its own W_Q, W_K, W_V)");
    text("(");
  }
  part("softmax", View::weights, "Turn each row of scores into weights that are positive and sum to 1");
  text("(");
  if (has_mask(c)) {
    part("mask", View::masked, "Hidden pairs get a score of \xE2\x88\x92\xE2\x88\x9E, so their weight is exactly 0");
    text("(");
  }
  part(rope ? "rot(Q)" : "Q", View::q,
       rope ? "Queries X\xC2\xB7W_Q, each row rotated by RoPE according to its position"
            : "Queries: X\xC2\xB7W_Q, one row per token");
  text("\xC2\xB7");
  part(rope ? "rot(K)\xE1\xB5\x80" : "K\xE1\xB5\x80", View::k,
       std::string(rope ? "Keys (transposed), rotated by RoPE: " : "Keys (transposed): ") +
           (c.cross ? "X_src\xC2\xB7W_K, from the source sequence" : "X\xC2\xB7W_K"));
  if (c.scale_mode == attn::ScaleMode::inv_sqrt_dk)
    part(" / \xE2\x88\x9A" "d_k", View::scores,
         "Divide by \xE2\x88\x9A" "d_k = \xE2\x88\x9A" + std::to_string(c.d_k) +
             ": dot products grow with d_k, and this keeps their spread (and the softmax) from saturating");
  else if (c.scale_mode == attn::ScaleMode::custom)
    part(" \xC2\xB7 " + number(c.scale_value), View::scores, "A custom factor on every score instead of 1/\xE2\x88\x9A" "d_k");
  if (tau)
    part(" / \xCF\x84", View::scores, "Temperature \xCF\x84 = " + number(c.temperature) + ": above 1 flattens the weights, below 1 sharpens them");
  if (has_mask(c)) text(")");
  text(")");
  part(" \xC2\xB7 V", View::head_out, std::string("Mix the value rows with the weights") + (c.cross ? " (V = X_src\xC2\xB7W_V, from the source)" : ""));
  if (multi) text(")");
  part(" \xC2\xB7 W_O", View::output, "Project back to d_model numbers per token");
  if (c.cross) text("   (Q from X; K, V from X_src)");
  if (tau) text("   \xCF\x84 = " + number(c.temperature));
  if (c.scale_mode == attn::ScaleMode::none) text("   no scaling");
  return p;
}

std::string formula_text(const attn::Config& c) {
  std::string out;
  for (const FormulaPart& part : formula_parts(c)) out += part.text;
  return out;
}

}  // namespace attnlab
