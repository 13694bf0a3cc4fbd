// glfw_input.h — GLFW input for Dear ImGui 1.86, shared by the desktop and web shells.
//
// Dear ImGui 1.86 reads key state once per frame, so a key pressed and released between two frames
// is never seen (Ctrl+A typed quickly selects nothing). When frames are slow (software WebGL draws a
// few per second) that loses real keystrokes. This relay forwards every event to ImGui's GLFW
// backend but holds back key releases until a frame has seen the presses before them. It also counts input events,
// so the shells can skip drawing frames while nothing happens.
#pragma once
#include <vector>

struct GLFWwindow;

namespace attnlab {

class InputRelay {
 public:
  // Call before ImGui_ImplGlfw_InitForOpenGL(window, /*install_callbacks=*/false).
  void install(GLFWwindow* window);
  // Call after each drawn frame: releases held back since the last frame reach ImGui now.
  void after_frame();
  // Grows with every input event (and once more when held-back releases are delivered).
  unsigned events() const { return events_; }
  // True if input arrived since the last call, or within the few frames after it during which
  // ImGui settles hovers and layouts. Shells draw when this or attnlab::needs_redraw() says so.
  bool recent_input();

 private:
  static InputRelay* from(GLFWwindow* w);
  static void on_key(GLFWwindow* w, int key, int scancode, int action, int mods);
  struct Release {
    int key, scancode, mods;
  };
  GLFWwindow* window_ = nullptr;
  bool pressed_this_frame_ = false;
  std::vector<Release> held_;
  unsigned events_ = 0, events_seen_ = 0;
  int settle_frames_ = 0;
};

}  // namespace attnlab
