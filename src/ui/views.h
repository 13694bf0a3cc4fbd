// views.h — every matrix the lab can draw: one registration each (views.cpp's table), read by the
// Matrices panel (its block: title, help, colours, sizes, and where it stands), the presenter, the
// exports, the screen-reader text, the Inspector, the view state, the page API and the tests.
//
// Adding a view: its View value here, its entry in views.cpp (the numbers it shows come from the
// engine's Result), a test, and its key in docs/web-api.md (layout().views); its name and help in the
// catalogues (assets/lang: view.<key>.label where the name is words, and its help's key).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "colormap.h"
#include "config.h"  // attn::Target
#include "engine.h"  // attn::Result, attn::MatView, attn::Stage

namespace attnlab {

struct App;

enum class View {
  x,         // X after positional encoding       (n, d_model)
  q, k, v,   // the selected head's projections   (n, d_k) (m, d_k) (m, d_v)
  scores,    // S = Q·Kᵀ·scale/τ, before the mask (n, m)
  masked,    // S with masked cells at −∞        (n, m)
  weights,   // softmax rows                      (n, m)
  head_out,  // O_h = A_h·V_h                     (n, d_v)
  concat,    // [O_1 … O_H]                       (n, H·d_v)
  output,    // concat·W_O                        (n, d_model)
  w_q, w_k, w_v, w_o,
  x_source,  // the source sequence's X in cross-attention (m, d_model): K and V come from it
  position,  // P, the position vectors added to the embeddings (n, d_model): sinusoidal or learned
  count
};

enum class Labels { none, queries, keys };  // what labels a view's rows or columns: indices, or tokens
enum class ViewMask {
  none,            // the mask is not drawn
  greyed,          // the cells the mask hides are drawn as masked
  minus_infinity,  // and say −∞ (the masked scores)
};
// The Matrices panel's rows, top to bottom: what attention reads, the attention itself, what comes
// out, and the weight matrices (shown on request).
enum class ViewRow { inputs, attention, outputs, weights };

// A view's words for a config, in the current language: its block's title and its help.
struct ViewText {
  std::string title;
  const char* help;
};

struct ViewInfo {
  View view;
  const char* key;   // for scripts: "masked"
  const char* name;  // for people, in English: "Masked scores" (also the ImGui ID, file names, the page API)
  // The numbers it shows (masked scores are the scores; the mask is drawn on top).
  attn::MatView (*matrix)(const attn::Result& r, int head);
  attn::Stage stage;           // the engine stage that computes it (its numbers change only when that stage runs)
  bool per_head = false;       // one matrix per head (the head selector chooses)
  bool editable = false;       // numbers can be changed by hand (the Inspector)
  attn::Target target = attn::Target::x;  // the engine's name for an editable view
  Labels rows = Labels::queries, cols = Labels::none;
  float fixed_range = 0.0f;    // the colour range it starts with: > 0 fixed at ±range (comparable across settings), 0 fitted
  // [SECTION] how the Matrices panel draws it
  ViewText (*text)(const attn::Config& c, bool cross) = nullptr;  // its title and help (RoPE, cross-attention and the positional encoding change some)
  Colormap cmap = Colormap::diverging;  // sequential for [0, 1] data, diverging for signed numbers
  ViewMask mask = ViewMask::none;
  ViewRow row = ViewRow::inputs;  // where it stands: its row, and its place in it from the left
  int place = 0;
  bool (*shown)(const App& app) = nullptr;  // whether its row shows it now (nullptr: always)
  float max_cell = 44.0f;      // the largest cell side (CSS px)
  float min_cell = 8.0f;       // the narrowest cells before the block moves to a line of its own
  float stretch = 1.0f;        // its share of its line's spare width
  float stretch_cross = 0.0f;  // the same in cross-attention, where different (0: stretch)
  bool own_labels = false;     // labels its rows even beside a block that labels the same tokens
};
std::span<const ViewInfo> views();
const ViewInfo& view_info(View v);
inline const char* view_name(View v) { return view_info(v).name; }
// The name on screen, in the current language: the catalogue's "view.<key>.label" where the name is words
// ("Weights" -> "注意力权重"), else the notation itself (W_Q, X_src).
const char* view_label(View v);
// view_label as "label###English name", for a widget whose ImGui ID must stay the same in every language.
const char* view_label_id(View v);
inline const char* view_key(View v) { return view_info(v).key; }
inline bool view_editable(View v) { return view_info(v).editable; }
inline attn::Target view_target(View v) { return view_info(v).target; }
inline attn::MatView view_matrix(const attn::Result& r, View v, int head) { return view_info(v).matrix(r, head); }
// Changes whenever what view `v` shows of `m` may have: a run of the stage that computes it (or of the
// mask stage, when the mask is drawn over it), another head's slice, another shape or colour map. The
// heatmaps look at a view's numbers again only when it changes (heatmap_colors' version).
uint64_t view_version(const attn::Engine& e, View v, const attn::MatView& m, int colormap, bool masked);
// Every view's starting colour range, as the table says.
std::array<float, (size_t)View::count> default_ranges();

}  // namespace attnlab
