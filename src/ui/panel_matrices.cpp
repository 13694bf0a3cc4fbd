// Matrices: every stage of the forward pass as a heatmap, top to bottom in the order it is computed.
// Hover a cell for its arithmetic; click X/Q/K/V/W cells to edit them, Weights/Masked cells to mask them.
#include <algorithm>
#include <cstdio>

#include "app.h"
#include "heatmap.h"
#include "panels.h"
#include "widgets.h"

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
    default: return "?";
  }
}

namespace {

struct Block {
  View view;
  const char* title;
  const char* help;
  attn::MatView m;
  Colormap cmap = Colormap::diverging;
  const std::vector<std::string>* rows = nullptr;
  const std::vector<std::string>* cols = nullptr;
  bool query_rows = true;  // rows are query tokens (else key tokens)
  bool key_cols = false;   // columns are key tokens
  const attn::MaskMatrix* mask = nullptr;
  bool neg_inf = false;
  bool per_head = true;
  float max_cell = 44.0f;
};

bool editable(View v) {
  return v == View::x || v == View::q || v == View::k || v == View::v || v == View::w_q || v == View::w_k ||
         v == View::w_v || v == View::w_o;
}

attn::Target target_of(View v) {
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

void toggle_mask_cell(App& app, int i, int j) {
  attn::MaskTerm* custom = nullptr;
  for (attn::MaskTerm& t : app.config.mask)
    if (t.kind == attn::MaskTerm::Kind::custom) custom = &t;
  const attn::Result& r = app.engine.result();
  if (!custom) {
    attn::MaskTerm t{attn::MaskTerm::Kind::custom};
    t.rows = r.n, t.cols = r.m;
    t.cells.assign((size_t)r.n * r.m, 1);
    app.config.mask.push_back(std::move(t));
    custom = &app.config.mask.back();
    notify(app, "Custom mask on: click cells to hide or allow single pairs");
  }
  if (custom->rows != r.n || custom->cols != r.m) return;
  uint8_t& cell = custom->cells[(size_t)i * r.m + j];
  cell = !cell;
}

void draw_block(App& app, const Block& b, float width) {
  const attn::Result& r = app.engine.result();
  const int head = app.ui.head;
  ImGui::PushID((int)b.view);
  ImGui::BeginGroup();
  // Title, shape and help
  ImGui::TextUnformatted(b.title);
  ImGui::SameLine();
  ImGui::TextDisabled("(%d\xC3\x97%d)", b.m.rows, b.m.cols);
  help_marker(b.help);
  // A pipeline click scrolls here and flashes the block.
  const double now = ImGui::GetTime();
  if (app.ui.focus_view == b.view) {
    ImGui::SetScrollHereY(0.1f);
    app.ui.focus_view = View::count;
    app.ui.flash_view = b.view;
  }
  HeatmapSpec s;
  s.id = view_name(b.view);
  s.m = b.m;
  s.cmap = b.cmap;
  s.row_labels = b.rows;
  s.col_labels = b.cols;
  s.mask = b.mask;
  s.masked_as_neg_inf = b.neg_inf;
  s.cell = {b.view, b.per_head ? head : 0, -1, -1};
  s.max_cell = b.max_cell;
  const int tok = app.ui.hover_token >= 0 ? app.ui.hover_token : app.ui.query;
  // The hovered (or picked) token's row and column light up; in cross-attention keys are another text.
  s.highlight_row = b.rows && (b.query_rows || !r.cross) ? tok : -1;
  s.highlight_col = b.key_cols && !r.cross ? tok : -1;
  if (editable(b.view))
    for (const attn::Override& o : app.config.overrides)
      if (o.target == target_of(b.view) && (!b.per_head || o.head == head)) s.edited.push_back({o.row, o.col});
  const HeatmapEvent ev = draw_heatmap(app, s, ImVec2(width, 0));
  if (ev.clicked) {
    if (b.view == View::weights || b.view == View::masked) {
      toggle_mask_cell(app, ev.row, ev.col);
    } else {
      app.ui.selected = {b.view, b.per_head ? head : 0, ev.row, ev.col};
    }
  }
  ImGui::EndGroup();
  if (app.ui.flash_view == b.view && now < app.ui.focus_until) {
    const float a = (float)((app.ui.focus_until - now) / 1.2);
    ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                        ImGui::GetColorU32(ImVec4(1.0f, 0.8f, 0.2f, a)), 4.0f, 0, 3.0f);
  }
  ImGui::PopID();
}

// Lays blocks side by side in one row of a table.
void row_of(App& app, std::initializer_list<Block> blocks) {
  const int n = (int)blocks.size();
  if (ImGui::BeginTable("row", n, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_PadOuterX)) {
    for (const Block& b : blocks) {
      ImGui::TableNextColumn();
      draw_block(app, b, ImGui::GetContentRegionAvail().x);
    }
    ImGui::EndTable();
  }
}

}  // namespace

void draw_matrices_panel(App& app) {
  ImGui::Begin("Matrices", nullptr, ImGuiWindowFlags_HorizontalScrollbar);
  const attn::Result& r = app.engine.result();
  if (r.n == 0) {
    ImGui::TextDisabled("Type some text to begin.");
    ImGui::End();
    return;
  }
  const int h = std::clamp(app.ui.head, 0, r.heads - 1);
  // Head selector
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Head");
  for (int k = 0; k < r.heads; ++k) {
    ImGui::SameLine(0, 3.0f);
    ImGui::PushID(k);
    ImGui::PushStyleColor(ImGuiCol_Button, k == h ? head_color(k, 0.9f) : head_color(k, 0.25f));
    char label[8];
    std::snprintf(label, sizeof label, "%d", k);
    if (ImGui::Button(label)) app.ui.head = k;
    ImGui::PopStyleColor();
    ImGui::PopID();
  }
  ImGui::SameLine();
  ImGui::TextDisabled("  [ and ] switch heads");

  const auto* q_tok = &r.tokens;
  const auto* k_tok = &r.source_tokens;
  ImGui::Separator();
  ImGui::PushID("x");
  row_of(app, {Block{View::x, "1  X = embedding + position", "One row per token: its embedding plus its position vector (unless RoPE or none is chosen). Click a cell to edit it.", r.x_view(), Colormap::diverging, q_tok, nullptr, true, false, nullptr, false, false, 30.0f}});
  ImGui::PopID();
  ImGui::Separator();
  ImGui::PushID("qkv");
  row_of(app, {Block{View::q, "2  Q = X\xC2\xB7W_Q", "Queries: what each token is looking for. Row i is token i's query for this head.", r.q_head(h), Colormap::diverging, q_tok, nullptr, true},
               Block{View::k, "K = X\xC2\xB7W_K", "Keys: what each token offers to be found by. Queries are compared with these.", r.k_head(h), Colormap::diverging, k_tok, nullptr, false},
               Block{View::v, "V = X\xC2\xB7W_V", "Values: what each token hands over when it is attended to.", r.v_head(h), Colormap::diverging, k_tok, nullptr, false}});
  ImGui::PopID();
  ImGui::Separator();
  ImGui::PushID("scores");
  row_of(app, {Block{View::scores, "3  S = Q\xC2\xB7K\xE1\xB5\x80 \xC2\xB7 scale / \xCF\x84", "Every query dotted with every key, then scaled. Big means 'this key matches what I look for'.", r.scores_head(h), Colormap::diverging, q_tok, k_tok, true, true},
               Block{View::masked, "4  masked S", "The same scores with hidden pairs set to minus infinity. Click a cell to hide or allow that pair.", r.scores_head(h), Colormap::diverging, q_tok, k_tok, true, true, &r.mask, true}});
  ImGui::PopID();
  ImGui::PushID("weights");
  row_of(app, {Block{View::weights, "5  A = softmax(masked S), row by row", "Each row is turned into positive weights that sum to 1: how much query i takes from each key. Click a cell to mask it and watch the row renormalise.", r.weights_head(h), Colormap::sequential, q_tok, k_tok, true, true, &r.mask, false, true, 48.0f}});
  ImGui::PopID();
  ImGui::Separator();
  ImGui::PushID("out");
  row_of(app, {Block{View::head_out, "6  O = A\xC2\xB7V", "Each output row is a weighted average of the value rows, with this head's weights.", r.out_head(h), Colormap::diverging, q_tok, nullptr, true},
               Block{View::concat, "7  concat(O_1 \xE2\x80\xA6 O_H)", "All heads' outputs side by side, one block of d_v columns per head.", r.concat_view(), Colormap::diverging, q_tok, nullptr, true, false, nullptr, false, false}});
  row_of(app, {Block{View::output, "8  output = concat\xC2\xB7W_O", "The output projection mixes the heads back into d_model numbers per token.", r.output_view(), Colormap::diverging, q_tok, nullptr, true, false, nullptr, false, false, 30.0f}});
  ImGui::PopID();
  if (app.ui.show_weights) {
    ImGui::Separator();
    ImGui::PushID("w");
    row_of(app, {Block{View::w_q, "W_Q", "Learned in a real model; seeded random here. Click a cell to edit it.", r.w_q_head(h)},
                 Block{View::w_k, "W_K", "Key projection for this head.", r.w_k_head(h)},
                 Block{View::w_v, "W_V", "Value projection for this head.", r.w_v_head(h)}});
    row_of(app, {Block{View::w_o, "W_O", "Output projection, shared by all heads.", r.w_o_view(), Colormap::diverging, nullptr, nullptr, false, false, nullptr, false, false, 24.0f}});
    ImGui::PopID();
  }
  ImGui::End();
}

}  // namespace attnlab
