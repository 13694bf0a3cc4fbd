// heatmap.h — one matrix drawn as coloured cells, with token labels, a colour bar, numbers when they
// fit, masked cells marked −∞, and the hovered/clicked cell reported back. Row 0 is at the top.
#pragma once
#include <string>
#include <vector>

#include "colormap.h"
#include "engine.h"
#include "imgui.h"
#include "ui_state.h"

namespace attnlab {

struct App;

struct HeatmapSpec {
  const char* id = "";
  attn::MatView m;
  Colormap cmap = Colormap::diverging;
  const std::vector<std::string>* row_labels = nullptr;  // tokens; nullptr: indices
  const std::vector<std::string>* col_labels = nullptr;
  const attn::MaskMatrix* mask = nullptr;  // cells it forbids are drawn as masked
  bool masked_as_neg_inf = false;          // print "−∞" in masked cells (the masked-scores view)
  CellRef cell;                            // view and head of this matrix, for hover/selection refs
  int highlight_row = -1, highlight_col = -1;
  std::vector<std::pair<int, int>> edited;  // cells changed by hand: marked in the corner
  float max_cell = 44.0f;                   // largest cell side, before UI scale
  bool row_labels_hidden = false;           // the block to the left already shows these labels
  bool compact = false;                     // no labels, no colour bar, no numbers (thumbnails)
};

struct HeatmapEvent {
  bool hovered = false, clicked = false;
  int row = -1, col = -1;
};

// Draws into a region of `size` (width/height; 0 = all available) and returns what the mouse did.
HeatmapEvent draw_heatmap(App& app, const HeatmapSpec& spec, ImVec2 size);

// Keyboard access to the cells of the heatmap just submitted (keyboard_cells.cpp): arrows move a cell
// cursor while it has the focus, Enter/Space click; fills `ev` as the mouse would and returns true
// while the keyboard owns the cell (ImGui then reports the item hovered too: ignore the mouse).
bool heatmap_keyboard(App& app, const CellRef& matrix, int rows, int cols, ImVec2 origin, float cw, float ch, HeatmapEvent& ev);

// Natural height for a matrix of `rows` given a width, so sections can size themselves.
float heatmap_height(const App& app, int rows, int cols, float width, float max_cell = 44.0f);

// Releases the textures of heatmaps not drawn for a while (call once per frame).
void heatmap_collect_garbage(App& app);

}  // namespace attnlab
