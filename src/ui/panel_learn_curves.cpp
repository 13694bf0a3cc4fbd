// panel_learn_curves.cpp — Learn mode's Curves window: the loss (batch and held-out), the held-out
// accuracy, each head's pattern score and the saturated softmax rows over the steps, the previous run
// in grey, and an experiment's measured outcome once revealed. The plots are line_plot widgets.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "learn_widgets.h"
#include "line_plot.h"
#include "panel_learn.h"
#include "panel_recurrent.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

void draw_learn_curves(App& app, LearnState& L) {
  if (L.experiment >= 0 && L.revealed[(size_t)L.experiment]) {  // what the two runs gave here, to check against the curves
    const Experiment& e = experiments()[(size_t)L.experiment];
    const int guess = L.predictions[(size_t)L.experiment];
    // Judged at the slider's distance, as the line under the outcome measures it (no tick where the sweep
    // has nothing to judge by).
    const int answer = experiment_answer(e, slider_distance(L));
    const std::string predicted = trf("learn.predicted", {{"choice", experiment_text(e, "choice." + std::to_string(guess))}});
    ImGui::PushTextWrapPos(0.0f);
    ImGui::BeginGroup();  // one item for remember_item
    if (guess >= 0 && answer < 0) text_wrapped_words("%s", predicted.c_str());
    else if (guess >= 0)
      text_wrapped_colored(guess == answer ? ImVec4(0.5f, 0.9f, 0.5f, 1.0f) : ImVec4(1.0f, 0.75f, 0.35f, 1.0f),
                           (std::string(guess == answer ? "\xE2\x9C\x93 " : "\xE2\x9C\x97 ") + predicted).c_str());
    // Wrapped at spaces only: a figure such as 0.97 or 6.2% is never split at its point.
    text_wrapped_colored(ImVec4(0.80f, 0.85f, 0.70f, 1.0f), trf("learn.measured", {{"measured", experiment_text(e, "measured")}}).c_str());
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
    remember_item(app, "learn_measured");
    draw_measured_at_distance(app, L);  // an experiment with a sweep: the slider's distance
  }
  if (!L.run().started) {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_disabled(tr("learn.curves.empty"));
    ImGui::PopTextWrapPos();
    return;
  }
  const lrn::SessionState& t = L.run();
  const auto& hist = t.history;
  // The steps axis spans the run: all its steps, or up to where it stopped once it had converged.
  const float x_max = (float)std::max(1, t.converged ? t.step : L.run().run_setup.train.steps);
  const int layers = L.run().run_setup.spec.layers, heads = L.run().run_setup.spec.heads, R = (*t.task).relations;

  PlotSeries train{{}, IM_COL32(120, 170, 230, 150), 1.0f, tr("learn.series.batch")};
  for (size_t i = 0; i < L.run().train_loss.size(); ++i) train.pts.emplace_back((float)(L.run().train_loss_from + i + 1), L.run().train_loss[i]);
  PlotSeries held{{}, IM_COL32(255, 200, 80, 255), 2.0f, tr("learn.series.heldout")};
  PlotSeries acc{{}, IM_COL32(120, 220, 140, 255), 2.0f, tr("learn.series.accuracy")};
  PlotSeries sat{{}, IM_COL32(240, 120, 200, 255), 2.0f, tr("learn.series.saturated")};
  float loss_hi = 0.5f;
  for (const lrn::EvalPoint& p : hist) {
    held.pts.emplace_back((float)p.step, (float)p.loss);
    acc.pts.emplace_back((float)p.step, (float)p.accuracy);
    sat.pts.emplace_back((float)p.step, mean_saturation(p));
    loss_hi = std::max(loss_hi, (float)p.loss);
  }
  for (float v : L.run().train_loss) loss_hi = std::max(loss_hi, std::isfinite(v) ? v : 0.0f);
  // The previous run of the same task, in grey under this one.
  const auto& was = L.run().compare;  // an experiment's run is named by its variant's label, in the learner's language
  const bool named = was.experiment >= 0 && was.experiment < (int)experiments().size() && was.variant >= 0;
  const std::string label = named ? experiment_text(experiments()[(size_t)was.experiment], "variant." + std::to_string(was.variant)) : "";
  const std::string then = trf("learn.series.previous", {{"label", label.empty() ? was.label : label}});
  PlotSeries was_loss{{}, IM_COL32(170, 170, 170, 170), 1.5f, then}, was_acc{{}, IM_COL32(170, 170, 170, 170), 1.5f, then},
      was_sat{{}, IM_COL32(170, 170, 170, 170), 1.5f, then};
  for (const auto& [step, v] : L.run().compare.loss) was_loss.pts.emplace_back((float)step, v), loss_hi = std::max(loss_hi, std::isfinite(v) ? v : 0.0f);
  for (const auto& [step, v] : L.run().compare.accuracy) was_acc.pts.emplace_back((float)step, v);
  for (const auto& [step, v] : L.run().compare.saturation) was_sat.pts.emplace_back((float)step, v);
  const float x_all = std::max(x_max, L.run().compare.loss.empty() ? 0.0f : (float)L.run().compare.loss.back().first);
  std::vector<PlotSeries> pattern;  // per head: a recurrent model has none
  for (int l = 0; l < (L.run().run_setup.spec.recurrent() ? 0 : layers); ++l)
    for (int h = 0; h < heads; ++h)
      for (int r = 0; r < R; ++r) {
        PlotSeries s{{}, head_color(l * heads + h, r ? 0.45f : 1.0f), r ? 1.2f : 1.6f, trf("learn.series.head", {{"l", l}, {"h", h}})};
        if (R > 1) {
          const char* relation = relation_label((*t.task).relation_names[r]);
          s.name += " " + (r ? trf("learn.series.relation_faint", {{"relation", relation}}) : trf("learn.series.relation", {{"relation", relation}}));
        }
        for (const lrn::EvalPoint& p : hist)
          s.pts.emplace_back((float)p.step, (float)p.pattern[((size_t)l * heads + h) * R + r]);
        pattern.push_back(std::move(s));
      }

  const int marker = L.run().replay >= 0 ? L.run().snapshot_steps[(size_t)L.run().replay] : -1;
  if (L.run().opened_at >= 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (!hist.empty() && hist.front().step < L.run().opened_at)
      text_wrapped_words("%s", trf("learn.opened_record", {{"step", L.run().opened_at}}).c_str());
    else
      text_wrapped_words("%s", trf("learn.opened_at", {{"step", L.run().opened_at}}).c_str());
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
  std::vector<PlotSeries> losses = {train, held}, accs = {acc}, sats = {sat};
  if (!L.run().compare.loss.empty())
    losses.insert(losses.begin(), was_loss), accs.insert(accs.begin(), was_acc), sats.insert(sats.begin(), was_sat);
  const auto plot = [&](const char* id, const char* title, float y_hi, const char* help = nullptr) {
    LinePlot p;
    p.id = id, p.title = title, p.help = help, p.size = ImVec2(w, h);
    p.x_max = x_all, p.y_lo = 0.0f, p.y_hi = y_hi, p.marker = marker;
    return p;
  };
  line_plot(plot("##loss", tr("learn.plot.loss"), std::ceil(std::min(loss_hi, 40.0f))), losses);
  ImGui::EndGroup();
  remember_rect(app, "learn_loss_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  next();
  ImGui::BeginGroup();
  line_plot(plot("##accuracy", tr("learn.plot.accuracy"), 1.0f), accs);
  ImGui::EndGroup();
  if (recurrent) return draw_recurrent_curves_note(app);
  next();
  ImGui::BeginGroup();
  line_plot(plot("##pattern", tr("learn.plot.pattern"), 1.0f), pattern);
  ImGui::EndGroup();
  next();
  ImGui::BeginGroup();
  line_plot(plot("##saturation", tr("learn.plot.saturation"), 1.0f, tr("learn.plot.saturation.help")), sats);
  ImGui::EndGroup();
  remember_rect(app, "learn_saturation_plot", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

}  // namespace attnlab
