// panel_learn_settings.cpp — Learn mode's settings: an experiment (a question, its runs, a prediction
// to make first), the task, the model's sizes and attention settings, and the training's.
#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "app.h"
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
  if (ImGui::BeginCombo("##experiment", L.experiment >= 0 ? all[(size_t)L.experiment].name.c_str() : "Experiments: a question, a few runs...")) {
    for (int i = 0; i < (int)all.size(); ++i)
    {
      if (ImGui::Selectable(all[(size_t)i].name.c_str(), i == L.experiment)) learn_load_experiment(app, i, 0);
      remember_item(app, ("learn_experiment_" + all[(size_t)i].key).c_str());
    }
    if (L.experiment >= 0 && ImGui::Selectable("(none: free settings)")) L.experiment = -1;
    ImGui::EndCombo();
  }
  remember_item(app, "learn_experiment");
  if (L.experiment < 0) return;
  const Experiment& e = all[(size_t)L.experiment];
  for (int v = 0; v < (int)e.variants.size(); ++v) {
    const bool on = L.variant == v;
    if (v) ImGui::SameLine();
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(e.variants[(size_t)v].label.c_str())) learn_load_experiment(app, L.experiment, v);
    if (on) ImGui::PopStyleColor();
    remember_item(app, (std::string("learn_variant_") + (char)('a' + v)).c_str());
  }
  draw_experiment_distance(app, L);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(e.variants.size() == 1 ? "Train it: when the run ends, Inspect heads (bottom right) answers the question."
                      : e.variants.size() > 2 ? "Train one, then another: the last run stays in grey."
                                              : "Train one, then the other: the last run stays in grey.");
  // Predict first: the measured outcome comes after a run, beside the learner's guess.
  int& guess = L.predictions[(size_t)L.experiment];
  ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), "Your prediction: %s", e.predict.c_str());
  ImGui::PopTextWrapPos();
  for (int c = 0; c < (int)e.choices.size(); ++c) {
    ImGui::PushID(c);
    if (ImGui::RadioButton(e.choices[(size_t)c].c_str(), guess == c)) guess = c;
    remember_item(app, ("learn_predict_" + std::to_string(c)).c_str());
    ImGui::PopID();
  }
  if (!L.revealed[(size_t)L.experiment]) {
    ImGui::TextDisabled(guess < 0 ? "Pick one, then train: what was measured shows when the run ends."
                                  : "Now train: what was measured shows when the run ends.");
    if (ImGui::SmallButton("Show what was measured now")) L.revealed[(size_t)L.experiment] = true;
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
  if (ImGui::BeginCombo("##task", s.task.c_str())) {
    for (const lrn::Task& t : table)
    {
      if (ImGui::Selectable(t.name, &t == task)) s = learn_defaults(t), task = &t, L.experiment = -1;
      remember_item(app, (std::string("learn_task_") + t.name).c_str());
    }
    ImGui::EndCombo();
  }
  remember_item(app, "learn_task");
  if (task) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(task->help);
    ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), "Expect: %s.", task->pattern);
    ImGui::PopTextWrapPos();
  }

  section("Model");
  draw_model_kind(app, L);
  if (s.spec.recurrent()) {  // the attention settings mean nothing to an RNN or an LSTM: only its sizes
    input_int("d_model", &s.spec.d_model, "Size of each token's embedding, the recurrent layer's input.");
    remember_item(app, "learn_d_model");
    ImGui::SetNextItemWidth(field_width());
    second(), ImGui::SliderInt("layers", &s.spec.layers, 1, lrn::ModelLimits::max_layers);
    remember_item(app, "learn_layers");
  } else {
    if (ImGui::SmallButton("Use the lab's settings")) take_lab_settings(app, s);
    remember_item(app, "learn_use_lab");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("d_model, heads, d_k, d_v, positional encoding, scale, temperature and mask as the lab has them");
    input_int("d_model", &s.spec.d_model, "Width of the residual stream.");
    remember_item(app, "learn_d_model");
    second(), input_int("heads", &s.spec.heads, "Attention heads per layer.");
    remember_item(app, "learn_heads");
    input_int("d_k", &s.spec.d_k, "Query/key size per head.");
    remember_item(app, "learn_d_k");
    second(), input_int("d_v", &s.spec.d_v, "Value size per head.");
    remember_item(app, "learn_d_v");
    ImGui::SetNextItemWidth(field_width());
    ImGui::SliderInt("layers", &s.spec.layers, 1, lrn::ModelLimits::max_layers);
    remember_item(app, "learn_layers");
    second(), ImGui::Checkbox("tied", &s.spec.tied);
    remember_item(app, "learn_tied");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Unembedding tied to the embedding: W_U = W_E\xE1\xB5\x80");
    ImGui::SetNextItemWidth(field_width());
    if (ImGui::BeginCombo("positions", attn::to_string(s.spec.positional), ImGuiComboFlags_NoArrowButton)) {
      for (const attn::PositionalKind& p : attn::positional_kinds()) {  // every registered encoding
        if (ImGui::Selectable(p.name, p.kind == s.spec.positional)) s.spec.positional = p.kind;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s%s", p.help, p.trained ? " (a model trains its own table)" : "");
      }
      ImGui::EndCombo();
    }
    remember_item(app, "learn_positions");
    bool causal = has_causal(s.spec.mask);
    second();
    if (ImGui::Checkbox("causal", &causal)) {
      std::erase_if(s.spec.mask, [](const auto& t) { return t.kind == attn::MaskTerm::Kind::causal; });
      if (causal) s.spec.mask.push_back({attn::MaskTerm::Kind::causal});
    }
    remember_item(app, "learn_causal");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Causal mask: query i sees keys 0..i only");
    bool scaled = s.spec.scale_mode == attn::ScaleMode::inv_sqrt_dk;
    if (ImGui::Checkbox("\xC3\x97 1/\xE2\x88\x9A" "d_k", &scaled)) s.spec.scale_mode = scaled ? attn::ScaleMode::inv_sqrt_dk : attn::ScaleMode::none;
    remember_item(app, "learn_scaled");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Scale the scores by 1/\xE2\x88\x9A" "d_k (off: no scaling)");
    second(), input_float("\xCF\x84", &s.spec.temperature, "Temperature: the scores are divided by it.");
    remember_item(app, "learn_temperature");
  }

  section("Training");
  input_float("lr", &s.train.adamw.lr, "AdamW learning rate, in (0, 10].");
  remember_item(app, "learn_lr");
  second(), input_int("batch", &s.train.batch, "Sequences per step.");
  remember_item(app, "learn_batch");
  input_int("steps", &s.train.steps, "Optimiser steps in the run (at most 1,000,000).");
  remember_item(app, "learn_steps");
  int seed = (int)std::min<uint64_t>(s.train.seed, 2147483647u);
  second();
  if (input_int("seed", &seed, "Weights, batches and the held-out set all follow from it.")) s.train.seed = (uint64_t)std::max(seed, 0);
  remember_item(app, "learn_seed");
  input_int("eval every", &s.train.eval_every, "Steps between evaluations on the held-out set (the curves' points).");
  remember_item(app, "learn_eval_every");
  bool stop = s.train.stop_accuracy > 0.0f;
  if (ImGui::Checkbox("stop once converged", &stop)) s.train.stop_accuracy = stop ? 0.99f : 0.0f;
  remember_item(app, "learn_stop_early");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("End the run early once the held-out accuracy is at least 99%% at %d evaluations in a row:\n"
                      "the steps after that change nothing you can see. Untick to run every step.",
                      s.train.stop_evaluations);
}

}  // namespace attnlab
