// panes.h — the side panels: one registration each, in the table below. frame() places and draws them
// in its order, choose_layout gives each its place (its column and share of it on a wide screen, the
// side column or the whole body under a tab otherwise), the nav bar makes a tab of each, and the tests
// read the table (tests/ui/test_ui.cpp: each is drawn alone under its tab, and docs/web-api.md names
// its tab and window).
//
// Adding one: its Pane value, its draw function's declaration and its entry, all here; the function
// in its own panel_*.cpp (cmake/ui.cmake compiles every panel_*.cpp); a test; its tab and window in
// docs/web-api.md; its title in the catalogues (window.<name> in assets/lang).
#pragma once
#include <span>

#include "i18n.h"
#include "table.h"

namespace attnlab {

struct App;

// The side panels, in the order the tab bars show them.
enum class Pane { input, controls, matrices, inspector, heads, lines, count };

void draw_input_panel(App& app);      // text boxes and token chips
void draw_controls_panel(App& app);   // sizes, encoding, scale, temperature, masks, seed
void draw_matrices_panel(App& app);   // every stage as a heatmap
void draw_inspector_panel(App& app);  // the selected/hovered cell's arithmetic, and number edits
void draw_heads_panel(App& app);      // all heads' weights, small
void draw_lines_panel(App& app);      // query -> key lines weighted by attention

// Where a panel stands when the screen has room for three columns.
enum class Column { left, middle, right };

struct PaneInfo {
  Pane pane;
  const char* label;       // its window's id and its tab's widget name ("tab_Input"): English, for scripts
  Key title;               // what its window's title bar and its tab say
  void (*draw)(App& app);  // opens its window with pane_window(pane) and fills it
  bool edits_config;       // drawn before sync_engine: its edits show in this frame's matrices
  Column column;           // its column on a wide screen (the middle one is the matrices')
  float share;             // its share of the column's height, the column's panels stacked in table order
  float share_with_tour;   // the same while the tour is docked under the right column (0: the tour has its place)
};

inline constexpr PaneInfo kPanes[] = {
    {Pane::input, "Input", "window.input", draw_input_panel, true, Column::left, 0.34f, 0.34f},
    {Pane::controls, "Controls", "window.controls", draw_controls_panel, true, Column::left, 0.66f, 0.66f},
    {Pane::matrices, "Matrices", "window.matrices", draw_matrices_panel, false, Column::middle, 1.0f, 1.0f},
    {Pane::inspector, "Inspector", "window.inspector", draw_inspector_panel, false, Column::right, 0.36f, 0.30f},
    {Pane::heads, "All heads", "window.heads", draw_heads_panel, false, Column::right, 0.30f, 0.26f},
    {Pane::lines, "Lines", "window.lines", draw_lines_panel, false, Column::right, 0.34f, 0.0f},
};
static_assert(attn::in_enum_order(kPanes, &PaneInfo::pane), "one entry per Pane, in Pane's order");

inline std::span<const PaneInfo> panes() { return kPanes; }
inline const PaneInfo& pane_info(Pane p) { return kPanes[(size_t)p]; }
// Its window's name: the title in the current language, the label as its id ("Eingabe###Input").
inline const char* pane_window(Pane p) { return tr_id(pane_info(p).title, pane_info(p).label); }

}  // namespace attnlab
