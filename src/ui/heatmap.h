// heatmap.h — one matrix drawn as coloured cells, ImPlot-style: data and options in, pixels and
// mouse events out. draw_heatmap() keeps no state and writes none: the caller decides what a hover
// or a click means, and where to remember the layout.
//
// Colours come from heatmap_colors(), which turns a matrix into one texel per cell and uploads it
// only when the numbers, the mask or the colour range changed (the one piece of state, in a
// HeatmapCache the caller owns). Row 0 is at the top; labels left (rows) and on top (columns).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "colormap.h"
#include "engine.h"
#include "imgui.h"
#include "textures.h"
#include "ui_state.h"

namespace attnlab {

// The widths of sets of labels already measured (the widest of each set, in the font it was measured
// in). Laying out a matrix asks for them several times a frame while the tokens change far less
// often; the caller keeps this between frames, as it keeps a HeatmapCache.
struct LabelWidths {
  std::unordered_map<uint64_t, float> widest;  // by a hash of the labels, their count and the font
};

struct HeatmapSpec {
  const char* id = "";
  attn::MatView m;
  Colormap cmap = Colormap::diverging;
  float range = 1.0f;        // signed data: colours span [−range, +range] (sequential: always [0, 1])
  bool range_fixed = false;  // the colour bar says "fixed" (comparable across settings) or "fit" (this matrix)
  ImTextureID texture{};     // the cells as one texture (heatmap_colors); 0: plain rectangles
  int downsample = 1;        // the texture holds every k-th row/column (matrix larger than a GPU texture)
  const std::vector<std::string>* row_labels = nullptr;  // tokens; nullptr: indices
  bool row_labels_left = false;  // the block to the left labels these same rows, lined up: draw none (a narrow gap instead)
  const std::vector<std::string>* col_labels = nullptr;
  const attn::MaskMatrix* mask = nullptr;  // cells it forbids are drawn as masked
  bool masked_as_neg_inf = false;          // print "−∞" in masked cells (the masked-scores view)
  int highlight_row = -1, highlight_col = -1;
  int selected_row = -1, selected_col = -1;
  std::vector<std::pair<int, int>> edited;  // cells changed by hand: marked in the corner
  const std::vector<std::string>* row_notes = nullptr;  // a short readout per row, right of the colour bar
  float row_notes_w = 0.0f;                             // the widest of them (measured where they are made)
  const char* notes_header = nullptr;
  float scale = 1.0f;         // UI scale: sizes below are before it
  float max_cell = 44.0f;     // largest cell side
  float max_gutter = 80.0f;   // widest the row labels may be (longer tokens are shortened, whole on hover)
  float row_height = 0.0f;    // forced cell height (rows aligned with a neighbour); 0: natural
  float header_height = 0.0f; // forced column-label height; 0: natural
  bool show_numbers = true;   // values in cells when they fit
  bool compact = false;       // no labels, no colour bar, no numbers (thumbnails)
  bool fill = false;          // compact: the cells fill `size` exactly, no room below them, and no cell side is capped
  bool high_contrast = false; // a black line between cells and pure black or white numbers (a washed-out projector)
  CellRef cell;               // this matrix (view and head), for the keyboard's cell cursor
  CellRef* key_cell = nullptr;  // the keyboard's cell cursor, owned by the caller; nullptr: no keyboard access
  LabelWidths* label_widths = nullptr;  // label widths measured before, kept by the caller; nullptr: measured every time
};

struct HeatmapEvent {
  bool hovered = false, clicked = false;
  int row = -1, col = -1;             // the cell under the mouse
  int label_row = -1, label_col = -1; // a token label under the mouse
  ImVec2 cells_min{0, 0};             // where the cells were drawn (screen pixels)
  float cell_w = 0, cell_h = 0;
  bool numbers_hidden = false;        // numbers were asked for but the cells are too small for them
  bool bar_hovered = false, bar_clicked = false;  // the colour bar (a click can switch fixed/fit)
};

// A short label that fits `width` in the current font: the whole text, or its first characters and ".",
// or nothing (the labels of rows, columns and thumbnails; the whole text goes in the tooltip).
std::string fit_label(const std::string& s, float width);

// Sizes a heatmap would take in `width` (for sizing a section and aligning neighbours' rows).
struct HeatmapGeometry {
  float gutter = 0, header = 0, cell_w = 0, cell_h = 0, notes_w = 0, bar_w = 0;
  float height = 0;  // the whole widget
  bool vertical_col_labels = false;
};
HeatmapGeometry heatmap_geometry(const HeatmapSpec& spec, float width, float height = 0.0f);

// Draws into a region of `size` (width/height; 0 = all available / natural) and returns what the mouse did.
HeatmapEvent draw_heatmap(const HeatmapSpec& spec, ImVec2 size);

// Keyboard access to the cells of the heatmap just submitted (keyboard_cells.cpp): while it has the
// focus, arrows move spec.key_cell inside it, Enter/Space click; fills `ev` as the mouse would and
// returns true while the keyboard owns the cell (ImGui then reports the item hovered too: ignore the mouse).
bool heatmap_keyboard(const HeatmapSpec& spec, ImVec2 origin, float cw, float ch, HeatmapEvent& ev);

// [SECTION] colours as textures, uploaded only when they change
struct HeatmapCache {
  struct Entry {
    ImTextureID id{};
    int w = 0, h = 0;           // texture size (after downsampling)
    uint64_t version = ~0ull;   // the caller's version of the numbers when last looked at
    uint64_t picture = 0;       // what was uploaded: the version, range and downsampling
    float fit_range = 1.0f;     // max |value| over allowed cells
    int downsample = 1;
    int last_used_frame = 0;
  };
  std::unordered_map<ImGuiID, Entry> entries;
  std::vector<uint32_t> scratch;
  long long uploads = 0;
};

struct HeatmapColors {
  ImTextureID texture{};
  float fit_range = 1.0f;  // the range that fits this matrix's data
  int downsample = 1;
};

// The texture for matrix `m` under `key`. `version` changes whenever the numbers, the mask or the
// colour map may have changed (view_version: when the stage that computes them ran), and only then are
// the numbers looked at again: their range worked out and the texture refilled. range <= 0: fit the
// colours to the data. Without a backend only the range is worked out; nor when the heatmap is out of
// sight this frame (on_screen false: scrolled away): its texture is refilled once it is in sight.
// shown_px: the size it is drawn at, in framebuffer pixels, where it is smaller than the matrix (a
// thumbnail): the texture holds every k-th row and column, k cells to a pixel, which is what the GPU
// would sample of the whole one (nearest texel), coloured and uploaded at a k²-th of the cost.
HeatmapColors heatmap_colors(HeatmapCache& cache, TextureBackend* backend, ImGuiID key, const attn::MatView& m,
                             Colormap cmap, const attn::MaskMatrix* mask, float range, uint64_t version,
                             bool on_screen = true, ImVec2 shown_px = ImVec2(0, 0));

// FNV-1a over bytes, folded into h: a texture's version from its numbers where no stage counter says
// when they changed (Learn mode's thumbnails).
uint64_t hash_bytes(uint64_t h, const void* data, size_t n);

// Releases the textures not used for a while (call once per frame).
void heatmap_collect_garbage(HeatmapCache& cache, TextureBackend* backend);

}  // namespace attnlab
