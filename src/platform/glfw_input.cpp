#include "glfw_input.h"

#include <GLFW/glfw3.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "imgui_impl_glfw.h"
#include "imgui_internal.h"

namespace attnlab {

InputRelay* InputRelay::from(GLFWwindow* w) { return static_cast<InputRelay*>(glfwGetWindowUserPointer(w)); }

void InputRelay::install(GLFWwindow* window) {
  window_ = window;
  glfwSetWindowUserPointer(window, this);
  glfwSetKeyCallback(window, on_key);
  glfwSetCharCallback(window, [](GLFWwindow* w, unsigned c) {
    ++from(w)->events_;
    ImGui_ImplGlfw_CharCallback(w, c);
  });
  glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int mods) {
    ++from(w)->events_;
    ImGui_ImplGlfw_MouseButtonCallback(w, button, action, mods);  // keeps quick clicks by itself
  });
  glfwSetScrollCallback(window, [](GLFWwindow* w, double dx, double dy) {
    ++from(w)->events_;
    ImGui_ImplGlfw_ScrollCallback(w, dx, dy);
  });
  glfwSetCursorPosCallback(window, [](GLFWwindow* w, double, double) {
    InputRelay& r = *from(w);
    ++r.events_;
    // A real mouse moved: it has the pointer again (but not while a finger is down: browsers may send
    // compatibility mouse events around a touch, which must not steal the tap's position).
    if (r.touch_.phase == TouchPhase::idle) r.touch_owns_pointer_ = false;
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

void InputRelay::on_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
  InputRelay& r = *from(w);
  ++r.events_;
  if (action == GLFW_PRESS) r.pressed_this_frame_ = true;
  // A release waits while any press since the last frame is unseen (Ctrl+A must be seen as a chord),
  // and once one waits, later ones queue behind it to keep their order.
  if (action == GLFW_RELEASE && (r.pressed_this_frame_ || !r.held_.empty())) {
    r.held_.push_back({key, scancode, mods});
    return;
  }
  ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
}

bool InputRelay::recent_input() {
  // A finger that is down keeps frames coming: a long press is timed on frames.
  if (events_ != events_seen_ || touch_.phase != TouchPhase::idle) {
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
  for (const TouchEvent& e : touch_queue_) {
    if (e.kind == 0) {
      t = Touch{};
      t.phase = TouchPhase::placed;
      t.x = t.start_x = t.last_x = e.x;
      t.y = t.start_y = t.last_y = e.y;
      t.start_s = now_s();
      touch_owns_pointer_ = true;
      left_down_ = false;
      continue;
    }
    if (t.phase == TouchPhase::idle) continue;
    if (e.kind == 2) {
      t.ended = true;
      continue;
    }
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
  touch_queue_.clear();

  switch (t.phase) {
    case TouchPhase::idle: break;
    case TouchPhase::placed:
      if (t.frames < 1) break;  // one frame of hover first: ImGui learns what is under the finger
      if (over_cell_) {
        if (t.ended) t.phase = TouchPhase::idle;  // a tap on a cell inspects it: the pointer stays there
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
}

void InputRelay::before_new_frame() {
  ImGuiIO& io = ImGui::GetIO();
  step_touch();
  io.MouseWheelH += wheel_x_;
  io.MouseWheel += wheel_y_;
  wheel_x_ = wheel_y_ = 0;
  if (touch_owns_pointer_) {
    // While scrolling, the pointer stays where the finger came down, so the same window scrolls.
    const bool still = touch_.phase == TouchPhase::scrolling;
    io.MousePos = ImVec2(still ? touch_.start_x : touch_.x, still ? touch_.start_y : touch_.y);
    io.MouseDown[0] = left_down_;
  }
}

std::string InputRelay::state_json() const {
  static const char* const phases[] = {"idle", "placed", "pressed", "scrolling", "held_cell", "done"};
  const auto b = [](bool v) { return v ? "true" : "false"; };
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"events\":%u,\"touch\":\"%s\",\"touch_frames\":%d,\"queued\":%d,\"touch_owns_pointer\":%s,"
                "\"over_cell\":%s,\"left_down\":%s}",
                events_, phases[(int)touch_.phase], touch_.frames, (int)touch_queue_.size(), b(touch_owns_pointer_), b(over_cell_), b(left_down_));
  return buf;
}

void InputRelay::after_frame() {
  if (touch_.phase != TouchPhase::idle) ++touch_.frames;
  pressed_this_frame_ = false;
  if (held_.empty()) return;
  for (const Release& r : held_) ImGui_ImplGlfw_KeyCallback(window_, r.key, r.scancode, GLFW_RELEASE, r.mods);
  held_.clear();
  ++events_;  // one more frame, to see the keys go up
}

}  // namespace attnlab
