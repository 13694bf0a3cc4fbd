#include "input_queue.h"

#include <GLFW/glfw3.h>  // key and action numbers only

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {
bool is_modifier(int key) { return key >= GLFW_KEY_LEFT_SHIFT && key <= GLFW_KEY_RIGHT_SUPER; }
bool ends_edit(int key) { return key == GLFW_KEY_ESCAPE || key == GLFW_KEY_ENTER || key == GLFW_KEY_KP_ENTER || key == GLFW_KEY_TAB; }
}  // namespace

void InputQueue::push(const InputEvent& e) {
  if (e.kind == InputEvent::move && !queue_.empty() && queue_.back().kind == InputEvent::move) {
    queue_.back() = e;
    return;
  }
  if (queue_.size() >= kMaxQueued) queue_.pop_front();
  queue_.push_back(e);
}

void InputQueue::next_frame(InputSink& sink) {
  std::vector<int> keys_changed, keys_pressed;
  bool buttons_changed[kButtons] = {}, any_button_changed = false;
  bool typed = false;  // a character went out this frame
  bool keyed = false;  // a key other than a modifier went out this frame
  const auto has = [](const std::vector<int>& v, int k) { return std::find(v.begin(), v.end(), k) != v.end(); };
  for (const InputEvent& e : std::exchange(deferred_releases_, {})) {
    sink.key(e);
    keys_changed.push_back(e.code);
  }
  while (!queue_.empty()) {
    const InputEvent e = queue_.front();
    if (e.kind == InputEvent::move) {
      if (any_button_changed) break;
      sink.move(e.x, e.y);
    } else if (e.kind == InputEvent::button) {
      if (e.code >= 0 && e.code < kButtons) {  // (else a button ImGui does not track: dropped)
        if (buttons_changed[e.code] || (e.action == GLFW_PRESS && !deferred_releases_.empty())) break;
        sink.button(e.code, e.action == GLFW_PRESS);
        buttons_changed[e.code] = any_button_changed = true;
      }
    } else if (e.kind == InputEvent::key) {
      const bool modifier = is_modifier(e.code);
      if (e.action == GLFW_RELEASE && has(keys_pressed, e.code)) {
        // The press is seen this frame, the release the next. A modifier's release holds everything
        // after it back too: what follows was typed without Ctrl (Ctrl+A, then "5" is text, not Ctrl+5).
        deferred_releases_.push_back(e);
        queue_.pop_front();
        if (modifier) break;
        keys_changed.push_back(e.code);
        continue;
      }
      if (has(keys_changed, e.code)) break;
      if (modifier && (keyed || typed)) break;  // the keys before it were pressed with the old modifiers
      if (ends_edit(e.code) && e.action == GLFW_PRESS && typed) break;
      sink.key(e);
      if (e.action == GLFW_PRESS) keys_pressed.push_back(e.code);
      keys_changed.push_back(e.code);
      keyed = keyed || !modifier;
    } else if (e.kind == InputEvent::character) {
      sink.character(e.ch);
      typed = true;
    } else {
      sink.scroll(e.x, e.y);
    }
    queue_.pop_front();
  }
}

}  // namespace attnlab
