// glfw_input.h — GLFW input for Dear ImGui 1.86, shared by the desktop and web shells.
//
// Every mouse button, key, character, wheel and pointer move goes through an InputQueue
// (input_queue.h), which hands Dear ImGui 1.86 each press and release in a frame of its own, with the
// modifiers and the text it came with: 1.86 reads buttons and keys once per frame, so quick clicks
// between two slow frames would otherwise vanish. The relay also counts input events, so the shells can
// skip drawing frames while nothing happens, and keeps drawing while events wait.
//
// On the web it also takes the wheel and touch input the page hands it (web/app.js), because
// Emscripten 3.1.6's GLFW gets both wrong: it passes the browser's raw wheel deltaY (about ±100 per
// notch, the opposite sign to GLFW's) and turns a touch into a press at the old mouse position.
//   wheel: notches as GLFW counts them (+1 = one notch up), so a notch scrolls as far as on the desktop;
//   touch: the finger first moves the pointer (one frame of hover), then presses; a drag that starts on
//          a control drags it (sliders), one that starts elsewhere scrolls the window under it like a
//          page; a tap on a matrix cell inspects it (the hover card stays) and a long press (0.5 s)
//          clicks it, as a mouse click does (mask a weight, select a number to edit). A tap anywhere
//          else leaves no pointer behind once the finger lifts (no tooltip stays). Taps queue like
//          clicks: a second tap waits until the first one's gesture has been seen through.
#pragma once
#include <deque>
#include <string>

#include "input_queue.h"

struct GLFWwindow;

namespace attnlab {

class InputRelay : InputSink {
 public:
  // Call before ImGui_ImplGlfw_InitForOpenGL(window, /*install_callbacks=*/false).
  void install(GLFWwindow* window);
  // Call after each drawn frame.
  void after_frame();
  // Grows with every input event.
  unsigned events() const { return events_; }
  // True if input arrived since the last call, events still wait in the queue, or within the few
  // frames after them during which ImGui settles hovers and layouts. Shells draw when this or
  // attnlab::needs_redraw() says so.
  bool recent_input();

  // Call between the platform backend's NewFrame and ImGui::NewFrame: hands ImGui this frame's share
  // of the queue, and applies wheel and touch.
  void before_new_frame();
  // Wheel notches (GLFW's convention: +y = away from the person = content moves down).
  void add_wheel(float dx, float dy);
  // Touch in framebuffer pixels: kind 0 = start, 1 = move, 2 = end or cancel. Only the first finger.
  void touch(int kind, float x, float y);
  // The shell says after each frame whether the pointer is over a matrix cell (a tap there inspects).
  void set_pointer_over_cell(bool over) { over_cell_ = over; }
  bool touch_active() const { return touch_.phase != TouchPhase::idle; }
  // True after a touch until a real mouse moves: the page then keeps the on-screen keyboard's input.
  bool last_pointer_was_touch() const { return touch_owns_pointer_; }
  // The relay's state as a JSON object, for the page's stats() (what a test prints when input is lost):
  // {"events", "touch": phase, "touch_frames", "queued", "touch_owns_pointer", "over_cell", "left_down",
  //  "waiting": events still in the mouse/keyboard queue}.
  std::string state_json() const;

 private:
  static InputRelay* from(GLFWwindow* w);
  void push(const InputEvent& e);
  // InputSink: this frame's share of the queue, to Dear ImGui's GLFW backend.
  void key(const InputEvent& e) override;
  void character(unsigned ch) override;
  void button(int code, bool down) override;
  void move(float x, float y) override;
  void scroll(float dx, float dy) override;
  enum class TouchPhase { idle, placed, pressed, scrolling, held_cell, done };
  struct TouchEvent {
    int kind;
    float x, y;
  };
  struct Touch {
    TouchPhase phase = TouchPhase::idle;
    float x = 0, y = 0, start_x = 0, start_y = 0, last_x = 0, last_y = 0;
    double start_s = 0;
    int frames = 0;         // frames drawn since the finger came down
    bool ended = false;     // the finger is up; finish the gesture over the next frames
    bool inspect = false;   // a tap on a matrix cell: the pointer stays there afterwards
  };
  void step_touch();
  GLFWwindow* window_ = nullptr;
  InputQueue queue_;
  bool button_down_[InputQueue::kButtons] = {};
  float mouse_x_ = 0, mouse_y_ = 0;
  bool have_mouse_ = false;  // a real pointer position arrived
  std::deque<TouchEvent> touch_queue_;
  Touch touch_;
  float wheel_x_ = 0, wheel_y_ = 0;
  bool over_cell_ = false, touch_owns_pointer_ = false, left_down_ = false;
  bool lift_next_frame_ = false, pointer_gone_ = false;  // a tap ended: the pointer leaves on the next frame
  unsigned events_ = 0, events_seen_ = 0;
  int settle_frames_ = 0;
};

}  // namespace attnlab
