// panel_inspect_circuits.cpp — Inspect heads' Circuits view (panel_inspect.h): one head's QK and OV
// circuits over the vocabulary (and its positional QK where the model has learned positions), and the
// composition table: how much each head of layer l + 1 reads, through its Q, K or V, what each head of
// layer l wrote (learn/inspect.h circuits, composition_scores; docs/inspect.md).
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

void measure_circuits(InspectState& I) {
  InspectState::CircuitView& C = I.circuits;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  C.measured = I.weights_version;
  C.layer = std::clamp(C.layer, 0, s.layers - 1), C.head = std::clamp(C.head, 0, s.heads - 1);
  if (std::string e = lrn::circuits(I.subject->model, C.layer, C.head, C.result); !e.empty()) return void(C.error = e);
  C.error.clear();
  C.composition = lrn::composition_scores(I.subject->model);
  C.qk.assign(C.result.qk.begin(), C.result.qk.end());
  C.ov.assign(C.result.ov.begin(), C.result.ov.end());
  C.pqk.assign(C.result.positional_qk.begin(), C.result.positional_qk.end());
}

float largest_abs(const std::vector<float>& v) {
  float top = 0.0f;
  for (float x : v) top = std::max(top, std::fabs(x));
  return top > 0.0f ? top : 1.0f;
}

HeatmapEvent circuit_heatmap(App& app, const char* id, const std::vector<float>& v, int rows, int cols, const std::vector<std::string>& row_labels,
                             const std::vector<std::string>& col_labels, ImVec2 size) {
  return signed_heatmap(app, id, v, rows, cols, row_labels, col_labels, size, {largest_abs(v), false, -1, 30.0f});
}

// How the composition table fits a window `avail` wide: each cell's Q, K and V on one line (lines = 1) or
// one under another (3); the corner in words or as notation ("L1 ↓ / L0 →"); scrolled sideways inside
// its own frame only when even the narrowest form is wider than the window.
struct CompositionFit {
  int lines = 1;
  bool notation_corner = false, scroll = false;
};
std::string short_corner(int l) { return "L" + std::to_string(l + 1) + " \xE2\x86\x93 / L" + std::to_string(l) + " \xE2\x86\x92"; }
CompositionFit fit_composition(int heads, float avail) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float number = ImGui::CalcTextSize("Q 0.00").x, label = ImGui::CalcTextSize("L9 h9").x;
  const float pad = 2.0f * st.CellPadding.x + 1.0f;  // a column's padding and border
  const auto width = [&](float cell, float corner) { return std::max(label, corner) + (float)heads * cell + (float)(heads + 1) * pad + 2.0f; };
  const float corner = ImGui::CalcTextSize(trf("inspect.circ.comp.corner", {{"l", 1}}).c_str()).x, narrow = ImGui::CalcTextSize(short_corner(0).c_str()).x;
  const float side_by_side = 3.0f * number + 2.0f * st.ItemSpacing.x;
  if (width(side_by_side, corner) <= avail) return {1, false, false};
  if (width(number, corner) <= avail) return {3, false, false};
  return {3, true, width(number, narrow) > avail};
}

}  // namespace

void draw_circuits(App& app, InspectState& I) {
  InspectState::CircuitView& C = I.circuits;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const lrn::Task& task = *I.subject->task;
  title(tr("inspect.circ.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.circ.help"));
  // The heads' buttons flow onto more lines where they do not fit across (a phone, many heads), then the checkbox.
  std::vector<ViewButton> heads;
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h)
      heads.push_back({"L" + std::to_string(l) + " h" + std::to_string(h), "inspect_circ_l" + std::to_string(l) + "_h" + std::to_string(h)});
  int chosen = C.layer * s.heads + C.head;
  if (view_buttons(app, heads, chosen)) C.layer = chosen / s.heads, C.head = chosen % s.heads, C.measured = ~0ull;
  if (C.measured != I.weights_version) measure_circuits(I);
  if (!C.error.empty()) return text_wrapped_colored(kError, C.error.c_str());
  const lrn::Circuits& r = C.result;
  if (r.pos_rows > 0) {
    const char* positional = tr_id("inspect.circ.positional", "positional QK");
    same_line_if_fits(positional);
    checkbox(positional, &C.positional);  // its label wraps beside the box on a narrow window
    remember_item(app, "inspect_circ_positional");
  }
  std::vector<std::string> vocab;
  for (int t = 0; t < r.vocab; ++t) vocab.push_back(task.token_name(t));
  const float fs = ImGui::GetFontSize(), w = ImGui::GetContentRegionAvail().x, line = ImGui::GetTextLineHeightWithSpacing();
  const bool beside = w > 40.0f * fs;
  // The squares take the height the composition table leaves (a square heatmap is about as tall as wide),
  // but no less than 14 text heights: below that the window scrolls.
  const lrn::Composition& k = C.composition;
  const CompositionFit fit = fit_composition(k.heads, w);
  const float row_h = (float)fit.lines * ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y + 1.0f;
  const float table_h = k.layers < 2 ? line : (float)(k.layers - 1) * ((float)(k.heads + 1) * row_h + (fit.scroll ? ImGui::GetStyle().ScrollbarSize : 0.0f)) + 2.0f * line;
  const float tall = (ImGui::GetContentRegionAvail().y - table_h - 2.0f * line) / (beside ? 1.0f : 2.0f) - line;
  const float each_w = beside ? (w - fs) * 0.5f : w, each_h = std::max(14.0f * fs, tall);
  // One circuit as a titled heatmap; its tooltip says what the hovered number means.
  const auto g4 = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return std::string(buf);
  };
  const auto circuit = [&](const char* id, const char* title, const std::vector<float>& v, const char* widget, Key meaning) {
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + each_w);  // a long title wraps above its map
    text_wrapped_words("%s", trf("inspect.circ.map_title", {{"name", id}, {"l", C.layer}, {"h", C.head}, {"what", title}}).c_str());
    ImGui::PopTextWrapPos();
    const HeatmapEvent ev = circuit_heatmap(app, id, v, r.vocab, r.vocab, vocab, vocab, ImVec2(each_w, each_h));
    remember_rect(app, widget, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::EndGroup();
    if (ev.hovered && ev.row >= 0 && ev.col >= 0)
      ImGui::SetTooltip("%s", trf(meaning, {{"row", vocab[(size_t)ev.row]}, {"col", vocab[(size_t)ev.col]}, {"value", g4(v[(size_t)ev.row * r.vocab + ev.col])}}).c_str());
  };
  circuit("QK", tr("inspect.circ.qk.what"), C.qk, "inspect_circ_qk", "inspect.circ.qk.tip");
  if (beside) ImGui::SameLine(0, fs);
  circuit("OV", tr("inspect.circ.ov.what"), C.ov, "inspect_circ_ov", "inspect.circ.ov.tip");
  if (C.positional && r.pos_rows > 0) {
    std::vector<std::string> rows, cols;
    for (int i = 0; i < r.pos_rows; ++i) rows.push_back(std::to_string(i));
    for (int j = 0; j < r.pos_cols; ++j) cols.push_back(std::to_string(j));
    text_wrapped_words("%s", trf("inspect.circ.pqk.title", {{"l", C.layer}, {"h", C.head}}).c_str());
    const HeatmapEvent ep = circuit_heatmap(app, "pqk", C.pqk, r.pos_rows, r.pos_cols, rows, cols, ImVec2(std::min(w, 30.0f * fs), 0.0f));
    if (ep.hovered && ep.row >= 0 && ep.col >= 0)
      ImGui::SetTooltip("%s", trf("inspect.circ.pqk.tip", {{"query", ep.row}, {"key", ep.col}, {"value", g4(C.pqk[(size_t)ep.row * r.pos_cols + ep.col])}}).c_str());
  }
  // the composition table: how much each head of layer l + 1 reads what each head of layer l wrote
  if (k.layers < 2) return text_wrapped_disabled(tr("inspect.circ.one_layer"));
  title(tr("inspect.circ.comp.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.circ.comp.help"));
  for (int l = 0; l + 1 < k.layers; ++l) {
    // Scrolled inside its own frame only when even the narrow form is wider than the window (many heads on a phone).
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | (fit.scroll ? ImGuiTableFlags_ScrollX : 0);
    const ImVec2 outer(0.0f, fit.scroll ? (float)(k.heads + 1) * row_h + ImGui::GetStyle().ScrollbarSize + 2.0f : 0.0f);
    if (!ImGui::BeginTable(("##comp" + std::to_string(l)).c_str(), 1 + k.heads, flags, outer)) break;
    ImGui::TableSetupColumn("##corner");
    for (int h = 0; h < k.heads; ++h) ImGui::TableSetupColumn(("L" + std::to_string(l) + " h" + std::to_string(h)).c_str());
    // The header row: the corner says which layer reads and which wrote, in full where it fits, else as
    // notation with the sentence in its tooltip.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    ImGui::TableSetColumnIndex(0);
    const std::string corner = trf("inspect.circ.comp.corner", {{"l", l + 1}});
    ImGui::TableHeader(fit.notation_corner ? short_corner(l).c_str() : corner.c_str());
    if (fit.notation_corner && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", corner.c_str());
    for (int h = 0; h < k.heads; ++h) {
      ImGui::TableSetColumnIndex(1 + h);
      ImGui::TableHeader(("L" + std::to_string(l) + " h" + std::to_string(h)).c_str());
    }
    for (int rd = 0; rd < k.heads; ++rd) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::Text("L%d h%d", l + 1, rd);
      for (int wr = 0; wr < k.heads; ++wr) {
        ImGui::TableSetColumnIndex(1 + wr);
        const double q = k.at(k.q, l, rd, wr), kk = k.at(k.k, l, rd, wr), v = k.at(k.v, l, rd, wr);
        const double top = std::max({q, std::isnan(kk) ? 0.0 : kk, std::isnan(v) ? 0.0 : v});
        const auto cell = [&](const char* name, double x, bool last) {
          if (std::isnan(x)) ImGui::TextDisabled("%s  -  ", name);
          else ImGui::TextColored(x == top && top > 0.3 ? ImVec4(1.0f, 0.75f, 0.35f, 1.0f) : ImGui::GetStyleColorVec4(ImGuiCol_Text), "%s %.2f", name, x);
          if (!last && fit.lines == 1) ImGui::SameLine();  // Q, K, V side by side, or one under another
        };
        cell("Q", q, false), cell("K", kk, false), cell("V", v, true);
      }
    }
    ImGui::EndTable();
    remember_item(app, ("inspect_comp_" + std::to_string(l)).c_str());
  }
}

}  // namespace attnlab::inspect
