#include "glfw_input.h"

#include <GLFW/glfw3.h>

#include "imgui_impl_glfw.h"

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
  glfwSetCursorPosCallback(window, [](GLFWwindow* w, double, double) { ++from(w)->events_; });
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
  if (events_ != events_seen_) {
    events_seen_ = events_;
    settle_frames_ = 4;
    return true;
  }
  if (settle_frames_ == 0) return false;
  --settle_frames_;
  return true;
}

void InputRelay::after_frame() {
  pressed_this_frame_ = false;
  if (held_.empty()) return;
  for (const Release& r : held_) ImGui_ImplGlfw_KeyCallback(window_, r.key, r.scancode, GLFW_RELEASE, r.mods);
  held_.clear();
  ++events_;  // one more frame, to see the keys go up
}

}  // namespace attnlab
