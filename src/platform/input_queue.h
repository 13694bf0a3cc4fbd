// input_queue.h — the mouse and keyboard events between two frames, handed out a frame's share at a time.
//
// Dear ImGui 1.86 reads the mouse buttons and keys once per frame, so a press and a release that arrive
// between two frames vanish, and two clicks between two frames count as one (1.87 added an input queue
// for exactly this). InputQueue is that queue: every mouse button, key, character, wheel and pointer
// move goes in, in arrival order, and each frame takes out the events up to the first one that this
// frame could not show apart from an earlier one:
//   - a second transition of the same button or key (the first must be seen for a frame);
//   - a pointer move after a button changed (the click happened where the pointer was);
//   - a button press after a key release that waits for the next frame (Ctrl+click must not become a
//     click, nor a click Ctrl+click);
//   - a modifier (Shift, Ctrl, Alt, Super) that changes after another key or a character: a key is seen
//     with the modifiers it was pressed with (Ctrl+A, with Ctrl let go before A, must not reach ImGui as
//     a plain A; text typed before Ctrl goes down must not be read as Ctrl+text);
//   - Esc, Enter or Tab after characters (they end an edit: the text must reach the field a frame earlier).
// A key released in the frame that saw its press waits for the next frame without holding up other
// keys and characters, so typed text keeps its pace: every key once per frame; a modifier released so
// holds back everything after it. So every press and every release is seen in a frame of its own, at
// the position it happened, with the modifiers and the text it came with.
//
// No GLFW or ImGui calls here (only GLFW's key and action numbers): the shell's InputRelay hands the
// events to Dear ImGui's GLFW backend, and tests drive the queue alone.
#pragma once
#include <cstddef>
#include <deque>
#include <vector>

namespace attnlab {

struct InputEvent {
  enum Kind { move, button, key, character, scroll } kind;
  int code = 0, action = 0, scancode = 0, mods = 0;  // button or key; GLFW_PRESS / GLFW_RELEASE
  float x = 0, y = 0;                                 // move: position; scroll: offsets
  unsigned ch = 0;                                    // character: the code point
};

// Where a frame's share goes, in order.
struct InputSink {
  virtual ~InputSink() = default;
  virtual void key(const InputEvent& e) = 0;    // a press or a release
  virtual void character(unsigned ch) = 0;
  virtual void button(int code, bool down) = 0;  // code < InputQueue::kButtons
  virtual void move(float x, float y) = 0;
  virtual void scroll(float dx, float dy) = 0;
};

class InputQueue {
 public:
  static constexpr int kButtons = 5;          // the mouse buttons Dear ImGui tracks
  static constexpr size_t kMaxQueued = 1024;  // events waiting at most (the oldest go past it)

  // Moves in a row are one move (to where the pointer ended up), so a fast mouse between two slow
  // frames adds one event, not hundreds. Past kMaxQueued events (a page that stopped drawing, say) the
  // oldest go, so what waits is what happened last.
  void push(const InputEvent& e);
  // Hands this frame's share of the queue to `sink`, in order (the rules above).
  void next_frame(InputSink& sink);
  // Events still to be handed out (queued, and releases held for the next frame).
  size_t waiting() const { return queue_.size() + deferred_releases_.size(); }

 private:
  std::deque<InputEvent> queue_;
  std::vector<InputEvent> deferred_releases_;  // key releases whose press this frame saw: delivered next frame
};

}  // namespace attnlab
