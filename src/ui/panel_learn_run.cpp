// panel_learn_run.cpp — the run's controls at the top of Learn mode's Training window: Train / Pause,
// Step, Reset, the model file and the link, and the run's status (step, speed, held-out figures, messages).
#include <algorithm>
#include <cfloat>
#include <string>

#include "app.h"
#include "i18n.h"
#include "learn_widgets.h"
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
    const char* label = tr_id("learn.download", "learn_download");
    next(label);
    ImGui::BeginDisabled(!L.run().started);
    if (ImGui::SmallButton(label)) {
      const std::string name = "attnlab-" + L.run().run_setup.task + "-step" + std::to_string(L.run().step) + ".json";
      // With training in a worker the weights may not have crossed yet: say so rather than save nothing.
      if (const std::string json = learn_model_json(app); json.empty()) notify(app, tr("notice.weights_coming"));
      else app.download(name, "application/json", json);
    }
    ImGui::EndDisabled();
    remember_item(app, "learn_download");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", tr("learn.download.tip"));
  }
  if (app.open_file) {
    const char* label = tr_id("learn.open_file", "learn_open_file");
    next(label);
    if (ImGui::SmallButton(label)) app.open_file();
    remember_item(app, "learn_open_file");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("learn.open_file.tip"));
  }
  if (app.share_run) {
    const char* label = tr_id("learn.share", "learn_share");
    next(label);
    if (ImGui::SmallButton(label)) {
      app.share_run(learn_run_json(app));
      notify(app, tr("learn.share.copied"));
    }
    remember_item(app, "learn_share");
  }
}

// The run's state under its buttons: phase and step, speed, the last evaluation, and why it ended.
void draw_status(App& app, LearnState& L) {
  if (!L.error.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_colored(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), trf("learn.not_started", {{"reason", L.error}}).c_str());
    ImGui::PopTextWrapPos();
  }
  if (L.run().started && L.setup != L.run().run_setup)
    text_wrapped_colored(ImVec4(1.0f, 0.80f, 0.35f, 1.0f), tr("learn.settings_changed"));
  if (!L.run().started) {
    text_wrapped_disabled(tr("learn.press_train"));
    return;
  }
  const lrn::SessionState& t = L.run();
  text_wrapped_words("%s", trf("learn.phase_step", {{"phase", tr_dynamic(std::string("learn.phase.") + learn_phase(L), learn_phase(L))},
                                                   {"step", t.step}, {"steps", L.run().run_setup.train.steps}}).c_str());
  if (L.run().run_setup.train.stop_accuracy > 0.0f && !t.done) {
    // Beside the step while it fits whole (or 8 em of it: text_wrapped_words wraps no narrower), else below.
    same_line_if_room(std::min(ImGui::CalcTextSize(tr("learn.stops_converged")).x, 8.0f * ImGui::GetFontSize()));
    ImGui::BeginGroup();  // the tooltip answers on each of its lines
    text_wrapped_disabled(tr("learn.stops_converged"));
    ImGui::EndGroup();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", trf("learn.stops_converged.tip", {{"pct", num(100.0 * (double)L.run().run_setup.train.stop_accuracy, 0)},
                                                              {"n", L.run().run_setup.train.stop_evaluations}}).c_str());
  }
  ImGui::ProgressBar(L.run().run_setup.train.steps ? (float)t.step / (float)L.run().run_setup.train.steps : 1.0f, ImVec2(-FLT_MIN, 0), "");
  if (L.run().running)
    text_wrapped_words("%s", trf("learn.speed", {{"rate", num(L.run().steps_per_s, 0)}, {"n", L.run().steps_last_work}}).c_str());
  else if (L.run().steps_per_s > 0)
    text_wrapped_disabled(trf("learn.speed_paused", {{"rate", num(L.run().steps_per_s, 0)}}).c_str());
  if (!t.history.empty()) {
    const lrn::EvalPoint& p = t.history.back();
    text_wrapped_words("%s", trf("learn.heldout_loss", {{"loss", num(p.loss, 4)}}).c_str());
    if (L.run().run_setup.spec.recurrent())  // no attention, no pattern
      text_wrapped_words("%s", trf("learn.accuracy", {{"pct", num(100.0 * p.accuracy, 1)}}).c_str());
    else
      text_wrapped_words("%s", trf("learn.accuracy_pattern", {{"pct", num(100.0 * p.accuracy, 1)}, {"score", num(p.pattern_score, 2)}}).c_str());
    text_wrapped_disabled(trf("learn.evaluated", {{"step", p.step}, {"n", L.run().run_setup.train.eval_batch}}).c_str());
  }
  if (!t.message.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::BeginGroup();  // one item for remember_item
    text_wrapped_colored(t.converged ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.45f, 0.40f, 1.0f), t.message.c_str());
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_message");
  } else if (t.done && !t.history.empty() && t.history.back().accuracy < 0.9) {
    // A run that ended without learning its task: say so, rather than leave the curves to be read as done.
    ImGui::PushTextWrapPos(0.0f);
    ImGui::BeginGroup();
    text_wrapped_colored(ImVec4(1.0f, 0.8f, 0.35f, 1.0f),
                         trf("learn.not_learned", {{"pct", num(100.0 * t.history.back().accuracy, 0)}, {"steps", t.step}}).c_str());
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_not_learned");
  }
}

}  // namespace

void draw_learn_run_controls(App& app, LearnState& L) {
  const bool running = L.run().running;
  // One width for the three buttons: 5 text heights, or the longest label where a language needs more.
  const char* train = running ? tr_id("learn.pause", "learn_train") : tr_id("learn.train", "learn_train");
  const char* step = tr_id("learn.step", "learn_step");
  const char* reset = tr_id("learn.reset", "learn_reset");
  float w = ImGui::GetFontSize() * 5.0f;
  for (const char* label : {tr("learn.pause"), tr("learn.train"), step, reset})
    w = std::max(w, ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x);
  const auto beside = [&] {  // the next button on this line while it fits the window
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right) ImGui::SameLine();
  };
  if (ImGui::Button(train, ImVec2(w, 0))) running ? learn_pause(app) : (void)learn_train(app);
  remember_item(app, "learn_train");
  beside();
  if (ImGui::Button(step, ImVec2(w, 0))) learn_step(app);
  remember_item(app, "learn_step");
  beside();
  if (ImGui::Button(reset, ImVec2(w, 0))) learn_reset(app);
  remember_item(app, "learn_reset");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("learn.reset.tip"));
  ImGui::PushTextWrapPos(0.0f);  // every line below wraps at the window's edge (a phone, a longer language)
  text_wrapped_disabled(tr("learn.keys"));
  draw_file_buttons(app, L);
  draw_status(app, L);
  ImGui::PopTextWrapPos();
}


}  // namespace attnlab
