// The formula strip as data: one part per symbol, each pointing at the matrix it produces.
#include "formula.h"

#include "i18n.h"

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
    case attn::ScaleMode::none: return tr("formula.scale.none");
    case attn::ScaleMode::custom: return trf("formula.scale.custom", {{"factor", number(c.scale_value)}});
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
    part("concat", View::concat, trf("formula.concat", {{"heads", c.heads}}));
    text("(");
  }
  part("softmax", View::weights, tr("formula.softmax"));
  text("(");
  if (has_mask(c)) {
    part("mask", View::masked, tr("formula.mask"));
    text("(");
  }
  part(rope ? "rot(Q)" : "Q", View::q,
       rope ? tr("formula.q.rope") : tr("formula.q"));
  text("\xC2\xB7");
  part(rope ? "rot(K)\xE1\xB5\x80" : "K\xE1\xB5\x80", View::k,
       tr(rope ? (c.cross ? Key("formula.k.rope.cross") : Key("formula.k.rope")) : (c.cross ? Key("formula.k.cross") : Key("formula.k"))));
  if (c.scale_mode == attn::ScaleMode::inv_sqrt_dk)
    part(" / \xE2\x88\x9A" "d_k", View::scores,
         trf("formula.sqrt_dk", {{"d_k", c.d_k}}));
  else if (c.scale_mode == attn::ScaleMode::custom)
    part(" \xC2\xB7 " + number(c.scale_value), View::scores, tr("formula.custom"));
  if (tau)
    part(" / \xCF\x84", View::scores, trf("formula.temperature", {{"tau", number(c.temperature)}}));
  if (has_mask(c)) text(")");
  text(")");
  part(" \xC2\xB7 V", View::head_out, tr(c.cross ? Key("formula.v.cross") : Key("formula.v")));
  if (multi) text(")");
  part(" \xC2\xB7 W_O", View::output, tr("formula.w_o"));
  if (c.cross) text(std::string("   ") + tr("formula.cross"));
  if (tau) text("   \xCF\x84 = " + number(c.temperature));
  if (c.scale_mode == attn::ScaleMode::none) text(std::string("   ") + tr("formula.no_scaling"));
  return p;
}

std::string formula_text(const attn::Config& c) {
  std::string out;
  for (const FormulaPart& part : formula_parts(c)) out += part.text;
  return out;
}

}  // namespace attnlab
