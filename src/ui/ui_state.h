// ui_state.h — what the person is looking at: selections, hovers, visibility. No engine results here.
#pragma once

#include "config.h"  // attn::Target
#include "engine.h"  // attn::Result, attn::MatView
#include "panes.h"   // Pane
#include "views.h"   // View

#include <array>
#include <span>
#include <string>

namespace attnlab {

using attn::in_enum_order;  // (engine/table.h) for the static_assert beside each of the UI's tables

// A cell of a view (head matters for per-head views).
struct CellRef {
  View view = View::count;
  int head = 0, row = -1, col = -1;
  bool valid() const { return view != View::count && row >= 0 && col >= 0; }
  bool operator==(const CellRef&) const = default;
};

// How the panels share the screen (chosen each frame from the display size and the UI scale; see
// choose_layout in layout.cpp for the rule).
enum class LayoutMode {
  columns,  // input and controls | matrices | inspector, heads, lines
  sidebar,  // one side column with a tab per side panel | matrices
  tabs,     // one panel at a time under a tab bar (phones, or a large UI scale on a small screen)
};
const char* layout_mode_name(LayoutMode m);


// Where the lab's setup came from when it is a trained model's layer ("Open in the lab"), so the
// controls can say what the model uses (its positions are already inside X, its weights are trained).
struct ModelOrigin {
  bool active = false;
  std::string task;
  int layer = 0, layers = 1, step = 0;
  attn::Positional positional = attn::Positional::none;  // what the model was trained with
};

struct UiState {
  int head = 0;            // the head shown in the per-head views
  int query = -1;          // the query token picked by clicking its chip (-1: none)
  int hover_token = -1;    // token under the mouse last frame: its row and column light up everywhere
  int hover_token_next = -1;
  CellRef hover, hover_next;  // cell under the mouse last frame (drives the hover card)
  CellRef selected;           // clicked cell of an editable matrix (the inspector edits it)
  CellRef key_cell;           // the keyboard's cell cursor in the focused matrix (keyboard_cells.cpp)
  bool show_numbers = true;   // print values in cells that are big enough
  bool tie_sizes = true;      // Controls' "d_k = d_v = d_model / heads": d_k and d_v follow d_model and heads
  bool lines_all_heads = true;
  bool show_help = false;
  bool show_weights = false;  // the W_Q/W_K/W_V/W_O section
  bool show_tour = false;
  bool learn_mode = false;  // the Learn mode's windows instead of the lab's (learn.h)
  int tour_step = 0;
  View focus_view = View::count;  // a pipeline click scrolls here and flashes it
  View flash_view = View::count;  // the block that was scrolled to, flashing until focus_until
  std::string focus_item;         // a widget the tour points at (App::widget_rects' name), "" for none
  int tour_raise = 0;             // frames left to bring the tour window in front (after a mode switch: the new mode's windows come up in front)
  unsigned tour_ticks = 0;        // the steps whose "Try" was done (bit k: step k); a tick, once earned, stays
  int tour_spot = 0;              // the corner the tour sits in (it moves off what a step asks the learner to look at)
  bool tour_moved = false;        // the learner dragged the tour: it stays where they put it
  // The lab as it was when the tour opened (config and view as JSON, the model it showed): closing the
  // tour before its last step puts it back, so a teacher's own sentence is not lost to the tour's.
  std::string tour_saved_config, tour_saved_view;
  ModelOrigin tour_saved_origin;
  double focus_until = 0.0;
  bool focus_text = false;         // keyboard shortcut: put the cursor in the text box
  // Each view's colour range: > 0 a fixed ±range, the same whatever the numbers (comparable across
  // settings); 0 fitted to the view's own numbers. Scores start fixed at ±5 so that √d_k and τ change
  // what one sees (scores 5 apart already give softmax weights 150:1).
  std::array<float, (size_t)View::count> fixed_range = default_ranges();
  bool show_position = false;     // P beside X (sinusoidal or learned position)
  bool row_stats = true;          // per-row readouts beside scores (spread) and weights (entropy, max)
  View zoom_view = View::count;   // a matrix shown large in its own window (View::count: none)
  bool lesson_first = false;      // the Matrices panel leads with A (its first screen cannot hold X…V and S…A)
  int export_section = 0;         // the Export menu's open section: 0 none, 1 one view as PNG, 2 one matrix as CSV
  std::string note_title, note;   // a preset's explanation, on screen until closed
  ModelOrigin origin;             // set by Open in the lab; any other setup clears it
  float ui_scale = 1.0f;       // applied (fonts are built for it)
  float ui_scale_edit = 1.0f;  // the slider's value while it is dragged
  // [SECTION] layout and presenter
  LayoutMode layout = LayoutMode::columns;
  Pane pane = Pane::matrices;        // the tab shown in tabs mode
  Pane side_pane = Pane::input;      // the side column's tab in sidebar mode
  bool side_collapsed = false;       // the person hid the side panels: matrices use the whole width
  bool presenter = false;            // full-screen teaching view (P, the Present button, #present)
  int presenter_since = -1;          // the frame P opened it in (its keys are read from the next one)
  bool high_contrast = false;        // white on black, heavier lines (C in presenter mode)
  bool presenter_scores = false;     // presenter shows S (else A) when only one of them fits
  int presenter_preset = -1;         // index in presets() shown last in presenter mode (-1: none yet)
  int fullscreen_request = 0;        // for the shell: 1 enter full screen, -1 leave, 2 toggle (then 0)
};

}  // namespace attnlab
