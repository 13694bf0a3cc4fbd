// Matrices: every stage of the forward pass as a heatmap, top to bottom in the order it is computed.
// Hover a cell for its arithmetic; click X/Q/K/V/W cells to edit them, Weights/Masked cells to mask them.
#include <algorithm>
#include <iterator>
#include <cstdio>

#include "app.h"
#include "heatmap.h"
#include "imgui_internal.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

namespace {

struct Block {
  View view;
  const char* title;
  const char* help;
  Colormap cmap = Colormap::diverging;
  const std::vector<std::string>* rows = nullptr;
  const std::vector<std::string>* cols = nullptr;
  bool query_rows = true;  // rows are query tokens (else key tokens)
  bool key_cols = false;   // columns are key tokens
  const attn::MaskMatrix* mask = nullptr;
  bool neg_inf = false;
  bool per_head = true;
  float max_cell = 44.0f;
  float stretch = 1.0f;  // share of the row's width
};

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

void draw_block(App& app, const Block& b, float width, bool labels_shown_left) {
  const attn::Result& r = app.engine.result();
  const int head = app.ui.head;
  ImGui::PushID((int)b.view);
  ImGui::BeginGroup();
  // Title, shape and help
  ImGui::TextUnformatted(b.title);
  ImGui::SameLine();
  const attn::MatView m = view_matrix(r, b.view, head);
  ImGui::TextDisabled("(%d\xC3\x97%d)", m.rows, m.cols);
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
  s.m = m;
  s.cmap = b.cmap;
  s.row_labels = b.rows;
  s.row_labels_hidden = labels_shown_left;
  s.col_labels = b.cols;
  s.mask = b.mask;
  s.masked_as_neg_inf = b.neg_inf;
  s.cell = {b.view, b.per_head ? head : 0, -1, -1};
  s.max_cell = b.max_cell;
  const int tok = app.ui.hover_token >= 0 ? app.ui.hover_token : app.ui.query;
  // The hovered (or picked) token's row and column light up; in cross-attention keys are another text.
  s.highlight_row = b.rows && (b.query_rows || !r.cross) ? tok : -1;
  s.highlight_col = b.key_cols && !r.cross ? tok : -1;
  if (view_editable(b.view))
    for (const attn::Override& o : app.config.overrides)
      if (o.target == view_target(b.view) && (!b.per_head || o.head == head)) s.edited.push_back({o.row, o.col});
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

// Lays blocks side by side in rows of tables. A block goes on the next line when the line would be
// too narrow for every block on it to keep cells of kMinCell (phones, a large UI scale, wide X);
// blocks keep one ID whichever line they land on, so their textures and state survive a re-wrap.
void row_of(App& app, std::initializer_list<Block> blocks) {
  const attn::Result& r = app.engine.result();
  constexpr float kMinCell = 8.0f;  // CSS px at UI scale 1: the smallest cell a finger or a pointer can aim at
  const float avail = ImGui::GetContentRegionAvail().x, s = app.style_scale;
  const auto fits = [&](const std::vector<const Block*>& line) {
    float stretch = 0.0f;
    for (const Block* b : line) stretch += b->stretch;
    for (size_t i = 0; i < line.size(); ++i) {
      const Block* b = line[i];
      // Besides the cells: row labels (at most 90; none next to a block with the same rows), the
      // colour bar (34) and the table's padding.
      const bool same_rows = i > 0 && line[i - 1]->rows && b->rows && *line[i - 1]->rows == *b->rows;
      const float overhead = ((same_rows ? 4.0f : 90.0f) + 48.0f) * s;
      if (avail * b->stretch / stretch - overhead < kMinCell * s * (float)view_matrix(r, b->view, app.ui.head).cols) return false;
    }
    return true;
  };
  // Filled from the last block backwards, so what wraps is the first block (X, the widest) and the
  // blocks that belong together (Q, K, V; masked S and A) stay on one line.
  std::vector<std::vector<const Block*>> lines(1);
  for (auto it = std::rbegin(blocks); it != std::rend(blocks); ++it) {
    lines.back().insert(lines.back().begin(), &*it);
    if (lines.back().size() > 1 && !fits(lines.back())) {
      lines.back().erase(lines.back().begin());
      lines.push_back({&*it});
    }
  }
  std::reverse(lines.begin(), lines.end());
  const ImGuiID stable = ImGui::GetID("row");
  for (size_t li = 0; li < lines.size(); ++li) {
    const std::vector<const Block*>& line = lines[li];
    ImGui::PushID((int)li);
    if (ImGui::BeginTable("row", (int)line.size(), ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_PadOuterX)) {
      for (const Block* b : line) ImGui::TableSetupColumn(view_name(b->view), ImGuiTableColumnFlags_WidthStretch, b->stretch);
      const Block* previous = nullptr;
      for (const Block* b : line) {
        ImGui::TableNextColumn();
        // Neighbours with the same rows (same tokens, same count) show the labels once, at the left.
        const bool same_rows = previous && previous->rows && b->rows && previous->rows->size() == b->rows->size() && *previous->rows == *b->rows;
        ImGui::PushOverrideID(stable);
        draw_block(app, *b, ImGui::GetContentRegionAvail().x, same_rows);
        ImGui::PopID();
        previous = b;
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
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
    char label[12];
    std::snprintf(label, sizeof label, "%d", k);
    if (ImGui::Button(label)) app.ui.head = k;
    ImGui::PopStyleColor();
    ImGui::PopID();
  }
  ImGui::SameLine();
  ImGui::TextDisabled("  [ and ] switch heads");

  const auto* q_tok = &app.labels;
  const auto* k_tok = &app.source_labels;
  // Row 1: the inputs of attention. Row 2: scores to weights. Row 3: what comes out.
  ImGui::Separator();
  ImGui::PushID("inputs");
  row_of(app, {Block{.view = View::x, .title = "1  X", .help = "One row per token: its embedding plus its position vector (unless RoPE or none is chosen). Click a cell to edit it.", .rows = q_tok, .per_head = false, .max_cell = 30.0f, .stretch = 1.6f},
               Block{.view = View::q, .title = "2  Q = X\xC2\xB7W_Q", .help = "Queries: what each token is looking for. Row i is token i's query for this head.", .rows = q_tok},
               Block{.view = View::k, .title = "K = X\xC2\xB7W_K", .help = "Keys: what each token offers to be found by. Queries are compared with these.", .rows = k_tok, .query_rows = false},
               Block{.view = View::v, .title = "V = X\xC2\xB7W_V", .help = "Values: what each token hands over when it is attended to.", .rows = k_tok, .query_rows = false}});
  ImGui::PopID();
  ImGui::Separator();
  ImGui::PushID("attention");
  row_of(app, {Block{.view = View::scores, .title = "3  S = Q\xC2\xB7K\xE1\xB5\x80\xC2\xB7scale/\xCF\x84", .help = "Every query dotted with every key, then scaled. Big means 'this key matches what I look for'.", .rows = q_tok, .cols = k_tok, .key_cols = true},
               Block{.view = View::masked, .title = "4  masked S", .help = "The same scores with hidden pairs set to minus infinity. Click a cell to hide or allow that pair.", .rows = q_tok, .cols = k_tok, .key_cols = true, .mask = &r.mask, .neg_inf = true},
               Block{.view = View::weights, .title = "5  A = softmax(rows)", .help = "Each row is turned into positive weights that sum to 1: how much query i takes from each key. Click a cell to mask it and watch the row renormalise.", .cmap = Colormap::sequential, .rows = q_tok, .cols = k_tok, .key_cols = true, .mask = &r.mask, .max_cell = 48.0f, .stretch = 1.4f}});
  ImGui::PopID();
  ImGui::Separator();
  ImGui::PushID("outputs");
  row_of(app, {Block{.view = View::head_out, .title = "6  O = A\xC2\xB7V", .help = "Each output row is a weighted average of the value rows, with this head's weights.", .rows = q_tok},
               Block{.view = View::concat, .title = "7  concat(O\xE2\x82\x81\xE2\x80\xA6O\xE2\x82\x95)", .help = "All heads' outputs side by side, one block of d_v columns per head.", .rows = q_tok, .per_head = false, .max_cell = 30.0f, .stretch = 1.5f},
               Block{.view = View::output, .title = "8  out = concat\xC2\xB7W_O", .help = "The output projection mixes the heads back into d_model numbers per token.", .rows = q_tok, .per_head = false, .max_cell = 30.0f, .stretch = 1.5f}});
  ImGui::PopID();
  if (app.ui.show_weights) {
    ImGui::Separator();
    ImGui::PushID("w");
    row_of(app, {Block{.view = View::w_q, .title = "W_Q", .help = "Learned in a real model; seeded random here. Click a cell to edit it.", .query_rows = false},
                 Block{.view = View::w_k, .title = "W_K", .help = "Key projection for this head.", .query_rows = false},
                 Block{.view = View::w_v, .title = "W_V", .help = "Value projection for this head.", .query_rows = false},
                 Block{.view = View::w_o, .title = "W_O", .help = "Output projection, shared by all heads.", .query_rows = false, .per_head = false, .max_cell = 24.0f, .stretch = 2.0f}});
    ImGui::PopID();
  }
  ImGui::End();
}

}  // namespace attnlab
