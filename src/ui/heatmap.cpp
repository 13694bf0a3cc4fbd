#include "heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app.h"

namespace attnlab {
namespace {

constexpr float kColorBarWidth = 34.0f;

struct Layout {
  ImVec2 origin;      // top-left of the cell grid
  float cw, ch;       // cell size
  float gutter;       // row-label width
  float header;       // column-label height
};

float label_gutter(const App& app, const HeatmapSpec& s) {
  const int rows = s.m.rows;
  float w = ImGui::CalcTextSize("000").x;
  if (s.row_labels)
    for (int i = 0; i < rows && i < (int)s.row_labels->size(); ++i)
      w = std::max(w, ImGui::CalcTextSize((*s.row_labels)[(size_t)i].c_str()).x);
  return std::min(w + 6.0f, 90.0f * app.style_scale);
}

float magnitude(const attn::MatView& m, const attn::MaskMatrix* mask) {
  float a = 0.0f;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j)
      if (!mask || mask->allows(i, j)) a = std::max(a, std::fabs(m(i, j)));
  return a > 0.0f ? a : 1.0f;
}

void format_value(char* buf, size_t n, float v, bool masked, bool neg_inf) {
  if (masked && neg_inf) std::snprintf(buf, n, "\xE2\x88\x92\xE2\x88\x9E");  // −∞
  else if (std::fabs(v) >= 99.5f) std::snprintf(buf, n, "%.0f", v);
  else if (std::fabs(v) >= 9.995f) std::snprintf(buf, n, "%.1f", v);
  else std::snprintf(buf, n, "%.2f", v);
}

// A short label that fits `width`: the whole token, or its first characters, or nothing.
std::string fit_label(const std::string& s, float width) {
  if (ImGui::CalcTextSize(s.c_str()).x <= width) return s;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const unsigned char c = (unsigned char)s[i];
    if (c >= 0xF0) len = 4; else if (c >= 0xE0) len = 3; else if (c >= 0xC0) len = 2;
    std::string next = out + s.substr(i, len);
    if (ImGui::CalcTextSize((next + ".").c_str()).x > width) break;
    out = next;
    i += len;
  }
  return out.empty() ? "" : out + ".";
}

}  // namespace

// Cells are as wide as fits; rows are at least one text line tall while that stays under ~40 rows,
// so token labels stay readable even when the columns are narrow.
float row_height(const App& app, int rows, float cell_w, float max_cell) {
  const float readable = ImGui::GetFontSize() + 2.0f;
  float h = cell_w;
  if (rows <= 40 && h < readable) h = readable;
  return std::min(h, max_cell * app.style_scale);
}

float heatmap_height(const App& app, int rows, int cols, float width, float max_cell) {
  const float scale = app.style_scale;
  const float header = ImGui::GetTextLineHeight() + 2.0f;
  const float avail = width - 70.0f * scale - kColorBarWidth * scale;
  const float cell_w = std::clamp(avail / std::max(cols, 1), 2.0f, max_cell * scale);
  return header + row_height(app, rows, cell_w, max_cell) * (float)rows + 4.0f;
}

HeatmapEvent draw_heatmap(App& app, const HeatmapSpec& s, ImVec2 size) {
  HeatmapEvent ev;
  const attn::MatView& m = s.m;
  if (m.rows <= 0 || m.cols <= 0) return ev;
  ImGui::PushID(s.id);
  const float scale = app.style_scale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (size.x <= 0) size.x = avail.x;
  if (size.y <= 0) size.y = heatmap_height(app, m.rows, m.cols, size.x, s.max_cell);

  // [1] layout: labels left and on top, colour bar right, cells fill the rest (square-ish, capped)
  Layout L;
  L.gutter = s.compact ? 0.0f : s.row_labels_hidden ? 4.0f * scale : label_gutter(app, s);
  L.header = s.compact ? 0.0f : ImGui::GetTextLineHeight() + 2.0f;
  const float bar_w = s.compact ? 0.0f : kColorBarWidth * scale;
  const float grid_w = std::max(8.0f, size.x - L.gutter - bar_w);
  const float grid_h = std::max(8.0f, size.y - L.header - 4.0f);
  L.cw = std::min(grid_w / (float)m.cols, s.max_cell * scale);
  L.ch = std::min(grid_h / (float)m.rows, s.compact ? s.max_cell * scale : row_height(app, m.rows, L.cw, s.max_cell));
  if (L.cw > 2.0f * L.ch) L.cw = 2.0f * L.ch;  // keep cells from becoming long flat bars
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  L.origin = ImVec2(p0.x + L.gutter, p0.y + L.header);
  const ImVec2 grid_max(L.origin.x + L.cw * (float)m.cols, L.origin.y + L.ch * (float)m.rows);
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // [2] colours: one pixel per cell, uploaded as a texture when the result changed (the colour
  // range is worked out then too, not every frame)
  const bool seq = s.cmap == Colormap::sequential;
  const ImGuiID key = ImGui::GetID("tex");
  HeatmapTexture& tex = app.heatmaps[key];
  tex.last_used_frame = ImGui::GetFrameCount();
  const uint64_t version = app.result_version * 1315423911ull ^ (uint64_t)(uintptr_t)m.data ^ ((uint64_t)m.rows << 40) ^
                           ((uint64_t)m.cols << 20) ^ (s.mask ? 7 : 0) ^ (uint64_t)s.cmap;
  const bool changed = tex.version != version || tex.w != m.cols || tex.h != m.rows;
  if (changed) tex.range = seq ? 1.0f : magnitude(m, s.mask);
  const float range = tex.range;
  const auto cell_color = [&](int i, int j) -> uint32_t {
    if (s.mask && !s.mask->allows(i, j)) return kMaskedColor;
    return colormap(s.cmap, seq ? m(i, j) : m(i, j) / range);
  };
  if (app.textures) {
    if (changed || !tex.id) {
      app.pixel_scratch.resize((size_t)m.rows * m.cols);
      for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j) app.pixel_scratch[(size_t)i * m.cols + j] = cell_color(i, j);
      if (tex.id && (tex.w != m.cols || tex.h != m.rows)) {  // new size: a new texture, the old one freed
        app.textures->release(tex.id);
        tex.id = ImTextureID{};
      }
      tex.id = app.textures->upload(tex.id, m.cols, m.rows, app.pixel_scratch.data());
      ++app.texture_uploads;
    }
    dl->AddImage(tex.id, L.origin, grid_max);
  } else {  // no GPU (headless tests): plain rectangles
    for (int i = 0; i < m.rows; ++i)
      for (int j = 0; j < m.cols; ++j) {
        const ImVec2 a(L.origin.x + L.cw * j, L.origin.y + L.ch * i);
        dl->AddRectFilled(a, ImVec2(a.x + L.cw, a.y + L.ch), cell_color(i, j));
      }
  }

  tex.w = m.cols, tex.h = m.rows, tex.version = version;

  // [3] numbers (and −∞) in cells wide enough for them
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const float digit_w = ImGui::CalcTextSize("-0.00").x;
  if (!s.compact && app.ui.show_numbers && L.cw >= digit_w + 2.0f && L.ch >= ImGui::GetFontSize()) {
    char buf[32];
    for (int i = 0; i < m.rows; ++i)
      for (int j = 0; j < m.cols; ++j) {
        const bool masked = s.mask && !s.mask->allows(i, j);
        format_value(buf, sizeof buf, m(i, j), masked, s.masked_as_neg_inf);
        const ImVec2 ts = ImGui::CalcTextSize(buf);
        const ImVec2 at(L.origin.x + L.cw * j + (L.cw - ts.x) * 0.5f, L.origin.y + L.ch * i + (L.ch - ts.y) * 0.5f);
        dl->AddText(at, masked ? 0xFFB0B0B0u : text_color_on(cell_color(i, j)), buf);
      }
  } else if (s.mask && s.masked_as_neg_inf && L.cw >= 6.0f * scale) {
    // too small for text: hatch masked cells with a diagonal so −∞ stays visible
    for (int i = 0; i < m.rows; ++i)
      for (int j = 0; j < m.cols; ++j)
        if (!s.mask->allows(i, j))
          dl->AddLine(ImVec2(L.origin.x + L.cw * j, L.origin.y + L.ch * (i + 1)),
                      ImVec2(L.origin.x + L.cw * (j + 1), L.origin.y + L.ch * i), 0xFF8080FFu);
  }

  // [4] labels: tokens down the left, tokens (or indices) across the top
  for (int i = 0; i < m.rows && !s.compact && !s.row_labels_hidden; ++i) {
    if (L.ch < ImGui::GetFontSize() * 0.8f && i % (int)std::ceil(ImGui::GetFontSize() / L.ch) != 0) continue;
    const std::string label = s.row_labels && i < (int)s.row_labels->size() ? (*s.row_labels)[(size_t)i] : std::to_string(i);
    const std::string fitted = fit_label(label, L.gutter - 4.0f);
    const bool hi = i == s.highlight_row;
    dl->AddText(ImVec2(p0.x, L.origin.y + L.ch * i + (L.ch - ImGui::GetFontSize()) * 0.5f),
                hi ? 0xFF40D0FFu : text_col, fitted.c_str());
  }
  const std::string widest_index = std::to_string(m.cols - 1) + " ";
  const int col_step = std::max(1, (int)std::ceil(ImGui::CalcTextSize(widest_index.c_str()).x / std::max(L.cw, 1.0f)));
  for (int j = 0; j < m.cols && !s.compact; j += col_step) {
    std::string label = s.col_labels && j < (int)s.col_labels->size() ? (*s.col_labels)[(size_t)j] : std::to_string(j);
    label = fit_label(label, L.cw * col_step - 2.0f);
    if (label.empty()) label = std::to_string(j);
    const bool hi = j == s.highlight_col;
    dl->AddText(ImVec2(L.origin.x + L.cw * j + 1.0f, p0.y), hi ? 0xFF40D0FFu : text_col, label.c_str());
  }

  // [5] highlights: the hovered token's row/column, edited cells, the selected cell
  const ImU32 hl = 0xC040D0FFu;
  if (s.highlight_row >= 0 && s.highlight_row < m.rows)
    dl->AddRect(ImVec2(L.origin.x, L.origin.y + L.ch * s.highlight_row), ImVec2(grid_max.x, L.origin.y + L.ch * (s.highlight_row + 1)), hl, 0, 0, 2.0f);
  if (s.highlight_col >= 0 && s.highlight_col < m.cols)
    dl->AddRect(ImVec2(L.origin.x + L.cw * s.highlight_col, L.origin.y), ImVec2(L.origin.x + L.cw * (s.highlight_col + 1), grid_max.y), hl, 0, 0, 2.0f);
  for (auto [i, j] : s.edited) {
    if (i >= m.rows || j >= m.cols) continue;
    const ImVec2 tr(L.origin.x + L.cw * (j + 1), L.origin.y + L.ch * i);
    const float t = std::max(4.0f, std::min(L.cw, L.ch) * 0.35f);
    dl->AddTriangleFilled(tr, ImVec2(tr.x - t, tr.y), ImVec2(tr.x, tr.y + t), 0xFF00A5FFu);
  }
  const CellRef& sel = app.ui.selected;
  if (sel.view == s.cell.view && sel.head == s.cell.head && sel.row < m.rows && sel.col < m.cols && sel.valid())
    dl->AddRect(ImVec2(L.origin.x + L.cw * sel.col, L.origin.y + L.ch * sel.row),
                ImVec2(L.origin.x + L.cw * (sel.col + 1), L.origin.y + L.ch * (sel.row + 1)), 0xFF00FFFFu, 0, 0, 3.0f);

  // [6] colour bar with its range
  if (!s.compact) {
    const float bx = grid_max.x + 4.0f * scale, bw = 8.0f * scale;
    const float top = L.origin.y, bottom = std::max(grid_max.y, top + 3.0f * ImGui::GetFontSize());
    const int steps = 24;
    for (int k = 0; k < steps; ++k) {
      const float t0 = (float)k / steps, t1 = (float)(k + 1) / steps;
      const float v = 1.0f - (t0 + t1) * 0.5f;  // top = high
      const uint32_t c = seq ? colormap(Colormap::sequential, v) : colormap(Colormap::diverging, 2.0f * v - 1.0f);
      dl->AddRectFilled(ImVec2(bx, top + (bottom - top) * t0), ImVec2(bx + bw, top + (bottom - top) * t1 + 1.0f), c);
    }
    char hi_s[24], lo_s[24];
    std::snprintf(hi_s, sizeof hi_s, seq ? "1" : "%.2g", range);
    std::snprintf(lo_s, sizeof lo_s, seq ? "0" : "%.2g", -range);
    const float fs = ImGui::GetFontSize();
    dl->AddText(ImGui::GetFont(), fs * 0.75f, ImVec2(bx + bw + 2.0f, top), text_col, hi_s);
    dl->AddText(ImGui::GetFont(), fs * 0.75f, ImVec2(bx + bw + 2.0f, bottom - fs * 0.75f), text_col, lo_s);
  }

  if (!s.compact && s.cell.view != View::count)
    app.view_rects[(int)s.cell.view] = {L.origin.x, L.origin.y, L.cw, L.ch, m.rows, m.cols, s.cell.head, true};

  // [7] interaction
  ImGui::SetCursorScreenPos(L.origin);
  ImGui::InvisibleButton("cells", ImVec2(std::max(1.0f, grid_max.x - L.origin.x), std::max(1.0f, grid_max.y - L.origin.y)));
  if (!heatmap_keyboard(app, s.cell, m.rows, m.cols, L.origin, L.cw, L.ch, ev) && ImGui::IsItemHovered()) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    ev.row = std::clamp((int)((mp.y - L.origin.y) / L.ch), 0, m.rows - 1);
    ev.col = std::clamp((int)((mp.x - L.origin.x) / L.cw), 0, m.cols - 1);
    ev.hovered = true;
    ev.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    dl->AddRect(ImVec2(L.origin.x + L.cw * ev.col, L.origin.y + L.ch * ev.row),
                ImVec2(L.origin.x + L.cw * (ev.col + 1), L.origin.y + L.ch * (ev.row + 1)), 0xFFFFFFFFu, 0, 0, 2.0f);
    CellRef ref = s.cell;
    ref.row = ev.row, ref.col = ev.col;
    app.ui.hover_next = ref;
  }
  // leave the cursor below the whole widget
  ImGui::SetCursorScreenPos(ImVec2(p0.x, std::max(grid_max.y, p0.y + size.y) + 2.0f));
  ImGui::Dummy(ImVec2(size.x, 0.0f));
  ImGui::PopID();
  return ev;
}

void heatmap_collect_garbage(App& app) {
  const int now = ImGui::GetFrameCount();
  for (auto it = app.heatmaps.begin(); it != app.heatmaps.end();) {
    if (now - it->second.last_used_frame > 120) {
      if (app.textures && it->second.id) app.textures->release(it->second.id);
      it = app.heatmaps.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace attnlab
