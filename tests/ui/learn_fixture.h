// learn_fixture.h — the Learn mode's headless fixture (lab.h's, plus clicks on named widgets and the
// session's state), shared by the Learn and Inspect UI tests.
#pragma once
#include <algorithm>
#include <vector>

#include "lab.h"
#include "learn.h"

namespace labtest {

using attnlab::LearnState;

// The lab's headless fixture (lab.h), plus clicks on named widgets and Learn mode's state.
class Learn : public labtest::Lab {
 protected:
  using Lab::click;
  ImVec2 centre(const char* widget) {
    const auto it = app.widget_rects.find(widget);
    EXPECT_NE(it, app.widget_rects.end()) << widget;
    if (it == app.widget_rects.end()) return ImVec2(-1, -1);
    return ImVec2(it->second.x + it->second.z * 0.5f, it->second.y + it->second.w * 0.5f);
  }
  void click(const char* widget) {
    scroll_into_view(widget);
    click(centre(widget));  // the click acts in the release frame
    frames(1);              // and the next one draws its result
  }
  // A widget below the fold of a scrolling panel is brought into view with the wheel, as a person does.
  void scroll_into_view(const char* widget) {
    frames(1);
    for (int i = 0; i < 60; ++i) {
      const auto full = app.widget_rects.find(widget), seen = app.widget_visible.find(widget);
      if (full == app.widget_rects.end()) return;
      if (seen != app.widget_visible.end() && seen->second.w >= full->second.w - 0.5f) return;
      ImGuiIO& io = ImGui::GetIO();
      const ImGuiWindow* under = nullptr;  // the innermost window whose region holds the widget's column
      for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (w->WasActive && w->InnerClipRect.Min.x <= full->second.x + 1 && full->second.x < w->InnerClipRect.Max.x && w->ScrollMax.y > 0)
          under = w;
      if (!under) return;
      io.MousePos = ImVec2(full->second.x + 2.0f, std::clamp(full->second.y, under->InnerClipRect.Min.y + 4.0f, under->InnerClipRect.Max.y - 4.0f));
      io.MouseWheel = full->second.y > under->InnerClipRect.Max.y - 4.0f ? -1.0f : 1.0f;
      frames(1);
      io.MouseWheel = 0.0f;
      app.widget_visible.clear();
      frames(1);
    }
  }
  LearnState& L() { return attnlab::learn_state(app); }
  // The session's trainer, read through the link (these tests run the session on the UI's thread).
  const attn::learn::Trainer& trainer() {
    const attn::learn::Trainer* t = nullptr;
    L().link->read([&](const attn::learn::Session& s) { t = &s.trainer(); });
    return *t;
  }
  std::vector<float> weights() { return trainer().snapshot(); }
  // Frames until training stops (done or diverged); a bound keeps a broken run from hanging the test.
  void train_to_end() {
    for (int i = 0; i < 20000 && L().run().running; ++i) frames(1);
  }
  // A small RNN on the delayed copy (hidden 16, n 10, distance 2, 40 steps), trained to the end in Learn
  // mode: a recurrent run, and the recurrence lesson's views, in a fraction of a second.
  void train_small_rnn() {
    ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "delayed_copy", "model": "rnn", "hidden": 16, "n": 10, "distance": 2,
                                                 "train": {"steps": 40, "eval_every": 10, "eval_batch": 32}})"), "");
    app.ui.learn_mode = true;
    train_to_end();
    frames(3);
  }
  // Frames until the evaluation under way (spread over frames) is in the history.
  void evaluated() {
    for (int i = 0; i < 1000 && L().run().evaluating; ++i) frames(1);
    ASSERT_FALSE(L().run().evaluating);
  }
};

}  // namespace labtest
