// panel_inspect_ablation.cpp — Inspect heads' Ablation view (panel_inspect.h): a layers × heads grid of
// the model; a click removes a head or restores it, and the held-out accuracy and loss, the probe's
// predictions and its attention are measured again at once with those heads removed (learn/inspect.h,
// docs/inspect.md). "Ablate each head" fills the grid with what removing each head alone costs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "colormap.h"
#include "heatmap.h"
#include "i18n.h"
#include "learn_widgets.h"
#include "panel_inspect.h"
#include "widgets.h"

namespace attnlab::inspect {

// [SECTION] measure: the engine's calls, on a click or when the weights change; never every frame
lrn::AblationSpec spec_of(const InspectState& I) {
  lrn::AblationSpec a;
  a.mode = I.mode;
  const int heads = I.subject->setup.spec.heads;
  for (int k = 0; k < (int)I.ablated.size(); ++k)
    if (I.ablated[(size_t)k]) a.heads.push_back({k / heads, k % heads});
  return a;
}

// The held-out metrics and the probe with the chosen heads ablated (one or two held-out passes).
void measure(InspectState& I) {
  const lrn::AblationSpec a = spec_of(I);
  I.current = a.heads.empty() ? I.baseline : lrn::ablated_metrics(*I.subject, a);
  I.probe = lrn::ablated_probe(*I.subject, I.probe_example, a);
}

// The probe alone again: intact and with the heads ablated.
void measure_probe(InspectState& I) {
  I.intact_probe = lrn::ablated_probe(*I.subject, I.probe_example, {});
  I.probe = lrn::ablated_probe(*I.subject, I.probe_example, spec_of(I));
}

// How many of the probe's targets `p` predicts right, and how many targets there are.
std::pair<int, int> targets_right(const lrn::Example& e, const lrn::ProbeResult& p) {
  int right = 0, counted = 0;
  for (int i = 0; i < p.n && i < (int)e.targets.size(); ++i)
    if (e.targets[(size_t)i] >= 0) ++counted, right += p.predictions[(size_t)i] == e.targets[(size_t)i];
  return {right, counted};
}

namespace {

// A click on a head: ablated <-> restored, and everything measured again.
void toggle_head(InspectState& I, int layer, int head) {
  char& on = I.ablated[(size_t)layer * I.subject->setup.spec.heads + head];
  on = !on;
  measure(I);
}

// How a head is removed (zero, mean) as the learner reads it; lrn::to_string's is the API's.
const char* mode_label(lrn::AblationMode m) { return tr_dynamic(std::string("inspect.mode.") + lrn::to_string(m), lrn::to_string(m)); }

// [SECTION] draw: the readout, the grid, the probe after
void draw_readout(App& app, InspectState& I) {
  const int ablated = (int)std::count(I.ablated.begin(), I.ablated.end(), 1);
  const double acc = I.current.accuracy, d_acc = 100.0 * (acc - I.baseline.accuracy), d_loss = I.current.loss - I.baseline.loss;
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(wrap_before_marker());  // the readout wraps (a phone, a longer language), its "(?)" beside it
  if (ablated == 0) {
    text_wrapped_words("%s", trf("inspect.readout", {{"pct", num(100.0 * acc, 1)}, {"loss", num(I.current.loss, 4)}}).c_str());
    text_wrapped_disabled(tr("inspect.readout.none_removed"));
  } else {
    // Four pieces side by side while they fit, each wrapped (never inside its number) where it does not.
    text_wrapped_words("%s", trf("inspect.readout.accuracy", {{"pct", num(100.0 * acc, 1)}}).c_str());
    const std::string points = trf("inspect.readout.points", {{"points", signed_num(d_acc, 1)}});
    same_line_if_room(ImGui::CalcTextSize(points.c_str()).x);
    text_wrapped_colored(d_acc < -0.05 ? kBad : kGood, points.c_str());
    const std::string loss = trf("inspect.readout.loss", {{"loss", num(I.current.loss, 4)}}), d = "(" + signed_num(d_loss, 3) + ")";
    same_line_if_room(ImGui::CalcTextSize(loss.c_str()).x, 2.0f * ImGui::GetStyle().ItemSpacing.x);
    text_wrapped_words("%s", loss.c_str());
    same_line_if_room(ImGui::CalcTextSize(d.c_str()).x);
    text_wrapped_colored(d_loss > 0.0005 ? kBad : kGood, d.c_str());
    text_wrapped_disabled(trn("inspect.readout.removed", ablated, {{"n", ablated}, {"mode", mode_label(I.mode)},
                                                                  {"pct", num(100.0 * I.baseline.accuracy, 1)}, {"loss", num(I.baseline.loss, 4)}}).c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  remember_rect(app, "inspect_readout", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::SameLine();
  help_marker(tr("inspect.readout.help"));
}

// The grid: one cell per head, a click removes or restores it. With the table, each cell also says what
// removing that head alone costs, coloured by it (red: accuracy lost).
void draw_grid(App& app, InspectState& I) {
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const float fs = ImGui::GetFontSize(), gap = 4.0f * app.style_scale;
  // SameLine(x) counts from the window's left edge: the label column is the padding, the label, a gap.
  const float label_w = ImGui::GetStyle().WindowPadding.x + ImGui::CalcTextSize(trf("inspect.layer", {{"l", s.layers - 1}}).c_str()).x + gap * 3.0f;
  const float avail = ImGui::GetContentRegionAvail().x - (label_w - ImGui::GetStyle().WindowPadding.x);
  const float cell_w = std::clamp((avail - gap * (float)(s.heads - 1)) / (float)s.heads, 2.2f * fs, 7.5f * fs);
  const bool roomy = cell_w >= 5.0f * fs;  // room for the numbers inside the cell
  const float cell_h = ImGui::GetTextLineHeight() * (I.have_table && roomy ? 3.0f : 1.6f) + 2.0f * gap;
  float worst = 0.0f;  // the largest accuracy lost by one head: the colours' scale
  if (I.have_table)
    for (const lrn::Metrics& m : I.table.each) worst = std::max(worst, (float)std::fabs(m.accuracy - I.table.baseline.accuracy));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int l = 0; l < s.layers; ++l) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(trf("inspect.layer", {{"l", l}}).c_str());
    ImGui::SameLine(label_w);
    for (int h = 0; h < s.heads; ++h) {
      if (h) ImGui::SameLine(0, gap);
      ImGui::PushID(l * 64 + h);
      const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + cell_w, a.y + cell_h);
      const bool clicked = ImGui::InvisibleButton("##head", ImVec2(cell_w, cell_h));
      const bool hovered = ImGui::IsItemHovered();
      const std::string name = "inspect_l" + std::to_string(l) + "_h" + std::to_string(h);
      remember_rect(app, name, a, b);
      const bool off = I.ablated[(size_t)l * s.heads + h];
      const lrn::Metrics* each = I.have_table ? &I.table.each[(size_t)l * s.heads + h] : nullptr;
      const double d_acc = each ? each->accuracy - I.table.baseline.accuracy : 0.0, d_loss = each ? each->loss - I.table.baseline.loss : 0.0;
      ImU32 fill = each && worst > 0.0f ? colormap(Colormap::diverging, (float)(-d_acc) / worst) : IM_COL32(46, 52, 64, 255);
      dl->AddRectFilled(a, b, fill, 4.0f);
      dl->AddRect(a, b, off ? IM_COL32(255, 90, 80, 255) : hovered ? IM_COL32(255, 255, 255, 200) : head_color(l * s.heads + h, 0.8f), 4.0f, 0,
                  off ? 3.0f : 1.5f);
      if (off) dl->AddLine(ImVec2(a.x + 3, b.y - 3), ImVec2(b.x - 3, a.y + 3), IM_COL32(255, 90, 80, 160), 2.0f);
      const ImU32 ink = each && worst > 0.0f ? text_color_on(fill) : IM_COL32(230, 230, 230, 255);
      // The cell's words, clipped to the cell (a longer language must not spill into the next head).
      const std::string head_line = roomy ? trf(off ? Key("inspect.cell.head_off") : Key("inspect.cell.head"), {{"h", h}})
                                          : std::to_string(h) + (off ? "x" : "");
      dl->PushClipRect(a, b, true);
      dl->AddText(ImVec2(a.x + gap, a.y + gap), ink, head_line.c_str());
      if (each && roomy) {
        dl->AddText(ImVec2(a.x + gap, a.y + gap + ImGui::GetTextLineHeight()), ink,
                    trf("inspect.cell.points", {{"points", signed_num(100.0 * d_acc, 1)}}).c_str());
        dl->AddText(ImVec2(a.x + gap, a.y + gap + 2.0f * ImGui::GetTextLineHeight()), ink,
                    trf("inspect.cell.loss", {{"loss", signed_num(d_loss, 3)}}).c_str());
      }
      dl->PopClipRect();
      if (hovered) {
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(trf(off ? Key("inspect.cell.tip_removed") : Key("inspect.cell.tip_in"), {{"l", l}, {"h", h}}).c_str());
        ImGui::TextUnformatted(trf("inspect.cell.tip_pattern", {{"score", num(I.baseline.pattern_at(l, h), 2)}}).c_str());
        if (each)
          ImGui::TextUnformatted(trf("inspect.cell.tip_alone", {{"mode", mode_label(I.table.mode)}, {"pct", num(100.0 * each->accuracy, 1)},
                                                                {"points", signed_num(100.0 * d_acc, 1)}, {"loss", num(each->loss, 4)},
                                                                {"d_loss", signed_num(d_loss, 3)}}).c_str());
        ImGui::EndTooltip();
      }
      if (clicked) toggle_head(I, l, h);
      ImGui::PopID();
    }
  }
}

// The probe with the heads removed: what it predicts, how many targets are right, and every head's
// attention (a removed head's own attention is still computed; what changes is what later heads see).
void draw_probe_after(App& app, InspectState& I) {
  const lrn::Task& task = *I.subject->task;
  const lrn::ProbeResult& p = I.probe;
  const lrn::Example& e = I.probe_example;
  std::string predicted;
  for (int i = 0; i < p.n; ++i) predicted += (i ? " " : "") + task.token_name(p.predictions[(size_t)i]);
  const auto [right, counted] = targets_right(e, p);
  const int right_intact = targets_right(e, I.intact_probe).first;
  ImGui::PushTextWrapPos(wrap_before_marker());
  ImGui::BeginGroup();  // one item however many lines it wraps into
  if (counted > 0)
    text_wrapped_words("%s", trf("inspect.probe.right", {{"right", right}, {"n", counted}, {"intact", right_intact}}).c_str());
  else
    text_wrapped_words("%s", tr("inspect.probe.typed"));
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
  remember_rect(app, "inspect_probe_right", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::SameLine();
  help_marker(tr("inspect.probe.help"));
  text_wrapped_disabled(trf("inspect.probe.predicts", {{"tokens", predicted}}).c_str());

  const lrn::ModelSpec& s = I.subject->setup.spec;
  const attn::MaskMatrix mask = attn::build_mask(s.mask, p.n, p.m);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = 6.0f * app.style_scale, label_h = ImGui::GetTextLineHeightWithSpacing();
  const float aspect = (float)p.n / (float)std::max(1, p.m);
  float side = std::min((avail.x - gap * (float)s.heads) / (float)s.heads, (avail.y - (float)s.layers * (label_h + gap)) / (float)s.layers / aspect);
  if (side < 16.0f) return;  // no room left: the numbers above still say it
  side = std::min(side, 12.0f * ImGui::GetFontSize());
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h) {
      if (h) ImGui::SameLine(0, gap);
      ImGui::BeginGroup();
      ImGui::PushID(1000 + l * 64 + h);
      const bool off = I.ablated[(size_t)l * s.heads + h];
      const std::string label = trf(off ? Key("inspect.thumb.off") : Key("inspect.thumb"), {{"l", l}, {"h", h}});
      ImGui::TextColored(off ? kBad : ImGui::ColorConvertU32ToFloat4(head_color(l * s.heads + h)), "%s",
                         fit_label(label, side).c_str());  // no wider than its thumbnail; the tooltip has it whole
      const float* w = p.weights[(size_t)l].data() + (size_t)h * p.n * p.m;
      const Thumbnail cells = thumbnail(app, w, p.n, p.m, &mask, ImVec2(side, side * aspect));
      const int qi = cells.row, kj = cells.col;
      remember_rect(app, "inspect_thumb_l" + std::to_string(l) + "_h" + std::to_string(h), cells.min, cells.max);
      if (qi >= 0) {
        const std::vector<int>& keys = s.cross ? e.source : e.tokens;
        char value[32];
        std::snprintf(value, sizeof value, "%.4g", w[(size_t)qi * p.m + kj]);
        ImGui::SetTooltip("%s\n%s", label.c_str(),
                          trf("learn.cell", {{"i", qi}, {"query", task.token_name(e.tokens[(size_t)qi])}, {"j", kj},
                                             {"key", task.token_name(keys[(size_t)kj])}, {"what", tr("learn.cell.weight")}, {"value", value}}).c_str());
      }
      ImGui::PopID();
      ImGui::EndGroup();
    }
}

}  // namespace

void draw_ablation(App& app, InspectState& I) {
  // The mode (two buttons, one lit: a click switches and measures again), Ablate each, Restore all.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("inspect.remove_by"));
  for (const lrn::AblationMode m : {lrn::AblationMode::zero, lrn::AblationMode::mean}) {
    ImGui::SameLine(0, m == lrn::AblationMode::zero ? -1.0f : 0.0f);
    const bool on = I.mode == m;
    ImGui::PushStyleColor(ImGuiCol_Button, on ? ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive) : ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
    ImGui::PushID((int)m);
    const bool pressed = ImGui::SmallButton(mode_label(m));
    ImGui::PopID();
    if (pressed && !on) {
      I.mode = m;
      measure(I);
      if (I.have_table) I.table = lrn::ablate_each(*I.subject, I.mode);  // the table shown follows the mode
    }
    ImGui::PopStyleColor();
    remember_item(app, m == lrn::AblationMode::zero ? "inspect_mode_zero" : "inspect_mode_mean");
  }
  ImGui::SameLine();
  help_marker(tr("inspect.mode.help"));
  const auto button_w = [](const char* label) { return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x; };
  same_line_if_room(button_w(tr_id("inspect.each", "inspect_each")));
  if (ImGui::SmallButton(tr_id("inspect.each", "inspect_each"))) {
    I.table = lrn::ablate_each(*I.subject, I.mode);
    I.have_table = true;
  }
  remember_item(app, "inspect_each");
  ImGui::SameLine();
  help_marker(tr("inspect.each.help"));
  if (std::count(I.ablated.begin(), I.ablated.end(), 1) > 0) {
    same_line_if_room(button_w(tr_id("inspect.restore", "inspect_restore")));
    if (ImGui::SmallButton(tr_id("inspect.restore", "inspect_restore"))) {
      std::fill(I.ablated.begin(), I.ablated.end(), 0);
      measure(I);
    }
    remember_item(app, "inspect_restore");
  }
  draw_readout(app, I);
  draw_grid(app, I);
  ImGui::Separator();
  draw_probe_after(app, I);
}

}  // namespace attnlab::inspect
