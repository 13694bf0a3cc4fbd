// panel_recurrent.cpp — the lesson "why did attention replace RNNs?" in Learn mode (panel_recurrent.h).
// Everything measured here comes from the learning engine (learn/measures.h) on request: a button, or
// once when a run ends; nothing is computed per frame but the drawing.
#include "panel_recurrent.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "colormap.h"
#include "learn/measures.h"
#include "learn_widgets.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

extern const char* const kExperimentsJson;  // the experiment table, assets/experiments.json (cmake/ui.cmake)

namespace {

constexpr const char* kDelayedCopy = "delayed_copy";

// How the lesson shows each kind of model: its name for keys, its label and help as the learner reads
// them, and one colour, the same in every plot of the lesson. One entry per lrn::Arch, in its order.
struct ModelLook {
  lrn::Arch arch;
  const char* name;
  Key label, help;
  ImU32 rgb;  // alpha left 0: model_color() sets it
};
constexpr ModelLook kModelLooks[] = {
    {lrn::Arch::attention, "attention", "lesson.model.attention", "lesson.model.attention.tip", IM_COL32(110, 170, 255, 0)},
    {lrn::Arch::rnn, "RNN", "lesson.model.rnn", "lesson.model.rnn.tip", IM_COL32(255, 150, 70, 0)},
    {lrn::Arch::lstm, "LSTM", "lesson.model.lstm", "lesson.model.lstm.tip", IM_COL32(120, 215, 120, 0)},
};
static_assert(std::size(kModelLooks) == (size_t)lrn::Arch::lstm + 1 && kModelLooks[0].arch == lrn::Arch::attention &&
                  kModelLooks[1].arch == lrn::Arch::rnn && kModelLooks[2].arch == lrn::Arch::lstm,
              "one look per lrn::Arch, in its order");
const ModelLook& look(lrn::Arch a) { return kModelLooks[(size_t)a]; }

const char* model_name(lrn::Arch a) { return look(a).name; }
const char* model_label(lrn::Arch a) { return tr(look(a).label); }
const char* model_help(lrn::Arch a) { return tr(look(a).help); }
ImU32 model_color(lrn::Arch a, float alpha = 1.0f) { return look(a).rgb | ((ImU32)(alpha * 255.0f) << IM_COL32_A_SHIFT); }

// A sentence in `colour`, wrapped at the window's edge; its lines are one item (remember_item, a tooltip).
void wrapped(ImVec4 colour, const std::string& text) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::BeginGroup();
  text_wrapped_colored(colour, text.c_str());
  ImGui::EndGroup();
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
    m = {p.n, s.probe_step, spec.distance, trf("lesson.what.influence", {{"model", model_label(spec.model)}}), p.influence};
  } else if (!spec.recurrent() && !p.weights.empty() && p.n == p.m && m.step != s.probe_step) {
    // The head whose pattern is nearest the diagonal at the distance (the last evaluation's score).
    int best = 0;
    if (!s.history.empty() && !s.history.back().pattern.empty()) {
      const auto& pat = s.history.back().pattern;  // (layers, heads, relations): layer 0's heads
      for (int h = 1; h < spec.heads && h < (int)pat.size(); ++h)
        if (pat[(size_t)h * s.task->relations] > pat[(size_t)best * s.task->relations]) best = h;
    }
    const std::vector<float>& w = p.weights.front();
    m = {p.n, s.probe_step, spec.distance, trf("lesson.what.weights", {{"h", best}}),
         std::vector<float>(w.begin() + (long)best * p.n * p.n, w.begin() + (long)(best + 1) * p.n * p.n)};
  }
  if (!s.done || s.diverged || s.history.empty()) return;
  const std::string key = std::string(model_name(spec.model)) + "/" + std::to_string(spec.distance) + "/" +
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
    ImGui::Text("%s %d", x_label, (int)std::lround(x));  // the axis' name and the distance
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
  if (ImGui::SmallButton(tr_id("lesson.measure", "learn_measure_gradient"))) {
    if (std::string e = learn_measure_gradient(app); !e.empty()) notify(app, e);
  }
  remember_item(app, "learn_measure_gradient");
  ImGui::SameLine();
  if (ImGui::SmallButton(tr_id("lesson.clear", "learn_clear_gradient"))) L.grad_curves.clear();
  remember_item(app, "learn_clear_gradient");
  help_marker(tr("lesson.gradient.help"));
  if (L.grad_curves.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_disabled(s.started ? tr("lesson.gradient.press") : tr("lesson.gradient.train"));
    ImGui::PopTextWrapPos();
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
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_words("%s", tr("lesson.gradient.title"));
  ImGui::PopTextWrapPos();
  xy_plot("##grad_distance", ImVec2(ImGui::GetContentRegionAvail().x, h), (float)n, lo, hi, true, lines, tr("lesson.axis.distance_ij"), "%.3g");
  remember_rect(app, "learn_gradient_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::PushTextWrapPos(0.0f);  // the curves' names wrap at the window's edge
  for (const Line& l : lines) text_wrapped_colored(ImGui::ColorConvertU32ToFloat4(l.color), ("\xE2\x80\x94 " + l.name).c_str());
  ImGui::PopTextWrapPos();
}

void draw_sweep_view(App& app, LearnState& L) {
  const Experiment* e = recurrence_experiment();
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_words("%s", tr("lesson.sweep.title"));
  ImGui::PopTextWrapPos();
  help_marker(tr("lesson.sweep.help"));
  if (e) {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_disabled(trf("lesson.sweep.lines", {{"budget", experiment_text(*e, "budget")}}).c_str());
    ImGui::PopTextWrapPos();
  }
  std::vector<Line> lines;
  float x_max = 8.0f;
  if (e)
    for (const Experiment::SweepRow& r : e->sweep) {
      const lrn::ArchKind* k = lrn::find_arch(r.model);
      Line l{{}, model_color(k ? k->arch : lrn::Arch::attention), 2.0f,
             trf("lesson.sweep.row", {{"model", k ? model_label(k->arch) : r.model.c_str()}, {"params", r.params}})};
      for (const auto& [d, a] : r.accuracy) l.pts.emplace_back((float)d, (float)a), x_max = std::max(x_max, (float)d);
      lines.push_back(std::move(l));
    }
  const float chance = 1.0f / (float)std::max(1, L.run().run_setup.spec.vocab);
  lines.push_back({{ImVec2(0.0f, chance), ImVec2(x_max, chance)}, IM_COL32(170, 170, 170, 140), 1.0f, trf("lesson.sweep.chance", {{"n", L.run().run_setup.spec.vocab}})});
  for (const LearnState::PagePoint& q : L.page_sweep) {
    Line l{{ImVec2((float)q.distance, (float)q.accuracy)}, model_color(q.model), 2.0f,
           trf("lesson.sweep.page", {{"model", model_label(q.model)}, {"steps", q.steps}}), true};
    x_max = std::max(x_max, (float)q.distance);
    lines.push_back(std::move(l));
  }
  const float h = std::max(8.0f * ImGui::GetTextLineHeight(), ImGui::GetContentRegionAvail().y - 4.0f * ImGui::GetTextLineHeightWithSpacing());
  xy_plot("##sweep", ImVec2(ImGui::GetContentRegionAvail().x, h), x_max, 0.0f, 1.0f, false, lines, tr("lesson.axis.distance"), "%.2f");
  remember_rect(app, "learn_sweep_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  const lrn::SessionState& s = L.run();
  if (s.started && s.run_setup.task == kDelayedCopy && !s.history.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::BeginGroup();  // one item for remember_item, however many lines it wraps into
    text_wrapped_words("%s", trf(s.done ? Key("lesson.sweep.this_run") : Key("lesson.sweep.this_run_training"),
                                 {{"model", model_label(s.run_setup.spec.model)}, {"d", s.run_setup.spec.distance},
                                  {"pct", num(100.0 * s.history.back().accuracy, 1)}, {"step", s.history.back().step}}).c_str());
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_run_accuracy");
  }
  if (e) {
    bool first = true;  // the legend: side by side while the names fit the window
    for (const Experiment::SweepRow& r : e->sweep) {
      const lrn::ArchKind* k = lrn::find_arch(r.model);
      const std::string name = std::string("\xE2\x80\x94 ") + (k ? model_label(k->arch) : r.model.c_str());
      if (!first) same_line_if_room(ImGui::CalcTextSize(name.c_str()).x);
      first = false;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(model_color(k ? k->arch : lrn::Arch::attention)), "%s", name.c_str());
    }
  }
}

// The influence matrix of the latest recurrent run beside the weights of the latest attention run.
void draw_compare_view(App& app, LearnState& L) {
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_words("%s", tr("lesson.compare.title"));
  ImGui::PopTextWrapPos();
  help_marker(tr("lesson.compare.help"));
  if (L.last_attention.v.empty() || L.last_recurrent.v.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_disabled(tr("lesson.compare.train"));
    ImGui::PopTextWrapPos();
  }
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
      text_wrapped_disabled(k ? tr("lesson.compare.no_recurrent") : tr("lesson.compare.no_attention"));
      ImGui::Dummy(ImVec2(side, side));
    } else {
      text_wrapped_words("%s", trf("lesson.compare.label", {{"what", m.what}, {"d", m.distance}, {"step", m.step}}).c_str());
      const auto [i, j] = heat_map(m.v, m.n, side);
      if (i >= 0) {
        char value[32];
        std::snprintf(value, sizeof value, "%.4g", m.v[(size_t)i * m.n + j]);
        ImGui::SetTooltip("%s", trf("lesson.compare.cell", {{"i", i}, {"j", j}, {"value", value}, {"back", i - j}}).c_str());
      }
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
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_words("%s", tr("lesson.path.title"));
  ImGui::PopTextWrapPos();
  help_marker(tr("lesson.path.help"));
  // The two sliders side by side where they fit, else one under the other (a phone).
  const float slider_w = ImGui::GetFontSize() * 7.0f;
  ImGui::SetNextItemWidth(slider_w);
  const char* query_label = tr_id("lesson.path.query", "query i");
  const char* key_label = tr_id("lesson.path.key", "key j");
  ImGui::SliderInt(query_label, &L.path_query, 1, n - 1);
  remember_item(app, "learn_path_query");
  L.path_key = std::min(L.path_key, L.path_query);
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x * 2.0f + slider_w + ImGui::CalcTextSize(key_label, nullptr, true).x + ImGui::GetStyle().ItemInnerSpacing.x <=
      ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
    ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2.0f);
  ImGui::SetNextItemWidth(slider_w);
  ImGui::SliderInt(key_label, &L.path_key, 0, L.path_query);
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
  text_wrapped_colored(ImGui::ColorConvertU32ToFloat4(lit_rnn), trf("lesson.path.rnn", {{"steps", i - j}, {"n", n}}).c_str());
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
  text_wrapped_colored(ImGui::ColorConvertU32ToFloat4(lit_att), trf("lesson.path.attention", {{"n", n}}).c_str());
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
  text_wrapped_disabled(trf("lesson.path.lit", {{"j", j}, {"i", i}}).c_str());
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
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_words("%s", tr("lesson.wall.title"));
  ImGui::PopTextWrapPos();
  help_marker(tr("lesson.wall.help"));
  if (w.rows.empty()) return text_wrapped_disabled(tr("lesson.wall.none"));
  ImGui::PushTextWrapPos(0.0f);
  // Where and how it was measured, in the learner's language (the table's English is the fallback).
  text_wrapped_disabled(trf("lesson.wall.source", {{"source", tr_dynamic("experiment.recurrence.wall_time", w.source.c_str())}}).c_str());
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
    ImGui::TextUnformatted(trf("lesson.wall.steps", {{"n", n}}).c_str());
    for (const WallTime::Row& r : w.rows)
      for (const auto& [m, ms] : r.ms)
        if (m == n) {
          std::snprintf(buf, sizeof buf, "%.3g", ms);
          ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(model_color(r.model)), "%s",
                             trf("lesson.wall.per_pass", {{"model", model_label(r.model)}, {"ms", buf}}).c_str());
        }
    ImGui::EndTooltip();
  }
  bool first_name = true;  // the legend and the guides' note: side by side while they fit the window
  for (const WallTime::Row& r : w.rows) {
    const std::string name = std::string("\xE2\x80\x94 ") + model_label(r.model);
    if (!first_name) same_line_if_room(ImGui::CalcTextSize(name.c_str()).x);
    first_name = false;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(model_color(r.model)), "%s", name.c_str());
  }
  same_line_if_room(ImGui::CalcTextSize(tr("lesson.wall.guides")).x);
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_disabled(tr("lesson.wall.guides"));
  ImGui::PopTextWrapPos();
  // The honest summary, from the table itself: how much each grew over the measured range.
  std::string grew;
  for (const WallTime::Row& r : w.rows)
    if (r.ms.size() >= 2) {
      const std::string item = trf("lesson.wall.grew", {{"model", model_label(r.model)}, {"times", num(r.ms.back().second / r.ms.front().second, 0)}});
      grew = grew.empty() ? item : trf("lesson.list", {{"list", grew}, {"item", item}});
    }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::BeginGroup();
  text_wrapped_words("%s", trf("lesson.wall.summary", {{"from", n_lo}, {"to", n_hi}, {"times", n_hi / n_lo}, {"grew", grew}}).c_str());
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
  remember_item(app, "learn_wall_time_summary");
}

// The lesson's views, in the order of their buttons: the label's key, the id (its button's ImGui id and,
// as learn_view_<id>, its widget name) and its drawing; the probe's has none (the probe window draws it).
struct LessonView {
  Key label;
  const char* id;
  void (*draw)(App&, LearnState&);
};
constexpr LessonView kLessonViews[] = {
    {"lesson.view.probe", "probe", nullptr},
    {"lesson.view.gradient", "gradient", draw_gradient_view},
    {"lesson.view.sweep", "sweep", draw_sweep_view},
    {"lesson.view.compare", "compare", draw_compare_view},
    {"lesson.view.path", "path", draw_path_view},
    {"lesson.view.wall_time", "wall_time", draw_wall_time_view},
};

}  // namespace

// [SECTION] settings
void draw_model_kind(App& app, LearnState& L) {
  lrn::TrainSetup& s = L.setup;
  std::vector<const char*> kinds;  // the combo as wide as its widest kind in this language, where the line has room
  for (const lrn::ArchKind& k : lrn::arch_kinds()) kinds.push_back(model_label(k.arch));
  if (ImGui::BeginCombo(combo_width_for(tr_id("lesson.model", "model"), 0.0f, kinds), model_label(s.spec.model))) {
    for (const lrn::ArchKind& k : lrn::arch_kinds()) {
      if (ImGui::Selectable(model_label(k.arch), k.arch == s.spec.model)) s.spec.model = k.arch;
      remember_item(app, (std::string("learn_model_") + k.name).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", model_help(k.arch));
    }
    ImGui::EndCombo();
  }
  remember_item(app, "learn_model");
  help_marker(tr("lesson.model.help"));
  if (s.spec.recurrent()) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.6f);
    ImGui::InputInt(tr_id("lesson.hidden", "hidden"), &s.spec.hidden, 0, 0);
    remember_item(app, "learn_hidden");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", trf("lesson.hidden.tip", {{"max", lrn::ModelLimits::max_hidden}}).c_str());
    // The engine's own refusal (validate): tasks that need to see later tokens or a source sequence.
    const std::string why = lrn::validate(s);
    if (why.rfind("model:", 0) == 0) {
      wrapped(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), trf("lesson.refused", {{"reason", why}}));
      remember_item(app, "learn_model_refused");
    }
  }
  if (s.task == kDelayedCopy) {
    const int n = std::max(2, s.spec.n_ctx);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    if (ImGui::SliderInt(tr_id("lesson.distance", "distance"), &s.spec.distance, 1, n - 1) && L.experiment >= 0) L.experiment_distance = s.spec.distance;
    remember_item(app, "learn_distance");
    help_marker(tr("lesson.distance.help"));
  }
}

int slider_distance(const LearnState& L) { return L.experiment_distance > 0 ? L.experiment_distance : L.setup.spec.distance; }

void draw_experiment_distance(App& app, LearnState& L) {
  if (L.experiment < 0 || L.setup.task != kDelayedCopy) return;
  const int n = std::max(2, L.setup.spec.n_ctx);
  int d = slider_distance(L);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  std::string format = trf("lesson.distance_n", {{"d", "\x01"}});  // the slider's printf format: '%' twice, the distance as %d
  for (size_t at = format.find('%'); at != std::string::npos; at = format.find('%', at + 2)) format.insert(at, 1, '%');
  if (const size_t at = format.find('\x01'); at != std::string::npos) format.replace(at, 1, "%d");
  if (ImGui::SliderInt("##experiment_distance", &d, 1, n - 1, format.c_str())) L.experiment_distance = L.setup.spec.distance = d;
  remember_item(app, "learn_experiment_distance");
  help_marker(tr("lesson.experiment_distance.help"));
}

// [SECTION] the lesson's views in the probe window
bool draw_lesson_views(App& app, LearnState& L) {
  note_run(app, L);
  if (!L.run().started || L.run().run_setup.task != kDelayedCopy) return false;
  std::vector<ViewButton> buttons;
  for (const LessonView& v : kLessonViews) buttons.push_back({tr_id(v.label, v.id), std::string("learn_view_") + v.id});
  L.lesson_view = std::clamp(L.lesson_view, 0, (int)std::size(kLessonViews) - 1);
  view_buttons(app, buttons, L.lesson_view);
  const LessonView& v = kLessonViews[(size_t)L.lesson_view];
  if (!v.draw) return false;
  v.draw(app, L);
  return true;
}

void draw_recurrent_curves_note(App& app) {
  LearnState& L = learn_state(app);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::BeginGroup();
  text_wrapped_disabled(tr(L.run().run_setup.spec.model == lrn::Arch::lstm ? Key("lesson.curves_note.lstm") : Key("lesson.curves_note.rnn")));
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
  remember_item(app, "learn_recurrent_curves_note");
}

void draw_measured_at_distance(App& app, LearnState& L) {
  if (L.experiment < 0) return;
  const Experiment& e = experiments()[(size_t)L.experiment];
  if (e.sweep.empty()) return;
  const int d = slider_distance(L);
  std::string figures, learned;
  int learners = 0;
  for (const Experiment::SweepRow& r : e.sweep) {
    const lrn::ArchKind* k = lrn::find_arch(r.model);
    const std::string name = model_label(k ? k->arch : lrn::Arch::attention);
    const auto it = std::find_if(r.accuracy.begin(), r.accuracy.end(), [&](const auto& q) { return q.first == d; });
    if (it == r.accuracy.end()) continue;
    const std::string figure = trf("lesson.figure", {{"model", name}, {"pct", num(100.0 * it->second, 1)}});
    figures = figures.empty() ? figure : trf("lesson.list", {{"list", figures}, {"item", figure}});
    if (it->second >= kLearnedAccuracy) learned = learned.empty() ? name : trf("lesson.list", {{"list", learned}, {"item", name}}), ++learners;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::BeginGroup();  // both sentences one item for remember_item
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.80f, 0.85f, 0.70f, 1.0f));
  if (figures.empty())
    text_wrapped_words("%s", trf("lesson.at_distance.none", {{"d", d}}).c_str());
  else
    text_wrapped_words("%s", trf("lesson.at_distance", {{"d", d}, {"budget", experiment_text(e, "budget")}, {"figures", figures},
                                                         {"verdict", learners == 0 ? std::string(tr("lesson.at_distance.nobody"))
                                                                                   : trf("lesson.at_distance.learners", {{"models", learned}})}}).c_str());
  const int n = L.setup.spec.n_ctx;
  if (!figures.empty() && n - d <= 8)
    text_wrapped_disabled(trf("lesson.at_distance.few_targets", {{"d", d}, {"targets", n - d}, {"n", n}}).c_str());
  ImGui::PopStyleColor();
  ImGui::EndGroup();
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
  // The curve's name, in the learner's language at the time it was measured.
  const auto keep = [&](bool trained, std::vector<double> mean) {
    const std::string label = trained ? trf("lesson.curve.trained", {{"model", model_label(setup.spec.model)}, {"d", setup.spec.distance}, {"step", step}})
                                      : trf("lesson.curve.untrained", {{"model", model_label(setup.spec.model)}, {"d", setup.spec.distance}});
    LearnState::DistanceCurve c{label, setup.spec.model, trained, std::move(mean)};
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
