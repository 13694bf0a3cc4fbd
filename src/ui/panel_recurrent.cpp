// panel_recurrent.cpp — the lesson "why did attention replace RNNs?" in Learn mode (panel_recurrent.h).
// Everything measured here comes from the learning engine (learn/measures.h) on request: a button, or
// once when a run ends; nothing is computed per frame but the drawing.
#include "panel_recurrent.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app.h"
#include "colormap.h"
#include "learn/measures.h"
#include "learn_widgets.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

extern const char* const kExperimentsJson;  // the experiment table, assets/experiments.json (cmake/ui.cmake)

namespace {

constexpr const char* kDelayedCopy = "delayed_copy";

const char* model_label(lrn::Arch a) {
  switch (a) {
    case lrn::Arch::attention: return "attention";
    case lrn::Arch::rnn: return "RNN";
    case lrn::Arch::lstm: return "LSTM";
  }
  return "?";
}

// One colour per kind of model, the same in every plot of the lesson.
ImU32 model_color(lrn::Arch a, float alpha = 1.0f) {
  const int A = (int)(alpha * 255.0f);
  switch (a) {
    case lrn::Arch::attention: return IM_COL32(110, 170, 255, A);
    case lrn::Arch::rnn: return IM_COL32(255, 150, 70, A);
    case lrn::Arch::lstm: return IM_COL32(120, 215, 120, A);
  }
  return IM_COL32(200, 200, 200, A);
}

const char* model_help(lrn::Arch a) {
  switch (a) {
    case lrn::Arch::attention: return "Attention: every position looks at every earlier one directly, in one step.";
    case lrn::Arch::rnn: return "RNN (Elman, tanh): reads one token at a time and carries what it read in a hidden state.";
    case lrn::Arch::lstm: return "LSTM: an RNN with gates that decide what its memory cell keeps, forgets and shows.";
  }
  return "";
}

void wrapped(ImVec4 colour, const std::string& text) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(colour, "%s", text.c_str());
  ImGui::PopTextWrapPos();
}

// The experiment about recurrence, found by its key in assets/experiments.json (nullptr if absent).
const Experiment* recurrence_experiment() {
  for (const Experiment& e : experiments())
    if (e.key == "recurrence") return &e;
  return nullptr;
}

// [SECTION] what a finished run leaves for the lesson's views
// Keeps, once per finished delayed_copy run, its accuracy at its distance (the page's own sweep point),
// its probe's matrix (influence or the best head's weights, to compare) and its gradient profile.
void note_run(App& app, LearnState& L) {
  const lrn::SessionState& s = L.run();
  if (!s.started || s.run_setup.task != kDelayedCopy) return;
  const lrn::ModelSpec& spec = s.run_setup.spec;
  // The latest probe of each kind, for the side-by-side view (copied when its step changes).
  const lrn::Probe& p = s.probe;
  LearnState::Matrix& m = spec.recurrent() ? L.last_recurrent : L.last_attention;
  // The influence comes from the probe's backward passes: asked for here when another view than the
  // probe's (which asks itself) is shown, so that the side-by-side view has it.
  if (spec.recurrent() && p.influence.empty() && L.lesson_view != 0) learn_probe_gradients(app, true);
  if (spec.recurrent() && p.influence.size() == (size_t)p.n * p.n && (m.step != s.probe_step || m.v.size() != p.influence.size())) {
    m = {p.n, s.probe_step, spec.distance, std::string(model_label(spec.model)) + ": influence |\xE2\x88\x82z_i/\xE2\x88\x82x_j|", p.influence};
  } else if (!spec.recurrent() && !p.weights.empty() && p.n == p.m && m.step != s.probe_step) {
    // The head whose pattern is nearest the diagonal at the distance (the last evaluation's score).
    int best = 0;
    if (!s.history.empty() && !s.history.back().pattern.empty()) {
      const auto& pat = s.history.back().pattern;  // (layers, heads, relations): layer 0's heads
      for (int h = 1; h < spec.heads && h < (int)pat.size(); ++h)
        if (pat[(size_t)h * s.task->relations] > pat[(size_t)best * s.task->relations]) best = h;
    }
    const std::vector<float>& w = p.weights.front();
    m = {p.n, s.probe_step, spec.distance, "attention, layer 0 head " + std::to_string(best) + ": weights A",
         std::vector<float>(w.begin() + (long)best * p.n * p.n, w.begin() + (long)(best + 1) * p.n * p.n)};
  }
  if (!s.done || s.diverged || s.history.empty()) return;
  const std::string key = std::string(model_label(spec.model)) + "/" + std::to_string(spec.distance) + "/" +
                          std::to_string(s.step) + "/" + std::to_string(s.run_setup.train.seed) + "/" + std::to_string(spec.hidden);
  if (key == L.grad_measured) return;
  L.grad_measured = key;
  const int steps = s.step;
  const double accuracy = s.history.back().accuracy;
  std::erase_if(L.page_sweep, [&](const LearnState::PagePoint& q) { return q.model == spec.model && q.distance == spec.distance; });
  L.page_sweep.push_back({spec.model, spec.distance, steps, accuracy});
  learn_measure_gradient(app);
}

// [SECTION] plots
// A small heat map of an (n, n) matrix scaled by its largest entry; returns the hovered cell or (-1, -1).
std::pair<int, int> heat_map(const std::vector<float>& v, int n, float side) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##heat", ImVec2(side, side));
  float top = 0.0f;
  for (float x : v) top = std::max(top, x);
  if (top <= 0.0f) top = 1.0f;
  const float c = side / (float)n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      dl->AddRectFilled(ImVec2(p0.x + j * c, p0.y + i * c), ImVec2(p0.x + (j + 1) * c, p0.y + (i + 1) * c),
                        colormap(Colormap::sequential, v[(size_t)i * n + j] / top));
  if (!ImGui::IsItemHovered()) return {-1, -1};
  const ImVec2 m = ImGui::GetIO().MousePos;
  const int i = std::clamp((int)((m.y - p0.y) / c), 0, n - 1), j = std::clamp((int)((m.x - p0.x) / c), 0, n - 1);
  return {i, j};
}

struct Line {
  std::vector<ImVec2> pts;  // (x, y) in data units; y > 0 on a log axis
  ImU32 color;
  float thickness;
  std::string name;
  bool dots = false;        // points only (the page's own runs), no line
};

// A plot over x in [0, x_max] and y in [y_lo, y_hi] (log10 when `log`), with a hover readout at the
// nearest x. `x_label` names the axis under it.
void xy_plot(const char* id, ImVec2 size, float x_max, float y_lo, float y_hi, bool log, const std::vector<Line>& lines,
             const char* x_label, const char* fmt) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float line_h = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("1e-10 ").x;
  const ImVec2 a(p0.x + label_w, p0.y + 0.5f * line_h), b(p0.x + size.x - 4.0f, p0.y + size.y - 1.5f * line_h);
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(a, b, IM_COL32(22, 24, 28, 255));
  const auto T = [&](float y) { return log ? std::log10(std::max(y, 1e-30f)) : y; };
  const float lo = T(y_lo), hi = std::max(T(y_hi), T(y_lo) + 1e-6f);
  const auto X = [&](float x) { return a.x + (b.x - a.x) * (x_max > 0 ? x / x_max : 0.0f); };
  const auto Y = [&](float y) { return b.y - (b.y - a.y) * std::clamp((T(y) - lo) / (hi - lo), 0.0f, 1.0f); };
  char buf[32];
  const ImU32 grey = IM_COL32(160, 160, 160, 255);
  if (log) {  // a grid line per power of ten (every second one when there are many)
    const int first = (int)std::ceil(lo), last = (int)std::floor(hi), every = last - first > 6 ? 2 : 1;
    for (int k = first; k <= last; k += every) {
      const float y = b.y - (b.y - a.y) * ((float)k - lo) / (hi - lo);
      dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), IM_COL32(255, 255, 255, 28));
      std::snprintf(buf, sizeof buf, "1e%d", k);
      dl->AddText(ImVec2(p0.x, y - 0.5f * line_h), grey, buf);
    }
  } else {
    for (int k = 0; k <= 4; ++k) {
      const float v = y_lo + (y_hi - y_lo) * (float)k / 4.0f;
      dl->AddLine(ImVec2(a.x, Y(v)), ImVec2(b.x, Y(v)), IM_COL32(255, 255, 255, k ? 22 : 60));
      std::snprintf(buf, sizeof buf, fmt, v);
      dl->AddText(ImVec2(p0.x, Y(v) - 0.5f * line_h), grey, buf);
    }
  }
  dl->AddText(ImVec2(a.x, b.y + 0.1f * line_h), grey, "0");
  std::snprintf(buf, sizeof buf, "%d", (int)x_max);
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(buf).x, b.y + 0.1f * line_h), grey, buf);
  dl->AddText(ImVec2(0.5f * (a.x + b.x - ImGui::CalcTextSize(x_label).x), b.y + 0.1f * line_h), grey, x_label);
  dl->PushClipRect(ImVec2(a.x - 6, a.y - 6), ImVec2(b.x + 6, b.y + 6), true);
  std::vector<ImVec2> screen;
  for (const Line& l : lines) {
    screen.clear();
    for (const ImVec2& q : l.pts)
      if (!log || q.y > 0.0f) screen.emplace_back(X(q.x), Y(q.y));
    if (l.dots || screen.size() == 1) {
      const float r = std::max(l.thickness + 2.0f, 0.3f * ImGui::GetFontSize());  // a dot that reads at any UI scale
      for (const ImVec2& q : screen) dl->AddCircleFilled(q, r, l.color), dl->AddCircle(q, r + 1.0f, IM_COL32(255, 255, 255, 220), 0, 1.5f);
    } else if (screen.size() > 1) {
      dl->AddPolyline(screen.data(), (int)screen.size(), l.color, 0, l.thickness);
      for (const ImVec2& q : screen) dl->AddCircleFilled(q, l.thickness + 0.5f, l.color);
    }
  }
  dl->PopClipRect();
  if (hovered && x_max > 0) {
    const float x = std::clamp((ImGui::GetIO().MousePos.x - a.x) / (b.x - a.x), 0.0f, 1.0f) * x_max;
    ImGui::BeginTooltip();
    ImGui::Text("%s %d", x_label, (int)std::lround(x));
    for (const Line& l : lines) {
      const auto it = std::find_if(l.pts.begin(), l.pts.end(), [&](const ImVec2& q) { return std::lround(q.x) == std::lround(x); });
      if (it == l.pts.end()) continue;
      std::snprintf(buf, sizeof buf, fmt, it->y);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(l.color), "%s: %s", l.name.c_str(), buf);
    }
    ImGui::EndTooltip();
  }
}

// [SECTION] the views
void draw_gradient_view(App& app, LearnState& L) {
  const lrn::SessionState& s = L.run();
  if (ImGui::SmallButton("Measure this run")) {
    if (std::string e = learn_measure_gradient(app); !e.empty()) notify(app, e);
  }
  remember_item(app, "learn_measure_gradient");
  ImGui::SameLine();
  if (ImGui::SmallButton("Clear")) L.grad_curves.clear();
  remember_item(app, "learn_clear_gradient");
  help_marker("How much does the loss at position i change when the input at an earlier position j is nudged?\n"
              "Each line is that sensitivity, |\xE2\x88\x82loss_i/\xE2\x88\x82x_j|, averaged over 64 held-out sequences,\n"
              "against how far back j is (d = i - j). The scale is logarithmic: one grid line is ten times.\n"
              "Faint: the model before training. Bright: its weights now. An untrained RNN's line falls steeply:\n"
              "each step back multiplies the signal by the recurrent weights and tanh's slope, so a token far\n"
              "back hardly moves the loss, and training gets almost no signal to learn to remember it. The\n"
              "attention model's line stays flat: every earlier token is one step away. Measured when a run ends.");
  if (L.grad_curves.empty()) {
    ImGui::TextDisabled(s.started ? "Press Measure, or let the run end: the measure is taken then."
                                  : "Train a delayed copy (attention, then an RNN) to compare their gradients here.");
    return;
  }
  std::vector<Line> lines;
  float lo = FLT_MAX, hi = 0.0f;
  int n = 1;
  for (const LearnState::DistanceCurve& c : L.grad_curves) {
    Line l{{}, model_color(c.model, c.trained ? 1.0f : 0.45f), c.trained ? 2.0f : 1.2f, c.label};
    for (size_t d = 0; d < c.mean.size(); ++d) {
      if (!(c.mean[d] > 0.0) || !std::isfinite(c.mean[d])) continue;
      l.pts.emplace_back((float)d, (float)c.mean[d]);
      lo = std::min(lo, (float)c.mean[d]), hi = std::max(hi, (float)c.mean[d]);
    }
    n = std::max(n, (int)c.mean.size() - 1);
    lines.push_back(std::move(l));
  }
  if (hi <= 0.0f) lo = 1e-6f, hi = 1.0f;
  lo = std::pow(10.0f, std::floor(std::log10(lo))), hi = std::pow(10.0f, std::ceil(std::log10(hi)));
  const float h = std::max(8.0f * ImGui::GetTextLineHeight(), ImGui::GetContentRegionAvail().y - (float)(lines.size() + 1) * ImGui::GetTextLineHeightWithSpacing());
  ImGui::TextUnformatted("mean |\xE2\x88\x82loss_i/\xE2\x88\x82x_j| against distance i - j (log scale)");
  xy_plot("##grad_distance", ImVec2(ImGui::GetContentRegionAvail().x, h), (float)n, lo, hi, true, lines, "distance i - j", "%.3g");
  remember_rect(app, "learn_gradient_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  for (const Line& l : lines) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(l.color), "\xE2\x80\x94 %s", l.name.c_str());
}

void draw_sweep_view(App& app, LearnState& L) {
  const Experiment* e = recurrence_experiment();
  ImGui::TextUnformatted("held-out accuracy against distance");
  help_marker("Each line is one kind of model trained on the delayed copy at several distances, everything else\n"
              "the same (steps, batches, seed), measured beforehand with attnlab-cli sweep. The y axis is how\n"
              "often it copies the right token on held-out sequences. Dots ringed in white are runs that ended in\n"
              "this page: train at another distance and your dot lands on the plot.");
  if (e) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Lines: measured with attnlab-cli sweep (%s). Ringed dots: this page's runs.", e->sweep_budget.c_str());
    ImGui::PopTextWrapPos();
  }
  std::vector<Line> lines;
  float x_max = 8.0f;
  if (e)
    for (const Experiment::SweepRow& r : e->sweep) {
      const lrn::ArchKind* k = lrn::find_arch(r.model);
      Line l{{}, model_color(k ? k->arch : lrn::Arch::attention), 2.0f, r.model + " (" + std::to_string(r.params) + " parameters)"};
      for (const auto& [d, a] : r.accuracy) l.pts.emplace_back((float)d, (float)a), x_max = std::max(x_max, (float)d);
      lines.push_back(std::move(l));
    }
  const float chance = 1.0f / (float)std::max(1, L.run().run_setup.spec.vocab);
  lines.push_back({{ImVec2(0.0f, chance), ImVec2(x_max, chance)}, IM_COL32(170, 170, 170, 140), 1.0f, "chance (one token in " + std::to_string(L.run().run_setup.spec.vocab) + ")"});
  for (const LearnState::PagePoint& q : L.page_sweep) {
    Line l{{ImVec2((float)q.distance, (float)q.accuracy)}, model_color(q.model), 2.0f,
           std::string(model_label(q.model)) + ", this page (" + std::to_string(q.steps) + " steps)", true};
    x_max = std::max(x_max, (float)q.distance);
    lines.push_back(std::move(l));
  }
  const float h = std::max(8.0f * ImGui::GetTextLineHeight(), ImGui::GetContentRegionAvail().y - 4.0f * ImGui::GetTextLineHeightWithSpacing());
  xy_plot("##sweep", ImVec2(ImGui::GetContentRegionAvail().x, h), x_max, 0.0f, 1.0f, false, lines, "distance", "%.2f");
  remember_rect(app, "learn_sweep_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  const lrn::SessionState& s = L.run();
  if (s.started && s.run_setup.task == kDelayedCopy && !s.history.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("This run: %s at distance %d, %.1f%% right (step %d)%s", model_label(s.run_setup.spec.model), s.run_setup.spec.distance,
                100.0 * s.history.back().accuracy, s.history.back().step, s.done ? "" : ", still training");
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_run_accuracy");
  }
  if (e)
    for (const Experiment::SweepRow& r : e->sweep) {
      const lrn::ArchKind* k = lrn::find_arch(r.model);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(model_color(k ? k->arch : lrn::Arch::attention)), "\xE2\x80\x94 %s", r.model.c_str());
      ImGui::SameLine();
    }
  ImGui::NewLine();
}

// The influence matrix of the latest recurrent run beside the weights of the latest attention run.
void draw_compare_view(App& app, LearnState& L) {
  ImGui::TextUnformatted("an attention head's weights beside a recurrent model's influence");
  help_marker("Left: an attention model's weights on one held-out example (row i: what position i reads).\n"
              "Right: a recurrent model's influence on the same kind of example (row i: how much each input j\n"
              "moves the prediction at i). A model that copies from d tokens back needs a bright line d cells\n"
              "left of the diagonal. Attention draws it sharply; an RNN's influence fades with distance.");
  if (L.last_attention.v.empty() || L.last_recurrent.v.empty())
    ImGui::TextDisabled("Train a delayed copy with each model to fill both sides.");
  const float gap = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // As tall as the window leaves, but never so small that the labels above wrap a word a line (the
  // window scrolls instead), and never wider than half the width.
  const float side = std::max(48.0f, std::min((avail.x - gap) * 0.5f, std::max(avail.y - 3.0f * ImGui::GetTextLineHeightWithSpacing(),
                                                                                10.0f * ImGui::GetFontSize())));
  const LearnState::Matrix* both[2] = {&L.last_attention, &L.last_recurrent};
  for (int k = 0; k < 2; ++k) {
    if (k) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushID(k);
    const LearnState::Matrix& m = *both[k];
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + side);
    if (m.v.empty()) {
      ImGui::TextDisabled(k ? "(no recurrent run yet)" : "(no attention run yet)");
      ImGui::Dummy(ImVec2(side, side));
    } else {
      ImGui::Text("%s, distance %d, step %d", m.what.c_str(), m.distance, m.step);
      const auto [i, j] = heat_map(m.v, m.n, side);
      if (i >= 0) ImGui::SetTooltip("row %d, column %d: %.4g\n%d positions back", i, j, m.v[(size_t)i * m.n + j], i - j);
    }
    remember_rect(app, k ? "learn_compare_influence" : "learn_compare_attention", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::PopTextWrapPos();
    ImGui::PopID();
    ImGui::EndGroup();
  }
}

// Path length and parallel steps, as one unrolled RNN layer over an attention layer.
void draw_path_view(App& app, LearnState& L) {
  const lrn::SessionState& s = L.run();
  const int n = std::max(2, s.started ? s.run_setup.spec.n_ctx : L.setup.spec.n_ctx);
  const int distance = std::clamp(s.started ? s.run_setup.spec.distance : L.setup.spec.distance, 1, n - 1);
  if (L.path_query < 0 || L.path_query >= n) L.path_query = n - 1;
  if (L.path_key < 0 || L.path_key > L.path_query) L.path_key = std::max(0, L.path_query - distance);
  ImGui::TextUnformatted("path length and parallel steps, for query i and key j");
  help_marker("Pick a query i and an earlier key j. Top, an RNN unrolled in time: token j's information reaches i only\n"
              "by passing through every hidden state between them, i - j steps, each one a chance to fade; and\n"
              "h_t cannot be computed before h_t-1, so a layer takes n steps one after another whatever the hardware.\n"
              "Bottom, attention: query i reads key j directly (one step), and every position is computed at once.\n"
              "(On one CPU core attention does more arithmetic, n\xC2\xB2 per layer; the point is the waiting.)");
  // The two sliders side by side where they fit, else one under the other (a phone).
  const float slider_w = ImGui::GetFontSize() * 7.0f;
  ImGui::SetNextItemWidth(slider_w);
  ImGui::SliderInt("query i", &L.path_query, 1, n - 1);
  remember_item(app, "learn_path_query");
  L.path_key = std::min(L.path_key, L.path_query);
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x * 2.0f + slider_w + ImGui::CalcTextSize("key j").x + ImGui::GetStyle().ItemInnerSpacing.x <=
      ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
    ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2.0f);
  ImGui::SetNextItemWidth(slider_w);
  ImGui::SliderInt("key j", &L.path_key, 0, L.path_query);
  remember_item(app, "learn_path_key");
  const int i = L.path_query, j = L.path_key;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float w = ImGui::GetContentRegionAvail().x;
  const float cell = std::max(4.0f, w / (float)n), box = std::max(3.0f, cell * 0.7f);
  const ImU32 dim = IM_COL32(90, 95, 110, 255), lit_rnn = model_color(lrn::Arch::rnn), lit_att = model_color(lrn::Arch::attention);
  const auto centre_x = [&](float x0, int t) { return x0 + (t + 0.5f) * cell; };

  // RNN: inputs under hidden states, h_t-1 -> h_t arrows; the path j -> i lit.
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(lit_rnn), "RNN, unrolled: path from j to i = %d sequential steps; one layer = %d steps one after another", i - j, n);
  ImGui::PopTextWrapPos();
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float row_h = 2.2f * box + line_h;
  ImGui::Dummy(ImVec2(w, row_h));
  remember_rect(app, "learn_path_rnn", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  const float hy = p0.y + 0.2f * box, xy = p0.y + 1.6f * box;
  for (int t = 0; t < n; ++t) {
    const float cx = centre_x(p0.x, t);
    const bool on = t >= j && t <= i;
    dl->AddRectFilled(ImVec2(cx - box / 2, hy), ImVec2(cx + box / 2, hy + box), on ? lit_rnn : dim, box * 0.2f);
    dl->AddRectFilled(ImVec2(cx - box / 4, xy), ImVec2(cx + box / 4, xy + box * 0.5f), t == j ? lit_rnn : dim);
    dl->AddLine(ImVec2(cx, xy), ImVec2(cx, hy + box), t == j ? lit_rnn : dim, t == j ? 2.0f : 1.0f);
    if (t + 1 < n) dl->AddLine(ImVec2(cx + box / 2, hy + box / 2), ImVec2(cx + cell - box / 2, hy + box / 2), on && t < i ? lit_rnn : dim, on && t < i ? 2.0f : 1.0f);
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "x_%d", j);
  dl->AddText(ImVec2(centre_x(p0.x, j) - ImGui::CalcTextSize(buf).x / 2, xy + box * 0.55f), lit_rnn, buf);
  std::snprintf(buf, sizeof buf, "h_%d", i);
  dl->AddText(ImVec2(std::min(centre_x(p0.x, i) - ImGui::CalcTextSize(buf).x / 2, p0.x + w - ImGui::CalcTextSize(buf).x), xy + box * 0.55f), lit_rnn, buf);

  // Attention: every query reads every earlier key in one step; the pair (i, j) lit.
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(lit_att), "Attention: path from j to i = 1 step; one layer = 1 step (all %d positions at once)", n);
  ImGui::PopTextWrapPos();
  p0 = ImGui::GetCursorScreenPos();
  const float arc_h = std::max(2.0f * box, 1.6f * line_h);
  ImGui::Dummy(ImVec2(w, arc_h + 1.2f * box));
  remember_rect(app, "learn_path_attention", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  const float ky = p0.y + arc_h;
  for (int t = 0; t < n; ++t) {
    const float cx = centre_x(p0.x, t);
    dl->AddRectFilled(ImVec2(cx - box / 2, ky), ImVec2(cx + box / 2, ky + box), t == i || t == j ? lit_att : dim, box * 0.2f);
  }
  const float xi = centre_x(p0.x, i), xj = centre_x(p0.x, j);
  const float lift = std::min(arc_h - 2.0f, std::max(box, (xi - xj) * 0.5f));
  dl->AddBezierCubic(ImVec2(xj, ky), ImVec2(xj, ky - lift), ImVec2(xi, ky - lift), ImVec2(xi, ky), lit_att, 2.5f);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("The lit boxes are what must be computed, in order, before token %d can inform position %d.", j, i);
  ImGui::PopTextWrapPos();
}


// [SECTION] wall time against n
// The recurrence experiment's "wall_time" (assets/experiments.json): one forward + backward pass per
// model and n, measured natively with attnlab-bench --pass-against-n and written into the table with
// where and when; read once from the compiled-in table, as experiments() reads the rest of it.
struct WallTime {
  std::string source;  // the machine, the build, the date, the command
  struct Row {
    lrn::Arch model;
    std::vector<std::pair<int, double>> ms;  // (n, milliseconds per pass)
  };
  std::vector<Row> rows;
};

const WallTime& wall_time() {
  static const WallTime table = [] {
    WallTime w;
    const nlohmann::json j = nlohmann::json::parse(kExperimentsJson);
    for (const nlohmann::json& e : j.at("experiments")) {
      if (e.at("key") != "recurrence" || !e.contains("wall_time")) continue;
      const nlohmann::json& t = e.at("wall_time");
      w.source = t.at("source");
      for (const nlohmann::json& r : t.at("rows")) {
        const lrn::ArchKind* k = lrn::find_arch(r.at("model").get<std::string>());
        WallTime::Row row{k ? k->arch : lrn::Arch::attention, {}};
        for (const nlohmann::json& q : r.at("ms")) row.ms.emplace_back(q.at(0), q.at(1));
        w.rows.push_back(std::move(row));
      }
    }
    return w;
  }();
  return table;
}

// Both axes logarithmic: n in powers of two across, milliseconds in powers of ten up. Dotted grey lines
// through the first point show what growing as n and as n² would look like.
void draw_wall_time_view(App& app, LearnState&) {
  const WallTime& w = wall_time();
  ImGui::TextUnformatted("time of one forward + backward pass against sequence length n");
  ImGui::SameLine();
  help_marker("How long one training pass (forward and backward, a batch of 8 sequences, one layer) takes as the\n"
              "sequences get longer, on one CPU core. Both axes are logarithmic: a line as steep as the 'n^2' guide\n"
              "grows with the square of n, one as steep as the 'n' guide grows in proportion.\n"
              "Attention compares every position with every other: n^2 scores per layer, so its time grows fastest,\n"
              "and on one core it is not faster than the RNN. The RNN does less arithmetic, about n steps, but each\n"
              "step needs the one before: those n steps cannot run at the same time. Attention's n^2 work has no such\n"
              "chain (1 step per layer), so hardware that does many multiplications at once (a GPU) does it in one\n"
              "go. That, not the count of operations, is why attention trains faster at scale.");
  if (w.rows.empty()) return void(ImGui::TextDisabled("No wall times in this build's experiment table."));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("Measured with %s", w.source.c_str());
  ImGui::PopTextWrapPos();
  const float line_h = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(avail.x, std::max(8.0f * line_h, avail.y - 3.5f * ImGui::GetTextLineHeightWithSpacing()));
  int n_lo = 1 << 30, n_hi = 1;
  double t_lo = 1e30, t_hi = 0.0;
  for (const WallTime::Row& r : w.rows)
    for (const auto& [n, ms] : r.ms) n_lo = std::min(n_lo, n), n_hi = std::max(n_hi, n), t_lo = std::min(t_lo, ms), t_hi = std::max(t_hi, ms);
  if (n_hi <= n_lo || !(t_hi > t_lo)) return;
  const float lx0 = std::log2((float)n_lo), lx1 = std::log2((float)n_hi);
  const float ly0 = std::floor(std::log10((float)t_lo)), ly1 = std::ceil(std::log10((float)t_hi));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float label_w = ImGui::CalcTextSize("1000 ms ").x;
  const ImVec2 a(p0.x + label_w, p0.y + 0.5f * line_h), b(p0.x + size.x - ImGui::CalcTextSize("512").x * 0.6f, p0.y + size.y - 1.5f * line_h);
  ImGui::InvisibleButton("##wall_time", size);
  remember_rect(app, "learn_wall_time_plot", p0, ImVec2(p0.x + size.x, p0.y + size.y));
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(a, b, IM_COL32(22, 24, 28, 255));
  const auto X = [&](double n) { return a.x + (b.x - a.x) * (std::log2((float)n) - lx0) / (lx1 - lx0); };
  const auto Y = [&](double ms) { return b.y - (b.y - a.y) * (std::log10((float)std::max(ms, 1e-9)) - ly0) / (ly1 - ly0); };
  const ImU32 grey = IM_COL32(160, 160, 160, 255);
  char buf[32];
  for (int k = (int)ly0; k <= (int)ly1; ++k) {
    const float y = Y(std::pow(10.0, k));
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), IM_COL32(255, 255, 255, 28));
    std::snprintf(buf, sizeof buf, "%.*f ms", std::max(0, -k), std::pow(10.0, k));
    dl->AddText(ImVec2(p0.x, y - 0.5f * line_h), grey, buf);
  }
  for (int n = n_lo; n <= n_hi; n *= 2) {
    dl->AddLine(ImVec2(X(n), a.y), ImVec2(X(n), b.y), IM_COL32(255, 255, 255, 18));
    std::snprintf(buf, sizeof buf, "%d", n);
    dl->AddText(ImVec2(X(n) - 0.5f * ImGui::CalcTextSize(buf).x, b.y + 0.1f * line_h), grey, buf);
  }
  dl->PushClipRect(a, b, true);
  // the guides, through the attention row's first point
  const WallTime::Row& first = w.rows.front();
  if (!first.ms.empty()) {
    const auto [n0, t0] = first.ms.front();
    for (int power = 1; power <= 2; ++power) {
      const double t1 = t0 * std::pow((double)n_hi / n0, power);
      const ImVec2 u(X(n0), Y(t0)), v(X(n_hi), Y(t1));
      for (int k = 0; k < 40; k += 2)
        dl->AddLine(ImVec2(u.x + (v.x - u.x) * k / 40.0f, u.y + (v.y - u.y) * k / 40.0f),
                    ImVec2(u.x + (v.x - u.x) * (k + 1) / 40.0f, u.y + (v.y - u.y) * (k + 1) / 40.0f), IM_COL32(200, 200, 200, 120), 1.0f);
      const float gy = std::clamp(v.y, a.y, b.y - line_h);
      dl->AddText(ImVec2(b.x - ImGui::CalcTextSize("n^2 ").x, gy), IM_COL32(200, 200, 200, 170), power == 1 ? "n" : "n^2");
    }
  }
  for (const WallTime::Row& r : w.rows) {
    std::vector<ImVec2> pts;
    for (const auto& [n, ms] : r.ms) pts.emplace_back(X(n), Y(ms));
    dl->AddPolyline(pts.data(), (int)pts.size(), model_color(r.model), 0, 2.0f);
    for (const ImVec2& q : pts) dl->AddCircleFilled(q, 3.0f, model_color(r.model));
  }
  dl->PopClipRect();
  if (hovered) {
    const float lx = lx0 + (lx1 - lx0) * std::clamp((ImGui::GetIO().MousePos.x - a.x) / (b.x - a.x), 0.0f, 1.0f);
    const int n = 1 << (int)std::lround(lx);
    ImGui::BeginTooltip();
    ImGui::Text("n = %d: sequential steps per layer: attention 1, RNN and LSTM %d", n, n);
    for (const WallTime::Row& r : w.rows)
      for (const auto& [m, ms] : r.ms)
        if (m == n) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(model_color(r.model)), "%s: %.3g ms per pass", model_label(r.model), ms);
    ImGui::EndTooltip();
  }
  for (const WallTime::Row& r : w.rows) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(model_color(r.model)), "\xE2\x80\x94 %s", model_label(r.model));
    ImGui::SameLine();
  }
  ImGui::TextDisabled("- - guides: time growing as n and as n^2");
  // The honest summary, from the table itself: how much each grew over the measured range.
  std::string grew;
  for (const WallTime::Row& r : w.rows)
    if (r.ms.size() >= 2) {
      std::snprintf(buf, sizeof buf, "%s %.0fx", model_label(r.model), r.ms.back().second / r.ms.front().second);
      grew += (grew.empty() ? "" : ", ") + std::string(buf);
    }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("From n = %d to n = %d (%dx longer) the pass took: %s longer.", n_lo, n_hi, n_hi / n_lo, grew.c_str());
  ImGui::PopTextWrapPos();
  remember_item(app, "learn_wall_time_summary");
}

}  // namespace

// [SECTION] settings
void draw_model_kind(App& app, LearnState& L) {
  lrn::TrainSetup& s = L.setup;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  if (ImGui::BeginCombo("model", model_label(s.spec.model))) {
    for (const lrn::ArchKind& k : lrn::arch_kinds()) {
      if (ImGui::Selectable(model_label(k.arch), k.arch == s.spec.model)) s.spec.model = k.arch;
      remember_item(app, (std::string("learn_model_") + k.name).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", model_help(k.arch));
    }
    ImGui::EndCombo();
  }
  remember_item(app, "learn_model");
  help_marker("What reads the sequence. Attention: each position looks back at every earlier one directly.\n"
              "RNN and LSTM: read one token at a time, left to right, keeping what they have read in a hidden\n"
              "state of `hidden` numbers; d_model is then the size of each token's embedding. The attention\n"
              "settings below (heads, d_k, positions, ...) belong to attention and are hidden for them.");
  if (s.spec.recurrent()) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.6f);
    ImGui::InputInt("hidden", &s.spec.hidden, 0, 0);
    remember_item(app, "learn_hidden");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Numbers in the hidden state: all the model can carry from one token to the next (1 ... %d).",
                        lrn::ModelLimits::max_hidden);
    // The engine's own refusal (validate): tasks that need to see later tokens or a source sequence.
    const std::string why = lrn::validate(s);
    if (why.rfind("model:", 0) == 0) {
      wrapped(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "Cannot train this: " + why);
      remember_item(app, "learn_model_refused");
    }
  }
  if (s.task == kDelayedCopy) {
    const int n = std::max(2, s.spec.n_ctx);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    if (ImGui::SliderInt("distance", &s.spec.distance, 1, n - 1) && L.experiment >= 0) L.experiment_distance = s.spec.distance;
    remember_item(app, "learn_distance");
    help_marker("How far back the answer is: at position i the model must output the token it saw `distance`\n"
                "positions earlier. Attention finds it in one step at any distance; an RNN has to carry it through\n"
                "that many updates of its hidden state.");
  }
}

void draw_experiment_distance(App& app, LearnState& L) {
  if (L.experiment < 0 || L.setup.task != kDelayedCopy) return;
  const int n = std::max(2, L.setup.spec.n_ctx);
  int d = L.experiment_distance > 0 ? L.experiment_distance : L.setup.spec.distance;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  if (ImGui::SliderInt("##experiment_distance", &d, 1, n - 1, "distance %d")) L.experiment_distance = L.setup.spec.distance = d;
  remember_item(app, "learn_experiment_distance");
  help_marker("The distance the copy reaches back, for every run of this experiment: set it, then train each model.\n"
              "Try a short one (4) and a long one (16): the difference between the models is the lesson.");
}

// [SECTION] the lesson's views in the probe window
bool draw_lesson_views(App& app, LearnState& L) {
  note_run(app, L);
  if (!L.run().started || L.run().run_setup.task != kDelayedCopy) return false;
  static const char* kViews[] = {"Probe", "Gradient vs distance", "Accuracy vs distance", "Side by side", "Path length", "Wall time"};
  static const char* kNames[] = {"learn_view_probe", "learn_view_gradient", "learn_view_sweep", "learn_view_compare", "learn_view_path",
                                 "learn_view_wall_time"};
  constexpr int kViewCount = (int)(sizeof kViews / sizeof kViews[0]);
  L.lesson_view = std::clamp(L.lesson_view, 0, kViewCount - 1);
  const ImGuiStyle& st = ImGui::GetStyle();
  float right = 0.0f;  // where the last button ended: the row wraps when the next would pass the window's edge
  for (int k = 0; k < kViewCount; ++k) {
    const float w = ImGui::CalcTextSize(kViews[k]).x + 2.0f * st.FramePadding.x;
    if (k && right + st.ItemSpacing.x + w <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
    const bool on = L.lesson_view == k;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(kViews[k])) L.lesson_view = k;
    if (on) ImGui::PopStyleColor();
    right = ImGui::GetItemRectMax().x;
    remember_item(app, kNames[k]);
  }
  switch (L.lesson_view) {
    case 1: draw_gradient_view(app, L); return true;
    case 2: draw_sweep_view(app, L); return true;
    case 3: draw_compare_view(app, L); return true;
    case 4: draw_path_view(app, L); return true;
    case 5: draw_wall_time_view(app, L); return true;
    default: return false;
  }
}

void draw_recurrent_curves_note(App& app) {
  LearnState& L = learn_state(app);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("No pattern-score or saturated-rows plot: %s has no attention weights and no softmax rows. What it takes from "
                      "earlier tokens is its influence matrix ('Probe' and 'Side by side' above the probe).",
                      L.run().run_setup.spec.model == lrn::Arch::lstm ? "an LSTM" : "an RNN");
  ImGui::PopTextWrapPos();
  remember_item(app, "learn_recurrent_curves_note");
}

void draw_measured_at_distance(App& app, LearnState& L) {
  if (L.experiment < 0) return;
  const Experiment& e = experiments()[(size_t)L.experiment];
  if (e.sweep.empty()) return;
  const int d = L.experiment_distance > 0 ? L.experiment_distance : L.setup.spec.distance;
  std::string figures, learned;
  int learners = 0;
  for (const Experiment::SweepRow& r : e.sweep) {
    const lrn::ArchKind* k = lrn::find_arch(r.model);
    const std::string name = model_label(k ? k->arch : lrn::Arch::attention);
    const auto it = std::find_if(r.accuracy.begin(), r.accuracy.end(), [&](const auto& q) { return q.first == d; });
    if (it == r.accuracy.end()) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.1f%%", name.c_str(), 100.0 * it->second);
    figures += (figures.empty() ? "" : ", ") + std::string(buf);
    if (it->second >= 0.9) learned += (learned.empty() ? "" : ", ") + name, ++learners;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.80f, 0.85f, 0.70f, 1.0f));
  if (figures.empty())
    text_wrapped_words("At distance %d (the slider) nothing was measured beforehand: the text above is for distance 16; train the "
                       "three here to see.", d);
  else
    text_wrapped_words("At distance %d, the slider's (attnlab-cli sweep, %s): %s right. %s The text above is for distance 16.", d,
                       e.sweep_budget.c_str(), figures.c_str(),
                       learners == 0 ? "None of them learns it (90% or more right)." : ("Learn it (90% or more right): " + learned + ".").c_str());
  const int n = L.setup.spec.n_ctx;
  if (!figures.empty() && n - d <= 8)
    ImGui::TextDisabled("(At distance %d only the last %d of the %d positions have a target, the first token's among them: "
                        "a recurrent model's fresh state keeps that one more easily.)", d, n - d, n);
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  remember_item(app, "learn_measured_at_distance");
}

std::string learn_measure_gradient(App& app) {
  LearnState& L = learn_state(app);
  const lrn::SessionState& s = L.run();
  if (!s.started) return "gradient: nothing trained yet";
  const lrn::TrainSetup setup = s.run_setup;
  std::vector<float> weights;
  int step = 0;
  L.link->read([&](const lrn::Session& session) { weights = session.trainer().snapshot(), step = session.trainer().step(); });
  lrn::Model<float> model(setup.spec);
  if (weights.size() != model.params().size()) return "gradient: the run's weights are not there";
  // The held-out set the trainer measures on (Trainer::gradient_by_distance's), its first 64 sequences.
  const lrn::Batch held = lrn::held_out_batch(setup);
  const lrn::Batch batch = lrn::slice(held, 0, std::min(64, held.size));
  const std::string base = std::string(model_label(setup.spec.model)) + ", distance " + std::to_string(setup.spec.distance);
  const auto keep = [&](bool trained, std::vector<double> mean) {
    LearnState::DistanceCurve c{base + (trained ? ", step " + std::to_string(step) : ", untrained"), setup.spec.model, trained, std::move(mean)};
    // One curve per model and state: a new measure of the same replaces the old.
    std::erase_if(L.grad_curves, [&](const LearnState::DistanceCurve& o) { return o.model == c.model && o.trained == trained; });
    L.grad_curves.push_back(std::move(c));
  };
  model.init(setup.train.seed);  // the run's own step 0
  keep(false, lrn::gradient_by_distance(model, batch).mean);
  if (step > 0) {
    model.params() = weights;
    keep(true, lrn::gradient_by_distance(model, batch).mean);
  }
  std::stable_sort(L.grad_curves.begin(), L.grad_curves.end(),
                   [](const auto& a, const auto& b) { return std::pair((int)a.model, a.trained) < std::pair((int)b.model, b.trained); });
  return "";
}

}  // namespace attnlab
