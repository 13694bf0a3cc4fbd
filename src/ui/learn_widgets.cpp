// learn_widgets.cpp — the drawing pieces Learn mode's windows and the Inspect view share (learn_widgets.h).
#include "learn_widgets.h"

#include "app.h"
#include "imgui_internal.h"  // the window's text wrap position
#include "colormap.h"
#include "heatmap.h"
#include "i18n.h"
#include "widgets.h"

namespace attnlab {

void remember_rect(App& app, const std::string& name, ImVec2 a, ImVec2 b) {
  app.widget_rects[name] = ImVec4(a.x, a.y, b.x - a.x, b.y - a.y);
}

// The lab's heatmap in its compact mode (no labels, no colour bar, no numbers), its cells filling `size`.
Thumbnail thumbnail(App& app, const float* w, int n, int m, const attn::MaskMatrix* mask, ImVec2 size, float range) {
  HeatmapSpec s;
  s.id = "##cells";
  s.m = attn::MatView{w, n, m, m};
  s.cmap = range > 0 ? Colormap::diverging : Colormap::sequential;
  s.range = range > 0 ? range : 1.0f;
  s.mask = mask;
  s.compact = true;
  s.fill = true;
  // One texture, not a rectangle per cell: four heads of 32 tokens were 16 k vertices a frame, half of
  // Learn mode's, which a software GL draws on the cores training needs. Its key is its place (the
  // caller's ID scope: one thumbnail each), its version its numbers (a new state brings new arrays).
  uint64_t version = hash_bytes(0x9E3779B97F4A7C15ull, w, sizeof(float) * (size_t)n * (size_t)m);
  if (mask) version = hash_bytes(version, mask->allowed.data(), mask->allowed.size());
  s.texture = heatmap_colors(app.heatmaps, app.textures, ImGui::GetID("##cells"), s.m, s.cmap, mask, s.range, version).texture;
  const HeatmapEvent ev = draw_heatmap(s, size);
  Thumbnail t;
  t.min = ev.cells_min;
  t.max = ImVec2(ev.cells_min.x + ev.cell_w * (float)m, ev.cells_min.y + ev.cell_h * (float)n);
  if (ev.hovered) t.row = ev.row, t.col = ev.col;
  return t;
}

void same_line_if_room(float width, float spacing) {
  const float gap = spacing >= 0.0f ? spacing : ImGui::GetStyle().ItemSpacing.x;
  // The right edge: where text wraps when a position is pushed (a readout that keeps room for its "(?)"),
  // else the window's.
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  const float right = w->DC.TextWrapPos > 0.0f ? w->Pos.x - w->Scroll.x + w->DC.TextWrapPos : ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + width <= right + 0.5f) ImGui::SameLine(0, gap);
}

bool view_buttons(App& app, std::span<const ViewButton> buttons, int& current) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  bool clicked = false;
  for (int k = 0; k < (int)buttons.size(); ++k) {
    const char* label = buttons[(size_t)k].label.c_str();
    const float w = ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * st.FramePadding.x;
    if (k && ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right_edge) ImGui::SameLine();
    const bool on = current == k;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(label)) current = k, clicked = true;
    if (on) ImGui::PopStyleColor();
    remember_item(app, buttons[(size_t)k].widget.c_str());
  }
  return clicked;
}

void colour_scale(float width, float range, const char* note) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight() * 0.6f;
  if (range > 0) ImGui::Text("%.2g", -range);
  else ImGui::TextUnformatted(tr("learn.scale.weight_zero"));
  same_line_if_room(width);
  const ImVec2 b = ImGui::GetCursorScreenPos();
  const int k = 32;
  for (int i = 0; i < k; ++i)
    dl->AddRectFilled(ImVec2(b.x + width * i / k, b.y + h * 0.4f), ImVec2(b.x + width * (i + 1) / k + 1, b.y + h * 1.4f),
                      range > 0 ? colormap(Colormap::diverging, 2.0f * i / (k - 1) - 1.0f)
                                : colormap(Colormap::sequential, (float)i / (k - 1)));
  ImGui::Dummy(ImVec2(width, h));
  // Beside the bar when 8 em are left (text_wrapped_words never wraps narrower), else below it.
  same_line_if_room(ImGui::CalcTextSize("0.00   ").x + 8.0f * ImGui::GetFontSize());
  ImGui::PushTextWrapPos(0.0f);  // the note wraps at the window's edge (a narrow window, a longer language)
  ImGui::BeginGroup();           // its lines line up beside the bar
  if (note) text_wrapped_words("%.2g   %s", range > 0 ? range : 1.0f, note);
  else if (range > 0) text_wrapped_words("%.2g   %s", range, tr("learn.scale.every_head"));
  else text_wrapped_words("1   %s", tr("learn.scale.every_thumbnail"));
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
}
}  // namespace attnlab
