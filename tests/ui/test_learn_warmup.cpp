// Learn mode drawn out of sight before it is opened (src/platform/learn_warmup.h): it draws, and the
// lab's App, ImGui context and font atlas are as they were.
#include <gtest/gtest.h>

#include "lab.h"
#include "learn.h"
#include "learn_warmup.h"

namespace {

using labtest::Lab;

TEST_F(Lab, WarmingLearnModeDrawsItOutOfSightAndLeavesTheLabAsItWas) {
  frames(2);
  ImGuiContext* context = ImGui::GetCurrentContext();
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  const int windows = context->Windows.Size, frame_count = ImGui::GetFrameCount();
  const uint64_t version = app.result_version;
  const std::string text = app.text;

  const int drawn = attnlab::warm_learn_mode(app);
  EXPECT_GE(drawn, 4) << "Learn mode's frames, its two-step run to the end";
  EXPECT_LE(drawn, 12);
  EXPECT_EQ(ImGui::GetCurrentContext(), context);
  EXPECT_EQ(ImGui::GetIO().Fonts, atlas);
  EXPECT_TRUE(atlas->IsBuilt());
  EXPECT_EQ(context->Windows.Size, windows) << "no window of Learn mode in the lab's context";
  EXPECT_EQ(ImGui::GetFrameCount(), frame_count);
  EXPECT_EQ(app.learn, nullptr) << "the lab's App has no Learn session";
  EXPECT_FALSE(app.ui.learn_mode);
  EXPECT_EQ(app.result_version, version);
  EXPECT_EQ(app.text, text);

  // The lab goes on drawing, and Learn mode opens and trains as if it had never been drawn.
  frames(2);
  EXPECT_EQ(context->Windows.Size, windows);
  app.ui.learn_mode = true;
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 3, "eval_every": 3, "eval_batch": 8}})"), "");
  for (int i = 0; i < 200 && attnlab::learn_busy(app); ++i) frames(1);
  EXPECT_TRUE(attnlab::learn_state(app).run().done);
  EXPECT_EQ(attnlab::learn_state(app).run().step, 3);
}

}  // namespace
