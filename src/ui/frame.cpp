// frame.cpp — the one frame function both shells call (frame(App&)), what it records at its end, the
// frame statistics, whether another frame is due (needs_redraw), and the text capture for tests.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>
#include <vector>

#include "app.h"
#include "app_parts.h"
#include "export.h"
#include "heatmap.h"
#include "imgui_internal.h"
#include "learn.h"
#include "panels.h"

namespace attnlab {

// [SECTION] frame statistics
void FrameStats::add(float frame_ms, bool startup_frame) {
  if (startup == next) startup = -1;  // overwritten
  if (startup_frame) startup = next;
  ms[next] = frame_ms;
  next = (next + 1) % kWindow;
  count = std::min(count + 1, kWindow);
  ++frames;
}

float FrameStats::percentile(float p, bool steady) const {
  if (count == 0) return 0.0f;
  std::vector<float> v(ms, ms + count);
  if (steady && startup >= 0 && count > 1) v.erase(v.begin() + startup);
  const size_t k = std::min((size_t)std::lround(p * (float)(v.size() - 1)), v.size() - 1);
  std::nth_element(v.begin(), v.begin() + (long)k, v.end());
  return v[k];
}

// [SECTION] text capture (attnlab.drawnText(), for tests)
// Dear ImGui's log records every text a widget renders, but it is scoped to one window: each top-level
// End() finishes it, handing a "clipboard" log to io.SetClipboardTextFn. So for the capture frame the
// clipboard function collects the pieces, and the log is started again before each panel (place())
// and after each remembered widget (remember_item()). Depth 0: the log opens no tree node.
namespace {
struct SavedClipboard {
  void (*set)(void*, const char*) = nullptr;
  void* user = nullptr;
} saved_clipboard;

void begin_text_capture(App& app) {
  ImGuiIO& io = ImGui::GetIO();
  saved_clipboard = {io.SetClipboardTextFn, io.ClipboardUserData};
  app.drawn_text.clear();
  io.ClipboardUserData = &app;
  io.SetClipboardTextFn = [](void* user, const char* text) {
    std::string& out = static_cast<App*>(user)->drawn_text;
    out += text;
    out += '\n';
  };
  ImGui::LogToClipboard(0);
}

void end_text_capture(App& app) {
  ImGui::LogFinish();
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = saved_clipboard.set;
  io.ClipboardUserData = saved_clipboard.user;
  app.capture_text = false;
}

// The end of every frame, in either mode.
void end_frame(App& app, uint64_t version_at_start) {
  if (app.capture_text) end_text_capture(app);
  step_png_request(app);  // the block rects are this frame's
  remember_windows(app);  // every window drawn this frame, the tour and the notice included
  heatmap_collect_garbage(app.heatmaps, app.textures);
  app.tooltip_shown = false;  // any tooltip or hover card this frame (a finger that lifted must leave none)
  app.windows_settling = false;  // a window that appeared this frame is measured first and shown the next
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (w->Active && !w->Hidden && (w->Flags & ImGuiWindowFlags_Tooltip)) app.tooltip_shown = true;
    if (w->Active && !(w->Flags & ImGuiWindowFlags_ChildWindow) && (w->Appearing || w->HiddenFramesCannotSkipItems > 0))
      app.windows_settling = true;
  }
  app.drawn_version = version_at_start;
  if (app.ui.presenter && !app.big_font) app.fonts_dirty = true;  // presenter mode's type, for the next frame
  // A flash fades: frames until it is gone, and once more after. A notice does not move: one frame when
  // its time is up takes it away (until then an idle lab draws nothing, where it drew every frame for the
  // notice's 8-15 s).
  const double now = ImGui::GetTime();
  app.animate_for = app.ui.focus_until > now ? app.ui.focus_until - now + 0.1 : 0.0;
  app.notice_ends_in = !app.notice.empty() && !app.notice_sticky && app.notice_until > now ? app.notice_until - now : -1.0;
}

}  // namespace

void resume_text_capture(App& app) {
  if (app.capture_text && !ImGui::GetCurrentContext()->LogEnabled) ImGui::LogToClipboard(0);
}

// [SECTION] the frame
void frame(App& app) {
  for (ViewRect& v : app.view_rects) v.drawn_last = v.drawn, v.drawn = false;
  app.widget_visible.clear();
  app.status_shows_first_frame = false;  // (until the status bar, if drawn, says otherwise)
  // Panels drawn before this frame's sync show the previous result: if it changes during the
  // frame, the frame is not the final picture, so needs_redraw() asks for another.
  uint64_t version_at_start = app.result_version;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.DisplaySize.x != app.last_display_size.x || io.DisplaySize.y != app.last_display_size.y) {
    app.layout_dirty = true;
    app.last_display_size = io.DisplaySize;
  }
  // A layout change asked for during a frame (a button that hides the side panels, a mode switch) is
  // applied from the next frame's start, when every window is placed afresh.
  app.relayout = std::exchange(app.layout_dirty, false);
  // Hovers found while drawing last frame drive this frame's highlights.
  app.ui.hover = app.ui.hover_next;
  app.ui.hover_token = app.ui.hover_token_next;
  app.ui.hover_next = {};
  app.ui.hover_token_next = -1;

  // A PNG on its way: no hover card, tooltip or highlight under the pointer lands in the picture.
  if (png_request_pending(app)) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  if (app.labels_version != app.result_version) refresh_labels(app);
  if (app.capture_text) begin_text_capture(app);
  handle_shortcuts(app);
  const uint64_t before_learn = app.result_version;
  learn_tick(app);  // training takes its slice of the frame whichever mode is shown
  // Training's new state lands before any panel is drawn: this frame is its picture, and it asks for
  // no other (a thread's training asks for frames at its own pace: learn_wants_frame).
  if (version_at_start == before_learn) version_at_start = app.result_version;
  // The windows of a mode that comes back take the front as they reappear: the tour goes back in front
  // of them, whichever way the mode changed (a key, a button, Open in the lab, a tour step).
  if (app.ui.learn_mode != app.drawn_learn_mode) app.ui.tour_raise = 2, app.drawn_learn_mode = app.ui.learn_mode;
  // The tour opening, closing or being dragged out of its slot changes every panel's place.
  if (const bool docked = app.ui.show_tour && !app.ui.tour_moved; docked != app.drawn_tour_docked)
    app.relayout = true, app.drawn_tour_docked = docked;
  if (app.ui.learn_mode) {
    draw_learn_mode(app);
    if (app.ui.show_tour) keep_on_screen(app, "Tour"), draw_tour_window(app);  // the tour's Learn chapter
    draw_notice(app);
    return end_frame(app, version_at_start);
  }

  if (app.ui.presenter) {
    app.tour_slot = {};  // over the presenter's view, floating
    draw_presenter(app);
  } else {
    const Placement P = choose_layout(app, io.DisplaySize.x, io.DisplaySize.y);
    if (P.mode != app.ui.layout) app.relayout = true;
    app.ui.layout = P.mode;
    place(app, P.pipeline);
    draw_pipeline_panel(app);
    place(app, P.nav);
    draw_nav_bar(app);
    bool synced = false;
    for (const PaneInfo& pane : panes()) {
      if (!pane.edits_config && !synced) sync_engine(app), synced = true;  // controls changed this frame show in this frame's matrices
      if (const WinRect& r = P[pane.pane]; r.w > 0) place(app, r), pane.draw(app);
    }
    if (P.status.w > 0) place(app, P.status), draw_status_bar(app);
    app.tour_slot = P.tour;
  }
  draw_hover_card(app);
  if (app.ui.show_help) keep_on_screen(app, "Help"), draw_help_window(app);
  if (app.ui.show_tour) keep_on_screen(app, "Tour"), draw_tour_window(app);
  draw_notice(app);

  sync_engine(app);  // clicks in the matrices (mask cells, edits) are ready for the next frame
  end_frame(app, version_at_start);
}

double redraw_due_in(const App& app, double seconds_since_last_frame) {
  // The lab's engine computes in the lab's frames only (Learn mode draws none of its views): a compute
  // waiting while Learn mode is shown waits for the lab, and must not keep Learn mode drawing.
  if (app.fonts_dirty || app.layout_dirty || app.windows_settling || app.drawn_version != app.result_version ||
      (app.engine.needs_compute() && !app.ui.learn_mode) || seconds_since_last_frame < app.animate_for || app.ui.focus_text ||
      app.png.pending || (app.status_shows_first_frame && app.stats.count > 1))
    return 0.0;
  double due = learn_frame_due_in(app, seconds_since_last_frame);
  if (app.notice_ends_in >= 0.0) due = std::min(due, std::max(0.0, app.notice_ends_in + 0.05 - seconds_since_last_frame));
  return due;
}

bool needs_redraw(const App& app, double seconds_since_last_frame) { return redraw_due_in(app, seconds_since_last_frame) <= 0.0; }

}  // namespace attnlab
