// Notices: what the lab has to tell the person — a file saved, input clamped, a link or a file that
// could not be used — as a small window low in the middle of the screen, in every mode (the lab,
// Learn mode, presenter mode) and at every size. A passing notice goes by itself after a few seconds;
// a problem (report_problem) stays, with what was wrong and what opened instead, until it is closed.
// The page mirrors the text into an aria-live region (a11y_json's "notice").
#include <algorithm>

#include "app.h"
#include "i18n.h"
#include "imgui_internal.h"
#include "panels.h"
#include "widgets.h"

namespace attnlab {

void report_problem(App& app, std::string title, std::string detail) {
  app.notice = std::move(detail);
  app.notice_title = std::move(title);
  app.notice_sticky = true;
  app.notice_until = 1e300;
}

bool notice_showing(const App& app) {
  return !app.notice.empty() && (app.notice_sticky || (ImGui::GetCurrentContext() && ImGui::GetTime() < app.notice_until));
}

void draw_notice(App& app) {
  if (!notice_showing(app)) return;
  const ImGuiIO& io = ImGui::GetIO();
  const ImGuiStyle& st = ImGui::GetStyle();
  const float s = app.style_scale;
  const float w = std::min(io.DisplaySize.x - 16.0f * s, 640.0f * s);
  // Centred under the bars at the top: over the inputs row (X, Q, K, V), never over S, masked S and A
  // (the first screen's lesson), nor over the tour's slot.
  const float top = 2.0f * (ImGui::GetFrameHeight() + 2.0f * st.WindowPadding.y) + 4.0f * s;
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, top), ImGuiCond_Always, ImVec2(0.5f, 0.0f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(std::min(w, 200.0f * s), 0), ImVec2(w, io.DisplaySize.y * 0.5f));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, app.notice_sticky ? ImVec4(0.30f, 0.12f, 0.08f, 1.0f) : ImVec4(0.12f, 0.16f, 0.22f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_Border, app.notice_sticky ? ImVec4(1.0f, 0.55f, 0.35f, 1.0f) : ImVec4(0.45f, 0.6f, 0.8f, 1.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, std::max(1.0f, s));
  ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                           ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  if (!app.notice_sticky) flags |= ImGuiWindowFlags_NoInputs;
  if (ImGui::Begin("##notice", nullptr, flags)) {
    ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
    const float wrap = w - 2.0f * st.WindowPadding.x - (app.notice_sticky ? ImGui::GetFrameHeight() + st.ItemSpacing.x : 0.0f);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::min(wrap, ImGui::CalcTextSize(app.notice.c_str()).x + 1.0f));
    if (!app.notice_title.empty()) text_wrapped_colored(ImVec4(1.0f, 0.8f, 0.5f, 1.0f), app.notice_title.c_str());
    text_wrapped_words("%s", app.notice.c_str());
    ImGui::PopTextWrapPos();
    if (app.notice_sticky) {
      if (ImGui::Button(tr_id("notice.ok", "ok"))) app.notice.clear(), app.notice_title.clear(), app.notice_sticky = false;
      remember_item(app, "notice_ok");
    }
  }
  app.widget_rects["notice"] = ImVec4(ImGui::GetWindowPos().x, ImGui::GetWindowPos().y, ImGui::GetWindowSize().x, ImGui::GetWindowSize().y);
  ImGui::End();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);
}

}  // namespace attnlab
