// panel_learn.cpp — Learn mode's windows: the layout (Training, Curves, Attention on a probe side by
// side, or one at a time under tabs), the title strip, the Lab | Learn switch and the keys. What each
// window draws is in its own file (panel_learn.h); the state and the time slicing live in learn.cpp.
#include <algorithm>
#include <string>

#include "app.h"
#include "app_parts.h"
#include "imgui_internal.h"  // BringWindowToDisplayFront
#include "learn.h"
#include "i18n.h"
#include "panel_learn.h"

namespace attnlab {

namespace {

// [SECTION] layout
float strip_height() {
  const ImGuiStyle& st = ImGui::GetStyle();
  return std::max(st.WindowMinSize.y, ImGui::GetFrameHeight() + 2.0f * st.WindowPadding.y);
}

// Learn mode's windows are placed with place(app, r, Pin::relayout) (app.h): they keep where the person
// put them until the layout changes, whatever the lab's layout mode.

void handle_learn_keys(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  LearnState& L = learn_state(app);
  for (ImWchar c : io.InputQueueCharacters) {
    if (c == ' ') L.run().running ? learn_pause(app) : (void)learn_train(app);
    if (c == '.') learn_step(app);
  }
}

}  // namespace

// [SECTION] windows
void set_learn_mode(App& app, bool learn) {
  if (app.ui.learn_mode == learn) return;
  app.ui.learn_mode = learn;
  app.layout_dirty = true;
  learn_state(app);  // Learn mode opens with the first task's settings
}

void draw_mode_switch(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImGuiStyle& st = ImGui::GetStyle();
  const char* labels[] = {tr_id("learn.mode.lab", "mode_lab"), tr_id("learn.mode.learn", "mode_learn")};
  const float bw = std::max(ImGui::CalcTextSize(labels[0], nullptr, true).x, ImGui::CalcTextSize(labels[1], nullptr, true).x) +
                   2.0f * st.FramePadding.x;
  const float w = 2.0f * bw + st.ItemSpacing.x + 2.0f * st.WindowPadding.x + ImGui::CalcTextSize(tr("learn.mode")).x + st.ItemSpacing.x;
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - w, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(w, strip_height()), ImGuiCond_Always);
  ImGui::Begin("##mode", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing);
  ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", tr("learn.mode"));
  for (int k = 0; k < 2; ++k) {
    const bool on = (k == 1) == app.ui.learn_mode;
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Button, on ? st.Colors[ImGuiCol_ButtonActive] : st.Colors[ImGuiCol_FrameBg]);
    if (ImGui::Button(labels[k], ImVec2(bw, 0))) set_learn_mode(app, k == 1);
    ImGui::PopStyleColor();
    remember_item(app, k ? "mode_learn" : "mode_lab");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", k ? tr("nav.learn.tip") : tr("learn.mode.lab.tip"));
  }
  ImGui::End();
}

void draw_learn_mode(App& app) {
  LearnState& L = learn_state(app);
  handle_learn_keys(app);
  const ImGuiIO& io = ImGui::GetIO();
  const float s = app.style_scale, W = io.DisplaySize.x, H = io.DisplaySize.y, top = strip_height();
  const float left_w = std::clamp(W * 0.26f, 280.0f * s, 420.0f * s), right_w = std::max(200.0f, W - left_w);
  // Side by side while the curves and the probe keep a readable width; else (phones, a large UI
  // scale) one window at a time under a row of tabs, like the lab's tabs layout.
  const bool narrow = right_w < 420.0f * s;

  place(app, WinRect{0, 0, W, top}, Pin::relayout);
  ImGui::Begin("Learn##strip", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(narrow ? tr("learn.title.short") : tr("learn.title"));
  ImGui::End();

  float body_top = top;
  if (narrow) {
    place(app, WinRect{0, top, W, top}, Pin::relayout);
    ImGui::Begin("Learn##tabs", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    const char* names[] = {"Training", "Curves", "Attention"};  // the widgets' names (tests, tours)
    const char* labels[] = {tr_id("learn.tab.training", "learn_tab_training"), tr_id("learn.tab.curves", "learn_tab_curves"),
                            tr_id("learn.tab.attention", "learn_tab_attention")};
    for (int k = 0; k < 3; ++k) {
      if (k) ImGui::SameLine();
      const bool on = L.tab == k;
      if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
      if (ImGui::Button(labels[k])) L.tab = k, app.layout_dirty = true;
      if (on) ImGui::PopStyleColor();
      remember_item(app, (std::string("learn_tab_") + names[k]).c_str());
    }
    ImGui::End();
    body_top += top;
  }
  // The curves take more height when their four plots wrap into two rows (draw_curves' rule, ~12
  // text heights per plot).
  const bool two_rows = right_w < 52.0f * ImGui::GetFontSize();
  const float body_h = H - body_top, curves_h = body_h * (two_rows ? 0.46f : 0.38f);
  // The open tour's slot: the lower part of the Training column (its run buttons and the experiments
  // stay in view above it), or a strip across the bottom under tabs.
  const bool dock_tour = app.ui.show_tour && !app.ui.tour_moved;
  const float tour_h = dock_tour ? (narrow ? std::min(0.4f * (H - body_top), 320.0f * s) : 0.42f * body_h) : 0.0f;
  app.tour_slot = !dock_tour ? WinRect{} : narrow ? WinRect{0, H - tour_h, W, tour_h} : WinRect{0, body_top + body_h - tour_h, left_w, tour_h};
  const auto window = [&](int tab, const char* name, float x, float y, float w, float h, auto&& draw) {
    if (narrow && L.tab != tab) return;
    if (narrow) x = 0, y = body_top, w = W, h = body_h - tour_h;
    place(app, WinRect{x, y, w, h}, Pin::relayout);
    resume_text_capture(app);  // attnlab.drawnText() reads the window from its first line, as the lab's panels
    ImGui::Begin(name);
    draw();
    ImGui::End();
  };
  window(0, tr_id("window.learn.training", "Training"), 0, body_top, left_w, body_h - tour_h, [&] {
    // The run's buttons and status first, always in view (as a player's controls are); the settings
    // scroll below them, however much an experiment or a task adds. Where the status leaves them less
    // than a third of the window (a projector's UI scale 2 left them a strip a few pixels tall, the
    // experiments' menu out of reach), the whole window scrolls instead, settings and all.
    draw_learn_run_controls(app, L);
    ImGui::Separator();
    const bool own_scroll = ImGui::GetContentRegionAvail().y >= ImGui::GetWindowHeight() / 3.0f;
    if (own_scroll) ImGui::BeginChild("settings");
    draw_learn_settings(app, L);
    if (own_scroll) ImGui::EndChild();
  });
  window(1, tr_id("window.learn.curves", "Curves"), left_w, body_top, right_w, curves_h, [&] { draw_learn_curves(app, L); });
  window(2, tr_id("window.learn.probe", "Attention on a probe"), left_w, body_top + curves_h, right_w, body_h - curves_h, [&] {
    if (draw_inspect_switch(app)) draw_inspect(app);
    else draw_learn_probe(app, L);
  });

  draw_mode_switch(app);
}

}  // namespace attnlab
