// The navigation bar under the formula strip: on small screens (or a large UI scale) a tab per panel;
// with a side column, its tabs; on wide screens a button to hide the side panels; always Present
// and Learn (the switch to Learn mode).
#include <iterator>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "imgui_internal.h"
#include "learn.h"
#include "panels.h"

namespace attnlab {

namespace {

// What the bar shows in a layout mode, in order: a tab per panel in tabs mode (the matrices first: a
// phone opens on them); else the side panels' toggle, then in sidebar mode the side column's tabs;
// always Present and Learn. draw_nav_bar draws this list and nav_bar_lines measures it.
struct NavButton {
  enum Kind { tab, side_toggle, present, learn } kind;
  const PaneInfo* pane = nullptr;  // tab: its panel
};
std::vector<NavButton> nav_buttons(const App& app, LayoutMode mode) {
  std::vector<NavButton> out;
  if (mode == LayoutMode::tabs) {
    out.push_back({NavButton::tab, &pane_info(Pane::matrices)});
    for (const PaneInfo& pane : panes())
      if (pane.pane != Pane::matrices) out.push_back({NavButton::tab, &pane});
  } else {
    out.push_back({NavButton::side_toggle});
    if (mode == LayoutMode::sidebar && !app.ui.side_collapsed)
      for (const PaneInfo& pane : panes())
        if (pane.pane != Pane::matrices) out.push_back({NavButton::tab, &pane});
  }
  out.push_back({NavButton::present});
  out.push_back({NavButton::learn});
  return out;
}

const char* label_of(const App& app, const NavButton& b) {
  switch (b.kind) {
    case NavButton::tab: return tr(b.pane->title);
    case NavButton::side_toggle: return app.ui.side_collapsed ? tr("nav.show_side") : tr("nav.hide_side");
    case NavButton::present: return tr("nav.present");
    case NavButton::learn: return tr("nav.learn");
  }
  return "";
}

float button_width(const char* label) { return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x; }

// Buttons flow along the bar and wrap onto a second line when the next would not fit (a phone's
// width): every one stays reachable, none off the edge.
void next_button(bool& first, const char* label) {
  const ImGuiStyle& st = ImGui::GetStyle();
  if (!first) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + button_width(label) <= right) ImGui::SameLine();
  }
  first = false;
}

// One tab-like button; the current one is highlighted. Remembered as "tab_<label>" for tests.
// It says the panel's window title in the current language (the side panels' table, panes.h).
void tab(App& app, const PaneInfo& pane, Pane& current, bool& first) {
  const bool on = pane.pane == current;
  const char* title = tr(pane.title);
  next_button(first, title);
  if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
  ImGui::PushID(pane.label);
  if (ImGui::Button(title)) current = pane.pane;
  ImGui::PopID();
  if (on) ImGui::PopStyleColor();
  remember_item(app, (std::string("tab_") + pane.label).c_str());
}

}  // namespace

// As next_button flows them across a bar W wide: the first button on each line starts it.
int nav_bar_lines(const App& app, LayoutMode mode, float W) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float left = st.WindowPadding.x, right = W - st.WindowPadding.x;
  float x = left;  // where the last button ended
  int lines = 0;
  for (const NavButton& b : nav_buttons(app, mode)) {
    const float w = button_width(label_of(app, b));
    if (lines > 0 && x + st.ItemSpacing.x + w <= right) x += st.ItemSpacing.x + w;
    else x = left + w, ++lines;
  }
  return lines;
}

void draw_nav_bar(App& app) {
  ImGui::Begin("nav", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_HorizontalScrollbar |
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  bool first = true;
  for (const NavButton& b : nav_buttons(app, app.ui.layout)) {
    const char* label = label_of(app, b);
    switch (b.kind) {
      case NavButton::tab:
        tab(app, *b.pane, app.ui.layout == LayoutMode::tabs ? app.ui.pane : app.ui.side_pane, first);
        break;
      case NavButton::side_toggle:
        next_button(first, label);
        if (ImGui::Button(label)) {
          app.ui.side_collapsed = !app.ui.side_collapsed;
          app.layout_dirty = true;
        }
        remember_item(app, "side_panels");
        break;
      case NavButton::present:
        next_button(first, label);
        if (ImGui::Button(tr_id("nav.present", "present"))) {
          app.ui.presenter = true;
          app.ui.fullscreen_request = 1;
        }
        remember_item(app, "present");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("nav.present.tip"));
        break;
      case NavButton::learn:
        next_button(first, label);
        if (ImGui::Button(tr_id("nav.learn", "learn"))) set_learn_mode(app, true);
        remember_item(app, "mode_learn");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("nav.learn.tip"));
        break;
    }
  }
  ImGui::End();
}

}  // namespace attnlab
