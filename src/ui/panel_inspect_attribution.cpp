// panel_inspect_attribution.cpp — Inspect heads' Logit attribution view (panel_inspect.h): direct logit
// attribution (learn/inspect.h attribute, docs/inspect.md). Each position's logit of its prediction (or of
// one token chosen everywhere) as a stacked bar of what the embedding path and each head wrote into the
// residual stream; a click on a bar writes its parts out below.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "learn_widgets.h"
#include "panel_inspect.h"
#include "widgets.h"

namespace attnlab::inspect {

namespace {

// `text` cut (with "..") to fit `width` pixels.
std::string fit_text(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string t = text;
  while (!t.empty() && ImGui::CalcTextSize((t + "..").c_str()).x > width) t.pop_back();
  return t.empty() ? std::string() : t + "..";
}

// The colour of part k of a bar: 0 the embedding path, 1 + (l·heads + h) a head.
ImU32 part_color(int k, float alpha = 1.0f) { return k == 0 ? IM_COL32(150, 150, 150, (int)(alpha * 255)) : head_color(k - 1, alpha); }

void measure_attribution(InspectState& I) {
  InspectState::Attributing& A = I.attribution;
  A.measured = I.weights_version, A.example = I.probe_example;
  lrn::Example e = I.probe_example;
  if (std::string err = lrn::attribute(I.subject->model, e, A.target, A.result); !err.empty()) A.error = err, A.result = {};
  else A.error.clear();
  if (A.selected >= A.result.n) A.selected = -1;
}

}  // namespace

void draw_attribution(App& app, InspectState& I) {
  InspectState::Attributing& A = I.attribution;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const lrn::Task& task = *I.subject->task;
  if (A.measured != I.weights_version || !same_example(A.example, I.probe_example)) measure_attribution(I);
  title(tr("inspect.attr.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.attr.help"));
  // which logit: each position's prediction, or one token everywhere; 12 em, or as wide as its value
  // (a longer language) where the line has room
  const std::string current = A.target < 0 ? std::string(tr("inspect.attr.of_prediction")) : trf("inspect.attr.of_token", {{"token", task.token_name(A.target)}});
  const float value_w = ImGui::CalcTextSize(current.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x + ImGui::GetFrameHeight();
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, std::max(ImGui::GetFontSize() * 12.0f, value_w)));
  if (ImGui::BeginCombo("##attr_target", current.c_str())) {
    if (ImGui::Selectable(tr("inspect.attr.each_prediction"), A.target < 0)) A.target = -1, A.measured = ~0ull;
    for (int t = 0; t < s.vocab; ++t)
      if (ImGui::Selectable(trf("inspect.attr.token_everywhere", {{"token", task.token_name(t)}}).c_str(), A.target == t)) A.target = t, A.measured = ~0ull;
    ImGui::EndCombo();
  }
  remember_item(app, "inspect_attr_target");
  if (A.measured == ~0ull) measure_attribution(I);
  if (!A.error.empty()) return text_wrapped_colored(kError, A.error.c_str());
  const lrn::Attribution& r = A.result;
  if (r.n == 0) return;
  const int parts = 1 + r.layers * r.heads;
  // the legend
  for (int k = 0; k < parts; ++k) {
    if (k) ImGui::SameLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float sq = ImGui::GetTextLineHeight() * 0.8f;
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + sq, p.y + 2 + sq), part_color(k));
    ImGui::Dummy(ImVec2(sq, sq));
    ImGui::SameLine(0, 4.0f);
    if (k == 0) ImGui::TextUnformatted(tr("inspect.embedding"));
    else ImGui::Text("L%d h%d", (k - 1) / r.heads, (k - 1) % r.heads);
  }
  // the scale: the tallest stack above and below zero
  double up = 1e-9, down = 1e-9;
  for (const auto& q : r.positions) {
    double pos = std::max(0.0, q.embedding), neg = std::min(0.0, q.embedding);
    for (double h : q.heads) (h > 0 ? pos : neg) += h;
    up = std::max(up, pos), down = std::max(down, -neg);
  }
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float axis_w = ImGui::CalcTextSize("-00.0").x + 6.0f;
  const float label_h = ImGui::GetTextLineHeight() * 2.2f;
  const float plot_h = std::clamp(avail.y - label_h - (A.selected >= 0 ? 3.0f : 1.0f) * ImGui::GetTextLineHeightWithSpacing(), 6.0f * fs, 18.0f * fs);
  const float plot_w = std::max(avail.x - axis_w, 10.0f * fs);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 a(p0.x + axis_w, p0.y), b(a.x + plot_w, a.y + plot_h);
  ImGui::InvisibleButton("##attr_bars", ImVec2(axis_w + plot_w, plot_h + label_h));
  remember_rect(app, "inspect_attr_bars", a, b);
  const bool hovered = ImGui::IsItemHovered(), clicked = ImGui::IsItemClicked();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, b, IM_COL32(30, 33, 40, 255));
  const float zero_y = a.y + plot_h * (float)(up / (up + down));
  const auto Y = [&](double v) { return zero_y - (float)(v / (up + down)) * plot_h; };
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", up);
  dl->AddText(ImVec2(p0.x, a.y), IM_COL32(200, 200, 200, 255), buf);
  std::snprintf(buf, sizeof buf, "%.1f", -down);
  dl->AddText(ImVec2(p0.x, b.y - ImGui::GetTextLineHeight()), IM_COL32(200, 200, 200, 255), buf);
  const float lh = ImGui::GetTextLineHeight();
  if (zero_y - 0.5f * lh >= a.y + lh && zero_y + 0.5f * lh <= b.y - lh)  // "0" only where it clears the two ends' labels
    dl->AddText(ImVec2(p0.x, zero_y - lh * 0.5f), IM_COL32(200, 200, 200, 255), "0");
  const float bw = plot_w / (float)r.n;
  int over = -1;
  if (hovered) over = std::clamp((int)((ImGui::GetIO().MousePos.x - a.x) / bw), 0, r.n - 1);
  if (clicked && over >= 0) A.selected = A.selected == over ? -1 : over;
  const std::vector<int>& toks = A.example.tokens;
  const int label_step = std::max(1, (int)std::ceil(ImGui::CalcTextSize("00").x / std::max(1.0f, bw)));
  for (int i = 0; i < r.n; ++i) {
    const auto& q = r.positions[(size_t)i];
    const float x0 = a.x + bw * i + std::max(1.0f, bw * 0.12f), x1 = a.x + bw * (i + 1) - std::max(1.0f, bw * 0.12f);
    if (i == over || i == A.selected) dl->AddRectFilled(ImVec2(a.x + bw * i, a.y), ImVec2(a.x + bw * (i + 1), b.y), IM_COL32(255, 255, 255, i == A.selected ? 40 : 24));
    double top = 0.0, bottom = 0.0;
    for (int k = 0; k < parts; ++k) {
      const double v = k == 0 ? q.embedding : q.heads[(size_t)k - 1];
      double& base = v >= 0 ? top : bottom;
      dl->AddRectFilled(ImVec2(x0, Y(base + v)), ImVec2(x1, Y(base)), part_color(k));
      base += v;
    }
    dl->AddLine(ImVec2(x0 - 1, Y(q.logit)), ImVec2(x1 + 1, Y(q.logit)), IM_COL32(255, 255, 255, 255), 2.0f);
    if (i % label_step == 0) {
      const std::string in = i < (int)toks.size() ? task.token_name(toks[(size_t)i]) : "";
      const std::string out = task.token_name(q.target);
      dl->AddText(ImVec2(x0, b.y + 1), IM_COL32(200, 200, 200, 255), fit_text(in, bw * label_step).c_str());
      dl->AddText(ImVec2(x0, b.y + 1 + ImGui::GetTextLineHeight()), IM_COL32(255, 210, 120, 255), fit_text(out, bw * label_step).c_str());
    }
  }
  dl->AddLine(ImVec2(a.x, zero_y), ImVec2(b.x, zero_y), IM_COL32(220, 220, 220, 160));
  const auto parts_text = [&](int i) {
    const auto& q = r.positions[(size_t)i];
    std::string t = trf("inspect.attr.parts", {{"pos", i}, {"token", i < (int)toks.size() ? task.token_name(toks[(size_t)i]) : std::string()},
                                               {"target", task.token_name(q.target)}, {"logit", fmt(q.logit, 3)}, {"embedding", fmt(q.embedding, 3)}});
    for (int k = 0; k < (int)q.heads.size(); ++k)
      t += std::string(q.heads[(size_t)k] < 0 ? " - " : " + ") + "L" + std::to_string(k / r.heads) + "h" + std::to_string(k % r.heads) + " " +
           fmt(std::fabs(q.heads[(size_t)k]), 3);
    return t;
  };
  if (over >= 0) {
    ImGui::BeginTooltip();
    const auto& q = r.positions[(size_t)over];
    ImGui::TextUnformatted(trf("inspect.attr.tip", {{"pos", over}, {"token", over < (int)toks.size() ? task.token_name(toks[(size_t)over]) : std::string()},
                                                    {"target", task.token_name(q.target)}, {"logit", num(q.logit, 3)}})
                               .c_str());
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(part_color(0)), "%s", trf("inspect.attr.tip.embedding", {{"value", signed_num(q.embedding, 3)}}).c_str());
    for (int k = 0; k < (int)q.heads.size(); ++k)
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(part_color(k + 1)), "%s",
                         trf("inspect.attr.tip.head", {{"l", k / r.heads}, {"h", k % r.heads}, {"value", signed_num(q.heads[(size_t)k], 3)}}).c_str());
    ImGui::TextDisabled("%s", tr("inspect.attr.tip.click"));
    ImGui::EndTooltip();
  }
  text_wrapped_disabled(tr("inspect.attr.labels"));  // wraps at the window's edge (a longer language on a phone)
  if (A.selected >= 0) {
    ImGui::BeginGroup();
    text_wrapped_words("%s", parts_text(A.selected).c_str());
    ImGui::EndGroup();
    remember_item(app, "inspect_attr_selected");
  }
}

}  // namespace attnlab::inspect
