// The matrix views (ui_state.h): one entry each, in View's order.
#include <cstdint>
#include <iterator>

#include "ui_state.h"

#include "i18n.h"

namespace attnlab {

namespace {

using attn::MatView;
using attn::Result;
using attn::Target;

// Scores start fixed at ±5 so that √d_k and τ change what one sees (scores 5 apart already give softmax
// weights 150:1); P at ±1 (sines and cosines); weights are always on [0, 1].
constexpr ViewInfo kViews[] = {
    {View::x, "x", "X", [](const Result& r, int) { return r.x_view(); }, false, true, Target::x, Labels::queries, Labels::none, 0, attn::Stage::embed},
    {View::q, "q", "Q", [](const Result& r, int h) { return r.q_head(h); }, true, true, Target::q, Labels::queries, Labels::none, 0, attn::Stage::project},
    {View::k, "k", "K", [](const Result& r, int h) { return r.k_head(h); }, true, true, Target::k, Labels::keys, Labels::none, 0, attn::Stage::project},
    {View::v, "v", "V", [](const Result& r, int h) { return r.v_head(h); }, true, true, Target::v, Labels::keys, Labels::none, 0, attn::Stage::project},
    {View::scores, "scores", "Scores", [](const Result& r, int h) { return r.scores_head(h); }, true, false, Target::x,
     Labels::queries, Labels::keys, 5.0f, attn::Stage::score},
    {View::masked, "masked", "Masked scores", [](const Result& r, int h) { return r.scores_head(h); }, true, false, Target::x,
     Labels::queries, Labels::keys, 5.0f, attn::Stage::score},
    {View::weights, "weights", "Weights", [](const Result& r, int h) { return r.weights_head(h); }, true, false, Target::x,
     Labels::queries, Labels::keys, 0, attn::Stage::softmax},
    {View::head_out, "head_out", "Head output", [](const Result& r, int h) { return r.out_head(h); }, true, false, Target::x,
     Labels::queries, Labels::none, 0, attn::Stage::mix},
    {View::concat, "concat", "Concat", [](const Result& r, int) { return r.concat_view(); }, false, false, Target::x,
     Labels::queries, Labels::none, 0, attn::Stage::mix},
    {View::output, "output", "Output", [](const Result& r, int) { return r.output_view(); }, false, false, Target::x,
     Labels::queries, Labels::none, 0, attn::Stage::output},
    {View::w_q, "w_q", "W_Q", [](const Result& r, int h) { return r.w_q_head(h); }, true, true, Target::w_q, Labels::none, Labels::none, 0, attn::Stage::w_matrices},
    {View::w_k, "w_k", "W_K", [](const Result& r, int h) { return r.w_k_head(h); }, true, true, Target::w_k, Labels::none, Labels::none, 0, attn::Stage::w_matrices},
    {View::w_v, "w_v", "W_V", [](const Result& r, int h) { return r.w_v_head(h); }, true, true, Target::w_v, Labels::none, Labels::none, 0, attn::Stage::w_matrices},
    {View::w_o, "w_o", "W_O", [](const Result& r, int) { return r.w_o_view(); }, false, true, Target::w_o, Labels::none, Labels::none, 0, attn::Stage::w_matrices},
    {View::x_source, "x_source", "X_src", [](const Result& r, int) { return r.x_source_view(); }, false, false, Target::x,
     Labels::keys, Labels::none, 0, attn::Stage::embed},
    {View::position, "position", "P", [](const Result& r, int) { return r.positions_view(); }, false, false, Target::x,
     Labels::queries, Labels::none, 1.0f, attn::Stage::position},
};
static_assert(std::size(kViews) == (size_t)View::count, "one entry per View, in its order");

constexpr bool in_order() {
  for (size_t i = 0; i < std::size(kViews); ++i)
    if ((size_t)kViews[i].view != i) return false;
  return true;
}
static_assert(in_order(), "kViews lists the views in View's order");

constexpr ViewInfo kNone{View::count, "?", "?", [](const Result&, int) { return MatView{}; }, false, false, Target::x,
                         Labels::none, Labels::none, 0, attn::Stage::embed};

}  // namespace

std::span<const ViewInfo> views() { return kViews; }

const ViewInfo& view_info(View v) { return (int)v >= 0 && v < View::count ? kViews[(int)v] : kNone; }

const char* view_label(View v) { return tr_entry("view", view_info(v).key, "label", view_info(v).name); }
const char* view_label_id(View v) { return tr_id_entry("view", view_info(v).key, view_info(v).name); }

uint64_t view_version(const attn::Engine& e, View v, const attn::MatView& m, int colormap, bool masked) {
  uint64_t h = 0xCBF29CE484222325ull;
  const auto mix = [&](uint64_t x) { h = (h ^ x) * 0x100000001B3ull, h ^= h >> 29; };
  mix(e.stage_runs(view_info(v).stage));
  mix(masked ? e.stage_runs(attn::Stage::mask) + 1 : 0);
  mix((uint64_t)(uintptr_t)m.data), mix((uint64_t)m.rows << 40 ^ (uint64_t)m.cols << 20 ^ (uint64_t)m.ld), mix((uint64_t)colormap);
  return h;
}

std::array<float, (size_t)View::count> default_ranges() {
  std::array<float, (size_t)View::count> out{};
  for (const ViewInfo& v : kViews) out[(size_t)v.view] = v.fixed_range;
  return out;
}

}  // namespace attnlab
