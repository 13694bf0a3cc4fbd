// panel_learn_settings.cpp — Learn mode's settings: an experiment (a question, its runs, a prediction
// to make first), the task, the model's sizes and attention settings, and the training's.
#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "mask.h"
#include "panel_learn.h"
#include "panel_recurrent.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

namespace {

// [SECTION] settings
void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.70f, 0.75f, 0.85f, 1.0f), "%s", title);
  ImGui::Separator();
}

// Settings sit two to a row: `second` puts the next one in the right half.
void second() { ImGui::SameLine(ImGui::GetWindowContentRegionMin().x + ImGui::GetContentRegionAvail().x * 0.5f + 4.0f); }
float field_width() { return ImGui::GetFontSize() * 3.6f; }

bool input_int(const char* label, int* v, const char* help) {
  ImGui::SetNextItemWidth(field_width());
  const bool changed = ImGui::InputInt(label, v, 0, 0);
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  return changed;
}

bool input_float(const char* label, float* v, const char* help) {
  ImGui::SetNextItemWidth(field_width());
  const bool changed = ImGui::InputFloat(label, v, 0, 0, "%.4g");
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  return changed;
}

bool has_causal(const std::vector<attn::MaskTerm>& mask) {
  return std::any_of(mask.begin(), mask.end(), [](const auto& t) { return t.kind == attn::MaskTerm::Kind::causal; });
}

// The lab's attention settings (sizes, encoding, scale, temperature, mask) into the model's spec.
void take_lab_settings(App& app, lrn::TrainSetup& s) {
  const attn::Config& c = app.engine.config();
  s.spec.d_model = c.d_model, s.spec.heads = c.heads, s.spec.d_k = c.d_k, s.spec.d_v = c.d_v;
  s.spec.positional = c.positional;
  s.spec.scale_mode = c.scale_mode, s.spec.scale_value = c.scale_value;
  s.spec.temperature = c.temperature;
  s.spec.mask.clear();
  for (const attn::MaskTerm& t : c.mask)  // hand-drawn and padding masks belong to the lab's own tokens
    if (t.kind != attn::MaskTerm::Kind::custom && t.kind != attn::MaskTerm::Kind::padding) s.spec.mask.push_back(t);
}

// Experiments: a question, two runs that answer it, a prediction to make before training, and what
// the runs gave when measured, revealed once a run of the experiment has ended.
void draw_experiment(App& app, LearnState& L) {
  const auto all = experiments();
  ImGui::SetNextItemWidth(-FLT_MIN);
  // The combo shows the question, or what experiments are; where that does not fit in its frame, a short
  // name, and the question then in full under it (a combo cannot wrap its text).
  const char* question = L.experiment >= 0 ? experiment_text(all[(size_t)L.experiment], "question") : tr("learn.experiments");
  const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - 2.0f * ImGui::GetStyle().FramePadding.x;
  const bool fits = ImGui::CalcTextSize(question).x <= room;
  const std::string preview = fits ? question
                              : L.experiment >= 0 ? trf("learn.experiment.number", {{"k", L.experiment + 1}, {"n", (int)all.size()}})
                                                  : std::string(tr("learn.experiments.short"));
  if (ImGui::BeginCombo("##experiment", preview.c_str())) {
    for (int i = 0; i < (int)all.size(); ++i) {
      ImGui::PushID(i);
      if (ImGui::Selectable(experiment_text(all[(size_t)i], "question"), i == L.experiment)) learn_load_experiment(app, i, 0);
      ImGui::PopID();
      remember_item(app, ("learn_experiment_" + all[(size_t)i].key).c_str());
    }
    if (L.experiment >= 0 && ImGui::Selectable(tr("learn.experiments.none"))) L.experiment = -1;
    ImGui::EndCombo();
  }
  remember_item(app, "learn_experiment");
  if (L.experiment < 0) return;
  if (!fits) text_wrapped_colored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), question);
  const Experiment& e = all[(size_t)L.experiment];
  for (int v = 0; v < (int)e.variants.size(); ++v) {
    const bool on = L.variant == v;
    if (v) same_line_if_fits(experiment_text(e, "variant." + std::to_string(v)));
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    ImGui::PushID(v);
    if (ImGui::SmallButton(experiment_text(e, "variant." + std::to_string(v)))) learn_load_experiment(app, L.experiment, v);
    ImGui::PopID();
    if (on) ImGui::PopStyleColor();
    remember_item(app, (std::string("learn_variant_") + (char)('a' + v)).c_str());
  }
  draw_experiment_distance(app, L);
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_disabled(e.variants.size() == 1 ? tr("learn.experiment.train_one")
                        : e.variants.size() > 2 ? tr("learn.experiment.train_many")
                                                : tr("learn.experiment.train_two"));
  // Predict first: the measured outcome comes after a run, beside the learner's guess.
  int& guess = L.predictions[(size_t)L.experiment];
  text_wrapped_colored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), trf("learn.experiment.predict", {{"ask", experiment_text(e, "ask")}}).c_str());
  ImGui::PopTextWrapPos();
  for (int c = 0; c < (int)e.choices.size(); ++c) {
    ImGui::PushID(c);
    if (ImGui::RadioButton(experiment_text(e, "choice." + std::to_string(c)), guess == c)) guess = c;
    remember_item(app, ("learn_predict_" + std::to_string(c)).c_str());
    ImGui::PopID();
  }
  if (!L.revealed[(size_t)L.experiment]) {
    // What is still to do before the outcome shows: a guess, then the runs not yet watched, by name.
    std::string left;
    for (int v : experiment_runs_left(L, L.experiment)) {
      const std::string run = "\u201C" + std::string(experiment_text(e, "variant." + std::to_string(v))) + "\u201D";
      left = left.empty() ? run : trf("lesson.list", {{"list", left}, {"item", run}});
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::BeginGroup();
    text_wrapped_disabled(guess < 0 ? tr("learn.experiment.pick") : trf("learn.experiment.now_train", {{"runs", left}}).c_str());
    ImGui::EndGroup();
    remember_item(app, "learn_experiment_todo");
    ImGui::PopTextWrapPos();
    if (ImGui::SmallButton(tr_id("learn.experiment.reveal", "learn_reveal"))) L.revealed[(size_t)L.experiment] = true;
    remember_item(app, "learn_reveal");
  }
  ImGui::Separator();
}

}  // namespace

void draw_learn_settings(App& app, LearnState& L) {
  draw_experiment(app, L);
  lrn::TrainSetup& s = L.setup;
  const auto& table = lrn::tasks();
  const lrn::Task* task = lrn::find_task(s.task);
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::BeginCombo("##task", task_label(s.task.c_str()))) {
    for (const lrn::Task& t : table) {
      ImGui::PushID(t.name);
      if (ImGui::Selectable(task_label(t.name), &t == task)) s = learn_defaults(t), task = &t, L.experiment = -1;
      ImGui::PopID();
      remember_item(app, (std::string("learn_task_") + t.name).c_str());
    }
    ImGui::EndCombo();
  }
  remember_item(app, "learn_task");
  if (task) {
    ImGui::PushTextWrapPos(0.0f);
    // A task's notes may answer an experiment's question ("with positional none it must fail"): they
    // wait until the learner has predicted and seen the runs.
    if (L.experiment < 0 || L.revealed[(size_t)L.experiment]) text_wrapped_words("%s", tr_entry("task", task->name, "help", task->help));
    text_wrapped_colored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), trf("learn.expect", {{"pattern", tr_entry("task", task->name, "pattern", task->pattern)}}).c_str());
    ImGui::PopTextWrapPos();
  }

  section(tr("learn.section.model"));
  draw_model_kind(app, L);
  if (s.spec.recurrent()) {  // the attention settings mean nothing to an RNN or an LSTM: only its sizes
    input_int("d_model", &s.spec.d_model, tr("learn.d_model.recurrent.tip"));
    remember_item(app, "learn_d_model");
    ImGui::SetNextItemWidth(field_width());
    second(), ImGui::SliderInt(tr_id("learn.layers", "layers"), &s.spec.layers, 1, lrn::ModelLimits::max_layers);
    remember_item(app, "learn_layers");
  } else {
    if (ImGui::SmallButton(tr_id("learn.use_lab", "learn_use_lab"))) take_lab_settings(app, s);
    remember_item(app, "learn_use_lab");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("learn.use_lab.tip"));
    input_int("d_model", &s.spec.d_model, tr("learn.d_model.tip"));
    remember_item(app, "learn_d_model");
    second(), input_int(tr_id("learn.heads", "heads"), &s.spec.heads, tr("learn.heads.tip"));
    remember_item(app, "learn_heads");
    input_int("d_k", &s.spec.d_k, tr("learn.d_k.tip"));
    remember_item(app, "learn_d_k");
    second(), input_int("d_v", &s.spec.d_v, tr("learn.d_v.tip"));
    remember_item(app, "learn_d_v");
    ImGui::SetNextItemWidth(field_width());
    ImGui::SliderInt(tr_id("learn.layers", "layers"), &s.spec.layers, 1, lrn::ModelLimits::max_layers);
    remember_item(app, "learn_layers");
    second(), ImGui::Checkbox(tr_id("learn.tied", "tied"), &s.spec.tied);
    remember_item(app, "learn_tied");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("learn.tied.tip"));
    // As wide as its widest encoding's name where the half line allows (a translation may be longer than the field).
    const char* position = tr_entry("positional", attn::to_string(s.spec.positional), "label", attn::to_string(s.spec.positional));
    std::vector<const char*> names;
    for (const attn::PositionalKind& p : attn::positional_kinds()) names.push_back(tr_entry("positional", p.name, "label", p.label));
    {
      const ImGuiStyle& st = ImGui::GetStyle();
      float widest = 0.0f;
      for (const char* n : names) widest = std::max(widest, ImGui::CalcTextSize(n).x);
      // the left half of the line (the causal box takes the right), less the label beside the field
      const float room = ImGui::GetContentRegionAvail().x * 0.5f - ImGui::CalcTextSize(tr("learn.positions")).x - 2.0f * st.ItemInnerSpacing.x;
      ImGui::SetNextItemWidth(std::max(field_width(), std::min(widest + 2.0f * st.FramePadding.x, room)));
    }
    if (ImGui::BeginCombo(tr_id("learn.positions", "positions"), position, ImGuiComboFlags_NoArrowButton)) {
      for (const attn::PositionalKind& p : attn::positional_kinds()) {  // every registered encoding
        if (ImGui::Selectable(tr_id_entry("positional", p.name, p.label), p.kind == s.spec.positional)) s.spec.positional = p.kind;
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s%s%s", tr_entry("positional", p.name, "help", p.help), p.trained ? " " : "", p.trained ? tr("learn.positions.trained") : "");
      }
      ImGui::EndCombo();
    }
    remember_item(app, "learn_positions");
    bool causal = has_causal(s.spec.mask);
    second();
    if (ImGui::Checkbox(tr_id_entry("mask", "causal", "causal"), &causal)) {
      std::erase_if(s.spec.mask, [](const auto& t) { return t.kind == attn::MaskTerm::Kind::causal; });
      if (causal) s.spec.mask.push_back({attn::MaskTerm::Kind::causal});
    }
    remember_item(app, "learn_causal");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("learn.causal.tip"));
    bool scaled = s.spec.scale_mode == attn::ScaleMode::inv_sqrt_dk;
    if (ImGui::Checkbox("\xC3\x97 1/\xE2\x88\x9A" "d_k", &scaled)) s.spec.scale_mode = scaled ? attn::ScaleMode::inv_sqrt_dk : attn::ScaleMode::none;
    remember_item(app, "learn_scaled");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("learn.scaled.tip"));
    second(), input_float("\xCF\x84", &s.spec.temperature, tr("learn.temperature.tip"));
    remember_item(app, "learn_temperature");
  }

  section(tr("learn.section.training"));
  input_float("lr", &s.train.adamw.lr, tr("learn.lr.tip"));
  remember_item(app, "learn_lr");
  second(), input_int(tr_id("learn.batch", "batch"), &s.train.batch, tr("learn.batch.tip"));
  remember_item(app, "learn_batch");
  input_int(tr_id("learn.steps", "steps"), &s.train.steps, tr("learn.steps.tip"));
  remember_item(app, "learn_steps");
  int seed = (int)std::min<uint64_t>(s.train.seed, 2147483647u);
  second();
  if (input_int(tr_id("learn.seed", "seed"), &seed, tr("learn.seed.tip"))) s.train.seed = (uint64_t)std::max(seed, 0);
  remember_item(app, "learn_seed");
  input_int(tr_id("learn.eval_every", "eval every"), &s.train.eval_every, tr("learn.eval_every.tip"));
  remember_item(app, "learn_eval_every");
  bool stop = s.train.stop_accuracy > 0.0f;
  if (ImGui::Checkbox(tr_id("learn.stop_early", "stop once converged"), &stop)) s.train.stop_accuracy = stop ? 0.99f : 0.0f;
  remember_item(app, "learn_stop_early");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", trf("learn.stop_early.tip", {{"pct", num(99.0, 0)}, {"n", s.train.stop_evaluations}}).c_str());
}

}  // namespace attnlab
