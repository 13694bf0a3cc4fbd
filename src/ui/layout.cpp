// layout.cpp — where the panels go: the layout rule (choose_layout), placing a window (place), keeping
// floating windows on screen, and remembering where windows and named controls were drawn.
#include <algorithm>
#include <cstring>
#include <string>

#include "app.h"
#include "app_parts.h"
#include "panels.h"
#include "imgui_internal.h"

namespace attnlab {

const char* layout_mode_name(LayoutMode m) {
  switch (m) {
    case LayoutMode::columns: return "columns";
    case LayoutMode::sidebar: return "sidebar";
    case LayoutMode::tabs: return "tabs";
  }
  return "?";
}

// The rule (docs/web-api.md, tested at 390×844 … 3840×2160 and UI scale 1–3):
//   * the matrices get at least kMinMatrices × UI scale pixels of width (room for three blocks of a
//     short sentence side by side with readable cells); the side panels get 250–420 × UI scale each;
//   * three columns when both side columns and the matrices fit; else one side column whose tabs
//     switch between the side panels; else (phones, or a big UI scale on a small screen) one panel at
//     a time under a tab bar;
//   * every window lies inside the display; content taller or wider than its window scrolls.
Placement choose_layout(const App& app, float W, float H) {
  const float s = app.style_scale;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float min_h = st.WindowMinSize.y;
  constexpr float kMinMatrices = 560.0f;
  Placement P;
  // The formula strip, with room for its scrollbar when its contents are wider than the screen.
  // Bars one line high, plus room for a horizontal scrollbar when their contents are wider than W.
  const auto bar = [&](const char* name, float line) {
    const ImGuiWindow* w = ImGui::FindWindowByName(name);
    const bool wide = w && w->ContentSize.x + 2.0f * st.WindowPadding.x > W + 0.5f;
    return std::max(min_h, line + 2.0f * st.WindowPadding.y) + (wide ? st.ScrollbarSize : 0.0f);
  };
  const float top = bar("pipeline", ImGui::GetFrameHeight());
  // The mode depends on the width alone; the nav bar's buttons depend on the mode.
  const float col_w = std::clamp(W * 0.22f, 250.0f * s, 380.0f * s);
  const float right_w = std::clamp(W * 0.22f, 250.0f * s, 420.0f * s);
  const float side_w = std::clamp(W * 0.30f, 260.0f * s, 420.0f * s);
  if (W >= col_w + right_w + kMinMatrices * s) P.mode = LayoutMode::columns;
  else if (W >= side_w + kMinMatrices * s) P.mode = LayoutMode::sidebar;
  else P.mode = LayoutMode::tabs;
  // The nav bar is as many lines tall as its buttons wrap into this frame (one where they fit across).
  const float nav_lines = (float)nav_bar_lines(app, P.mode, W);
  const float nav = bar("nav", nav_lines * ImGui::GetFrameHeight() + (nav_lines - 1.0f) * st.ItemSpacing.y);
  const float bottom = bar("status", ImGui::GetTextLineHeight());
  P.pipeline = {0, 0, W, top};
  P.nav = {0, top, W, nav};
  const float y0 = top + nav, body_h = std::max(min_h, H - y0 - bottom);
  P.status = {0, H - bottom, W, bottom};

  // The open tour has a slot of its own in every layout, so it never covers what a step asks the
  // learner to look at (a tour the learner dragged floats where they put it).
  const bool dock_tour = app.ui.show_tour && !app.ui.tour_moved;
  WinRect body{0, y0, W, body_h};
  if (P.mode == LayoutMode::tabs) {
    // A large UI scale on a small screen: the status line gives its room to the panel.
    if (body_h < 0.5f * H) P.status = {}, body.h = H - y0;
    if (dock_tour) {  // a strip across the bottom, a third of the screen whatever the step (its text scrolls):
      // a strip as tall as each step's text moved Next with every step, and taps in a row missed it
      if (P.status.w > 0) body.h += P.status.h, P.status = {};  // the status line gives its room to the panel and the tour
      const float h = 0.34f * H;
      body.h -= h;
      P.tour = {0, body.y + body.h, W, h};
    }
    P[app.ui.pane < Pane::count ? app.ui.pane : Pane::matrices] = body;
    return P;
  }
  if (app.ui.side_collapsed) {
    WinRect& matrices = P[Pane::matrices] = body;
    if (dock_tour) matrices.w -= right_w, P.tour = {W - right_w, y0, right_w, body_h};
    return P;
  }
  if (P.mode == LayoutMode::sidebar) {
    const float side_h = dock_tour ? body_h * 0.5f : body_h;
    const WinRect side{0, y0, side_w, side_h};
    if (dock_tour) P.tour = {0, y0 + side_h, side_w, body_h - side_h};
    const Pane sp = app.ui.side_pane;  // the side column holds any panel but the matrices
    P[sp < Pane::count && sp != Pane::matrices ? sp : Pane::input] = side;
    P[Pane::matrices] = {side_w, y0, W - side_w, body_h};
    return P;
  }
  // Three columns: each panel in its column (panes.h), stacked top-down in the table's order, each as
  // tall as its share. A docked tour takes the rest of the right column (the panels there give it
  // room by their share_with_tour: the Lines panel all of its own, as no step looks at the lines).
  const float mid_w = W - col_w - right_w;
  const float column_x[] = {0.0f, col_w, col_w + mid_w}, column_w[] = {col_w, mid_w, right_w};
  float taken[] = {0.0f, 0.0f, 0.0f};  // each column's share given out so far
  for (const PaneInfo& pane : panes()) {
    const int c = (int)pane.column;
    const float share = dock_tour ? pane.share_with_tour : pane.share;
    if (share > 0.0f) P[pane.pane] = {column_x[c], y0 + body_h * taken[c], column_w[c], body_h * share};
    taken[c] += share;
  }
  const int right = (int)Column::right;
  if (dock_tour) P.tour = {column_x[right], y0 + body_h * taken[right], right_w, body_h * (1.0f - taken[right])};
  return P;
}

void place(App& app, const WinRect& r, Pin pin) {
  const bool every_frame = pin == Pin::layout && app.ui.layout != LayoutMode::columns;
  if (pin == Pin::layout) resume_text_capture(app);
  const ImGuiCond cond = app.relayout || every_frame ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), cond);
}

// Floating windows (help, tour) are sized by their panels for a 1× UI; on a small screen or a large
// scale they would leave it. Limit their size to the display, and bring them back inside if they are out.
void keep_on_screen(App& app, const char* name) {
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float margin = 4.0f * app.style_scale;
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(std::max(50.0f, d.x - 2 * margin), std::max(50.0f, d.y - 2 * margin)));
  if (ImGuiWindow* w = find_window(name)) {
    const ImVec2 size(std::min(w->Size.x, d.x - 2 * margin), std::min(w->Size.y, d.y - 2 * margin));
    const ImVec2 pos(std::clamp(w->Pos.x, margin, std::max(margin, d.x - margin - size.x)),
                     std::clamp(w->Pos.y, margin, std::max(margin, d.y - margin - size.y)));
    if (pos.x != w->Pos.x || pos.y != w->Pos.y) ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  }
}

// Every visible top-level window's rectangle, for layout_json (tests check nothing leaves the screen).
void remember_windows(App& app) {
  app.window_rects.clear();
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (!w->Active || w->Hidden || w->IsFallbackWindow || (w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup)))
      continue;
    const bool scrolls = w->ScrollMax.y > 0.0f || w->ScrollMax.x > 0.0f;
    // A translated window is named "title###id" (i18n.h tr_id): tests and the page API see the id.
    const char* id = std::strstr(w->Name, "###");
    app.window_rects.push_back({id ? id + 3 : w->Name, w->Pos.x, w->Pos.y, w->Size.x, w->Size.y, scrolls && !(w->Flags & ImGuiWindowFlags_NoScrollbar) ? 1 : scrolls ? 2 : 0,
                                w->ContentSize.x > w->ContentRegionRect.GetWidth() + 1.0f && !(w->Flags & ImGuiWindowFlags_HorizontalScrollbar)});
  }
}

ImGuiWindow* find_window(const char* id) {
  if (ImGuiWindow* w = ImGui::FindWindowByName((std::string("###") + id).c_str())) return w;
  return ImGui::FindWindowByName(id);
}

void remember_item(App& app, const char* name) {
  resume_text_capture(app);
  remember_rect(app, name, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

void remember_rect(App& app, const char* name, ImVec2 a, ImVec2 b) {
  app.widget_rects[name] = ImVec4(a.x, a.y, b.x - a.x, b.y - a.y);
  // The part not clipped by its window (what the page may cover with an HTML element), this frame only.
  const ImRect clip = ImGui::GetCurrentWindow()->ClipRect;
  const ImVec2 lo(std::max(a.x, clip.Min.x), std::max(a.y, clip.Min.y)), hi(std::min(b.x, clip.Max.x), std::min(b.y, clip.Max.y));
  if (hi.x > lo.x && hi.y > lo.y) app.widget_visible[name] = ImVec4(lo.x, lo.y, hi.x - lo.x, hi.y - lo.y);
}

}  // namespace attnlab
