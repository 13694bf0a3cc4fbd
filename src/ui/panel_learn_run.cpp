// panel_learn_run.cpp — the run's controls at the top of Learn mode's Training window: Train / Pause,
// Step, Reset, the model file and the link, and the run's status (step, speed, held-out figures, messages).
#include <cfloat>
#include <string>

#include "app.h"
#include "panel_learn.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

namespace {

// [SECTION] run buttons and status
// The run leaving the lab and coming back: the model as a file (attnlab-cli run reads it), a file
// opened, a link that trains the same run again.
void draw_file_buttons(App& app, LearnState& L) {
  // The buttons there are, side by side while they fit the panel's width, else on the next line.
  bool first = true;
  const auto next = [&](const char* label) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float w = ImGui::CalcTextSize(label).x + st.FramePadding.x * 2.0f;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (!first && ImGui::GetItemRectMax().x + st.ItemSpacing.x + w <= right) ImGui::SameLine();
    first = false;
  };
  if (app.download) {
    next("Download model");
    ImGui::BeginDisabled(!L.run().started);
    if (ImGui::SmallButton("Download model")) {
      const std::string name = "attnlab-" + L.run().run_setup.task + "-step" + std::to_string(L.run().step) + ".json";
      app.download(name, "application/json", learn_model_json(app));
    }
    ImGui::EndDisabled();
    remember_item(app, "learn_download");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("The weights as they are now, with the config: open it again here, or run it with attnlab-cli run");
  }
  if (app.open_file) {
    next("Open model...");
    if (ImGui::SmallButton("Open model...")) app.open_file();
    remember_item(app, "learn_open_file");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("A model file saved here or by attnlab-cli train --out (or drop it on the page)");
  }
  if (app.share_run) {
    next("Share run");
    if (ImGui::SmallButton("Share run")) {
      app.share_run(learn_run_json(app));
      notify(app, "Link copied: it trains this run again (same settings and seed give the same curves)");
    }
    remember_item(app, "learn_share");
  }
}

}  // namespace

void draw_learn_run_controls(App& app, LearnState& L) {
  const bool running = L.run().running;
  const float w = ImGui::GetFontSize() * 5.0f;
  if (ImGui::Button(running ? "Pause" : "Train", ImVec2(w, 0))) running ? learn_pause(app) : (void)learn_train(app);
  remember_item(app, "learn_train");
  ImGui::SameLine();
  if (ImGui::Button("Step", ImVec2(w, 0))) learn_step(app);
  remember_item(app, "learn_step");
  ImGui::SameLine();
  if (ImGui::Button("Reset", ImVec2(w, 0))) learn_reset(app);
  remember_item(app, "learn_reset");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to step 0: fresh weights from the seed, paused");
  ImGui::TextDisabled("Space: train/pause   . : one step");
  draw_file_buttons(app, L);

  if (!L.error.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "Not started: %s", L.error.c_str());
    ImGui::PopTextWrapPos();
  }
  if (L.run().started && L.setup != L.run().run_setup)
    ImGui::TextColored(ImVec4(1.0f, 0.80f, 0.35f, 1.0f), "Settings changed: Train starts a new run");
  if (!L.run().started) {
    ImGui::TextDisabled("Press Train to start.");
    return;
  }
  const lrn::SessionState& t = L.run();
  ImGui::Text("%s \xC2\xB7 step %d / %d", learn_phase(L), t.step, L.run().run_setup.train.steps);
  if (L.run().run_setup.train.stop_accuracy > 0.0f && !t.done) {
    ImGui::SameLine();
    ImGui::TextDisabled("(stops once converged)");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("This run ends early once the held-out accuracy is at least %.0f%% at %d evaluations in a row.",
                        100.0 * (double)L.run().run_setup.train.stop_accuracy, L.run().run_setup.train.stop_evaluations);
  }
  ImGui::ProgressBar(L.run().run_setup.train.steps ? (float)t.step / (float)L.run().run_setup.train.steps : 1.0f, ImVec2(-FLT_MIN, 0), "");
  if (L.run().running) ImGui::Text("%.0f steps/s (%d this frame)", L.run().steps_per_s, L.run().steps_last_work);
  else if (L.run().steps_per_s > 0) ImGui::TextDisabled("%.0f steps/s while running", L.run().steps_per_s);
  if (!t.history.empty()) {
    const lrn::EvalPoint& p = t.history.back();
    ImGui::Text("held-out loss %.4f", p.loss);
    if (L.run().run_setup.spec.recurrent()) ImGui::Text("accuracy %.1f%%", 100.0 * p.accuracy);  // no attention, no pattern
    else ImGui::Text("accuracy %.1f%%   pattern score %.2f", 100.0 * p.accuracy, p.pattern_score);
    ImGui::TextDisabled("(evaluated at step %d on %d sequences)", p.step, L.run().run_setup.train.eval_batch);
  }
  if (!t.message.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(t.converged ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "%s", t.message.c_str());
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_message");
  } else if (t.done && !t.history.empty() && t.history.back().accuracy < 0.9) {
    // A run that ended without learning its task: say so, rather than leave the curves to be read as done.
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.35f, 1.0f), "Not learned yet: %.0f%% right after all %d steps. More steps (or another setting) "
                       "may help; some set-ups cannot learn this task at all (see Experiments).",
                       100.0 * t.history.back().accuracy, t.step);
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_not_learned");
  }
}

}  // namespace attnlab
