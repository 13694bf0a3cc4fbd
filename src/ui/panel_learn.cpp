// panel_learn.cpp — Learn mode's windows: the settings and run buttons, the curves (loss, held-out accuracy,
// pattern scores), and every layer's and head's attention on a fixed probe example beside the task's ideal
// pattern. Curves and thumbnails are drawn here with ImDrawList (small, self-contained); the state and
// the time slicing live in learn.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "colormap.h"
#include "imgui_internal.h"  // BringWindowToDisplayFront
#include "learn.h"
#include "learn_widgets.h"
#include "mask.h"
#include "panel_recurrent.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

// [SECTION] shared drawing (learn_widgets.h)
void remember_rect(App& app, const std::string& name, ImVec2 a, ImVec2 b) {
  app.widget_rects[name] = ImVec4(a.x, a.y, b.x - a.x, b.y - a.y);
}

std::pair<int, int> thumbnail(const float* w, int n, int m, const attn::MaskMatrix* mask, ImVec2 size, float range) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 a = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##cells", size);
  const float cw = size.x / (float)m, ch = size.y / (float)n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const bool masked = mask && !mask->allows(i, j);
      const float v = w[(size_t)i * m + j];
      const ImU32 c = masked ? kMaskedColor : range > 0 ? colormap(Colormap::diverging, v / range) : colormap(Colormap::sequential, v);
      dl->AddRectFilled(ImVec2(a.x + j * cw, a.y + i * ch), ImVec2(a.x + (j + 1) * cw, a.y + (i + 1) * ch), c);
    }
  if (!ImGui::IsItemHovered()) return {-1, -1};
  const ImVec2 mp = ImGui::GetIO().MousePos;
  const int i = std::clamp((int)((mp.y - a.y) / ch), 0, n - 1), j = std::clamp((int)((mp.x - a.x) / cw), 0, m - 1);
  dl->AddRect(ImVec2(a.x + j * cw, a.y + i * ch), ImVec2(a.x + (j + 1) * cw, a.y + (i + 1) * ch), IM_COL32(255, 255, 255, 255));
  return {i, j};
}

void colour_scale(float width, float range, const char* note) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight() * 0.6f;
  if (range > 0) ImGui::Text("%.2g", -range);
  else ImGui::TextUnformatted("weight 0");
  ImGui::SameLine();
  const ImVec2 b = ImGui::GetCursorScreenPos();
  const int k = 32;
  for (int i = 0; i < k; ++i)
    dl->AddRectFilled(ImVec2(b.x + width * i / k, b.y + h * 0.4f), ImVec2(b.x + width * (i + 1) / k + 1, b.y + h * 1.4f),
                      range > 0 ? colormap(Colormap::diverging, 2.0f * i / (k - 1) - 1.0f)
                                : colormap(Colormap::sequential, (float)i / (k - 1)));
  ImGui::Dummy(ImVec2(width, h));
  ImGui::SameLine();
  if (note) ImGui::Text("%.2g   %s", range > 0 ? range : 1.0f, note);
  else if (range > 0) ImGui::Text("%.2g   (one scale for every head; grey = masked)", range);
  else ImGui::TextUnformatted("1   (one scale for every thumbnail; grey = masked)");
}

namespace {

// [SECTION] layout
float strip_height() {
  const ImGuiStyle& st = ImGui::GetStyle();
  return std::max(st.WindowMinSize.y, ImGui::GetFrameHeight() + 2.0f * st.WindowPadding.y);
}

void place(App& app, float x, float y, float w, float h) {
  const ImGuiCond cond = app.relayout ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(x, y), cond);
  ImGui::SetNextWindowSize(ImVec2(w, h), cond);
}


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

void draw_settings(App& app, LearnState& L) {
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

void draw_run_controls(App& app, LearnState& L) {
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

void handle_learn_keys(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  LearnState& L = learn_state(app);
  for (ImWchar c : io.InputQueueCharacters) {
    if (c == ' ') L.run().running ? learn_pause(app) : (void)learn_train(app);
    if (c == '.') learn_step(app);
  }
}

// [SECTION] curves
struct Series {
  std::vector<ImVec2> pts;  // (step, value)
  ImU32 color;
  float thickness;
  std::string name;
};

// A plot of `series` over steps [0, x_max] and values [y_lo, y_hi], with a hover readout.
void plot(const char* id, const char* title, ImVec2 size, float x_max, float y_lo, float y_hi,
          const std::vector<Series>& series, const char* fmt, int marker = -1, const char* help = nullptr) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::TextUnformatted(title);
  if (help) ImGui::SameLine(), help_marker(help);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float label_w = ImGui::CalcTextSize("0.000").x + 4.0f;
  const ImVec2 a(p0.x + label_w, p0.y), b(p0.x + size.x, p0.y + size.y - ImGui::GetTextLineHeight());
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(a, b, IM_COL32(22, 24, 28, 255));
  const auto X = [&](float x) { return a.x + (b.x - a.x) * (x_max > 0 ? x / x_max : 0.0f); };
  const auto Y = [&](float y) { return b.y - (b.y - a.y) * std::clamp((y - y_lo) / (y_hi - y_lo), 0.0f, 1.0f); };
  char buf[32];
  // grid and value labels: five, or three when the plot is too short for five to stay apart
  const int ticks = b.y - a.y < 6.0f * ImGui::GetTextLineHeight() ? 2 : 4;
  for (int k = 0; k <= ticks; ++k) {
    const float v = y_lo + (y_hi - y_lo) * (float)k / (float)ticks;
    dl->AddLine(ImVec2(a.x, Y(v)), ImVec2(b.x, Y(v)), IM_COL32(255, 255, 255, k == 0 ? 60 : 22));
    std::snprintf(buf, sizeof buf, fmt, v);
    dl->AddText(ImVec2(p0.x, Y(v) - ImGui::GetTextLineHeight() * 0.5f), IM_COL32(160, 160, 160, 255), buf);
  }
  std::snprintf(buf, sizeof buf, "%d", (int)x_max);
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(buf).x, b.y), IM_COL32(160, 160, 160, 255), buf);
  dl->AddText(ImVec2(a.x, b.y), IM_COL32(160, 160, 160, 255), "step 0");
  dl->PushClipRect(a, b, true);
  std::vector<ImVec2> line;
  for (const Series& s : series) {
    // At most about two points per pixel: average runs of points that share a pixel.
    line.clear();
    const size_t per = std::max<size_t>(1, s.pts.size() / (size_t)std::max(1.0f, 2.0f * (b.x - a.x)));
    for (size_t i = 0; i < s.pts.size(); i += per) {
      float sx = 0, sy = 0;
      const size_t end = std::min(s.pts.size(), i + per);
      for (size_t j = i; j < end; ++j) sx += s.pts[j].x, sy += s.pts[j].y;
      line.emplace_back(X(sx / (float)(end - i)), Y(sy / (float)(end - i)));
    }
    if (line.size() == 1) dl->AddCircleFilled(line[0], s.thickness + 1.5f, s.color);
    else dl->AddPolyline(line.data(), (int)line.size(), s.color, 0, s.thickness);
  }
  if (marker >= 0) dl->AddLine(ImVec2(X((float)marker), a.y), ImVec2(X((float)marker), b.y), IM_COL32(255, 205, 90, 200), 2.0f);
  dl->PopClipRect();
  if (hovered && x_max > 0) {
    const float step = std::clamp((ImGui::GetIO().MousePos.x - a.x) / (b.x - a.x), 0.0f, 1.0f) * x_max;
    dl->AddLine(ImVec2(X(step), a.y), ImVec2(X(step), b.y), IM_COL32(255, 255, 255, 90));
    ImGui::BeginTooltip();
    ImGui::Text("step %d", (int)std::lround(step));
    for (const Series& s : series) {
      if (s.pts.empty()) continue;
      const auto it = std::min_element(s.pts.begin(), s.pts.end(),
                                       [&](const ImVec2& u, const ImVec2& v) { return std::fabs(u.x - step) < std::fabs(v.x - step); });
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.color), "%s: %.4f (step %d)", s.name.c_str(), it->y, (int)it->x);
    }
    ImGui::EndTooltip();
  }
}

void draw_curves(App& app, LearnState& L) {
  if (L.experiment >= 0 && L.revealed[(size_t)L.experiment]) {  // what the two runs gave here, to check against the curves
    const Experiment& e = experiments()[(size_t)L.experiment];
    const int guess = L.predictions[(size_t)L.experiment];
    ImGui::PushTextWrapPos(0.0f);
    if (guess >= 0)
      ImGui::TextColored(guess == e.answer ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.75f, 0.35f, 1.0f), "%s You predicted: %s.",
                         guess == e.answer ? "\xE2\x9C\x93" : "\xE2\x9C\x97", e.choices[(size_t)guess].c_str());
    // Wrapped at spaces only: a figure such as 0.97 or 6.2% is never split at its point.
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.80f, 0.85f, 0.70f, 1.0f));
    text_wrapped_words("Measured here: %s", e.measured.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_measured");
    draw_measured_at_distance(app, L);  // an experiment with a sweep: the slider's distance
  }
  if (!L.run().started) {
    ImGui::TextDisabled("The loss, the held-out accuracy and each head's pattern score appear here while training runs.");
    return;
  }
  const lrn::SessionState& t = L.run();
  const auto& hist = t.history;
  // The steps axis spans the run: all its steps, or up to where it stopped once it had converged.
  const float x_max = (float)std::max(1, t.converged ? t.step : L.run().run_setup.train.steps);
  const int layers = L.run().run_setup.spec.layers, heads = L.run().run_setup.spec.heads, R = (*t.task).relations;

  Series train{{}, IM_COL32(120, 170, 230, 150), 1.0f, "training batch"};
  for (size_t i = 0; i < L.run().train_loss.size(); ++i) train.pts.emplace_back((float)(L.run().train_loss_from + i + 1), L.run().train_loss[i]);
  Series held{{}, IM_COL32(255, 200, 80, 255), 2.0f, "held-out"};
  Series acc{{}, IM_COL32(120, 220, 140, 255), 2.0f, "held-out accuracy"};
  Series sat{{}, IM_COL32(240, 120, 200, 255), 2.0f, "saturated rows, all heads"};
  float loss_hi = 0.5f;
  for (const lrn::EvalPoint& p : hist) {
    held.pts.emplace_back((float)p.step, (float)p.loss);
    acc.pts.emplace_back((float)p.step, (float)p.accuracy);
    sat.pts.emplace_back((float)p.step, mean_saturation(p));
    loss_hi = std::max(loss_hi, (float)p.loss);
  }
  for (float v : L.run().train_loss) loss_hi = std::max(loss_hi, std::isfinite(v) ? v : 0.0f);
  // The previous run of the same task, in grey under this one.
  const std::string then = "previous run: " + L.run().compare.label;
  Series was_loss{{}, IM_COL32(170, 170, 170, 170), 1.5f, then}, was_acc{{}, IM_COL32(170, 170, 170, 170), 1.5f, then},
      was_sat{{}, IM_COL32(170, 170, 170, 170), 1.5f, then};
  for (const auto& [step, v] : L.run().compare.loss) was_loss.pts.emplace_back((float)step, v), loss_hi = std::max(loss_hi, std::isfinite(v) ? v : 0.0f);
  for (const auto& [step, v] : L.run().compare.accuracy) was_acc.pts.emplace_back((float)step, v);
  for (const auto& [step, v] : L.run().compare.saturation) was_sat.pts.emplace_back((float)step, v);
  const float x_all = std::max(x_max, L.run().compare.loss.empty() ? 0.0f : (float)L.run().compare.loss.back().first);
  std::vector<Series> pattern;  // per head: a recurrent model has none
  for (int l = 0; l < (L.run().run_setup.spec.recurrent() ? 0 : layers); ++l)
    for (int h = 0; h < heads; ++h)
      for (int r = 0; r < R; ++r) {
        Series s{{}, head_color(l * heads + h, r ? 0.45f : 1.0f), r ? 1.2f : 1.6f, "layer " + std::to_string(l) + " head " + std::to_string(h)};
        if (R > 1) s.name += std::string(" (") + (*t.task).relation_names[r] + (r ? ", faint)" : ")");
        for (const lrn::EvalPoint& p : hist)
          s.pts.emplace_back((float)p.step, (float)p.pattern[((size_t)l * heads + h) * R + r]);
        pattern.push_back(std::move(s));
      }

  const int marker = L.run().replay >= 0 ? L.run().snapshot_steps[(size_t)L.run().replay] : -1;
  if (L.run().opened_at >= 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (!hist.empty() && hist.front().step < L.run().opened_at)
      ImGui::TextWrapped("Opened from a model file at step %d: the held-out curves before it are the file's record "
                         "(its weights from then are not in the file); the batch loss starts there.", L.run().opened_at);
    else
      ImGui::TextWrapped("Opened from a model file at step %d: its curves start there.", L.run().opened_at);
    ImGui::PopStyleColor();
  }

  // Four plots in a row; two rows of two when each would be narrower than ~12 text heights; one
  // column on a phone.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2.0f, line = ImGui::GetTextLineHeightWithSpacing();
  const float least = 12.0f * ImGui::GetFontSize();
  // A recurrent model has no attention: its two attention plots are left out, and a line says why.
  const bool recurrent = L.run().run_setup.spec.recurrent();
  const int plots = recurrent ? 2 : 4;
  const float note_h = recurrent ? line : 0.0f;
  const int cols = (avail.x - (float)(plots - 1) * gap) / (float)plots >= least ? plots : (avail.x - gap) / 2.0f >= least ? 2 : 1, rows = plots / cols;
  const float w = (avail.x - (float)(cols - 1) * gap) / (float)cols;
  const float h = std::max(60.0f, (avail.y - note_h) / (float)rows - 2.0f * line);
  int drawn = 0;
  const auto next = [&] {
    if (++drawn % cols) ImGui::SameLine(0, gap);
  };
  ImGui::BeginGroup();
  std::vector<Series> losses = {train, held}, accs = {acc}, sats = {sat};
  if (!L.run().compare.loss.empty())
    losses.insert(losses.begin(), was_loss), accs.insert(accs.begin(), was_acc), sats.insert(sats.begin(), was_sat);
  plot("##loss", "Loss (cross-entropy): batch, held-out", ImVec2(w, h), x_all, 0.0f, std::ceil(std::min(loss_hi, 40.0f)), losses, "%.2f", marker);
  ImGui::EndGroup();
  remember_rect(app, "learn_loss_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  next();
  ImGui::BeginGroup();
  plot("##accuracy", "Held-out accuracy", ImVec2(w, h), x_all, 0.0f, 1.0f, accs, "%.2f", marker);
  ImGui::EndGroup();
  if (recurrent) return draw_recurrent_curves_note(app);
  next();
  ImGui::BeginGroup();
  plot("##pattern", "Pattern score per head", ImVec2(w, h), x_all, 0.0f, 1.0f, pattern, "%.2f", marker);
  ImGui::EndGroup();
  next();
  ImGui::BeginGroup();
  plot("##saturation", "Saturated softmax rows", ImVec2(w, h), x_all, 0.0f, 1.0f, sats, "%.2f", marker,
       "The share of attention rows, over every layer and head of the held-out set, whose largest weight is above 0.99 "
       "(rows with a single key to see are left out). Such a row is nearly one-hot, and softmax then passes almost no "
       "gradient back to its scores: those scores stop learning. A trained head that looks at one key is saturated on "
       "purpose; a whole model saturated early, with a high loss, is stuck. Compare the \xE2\x88\x9A" "d_k experiment's "
       "two runs.");
  ImGui::EndGroup();
  remember_rect(app, "learn_saturation_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

// The history scrubber: any evaluated step's weights, replayed in the thumbnails below.
void draw_replay(App& app, LearnState& L) {
  const int count = (int)L.run().snapshot_steps.size();
  if (count < 2) return;
  int index = L.run().replay >= 0 ? L.run().replay : count - 1;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16.0f);
  char label[48];
  std::snprintf(label, sizeof label, "step %d", L.run().snapshot_steps[(size_t)index]);
  if (ImGui::SliderInt("##replay", &index, 0, count - 1, label)) learn_replay(app, index == count - 1 ? -1 : index);
  remember_item(app, "learn_replay");
  ImGui::SameLine();
  if (L.run().replay >= 0) {
    if (ImGui::SmallButton("Live")) learn_replay(app, -1);
    remember_item(app, "learn_live");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.80f, 0.35f, 1.0f), "replaying the weights of step %d", L.run().snapshot_steps[(size_t)L.run().replay]);
  } else {
    ImGui::TextDisabled("history: drag to replay an earlier step (%d kept)", count);
  }
}

// Type your own probe in the task's tokens; Enter uses it, an empty box (or Held-out) goes back.
void draw_probe_input(App& app, LearnState& L) {
  static char buf[512];
  static std::string shown;  // the probe text the box last took over (a refused input stays to be mended)
  if (L.run().probe_text != shown) std::snprintf(buf, sizeof buf, "%s", L.run().probe_text.c_str()), shown = L.run().probe_text;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18.0f);
  const bool cross = L.run().run_setup.spec.cross;
  if (ImGui::InputTextWithHint("##probe_text", cross ? "your own input: source -> output, in the task's tokens" : "your own input, in the task's tokens",
                               buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue))
    learn_set_probe(app, buf);
  remember_item(app, "learn_probe_text");
  if (ImGui::IsItemHovered()) {
    std::string vocab;
    for (int id = 0; id < L.run().run_setup.spec.vocab && vocab.size() < 160; ++id) vocab += (id ? " " : "") + (*L.run().task).token_name(id);
    ImGui::SetTooltip("Tokens separated by spaces, then Enter. The vocabulary: %s", vocab.c_str());
  }
  if (L.run().typed_probe) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Held-out example")) learn_set_probe(app, "");
    remember_item(app, "learn_probe_heldout");
  }
  if (!L.probe_error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "%s", L.probe_error.c_str());
  if (L.run().typed_probe && L.probe_view != 0)
    ImGui::TextDisabled("A typed input has no targets, so no loss and no gradient: the held-out example has them.");
}

// ∂L/∂W for one weight matrix on the probe example: rows × cols cells on one symmetric scale, heads
// side by side in the columns of W_Q, W_K, W_V (rows of W_O), as the lab lays them out.
void draw_param_gradient(App& app, LearnState& L, const lrn::Probe& p) {
  const lrn::ModelSpec& spec = L.run().run_setup.spec;
  const lrn::Task& task = (*L.run().task);
  const std::vector<lrn::Tensor> tensors = lrn::param_layout(L.run().run_setup.spec);
  L.grad_tensor = std::clamp(L.grad_tensor, 0, (int)tensors.size() - 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  if (ImGui::BeginCombo("##grad_tensor", tensors[(size_t)L.grad_tensor].name.c_str())) {
    for (int t = 0; t < (int)tensors.size(); ++t)
      if (ImGui::Selectable(tensors[(size_t)t].name.c_str(), t == L.grad_tensor)) L.grad_tensor = t;
    ImGui::EndCombo();
  }
  remember_item(app, "learn_grad_tensor");
  const lrn::Tensor& t = tensors[(size_t)L.grad_tensor];
  if (p.param_grads.size() != tensors.back().offset + tensors.back().size()) {
    ImGui::TextDisabled("(computing the gradients)");
    return;
  }
  const float* g = p.param_grads.data() + t.offset;
  float range = 0.0f;
  for (size_t i = 0; i < t.size(); ++i) range = std::max(range, std::fabs(g[i]));
  ImGui::SameLine();
  colour_scale(ImGui::GetFontSize() * 8.0f, range > 0.0f ? range : 1.0f,
               range > 0.0f ? "(this matrix's largest |entry|)"
                            : L.run().typed_probe ? "(all zero: a typed input has no targets, so no loss)" : "(all zero on this example)");
  // What a row and a column of this matrix are.
  const int dk = spec.d_k, dv = spec.d_v;
  const auto row_name = [&](int i) -> std::string {
    switch (t.kind) {
      case lrn::Param::w_e: return "token " + task.token_name(i);
      case lrn::Param::pos: return "position " + std::to_string(i);
      case lrn::Param::w_o: return "head " + std::to_string(i / dv) + ", value dim " + std::to_string(i % dv);
      default: return "model dim " + std::to_string(i);
    }
  };
  const auto col_name = [&](int j) -> std::string {
    switch (t.kind) {
      case lrn::Param::w_q: case lrn::Param::w_k: return "head " + std::to_string(j / dk) + ", dim " + std::to_string(j % dk);
      case lrn::Param::w_v: return "head " + std::to_string(j / dv) + ", dim " + std::to_string(j % dv);
      case lrn::Param::w_u: return "token " + task.token_name(j);
      default: return "model dim " + std::to_string(j);
    }
  };
  ImGui::TextDisabled("%d x %d: rows %s ... %s; columns %s ... %s (hover a cell)", t.rows, t.cols, row_name(0).c_str(),
                      row_name(t.rows - 1).c_str(), col_name(0).c_str(), col_name(t.cols - 1).c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float cell = std::max(2.0f, std::min((avail.x - 8.0f) / (float)t.cols, (avail.y - 8.0f) / (float)t.rows));
  const ImVec2 size(cell * (float)t.cols, cell * (float)t.rows);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const auto [i, j] = thumbnail(g, t.rows, t.cols, nullptr, size, range > 0.0f ? range : 1.0f);
  remember_rect(app, "learn_grad_cells", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  // Head boundaries, where heads sit side by side.
  const int per_head = t.kind == lrn::Param::w_v ? dv : t.kind == lrn::Param::w_q || t.kind == lrn::Param::w_k ? dk : 0;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (per_head > 0)
    for (int h = 1; h < spec.heads; ++h)
      dl->AddLine(ImVec2(origin.x + cell * (float)(h * per_head), origin.y), ImVec2(origin.x + cell * (float)(h * per_head), origin.y + size.y),
                  IM_COL32(255, 255, 255, 200), 2.0f);
  if (t.kind == lrn::Param::w_o)
    for (int h = 1; h < spec.heads; ++h)
      dl->AddLine(ImVec2(origin.x, origin.y + cell * (float)(h * dv)), ImVec2(origin.x + size.x, origin.y + cell * (float)(h * dv)),
                  IM_COL32(255, 255, 255, 200), 2.0f);
  if (i >= 0)
    ImGui::SetTooltip("\xE2\x88\x82L/\xE2\x88\x82%s[%d][%d] = %.4g\nrow %d: %s\ncolumn %d: %s\n"
                      "How this example's loss changes per unit of this weight. A training step moves the\n"
                      "weight against the sign (AdamW scales each step by the gradient's running size).",
                      t.name.c_str(), i, j, g[(size_t)i * t.cols + j], i, row_name(i).c_str(), j, col_name(j).c_str());
}

// A recurrent model has no attention to show: what it has instead is how much each input moved each
// prediction, ‖∂z_i/∂x_j‖ (the influence matrix, learn/measures.h), drawn where the heads would be.
void draw_influence(App& app, LearnState& L, const lrn::Probe& p) {
  const lrn::Task& task = *L.run().task;
  if (p.influence.size() != (size_t)p.n * p.n) {
    learn_probe_gradients(app, true);  // the influence comes from the probe's backward passes
    ImGui::TextDisabled("(computing the influence matrix)");
    return;
  }
  float range = 0.0f;
  for (float v : p.influence) range = std::max(range, v);
  ImGui::TextUnformatted("influence: how much input j moves the prediction at i");
  ImGui::SameLine();
  help_marker("Row i, column j: the size of the gradient of position i's logit (its target's, or its prediction's) with\n"
              "respect to the embedding of token j. A recurrent model reads one token at a time, so what token j\n"
              "says reaches position i only through i - j steps of its hidden state; attention reaches it in one.\n"
              "Bright far from the diagonal: the model still hears old tokens. Dark: it has forgotten them.");
  colour_scale(ImGui::GetFontSize() * 8.0f, range > 0.0f ? range : 1.0f, "(0 = no influence)");
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(48.0f, std::min(avail.x, avail.y - ImGui::GetTextLineHeightWithSpacing()));
  const auto [i, j] = thumbnail(p.influence.data(), p.n, p.n, nullptr, ImVec2(side, side), range > 0.0f ? range : 1.0f);
  remember_rect(app, "learn_influence", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  if (i >= 0)
    ImGui::SetTooltip("position %d (%s) <- input %d (%s): %.4g\n%d steps of the hidden state between them", i,
                      task.token_name(p.example.tokens[i]).c_str(), j, task.token_name(p.example.tokens[j]).c_str(),
                      p.influence[(size_t)i * p.n + j], i - j);
}

void draw_probe(App& app, LearnState& L) {
  const bool recurrent = L.run().started && L.run().run_setup.spec.recurrent();
  if (!L.run().started || (!recurrent && L.run().probe.weights.empty())) {
    ImGui::TextDisabled("Every layer's and head's attention on one held-out example appears here, beside the pattern the task needs.");
    return;
  }
  draw_replay(app, L);
  const bool replaying = L.run().replay >= 0;
  const lrn::Probe& p = replaying ? L.run().replay_probe : L.run().probe;
  const int shown_step = replaying ? L.run().snapshot_steps[(size_t)L.run().replay] : L.run().probe_step;
  const lrn::Task& task = (*L.run().task);
  const lrn::ModelSpec& spec = L.run().run_setup.spec;
  const int n = p.n, m = p.m, R = task.relations;
  const auto name = [&](int id) { return task.token_name(id); };
  const std::vector<int>& keys_tokens = spec.cross ? p.example.source : p.example.tokens;

  // The probe: its tokens, and what the model predicts where there is a target.
  std::string in, out;
  int right = 0, counted = 0;
  for (int i = 0; i < n; ++i) in += (i ? " " : "") + name(p.example.tokens[i]);
  for (int i = 0; i < n; ++i) {
    if (p.example.targets[i] < 0) continue;
    ++counted;
    right += p.predictions[i] == p.example.targets[i];
  }
  if (spec.cross) {
    std::string src;
    for (int j = 0; j < m; ++j) src += (j ? " " : "") + name(p.example.source[j]);
    ImGui::Text("source: %s", src.c_str());
  }
  if (L.run().typed_probe) {
    // A typed input has no targets: show what the model predicts after each token instead.
    std::string predicted;
    for (int i = 0; i < n; ++i) predicted += (i ? " " : "") + name(p.predictions[i]);
    ImGui::Text("your input (step %d): %s", shown_step, in.c_str());
    ImGui::TextDisabled("the model predicts next:  %s", predicted.c_str());
  } else {
    ImGui::Text("probe (held-out example 0, step %d): %s", shown_step, in.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("\xE2\x80\x94 %d of %d targets right", right, counted);
  }
  draw_probe_input(app, L);
  if (draw_lesson_views(app, L)) return;  // a delayed copy: the recurrence lesson's other views
  if (recurrent) return draw_influence(app, L, p);
  // What the thumbnails show: the weights, or this example's gradients (one symmetric scale for all heads).
  static const char* kViews[] = {"A (weights)", ("\xE2\x88\x82L/\xE2\x88\x82" "A"), "\xE2\x88\x82L/\xE2\x88\x82S",
                                 "\xE2\x88\x82L/\xE2\x88\x82W (a weight matrix)"};
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(kViews[L.probe_view]).x + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2.0f);
  if (ImGui::Combo("##probe_view", &L.probe_view, kViews, 4)) {
    learn_probe_gradients(app, L.probe_view != 0);  // probe again, with gradients when they are shown
  }
  remember_item(app, "learn_probe_view");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("\xE2\x88\x82L/\xE2\x88\x82" "A and \xE2\x88\x82L/\xE2\x88\x82S: how this example's loss changes with each attention weight and each score;\n"
                      "\xE2\x88\x82L/\xE2\x88\x82W: with each number of one weight matrix (the backward pass, on this example alone)");
  ImGui::SameLine();
  if (L.probe_view == 3) return draw_param_gradient(app, L, p);
  const std::vector<std::vector<float>>* grads = L.probe_view == 1 ? &p.weight_grads : L.probe_view == 2 ? &p.score_grads : nullptr;
  if (grads && grads->size() != (size_t)spec.layers) grads = nullptr;  // not probed with gradients yet
  float range = 0.0f;
  if (grads)
    for (const auto& g : *grads)
      for (float v : g) range = std::max(range, std::fabs(v));
  if (grads && range == 0.0f) range = 1.0f;
  colour_scale(ImGui::GetFontSize() * 8.0f, range);
  ImGui::SameLine(0, ImGui::GetFontSize() * 2.0f);
  int& open_layer = L.open_layer;
  open_layer = std::clamp(open_layer, 0, spec.layers - 1);
  if (spec.layers > 1) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
    ImGui::SliderInt("##open_layer", &open_layer, 0, spec.layers - 1, "layer %d");
    remember_item(app, "learn_open_layer");
    ImGui::SameLine();
  }
  if (ImGui::SmallButton("Open in the lab")) {
    if (std::string err = learn_open_in_lab(app, open_layer); !err.empty()) notify(app, err);
  }
  remember_item(app, "learn_open");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Every stage of this layer on the probe, with the trained weights, in the lab's matrices (hover any cell)");

  const attn::MaskMatrix mask = attn::build_mask(spec.mask, n, m);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = 8.0f * app.style_scale, label_h = ImGui::GetTextLineHeightWithSpacing();
  const int cols = spec.heads + R;
  const float aspect = (float)n / (float)m;
  float side = std::min((avail.x - gap * cols) / (float)cols, (avail.y - spec.layers * (label_h + gap)) / spec.layers / aspect);
  side = std::max(side, 24.0f);
  const ImVec2 size(side, side * aspect);
  const auto& last = L.run().history;
  for (int l = 0; l < spec.layers; ++l) {
    for (int h = 0; h < spec.heads + R; ++h) {
      if (h) ImGui::SameLine(0, gap + (h == spec.heads ? gap : 0.0f));
      ImGui::BeginGroup();
      ImGui::PushID(l * 64 + h);
      const bool ideal = h >= spec.heads;
      const int r = h - spec.heads;
      std::string label;
      if (ideal) label = R > 1 ? std::string("ideal: ") + task.relation_names[r] : "ideal";
      else {
        label = "L" + std::to_string(l) + " head " + std::to_string(h);
        const auto at = std::find_if(last.rbegin(), last.rend(), [&](const lrn::EvalPoint& e) { return e.step <= shown_step; });
        if (at != last.rend()) {
          double best = 0;
          for (int k = 0; k < R; ++k) best = std::max(best, at->pattern[((size_t)l * spec.heads + h) * R + k]);
          char buf[32];
          std::snprintf(buf, sizeof buf, "  %.2f", best);
          label += buf;
        }
      }
      if (ideal) ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), "%s", label.c_str());
      else ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(l * spec.heads + h)), "%s", label.c_str());
      const float* w = ideal ? L.run().ideal[(size_t)l * R + r].data()
                             : (grads ? (*grads)[l].data() : p.weights[l].data()) + (size_t)h * n * m;
      const auto [qi, kj] = thumbnail(w, n, m, &mask, size, ideal ? 0.0f : range);
      remember_rect(app, ideal ? "learn_l" + std::to_string(l) + "_ideal" + std::to_string(r)
                               : "learn_l" + std::to_string(l) + "_h" + std::to_string(h),
                    ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
      if (qi >= 0)
        ImGui::SetTooltip("%s\nquery %d (%s) \xE2\x86\x92 key %d (%s): %s %.4g%s", label.c_str(), qi,
                          name(p.example.tokens[qi]).c_str(), kj, name(keys_tokens[kj]).c_str(),
                          ideal || !grads ? "weight" : kViews[L.probe_view], w[(size_t)qi * m + kj],
                          mask.allows(qi, kj) ? "" : " (masked)");
      ImGui::PopID();
      ImGui::EndGroup();
    }
  }
}

}  // namespace

// [SECTION] windows
void set_learn_mode(App& app, bool learn) {
  if (app.ui.learn_mode == learn) return;
  app.ui.learn_mode = learn;
  app.layout_dirty = true;
  learn_state(app);  // Learn mode opens with the first task's settings
}

void draw_mode_switch(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImGuiStyle& st = ImGui::GetStyle();
  const float bw = ImGui::CalcTextSize("Learn").x + 2.0f * st.FramePadding.x;
  const float w = 2.0f * bw + st.ItemSpacing.x + 2.0f * st.WindowPadding.x + ImGui::CalcTextSize("Mode").x + st.ItemSpacing.x;
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - w, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(w, strip_height()), ImGuiCond_Always);
  ImGui::Begin("##mode", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing);
  ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("Mode");
  for (int k = 0; k < 2; ++k) {
    const bool on = (k == 1) == app.ui.learn_mode;
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Button, on ? st.Colors[ImGuiCol_ButtonActive] : st.Colors[ImGuiCol_FrameBg]);
    if (ImGui::Button(k ? "Learn" : "Lab", ImVec2(bw, 0))) set_learn_mode(app, k == 1);
    ImGui::PopStyleColor();
    remember_item(app, k ? "mode_learn" : "mode_lab");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(k ? "Learn: train a model on a toy task and watch its heads form (L)" : "The attention lab (L)");
  }
  ImGui::End();
}

void draw_learn_mode(App& app) {
  LearnState& L = learn_state(app);
  handle_learn_keys(app);
  const ImGuiIO& io = ImGui::GetIO();
  const float s = app.style_scale, W = io.DisplaySize.x, H = io.DisplaySize.y, top = strip_height();
  const float left_w = std::clamp(W * 0.26f, 280.0f * s, 420.0f * s), right_w = std::max(200.0f, W - left_w);
  // Side by side while the curves and the probe keep a readable width; else (phones, a large UI
  // scale) one window at a time under a row of tabs, like the lab's tabs layout.
  const bool narrow = right_w < 420.0f * s;

  place(app, 0, 0, W, top);
  ImGui::Begin("Learn##strip", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(narrow ? "Learn" : "Learn \xE2\x80\x94 train attention on a toy task and watch its heads form");
  ImGui::End();

  float body_top = top;
  if (narrow) {
    place(app, 0, top, W, top);
    ImGui::Begin("Learn##tabs", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    const char* names[] = {"Training", "Curves", "Attention"};
    for (int k = 0; k < 3; ++k) {
      if (k) ImGui::SameLine();
      const bool on = L.tab == k;
      if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
      if (ImGui::Button(names[k])) L.tab = k, app.layout_dirty = true;
      if (on) ImGui::PopStyleColor();
      remember_item(app, (std::string("learn_tab_") + names[k]).c_str());
    }
    ImGui::End();
    body_top += top;
  }
  // The curves take more height when their four plots wrap into two rows (draw_curves' rule, ~12
  // text heights per plot).
  const bool two_rows = right_w < 52.0f * ImGui::GetFontSize();
  const float body_h = H - body_top, curves_h = body_h * (two_rows ? 0.46f : 0.38f);
  // The open tour's slot: the lower part of the Training column (its run buttons and the experiments
  // stay in view above it), or a strip across the bottom under tabs.
  const bool dock_tour = app.ui.show_tour && !app.ui.tour_moved;
  const float tour_h = dock_tour ? (narrow ? std::min(0.4f * (H - body_top), 320.0f * s) : 0.42f * body_h) : 0.0f;
  app.tour_slot = !dock_tour ? WinRect{} : narrow ? WinRect{0, H - tour_h, W, tour_h} : WinRect{0, body_top + body_h - tour_h, left_w, tour_h};
  const auto window = [&](int tab, const char* name, float x, float y, float w, float h, auto&& draw) {
    if (narrow && L.tab != tab) return;
    if (narrow) x = 0, y = body_top, w = W, h = body_h - tour_h;
    place(app, x, y, w, h);
    ImGui::Begin(name);
    draw();
    ImGui::End();
  };
  window(0, "Training", 0, body_top, left_w, body_h - tour_h, [&] {
    // The run's buttons and status first, always in view (as a player's controls are); the settings
    // scroll below them, however much an experiment or a task adds.
    draw_run_controls(app, L);
    ImGui::Separator();
    ImGui::BeginChild("settings");
    draw_settings(app, L);
    ImGui::EndChild();
  });
  window(1, "Curves", left_w, body_top, right_w, curves_h, [&] { draw_curves(app, L); });
  window(2, "Attention on a probe", left_w, body_top + curves_h, right_w, body_h - curves_h, [&] {
    if (draw_inspect_switch(app)) draw_inspect(app);
    else draw_probe(app, L);
  });

  draw_mode_switch(app);
}

}  // namespace attnlab
