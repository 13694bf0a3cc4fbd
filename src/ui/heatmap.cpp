// [SECTION] index
//   geometry   — where labels, cells, colour bar and row notes go
//   colours    — one texel per cell, uploaded when the numbers change
//   drawing    — cells, numbers, labels, highlights, colour bar, notes, mouse
#include "heatmap.h"

#include "i18n.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace attnlab {

// FNV-1a, 8 bytes at a time (with a shift to mix the high bits down).
uint64_t hash_bytes(uint64_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001B3ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

namespace {

constexpr float kColorBarWidth = 40.0f;

bool allowed(const HeatmapSpec& s, int i, int j) { return !s.mask || s.mask->allows(i, j); }

uint32_t cell_color(Colormap cmap, float range, float v, bool masked) {
  if (masked) return kMaskedColor;
  return ColorScale(cmap, range)(v);  // (sequential ignores the range)
}

void format_value(char* buf, size_t n, float v, bool masked, bool neg_inf) {
  if (masked && neg_inf) std::snprintf(buf, n, "\xE2\x88\x92\xE2\x88\x9E");  // −∞
  else if (std::fabs(v) >= 99.5f) std::snprintf(buf, n, "%.0f", v);
  else if (std::fabs(v) >= 9.995f) std::snprintf(buf, n, "%.1f", v);
  else std::snprintf(buf, n, "%.2f", v);
}

}  // namespace

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

namespace {

std::string row_label(const HeatmapSpec& s, int i) {
  return s.row_labels && i < (int)s.row_labels->size() ? (*s.row_labels)[(size_t)i] : std::to_string(i);
}
std::string col_label(const HeatmapSpec& s, int j) {
  return s.col_labels && j < (int)s.col_labels->size() ? (*s.col_labels)[(size_t)j] : std::to_string(j);
}

// Text of `size` turned a quarter to the left (reading upwards), starting at `bottom_left`.
void add_text_vertical(ImDrawList* dl, ImVec2 bottom_left, ImU32 col, const char* text, float size) {
  const int start = dl->VtxBuffer.Size;
  const ImVec4 no_clip(-1e9f, -1e9f, 1e9f, 1e9f);  // clip after turning, by the draw command's rect
  dl->AddText(ImGui::GetFont(), size, bottom_left, col, text, nullptr, 0.0f, &no_clip);
  for (int k = start; k < dl->VtxBuffer.Size; ++k) {
    ImVec2& p = dl->VtxBuffer[k].pos;
    const float dx = p.x - bottom_left.x, dy = p.y - bottom_left.y;
    p = ImVec2(bottom_left.x + dy, bottom_left.y - dx);
  }
}

// The widest of labels 0..count-1 (as row_label/col_label give them) in the current font, measured
// once per set of labels when the caller keeps `memo` (keyed by a hash of the strings, the count and
// the font).
float widest_label(LabelWidths* memo, const std::vector<std::string>* labels, int count) {
  const ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  uint64_t h = hash_bytes(0xCBF29CE484222325ull, &font, sizeof font);
  h = hash_bytes(hash_bytes(h, &size, sizeof size), &count, sizeof count);
  const int named = labels ? std::min(count, (int)labels->size()) : 0;
  for (int i = 0; i < named; ++i) {
    const std::string& t = (*labels)[(size_t)i];
    h = hash_bytes(h, t.data(), t.size() + 1);  // with its terminator: "ab","c" differs from "a","bc"
  }
  if (memo)
    if (auto it = memo->widest.find(h); it != memo->widest.end()) return it->second;
  float w = 0.0f;
  for (int i = 0; i < count; ++i)
    w = std::max(w, ImGui::CalcTextSize(i < named ? (*labels)[(size_t)i].c_str() : std::to_string(i).c_str()).x);
  if (!memo) return w;
  if (memo->widest.size() > 512) memo->widest.clear();
  return memo->widest[h] = w;
}

// The colour bar's column: the bar, then its range and (signed data) its fixed/fit word in small text
// beside it, as wide as the longest of them in the current language, and never under kColorBarWidth.
float bar_width(const HeatmapSpec& s) {
  const float sc = s.scale, small = 0.75f;
  float words = ImGui::CalcTextSize("-0.00").x;
  if (s.cmap != Colormap::sequential)
    words = std::max({words, ImGui::CalcTextSize(tr("heatmap.fixed")).x, ImGui::CalcTextSize(tr("heatmap.fit")).x});
  return std::max(kColorBarWidth * sc, 12.0f * sc + 2.0f + small * words + 2.0f * sc);
}

}  // namespace

// [SECTION] geometry
HeatmapGeometry heatmap_geometry(const HeatmapSpec& s, float width, float height) {
  HeatmapGeometry g;
  const attn::MatView& m = s.m;
  const float sc = s.scale, fs = ImGui::GetFontSize();
  const int rows = std::max(m.rows, 1), cols = std::max(m.cols, 1);
  if (!s.compact) {
    float w = ImGui::CalcTextSize("000").x;
    w = std::max(w, widest_label(s.label_widths, s.row_labels, m.rows));
    g.gutter = s.row_labels_left ? 4.0f * sc : std::min({w + 6.0f * sc, s.max_gutter * sc, std::max(width * 0.3f, ImGui::CalcTextSize("000").x)});
    g.bar_w = bar_width(s);
    if (s.row_notes) {
      const float header_w = s.notes_header ? ImGui::CalcTextSize(s.notes_header).x : 0.0f;
      g.notes_w = std::max(header_w, s.row_notes_w) + 6.0f * sc;
    }
  }
  const float grid_w = std::max(8.0f, width - g.gutter - g.bar_w - g.notes_w);
  const bool fill = s.compact && s.fill;
  const float below = fill ? 0.0f : 4.0f;  // room under the cells
  g.cell_w = fill ? grid_w / (float)cols : std::min(grid_w / (float)cols, s.max_cell * sc);
  // Column labels: across when every label fits its cell with a visible gap to its neighbour (else
  // "because it" reads as one label), else turned upwards. Decided on the cells' final width, which
  // the height can narrow (no cell wider than twice its height): across first, then turned if needed.
  float widest = 0.0f;
  if (!s.compact)
    widest = widest_label(s.label_widths, s.col_labels, m.cols);
  const float gap = std::max(2.0f, 0.4f * fs);
  const float cell_w = g.cell_w;
  for (const bool vertical : {false, true}) {
    if (!s.compact) {
      g.vertical_col_labels = vertical;
      g.header = vertical ? std::min(widest, 4.5f * fs) + 6.0f * sc : ImGui::GetTextLineHeight() + 2.0f;
      if (s.header_height > 0.0f) g.header = s.header_height;
    }
    // Rows at least one text line tall while that stays under ~40 rows, so labels stay readable.
    float ch = cell_w;
    if (!s.compact && rows <= 40 && ch < fs + 2.0f) ch = fs + 2.0f;
    if (!fill) ch = std::min(ch, s.max_cell * sc);
    if (height > 0.0f) ch = std::min(ch, std::max(1.0f, (height - g.header - below) / (float)rows));
    if (s.row_height > 0.0f) ch = s.row_height;
    g.cell_h = ch;
    g.cell_w = std::min(cell_w, 2.0f * g.cell_h);  // no long flat bars
    if (s.compact || !s.col_labels || widest <= g.cell_w - gap) break;
  }
  if (fill && height > 0.0f) g.cell_w = grid_w / (float)cols, g.cell_h = height / (float)rows;  // exactly the region asked for
  const float bar_min = s.compact ? 0.0f : 3.0f * fs;
  g.height = g.header + std::max(g.cell_h * (float)rows, bar_min) + below;
  return g;
}

// [SECTION] colours
HeatmapColors heatmap_colors(HeatmapCache& cache, TextureBackend* backend, ImGuiID key, const attn::MatView& m,
                             Colormap cmap, const attn::MaskMatrix* mask, float range, uint64_t version, bool on_screen,
                             ImVec2 shown_px) {
  HeatmapCache::Entry& e = cache.entries[key];
  e.last_used_frame = ImGui::GetFrameCount();
  HeatmapColors out;
  if (m.rows <= 0 || m.cols <= 0) return out;
  const bool seq = cmap == Colormap::sequential;
  // A matrix larger than the GPU's largest texture is shown with every k-th row and column.
  const int max_side = backend ? std::max(16, backend->max_size()) : 1 << 30;
  int k = std::max((m.rows + max_side - 1) / max_side, (m.cols + max_side - 1) / max_side);
  if (shown_px.x >= 1.0f && shown_px.y >= 1.0f)
    k = std::max(k, (int)std::floor(std::min((float)m.rows / shown_px.y, (float)m.cols / shown_px.x)));
  const int tw = (m.cols + k - 1) / k, th = (m.rows + k - 1) / k;
  if (seq) {
    e.fit_range = 1.0f;  // weights: always [0, 1], nothing to fit
  } else if (e.version != version || e.w != tw || e.h != th) {  // new numbers: the range that fits them
    float a = 0.0f;
    for (int i = 0; i < m.rows; ++i) {
      const float* row = m.data + (size_t)i * m.ld;
      const uint8_t* allowed = mask ? mask->allowed.data() + (size_t)i * mask->m : nullptr;
      if (!allowed)
        for (int j = 0; j < m.cols; ++j) a = std::max(a, std::fabs(row[j]));
      else
        for (int j = 0; j < m.cols; ++j) a = std::max(a, allowed[j] ? std::fabs(row[j]) : 0.0f);
    }
    e.fit_range = a > 0.0f && std::isfinite(a) ? a : 1.0f;
  }
  e.version = version;
  out.fit_range = e.fit_range;
  out.downsample = k;
  if (!backend) return out;
  if (!on_screen) {  // the last picture stays for when it comes back into sight, unless it has another size
    if (e.id && (e.w != tw || e.h != th)) backend->release(e.id), e.id = ImTextureID{};
    out.texture = e.id;
    return out;
  }
  // Upload only when the picture (numbers, mask, colour map, range, size) differs from the last one.
  const float r = seq ? 1.0f : range > 0.0f ? range : e.fit_range;
  const uint64_t picture = hash_bytes(hash_bytes(version, &r, sizeof r), &k, sizeof k);
  if (e.id && e.picture == picture && e.w == tw && e.h == th) {
    out.texture = e.id;
    return out;
  }
  cache.scratch.resize((size_t)tw * th);
  const ColorScale color(cmap, r);
  for (int ti = 0; ti < th; ++ti) {
    const int i = ti * k;
    const float* row = m.data + (size_t)i * m.ld;
    uint32_t* out = cache.scratch.data() + (size_t)ti * tw;
    if (!mask) {
      for (int tj = 0; tj < tw; ++tj) out[tj] = color(row[(size_t)tj * k]);
      continue;
    }
    // A masked cell is the masked colour, looked up in no table; outside the row's range of allowed
    // keys (a causal row's future: half the matrix) every cell is masked.
    const uint8_t* allowed = mask->allowed.data() + (size_t)i * mask->m;
    const attn::Range span = (size_t)i < mask->ranges.size() ? mask->ranges[(size_t)i] : attn::Range{0, m.cols};
    const int lo = std::clamp((span.lo + k - 1) / k, 0, tw), hi = std::clamp((span.hi + k - 1) / k, lo, tw);  // the texels in it
    std::fill(out, out + lo, kMaskedColor);
    for (int tj = lo; tj < hi; ++tj) {
      const int j = tj * k;
      out[tj] = allowed[j] ? color(row[j]) : kMaskedColor;
    }
    std::fill(out + hi, out + tw, kMaskedColor);
  }
  if (e.id && (e.w != tw || e.h != th)) {  // a new size: a new texture, the old one freed
    backend->release(e.id);
    e.id = ImTextureID{};
  }
  e.id = backend->upload(e.id, tw, th, cache.scratch.data());
  e.w = tw, e.h = th, e.picture = picture;
  ++cache.uploads;
  out.texture = e.id;
  return out;
}

void heatmap_collect_garbage(HeatmapCache& cache, TextureBackend* backend) {
  const int now = ImGui::GetFrameCount();
  for (auto it = cache.entries.begin(); it != cache.entries.end();) {
    if (now - it->second.last_used_frame > 120) {
      if (backend && it->second.id) backend->release(it->second.id);
      it = cache.entries.erase(it);
    } else {
      ++it;
    }
  }
}

// [SECTION] drawing
HeatmapEvent draw_heatmap(const HeatmapSpec& s, ImVec2 size) {
  HeatmapEvent ev;
  const attn::MatView& m = s.m;
  if (m.rows <= 0 || m.cols <= 0) return ev;
  ImGui::PushID(s.id);
  const float sc = s.scale, fs = ImGui::GetFontSize();
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  const HeatmapGeometry g = heatmap_geometry(s, size.x, size.y);
  if (size.y <= 0) size.y = g.height;
  const bool seq = s.cmap == Colormap::sequential;
  const float range = seq ? 1.0f : s.range > 0.0f ? s.range : 1.0f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 origin(p0.x + g.gutter, p0.y + g.header);
  const float cw = g.cell_w, ch = g.cell_h;
  const ImVec2 grid_max(origin.x + cw * (float)m.cols, origin.y + ch * (float)m.rows);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto color = [&](int i, int j) { return cell_color(s.cmap, range, m(i, j), !allowed(s, i, j)); };
  // The rows and columns in sight (the window's clip rect): what is drawn cell by cell is drawn only
  // there. At 100 tokens a block is taller than the window, and its hidden cells cost as much as the rest.
  const ImVec2 clip_min = dl->GetClipRectMin(), clip_max = dl->GetClipRectMax();
  const auto first_in = [](float lo, float start, float step, int count) {
    return std::clamp((int)std::floor((lo - start) / std::max(step, 1e-6f)), 0, count);
  };
  const auto end_in = [](float hi, float start, float step, int count) {
    return std::clamp((int)std::ceil((hi - start) / std::max(step, 1e-6f)), 0, count);
  };
  const int i_lo = first_in(clip_min.y, origin.y, ch, m.rows), i_hi = end_in(clip_max.y, origin.y, ch, m.rows);
  const int j_lo = first_in(clip_min.x, origin.x, cw, m.cols), j_hi = end_in(clip_max.x, origin.x, cw, m.cols);

  // [1] cells: the texture, or rectangles when there is no GPU (headless tests)
  if (s.texture) {
    dl->AddImage(s.texture, origin, grid_max);
  } else {
    for (int i = i_lo; i < i_hi; ++i)
      for (int j = j_lo; j < j_hi; ++j) {
        const ImVec2 a(origin.x + cw * j, origin.y + ch * i);
        dl->AddRectFilled(a, ImVec2(a.x + cw, a.y + ch), color(i, j));
      }
  }

  // High contrast: every cell outlined, so neighbours with close colours stay apart on a projector.
  if (s.high_contrast && cw >= 6.0f && ch >= 6.0f) {
    const float t = std::max(1.0f, sc);
    for (int j = 1; j < m.cols; ++j) dl->AddLine(ImVec2(origin.x + cw * j, origin.y), ImVec2(origin.x + cw * j, grid_max.y), 0xFF000000u, t);
    for (int i = 1; i < m.rows; ++i) dl->AddLine(ImVec2(origin.x, origin.y + ch * i), ImVec2(grid_max.x, origin.y + ch * i), 0xFF000000u, t);
    dl->AddRect(origin, grid_max, 0xFFFFFFFFu, 0.0f, 0, t);
  }

  // [2] numbers (and −∞) in cells big enough for them; else say so to the caller
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const bool numbers_fit = cw >= ImGui::CalcTextSize("-0.00").x + 2.0f && ch >= fs;
  if (!s.compact && s.show_numbers && numbers_fit) {
    char buf[32];
    for (int i = i_lo; i < i_hi; ++i)
      for (int j = j_lo; j < j_hi; ++j) {
        const bool masked = !allowed(s, i, j);
        format_value(buf, sizeof buf, m(i, j), masked, s.masked_as_neg_inf);
        const ImVec2 ts = ImGui::CalcTextSize(buf);
        const ImVec2 at(origin.x + cw * j + (cw - ts.x) * 0.5f, origin.y + ch * i + (ch - ts.y) * 0.5f);
        const ImU32 ink = text_color_on(color(i, j));
        dl->AddText(at, masked ? (s.high_contrast ? 0xFFFFFFFFu : 0xFFB0B0B0u) : s.high_contrast ? (ink == 0xFF101010u ? 0xFF000000u : 0xFFFFFFFFu) : ink, buf);
      }
  } else if (s.mask && s.masked_as_neg_inf && cw >= 6.0f * sc) {
    // too small for text: hatch masked cells with a diagonal so −∞ stays visible
    for (int i = i_lo; i < i_hi; ++i)
      for (int j = j_lo; j < j_hi; ++j)
        if (!allowed(s, i, j))
          dl->AddLine(ImVec2(origin.x + cw * j, origin.y + ch * (i + 1)), ImVec2(origin.x + cw * (j + 1), origin.y + ch * i), 0xFF8080FFu);
  }
  ev.numbers_hidden = !s.compact && s.show_numbers && !numbers_fit;

  // [3] labels: tokens down the left and across the top (turned upwards when they do not fit across)
  if (!s.compact) {
    const int row_step = ch < fs * 0.8f ? (int)std::ceil(fs / ch) : 1;
    for (int i = i_lo - i_lo % row_step; i < i_hi && !s.row_labels_left; i += row_step) {
      const std::string fitted = fit_label(row_label(s, i), g.gutter - 4.0f * sc);
      dl->AddText(ImVec2(p0.x, origin.y + ch * i + (ch - fs) * 0.5f), i == s.highlight_row ? 0xFF40D0FFu : text_col, fitted.c_str());
    }
    // Tokens turned upwards need one text height per label; indices across need their own width.
    // Turned labels shrink to the cell width (down to 70% of the text size) before any is skipped.
    const float vfs = std::clamp(cw - 1.0f, fs * 0.7f, fs);
    const float needed = g.vertical_col_labels ? vfs : s.col_labels ? 0.0f : ImGui::CalcTextSize((std::to_string(m.cols - 1) + " ").c_str()).x;
    const int col_step = std::max(1, (int)std::ceil(needed / std::max(cw, 1.0f)));
    const float along = g.vertical_col_labels ? vfs : std::max(cw, 1.0f) * (float)col_step;
    for (int j = 0; j < m.cols; j += col_step) {
      const ImU32 c = j == s.highlight_col ? 0xFF40D0FFu : text_col;
      if (g.vertical_col_labels) {
        const std::string fitted = fit_label(col_label(s, j), (g.header - 6.0f * sc) * fs / vfs);
        add_text_vertical(dl, ImVec2(origin.x + cw * j + (cw - vfs) * 0.5f, origin.y - 3.0f * sc), c, fitted.c_str(), vfs);
      } else {
        std::string fitted = fit_label(col_label(s, j), along - 2.0f);
        dl->AddText(ImVec2(origin.x + cw * j + 1.0f, p0.y), c, fitted.c_str());
      }
    }
    // The full token under the mouse, when its label had to be shortened.
    const ImVec2 mp = ImGui::GetIO().MousePos;
    if (ImGui::IsWindowHovered() && !s.row_labels_left && mp.y >= origin.y && mp.y < grid_max.y && mp.x >= p0.x && mp.x < origin.x)
      ev.label_row = std::clamp((int)((mp.y - origin.y) / ch), 0, m.rows - 1);
    if (ImGui::IsWindowHovered() && mp.x >= origin.x && mp.x < grid_max.x && mp.y >= p0.y && mp.y < origin.y)
      ev.label_col = std::clamp((int)((mp.x - origin.x) / cw), 0, m.cols - 1);
    if (ev.label_row >= 0) ImGui::SetTooltip("%s", trf("heatmap.row", {{"i", ev.label_row}, {"label", row_label(s, ev.label_row)}}).c_str());
    if (ev.label_col >= 0) ImGui::SetTooltip("%s", trf("heatmap.column", {{"i", ev.label_col}, {"label", col_label(s, ev.label_col)}}).c_str());
  }

  // [4] highlights: the hovered token's row/column, edited cells, the selected cell
  const ImU32 hl = 0xC040D0FFu;
  if (s.highlight_row >= 0 && s.highlight_row < m.rows)
    dl->AddRect(ImVec2(origin.x, origin.y + ch * s.highlight_row), ImVec2(grid_max.x, origin.y + ch * (s.highlight_row + 1)), hl, 0, 0, 2.0f);
  if (s.highlight_col >= 0 && s.highlight_col < m.cols)
    dl->AddRect(ImVec2(origin.x + cw * s.highlight_col, origin.y), ImVec2(origin.x + cw * (s.highlight_col + 1), grid_max.y), hl, 0, 0, 2.0f);
  for (auto [i, j] : s.edited) {
    if (i >= m.rows || j >= m.cols) continue;
    const ImVec2 tr(origin.x + cw * (j + 1), origin.y + ch * i);
    const float t = std::max(4.0f, std::min(cw, ch) * 0.35f);
    dl->AddTriangleFilled(tr, ImVec2(tr.x - t, tr.y), ImVec2(tr.x, tr.y + t), 0xFF00A5FFu);
  }
  if (s.selected_row >= 0 && s.selected_row < m.rows && s.selected_col >= 0 && s.selected_col < m.cols)
    dl->AddRect(ImVec2(origin.x + cw * s.selected_col, origin.y + ch * s.selected_row),
                ImVec2(origin.x + cw * (s.selected_col + 1), origin.y + ch * (s.selected_row + 1)), 0xFF00FFFFu, 0, 0, 3.0f);

  // [5] colour bar with its range, "fixed" when it is the same whatever the data (comparable)
  if (!s.compact) {
    const float bx = grid_max.x + 4.0f * sc, bw = 8.0f * sc;
    const float top = origin.y, bottom = std::max(grid_max.y, top + 3.0f * fs);
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
    const float small = fs * 0.75f;
    dl->AddText(ImGui::GetFont(), small, ImVec2(bx + bw + 2.0f, top), text_col, hi_s);
    dl->AddText(ImGui::GetFont(), small, ImVec2(bx + bw + 2.0f, bottom - small), text_col, lo_s);
    if (!seq && bottom - top > 4.0f * small)
      dl->AddText(ImGui::GetFont(), small, ImVec2(bx + bw + 2.0f, (top + bottom - small) * 0.5f), 0xFF9A9A9Au,
                  s.range_fixed ? tr("heatmap.fixed") : tr("heatmap.fit"));
    if (s.downsample > 1) {
      const std::string note = trf("heatmap.every", {{"n", s.downsample}});
      dl->AddText(ImGui::GetFont(), small, ImVec2(origin.x, grid_max.y + 1.0f), 0xFF40D0FFu, note.c_str());
    }
  }

  // [6] a readout per row (spread, entropy, max weight), right of the colour bar
  if (!s.compact && s.row_notes) {
    const float nx = grid_max.x + g.bar_w + 2.0f * sc;
    if (s.notes_header) dl->AddText(ImVec2(nx, origin.y - ImGui::GetTextLineHeight() - 1.0f), 0xFF9A9A9Au, s.notes_header);
    const int row_step = ch < fs * 0.8f ? (int)std::ceil(fs / ch) : 1;
    for (int i = 0; i < m.rows && i < (int)s.row_notes->size(); i += row_step)
      dl->AddText(ImVec2(nx, origin.y + ch * i + (ch - fs) * 0.5f), i == s.highlight_row ? 0xFF40D0FFu : 0xFFC8C8C8u,
                  (*s.row_notes)[(size_t)i].c_str());
  }

  // [7] the mouse and the keyboard
  if (!s.compact) {
    const float bx = grid_max.x + 2.0f * sc, bottom = std::max(grid_max.y, origin.y + 3.0f * fs);
    ImGui::SetCursorScreenPos(ImVec2(bx, origin.y));
    ImGui::InvisibleButton("bar", ImVec2(std::max(1.0f, g.bar_w - 2.0f * sc), std::max(1.0f, bottom - origin.y)));
    ev.bar_hovered = ImGui::IsItemHovered();
    ev.bar_clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  }
  ev.cells_min = origin, ev.cell_w = cw, ev.cell_h = ch;
  ImGui::SetCursorScreenPos(origin);
  ImGui::InvisibleButton("cells", ImVec2(std::max(1.0f, grid_max.x - origin.x), std::max(1.0f, grid_max.y - origin.y)));
  if (!heatmap_keyboard(s, origin, cw, ch, ev) && ImGui::IsItemHovered()) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    ev.row = std::clamp((int)((mp.y - origin.y) / ch), 0, m.rows - 1);
    ev.col = std::clamp((int)((mp.x - origin.x) / cw), 0, m.cols - 1);
    ev.hovered = true;
    ev.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    dl->AddRect(ImVec2(origin.x + cw * ev.col, origin.y + ch * ev.row),
                ImVec2(origin.x + cw * (ev.col + 1), origin.y + ch * (ev.row + 1)), 0xFFFFFFFFu, 0, 0, 2.0f);
  }
  // leave the cursor below the whole widget
  // Within the region asked for (a window sized to it does not scroll); 2 px below the cells otherwise.
  ImGui::SetCursorScreenPos(ImVec2(p0.x, s.compact && s.fill ? p0.y + size.y : std::max(grid_max.y + 2.0f, p0.y + size.y)));
  ImGui::Dummy(ImVec2(size.x, 0.0f));
  ImGui::PopID();
  return ev;
}

}  // namespace attnlab
