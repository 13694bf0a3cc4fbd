// The navigation bar under the formula strip: on small screens (or a large UI scale) a tab per panel;
// with a side column, its tabs; on wide screens a button to hide the side panels; always Present
// and Learn (the switch to Learn mode).
#include <iterator>

#include "app.h"
#include "i18n.h"
#include "imgui_internal.h"
#include "learn.h"
#include "panels.h"

namespace attnlab {

namespace {

// Buttons flow along the bar and wrap onto a second line when the next would not fit (a phone's
// width): every one stays reachable, none off the edge.
void next_button(bool& first, const char* label) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float w = ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * st.FramePadding.x;
  if (!first) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right) ImGui::SameLine();
  }
  first = false;
}

// One tab-like button; the current one is highlighted. Remembered as "tab_<label>" for tests.
// It says the panel's window title in the current language (the side-panel table, layout.cpp).
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

void draw_nav_bar(App& app) {
  ImGui::Begin("nav", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_HorizontalScrollbar |
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  bool first = true;
  if (app.ui.layout == LayoutMode::tabs) {
    // A tab per panel, the matrices first (a phone opens on them), then the side panels in the table's order.
    tab(app, pane_info(Pane::matrices), app.ui.pane, first);
    for (const PaneInfo& pane : panes())
      if (pane.pane != Pane::matrices) tab(app, pane, app.ui.pane, first);
  } else {
    const char* side = app.ui.side_collapsed ? tr("nav.show_side") : tr("nav.hide_side");
    next_button(first, side);
    if (ImGui::Button(side)) {
      app.ui.side_collapsed = !app.ui.side_collapsed;
      app.layout_dirty = true;
    }
    remember_item(app, "side_panels");
    if (app.ui.layout == LayoutMode::sidebar && !app.ui.side_collapsed)
      for (const PaneInfo& pane : panes())
        if (pane.pane != Pane::matrices) tab(app, pane, app.ui.side_pane, first);
  }
  next_button(first, tr("nav.present"));
  if (ImGui::Button(tr_id("nav.present", "present"))) {
    app.ui.presenter = true;
    app.ui.fullscreen_request = 1;
  }
  remember_item(app, "present");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("nav.present.tip"));
  next_button(first, tr("nav.learn"));
  if (ImGui::Button(tr_id("nav.learn", "learn"))) set_learn_mode(app, true);
  remember_item(app, "mode_learn");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("nav.learn.tip"));
  ImGui::End();
}

}  // namespace attnlab
