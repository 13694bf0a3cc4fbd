// panel_inspect_rollout.cpp — Inspect heads' Rollout view (panel_inspect.h): one layer's attention,
// averaged over its heads, beside the attention rollout up to that layer (Abnar & Zuidema 2020:
// learn/inspect.h rollout, docs/inspect.md); a button per layer picks which.
#include <algorithm>
#include <string>
#include <vector>

#include "app.h"
#include "heatmap.h"
#include "i18n.h"
#include "learn_widgets.h"
#include "panel_inspect.h"
#include "widgets.h"

namespace attnlab::inspect {

namespace {

void measure_rollout(InspectState& I) {
  InspectState::RolloutView& R = I.rollout;
  R.measured = I.weights_version, R.example = I.probe_example;
  lrn::Example e = I.probe_example;
  if (std::string err = lrn::rollout(I.subject->model, e, R.result); !err.empty()) R.error = err, R.result = {};
  else R.error.clear();
}

}  // namespace

void draw_rollout(App& app, InspectState& I) {
  InspectState::RolloutView& R = I.rollout;
  const lrn::Task& task = *I.subject->task;
  if (R.measured != I.weights_version || !same_example(R.example, I.probe_example)) measure_rollout(I);
  title(tr("inspect.roll.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.roll.help"));
  if (!R.error.empty()) return text_wrapped_colored(kError, R.error.c_str());
  const lrn::Rollout& r = R.result;
  if (r.layers == 0) return;
  if (R.layer < 0 || R.layer >= r.layers) R.layer = r.layers - 1;
  std::vector<ViewButton> layers;  // "up to layer l", one per layer
  for (int l = 0; l < r.layers; ++l)
    layers.push_back({trf("inspect.roll.up_to", {{"l", l}}) + "###roll_l" + std::to_string(l), "inspect_roll_l" + std::to_string(l)});
  view_buttons(app, layers, R.layer);
  const size_t nn = (size_t)r.n * r.n;
  R.attention.assign(r.attention.begin() + (long)(nn * R.layer), r.attention.begin() + (long)(nn * (R.layer + 1)));
  R.rollout.assign(r.rollout.begin() + (long)(nn * R.layer), r.rollout.begin() + (long)(nn * (R.layer + 1)));
  std::vector<std::string> labels = names_of(task, R.example.tokens);
  labels.resize((size_t)r.n);
  const float fs = ImGui::GetFontSize(), w = ImGui::GetContentRegionAvail().x, line = ImGui::GetTextLineHeightWithSpacing();
  const bool beside = w > 40.0f * fs;
  // Both maps in the height left when they fit it (stacked on a narrow window), else 14 text heights each.
  const float tall = (ImGui::GetContentRegionAvail().y - 2.0f * line) / (beside ? 1.0f : 2.0f) - line;
  const float each_w = beside ? (w - fs) * 0.5f : w, each_h = std::max(14.0f * fs, tall);
  const auto map = [&](const char* id, const std::vector<float>& v, const char* title, const char* widget) {
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + each_w);  // a long title wraps above its map
    text_wrapped_words("%s", title);
    ImGui::PopTextWrapPos();
    HeatmapSpec h;
    h.id = id;
    h.m = attn::MatView{v.data(), r.n, r.n, r.n};
    h.cmap = Colormap::sequential;
    h.row_labels = &labels, h.col_labels = &labels;
    h.scale = app.style_scale;
    h.max_cell = 30.0f;
    const HeatmapEvent ev = draw_heatmap(h, ImVec2(each_w, each_h));
    remember_rect(app, widget, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::EndGroup();
    if (ev.hovered && ev.row >= 0 && ev.col >= 0)
      ImGui::SetTooltip("%s", trf("inspect.roll.tip", {{"pos", ev.row}, {"token", labels[(size_t)ev.row]}, {"input", ev.col},
                                                       {"input_token", labels[(size_t)ev.col]}, {"value", num(v[(size_t)ev.row * r.n + ev.col], 3)}})
                                  .c_str());
  };
  const std::string a_title = trf("inspect.roll.attention_title", {{"l", R.layer}});
  const std::string r_title = trf("inspect.roll.rollout_title", {{"l", R.layer}});
  map("roll_attention", R.attention, a_title.c_str(), "inspect_roll_attention");
  if (beside) ImGui::SameLine(0, fs);
  map("roll_rollout", R.rollout, r_title.c_str(), "inspect_roll_rollout");
}

}  // namespace attnlab::inspect
