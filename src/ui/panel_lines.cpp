// Lines: queries on the left, keys on the right, a line for each pair whose thickness and opacity
// follow the attention weight; one colour per head.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

// One pass over the row, keeping the strongest in order by insertion (a few). `floor` is the weight a
// key must beat: kFaintest, then the weakest of those kept once there are `count`.
void strongest_keys(const float* row, int m, int count, std::vector<int>& keys) {
  constexpr float kFaintest = 0.02f;  // fainter lines are invisible anyway
  keys.clear();
  if (count <= 0) return;
  float floor = kFaintest;
  for (int j = 0; j < m; ++j) {
    const float w = row[j];
    if (w < floor) continue;
    if (count >= m) {
      keys.push_back(j);
      continue;
    }
    if ((int)keys.size() == count) {
      if (w == floor) continue;
      keys.pop_back();
    }
    size_t at = keys.size();
    keys.push_back(j);
    for (; at > 0 && row[keys[at - 1]] < w; --at) keys[at] = keys[at - 1];
    keys[at] = j;
    if ((int)keys.size() == count) floor = std::max(kFaintest, row[keys.back()]);
  }
}

void draw_lines_panel(App& app) {
  ImGui::Begin(pane_window(Pane::lines));
  const attn::Result& r = app.engine.result();
  app.lines_drawn = 0;
  ImGui::Checkbox(tr_id("lines.all_heads", "all heads"), &app.ui.lines_all_heads);
  remember_item(app, "lines_all_heads");
  help_marker(tr("lines.help"));
  // With one head shown, which one, in its colour (the head the Matrices panel's buttons pick).
  if (!app.ui.lines_all_heads && app.ui.head >= 0 && app.ui.head < r.heads) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(app.ui.head)), "%s", trf("heads.head", {{"h", app.ui.head}}).c_str());
    remember_item(app, "lines_head");
  }
  if (r.n == 0) {
    ImGui::End();
    return;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const int focus = app.ui.hover_token >= 0 ? app.ui.hover_token : app.ui.query;
  const int h0 = app.ui.lines_all_heads ? 0 : app.ui.head, h1 = app.ui.lines_all_heads ? r.heads : app.ui.head + 1;
  const bool many_heads = h1 - h0 > 1;
  // Rows as tall as the panel allows, up to a text line; `above` is what the note over them takes.
  const auto row_height = [&](float above) {
    return std::max(3.0f, std::min(ImGui::GetTextLineHeightWithSpacing(), (ImGui::GetContentRegionAvail().y - above) / (float)std::max(r.n, r.m)));
  };
  // Labels: every token while rows are a text line tall, in type down to 70 % of the UI's as rows get
  // shorter; below that every k-th (and the followed query first, and the keys the lines reach,
  // strongest first).
  const auto label_size = [&](float row_h) { return std::clamp(row_h / 0.95f, 0.7f * fs, fs); };
  const auto label_step = [&](float row_h) { return std::max(1, (int)std::ceil(label_size(row_h) * 0.95f / row_h - 1e-3f)); };

  // With many tokens, only some lines: thousands of crossing lines say nothing (at 103 tokens and eight
  // heads, 2472 of them filled the panel with one colour, and cost a software GPU 25-30 ms a frame). Each
  // query's strongest 3 keys, or with every head shown each head's strongest; and where rows are too
  // short to label every query, only the labelled queries' lines, so each line starts at a name. A note
  // above the lines says which (wrapped: it was drawn over them, and cut at the panel's edge).
  const bool many_tokens = r.n > 24, limited = many_tokens && focus < 0;
  const char* note = nullptr;
  float row_h = row_height(0.0f);
  if (many_tokens) {
    // While a token is followed the note says so, in the room the other note takes (or more): the rows
    // do not move under the pointer.
    const float wrap_w = std::max(1.0f, ImGui::GetContentRegionAvail().x), gap = ImGui::GetStyle().ItemSpacing.y;
    const char* followed = tr("lines.followed");
    const auto height = [&](const char* text) { return ImGui::CalcTextSize(text, nullptr, false, wrap_w).y; };
    float room = 0.0f;
    for (int pass = 0; pass < 2; ++pass) {  // the note's height sets the rows', which set whether labels thin out
      const bool thinned = label_step(row_h) > 1;
      note = many_heads ? (thinned ? tr("lines.strongest_heads_labelled") : tr("lines.strongest_heads"))
                        : (thinned ? tr("lines.strongest_labelled") : tr("lines.strongest"));
      room = std::max(height(note), height(followed));
      row_h = row_height(room + gap);
    }
    if (focus >= 0) note = followed;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", note);
    ImGui::PopStyleColor();
    remember_item(app, "lines_note");
    ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + room + gap));
  }
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = std::min(avail.x * 0.3f, 110.0f * app.style_scale);
  const float left_x = p0.x + label_w, right_x = p0.x + avail.x - label_w;
  const auto y_of = [&](int i) { return p0.y + row_h * (i + 0.5f); };

  app.lines_key_labels.clear();
  app.lines_query_labels.clear();
  const float lfs = label_size(row_h);
  ImFont* font = ImGui::GetFont();
  const auto place_labels = [&](const std::vector<std::string>& names, int count, std::vector<int> first, float x, bool right_side) {
    // Then every k-th query; on the keys' side, every key that still has room between the names the
    // lines asked for (without lines, that too is every k-th).
    const int step = right_side ? 1 : label_step(row_h);
    for (int i = 0; i < count; i += step) first.push_back(i);
    std::vector<float> taken;
    for (int i : first) {
      if (i < 0 || i >= count || i >= (int)names.size()) continue;
      const float y = y_of(i);
      if (std::any_of(taken.begin(), taken.end(), [&](float t) { return std::fabs(t - y) < lfs * 0.95f - 1e-3f; })) continue;
      taken.push_back(y);
      (right_side ? app.lines_key_labels : app.lines_query_labels).push_back(i);
      const char* t = names[(size_t)i].c_str();
      const float w = font->CalcTextSizeA(lfs, FLT_MAX, 0.0f, t).x;
      const bool lit = right_side ? false : i == focus;
      dl->AddText(font, lfs, ImVec2(right_side ? x + 4.0f : x - w - 4.0f, y - lfs * 0.5f), lit ? 0xFF40D0FFu : 0xFFE0E0E0u, t);
    }
  };
  place_labels(app.labels, r.n, focus >= 0 ? std::vector<int>{focus} : std::vector<int>{}, left_x, false);

  const float max_w = 6.0f * app.style_scale;
  const int per_query = limited ? (many_heads ? 1 : 3) : r.m;
  std::vector<char> drawn_query((size_t)r.n, limited ? 0 : 1);
  if (limited)
    for (int i : app.lines_query_labels) drawn_query[(size_t)i] = 1;
  // The lines, gathered before the keys are named: the keys they reach are named first, the strongest
  // first, then any other key with room (place_labels). Every k-th key alone left most lines ending at a
  // key with no name, which says nothing about the word a line points at. A line wholly above or below
  // the panel's visible part is not drawn: with a hundred tokens the rows run past the bottom.
  struct Line {
    float yi, yj, thick;
    ImU32 color;
  };
  std::vector<Line> lines;
  std::vector<float> reach((size_t)r.m, 0.0f);  // the strongest line to each key
  const float clip_top = dl->GetClipRectMin().y, clip_bottom = dl->GetClipRectMax().y;
  std::vector<int> keys;
  keys.reserve((size_t)r.m);
  for (int h = h0; h < h1; ++h) {
    const attn::MatView a = r.weights_head(h);
    const ImU32 opaque = head_color(h, 1.0f);
    for (int i = 0; i < r.n; ++i) {
      if ((focus >= 0 && i != focus) || !drawn_query[(size_t)i]) continue;
      const float* row = a.data + (size_t)i * a.ld;
      // Only the keys the mask lets this query see can have weight (a causal row: half of them).
      const attn::Range span = (size_t)i < r.mask.ranges.size() ? r.mask.ranges[(size_t)i] : attn::Range{0, r.m};
      const int lo = std::clamp(span.lo, 0, r.m), hi = std::clamp(span.hi, lo, r.m);
      strongest_keys(row + lo, hi - lo, per_query, keys);
      for (int& j : keys) j += lo;
      const float yi = y_of(i);
      for (int j : keys) {
        const float yj = y_of(j), w = row[j];
        reach[(size_t)j] = std::max(reach[(size_t)j], w);
        const float thick = std::max(1.0f, std::round(w * max_w));
        if (std::max(yi, yj) + thick < clip_top || std::min(yi, yj) - thick > clip_bottom) continue;
        const float alpha = std::min(1.0f, 0.15f + w);
        const ImU32 line_color = (opaque & ~IM_COL32_A_MASK) | ((ImU32)(alpha * (float)(opaque >> IM_COL32_A_SHIFT) + 0.5f) << IM_COL32_A_SHIFT);
        lines.push_back({yi, yj, thick, line_color});
      }
    }
  }
  std::vector<int> key_first;
  for (int j = 0; j < r.m; ++j)
    if (reach[(size_t)j] > 0.0f) key_first.push_back(j);
  std::stable_sort(key_first.begin(), key_first.end(), [&](int a, int b) { return reach[(size_t)a] > reach[(size_t)b]; });
  place_labels(app.source_labels, r.m, key_first, right_x, true);
  // Whole-pixel widths: Dear ImGui then draws an anti-aliased line as one textured quad (4 vertices)
  // instead of building its fringe from geometry.
  for (const Line& l : lines) dl->AddLine(ImVec2(left_x, l.yi), ImVec2(right_x, l.yj), l.color, l.thick);
  app.lines_drawn = (int)lines.size();
  // Hover a query label to follow its lines. Where a name is taller than its row, the first name's
  // top and the last one's bottom lie outside the rows: the hit area takes them in (pointing at the
  // bottom of the last name followed nothing). "lines_queries" stays the rows themselves.
  const float name_overhang = std::max(0.0f, (lfs - row_h) * 0.5f);
  ImGui::SetCursorScreenPos(ImVec2(p0.x, p0.y - name_overhang));
  ImGui::InvisibleButton("queries", ImVec2(std::max(1.0f, label_w), std::max(1.0f, row_h * r.n + 2.0f * name_overhang)));
  remember_rect(app, "lines_queries", p0, ImVec2(p0.x + label_w, p0.y + row_h * r.n));
  if (ImGui::IsItemHovered()) {
    // The row under the pointer; where rows are shorter than a name, the name under it: the nearest of
    // the every-k-th queries named when none is followed (a 3-pixel row would pick a neighbour of the
    // name the person points at, whose label would then replace the names around it).
    const float row = (ImGui::GetIO().MousePos.y - p0.y) / row_h;
    const int step = label_step(row_h);
    int i = step > 1 ? (int)std::lround((row - 0.5f) / (float)step) * step : (int)row;
    if (i > r.n - 1) i -= step > 1 ? step : 0;  // (the last name is at or before the last row)
    i = std::clamp(i, 0, r.n - 1);
    app.ui.hover_token_next = i;
    if (ImGui::IsItemClicked()) app.ui.query = app.ui.query == i ? -1 : i;
  }
  ImGui::End();
}

}  // namespace attnlab
