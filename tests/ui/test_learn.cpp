// Learn mode, run headless through the real panels: switch modes by click and key, train previous_token
// with the Train button to ≥ 99% held-out accuracy, read the probe's attention for the sub-diagonal,
// pause and resume, step, reset, and refuse bad settings without losing the run.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "learn_fixture.h"
#include "learn.h"
#include "model_json.h"

namespace {

using attnlab::App;
using attnlab::LearnState;

using labtest::Learn;

TEST_F(Learn, TheSwitchAndTheKeyChangeModes) {
  EXPECT_FALSE(app.ui.learn_mode);
  click("mode_learn");
  EXPECT_TRUE(app.ui.learn_mode);
  frames(2);
  for (const char* w : {"Training", "Curves", "Attention on a probe"}) {
    ImGuiWindow* win = attnlab::find_window(w);
    ASSERT_NE(win, nullptr) << w;
    EXPECT_TRUE(win->Active) << w;
  }
  EXPECT_FALSE(attnlab::find_window("Matrices")->Active);  // the lab's windows are hidden
  click("mode_lab");
  EXPECT_FALSE(app.ui.learn_mode);
  EXPECT_TRUE(attnlab::find_window("Matrices")->Active);
  type("l");
  EXPECT_TRUE(app.ui.learn_mode);
  type("L");
  EXPECT_FALSE(app.ui.learn_mode);
}

TEST_F(Learn, ARunStopsOnceItHasConvergedAndSaysSo) {
  click("mode_learn");
  ASSERT_GT(L().setup.train.stop_accuracy, 0.0f) << "on by default";
  const int steps = L().setup.train.steps;
  click("learn_train");
  train_to_end();
  EXPECT_EQ(std::string(attnlab::learn_phase(L())), "done");
  EXPECT_TRUE(L().run().converged);
  const auto& h = L().run().history;
  ASSERT_GE(h.size(), 4u);
  EXPECT_LT(h.back().step, steps) << "it stopped early";
  for (size_t i = h.size() - 3; i < h.size(); ++i) EXPECT_GE(h[i].accuracy, 0.99) << "step " << h[i].step;
  EXPECT_LT(h[h.size() - 4].accuracy, 0.99) << "and not one evaluation later than it had to";
  EXPECT_NE(L().run().message.find("converged at step " + std::to_string(h.back().step)), std::string::npos) << L().run().message;
  frames(2);
  EXPECT_NE(app.widget_rects.find("learn_message"), app.widget_rects.end()) << "the reason is on screen";
  // The CLI trains the same run to the same stop: the run's config carries the rule.
  const auto j = nlohmann::json::parse(attnlab::learn_run_json(app));
  EXPECT_EQ(j["train"]["stop_accuracy"], 0.99);
  EXPECT_EQ(j["train"]["stop_evaluations"], 3);
}

TEST_F(Learn, TrainButtonLearnsPreviousTokenAndTheProbeShowsTheSubDiagonal) {
  click("mode_learn");
  EXPECT_EQ(L().setup.task, "previous_token");  // the first task of the table
  EXPECT_EQ(std::string(attnlab::learn_phase(L())), "idle");
  click("learn_stop_early");  // every step of the run, this time
  EXPECT_EQ(L().setup.train.stop_accuracy, 0.0f);
  click("learn_train");
  EXPECT_TRUE(L().run().running);
  EXPECT_GT(L().run().step, 0);

  // Pause: the step stays put across frames; Train resumes from there.
  click("learn_train");
  EXPECT_FALSE(L().run().running);
  const int paused_at = L().run().step;
  frames(10);
  EXPECT_EQ(L().run().step, paused_at);
  EXPECT_EQ(std::string(attnlab::learn_phase(L())), "paused");
  click("learn_step");
  EXPECT_EQ(L().run().step, paused_at + 1);
  type(".");  // the key does the same
  EXPECT_EQ(L().run().step, paused_at + 2);
  type(" ");  // Space resumes
  EXPECT_TRUE(L().run().running);
  train_to_end();

  EXPECT_EQ(std::string(attnlab::learn_phase(L())), "done");
  ASSERT_FALSE(L().run().history.empty());
  const auto& last = L().run().history.back();
  EXPECT_EQ(last.step, L().setup.train.steps);
  EXPECT_GE(last.accuracy, 0.99);
  EXPECT_GE(last.pattern_score, 0.9);
  EXPECT_EQ((int)L().run().train_loss.size(), L().setup.train.steps);  // every step's loss was kept
  EXPECT_LT(L().run().train_loss.back(), L().run().train_loss.front() * 0.2f);

  // The probe's attention: some head of layer 0 puts most of each row on the previous key.
  frames(2);
  const auto& p = L().run().probe;
  ASSERT_EQ(p.layers, 1);
  double best = 0;
  for (int h = 0; h < p.heads; ++h) {
    double mass = 0;
    for (int i = 1; i < p.n; ++i) mass += p.weights[0][((size_t)h * p.n + i) * p.m + (i - 1)];
    best = std::max(best, mass / (p.n - 1));
  }
  EXPECT_GT(best, 0.9);
  // and the thumbnails and the ideal pattern were drawn
  for (const char* w : {"learn_l0_h0", "learn_l0_h1", "learn_l0_ideal0", "learn_loss_plot"})
    EXPECT_NE(app.widget_rects.find(w), app.widget_rects.end()) << w;
  // The ideal pattern is the sub-diagonal.
  const auto& ideal = L().run().ideal[0];
  for (int i = 1; i < p.n; ++i) EXPECT_FLOAT_EQ(ideal[(size_t)i * p.m + i - 1], 1.0f) << i;

  // History: replaying step 0's snapshot shows the untrained attention; the live weights stay.
  ASSERT_GE(L().run().snapshot_steps.size(), 3u);
  EXPECT_EQ(L().run().snapshot_steps.front(), 0);
  EXPECT_EQ(L().run().snapshot_steps.back(), L().setup.train.steps);
  const auto live = weights();
  attnlab::learn_replay(app, 0);
  frames(2);
  EXPECT_EQ(weights(), live);
  double untrained = 0;
  for (int h = 0; h < p.heads; ++h)
    for (int i = 1; i < p.n; ++i) untrained = std::max(untrained, (double)L().run().replay_probe.weights[0][((size_t)h * p.n + i) * p.m + (i - 1)]);
  EXPECT_LT(untrained, 0.6);  // no head attends sharply to the previous token yet
  EXPECT_NE(app.widget_rects.find("learn_replay"), app.widget_rects.end());
  attnlab::learn_replay(app, -1);
  EXPECT_EQ(L().run().replay, -1);

  // Reset: step 0, paused, the untrained model (accuracy near chance).
  click("learn_reset");
  evaluated();
  EXPECT_EQ(L().run().step, 0);
  EXPECT_FALSE(L().run().running);
  EXPECT_LT(L().run().history.back().accuracy, 0.3);
}

TEST_F(Learn, TrainingIsTimeSlicedAcrossFrames) {
  attnlab::LearnState& s = L();
  s.setup = attn::learn::default_setup(*attn::learn::find_task("induction"));
  s.budget_ms = 1.0f;  // a tight slice: a frame stops after about a millisecond of training
  app.ui.learn_mode = true;
  ASSERT_EQ(attnlab::learn_train(app), "");
  evaluated();  // step 0's evaluation, itself spread over frames
  int counted = 0;
  for (int f = 0; f < 8; ++f) frames(1), counted += s.run().steps_last_work;
  EXPECT_GE(s.run().step, 2);  // at least one part (a quarter of a step) every frame
  EXPECT_EQ(counted, s.run().step);
  EXPECT_LT(s.run().step, s.setup.train.steps);  // 1000 induction steps never fit in 8 ms-slices
  EXPECT_TRUE(attnlab::needs_redraw(app, 10.0));  // the shells keep drawing while it trains
  attnlab::learn_pause(app);
  frames(1);
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0));
}

TEST_F(Learn, ATrainingThreadAsksForFramesAtItsOwnPace) {
  // Training on a thread of its own (the desktop app; a worker in the page): the UI draws its state at
  // kLearnFramesPerS, not on every state it hands over, so drawing does not take the training's core.
  ASSERT_FALSE(app.learn) << "the link is chosen when Learn mode is first used";
  app.session_link = attn::make_thread_link;
  click("mode_learn");
  ASSERT_TRUE(L().link->threaded());
  L().setup.train.stop_accuracy = 0.0f;  // 1000 steps: far longer than the frames below
  ASSERT_EQ(attnlab::learn_train(app), "");
  frames(3);
  ASSERT_TRUE(attnlab::learn_busy(app));
  const double frame_s = 1.0 / attnlab::kLearnFramesPerS;
  EXPECT_FALSE(attnlab::learn_wants_frame(app, 0.5 * frame_s));
  EXPECT_TRUE(attnlab::learn_wants_frame(app, frame_s));
  // When: what the page's loop sleeps until (web_main.cpp).
  EXPECT_NEAR(attnlab::redraw_due_in(app, 0.25 * frame_s), 0.75 * frame_s, 1e-12);
  EXPECT_EQ(attnlab::redraw_due_in(app, frame_s), 0.0);
  // Nothing else asks for a frame: not the state it took this frame (drawn in it), nor the lab's
  // engine, whose compute waits for the lab's own frames.
  app.engine.invalidate();
  ASSERT_TRUE(app.engine.needs_compute());
  EXPECT_FALSE(attnlab::needs_redraw(app, 0.5 * frame_s));
  EXPECT_TRUE(attnlab::needs_redraw(app, frame_s));
  app.ui.learn_mode = false;
  EXPECT_TRUE(attnlab::needs_redraw(app, 0.0)) << "the lab's compute, once the lab is shown";
  attnlab::learn_pause(app);
  app.ui.learn_mode = true;
  for (int f = 0; f < 2000 && attnlab::learn_busy(app); ++f) frames(1), std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_FALSE(attnlab::learn_busy(app)) << "the thread took the pause";
  EXPECT_EQ(attnlab::redraw_due_in(app, 0.0), std::numeric_limits<double>::infinity()) << "paused, nothing is due by the clock";
}

TEST_F(Learn, TheProbesAttentionIsOneTextureAHeadRefilledOnlyWhenItChanges) {
  // Each head's attention on the probe as a texture (where the shell has a GPU), not a rectangle per
  // cell (4 heads of 32 tokens were 16 k vertices a frame), kept while the weights stay the same.
  struct Textures : attnlab::TextureBackend {
    std::set<intptr_t> live;
    intptr_t next = 1;
    int uploads = 0;
    ImTextureID upload(ImTextureID existing, int, int, const uint32_t*) override {
      ++uploads;
      if (existing) return existing;
      live.insert(next);
      return (ImTextureID)next++;
    }
    void release(ImTextureID id) override { live.erase((intptr_t)id); }
  } textures;
  app.textures = &textures;
  click("mode_learn");
  L().setup.train.steps = 40;
  click("learn_train");
  train_to_end();
  frames(3);
  const ImGuiWindow* w = attnlab::find_window("Attention on a probe");
  ASSERT_NE(w, nullptr);
  EXPECT_LT(w->DrawList->VtxBuffer.Size, 3000) << "cells drawn one by one (4.6 k vertices here; 1.5 k as textures)";
  EXPECT_GE(textures.live.size(), 4u) << "a texture for each head";
  const int settled = textures.uploads;
  frames(5);
  EXPECT_EQ(textures.uploads, settled) << "the same weights: nothing refilled";
  EXPECT_LE(textures.live.size(), 16u) << "textures left behind, frame after frame";
  app.textures = nullptr;
}

TEST_F(Learn, StepFromAFreshRunKeepsStepZeroInTheHistory) {
  app.ui.learn_mode = true;
  attnlab::learn_step(app);  // starts a paused run (its step-0 evaluation under way) and takes one step
  EXPECT_EQ(L().run().step, 1);
  ASSERT_FALSE(L().run().history.empty());
  EXPECT_EQ(L().run().history.front().step, 0);
  ASSERT_FALSE(L().run().snapshot_steps.empty());
  EXPECT_EQ(L().run().snapshot_steps.front(), 0);  // the replay can go back to the untrained weights
}

TEST_F(Learn, AnEvaluationIsSpreadOverFramesAChunkAtATime) {
  // The held-out batch (256 sequences) is evaluated a micro-batch (8) at a time: with no budget a frame
  // does one unit of work (a part of a step, or a chunk), so step 0's evaluation takes 32 frames, a step
  // (32 sequences) 4, and the points equal those of a run that evaluates whole.
  attnlab::LearnState& s = L();
  s.setup = attn::learn::default_setup(*attn::learn::find_task("previous_token"));
  s.setup.train.steps = 4, s.setup.train.eval_every = 2;
  s.budget_ms = 0.0f;
  app.ui.learn_mode = true;
  ASSERT_EQ(attnlab::learn_train(app), "");
  ASSERT_EQ(trainer().evaluation_chunks(), 32);
  ASSERT_EQ(trainer().parts_per_step(), 4);
  EXPECT_TRUE(s.run().evaluating);
  EXPECT_TRUE(attnlab::needs_redraw(app, 10.0));
  for (int f = 0; f < 31; ++f) {
    frames(1);
    EXPECT_TRUE(s.run().evaluating) << "frame " << f;
    EXPECT_EQ(s.run().step, 0);
  }
  frames(1);
  EXPECT_FALSE(s.run().evaluating);
  ASSERT_EQ(s.run().history.size(), 1u);
  frames(3);
  EXPECT_EQ(s.run().step, 0) << "three parts of four";
  attnlab::learn_replay(app, 0);  // replaying history mid-step must not disturb the step under way
  attnlab::learn_replay(app, -1);
  frames(1);
  EXPECT_EQ(s.run().step, 1);
  frames(4);
  EXPECT_EQ(s.run().step, 2);  // due for an evaluation: the next 32 frames run it, no step
  EXPECT_TRUE(s.run().evaluating);
  train_to_end();
  EXPECT_EQ(learn_phase(s), std::string("done"));
  attn::learn::Trainer whole;
  ASSERT_EQ(whole.start(s.run().run_setup), "");
  whole.evaluate();
  while (!whole.done()) whole.run(100);
  ASSERT_EQ(whole.history().size(), 3u);
  ASSERT_EQ(s.run().history.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.run().history[i].step, whole.history()[i].step);
    EXPECT_EQ(s.run().history[i].loss, whole.history()[i].loss);  // bit-identical
    EXPECT_EQ(s.run().history[i].accuracy, whole.history()[i].accuracy);
    EXPECT_EQ(s.run().history[i].pattern, whole.history()[i].pattern);
  }
  frames(1);
  EXPECT_FALSE(attnlab::needs_redraw(app, 10.0));  // nothing left to do: the lab goes idle
}

TEST_F(Learn, BadSettingsAreRefusedWithTheFieldNamedAndTheRunKept) {
  click("mode_learn");
  click("learn_stop_early");  // a run that goes on, to be paused half-way
  click("learn_train");
  click("learn_train");  // pause
  const int at = L().run().step;
  ASSERT_GT(at, 0);
  const auto before = weights();
  struct Bad {
    const char* field;
    void (*set)(attn::learn::TrainSetup&);
  } cases[] = {
      {"train.lr", [](attn::learn::TrainSetup& s) { s.train.adamw.lr = 0.0f; }},
      {"train.lr", [](attn::learn::TrainSetup& s) { s.train.adamw.lr = std::nanf(""); }},
      {"train.steps", [](attn::learn::TrainSetup& s) { s.train.steps = 1000000000; }},
      {"temperature", [](attn::learn::TrainSetup& s) { s.spec.temperature = INFINITY; }},
      {"train.batch", [](attn::learn::TrainSetup& s) { s.train.batch = 0; }},
      {"heads", [](attn::learn::TrainSetup& s) { s.spec.heads = 0; }},
  };
  for (const Bad& b : cases) {
    const attn::learn::TrainSetup good = L().setup;
    b.set(L().setup);
    click("learn_train");
    EXPECT_NE(L().error.find(b.field), std::string::npos) << b.field << ": " << L().error;
    EXPECT_FALSE(L().run().running) << b.field;
    EXPECT_EQ(L().run().step, at) << b.field;
    EXPECT_EQ(weights(), before) << b.field;
    L().setup = good;
  }
  // The page API refuses the same way, and the paused run is still there.
  EXPECT_NE(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"lr": 0}})").find("train.lr"), std::string::npos);
  EXPECT_NE(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 1000000000}})").find("train.steps"),
            std::string::npos);
  EXPECT_NE(attnlab::learn_train_json(app, R"({"task": "juggling"})").find("task"), std::string::npos);
  EXPECT_NE(attnlab::learn_train_json(app, "{not json").size(), 0u);
  EXPECT_EQ(L().run().step, at);
  EXPECT_NE(attnlab::learn_status_json(app).find("\"state\":\"paused\""), std::string::npos);
  // A good setting clears the message and resumes.
  click("learn_train");
  EXPECT_TRUE(L().error.empty());
  EXPECT_GT(L().run().step, at);
}

TEST_F(Learn, PageApiTrainsAndReportsLikeTheCli) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 60, "eval_every": 20, "seed": 7}})"), "");
  EXPECT_TRUE(app.ui.learn_mode);
  train_to_end();
  const std::string status = attnlab::learn_status_json(app);
  for (const char* k : {"\"state\":\"done\"", "\"step\":60", "\"steps\":60", "\"loss\":", "\"accuracy\":", "\"pattern_score\":[[", "\"saturation\":[["})
    EXPECT_NE(status.find(k), std::string::npos) << k << " in " << status;
  // The history holds step 0, 20, 40, 60, and equals a second run with the same seed.
  const std::string h1 = attnlab::learn_history_json(app);
  attn::learn::Trainer again;
  attn::learn::TrainSetup s = L().run().run_setup;
  ASSERT_EQ(again.start(s), "");
  again.evaluate();
  while (!again.done()) again.run(s.train.eval_every);
  ASSERT_EQ(again.history().size(), L().run().history.size());
  for (size_t i = 0; i < again.history().size(); ++i) {
    EXPECT_EQ(again.history()[i].step, L().run().history[i].step);
    EXPECT_EQ(again.history()[i].loss, L().run().history[i].loss) << i;  // bit-identical: same code, same seed
  }
  EXPECT_EQ(std::count(h1.begin(), h1.end(), '{') >= 4, true);
  attnlab::learn_stop(app);
  EXPECT_FALSE(L().run().running);
}

}  // namespace

namespace {

TEST_F(Learn, LongRunsKeepAnEvenSpreadOfSnapshots) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 450, "eval_every": 2, "eval_batch": 16}})"), "");
  train_to_end();
  const auto& snaps = L().run().snapshot_steps;
  EXPECT_EQ(L().run().history.size(), 226u);  // step 0 and every second step
  EXPECT_LE(snaps.size(), attn::learn::SessionState::kMaxSnapshots);
  EXPECT_GE(snaps.size(), attn::learn::SessionState::kMaxSnapshots / 2);
  EXPECT_EQ(snaps.front(), 0);
  EXPECT_EQ(snaps.back(), 450);
  for (size_t i = 1; i < snaps.size(); ++i) EXPECT_LT(snaps[i - 1], snaps[i]);
}

}  // namespace

namespace {

TEST_F(Learn, OpenInTheLabShowsTheTrainedLayerInTheMatrices) {
  EXPECT_NE(attnlab::learn_open_in_lab(app, 0), "");  // nothing trained yet: refused, the lab untouched
  EXPECT_FALSE(app.ui.learn_mode);
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "train": {"steps": 20}})"), "");
  train_to_end();
  frames(1);
  const auto probe = L().run().probe;
  ASSERT_EQ(probe.layers, 2);
  for (int layer : {0, 1}) {
    app.ui.learn_mode = true;
    click("learn_open");  // the button opens layer 0; the API any layer
    if (layer == 1) {
      ASSERT_EQ(attnlab::learn_open_in_lab(app, 1), "");
    }
    frames(2);
    EXPECT_FALSE(app.ui.learn_mode);
    const attn::Result& r = app.engine.result();
    ASSERT_EQ(r.n, probe.n);
    ASSERT_EQ(r.heads, probe.heads);
    // The lab's engine computes the same attention as the model's layer (same stages, float tolerance).
    for (int h = 0; h < r.heads; ++h) {
      const attn::MatView a = r.weights_head(h);
      for (int i = 0; i < r.n; ++i)
        for (int j = 0; j < r.m; ++j)
          EXPECT_NEAR(a(i, j), probe.weights[layer][((size_t)h * probe.n + i) * probe.m + j], 1e-4) << layer << " " << h << " " << i << " " << j;
    }
    EXPECT_TRUE(app.view_rects[(int)attnlab::View::weights].drawn);
    // The lab says what the model uses: trained weights (task, layer, step), learned positions in X.
    EXPECT_TRUE(app.ui.origin.active);
    EXPECT_EQ(app.ui.origin.layer, layer);
    EXPECT_EQ(app.ui.origin.positional, attn::Positional::learned);
    EXPECT_EQ(app.engine.config().positional, attn::Positional::none) << "nothing added on top of the model's X";
    EXPECT_NE(app.widget_rects.find("model_origin"), app.widget_rects.end()) << "the Controls say so";
  }
  EXPECT_NE(attnlab::learn_open_in_lab(app, 2), "");  // no such layer
  // Any other setup is the lab's own again.
  ASSERT_EQ(attnlab::apply_config(app, attnlab::default_lab_config()), "");
  EXPECT_FALSE(app.ui.origin.active);
}

}  // namespace

namespace {

TEST_F(Learn, TheProbeShowsThisExamplesGradients) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 30}})"), "");
  train_to_end();
  L().probe_view = 2;  // ∂L/∂S
  attnlab::learn_probe_gradients(app, true);
  frames(2);
  const auto& p = L().run().probe;
  ASSERT_EQ(p.score_grads.size(), 1u);
  ASSERT_EQ(p.weight_grads.size(), 1u);
  double largest = 0;
  for (int h = 0; h < p.heads; ++h)
    for (int i = 0; i < p.n; ++i) {
      // Through a softmax row the score gradients sum to zero: Σ_j ∂L/∂S_ij = Σ_j A_ij (g_ij − Σ_k A_ik g_ik) = 0.
      double row = 0;
      for (int j = 0; j < p.m; ++j) {
        const float g = p.score_grads[0][((size_t)h * p.n + i) * p.m + j];
        row += g;
        largest = std::max(largest, (double)std::fabs(g));
        if (j > i) {
          EXPECT_EQ(g, 0.0f) << "masked cell " << i << "," << j;  // causal: no gradient
        }
      }
      EXPECT_NEAR(row, 0.0, 1e-5) << h << " " << i;
    }
  EXPECT_GT(largest, 0.0);
  EXPECT_NE(app.widget_rects.find("learn_probe_view"), app.widget_rects.end());
}

}  // namespace

namespace {

// On a phone the Learn windows take turns under a row of tabs, each using the whole width; on a
// laptop they stand side by side and there are no tabs.
TEST_F(Learn, OnAPhoneEachLearnWindowGetsTheScreenUnderTabs) {
  attnlab::set_learn_mode(app, true);
  frames(2);
  EXPECT_EQ(app.widget_rects.count("learn_tab_Curves"), 0u) << "no tabs at 1280x720";
  ImGui::GetIO().DisplaySize = ImVec2(390, 844);
  frames(3);
  const struct { const char* tab; const char* window; } tabs[] = {
      {"learn_tab_Training", "Training"}, {"learn_tab_Curves", "Curves"}, {"learn_tab_Attention", "Attention on a probe"}};
  for (const auto& t : tabs) {
    click(t.tab);
    frames(2);
    const ImGuiWindow* w = attnlab::find_window(t.window);
    ASSERT_NE(w, nullptr) << t.window;
    EXPECT_TRUE(w->WasActive) << t.window << " is not shown after its tab";
    EXPECT_NEAR(w->Size.x, 390.0f, 0.5f) << t.window;
    EXPECT_GE(w->Pos.y, 0.0f);
    EXPECT_LE(w->Pos.y + w->Size.y, 844.5f) << t.window;
    for (const auto& other : tabs)
      if (other.window != t.window) {
        const ImGuiWindow* o = attnlab::find_window(other.window);
        EXPECT_TRUE(o == nullptr || !o->WasActive) << other.window << " is shown beside " << t.window;
      }
  }
}

}  // namespace

namespace {

TEST_F(Learn, ATrainedModelLeavesAsAFileAndComesBackTheSame) {
  EXPECT_EQ(attnlab::learn_model_json(app), "");  // nothing trained yet
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 80, "eval_every": 40, "seed": 3}})"), "");
  train_to_end();
  // The Download model button hands the shell a model file (what attnlab-cli run reads).
  std::string saved_name, saved;
  app.download = [&](const std::string& name, const std::string&, const std::string& data) { saved_name = name, saved = data; };
  app.ui.learn_mode = true;
  frames(1);
  click("learn_download");
  EXPECT_EQ(saved_name, "attnlab-previous_token-step80.json");
  ASSERT_TRUE(attn::is_model_json(saved));
  const std::vector<float> trained = weights();
  const double trained_loss = L().run().history.back().loss;
  const std::vector<attn::learn::EvalPoint> trained_history = L().run().history;  // steps 0, 40, 80
  ASSERT_EQ(trained_history.size(), 3u);

  // A model that is not one, or a damaged one, is refused naming the field, and the run is kept.
  std::string broken = saved;
  broken.replace(broken.find("\"w_e\""), 5, "\"w_x\"");
  EXPECT_EQ(attnlab::learn_open_model(app, broken).rfind("weights.w_e: missing", 0), 0u) << attnlab::learn_open_model(app, broken);
  EXPECT_EQ(attnlab::learn_open_model(app, "{\"format\": \"attnlab-model\"}"), "config: missing");
  std::string bad_history = saved;
  bad_history.replace(bad_history.find("\"step\": 40"), 10, "\"step\": 90");  // after the file's own step
  EXPECT_EQ(attnlab::learn_open_model(app, bad_history), "history[1].step: must be between 1 and 80");
  EXPECT_EQ(weights(), trained);

  // A fresh lab opens it: the same weights at step 80, paused, and the same held-out loss.
  attnlab::learn_reset(app);
  ASSERT_NE(weights(), trained);
  ASSERT_EQ(attnlab::learn_open_model(app, saved), "");
  evaluated();
  EXPECT_TRUE(app.ui.learn_mode);
  EXPECT_FALSE(L().run().running);
  EXPECT_EQ(L().run().step, 80);
  EXPECT_EQ(weights(), trained);
  // The file's record of the run (steps 0 and 40), then step 80 evaluated again here.
  ASSERT_EQ(L().run().history.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    const attn::learn::EvalPoint &a = L().run().history[i], &b = trained_history[i];
    EXPECT_EQ(a.step, b.step);
    EXPECT_FLOAT_EQ((float)a.loss, (float)b.loss);  // the file holds floats
    EXPECT_FLOAT_EQ((float)a.accuracy, (float)b.accuracy);
    ASSERT_EQ(a.pattern.size(), b.pattern.size());
    for (size_t k = 0; k < a.pattern.size(); ++k) EXPECT_FLOAT_EQ((float)a.pattern[k], (float)b.pattern[k]);
    EXPECT_EQ(a.saturation.size(), b.saturation.size());
  }
  EXPECT_EQ(L().run().history.back().step, 80);
  EXPECT_EQ(L().run().history.back().loss, trained_loss);  // same weights, same held-out set (seed)
  // A file written before saturation was measured: its history opens, and saved again opens again.
  auto older = nlohmann::json::parse(saved);
  for (auto& line : older["history"]) line.erase("saturation");
  ASSERT_EQ(attnlab::learn_open_model(app, older.dump()), "");
  evaluated();
  EXPECT_TRUE(L().run().history.front().saturation.empty());
  ASSERT_EQ(attnlab::learn_open_model(app, attnlab::learn_model_json(app)), "");
  evaluated();
  ASSERT_EQ(attnlab::learn_open_model(app, saved), "");
  evaluated();
  EXPECT_EQ(std::string(attnlab::learn_phase(L())), "done");

  // A dropped or picked file: a model opens in Learn mode, a config in the lab; a bad one says why on screen.
  app.ui.learn_mode = false;
  EXPECT_EQ(attnlab::open_file_text(app, "m.json", saved), "");
  EXPECT_TRUE(app.ui.learn_mode);
  EXPECT_EQ(attnlab::open_file_text(app, "c.json", R"({"text": "dropped on the lab", "heads": 2})"), "");
  EXPECT_FALSE(app.ui.learn_mode);
  EXPECT_EQ(app.engine.config().heads, 2);
  EXPECT_NE(attnlab::open_file_text(app, "bad.json", "{\"heads\": 0}"), "");
  EXPECT_NE(app.notice.find("bad.json was not opened: heads:"), std::string::npos) << app.notice;
  // The run's link config trains the same run again.
  attn::learn::TrainSetup again;
  ASSERT_EQ(attn::parse_train_config(attnlab::learn_run_json(app), again), "");
  EXPECT_TRUE(again == L().run().run_setup);
}

}  // namespace

namespace {

TEST_F(Learn, YourOwnInputIsTheProbeAndAnUnknownTokenIsNamed) {
  EXPECT_NE(attnlab::learn_set_probe(app, "a b"), "");  // nothing trained yet
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "induction", "train": {"steps": 300, "seed": 2}})"), "");
  train_to_end();
  // A repeated pattern typed in the task's letters: the trained induction model predicts its continuation.
  const std::string pattern = "c f k p u c f k p u c f k";
  ASSERT_EQ(attnlab::learn_set_probe(app, pattern), "") << L().probe_error;
  frames(1);
  ASSERT_TRUE(L().run().typed_probe);
  ASSERT_EQ(L().run().probe.n, 13);
  const auto& task = (*L().run().task);
  EXPECT_EQ(task.token_name(L().run().probe.predictions[11]), "k");  // after "... c f": k
  EXPECT_EQ(task.token_name(L().run().probe.predictions[12]), "p");  // after "... c f k": p
  // The ideal pattern follows the typed input (prefix matching on its repeats).
  ASSERT_EQ(L().run().ideal.size(), 2u);
  EXPECT_GT(L().run().ideal[1][(size_t)12 * 13 + 3], 0.0f);  // query 12 (k) -> key 3 (p, after the earlier k)

  // An unknown token is named with the vocabulary, and the probe stays as it was.
  const std::string err = attnlab::learn_set_probe(app, "c f Q");
  EXPECT_EQ(err.rfind("probe: 'Q' is not in the vocabulary (", 0), 0u) << err;
  EXPECT_EQ(L().probe_error, err);
  EXPECT_EQ(L().run().probe.n, 13);
  // Too long for the learned positions: refused naming the limit.
  std::string longer;
  for (int i = 0; i < 40; ++i) longer += "a ";
  EXPECT_EQ(attnlab::learn_set_probe(app, longer).rfind("probe: ", 0), 0u);

  // Open in the lab shows your input, stage by stage.
  ASSERT_EQ(attnlab::learn_open_in_lab(app, 1), "");
  frames(2);
  EXPECT_EQ(app.engine.result().tokens.size(), 13u);
  EXPECT_EQ(app.engine.result().tokens[3], "p");
  // Empty: back to the held-out example.
  ASSERT_EQ(attnlab::learn_set_probe(app, ""), "");
  EXPECT_FALSE(L().run().typed_probe);
  EXPECT_EQ(L().run().probe.n, 32);
}

}  // namespace

namespace {

TEST_F(Learn, TheGradientOfAWeightMatrixOnTheProbeMatchesFiniteDifferences) {
  ASSERT_EQ(attnlab::learn_train_json(app, R"({"task": "previous_token", "train": {"steps": 20, "seed": 4}})"), "");
  train_to_end();
  app.ui.learn_mode = true;
  L().probe_view = 3;  // ∂L/∂W
  attnlab::learn_probe_gradients(app, true);
  const auto tensors = attn::learn::param_layout(L().run().run_setup.spec);
  int wq = -1;
  for (int t = 0; t < (int)tensors.size(); ++t)
    if (tensors[(size_t)t].name == "layers.0.w_q") wq = t;
  ASSERT_GE(wq, 0);
  L().grad_tensor = wq;
  frames(2);
  const auto& g = L().run().probe.param_grads;
  ASSERT_EQ(g.size(), tensors.back().offset + tensors.back().size());
  const auto cells = app.widget_rects.find("learn_grad_cells");
  ASSERT_NE(cells, app.widget_rects.end()) << "the matrix is drawn";
  const attn::learn::Tensor& t = tensors[(size_t)wq];
  EXPECT_NEAR(cells->second.z / cells->second.w, (float)t.cols / (float)t.rows, 0.05f);  // one cell per entry
  // The largest entry against a central difference of this example's loss.
  size_t at = t.offset;
  for (size_t i = t.offset; i < t.offset + t.size(); ++i)
    if (std::fabs(g[i]) > std::fabs(g[at])) at = i;
  ASSERT_GT(std::fabs(g[at]), 1e-4f);
  const attn::learn::Example e = attnlab::learn_probe_example(L());
  const std::vector<float> live = weights();
  const float eps = 1e-2f;
  attn::learn::Trainer other;  // the same model on its own: the session's run is not touched
  ASSERT_EQ(other.start(L().run().run_setup), "");
  std::vector<float> w = live;
  w[at] = live[at] + eps;
  other.restore(w);
  const double up = other.probe(e, false).loss;
  w[at] = live[at] - eps;
  other.restore(w);
  const double down = other.probe(e, false).loss;
  EXPECT_NEAR((up - down) / (2.0 * eps), g[at], 0.05 * std::fabs(g[at]) + 1e-4);
  // A typed input has no targets: the same view is all zero.
  ASSERT_EQ(attnlab::learn_set_probe(app, "a b c d"), "");
  frames(1);
  for (size_t i = t.offset; i < t.offset + t.size(); ++i) ASSERT_EQ(L().run().probe.param_grads[i], 0.0f);
}

}  // namespace

namespace {

TEST_F(Learn, EveryExperimentLoadsBothVariantsAndTheLastRunStaysForComparison) {
  const auto all = attnlab::experiments();
  ASSERT_GE(all.size(), 5u);
  for (int i = 0; i < (int)all.size(); ++i)
    for (int v = 0; v < (int)all[(size_t)i].variants.size(); ++v) {
      ASSERT_EQ(attnlab::learn_load_experiment(app, i, v), "") << all[(size_t)i].key << " " << v;
      EXPECT_EQ(attn::learn::validate(L().setup), "") << all[(size_t)i].key << " " << v;
    }
  EXPECT_NE(attnlab::learn_load_experiment(app, 99, 0), "");
  for (const attnlab::Experiment& e : all) {  // assets/experiments.json, as the lab reads it
    EXPECT_FALSE(e.predict.empty()) << e.key;
    EXPECT_GE(e.choices.size(), 2u) << e.key;
    EXPECT_TRUE(e.answer >= 0 && e.answer < (int)e.choices.size()) << e.key;
    EXPECT_GT(e.measured.size(), 80u) << e.key;
    EXPECT_LT(e.measured.size(), 1000u) << e.key << ": text_wrapped_words draws at most 1023 bytes";
  }
  // The position experiment, shortened: variant A, then variant B; A's curves stay as the comparison.
  ASSERT_EQ(attnlab::learn_load_experiment(app, 1, 0), "");
  L().setup.train.steps = 30;
  ASSERT_EQ(attnlab::learn_train(app), "");
  train_to_end();
  const auto a_history = L().run().history;
  ASSERT_EQ(attnlab::learn_load_experiment(app, 1, 1), "");
  L().setup.train.steps = 30;
  EXPECT_EQ(L().setup.spec.positional, attn::Positional::none);
  ASSERT_EQ(attnlab::learn_train(app), "");
  EXPECT_EQ(L().run().compare.label, "learned positions");
  ASSERT_EQ(L().run().compare.loss.size(), a_history.size());
  EXPECT_EQ(L().run().compare.loss.back().second, (float)a_history.back().loss);
  train_to_end();
  app.ui.learn_mode = true;
  frames(2);
  EXPECT_NE(app.widget_rects.find("learn_variant_b"), app.widget_rects.end());
  // Another task: nothing to compare with.
  ASSERT_EQ(attnlab::learn_load_experiment(app, 2, 0), "");
  L().setup.train.steps = 5;
  ASSERT_EQ(attnlab::learn_train(app), "");
  EXPECT_TRUE(L().run().compare.loss.empty());
}

// An experiment asks for a prediction first and shows what was measured only once every one of its runs
// has ended: the outcome quotes each run, so it waits for the one not yet watched.
TEST_F(Learn, AnExperimentAsksForAPredictionAndRevealsTheOutcomeAfterTheRun) {
  click("mode_learn");
  ASSERT_EQ(attnlab::learn_load_experiment(app, 1, 0), "");  // why positions
  L().setup.train.steps = 20;
  frames(2);
  EXPECT_EQ(app.widget_rects.count("learn_measured"), 0u) << "nothing revealed before the run";
  EXPECT_NE(app.widget_rects.find("learn_predict_2"), app.widget_rects.end());
  click("learn_predict_1");
  EXPECT_EQ(L().predictions[1], 1);
  L().budget_ms = L().frame_target_ms = 0.01f;  // a part of a step a frame: the run is seen under way
  click("learn_train");
  frames(2);
  ASSERT_TRUE(L().run().running);
  app.widget_rects.erase("learn_measured");
  frames(1);
  EXPECT_EQ(app.widget_rects.count("learn_measured"), 0u) << "not while the run goes on";
  EXPECT_EQ(L().run().tag.experiment, 1);
  L().budget_ms = L().frame_target_ms = 1000.0f;
  train_to_end();
  frames(2);
  EXPECT_FALSE(L().revealed[1]) << "the other run (no positions) has not been trained";
  EXPECT_EQ(app.widget_rects.count("learn_measured"), 0u);
  ASSERT_NE(app.widget_rects.find("learn_experiment_todo"), app.widget_rects.end()) << "what is left to run is said";
  ASSERT_EQ(attnlab::learn_load_experiment(app, 1, 1), "");
  L().setup.train.steps = 20;
  click("learn_train");
  train_to_end();
  frames(2);
  EXPECT_TRUE(L().revealed[1]) << attnlab::learn_phase(L()) << " step " << L().run().step;
  EXPECT_NE(app.widget_rects.find("learn_measured"), app.widget_rects.end()) << "shown once both runs ended";
  // Another experiment starts unrevealed, and its button shows the outcome at once when asked.
  ASSERT_EQ(attnlab::learn_load_experiment(app, 2, 0), "");
  frames(2);
  EXPECT_FALSE(L().revealed[2]);
  click("learn_reveal");
  EXPECT_TRUE(L().revealed[2]);
}

}  // namespace

namespace {

// A recurrent model (docs/train.md) trains in Learn mode like any other: its curves, and in the probe's
// place the influence matrix, since it has no attention to show; Open in the lab says why not.
TEST_F(Learn, ARecurrentModelShowsItsInfluenceMatrixInsteadOfHeads) {
  train_small_rnn();
  ASSERT_STREQ(attnlab::learn_phase(L()), "done");
  const attn::learn::Probe& p = L().run().probe;
  ASSERT_EQ(p.influence.size(), 100u) << "the probe asks for the influence matrix";
  for (int i = 0; i < 10; ++i)
    for (int j = i + 1; j < 10; ++j) EXPECT_EQ(p.influence[(size_t)i * 10 + j], 0.0f) << "a later token moves no earlier prediction";
  const auto drawn = app.widget_rects.find("learn_influence");
  ASSERT_NE(drawn, app.widget_rects.end());
  EXPECT_NEAR(drawn->second.z, drawn->second.w, 1.0f);  // square: n × n
  EXPECT_EQ(attnlab::learn_open_in_lab(app, 0), "a recurrent model has no attention layers to open in the lab");
  EXPECT_FALSE(L().run().history.empty());
}

}  // namespace

namespace {

int experiment_index(const char* key) {
  const auto all = attnlab::experiments();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].key == key) return (int)i;
  return -1;
}

// The settings' model block by mouse: the RNN picked in the combo shows its hidden size and the delayed
// copy's distance; a task an RNN cannot read is refused on screen with the engine's reason, and Train
// says the same and starts nothing.
TEST_F(Learn, PickingAnRnnInTheSettingsShowsItsSizeAndRefusesABidirectionalTask) {
  click("mode_learn");
  L().setup = attnlab::learn_defaults(*attn::learn::find_task("delayed_copy"));
  frames(2);
  EXPECT_EQ(app.widget_rects.count("learn_hidden"), 0u) << "attention has no hidden size";
  EXPECT_NE(app.widget_rects.find("learn_heads"), app.widget_rects.end());
  ASSERT_NE(app.widget_rects.find("learn_distance"), app.widget_rects.end()) << "the delayed copy's distance";
  click("learn_model");
  click("learn_model_rnn");
  EXPECT_EQ(L().setup.spec.model, attn::learn::Arch::rnn);
  frames(2);
  EXPECT_NE(app.widget_rects.find("learn_hidden"), app.widget_rects.end());
  app.widget_rects.erase("learn_heads");
  frames(1);
  EXPECT_EQ(app.widget_rects.count("learn_heads"), 0u) << "an RNN has no heads to set";
  EXPECT_EQ(app.widget_rects.count("learn_model_refused"), 0u) << "an RNN can learn the delayed copy";
  // The distance slider, by mouse: its left end is distance 1.
  scroll_into_view("learn_distance");
  const ImVec4 r = app.widget_rects.at("learn_distance");
  click(ImVec2(r.x + 2.0f, r.y + r.w * 0.5f));
  frames(1);
  EXPECT_EQ(L().setup.spec.distance, 1);
  // Reverse needs later tokens: refused on screen and by Train, naming model.
  auto s = attnlab::learn_defaults(*attn::learn::find_task("reverse"));
  s.spec.model = attn::learn::Arch::rnn;
  L().setup = s;
  frames(2);
  ASSERT_NE(app.widget_rects.find("learn_model_refused"), app.widget_rects.end());
  click("learn_train");
  EXPECT_EQ(L().error.rfind("model: task reverse needs to see later tokens", 0), 0u) << L().error;
  EXPECT_FALSE(L().run().started);
}

// The experiment by clicks: its three variants, the distance every run uses, the runs' curves (the
// last in grey), the measured outcome after a run, and the lesson's views: gradient against distance
// (the untrained RNN's falls with distance, attention's does not), accuracy against distance with this
// page's runs on it, the influence matrix beside the attention weights, and the path-length diagram.
TEST_F(Learn, TheRecurrenceExperimentComparesAttentionWithAnRnnAndShowsTheLesson) {
  click("mode_learn");
  const int e = experiment_index("recurrence");
  ASSERT_GE(e, 0);
  const attnlab::Experiment& x = attnlab::experiments()[(size_t)e];
  ASSERT_EQ(x.variants.size(), 3u);
  ASSERT_EQ(x.sweep.size(), 3u) << "attention, rnn and lstm against distance";
  ASSERT_EQ(attnlab::learn_load_experiment(app, e, 0), "");
  frames(2);
  click("learn_variant_b");  // RNN
  EXPECT_EQ(L().setup.spec.model, attn::learn::Arch::rnn);
  EXPECT_EQ(L().setup.spec.distance, 16);
  // The experiment's distance slider at about a quarter: every variant loaded after it keeps it.
  scroll_into_view("learn_experiment_distance");
  const ImVec4 r = app.widget_rects.at("learn_experiment_distance");
  click(ImVec2(r.x + r.z * 0.22f, r.y + r.w * 0.5f));
  const int d = L().setup.spec.distance;
  EXPECT_GT(d, 1);
  EXPECT_LT(d, 16);
  EXPECT_EQ(L().experiment_distance, d);
  click("learn_variant_c");
  EXPECT_EQ(L().setup.spec.model, attn::learn::Arch::lstm);
  EXPECT_EQ(L().setup.spec.distance, d) << "the slider's distance, not the config's";
  click("learn_variant_b");
  L().setup.train.steps = 60;
  click("learn_train");
  train_to_end();
  frames(3);
  ASSERT_STREQ(attnlab::learn_phase(L()), "done");
  EXPECT_EQ(L().run().run_setup.spec.distance, d);
  EXPECT_FALSE(L().revealed[(size_t)e]) << "no prediction made, and attention and the LSTM not yet run";
  EXPECT_EQ(app.widget_rects.count("learn_measured"), 0u);
  scroll_into_view("learn_reveal");
  click("learn_reveal");
  frames(2);
  EXPECT_TRUE(L().revealed[(size_t)e]) << "asked for";
  EXPECT_NE(app.widget_rects.find("learn_measured"), app.widget_rects.end());
  ASSERT_NE(app.widget_rects.find("learn_influence"), app.widget_rects.end()) << "the RNN's influence matrix";
  // Measured once, when the run ended: untrained and trained.
  ASSERT_EQ(L().grad_curves.size(), 2u);
  const auto& untrained = L().grad_curves[0];
  EXPECT_FALSE(untrained.trained);
  ASSERT_EQ(untrained.mean.size(), 32u);
  EXPECT_GT(untrained.mean[1], 100.0 * untrained.mean[8]) << "an untrained RNN's gradient fades with distance";
  click("learn_view_gradient");
  ASSERT_NE(app.widget_rects.find("learn_gradient_plot"), app.widget_rects.end());
  click("learn_clear_gradient");
  EXPECT_TRUE(L().grad_curves.empty());
  click("learn_measure_gradient");
  EXPECT_EQ(L().grad_curves.size(), 2u) << "the button measures again";

  // Attention, the same distance: the RNN run stays in grey.
  click("learn_variant_a");
  L().setup.train.steps = 60;
  click("learn_train");
  train_to_end();
  frames(3);
  EXPECT_EQ(L().run().compare.label, "RNN");
  ASSERT_EQ(L().grad_curves.size(), 4u);
  const auto& att = L().grad_curves[0];  // sorted: attention first, untrained before trained
  EXPECT_EQ(att.model, attn::learn::Arch::attention);
  EXPECT_FALSE(att.trained);
  EXPECT_LT(att.mean[1], 3.0 * att.mean[8]) << "attention's untrained gradient does not fade";
  click("learn_view_sweep");
  ASSERT_NE(app.widget_rects.find("learn_sweep_plot"), app.widget_rects.end());
  ASSERT_NE(app.widget_rects.find("learn_run_accuracy"), app.widget_rects.end());
  ASSERT_EQ(L().page_sweep.size(), 2u) << "both runs of this page on the plot";
  EXPECT_EQ(L().page_sweep[0].distance, d);
  click("learn_view_compare");
  EXPECT_EQ(L().last_recurrent.n, 32);
  EXPECT_EQ(L().last_attention.n, 32);
  EXPECT_NE(app.widget_rects.find("learn_compare_influence"), app.widget_rects.end());
  EXPECT_NE(app.widget_rects.find("learn_compare_attention"), app.widget_rects.end());
  click("learn_view_path");
  EXPECT_EQ(L().path_query, 31);
  EXPECT_EQ(L().path_key, 31 - d);
  EXPECT_NE(app.widget_rects.find("learn_path_rnn"), app.widget_rects.end());
  click("learn_view_probe");
  EXPECT_NE(app.widget_rects.find("learn_l0_h0"), app.widget_rects.end()) << "back to the heads";
}

}  // namespace

namespace {

// The recurrence experiment's prediction is judged where its slider is, as the line under the outcome
// measures it: by the sweep, all three models learn the copy at distance 4, attention and the LSTM at 6,
// only attention at 16. A teacher who moves the slider to 4 and predicts "all three" sees a tick.
TEST_F(Learn, TheRecurrencePredictionIsJudgedAtTheSlidersDistance) {
  click("mode_learn");
  const int e = experiment_index("recurrence");
  ASSERT_GE(e, 0);
  ASSERT_EQ(attnlab::learn_load_experiment(app, e, 0), "");
  frames(2);
  const attnlab::Experiment& x = attnlab::experiments()[(size_t)e];
  ASSERT_EQ(x.choice_learners.size(), x.choices.size()) << "who learns it, for each choice";
  EXPECT_EQ(attnlab::experiment_answer(x, 16), x.answer) << "the variants' own distance, 16, bears out the table's answer";
  // The mark on the prediction's line, as drawn, with the slider at `d` and choice `c` predicted.
  const auto mark = [&](int d, int c) -> std::string {
    L().experiment_distance = L().setup.spec.distance = d;  // what the slider sets
    click(("learn_predict_" + std::to_string(c)).c_str());
    if (!L().revealed[(size_t)e]) click("learn_reveal");
    app.capture_text = true;
    frames(1);
    const std::string line = "You predicted: " + std::string(attnlab::experiment_text(x, "choice." + std::to_string(c))) + ".";
    const size_t at = app.drawn_text.find(line);
    if (at == std::string::npos || at < 4) return "not drawn";
    const std::string before = app.drawn_text.substr(at - 4, 4);
    return before == "\xE2\x9C\x93 " ? "tick" : before == "\xE2\x9C\x97 " ? "cross" : "no mark";
  };
  EXPECT_EQ(mark(4, 0), "tick") << "all three learn it at distance 4";
  EXPECT_EQ(mark(4, 1), "cross");
  EXPECT_EQ(mark(6, 2), "tick") << "attention and the LSTM at distance 6";
  EXPECT_EQ(mark(16, 1), "tick") << "only attention at 16";
  EXPECT_EQ(mark(16, 0), "cross");
}

}  // namespace

namespace {

// A small RNN's run, then the lab on a projector: 1280x720 at UI scale 2 (the shells' font), where Learn
// mode's windows are tabs; `tab` shown.
class Projector : public Learn {
 protected:
  void show(const char* tab) {
    train_small_rnn();
    use_shell_font(2.0f);
    ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
    app.layout_dirty = true;
    frames(3);
    if (app.widget_rects.count(tab)) click(tab);
    frames(2);
  }
};

// The run's status can fill the Training window: the settings under it (the experiments' menu first) are
// reached by scrolling, not squeezed into a strip a few pixels tall that the wheel cannot bring them out of.
TEST_F(Projector, TheSettingsUnderALongStatusCanBeScrolledTo) {
  show("learn_tab_Training");
  scroll_into_view("learn_experiment");
  ASSERT_EQ(app.widget_visible.count("learn_experiment"), 1u) << "the experiments' menu is never in view";
  EXPECT_GE(app.widget_visible.at("learn_experiment").w, app.widget_rects.at("learn_experiment").w - 0.5f)
      << "only " << app.widget_visible.at("learn_experiment").w << " of its " << app.widget_rects.at("learn_experiment").w << " px in view";
}

// A recurrent run's influence matrix, under the probe's lines, is at least 10 text heights square (the
// window scrolls to it), not shrunk to the few pixels the window has left.
TEST_F(Projector, TheInfluenceMatrixKeepsAReadableSize) {
  show("learn_tab_Attention");
  ASSERT_EQ(app.widget_rects.count("learn_influence"), 1u);
  const ImVec4 m = app.widget_rects.at("learn_influence");
  EXPECT_GE(m.z, 10.0f * ImGui::GetFontSize() - 1.0f) << "the influence matrix is " << m.z << " px wide at a " << ImGui::GetFontSize() << " px font";
  EXPECT_NEAR(m.z, m.w, 1.0f) << "square";
}

}  // namespace
