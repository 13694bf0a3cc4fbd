// Names and roles of the matrix views (ui_state.h).
#include "ui_state.h"

namespace attnlab {

const char* view_name(View v) {
  switch (v) {
    case View::x: return "X";
    case View::q: return "Q";
    case View::k: return "K";
    case View::v: return "V";
    case View::scores: return "Scores";
    case View::masked: return "Masked scores";
    case View::weights: return "Weights";
    case View::head_out: return "Head output";
    case View::concat: return "Concat";
    case View::output: return "Output";
    case View::w_q: return "W_Q";
    case View::w_k: return "W_K";
    case View::w_v: return "W_V";
    case View::w_o: return "W_O";
    case View::x_source: return "X_src";
    case View::position: return "P";
    default: return "?";
  }
}

const char* view_key(View v) {
  static const char* const keys[] = {"x", "q", "k", "v", "scores", "masked", "weights", "head_out", "concat", "output", "w_q", "w_k", "w_v", "w_o", "x_source", "position"};
  return (int)v >= 0 && v < View::count ? keys[(int)v] : "?";
}

bool view_editable(View v) {
  return v == View::x || v == View::q || v == View::k || v == View::v || v == View::w_q || v == View::w_k ||
         v == View::w_v || v == View::w_o;
}

attn::Target view_target(View v) {
  switch (v) {
    case View::q: return attn::Target::q;
    case View::k: return attn::Target::k;
    case View::v: return attn::Target::v;
    case View::w_q: return attn::Target::w_q;
    case View::w_k: return attn::Target::w_k;
    case View::w_v: return attn::Target::w_v;
    case View::w_o: return attn::Target::w_o;
    default: return attn::Target::x;
  }
}

attn::MatView view_matrix(const attn::Result& r, View v, int head) {
  switch (v) {
    case View::x: return r.x_view();
    case View::q: return r.q_head(head);
    case View::k: return r.k_head(head);
    case View::v: return r.v_head(head);
    case View::scores: case View::masked: return r.scores_head(head);
    case View::weights: return r.weights_head(head);
    case View::head_out: return r.out_head(head);
    case View::concat: return r.concat_view();
    case View::output: return r.output_view();
    case View::w_q: return r.w_q_head(head);
    case View::w_k: return r.w_k_head(head);
    case View::w_v: return r.w_v_head(head);
    case View::w_o: return r.w_o_view();
    case View::x_source: return r.x_source_view();
    default: return {};
  }
}

}  // namespace attnlab
