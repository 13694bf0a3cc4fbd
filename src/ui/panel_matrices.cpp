// Matrices: every stage of the forward pass as a heatmap, top to bottom in the order it is computed.
// Hover a cell for its arithmetic; click X/Q/K/V/W cells to edit them, Weights/Masked cells to mask them.
//
// [SECTION] index
//   blocks     — one matrix with its title, colour-range switch, heatmap and what the mouse did
//   rows       — blocks side by side with their rows lined up
//   panel      — head selector, the weights badge, a preset's explanation, the three rows, the zoom window
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <span>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "export.h"
#include "handmade_heads.h"
#include "heatmap.h"
#include "imgui_internal.h"
#include "mask.h"
#include "panels.h"
#include "positional.h"
#include "widgets.h"

namespace attnlab {

namespace {

struct Block {
  View view;
  std::string title;
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
  float min_cell = 8.0f;  // CSS px: the narrowest cells before the block moves to a line of its own
  float stretch = 1.0f;  // share of the row's width
  std::vector<std::string> notes;  // per-row readouts beside the colour bar (add_notes); empty: none
  float notes_w = 0.0f;            // the widest of them, measured once (every geometry of the block uses it)
  bool labels_left = false;  // the block to its left on the line labels the same rows (row_of sets it)
  bool own_labels = false;   // labels its rows even so (A: the one every lesson reads row by row)
};

// A view's block as its entry says (views.h): this config's title and help, its colours, sizes and
// mask, and the tokens that label it. The rows and the zoom window draw it.
Block block_of(const App& app, View v) {
  const ViewInfo& info = view_info(v);
  const attn::Result& r = app.engine.result();
  const auto tokens = [&](Labels l) { return l == Labels::queries ? &app.labels : l == Labels::keys ? &app.source_labels : nullptr; };
  ViewText text = info.text(app.engine.config(), r.cross);
  return {.view = v, .title = std::move(text.title), .help = text.help, .cmap = info.cmap, .rows = tokens(info.rows), .cols = tokens(info.cols),
          .query_rows = info.rows == Labels::queries, .key_cols = info.cols == Labels::keys,
          .mask = info.mask != ViewMask::none ? &r.mask : nullptr, .neg_inf = info.mask == ViewMask::minus_infinity,
          .per_head = info.per_head, .max_cell = info.max_cell, .min_cell = info.min_cell,
          .stretch = r.cross && info.stretch_cross > 0.0f ? info.stretch_cross : info.stretch, .own_labels = info.own_labels};
}

// The views a row shows now, left to right (each view's row, place and whether it is shown: views.h).
std::vector<View> row_views(const App& app, ViewRow row) {
  std::vector<const ViewInfo*> in;
  for (const ViewInfo& v : views())
    if (v.row == row && (!v.shown || v.shown(app))) in.push_back(&v);
  std::stable_sort(in.begin(), in.end(), [](const ViewInfo* a, const ViewInfo* b) { return a->place < b->place; });
  std::vector<View> out;
  for (const ViewInfo* v : in) out.push_back(v->view);
  return out;
}

void toggle_mask_cell(App& app, int i, int j) {
  attn::MaskTerm* custom = nullptr;
  for (attn::MaskTerm& t : app.config.mask)
    if (t.kind == attn::MaskTerm::Kind::custom) custom = &t;
  const attn::Result& r = app.engine.result();
  if (!custom) {
    app.config.mask.push_back(attn::mask_kind(attn::MaskTerm::Kind::custom).make(r.n, r.m));  // all allowed
    custom = &app.config.mask.back();
    notify(app, tr("notice.custom_mask"));
  }
  if (custom->rows != r.n || custom->cols != r.m) return;
  uint8_t& cell = custom->cells[(size_t)i * r.m + j];
  cell = !cell;
}

// Per-row readouts beside the weights, the story of each row left to right: how far apart its
// allowed scores are (largest minus smallest: what softmax turns into sharpness), how spread out the
// weights came out (entropy in bits: 0 = all on one key, log2 of the number of keys = even), and the
// largest weight.
std::vector<std::string> row_notes(const attn::Result& r, int head) {
  std::vector<std::string> notes;
  char buf[64];
  const attn::MatView s = r.scores_head(head);
  for (int i = 0; i < r.n; ++i) {
    float lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < r.m; ++j)
      if (r.mask.allows(i, j)) lo = std::min(lo, s(i, j)), hi = std::max(hi, s(i, j));
    const size_t k = (size_t)head * r.n + i;
    if (hi < lo) std::snprintf(buf, sizeof buf, "\xE2\x80\x94 %s", tr("matrix.all_masked"));
    else std::snprintf(buf, sizeof buf, "%4.1f %5.2f %4.2f", (double)(hi - lo), r.entropy[k], r.max_weight[k]);
    notes.push_back(buf);
  }
  return notes;
}

// The weights' per-row readouts (spread, entropy, max), when row_stats is on.
void add_notes(const App& app, Block& b) {
  const attn::Result& r = app.engine.result();
  if (!app.ui.row_stats || b.view != View::weights || r.scores.empty()) return;
  b.notes = row_notes(r, app.ui.head);
  b.notes_w = 0.0f;
  for (const std::string& n : b.notes) b.notes_w = std::max(b.notes_w, ImGui::CalcTextSize(n.c_str()).x);
}

bool has_mask(const attn::Config& c) {
  for (const attn::MaskTerm& t : c.mask)
    if (t.kind != attn::MaskTerm::Kind::none) return true;
  return false;
}

attn::MatView matrix_of(const App& app, View v) { return view_matrix(app.engine.result(), v, app.ui.head); }

HeatmapSpec spec_for(App& app, const Block& b) {
  const attn::Result& r = app.engine.result();
  const int head = b.per_head ? app.ui.head : 0;
  HeatmapSpec s;
  s.id = view_key(b.view);
  s.m = matrix_of(app, b.view);
  s.cmap = b.cmap;
  s.row_labels = b.rows;
  s.row_labels_left = b.labels_left;
  s.col_labels = b.cols;
  s.mask = b.mask;
  s.masked_as_neg_inf = b.neg_inf;
  s.max_cell = b.max_cell;
  s.scale = app.style_scale;
  s.high_contrast = app.ui.high_contrast;
  s.show_numbers = app.ui.show_numbers;
  s.cell = {b.view, head, -1, -1};
  s.key_cell = &app.ui.key_cell;
  s.label_widths = &app.label_widths;
  s.row_notes = b.notes.empty() ? nullptr : &b.notes;
  s.row_notes_w = b.notes_w;
  s.notes_header = b.notes.empty() ? nullptr : tr("heatmap.notes_header");
  const int tok = app.ui.hover_token >= 0 ? app.ui.hover_token : app.ui.query;
  // The hovered (or picked) token's row and column light up; in cross-attention keys are another text.
  s.highlight_row = b.rows && (b.query_rows || !r.cross) ? tok : -1;
  s.highlight_col = b.key_cols && !r.cross ? tok : -1;
  const CellRef& sel = app.ui.selected;
  if (sel.valid() && sel.view == b.view && sel.head == head) s.selected_row = sel.row, s.selected_col = sel.col;
  if (view_editable(b.view))
    for (const attn::Override& o : app.config.overrides)
      if (o.target == view_target(b.view) && (!b.per_head || o.head == head)) s.edited.push_back({o.row, o.col});
  return s;
}

// What the mouse did on a matrix: hover drives the card and highlights, a click edits or masks.
void handle_event(App& app, const Block& b, const HeatmapEvent& ev, bool record_layout) {
  const int head = b.per_head ? app.ui.head : 0;
  if (record_layout)
    app.view_rects[(int)b.view] = {ev.cells_min.x, ev.cells_min.y, ev.cell_w, ev.cell_h,
                                   matrix_of(app, b.view).rows, matrix_of(app, b.view).cols, head, true};
  if (ev.hovered) app.ui.hover_next = {b.view, head, ev.row, ev.col};
  if (ev.clicked) {
    if (b.view == View::weights || b.view == View::masked) toggle_mask_cell(app, ev.row, ev.col);
    else if (view_editable(b.view)) app.ui.selected = {b.view, head, ev.row, ev.col};
  }
}

// The colour range in words, and its switch (a click on the colour bar): "fixed ±5" keeps colours
// comparable while settings change; "fit" stretches them over this matrix's own numbers.
std::string range_words(const App& app, const Block& b, float fit_range) {
  if (b.cmap == Colormap::sequential) return tr("matrix.colours.weights");
  const float fixed = app.ui.fixed_range[(int)b.view];
  const auto g3 = [](float v) { char buf[32]; std::snprintf(buf, sizeof buf, "%.3g", v); return std::string(buf); };
  if (fixed > 0.0f) return trf("matrix.colours.fixed", {{"range", g3(fixed)}, {"largest", g3(fit_range)}});
  return trf("matrix.colours.fitted", {{"range", g3(fit_range)}});
}

void toggle_range(App& app, const Block& b, float fit_range) {
  if (b.cmap == Colormap::sequential) return;
  float& fixed = app.ui.fixed_range[(int)b.view];
  if (fixed > 0.0f) {
    fixed = 0.0f;
  } else {  // freeze the current range, rounded up to a readable number
    const float p = std::pow(10.0f, std::floor(std::log10(fit_range)));
    fixed = std::ceil(fit_range / p) * p;
  }
}

void draw_block(App& app, const Block& b, float width, float row_h, float header_h, bool zoomed = false) {
  ImGui::PushID((int)b.view);
  ImGui::BeginGroup();
  const attn::MatView m = matrix_of(app, b.view);
  HeatmapSpec s = spec_for(app, b);
  const float fixed = app.ui.fixed_range[(int)b.view];
  // A block scrolled out of sight keeps its last texture: refilling it every frame (at 100 tokens, each
  // a quarter of the frame's colouring) would show nothing.
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float block_h = ImGui::GetTextLineHeightWithSpacing() + heatmap_geometry(s, width).height;
  const bool on_screen = zoomed || ImGui::IsRectVisible(at, ImVec2(at.x + width, at.y + block_h));
  const HeatmapColors colors = heatmap_colors(app.heatmaps, app.textures, ImGui::GetID(zoomed ? "zoomed" : "colors"), m, b.cmap, b.mask,
                                              fixed, view_version(app.engine, b.view, m, (int)b.cmap, b.mask != nullptr), on_screen);
  s.range = fixed > 0.0f ? fixed : colors.fit_range;
  s.range_fixed = fixed > 0.0f;
  s.texture = colors.texture;
  s.downsample = colors.downsample;
  s.row_height = row_h, s.header_height = header_h;
  // Title, help, shape when there is room, enlarge. (The colour range is switched on the colour bar.)
  const float line_start_avail = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted(b.title.c_str());
  char shape[32];
  std::snprintf(shape, sizeof shape, "(%d\xC3\x97%d)", m.rows, m.cols);
  help_marker((std::string(b.help) + "\n\nShape " + shape + ". " + range_words(app, b, colors.fit_range)).c_str());
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  float used = ImGui::CalcTextSize(b.title.c_str()).x + ImGui::CalcTextSize("(?)").x + spacing;
  if (line_start_avail - used > ImGui::CalcTextSize(shape).x + spacing + 2.0f * ImGui::GetFontSize()) {
    used += ImGui::CalcTextSize(shape).x + spacing;
    ImGui::SameLine();
    ImGui::TextDisabled("%s", shape);
  }
  if (!zoomed && line_start_avail - used > 2.0f * ImGui::GetFontSize()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("\xE2\x86\x97")) app.ui.zoom_view = b.view;  // ↗
    remember_item(app, (std::string("enlarge:") + view_key(b.view)).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", trf("matrix.zoom.tip", {{"view", view_label(b.view)}}).c_str());
  }
  // A pipeline or tour click scrolls here and highlights the block.
  if (app.ui.focus_view == b.view) {
    ImGui::SetScrollHereY(0.1f);
    app.ui.focus_view = View::count;
    app.ui.flash_view = b.view;
  }
  const float height = zoomed ? ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() : 0.0f;
  const HeatmapEvent ev = draw_heatmap(s, ImVec2(width, std::max(height, 0.0f)));
  handle_event(app, b, ev, !zoomed);
  if (zoomed)  // where the large view's cells are (layout_json: tests and scripted tours)
    app.widget_rects["zoom_cells"] = ImVec4(ev.cells_min.x, ev.cells_min.y, ev.cell_w * (float)m.cols, ev.cell_h * (float)m.rows);
  if (ev.hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) ImGui::OpenPopup("view menu");
  if (ImGui::BeginPopup("view menu")) {
    keep_popup_on_screen();
    export_view_items(app, b.view);
    ImGui::EndPopup();
  }
  if (ev.bar_hovered) ImGui::SetTooltip("%s", range_words(app, b, colors.fit_range).c_str());
  if (ev.bar_clicked) toggle_range(app, b, colors.fit_range);
  const attn::Positional pos = app.engine.config().positional;
  if (b.view == View::x && !zoomed && attn::positional_kind(pos).add) {
    if (ImGui::SmallButton(tr_id(app.ui.show_position ? Key("matrix.hide_p") : Key("matrix.show_p"), "show_p"))) app.ui.show_position = !app.ui.show_position;
    remember_item(app, "show_p");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("matrix.show_p.tip"));
    if (ev.numbers_hidden) ImGui::SameLine();
  }
  if (b.view == View::masked && !zoomed && !has_mask(app.engine.config())) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::BeginGroup();  // the tooltip below answers on every line
    text_wrapped_disabled(tr("matrix.no_mask"));
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("matrix.no_mask.tip"));
  }
  if (ev.numbers_hidden && !zoomed) {
    // Say why there are no numbers, and offer the view where they fit.
    // (short where the block is narrow: a label cut at the column's edge reads "numbers: enlarg")
    const bool roomy = ImGui::CalcTextSize(tr("matrix.numbers_enlarge")).x + 2.0f * ImGui::GetStyle().FramePadding.x <= width;
    if (ImGui::SmallButton(tr_id(roomy ? Key("matrix.numbers_enlarge") : Key("matrix.numbers_short"), "numbers"))) app.ui.zoom_view = b.view;
    remember_item(app, (std::string("numbers_enlarge:") + view_key(b.view)).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", trf("matrix.numbers_enlarge.tip", {{"view", view_label(b.view)}}).c_str());
  }
  ImGui::EndGroup();
  {
    // Where the block is, and whether all of it shows (what a PNG of it needs: export.h).
    const ImVec2 a = ImGui::GetItemRectMin(), z = ImGui::GetItemRectMax();
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    const bool whole = ImGui::GetCurrentWindow()->InnerClipRect.Contains(ImRect(a, z)) && a.x >= 0 && a.y >= 0 && z.x <= ds.x && z.y <= ds.y;
    (zoomed ? app.zoom_block_rect : app.block_rects[(int)b.view]) = ImVec4(a.x, a.y, z.x - a.x, z.y - a.y);
    (zoomed ? app.zoom_block_whole : app.block_whole[(int)b.view]) = whole;
  }
  const double now = ImGui::GetTime();
  if (app.ui.flash_view == b.view && !app.png.pending && (now < app.ui.focus_until || (app.ui.focus_until < 0.0 && app.ui.show_tour))) {
    // A timed flash after a pipeline click; a lasting frame (focus_until < 0) while the tour points here.
    const float a = app.ui.focus_until < 0.0 ? 1.0f : (float)std::min(1.0, (app.ui.focus_until - now) / 1.2);
    ImGui::GetWindowDrawList()->AddRect(ImVec2(ImGui::GetItemRectMin().x - 2, ImGui::GetItemRectMin().y - 2),
                                        ImVec2(ImGui::GetItemRectMax().x + 2, ImGui::GetItemRectMax().y + 2),
                                        ImGui::GetColorU32(ImVec4(1.0f, 0.8f, 0.2f, a)), 4.0f, 0, 3.0f);
  }
  ImGui::PopID();
}

// Lays blocks side by side in rows of tables, their rows lined up: the same cell height and
// column-label height wherever blocks on a line have the same number of rows, and one set of row
// labels for neighbours that label the same tokens (the leftmost block's). A block goes on the next
// line when the line would be too narrow for every block on it to keep cells of its min_cell (8 px,
// the smallest a finger or pointer aims at; S, masked S and A keep kLessonCell); a block alone on its line that is still too
// wide scrolls sideways (the window's scrollbar) instead. Blocks keep one ID whichever line they land
// on, so their textures and state survive a re-wrap.
struct RowPlan {
  std::vector<Block> blocks;
  std::vector<std::vector<size_t>> lines;  // indices into blocks, left to right
  std::vector<float> need, notes_w;        // per block: width at its min_cell with and without its row labels
  std::vector<float> need_unlabelled;
  float height = 0.0f;                     // the whole row as it will be drawn (an estimate from the geometry)
};

// Whether b, right of a on a line, may leave its rows to a's labels.
bool same_rows(App& app, const Block& a, const Block& b) {
  if (b.own_labels) return false;
  const HeatmapSpec sa = spec_for(app, a), sb = spec_for(app, b);
  return sa.m.rows == sb.m.rows && a.rows && b.rows && *a.rows == *b.rows;
}

RowPlan plan_row(App& app, std::span<const View> views) {
  RowPlan P;
  for (View v : views) add_notes(app, P.blocks.emplace_back(block_of(app, v)));
  const size_t n = P.blocks.size();
  const float avail = ImGui::GetContentRegionAvail().x, sc = app.style_scale;
  // The width each block needs: its cells at min_cell plus what its heatmap draws beside them (row
  // labels, the colour bar, row readouts) and the table's padding (each cell's, and the table's own
  // at both ends: `outer_pad`).
  const float pad = ImGui::GetStyle().CellPadding.x, outer_pad = 2.0f * pad;
  P.need.resize(n), P.notes_w.resize(n), P.need_unlabelled.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Block& b = P.blocks[i];
    HeatmapSpec s = spec_for(app, b);
    const HeatmapGeometry g = heatmap_geometry(s, 1e6f);
    P.need[i] = g.gutter + g.bar_w + b.min_cell * sc * (float)s.m.cols + 2.0f * pad + 1.0f;  // + ImGui's rounding
    s.row_labels_left = true;
    P.need_unlabelled[i] = P.need[i] - g.gutter + heatmap_geometry(s, 1e6f).gutter;
    P.notes_w[i] = g.notes_w;
  }
  const auto width = [&](const std::vector<size_t>& line, size_t k) {
    return k > 0 && same_rows(app, P.blocks[line[k - 1]], P.blocks[line[k]]) ? P.need_unlabelled[line[k]] : P.need[line[k]];
  };
  const auto fits = [&](const std::vector<size_t>& line) {
    float total = 0.0f;
    for (size_t k = 0; k < line.size(); ++k) total += width(line, k);
    return total + outer_pad <= avail;
  };
  // Filled from the last block backwards, so what wraps is the first block (X, the widest) and the
  // blocks that belong together (Q, K, V; masked S and A) stay on one line.
  const auto wrap = [&] {
    std::vector<std::vector<size_t>> lines(1);
    for (size_t i = n; i-- > 0;) {
      lines.back().insert(lines.back().begin(), i);
      if (lines.back().size() > 1 && !fits(lines.back())) {
        lines.back().erase(lines.back().begin());
        lines.push_back({i});
      }
    }
    std::reverse(lines.begin(), lines.end());
    return lines;
  };
  P.lines = wrap();
  // A block that labels its own rows (A) gives that up before it would push a block onto another line.
  bool owns = false;
  for (const Block& b : P.blocks) owns = owns || b.own_labels;
  if (owns) {
    std::vector<bool> kept(n);
    for (size_t i = 0; i < n; ++i) kept[i] = P.blocks[i].own_labels, P.blocks[i].own_labels = false;
    std::vector<std::vector<size_t>> shared = wrap();
    if (shared.size() < P.lines.size()) P.lines = std::move(shared);
    else
      for (size_t i = 0; i < n; ++i) P.blocks[i].own_labels = kept[i];
  }
  for (const std::vector<size_t>& line : P.lines) {
    float line_h = 0.0f;
    for (size_t k = 0; k < line.size(); ++k) {
      Block& b = P.blocks[line[k]];
      b.labels_left = k > 0 && same_rows(app, P.blocks[line[k - 1]], b);
      if (b.labels_left) P.need[line[k]] = P.need_unlabelled[line[k]];
      // title line + heatmap + one line of buttons under it (enlarge, show P)
      const HeatmapGeometry g = heatmap_geometry(spec_for(app, b), std::max(1.0f, avail / (float)line.size()));
      line_h = std::max(line_h, g.height + 2.0f * ImGui::GetFrameHeightWithSpacing());
    }
    P.height += line_h;
  }
  return P;
}

void draw_row(App& app, RowPlan& P) {
  const float avail = ImGui::GetContentRegionAvail().x;
  const float pad = ImGui::GetStyle().CellPadding.x, outer_pad = 2.0f * pad;
  std::vector<float>& need = P.need;
  const ImGuiID stable = ImGui::GetID("row");
  for (size_t li = 0; li < P.lines.size(); ++li) {
    const std::vector<size_t>& line = P.lines[li];
    const int n = (int)line.size();
    // The row readouts are an extra: shown when the line has room for them too.
    float min_total = 0.0f, stretch = 0.0f, notes_total = 0.0f;
    for (size_t b : line) min_total += need[b], stretch += P.blocks[b].stretch, notes_total += P.notes_w[b];
    const bool notes_fit = min_total + notes_total + outer_pad <= avail;
    for (size_t b : line) {
      if (notes_fit) need[b] += P.notes_w[b];
      else P.blocks[b].notes.clear();
    }
    if (notes_fit) min_total += notes_total;
    // Each block gets what it needs, and the room left over in proportion to its stretch.
    const float outer = std::max(avail, min_total + outer_pad);
    std::vector<float> weight(line.size());
    float total = 0.0f;
    for (size_t i = 0; i < line.size(); ++i)
      total += weight[i] = need[line[i]] + (outer - outer_pad - min_total) * P.blocks[line[i]].stretch / stretch;
    ImGui::PushID((int)li);
    if (ImGui::BeginTable("row", n, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_PadOuterX, ImVec2(outer, 0.0f))) {
      for (size_t i = 0; i < line.size(); ++i)
        ImGui::TableSetupColumn(view_name(P.blocks[line[i]].view), ImGuiTableColumnFlags_WidthStretch, weight[i]);
      const float inner = outer - outer_pad - pad * 2.0f * (float)n;
      float row_h = 1e9f, header_h = 0.0f;
      int rows = -1;
      bool same = true;
      for (size_t i = 0; i < line.size(); ++i) {
        const HeatmapSpec s = spec_for(app, P.blocks[line[i]]);
        const HeatmapGeometry g = heatmap_geometry(s, inner * weight[i] / total);
        row_h = std::min(row_h, g.cell_h);
        header_h = std::max(header_h, g.header);
        same = same && (rows < 0 || rows == s.m.rows);
        rows = s.m.rows;
      }
      for (size_t b : line) {
        ImGui::TableNextColumn();
        ImGui::PushOverrideID(stable);
        draw_block(app, P.blocks[b], ImGui::GetContentRegionAvail().x, same ? row_h : 0.0f, header_h);
        ImGui::PopID();
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
  }
}

void row_of(App& app, std::span<const View> views) {
  RowPlan P = plan_row(app, views);
  draw_row(app, P);
}

// One matrix, large, in its own window: numbers that do not fit in the overview fit here.
void draw_zoom_window(App& app) {
  if (app.ui.zoom_view == View::count) return;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(ds.x * 0.94f, ds.y * 0.9f), ImGuiCond_Appearing);
  bool open = true;
  const std::string title = trf("matrix.zoom.title", {{"view", view_label(app.ui.zoom_view)}}) + "###zoom";
  if (ImGui::Begin(title.c_str(), &open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_HorizontalScrollbar)) {
    Block b = block_of(app, app.ui.zoom_view);
    add_notes(app, b);
    b.max_cell = 90.0f;  // as large as the window allows both ways (draw_block passes its height)
    draw_block(app, b, ImGui::GetContentRegionAvail().x, 0.0f, 0.0f, true);
  }
  ImGui::End();
  if (!open) app.ui.zoom_view = View::count;
}

std::string weights_badge(const App& app, const attn::Config& c) {
  const ModelOrigin& o = app.ui.origin;
  if (o.active)
    return trf("matrix.badge.trained", {{"task", o.task}, {"layer", o.layer}, {"layers", o.layers}, {"step", o.step}});
  if (!c.w_q.empty() || !c.w_k.empty() || !c.w_v.empty() || !c.w_o.empty()) return tr("matrix.badge.given");
  const std::string seed = std::to_string(c.seed);
  if (c.handmade.empty()) return trf("matrix.badge.random", {{"seed", seed}});
  std::string heads;
  for (const attn::HandmadeHead& h : c.handmade) {
    const attn::HandmadeKind* k = attn::find_handmade_kind(h.kind);
    heads += trf("matrix.badge.hand_built_head", {{"h", h.head}, {"pattern", k ? tr_entry("handmade", k->name, "label", k->label) : h.kind.c_str()}}) + ", ";
  }
  return trf((int)c.handmade.size() >= c.heads ? Key("matrix.badge.hand_built_all") : Key("matrix.badge.hand_built"), {{"heads", heads}, {"seed", seed}});
}

}  // namespace

void draw_matrices_panel(App& app) {
  ImGui::Begin(pane_window(Pane::matrices), nullptr, ImGuiWindowFlags_HorizontalScrollbar);
  const attn::Result& r = app.engine.result();
  // One panel at a time (a phone, a projector's large scale): the sentence leads, editable, so the
  // first screen holds it and its weights.
  if (app.ui.layout == LayoutMode::tabs) draw_text_line(app);
  if (r.n == 0) {
    ImGui::TextDisabled("%s", tr("matrix.empty"));
    ImGui::End();
    return;
  }
  const attn::Config& c = app.engine.config();
  const int h = std::clamp(app.ui.head, 0, r.heads - 1);
  // Head selector
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("matrix.head"));
  for (int k = 0; k < r.heads; ++k) {
    ImGui::SameLine(0, 3.0f);
    ImGui::PushID(k);
    ImGui::PushStyleColor(ImGuiCol_Button, k == h ? head_color(k, 0.9f) : head_color(k, 0.25f));
    char label[12];
    std::snprintf(label, sizeof label, "%d", k);
    if (ImGui::Button(label)) app.ui.head = k;
    remember_item(app, ("head_button_" + std::to_string(k)).c_str());
    ImGui::PopStyleColor();
    ImGui::PopID();
  }
  ImGui::SameLine();
  ImGui::TextDisabled(" [ ] ");
  // The honest badge: where this head's weights come from.
  ImGui::SameLine();
  const std::string badge = weights_badge(app, c);
  const bool random = c.handmade.empty() && c.w_q.empty();
  ImGui::TextColored(random ? ImVec4(1.0f, 0.75f, 0.4f, 1.0f) : ImVec4(0.6f, 0.9f, 0.6f, 1.0f), "%s", badge.c_str());
  remember_item(app, "weights_badge");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", app.ui.origin.active ? tr("matrix.badge.trained.tip") : random ? tr("matrix.badge.random.tip") : tr("matrix.badge.hand_built.tip"));
  // A preset's explanation, on screen until closed.
  if (!app.ui.note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.16f, 0.20f, 0.12f, 1.0f));
    const float wrap = ImGui::GetContentRegionAvail().x - 40.0f * app.style_scale;
    const float text_h = ImGui::CalcTextSize(app.ui.note.c_str(), nullptr, false, wrap).y;
    ImGui::BeginChild("note", ImVec2(0, text_h + ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().WindowPadding.y * 2.0f), true);
    ImGui::TextColored(ImVec4(0.75f, 0.95f, 0.6f, 1.0f), "%s", app.ui.note_title.c_str());
    ImGui::SameLine(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX() - ImGui::GetFrameHeight());
    if (ImGui::SmallButton("x")) app.ui.note.clear();
    remember_item(app, "note_close");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("matrix.note.close"));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
    text_wrapped_words("%s", app.ui.note.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
    ImGui::PopStyleColor();
  }

  // Row 1: the inputs of attention. Row 2: scores to weights. Row 3: what comes out. The first screen
  // rule (docs/web-api.md, "The first screen"): S, masked S and A must be on it. Where the inputs row
  // and the attention row fit the panel's height together, they come in the pipeline's order (X, Q,
  // K, V on one line when they fit, with shared row labels). Where they do not, the lesson comes
  // first: the attention row leads, and where even S, masked S and A do not fit one line (a phone, a
  // large UI scale), A leads alone, under the sentence; the pipeline follows in order.
  ImGui::Separator();
  const std::vector<View> attention = row_views(app, ViewRow::attention);
  ImGui::PushID("inputs");
  RowPlan in = plan_row(app, row_views(app, ViewRow::inputs));
  ImGui::PopID();
  ImGui::PushID("attention");
  RowPlan att = plan_row(app, attention);
  ImGui::PopID();
  const float first_screen = ImGui::GetWindowHeight() - ImGui::GetCursorPosY() - ImGui::GetStyle().WindowPadding.y;
  app.ui.lesson_first = in.height + att.height > first_screen;
  const auto hint = [] {
    text_wrapped_disabled(tr("matrix.how"));
  };
  const auto draw = [&](const char* id, RowPlan& plan) {
    ImGui::PushID(id);
    draw_row(app, plan);
    ImGui::PopID();
  };
  if (!app.ui.lesson_first) {
    draw("inputs", in);
    ImGui::Separator();
    draw("attention", att);
  } else if (att.lines.size() == 1) {
    draw("attention", att);
    hint();
    ImGui::Separator();
    draw("inputs", in);
  } else {
    constexpr View kWeights[] = {View::weights};  // A leads alone; the rest of its row follows the inputs
    std::vector<View> rest;
    for (View v : attention)
      if (v != View::weights) rest.push_back(v);
    ImGui::PushID("attention");
    row_of(app, kWeights);
    ImGui::PopID();
    hint();
    ImGui::Separator();
    draw("inputs", in);
    ImGui::Separator();
    ImGui::PushID("attention");
    row_of(app, rest);
    ImGui::PopID();
  }
  ImGui::Separator();
  ImGui::PushID("outputs");
  row_of(app, row_views(app, ViewRow::outputs));
  ImGui::PopID();
  if (app.ui.show_weights) {
    ImGui::Separator();
    ImGui::PushID("w");
    row_of(app, row_views(app, ViewRow::weights));
    ImGui::PopID();
  }
  ImGui::End();
  draw_zoom_window(app);
}

}  // namespace attnlab
