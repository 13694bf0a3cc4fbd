// What a learner sees, asserted: the formula for every mode, colours that make √d_k and τ visible,
// rows lined up, presets and the tour that set the lab up, hand-built heads that show their pattern,
// view state that survives a link, exports that parse back, and the smaller promises (Escape).
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config_json.h"
#include "embedding.h"
#include "export.h"
#include "formula.h"
#include "handmade_heads.h"
#include "lab.h"
#include "learn.h"
#include "panels.h"
#include "presets.h"
#include "tokenizer.h"
#include "view_state.h"

namespace {

using namespace labtest;
using attnlab::View;
using attnlab::formula_text;

// A texture backend that keeps every upload's pixels and refuses sizes above its maximum.
class PixelTextures : public attnlab::TextureBackend {
 public:
  int max = 2048;
  intptr_t next = 1;
  std::map<intptr_t, std::vector<uint32_t>> pixels;
  std::map<intptr_t, std::pair<int, int>> sizes;
  int uploads = 0;
  ImTextureID upload(ImTextureID existing, int w, int h, const uint32_t* rgba) override {
    EXPECT_LE(w, max);
    EXPECT_LE(h, max);
    intptr_t id = existing ? (intptr_t)existing : next++;
    pixels[id].assign(rgba, rgba + (size_t)w * h);
    sizes[id] = {w, h};
    ++uploads;
    return (ImTextureID)id;
  }
  void release(ImTextureID id) override { pixels.erase((intptr_t)id), sizes.erase((intptr_t)id); }
  int max_size() const override { return max; }
};

attn::Config base() {
  attn::Config c = attnlab::default_lab_config();
  return c;
}

// [SECTION] the formula strip
TEST(Formula, IsRightInEveryMode) {
  attn::Config c = base();
  EXPECT_EQ(formula_text(c), "out = concat(softmax(Q\xC2\xB7K\xE1\xB5\x80 / \xE2\x88\x9A" "d_k) \xC2\xB7 V) \xC2\xB7 W_O");
  c.scale_mode = attn::ScaleMode::none;
  EXPECT_EQ(formula_text(c), "out = concat(softmax(Q\xC2\xB7K\xE1\xB5\x80) \xC2\xB7 V) \xC2\xB7 W_O   no scaling");
  c.scale_mode = attn::ScaleMode::custom;
  c.scale_value = 0.25f;
  EXPECT_EQ(formula_text(c), "out = concat(softmax(Q\xC2\xB7K\xE1\xB5\x80 \xC2\xB7 0.25) \xC2\xB7 V) \xC2\xB7 W_O");
  c = base();
  c.temperature = 0.5f;
  c.mask.push_back({attn::MaskTerm::Kind::causal});
  EXPECT_EQ(formula_text(c), "out = concat(softmax(mask(Q\xC2\xB7K\xE1\xB5\x80 / \xE2\x88\x9A" "d_k / \xCF\x84)) \xC2\xB7 V) \xC2\xB7 W_O   \xCF\x84 = 0.5");
  c = base();
  c.cross = true;
  c.source.text = "a b";
  EXPECT_EQ(formula_text(c), "out = concat(softmax(Q\xC2\xB7K\xE1\xB5\x80 / \xE2\x88\x9A" "d_k) \xC2\xB7 V) \xC2\xB7 W_O   (Q from X; K, V from X_src)");
  c = base();
  c.positional = attn::Positional::rope;
  c.heads = 1;
  EXPECT_EQ(formula_text(c), "out = softmax(rot(Q)\xC2\xB7rot(K)\xE1\xB5\x80 / \xE2\x88\x9A" "d_k) \xC2\xB7 V \xC2\xB7 W_O");
}

TEST(Formula, BracketsBalanceAndScalingNeverReadsAsAWord) {
  for (int heads : {1, 4})
    for (auto mode : {attn::ScaleMode::inv_sqrt_dk, attn::ScaleMode::none, attn::ScaleMode::custom})
      for (float tau : {1.0f, 0.2f})
        for (bool mask : {false, true})
          for (bool cross : {false, true}) {
            attn::Config c = base();
            c.heads = heads, c.scale_mode = mode, c.temperature = tau, c.cross = cross, c.source.text = "x y";
            if (mask) c.mask.push_back({attn::MaskTerm::Kind::causal});
            const std::string f = formula_text(c);
            int depth = 0;
            for (char ch : f) {
              depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
              EXPECT_GE(depth, 0) << f;
            }
            EXPECT_EQ(depth, 0) << f;
            EXPECT_EQ(f.find("scale"), std::string::npos) << f;
            EXPECT_EQ(f.find("sqrt"), std::string::npos) << f;
            EXPECT_EQ(f.find("\xCF\x84") != std::string::npos, tau != 1.0f) << f;
            EXPECT_EQ(f.find("mask(") != std::string::npos, mask) << f;
            // ·V sits inside concat: the last ")" before "· W_O" closes concat, after "· V".
            if (heads > 1) {
              EXPECT_LT(f.find("\xC2\xB7 V"), f.rfind(')')) << f;
            }
          }
}

// [SECTION] colours: the table against the published colour stops, textures that follow the engine
// The colour table (colormap.cpp) against straight interpolation of matplotlib's viridis and RdBu at
// their published control points (independent values, here): never more than one 8-bit level apart.
TEST(Colormap, TheTableDrawsWhatInterpolatingThePublishedStopsGives) {
  const float viridis[11][3] = {{0.267f, 0.005f, 0.329f}, {0.283f, 0.141f, 0.458f}, {0.254f, 0.265f, 0.530f}, {0.207f, 0.372f, 0.553f},
                                {0.164f, 0.471f, 0.558f}, {0.128f, 0.567f, 0.551f}, {0.135f, 0.659f, 0.518f}, {0.267f, 0.749f, 0.441f},
                                {0.478f, 0.821f, 0.318f}, {0.741f, 0.873f, 0.150f}, {0.993f, 0.906f, 0.144f}};
  const float rdbu[11][3] = {{0.020f, 0.188f, 0.380f}, {0.129f, 0.400f, 0.675f}, {0.263f, 0.576f, 0.765f}, {0.573f, 0.773f, 0.871f},
                             {0.820f, 0.898f, 0.941f}, {0.969f, 0.969f, 0.969f}, {0.992f, 0.859f, 0.780f}, {0.957f, 0.647f, 0.510f},
                             {0.839f, 0.376f, 0.302f}, {0.698f, 0.094f, 0.169f}, {0.404f, 0.000f, 0.122f}};
  int worst = 0;
  for (int k = 0; k <= 4000; ++k) {
    const double u = k / 4000.0;  // position along the map
    const double x = u * 10.0;
    const int i = std::min((int)x, 9);
    for (int map = 0; map < 2; ++map) {
      const float(*stops)[3] = map ? rdbu : viridis;
      const uint32_t c = map ? attnlab::colormap(attnlab::Colormap::diverging, (float)(2.0 * u - 1.0))
                             : attnlab::colormap(attnlab::Colormap::sequential, (float)u);
      for (int ch = 0; ch < 3; ++ch) {
        const double want = 255.0 * (stops[i][ch] + (x - i) * (stops[i + 1][ch] - stops[i][ch]));
        worst = std::max(worst, (int)std::lround(std::fabs(want - (double)((c >> (8 * ch)) & 0xFF))));
      }
    }
  }
  EXPECT_LE(worst, 1) << "levels apart at worst";
  EXPECT_EQ(attnlab::colormap(attnlab::Colormap::sequential, -3.0f), attnlab::colormap(attnlab::Colormap::sequential, 0.0f)) << "clamped";
  EXPECT_EQ(attnlab::colormap(attnlab::Colormap::diverging, 7.0f), attnlab::colormap(attnlab::Colormap::diverging, 1.0f));
  EXPECT_EQ(attnlab::colormap(attnlab::Colormap::diverging, std::nanf("")), attnlab::kMaskedColor);
}

// A view's texture is refilled when the engine stage that computes it ran, and only then: a new
// temperature recolours the weights (to exactly the colours of the new numbers) but not W_Q or X.
TEST_F(Lab, HeatmapTexturesFollowTheStagesThatRan) {
  PixelTextures tex;
  attnlab::HeatmapCache cache;
  const auto texture = [&](View v, int head, ImGuiID key) {
    const attn::MatView m = attnlab::view_matrix(result(), v, head);
    const attnlab::Colormap cmap = v == View::weights ? attnlab::Colormap::sequential : attnlab::Colormap::diverging;
    const attnlab::HeatmapColors hc = attnlab::heatmap_colors(cache, &tex, key, m, cmap, nullptr, 2.0f,
                                                             attnlab::view_version(app.engine, v, m, (int)cmap, false));
    // The colours the numbers have now, cell by cell.
    std::vector<uint32_t> want;
    for (int i = 0; i < m.rows; ++i)
      for (int j = 0; j < m.cols; ++j) want.push_back(attnlab::ColorScale(cmap, 2.0f)(m(i, j)));
    EXPECT_EQ(tex.pixels[(intptr_t)hc.texture], want) << attnlab::view_key(v) << " head " << head;
  };
  const auto all = [&] {
    texture(View::weights, 0, 1), texture(View::weights, 1, 2), texture(View::w_q, 0, 3), texture(View::x, 0, 4);
  };
  all();
  EXPECT_EQ(tex.uploads, 4);
  all();
  EXPECT_EQ(tex.uploads, 4) << "nothing ran: nothing refilled";
  attn::Config c = app.engine.config();
  c.temperature = 0.37f;
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  all();
  EXPECT_EQ(tex.uploads, 6) << "softmax ran: both heads' weights, and only they";
  texture(View::weights, 1, 1);  // another head's slice under the same key: refilled, to its colours
  EXPECT_EQ(tex.uploads, 7);
  c.seed += 1;  // new W and X
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  all();
  EXPECT_EQ(tex.uploads, 11);
}

// A masked matrix's texture, texel by texel: the masked colour where the mask hides the cell (every
// row's keys outside its allowed range too), the number's colour elsewhere; shrunk to every k-th row and
// column when the heatmap is drawn smaller than the matrix. Masks: causal, a sliding window, padding
// (gaps inside a row's range) and a custom pattern with a fully masked row.
TEST_F(Lab, MaskedCellsTakeTheMaskedColourAtEverySampling) {
  const int n = 23, m = 19;
  std::vector<float> numbers((size_t)n * m);
  for (size_t i = 0; i < numbers.size(); ++i) numbers[i] = std::sin(0.37f * (float)i);
  const attn::MatView view{numbers.data(), n, m, m};
  attn::MaskTerm causal, window, padding, custom;
  causal.kind = attn::MaskTerm::Kind::causal;
  window.kind = attn::MaskTerm::Kind::window, window.window = 4, window.window_causal = false;
  padding.kind = attn::MaskTerm::Kind::padding, padding.keys = {0, 5, 6, 18};
  custom.kind = attn::MaskTerm::Kind::custom, custom.rows = n, custom.cols = m;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) custom.cells.push_back(i != 4 && (i * 7 + j * 3) % 5 != 0);
  for (const std::vector<attn::MaskTerm>& terms : {std::vector{causal}, std::vector{window}, std::vector{padding, window}, std::vector{custom}}) {
    const attn::MaskMatrix mask = attn::build_mask(terms, n, m);
    for (const auto& [shown, every] : {std::pair{0.0f, 1}, {9.0f, 2}, {6.0f, 3}}) {  // drawn as large as the matrix, 9 or 6 pixels
      PixelTextures tex;
      attnlab::HeatmapCache cache;
      const attnlab::HeatmapColors hc = attnlab::heatmap_colors(cache, &tex, 1, view, attnlab::Colormap::diverging, &mask, 1.0f, 1, true,
                                                               ImVec2(shown, shown));
      const int k = hc.downsample, tw = (m + k - 1) / k, th = (n + k - 1) / k;
      ASSERT_EQ(k, every);
      ASSERT_EQ(tex.sizes[(intptr_t)hc.texture], std::make_pair(tw, th));
      std::vector<uint32_t> want;
      for (int ti = 0; ti < th; ++ti)
        for (int tj = 0; tj < tw; ++tj)
          want.push_back(mask.allows(ti * k, tj * k) ? attnlab::ColorScale(attnlab::Colormap::diverging, 1.0f)(view(ti * k, tj * k))
                                                     : attnlab::kMaskedColor);
      EXPECT_EQ(tex.pixels[(intptr_t)hc.texture], want) << terms.size() << " terms, first " << (int)terms[0].kind << ", every " << k << "th cell";
    }
  }
}

// [SECTION] colours: the √d_k and temperature lessons must change the picture
TEST_F(Lab, FixedScoreColoursShowTemperatureWhileFittedOnesHideIt) {
  PixelTextures tex;
  attnlab::HeatmapCache cache;
  // The colours the scores view gets at temperature τ, on a fixed range (> 0) or fitted (0).
  const auto picture = [&](float tau, float range) {
    attn::Config c = app.engine.config();
    c.temperature = tau;
    EXPECT_EQ(attnlab::apply_config(app, c), "");
    const attnlab::HeatmapColors hc = attnlab::heatmap_colors(cache, &tex, 1, result().scores_head(0), attnlab::Colormap::diverging,
                                                             nullptr, range, app.result_version);
    return tex.pixels[(intptr_t)hc.texture];
  };
  const float start = app.ui.fixed_range[(int)View::scores];
  EXPECT_EQ(start, 5.0f) << "scores start on a fixed range";
  const std::vector<uint32_t> fixed_hot = picture(0.2f, start), fixed_cold = picture(5.0f, start);
  const std::vector<uint32_t> fit_hot = picture(0.2f, 0.0f), fit_cold = picture(5.0f, 0.0f);
  ASSERT_EQ(fixed_hot.size(), (size_t)result().n * result().m);
  EXPECT_NE(fixed_hot, fixed_cold) << "on a fixed range, τ must change the colours";
  EXPECT_EQ(fit_hot, fit_cold) << "fitted colours rescale (what the issue complained of): the same picture";
  // At τ = 5 the scores are small: on the fixed scale nearly every cell is pale (all channels high);
  // at τ = 0.2 many are saturated.
  const auto pale = [](const std::vector<uint32_t>& px) {
    int n = 0;
    for (uint32_t p : px) n += (p & 0xFF) > 0xC0 && ((p >> 8) & 0xFF) > 0xC0 && ((p >> 16) & 0xFF) > 0xC0;
    return n;
  };
  EXPECT_GT(pale(fixed_cold), (int)fixed_cold.size() * 9 / 10);
  EXPECT_LT(pale(fixed_hot), (int)fixed_hot.size() / 3);
}

TEST_F(Lab, TexturesUploadOnlyWhatChangedAndNeverAboveTheGpuLimit) {
  PixelTextures tex;
  tex.max = 64;
  app.textures = &tex;
  attn::Config c = app.engine.config();
  c.d_model = 256, c.d_k = c.d_v = 64;  // X is 10×256: wider than the 64-texel limit
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(4);
  const int settled = tex.uploads;
  frames(5);
  EXPECT_EQ(tex.uploads, settled) << "nothing changed: nothing uploaded";
  // A mask changes the masked scores and what follows (weights, outputs): X, Q, K, V and S are unchanged.
  // At most the views on screen whose stage ran again (or that draw the mask) and one thumbnail per head
  // upload: masked S, A, O, concat, out.
  std::array<uint64_t, (size_t)attn::Stage::count> runs{};
  for (int s = 0; s < (int)attn::Stage::count; ++s) runs[(size_t)s] = app.engine.stage_runs((attn::Stage)s);
  c = app.engine.config();
  c.mask.push_back({attn::MaskTerm::Kind::causal});
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(3);
  const auto ran = [&](attn::Stage s) { return app.engine.stage_runs(s) != runs[(size_t)s]; };
  int changed = 0, drawn = 0;
  for (const attnlab::ViewInfo& v : attnlab::views()) {
    if (!app.view_rects[(int)v.view].drawn) continue;
    ++drawn;
    changed += ran(v.stage) || (v.mask != attnlab::ViewMask::none && ran(attn::Stage::mask));
  }
  EXPECT_LT(changed, drawn - 4) << "X, Q, K, V and S are as they were";
  const int after_mask = tex.uploads - settled;
  EXPECT_GE(after_mask, 3);
  EXPECT_LE(after_mask, changed + result().heads) << "textures of unchanged data were uploaded again";
  app.textures = nullptr;
}

// A block scrolled out of sight keeps its last texture: a change that reaches it refills it only once it
// is in sight again (at 100 tokens, refilling every hidden block each frame was a quarter of a frame).
TEST_F(Lab, AMatrixOutOfSightIsRecolouredWhenItComesIntoSight) {
  PixelTextures tex;
  app.textures = &tex;
  std::string text = "the";
  for (int i = 0; i < 40; ++i) text += " cat";
  attnlab::set_text_box(app, false, text);
  frames(4);
  ASSERT_EQ(result().n, 41);
  frames(3);
  attn::Config c = app.engine.config();
  c.temperature = 0.5f;  // softmax onwards: A, O, concat and out change; out lies below the fold
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(3);
  const int after_change = tex.uploads;
  frames(3);
  EXPECT_EQ(tex.uploads, after_change) << "nothing changed since: nothing uploaded";
  app.ui.focus_view = attnlab::View::output;  // scrolled into view, as the pipeline strip does
  frames(3);
  EXPECT_GT(tex.uploads, after_change) << "the output came into sight with the old temperature's colours";
  const int in_sight = tex.uploads;
  frames(3);
  EXPECT_EQ(tex.uploads, in_sight);
  app.textures = nullptr;
}

// A block taller than the window draws cell by cell (here, with no GPU, every cell a rectangle; with one,
// the masked cells' hatching and the numbers) only the rows in sight: 103 causal tokens are 3 × 10,609
// cells of S, masked S and A, 127 k vertices drawn whole.
TEST_F(Lab, ABlockTallerThanTheWindowDrawsOnlyTheCellsInSight) {
  std::string text = "the";
  for (int i = 0; i < 102; ++i) text += " cat";
  attn::Config c = app.engine.config();
  c.mask = {{attn::MaskTerm::Kind::causal}};
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  attnlab::set_text_box(app, false, text);
  frames(4);
  ASSERT_EQ(result().n, 103);
  const ImGuiWindow* w = attnlab::find_window("Matrices");
  ASSERT_NE(w, nullptr);
  EXPECT_LT(w->DrawList->VtxBuffer.Size, 40000) << "cells out of sight were drawn";
  EXPECT_GT(w->DrawList->VtxBuffer.Size, 4000) << "the cells in sight were not";
}

// [SECTION] labels and alignment
// The token labels' widths are measured once per set of labels and kept by the app (App::label_widths):
// frames with the same tokens measure nothing again; new text is measured once.
TEST_F(Lab, LabelWidthsAreMeasuredOncePerSetOfLabels) {
  frames(4);
  const size_t known = app.label_widths.widest.size();
  EXPECT_GT(known, 0u) << "the matrices keep what they measured";
  frames(3);
  EXPECT_EQ(app.label_widths.widest.size(), known) << "the same tokens: nothing measured again";
  attnlab::set_text_box(app, false, "a quite different sentence");
  frames(3);
  const size_t more = app.label_widths.widest.size();
  EXPECT_GT(more, known);
  frames(3);
  EXPECT_EQ(app.label_widths.widest.size(), more);
}

TEST_F(Lab, ScoresMaskedScoresAndWeightsShareRowsAndEveryAxisHasTokens) {
  attn::Config c = app.engine.config();
  c.mask.push_back({attn::MaskTerm::Kind::causal});
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(4);
  const auto& s = app.view_rects[(int)View::scores];
  const auto& m = app.view_rects[(int)View::masked];
  const auto& a = app.view_rects[(int)View::weights];
  ASSERT_TRUE(s.drawn && m.drawn && a.drawn);
  EXPECT_FLOAT_EQ(s.y, m.y);
  EXPECT_FLOAT_EQ(s.y, a.y);
  EXPECT_FLOAT_EQ(s.cell_h, m.cell_h);
  EXPECT_FLOAT_EQ(s.cell_h, a.cell_h);
  // Token labels exist for every row (built once the font is there).
  ASSERT_EQ(app.labels.size(), (size_t)result().n);
  EXPECT_EQ(app.labels[1], "cat");
}

// The Matrices panel's rows come from the views' table (views.h: row, place, shown): on a 4K screen
// the views drawn are those the table shows (the weight matrices' row on request), each row one line,
// its views left to right in their places; P joins X's row on request where the encoding adds one,
// X_src in cross-attention.
TEST_F(Lab, EachViewStandsInItsRowAndPlaceWhenShown) {
  open(3840, 2160);
  const auto drawn = [&] {
    std::set<View> out;
    for (const attnlab::ViewInfo& v : attnlab::views())
      if (app.view_rects[(int)v.view].drawn) out.insert(v.view);
    return out;
  };
  const auto shown = [&] {
    std::set<View> out;
    for (const attnlab::ViewInfo& v : attnlab::views())
      if ((v.row != attnlab::ViewRow::weights || app.ui.show_weights) && (!v.shown || v.shown(app))) out.insert(v.view);
    return out;
  };
  const auto in_place = [&] {
    for (const attnlab::ViewInfo& a : attnlab::views())
      for (const attnlab::ViewInfo& b : attnlab::views()) {
        const attnlab::ViewRect &ra = app.view_rects[(int)a.view], &rb = app.view_rects[(int)b.view];
        if (!ra.drawn || !rb.drawn) continue;
        EXPECT_EQ(a.row == b.row, std::abs(ra.y - rb.y) < 1.0f) << a.key << " and " << b.key << ": one line per row";
        if (a.row == b.row && a.place < b.place) {
          EXPECT_LT(ra.x, rb.x) << a.key << " left of " << b.key;
        }
        if (a.row < b.row) {
          EXPECT_LT(ra.y, rb.y) << a.key << "'s row above " << b.key << "'s";
        }
      }
  };
  frames(4);
  using V = View;
  EXPECT_EQ(drawn(), shown());
  for (View v : {V::position, V::x_source, V::w_q, V::w_o}) EXPECT_FALSE(drawn().count(v)) << attnlab::view_key(v) << " waits to be asked for";
  in_place();
  app.ui.show_position = app.ui.show_weights = true;
  frames(4);
  EXPECT_EQ(drawn(), shown());
  for (View v : {V::position, V::w_q, V::w_o}) EXPECT_TRUE(drawn().count(v)) << attnlab::view_key(v);
  in_place();
  attn::Config c = app.engine.config();
  c.cross = true;
  c.source.text = "le chat dort";
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(4);
  EXPECT_EQ(drawn(), shown());
  EXPECT_TRUE(drawn().count(V::x_source));
  EXPECT_FALSE(drawn().count(V::position)) << "in cross-attention X_src stands beside X";
  in_place();
}

TEST_F(Lab, CrossAttentionShowsTheSourceAndRopeLabelsRotation) {
  attn::Config c = app.engine.config();
  c.cross = true;
  c.source.text = "le chat dort";
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(4);
  EXPECT_TRUE(app.view_rects[(int)View::x_source].drawn);
  EXPECT_EQ(app.view_rects[(int)View::x_source].rows, 3);
  EXPECT_EQ(app.view_rects[(int)View::k].rows, 3);
  EXPECT_NE(attnlab::formula_text(app.engine.config()).find("X_src"), std::string::npos);
}

// [SECTION] presets and the tour
TEST_F(Lab, EveryPresetAppliesAndExplainsItselfOnScreen) {
  ASSERT_GE(attnlab::presets().size(), 9u);
  for (const attnlab::Preset& p : attnlab::presets()) {
    EXPECT_EQ(attnlab::apply_preset(app, p), "") << p.file;
    frames(2);
    EXPECT_EQ(app.ui.note_title, p.name) << p.file;
    EXPECT_FALSE(app.ui.note.empty()) << p.file;
    EXPECT_TRUE(app.error.empty()) << p.file << ": " << app.error;
    // Every experiment about scores keeps their colours on a fixed range.
    EXPECT_GT(app.ui.fixed_range[(int)View::scores], 0.0f) << p.file;
  }
}

TEST_F(Lab, PresetsAreFoundByKeyFileOrTitleAndAnUnknownOneChangesNothing) {
  const attnlab::Preset* p = attnlab::find_preset("no_scaling");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->file, "03_no_scaling.json");
  EXPECT_EQ(attnlab::find_preset("03_no_scaling.json"), p);
  EXPECT_EQ(attnlab::find_preset("03_no_scaling"), p);
  EXPECT_EQ(attnlab::find_preset(p->name), p);
  EXPECT_EQ(attnlab::find_preset("scaling"), nullptr);
  EXPECT_EQ(attnlab::find_preset(""), nullptr);
  for (const attnlab::Preset& q : attnlab::presets()) EXPECT_EQ(attnlab::find_preset(attnlab::preset_key(q)), &q);

  const std::string before = attn::config_to_json(app.engine.config());
  const std::string err = attnlab::apply_preset(app, std::string_view("nope"));
  EXPECT_EQ(err.rfind("preset: unknown preset \"nope\" (one of: pronoun, causal, no_scaling,", 0), 0u) << err;
  EXPECT_EQ(attn::config_to_json(app.engine.config()), before);

  ASSERT_EQ(attnlab::apply_preset(app, std::string_view("no_scaling")), "");
  frames(2);
  EXPECT_EQ(app.engine.config().effective_scale(), 1.0f);  // no 1/√d_k
  EXPECT_EQ(app.ui.fixed_range[(int)View::scores], 5.0f);
  EXPECT_TRUE(app.ui.row_stats);
  EXPECT_EQ(app.ui.note_title, p->name);
  // A setup with a name and a description (a preset file given to --config) explains itself too.
  ASSERT_EQ(attnlab::apply_setup(app, R"({"text": "a b c", "name": "Mine", "description": "Why.", "view": {"head": 0}})"), "");
  EXPECT_EQ(app.ui.note_title, "Mine");
  EXPECT_EQ(app.ui.note, "Why.");
  const auto list = nlohmann::json::parse(attnlab::presets_json());
  ASSERT_EQ(list.size(), attnlab::presets().size());
  EXPECT_EQ(list[2]["key"], "no_scaling");
  EXPECT_EQ(list[2]["view"]["ranges"]["scores"], 5);
  EXPECT_TRUE(list[1]["view"].is_object());  // {} when a preset has none
}

TEST_F(Lab, WhoIsItShowsThePatternItPromises) {
  const attnlab::Preset* p = attnlab::find_preset("pronoun");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(attnlab::apply_preset(app, *p), "");
  frames(2);
  const attn::Result& r = result();
  const int it = 6, cat = 1, dogs = 4;
  ASSERT_EQ(r.tokens[(size_t)it], "it");
  EXPECT_GT(r.weights_head(0)(it, cat), 0.9f);
  EXPECT_LT(r.weights_head(0)(it, dogs), 0.05f);
  EXPECT_EQ(app.ui.query, it) << "the preset points at the row of 'it'";
}

TEST_F(Lab, TheTourDrivesTheLabAndKeepsItsHighlight) {
  app.ui.show_tour = true;
  for (int k = 0; k < attnlab::tour_step_count(); ++k) {
    app.notice.clear();
    attnlab::tour_open_step(app, k);
    frames(3);
    EXPECT_TRUE(app.error.empty()) << "step " << k << ": " << app.error;
    // Every step's set-up (config and view JSON) parses and applies: a broken one is announced.
    EXPECT_EQ(app.notice.find("could not be set up"), std::string::npos) << "step " << k << ": " << app.notice;
    EXPECT_NE(attnlab::find_window("Tour"), nullptr);
    const ImRect tour = window("Tour");
    EXPECT_TRUE(tour.Min.x >= 0 && tour.Min.y >= 0 && tour.Max.x <= ImGui::GetIO().DisplaySize.x && tour.Max.y <= ImGui::GetIO().DisplaySize.y)
        << "step " << k << ": the tour window leaves the screen";
    if (app.ui.learn_mode) {  // the Learn chapter frames one of Learn mode's widgets (next test)
      EXPECT_FALSE(app.ui.focus_item.empty()) << "step " << k;
      EXPECT_EQ(attnlab::find_window("Tour")->Hidden, false) << "step " << k;
      const ImGuiWindow* front = nullptr;  // the window shown in front at the Tour's centre
      const ImRect t = window("Tour");
      for (ImGuiWindow* w : GImGui->Windows)
        if (w->WasActive && !w->Hidden && w->Rect().Contains(t.GetCenter()) && !(w->Flags & ImGuiWindowFlags_ChildWindow)) front = w;
      ASSERT_NE(front, nullptr);
      EXPECT_EQ(front, attnlab::find_window("Tour")) << "step " << k << ": the tour is behind " << front->Name;
      continue;
    }
    EXPECT_LT(app.ui.focus_until, 0.0) << "step " << k << ": the highlight must last";
    EXPECT_NE(app.ui.flash_view, View::count);
    EXPECT_TRUE(app.ui.focus_item.empty()) << "step " << k;
  }
  // Step 4 switches scaling off; setting it back on is what the learner is asked to do.
  attnlab::tour_open_step(app, 3);
  frames(2);
  EXPECT_EQ(app.engine.config().scale_mode, attn::ScaleMode::none);
  EXPECT_EQ(app.engine.config().d_k, 64);
  // The tour window sits over the right-hand column, not over the matrices' bottom row.
  const ImRect tour = window("Tour"), matrices = window("Matrices");
  EXPECT_GE(tour.Min.x + 1.0f, matrices.Max.x - tour.GetWidth() * 0.5f);
}

// A teacher's own sentence survives the tour: T opens it (its step sets its own sentence up), T closes it
// and the teacher's setup is back, said on screen. Opened from Learn mode, the tour opens at its Learn
// chapter instead of leaving Learn mode for step 1. Its last step ("Your turn") keeps the lab as it is.
TEST_F(Lab, ClosingTheTourPutsTheTeachersSetupBack) {
  replace_text("my lesson sentence about a dog");
  frames(2);
  ASSERT_EQ(app.engine.config().target.text, "my lesson sentence about a dog");
  app.ui.head = 2;
  key(ImGuiKey_Escape);  // out of the text box: T is a shortcut again
  ImGui::GetIO().MousePos = ImVec2(2, 2);
  type("t");
  EXPECT_TRUE(app.ui.show_tour);
  EXPECT_NE(app.engine.config().target.text, "my lesson sentence about a dog") << "step 1 sets its own sentence up";
  type("t");
  EXPECT_FALSE(app.ui.show_tour);
  EXPECT_EQ(app.engine.config().target.text, "my lesson sentence about a dog");
  EXPECT_EQ(app.ui.head, 2) << "the view comes back too";
  EXPECT_EQ(app.notice, attnlab::tr("notice.tour_restored"));
  // From Learn mode: the Learn chapter, and Learn mode stays.
  type("l");
  ASSERT_TRUE(app.ui.learn_mode);
  type("t");
  EXPECT_TRUE(app.ui.show_tour);
  EXPECT_TRUE(app.ui.learn_mode) << "T in Learn mode does not go back to the lab";
  EXPECT_GE(app.ui.tour_step, 13) << "the Learn chapter";
  type("t");
  // At the last step the lab stays as the tour left it.
  type("l");
  ASSERT_FALSE(app.ui.learn_mode);
  type("t");
  attnlab::tour_open_step(app, attnlab::tour_step_count() - 1);
  frames(2);
  const std::string left = app.engine.config().target.text;
  type("t");
  EXPECT_EQ(app.engine.config().target.text, left);
}

// Every symbol the lab's own texts use is drawn from the font, not as a missing-glyph box (the tour's
// ✓ once came out as "�": its range was not given to the font). The list: every non-ASCII character in
// src/ui and assets/experiments.json.
TEST_F(Lab, EverySymbolTheUiWritesIsInTheFont) {
  use_shell_font(1.0f);
  const char32_t symbols[] = {U'±', U'µ', U'·', U'×', U'Δ', U'Σ', U'τ', U'ᵀ', U'–', U'—', U'…', U'₁', U'ₕ', U'ₖ', U'←', U'→',
                              U'↗', U'∂', U'∑', U'−', U'√', U'∞', U'≈', U'▸', U'▾', U'✓', U'✗', U'\uFFFD'};
  ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  for (char32_t c : symbols) EXPECT_NE(font->FindGlyphNoFallback((ImWchar)c), nullptr) << "U+" << std::hex << (unsigned)c;
}

// At every size a teacher uses, the tour's buttons are whole and on screen, in the lab and in Learn mode.
TEST_F(Lab, TheTourCanBeFollowedAtEverySize) {
  for (auto [w, h, scale] : {std::tuple{390.0f, 844.0f, 1.0f}, {1024.0f, 768.0f, 1.0f}, {1280.0f, 720.0f, 2.0f}, {1920.0f, 1080.0f, 1.0f}}) {
    open(w, h);
    use_shell_font(scale);
    app.ui.show_tour = true;
    for (int k : {0, 3, 13, attnlab::tour_step_count() - 1}) {
      attnlab::tour_open_step(app, k);
      app.widget_visible.clear();
      frames(4);
      const std::string at = std::to_string((int)w) + "x" + std::to_string((int)h) + " scale " + std::to_string((int)scale) +
                             " step " + std::to_string(k + 1);
      const auto full = app.widget_rects.find("tour_next"), seen = app.widget_visible.find("tour_next");
      ASSERT_NE(full, app.widget_rects.end()) << at;
      ASSERT_NE(seen, app.widget_visible.end()) << at << ": Next is not visible";
      EXPECT_NEAR(seen->second.z, full->second.z, 0.5f) << at << ": Next is cut off";
      EXPECT_NEAR(seen->second.w, full->second.w, 0.5f) << at << ": Next is cut off";
      EXPECT_LE(full->second.x + full->second.z, w) << at;
      EXPECT_LE(full->second.y + full->second.w, h) << at;
      // Never over what the step asks the learner to look at: its matrix (the part on screen) and its
      // framed widget, when the tour has somewhere else to go (a corner or an edge).
      const ImRect tour = window("Tour");
      const auto covered = [&](ImVec4 r) {
        const float x = std::min(tour.Max.x, r.x + r.z) - std::max(tour.Min.x, r.x), y = std::min(tour.Max.y, r.y + r.w) - std::max(tour.Min.y, r.y);
        return x > 1.0f && y > 1.0f ? x * y : 0.0f;
      };
      const View v = app.ui.flash_view;
      if (!app.ui.learn_mode && v != View::count && app.view_rects[(int)v].drawn) {
        const ImRect m = window("Matrices");
        ImVec4 b = app.block_rects[(int)v];
        const float x0 = std::max(b.x, m.Min.x), y0 = std::max(b.y, m.Min.y);
        b = ImVec4(x0, y0, std::min(b.x + b.z, m.Max.x) - x0, std::min(b.y + b.w, m.Max.y) - y0);
        if (b.z > 0 && b.w > 0 && b.w < h - 2.0f * tour.GetHeight()) {  // room above or below it
          EXPECT_LT(covered(b), 0.05f * b.z * b.w) << at << ": the tour covers " << attnlab::view_key(v);
        }
      }
      if (!app.ui.focus_item.empty() && app.ui.learn_mode) {
        EXPECT_EQ(covered(app.widget_rects[app.ui.focus_item]), 0.0f) << at << ": the tour covers " << app.ui.focus_item;
      }
    }
  }
}

TEST_F(Lab, TheTourLearnChapterTrainsOpensTheModelAndCompares) {
  int first = -1;
  for (int k = 0; k < attnlab::tour_step_count() && first < 0; ++k)
    if (std::string(attnlab::tour_step_title(k)).find("Learning the weights") != std::string::npos) first = k;
  ASSERT_GE(first, 0);
  app.ui.show_tour = true;
  // Learning the weights: Learn mode, previous_token, framed Train button; done once it has learned.
  attnlab::tour_open_step(app, first);
  frames(2);
  ASSERT_TRUE(app.ui.learn_mode);
  attnlab::LearnState& L = attnlab::learn_state(app);
  EXPECT_EQ(L.setup.task, "previous_token");
  EXPECT_EQ(app.ui.focus_item, "learn_train");
  EXPECT_FALSE(attnlab::tour_step_done(app));
  L.budget_ms = 1000.0f, L.frame_target_ms = 1000.0f;  // train fast: this is not about frame time
  ASSERT_EQ(attnlab::learn_train(app), "");
  for (int f = 0; f < 400 && !L.run().done; ++f) frames(1);
  ASSERT_TRUE(L.run().done);
  EXPECT_TRUE(attnlab::tour_step_done(app)) << "accuracy " << L.run().history.back().accuracy;
  // Inside a trained model: the framed button opens it in the lab, the tour follows.
  attnlab::tour_open_step(app, first + 1);
  frames(2);
  EXPECT_TRUE(app.ui.learn_mode);
  EXPECT_NE(app.widget_rects.find("learn_open"), app.widget_rects.end());
  EXPECT_FALSE(attnlab::tour_step_done(app));
  ASSERT_EQ(attnlab::learn_open_in_lab(app, 0), "");
  frames(2);
  EXPECT_FALSE(app.ui.learn_mode);
  EXPECT_FALSE(attnlab::tour_step_done(app)) << "not until a trained weight is hovered";
  ImGui::GetIO().MousePos = cell(View::weights, 3, 2);
  frames(2);
  EXPECT_TRUE(attnlab::tour_step_done(app));
  ImGui::GetIO().MousePos = ImVec2(2, 2);
  frames(2);
  EXPECT_TRUE(attnlab::tour_step_done(app)) << "a tick, once earned, stays";
  type("L");  // back to Learn: the tour comes with it, in front
  EXPECT_TRUE(app.ui.learn_mode);
  EXPECT_TRUE(app.ui.show_tour);
  {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    const auto order = [&](const char* name) {
      for (int k = 0; k < g.Windows.Size; ++k)
        if (g.Windows[k] == attnlab::find_window(name)) return k;
      return -1;
    };
    for (const char* w : {"Training", "Curves", "Attention on a probe"})
      EXPECT_GT(order("Tour"), order(w)) << "the tour is in front of " << w;
  }
  type("L");
  EXPECT_FALSE(app.ui.learn_mode);
  EXPECT_FALSE(attnlab::find_window("Tour")->Hidden) << "the tour stays open in the lab";
  // Two layers: the experiment's 2-layer variant is loaded and started afresh (its curves do not open on
  // step 15's run); done when the 1-layer run has ended over it.
  attnlab::tour_open_step(app, first + 2);
  frames(2);
  EXPECT_TRUE(app.ui.learn_mode);
  EXPECT_EQ(L.setup.spec.layers, 2);
  EXPECT_EQ(L.run().step, 0) << "a fresh run, not the previous step's";
  EXPECT_EQ(L.run().run_setup.task, "induction");
  EXPECT_NE(app.widget_rects.find(app.ui.focus_item), app.widget_rects.end()) << app.ui.focus_item;
  ASSERT_EQ(attnlab::learn_train(app), "");
  for (int f = 0; f < 400 && L.run().history.size() < 2; ++f) frames(1);
  EXPECT_FALSE(attnlab::tour_step_done(app));
  ASSERT_EQ(attnlab::learn_load_experiment(app, L.experiment, 1), "");
  L.setup.train.steps = 4, L.setup.train.eval_every = 2;
  ASSERT_EQ(attnlab::learn_train(app), "");
  EXPECT_EQ(L.run().run_setup.spec.layers, 1);
  EXPECT_FALSE(attnlab::tour_step_done(app)) << "not while the second run goes on";
  for (int f = 0; f < 400 && !L.run().done; ++f) frames(1);
  EXPECT_TRUE(attnlab::tour_step_done(app)) << "the 1-layer run ended over the 2-layer one";
  // Why sqrt(d_k): the unscaled variant first. Step 16's 1-layer run is no comparison for it: the step is
  // done only when its own second variant runs over its first. Then the last step goes back to the lab.
  attnlab::tour_open_step(app, first + 3);
  frames(2);
  EXPECT_EQ(L.setup.spec.scale_mode, attn::ScaleMode::none);
  EXPECT_EQ(L.setup.spec.d_k, 128);
  EXPECT_FALSE(attnlab::tour_step_done(app)) << "not ticked by another experiment's runs";
  L.setup.train.steps = 4, L.setup.train.eval_every = 2;
  ASSERT_EQ(attnlab::learn_train(app), "");
  for (int f = 0; f < 400 && L.run().running; ++f) frames(1);
  EXPECT_TRUE(L.run().compare.loss.empty()) << "the 1-layer induction run is not this experiment's comparison";
  EXPECT_FALSE(attnlab::tour_step_done(app)) << "one run is not a comparison";
  ASSERT_EQ(attnlab::learn_load_experiment(app, L.experiment, 0), "");
  L.setup.train.steps = 4, L.setup.train.eval_every = 2;
  ASSERT_EQ(attnlab::learn_train(app), "");
  EXPECT_FALSE(attnlab::tour_step_done(app)) << "not ticked as soon as the second run starts";
  for (int f = 0; f < 400 && !L.run().done; ++f) frames(1);
  EXPECT_TRUE(attnlab::tour_step_done(app)) << "the scaled run over the unscaled one";
  // Why attention replaced RNNs: the RNN variant of the delayed copy first; done once attention's run
  // is drawn over it (or the other way round), not by one run alone.
  attnlab::tour_open_step(app, first + 5);
  frames(2);
  EXPECT_TRUE(app.ui.learn_mode);
  EXPECT_STREQ(attnlab::tour_step_title(first + 5), "19. Why did attention replace RNNs?");
  EXPECT_EQ(L.setup.task, "delayed_copy");
  EXPECT_EQ(L.setup.spec.model, attn::learn::Arch::rnn);
  EXPECT_FALSE(attnlab::tour_step_done(app));
  L.setup.train.steps = 4, L.setup.train.eval_every = 2;
  ASSERT_EQ(attnlab::learn_train(app), "");
  for (int f = 0; f < 400 && L.run().running; ++f) frames(1);
  EXPECT_FALSE(attnlab::tour_step_done(app)) << "one run is not a comparison";
  ASSERT_EQ(attnlab::learn_load_experiment(app, L.experiment, 0), "");
  EXPECT_EQ(L.setup.spec.model, attn::learn::Arch::attention);
  L.setup.train.steps = 4, L.setup.train.eval_every = 2;
  ASSERT_EQ(attnlab::learn_train(app), "");
  for (int f = 0; f < 400 && !L.run().done; ++f) frames(1);
  EXPECT_TRUE(attnlab::tour_step_done(app)) << "attention's run over the RNN's";
  attnlab::tour_open_step(app, attnlab::tour_step_count() - 1);  // Your turn
  frames(2);
  EXPECT_FALSE(app.ui.learn_mode);
  EXPECT_TRUE(app.ui.focus_item.empty());
}

// [SECTION] hand-built heads (their engine tests: tests/engine/test_handmade.cpp)
TEST_F(Lab, ThePositionalHeadsPresetShowsASubDiagonalAndAWindow) {
  ASSERT_EQ(attnlab::apply_preset(app, std::string_view("positional_heads")), "");
  frames(2);
  const attn::Result& r = result();
  for (int i = 1; i < r.n; ++i) EXPECT_GT(r.weights_head(0)(i, i - 1), 0.95f) << i;
  for (int i = 1; i + 1 < r.n; ++i) EXPECT_GT(r.weights_head(1)(i, i - 1) + r.weights_head(1)(i, i) + r.weights_head(1)(i, i + 1), 0.8f) << i;
}

// [SECTION] view state, shared links, exports
TEST_F(Lab, ViewStateRoundTripsAndBadViewsChangeNothing) {
  app.ui.head = 2, app.ui.show_numbers = false, app.ui.zoom_view = View::weights, app.ui.show_position = true;
  app.ui.fixed_range[(int)View::q] = 3.0f;
  const std::string json = attnlab::view_state_to_json(app.ui);
  attnlab::UiState fresh;
  ASSERT_EQ(attnlab::apply_view_state(fresh, json), "");
  EXPECT_EQ(fresh.head, 2);
  EXPECT_FALSE(fresh.show_numbers);
  EXPECT_EQ(fresh.zoom_view, View::weights);
  EXPECT_TRUE(fresh.show_position);
  EXPECT_EQ(fresh.fixed_range[(int)View::q], 3.0f);
  const attnlab::UiState before = fresh;
  EXPECT_EQ(attnlab::apply_view_state(fresh, R"({"head": 1, "zoom": "nonsense"})").rfind("view.zoom", 0), 0u);
  EXPECT_EQ(attnlab::apply_view_state(fresh, R"({"ranges": {"scores": -1}})").rfind("view.ranges.scores", 0), 0u);
  EXPECT_EQ(attnlab::apply_view_state(fresh, R"({"colour": 1})").rfind("view.colour", 0), 0u);
  EXPECT_NE(attnlab::apply_view_state(fresh, "not json"), "");
  EXPECT_EQ(fresh.head, before.head) << "a refused view changes nothing";
  frames(3);  // the zoom window opens and draws
  EXPECT_NE(attnlab::find_window("Weights, large###zoom"), nullptr);
}

TEST_F(Lab, CsvOfAMatrixParsesBackToTheMatrix) {
  attn::Config c = app.engine.config();
  c.mask.push_back({attn::MaskTerm::Kind::causal});
  ASSERT_EQ(attnlab::apply_config(app, c), "");
  frames(2);
  for (View v : {View::weights, View::masked, View::q, View::x}) {
    const std::string csv = attnlab::view_csv(app, v);
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // header: column labels
    const attn::MatView m = attnlab::view_matrix(result(), v, app.ui.head);
    int i = 0;
    while (std::getline(in, line)) {
      // first field: the row's token, quoted
      ASSERT_EQ(line[0], '"');
      size_t at = line.find("\",", 1) + 2;
      for (int j = 0; j < m.cols; ++j) {
        const size_t end = line.find(',', at);
        const std::string cell = line.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (v == View::masked && !result().mask.allows(i, j)) EXPECT_EQ(cell, "-inf");
        else EXPECT_EQ(std::strtof(cell.c_str(), nullptr), m(i, j)) << attnlab::view_key(v) << " " << i << "," << j;
        at = end + 1;
      }
      ++i;
    }
    EXPECT_EQ(i, m.rows) << attnlab::view_key(v);
  }
  EXPECT_EQ(attnlab::export_file_name(app, View::weights, "csv"), "attention-lab_weights_head0.csv");
}

// [SECTION] smaller promises
TEST_F(Lab, EscapeLeavesTheTextBoxKeepingWhatWasTyped) {
  click(text_box());
  key(ImGuiKey_End, true);
  type(" today");
  key(ImGuiKey_Escape);
  frames(2);
  EXPECT_EQ(app.text, "the cat sat on the mat because it was tired today");
  EXPECT_EQ(result().n, 11);
}

}  // namespace

namespace {
TEST_F(Lab, AViewWithAUiScaleAsksForNewFonts) {
  app.fonts_dirty = false;
  ASSERT_EQ(attnlab::apply_view(app, R"({"ui_scale": 2})"), "");
  EXPECT_TRUE(app.fonts_dirty);
  EXPECT_EQ(app.ui.ui_scale, 2.0f);
}
}  // namespace
