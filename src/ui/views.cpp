// The matrix views (views.h): one entry each, in View's order.
#include "views.h"

#include <cstdint>
#include <iterator>

#include "app.h"
#include "formula.h"
#include "i18n.h"
#include "positional.h"

namespace attnlab {

namespace {

using attn::MatView;
using attn::Result;
using attn::Stage;
using attn::Target;

// S, masked S and A are the lesson: their cells stay at least this wide (CSS px) so every key's label
// is drawn and a column can be read, and they wrap onto lines of their own before going narrower.
constexpr float kLessonCell = 14.0f;

const attn::PositionalKind& positions(const attn::Config& c) { return attn::positional_kind(c.positional); }
bool rope(const attn::Config& c) { return positions(c).rotates_qk; }

// Scores start fixed at ±5 so that √d_k and τ change what one sees (scores 5 apart already give softmax
// weights 150:1); P at ±1 (sines and cosines); weights are always on [0, 1]. Titles are numbered in the
// order the forward pass computes them (the formula strip's order).
constexpr ViewInfo kViews[] = {
    {.view = View::x, .key = "x", .name = "X", .matrix = [](const Result& r, int) { return r.x_view(); }, .stage = Stage::embed,
     .editable = true, .target = Target::x,
     .text = [](const attn::Config& c, bool) {
       const attn::PositionalKind& p = positions(c);  // what X holds, in the encoding's words
       return ViewText{tr_entry("positional", p.name, "x_title", p.x_title), tr_entry("positional", p.name, "x_help", p.x_help)};
     },
     .place = 0, .max_cell = 30.0f, .stretch = 1.6f, .stretch_cross = 1.3f},
    {.view = View::q, .key = "q", .name = "Q", .matrix = [](const Result& r, int h) { return r.q_head(h); }, .stage = Stage::project,
     .per_head = true, .editable = true, .target = Target::q,
     .text = [](const attn::Config& c, bool) {
       return rope(c) ? ViewText{"2  Q = rot(X\xC2\xB7W_Q)", tr("matrix.q.rope.help")} : ViewText{"2  Q = X\xC2\xB7W_Q", tr("matrix.q.help")};
     },
     .place = 2},
    {.view = View::k, .key = "k", .name = "K", .matrix = [](const Result& r, int h) { return r.k_head(h); }, .stage = Stage::project,
     .per_head = true, .editable = true, .target = Target::k, .rows = Labels::keys,
     .text = [](const attn::Config& c, bool cross) {
       const std::string src = cross ? "X_src" : "X";
       return rope(c) ? ViewText{"K = rot(" + src + "\xC2\xB7W_K)", tr("matrix.k.rope.help")}
                      : ViewText{"K = " + src + "\xC2\xB7W_K", cross ? tr("matrix.k.cross.help") : tr("matrix.k.help")};
     },
     .place = 3},
    {.view = View::v, .key = "v", .name = "V", .matrix = [](const Result& r, int h) { return r.v_head(h); }, .stage = Stage::project,
     .per_head = true, .editable = true, .target = Target::v, .rows = Labels::keys,
     .text = [](const attn::Config&, bool cross) { return ViewText{std::string("V = ") + (cross ? "X_src" : "X") + "\xC2\xB7W_V", tr("matrix.v.help")}; },
     .place = 4},
    {.view = View::scores, .key = "scores", .name = "Scores", .matrix = [](const Result& r, int h) { return r.scores_head(h); },
     .stage = Stage::score, .per_head = true, .cols = Labels::keys, .fixed_range = 5.0f,
     .text = [](const attn::Config& c, bool) {
       std::string title = "3  S = Q\xC2\xB7K\xE1\xB5\x80";  // and the scaling and temperature, as the formula strip writes them
       for (const FormulaPart& p : formula_parts(c))
         if (p.view == View::scores) title += p.text;
       return ViewText{title, tr("matrix.scores.help")};
     },
     .row = ViewRow::attention, .place = 0, .min_cell = kLessonCell},
    {.view = View::masked, .key = "masked", .name = "Masked scores", .matrix = [](const Result& r, int h) { return r.scores_head(h); },
     .stage = Stage::score, .per_head = true, .cols = Labels::keys, .fixed_range = 5.0f,
     .text = [](const attn::Config&, bool) { return ViewText{tr("matrix.masked.title"), tr("matrix.masked.help")}; },
     .mask = ViewMask::minus_infinity, .row = ViewRow::attention, .place = 1, .min_cell = kLessonCell},
    {.view = View::weights, .key = "weights", .name = "Weights", .matrix = [](const Result& r, int h) { return r.weights_head(h); },
     .stage = Stage::softmax, .per_head = true, .cols = Labels::keys,
     .text = [](const attn::Config&, bool) { return ViewText{"5  A = softmax(S)", tr("matrix.weights.help")}; },
     .cmap = Colormap::sequential, .mask = ViewMask::greyed, .row = ViewRow::attention, .place = 2, .max_cell = 48.0f,
     .min_cell = kLessonCell, .stretch = 1.3f, .own_labels = true},
    {.view = View::head_out, .key = "head_out", .name = "Head output", .matrix = [](const Result& r, int h) { return r.out_head(h); },
     .stage = Stage::mix, .per_head = true,
     .text = [](const attn::Config&, bool) { return ViewText{"6  O = A\xC2\xB7V", tr("matrix.head_out.help")}; },
     .row = ViewRow::outputs, .place = 0},
    {.view = View::concat, .key = "concat", .name = "Concat", .matrix = [](const Result& r, int) { return r.concat_view(); }, .stage = Stage::mix,
     .text = [](const attn::Config&, bool) { return ViewText{"7  concat(O\xE2\x82\x81\xE2\x80\xA6O\xE2\x82\x95)", tr("matrix.concat.help")}; },
     .row = ViewRow::outputs, .place = 1, .max_cell = 30.0f, .stretch = 1.5f},
    {.view = View::output, .key = "output", .name = "Output", .matrix = [](const Result& r, int) { return r.output_view(); }, .stage = Stage::output,
     .text = [](const attn::Config&, bool) { return ViewText{"8  out = concat\xC2\xB7W_O", tr("matrix.output.help")}; },
     .row = ViewRow::outputs, .place = 2, .max_cell = 30.0f, .stretch = 1.5f},
    {.view = View::w_q, .key = "w_q", .name = "W_Q", .matrix = [](const Result& r, int h) { return r.w_q_head(h); }, .stage = Stage::w_matrices,
     .per_head = true, .editable = true, .target = Target::w_q, .rows = Labels::none,
     .text = [](const attn::Config&, bool) { return ViewText{"W_Q", tr("matrix.w_q.help")}; }, .row = ViewRow::weights, .place = 0},
    {.view = View::w_k, .key = "w_k", .name = "W_K", .matrix = [](const Result& r, int h) { return r.w_k_head(h); }, .stage = Stage::w_matrices,
     .per_head = true, .editable = true, .target = Target::w_k, .rows = Labels::none,
     .text = [](const attn::Config&, bool) { return ViewText{"W_K", tr("matrix.w_k.help")}; }, .row = ViewRow::weights, .place = 1},
    {.view = View::w_v, .key = "w_v", .name = "W_V", .matrix = [](const Result& r, int h) { return r.w_v_head(h); }, .stage = Stage::w_matrices,
     .per_head = true, .editable = true, .target = Target::w_v, .rows = Labels::none,
     .text = [](const attn::Config&, bool) { return ViewText{"W_V", tr("matrix.w_v.help")}; }, .row = ViewRow::weights, .place = 2},
    {.view = View::w_o, .key = "w_o", .name = "W_O", .matrix = [](const Result& r, int) { return r.w_o_view(); }, .stage = Stage::w_matrices,
     .editable = true, .target = Target::w_o, .rows = Labels::none,
     .text = [](const attn::Config&, bool) { return ViewText{"W_O", tr("matrix.w_o.help")}; }, .row = ViewRow::weights, .place = 3,
     .max_cell = 24.0f, .stretch = 2.0f},
    {.view = View::x_source, .key = "x_source", .name = "X_src", .matrix = [](const Result& r, int) { return r.x_source_view(); },
     .stage = Stage::embed, .rows = Labels::keys,
     .text = [](const attn::Config&, bool) { return ViewText{tr("matrix.x_source.title"), tr("matrix.x_source.help")}; },
     .place = 1, .shown = [](const App& a) { return a.engine.result().cross; }, .max_cell = 30.0f, .stretch = 1.3f},
    {.view = View::position, .key = "position", .name = "P", .matrix = [](const Result& r, int) { return r.positions_view(); },
     .stage = Stage::position, .fixed_range = 1.0f,
     .text = [](const attn::Config& c, bool) {
       const attn::PositionalKind& p = positions(c);  // what it adds, if anything, in the encoding's words
       return ViewText{p.p_title ? tr_entry("positional", p.name, "p_title", p.p_title) : "P",
                       p.p_help ? tr_entry("positional", p.name, "p_help", p.p_help) : tr("matrix.position.none.help")};
     },
     .place = 1,  // beside X, on request (the X block's "show P"), where the encoding adds one
     .shown = [](const App& a) { return !a.engine.result().cross && a.ui.show_position && positions(a.engine.config()).add; },
     .max_cell = 30.0f, .stretch = 1.3f},
};
static_assert(in_enum_order(kViews, &ViewInfo::view), "one entry per View, in its order");

constexpr ViewInfo kNone{.view = View::count, .key = "?", .name = "?", .matrix = [](const Result&, int) { return MatView{}; },
                         .stage = Stage::embed, .rows = Labels::none,
                         .text = [](const attn::Config&, bool) { return ViewText{"?", ""}; }};

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
