#include "glfw_input.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "imgui_impl_glfw.h"
#include "json_writer.h"
#include "imgui_internal.h"

namespace attnlab {

InputRelay* InputRelay::from(GLFWwindow* w) { return static_cast<InputRelay*>(glfwGetWindowUserPointer(w)); }

void InputRelay::install(GLFWwindow* window) {
  window_ = window;
  glfwSetWindowUserPointer(window, this);
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
    InputEvent e{InputEvent::key};
    e.code = key, e.scancode = scancode, e.action = action, e.mods = mods;
    from(w)->push(e);
  });
  glfwSetCharCallback(window, [](GLFWwindow* w, unsigned c) {
    InputEvent e{InputEvent::character};
    e.ch = c;
    from(w)->push(e);
  });
  glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int mods) {
    InputEvent e{InputEvent::button};
    e.code = button, e.action = action, e.mods = mods;
    from(w)->push(e);
  });
  glfwSetScrollCallback(window, [](GLFWwindow* w, double dx, double dy) {
    InputEvent e{InputEvent::scroll};
    e.x = (float)dx, e.y = (float)dy;
    from(w)->push(e);
  });
  glfwSetCursorPosCallback(window, [](GLFWwindow* w, double x, double y) {
    InputRelay& r = *from(w);
    // A real mouse moved: it has the pointer again (but not while a finger is down: browsers may send
    // compatibility mouse events around a touch, which must not steal the tap's position).
    if (r.touch_.phase != TouchPhase::idle) {
      ++r.events_;
      return;
    }
    r.touch_owns_pointer_ = false;
    InputEvent e{InputEvent::move};
    e.x = (float)x, e.y = (float)y;
    r.push(e);
  });
  glfwSetWindowFocusCallback(window, [](GLFWwindow* w, int focused) {
    ++from(w)->events_;
    ImGui_ImplGlfw_WindowFocusCallback(w, focused);
  });
  glfwSetCursorEnterCallback(window, [](GLFWwindow* w, int entered) {
    ++from(w)->events_;
    ImGui_ImplGlfw_CursorEnterCallback(w, entered);
  });
  glfwSetWindowSizeCallback(window, [](GLFWwindow* w, int, int) { ++from(w)->events_; });
}

void InputRelay::push(const InputEvent& e) {
  ++events_;
  // Key repeats carry no transition: they go straight to ImGui's key state (which they do not change).
  if (e.kind == InputEvent::key && e.action == GLFW_REPEAT) return ImGui_ImplGlfw_KeyCallback(window_, e.code, e.scancode, e.action, e.mods);
  queue_.push(e);
}

void InputRelay::key(const InputEvent& e) { ImGui_ImplGlfw_KeyCallback(window_, e.code, e.scancode, e.action, e.mods); }
void InputRelay::character(unsigned ch) { ImGui_ImplGlfw_CharCallback(window_, ch); }
void InputRelay::button(int code, bool down) { button_down_[code] = down; }
void InputRelay::move(float x, float y) { mouse_x_ = x, mouse_y_ = y, have_mouse_ = true; }
void InputRelay::scroll(float dx, float dy) { wheel_x_ += dx, wheel_y_ += dy; }

bool InputRelay::recent_input() {
  // A finger that is down keeps frames coming: a long press is timed on frames. Events that wait in
  // the queue need frames to be delivered.
  if (events_ != events_seen_ || touch_.phase != TouchPhase::idle || queue_.waiting() > 0 || !touch_queue_.empty()) {
    events_seen_ = events_;
    settle_frames_ = 4;
    return true;
  }
  if (settle_frames_ == 0) return false;
  --settle_frames_;
  return true;
}

void InputRelay::add_wheel(float dx, float dy) {
  ++events_;
  wheel_x_ += dx, wheel_y_ += dy;
}

void InputRelay::touch(int kind, float x, float y) {
  ++events_;
  if (kind == 1 && !touch_queue_.empty() && touch_queue_.back().kind == 1) {  // moves in a row: the last one
    touch_queue_.back() = {kind, x, y};
    return;
  }
  if (touch_queue_.size() >= InputQueue::kMaxQueued) touch_queue_.pop_front();
  touch_queue_.push_back({kind, x, y});
}

namespace {
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
// How far a finger may wander and still tap, and the pixels one wheel notch scrolls (ImGui 1.86
// scrolls 5 lines of the window's font per notch), both from the UI font so they follow the scale.
float font_px() {
  const ImGuiIO& io = ImGui::GetIO();
  return io.Fonts && !io.Fonts->Fonts.empty() ? io.Fonts->Fonts[0]->FontSize : 16.0f;
}
bool dragging_a_control() {
  // Something other than a window's background took the press (ImGui makes the window's own move id
  // active when its background is pressed, even when windows only move by their title bars).
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  if (g.ActiveId == 0) return false;
  return !(g.HoveredWindow && (g.ActiveId == g.HoveredWindow->MoveId || g.ActiveId == g.HoveredWindow->RootWindow->MoveId));
}
}  // namespace

void InputRelay::step_touch() {
  Touch& t = touch_;
  const float slop = 0.6f * font_px();
  while (!touch_queue_.empty()) {
    const TouchEvent e = touch_queue_.front();
    if (e.kind == 0) {
      // A new finger while the last tap is still being shown to ImGui waits its turn (quick taps
      // each count); one that comes while a finger is still down means the end was lost: start over.
      if (t.phase != TouchPhase::idle && t.ended) break;
      t = Touch{};
      t.phase = TouchPhase::placed;
      t.x = t.start_x = t.last_x = e.x;
      t.y = t.start_y = t.last_y = e.y;
      t.start_s = now_s();
      touch_owns_pointer_ = true;
      pointer_gone_ = lift_next_frame_ = false;
      left_down_ = false;
    } else if (t.phase != TouchPhase::idle && !t.ended) {
      if (e.kind == 2) {
        t.ended = true;
      } else {
        const bool moved = std::hypot(e.x - t.start_x, e.y - t.start_y) > slop;
        if ((t.phase == TouchPhase::placed && moved) || (t.phase == TouchPhase::pressed && moved && !dragging_a_control())) {
          t.phase = TouchPhase::scrolling;  // the finger pans the window under it, like a page
          left_down_ = false;
        }
        if (t.phase == TouchPhase::pressed) t.x = e.x, t.y = e.y;  // dragging a slider, a scrollbar, a window
        if (t.phase == TouchPhase::scrolling) {
          const float step = 5.0f * font_px();
          wheel_x_ += (e.x - t.last_x) / step;
          wheel_y_ += (e.y - t.last_y) / step;
        }
        t.last_x = e.x, t.last_y = e.y;
      }
    }
    touch_queue_.pop_front();
  }

  const TouchPhase before = t.phase;
  switch (t.phase) {
    case TouchPhase::idle: break;
    case TouchPhase::placed:
      if (t.frames < 1) break;  // one frame of hover first: ImGui learns what is under the finger
      if (over_cell_) {
        if (t.ended) t.phase = TouchPhase::idle, t.inspect = true;  // a tap on a cell inspects it: the pointer stays there
        else if (now_s() - t.start_s >= 0.5) t.phase = TouchPhase::held_cell, left_down_ = true;  // long press = click
      } else {
        left_down_ = true;
        t.phase = TouchPhase::pressed;
      }
      break;
    case TouchPhase::pressed:
    case TouchPhase::held_cell:
      if (t.ended || t.phase == TouchPhase::held_cell) {
        left_down_ = false;  // the press has been seen for a frame
        t.phase = t.ended ? TouchPhase::idle : TouchPhase::done;
      }
      break;
    case TouchPhase::scrolling:
    case TouchPhase::done:
      if (t.ended) t.phase = TouchPhase::idle, left_down_ = false;
      break;
  }
  // The finger is gone: from the next frame, so is the pointer (no hover, no tooltip left behind),
  // unless the tap inspected a cell, whose card stays until the next touch.
  if (before != TouchPhase::idle && t.phase == TouchPhase::idle && !t.inspect) lift_next_frame_ = true;
}

void InputRelay::before_new_frame() {
  ImGuiIO& io = ImGui::GetIO();
  queue_.next_frame(*this);
  for (int b = 0; b < InputQueue::kButtons; ++b) io.MouseDown[b] = button_down_[b];
  // The backend polled the pointer (and knows whether the window has it); the queue says where it
  // was at the events delivered so far.
  if (have_mouse_ && io.MousePos.x != -FLT_MAX) io.MousePos = ImVec2(mouse_x_, mouse_y_);
  // The pointer leaves with the finger on the frame after the release (ImGui saw the release in place).
  if (std::exchange(lift_next_frame_, false)) pointer_gone_ = true;
  step_touch();
  io.MouseWheelH += wheel_x_;
  io.MouseWheel += wheel_y_;
  wheel_x_ = wheel_y_ = 0;
  if (touch_owns_pointer_) {
    // While scrolling, the pointer stays where the finger came down, so the same window scrolls.
    const bool still = touch_.phase == TouchPhase::scrolling;
    io.MousePos = pointer_gone_ ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(still ? touch_.start_x : touch_.x, still ? touch_.start_y : touch_.y);
    io.MouseDown[0] = left_down_;
  }
}

std::string InputRelay::state_json() const {
  static const char* const phases[] = {"idle", "placed", "pressed", "scrolling", "held_cell", "done"};
  std::string out;
  attn::JsonWriter w(&out, -1);
  w.begin_object();
  w.key("events"), w.value((int64_t)events_);
  w.key("touch"), w.value(std::string_view(phases[(int)touch_.phase]));
  w.key("touch_frames"), w.value((int64_t)touch_.frames);
  w.key("queued"), w.value((int64_t)touch_queue_.size());
  w.key("touch_owns_pointer"), w.value(touch_owns_pointer_);
  w.key("over_cell"), w.value(over_cell_);
  w.key("left_down"), w.value(left_down_);
  w.key("waiting"), w.value((int64_t)queue_.waiting());
  w.end_object();
  w.flush();
  return out;
}

void InputRelay::after_frame() {
  if (touch_.phase != TouchPhase::idle) ++touch_.frames;
}

}  // namespace attnlab
