// ui_state.h — what the person is looking at: selections, hovers, visibility. No engine results here.
#pragma once

#include "config.h"  // attn::Target
#include "engine.h"  // attn::Result, attn::MatView

namespace attnlab {

// Every matrix the lab can draw.
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
  count
};
const char* view_name(View v);  // for people: "Masked scores"
const char* view_key(View v);   // for scripts: "masked"
bool view_editable(View v);      // X, Q, K, V and the W matrices: numbers can be changed by hand
attn::Target view_target(View v);  // the engine's name for an editable view (x otherwise)
// The numbers a view shows (masked scores are the scores; the mask is drawn on top).
attn::MatView view_matrix(const attn::Result& r, View v, int head);

// A cell of a view (head matters for per-head views).
struct CellRef {
  View view = View::count;
  int head = 0, row = -1, col = -1;
  bool valid() const { return view != View::count && row >= 0 && col >= 0; }
  bool operator==(const CellRef&) const = default;
};

struct UiState {
  int head = 0;            // the head shown in the per-head views
  int query = -1;          // the query token picked by clicking its chip (-1: none)
  int hover_token = -1;    // token under the mouse last frame: its row and column light up everywhere
  int hover_token_next = -1;
  CellRef hover, hover_next;  // cell under the mouse last frame (drives the hover card)
  CellRef selected;           // clicked cell of an editable matrix (the inspector edits it)
  bool show_numbers = true;   // print values in cells that are big enough
  bool lines_all_heads = true;
  bool show_help = false;
  bool show_weights = false;  // the W_Q/W_K/W_V/W_O section
  bool show_tour = false;
  bool learn_mode = false;  // the Learn mode's windows instead of the lab's (learn.h)
  int tour_step = 0;
  View focus_view = View::count;  // a pipeline click scrolls here and flashes it
  View flash_view = View::count;  // the block that was scrolled to, flashing until focus_until
  double focus_until = 0.0;
  bool focus_text = false;         // keyboard shortcut: put the cursor in the text box
  float ui_scale = 1.0f;       // applied (fonts are built for it)
  float ui_scale_edit = 1.0f;  // the slider's value while it is dragged
};

}  // namespace attnlab
