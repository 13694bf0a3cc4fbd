// panel_learn_probe.cpp — Learn mode's probe window: every layer's and head's attention on one held-out
// (or typed) example beside the task's ideal pattern, the history scrubber, this example's gradients
// (∂L/∂A, ∂L/∂S, ∂L/∂W), and a recurrent model's influence matrix in the heads' place.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "heatmap.h"
#include "i18n.h"
#include "learn_widgets.h"
#include "mask.h"
#include "panel_learn.h"
#include "panel_recurrent.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

namespace {

// A number as the hover cards print it: %.4g, with the point (the same figure as the CLI's JSON).
std::string g4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The history scrubber: any evaluated step's weights, replayed in the thumbnails below.
void draw_replay(App& app, LearnState& L) {
  const int count = (int)L.run().snapshot_steps.size();
  if (count < 2) return;
  int index = L.run().replay >= 0 ? L.run().replay : count - 1;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16.0f);
  // The slider's text is its printf format: a '%' in a translation is written twice.
  std::string label = trf("learn.replay.step", {{"step", L.run().snapshot_steps[(size_t)index]}});
  for (size_t at = label.find('%'); at != std::string::npos; at = label.find('%', at + 2)) label.insert(at, 1, '%');
  if (ImGui::SliderInt("##replay", &index, 0, count - 1, label.c_str())) learn_replay(app, index == count - 1 ? -1 : index);
  remember_item(app, "learn_replay");
  ImGui::SameLine();
  if (L.run().replay >= 0) {
    if (ImGui::SmallButton(tr_id("learn.replay.live", "learn_live"))) learn_replay(app, -1);
    remember_item(app, "learn_live");
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_colored(ImVec4(1.0f, 0.80f, 0.35f, 1.0f), trf("learn.replay.replaying", {{"step", L.run().snapshot_steps[(size_t)L.run().replay]}}).c_str());
    ImGui::PopTextWrapPos();
  } else {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_disabled(trn("learn.replay.history", count, {{"n", count}}).c_str());
    ImGui::PopTextWrapPos();
  }
}

// Type your own probe in the task's tokens; Enter uses it, an empty box (or Held-out) goes back.
void draw_probe_input(App& app, LearnState& L) {
  char* buf = L.probe_box;
  if (L.run().probe_text != L.probe_box_from)
    std::snprintf(buf, sizeof L.probe_box, "%s", L.run().probe_text.c_str()), L.probe_box_from = L.run().probe_text;
  // 18 em, or as wide as its hint where the line has room; a hint the box still cannot hold (a phone, a
  // longer language) goes above it, wrapped, rather than be cut at the box's edge.
  const char* hint = L.run().run_setup.spec.cross ? tr("learn.probe.hint_cross") : tr("learn.probe.hint");
  const float hint_w = ImGui::CalcTextSize(hint).x + 2.0f * ImGui::GetStyle().FramePadding.x;
  const float box_w = std::min(ImGui::GetContentRegionAvail().x, std::max(ImGui::GetFontSize() * 18.0f, hint_w));
  const bool hint_inside = hint_w <= box_w;
  if (!hint_inside) {
    ImGui::BeginGroup();
    text_wrapped_disabled(hint);
    ImGui::EndGroup();
    remember_item(app, "learn_probe_hint");
  }
  ImGui::SetNextItemWidth(box_w);
  if (ImGui::InputTextWithHint("##probe_text", hint_inside ? hint : "", buf, sizeof L.probe_box, ImGuiInputTextFlags_EnterReturnsTrue))
    learn_set_probe(app, buf);
  remember_item(app, "learn_probe_text");
  if (ImGui::IsItemHovered()) {
    std::string vocab;
    for (int id = 0; id < L.run().run_setup.spec.vocab && vocab.size() < 160; ++id) vocab += (id ? " " : "") + (*L.run().task).token_name(id);
    ImGui::SetTooltip("%s", trf("learn.probe.tip", {{"vocabulary", vocab}}).c_str());
  }
  if (L.run().typed_probe) {
    ImGui::SameLine();
    if (ImGui::SmallButton(tr_id("learn.probe.heldout", "learn_probe_heldout"))) learn_set_probe(app, "");
    remember_item(app, "learn_probe_heldout");
  }
  if (!L.probe_error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "%s", L.probe_error.c_str());
  if (L.run().typed_probe && L.probe_view != 0)
    ImGui::TextDisabled("%s", tr("learn.probe.typed_no_gradient"));
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
    ImGui::TextDisabled("%s", tr("learn.grad.computing"));
    return;
  }
  const float* g = p.param_grads.data() + t.offset;
  float range = 0.0f;
  for (size_t i = 0; i < t.size(); ++i) range = std::max(range, std::fabs(g[i]));
  same_line_if_room(ImGui::CalcTextSize("-0.00 ").x + ImGui::GetFontSize() * 8.0f);
  colour_scale(ImGui::GetFontSize() * 8.0f, range > 0.0f ? range : 1.0f,
               range > 0.0f ? tr("learn.grad.largest") : L.run().typed_probe ? tr("learn.grad.zero_typed") : tr("learn.grad.zero"));
  // What a row and a column of this matrix are.
  const int dk = spec.d_k, dv = spec.d_v;
  const auto row_name = [&](int i) -> std::string {
    switch (t.kind) {
      case lrn::Param::w_e: return trf("learn.grad.token", {{"token", task.token_name(i)}});
      case lrn::Param::pos: return trf("learn.grad.position", {{"i", i}});
      case lrn::Param::w_o: return trf("learn.grad.head_value_dim", {{"h", i / dv}, {"d", i % dv}});
      default: return trf("learn.grad.model_dim", {{"d", i}});
    }
  };
  const auto col_name = [&](int j) -> std::string {
    switch (t.kind) {
      case lrn::Param::w_q: case lrn::Param::w_k: return trf("learn.grad.head_dim", {{"h", j / dk}, {"d", j % dk}});
      case lrn::Param::w_v: return trf("learn.grad.head_dim", {{"h", j / dv}, {"d", j % dv}});
      case lrn::Param::w_u: return trf("learn.grad.token", {{"token", task.token_name(j)}});
      default: return trf("learn.grad.model_dim", {{"d", j}});
    }
  };
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_disabled(trf("learn.grad.shape", {{"rows", t.rows}, {"cols", t.cols}, {"first_row", row_name(0)}, {"last_row", row_name(t.rows - 1)},
                                               {"first_col", col_name(0)}, {"last_col", col_name(t.cols - 1)}}).c_str());
  ImGui::PopTextWrapPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float cell = std::max(2.0f, std::min((avail.x - 8.0f) / (float)t.cols, (avail.y - 8.0f) / (float)t.rows));
  const ImVec2 size(cell * (float)t.cols, cell * (float)t.rows);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const Thumbnail cells = thumbnail(app, g, t.rows, t.cols, nullptr, size, range > 0.0f ? range : 1.0f);
  const int i = cells.row, j = cells.col;
  remember_rect(app, "learn_grad_cells", cells.min, cells.max);
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
    ImGui::SetTooltip("\xE2\x88\x82L/\xE2\x88\x82%s[%d][%d] = %s\n%s", t.name.c_str(), i, j, g4(g[(size_t)i * t.cols + j]).c_str(),
                      trf("learn.grad.cell", {{"i", i}, {"row", row_name(i)}, {"j", j}, {"column", col_name(j)}}).c_str());
}

// A recurrent model has no attention to show: what it has instead is how much each input moved each
// prediction, ‖∂z_i/∂x_j‖ (the influence matrix, learn/measures.h), drawn where the heads would be.
void draw_influence(App& app, LearnState& L, const lrn::Probe& p) {
  const lrn::Task& task = *L.run().task;
  if (p.influence.size() != (size_t)p.n * p.n) {
    learn_probe_gradients(app, true);  // the influence comes from the probe's backward passes
    ImGui::TextDisabled("%s", tr("learn.influence.computing"));
    return;
  }
  float range = 0.0f;
  for (float v : p.influence) range = std::max(range, v);
  ImGui::PushTextWrapPos(0.0f);
  text_wrapped_words("%s", tr("learn.influence.title"));
  ImGui::PopTextWrapPos();
  help_marker(tr("learn.influence.help"));
  colour_scale(ImGui::GetFontSize() * 8.0f, range > 0.0f ? range : 1.0f, tr("learn.influence.zero"));
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The height left, but never under 10 text heights (a projector's UI scale 2: the window scrolls instead).
  const float side = std::min(avail.x, std::max(10.0f * ImGui::GetFontSize(), avail.y - ImGui::GetTextLineHeightWithSpacing()));
  const Thumbnail cells = thumbnail(app, p.influence.data(), p.n, p.n, nullptr, ImVec2(side, side), range > 0.0f ? range : 1.0f);
  const int i = cells.row, j = cells.col;
  remember_rect(app, "learn_influence", cells.min, cells.max);
  if (i >= 0)
    ImGui::SetTooltip("%s", trf("learn.influence.cell", {{"i", i}, {"query", task.token_name(p.example.tokens[i])}, {"j", j},
                                                       {"key", task.token_name(p.example.tokens[j])}, {"value", g4(p.influence[(size_t)i * p.n + j])},
                                                       {"steps", i - j}}).c_str());
}

}  // namespace

void draw_learn_probe(App& app, LearnState& L) {
  const bool recurrent = L.run().started && L.run().run_setup.spec.recurrent();
  if (!L.run().started || (!recurrent && L.run().probe.weights.empty())) {
    ImGui::PushTextWrapPos(0.0f);
    text_wrapped_disabled(tr("learn.probe.empty"));
    ImGui::PopTextWrapPos();
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
  ImGui::PushTextWrapPos(0.0f);  // the probe's lines wrap at the window's edge (long inputs, longer languages)
  if (spec.cross) {
    std::string src;
    for (int j = 0; j < m; ++j) src += (j ? " " : "") + name(p.example.source[j]);
    text_wrapped_words("%s", trf("learn.probe.source", {{"tokens", src}}).c_str());
  }
  if (L.run().typed_probe) {
    // A typed input has no targets: show what the model predicts after each token instead.
    std::string predicted;
    for (int i = 0; i < n; ++i) predicted += (i ? " " : "") + name(p.predictions[i]);
    text_wrapped_words("%s", trf("learn.probe.typed", {{"step", shown_step}, {"tokens", in}}).c_str());
    text_wrapped_disabled(trf("learn.probe.predicts", {{"tokens", predicted}}).c_str());
  } else {
    text_wrapped_words("%s", trf("learn.probe.heldout_line", {{"step", shown_step}, {"tokens", in}}).c_str());
    const std::string score = trf("learn.probe.right", {{"right", right}, {"n", counted}});
    same_line_if_fits(score.c_str());
    text_wrapped_disabled(score.c_str());
  }
  ImGui::PopTextWrapPos();
  draw_probe_input(app, L);
  if (draw_lesson_views(app, L)) return;  // a delayed copy: the recurrence lesson's other views
  if (recurrent) return draw_influence(app, L, p);
  // What the thumbnails show: the weights, or this example's gradients (one symmetric scale for all heads).
  const char* const kViews[] = {tr("learn.view.weights"), ("\xE2\x88\x82L/\xE2\x88\x82" "A"), "\xE2\x88\x82L/\xE2\x88\x82S",
                                 tr("learn.view.weight_matrix")};
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(kViews[L.probe_view]).x + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2.0f);
  if (ImGui::Combo("##probe_view", &L.probe_view, kViews, 4)) {
    learn_probe_gradients(app, L.probe_view != 0);  // probe again, with gradients when they are shown
  }
  remember_item(app, "learn_probe_view");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("learn.view.tip"));
  same_line_if_room(L.probe_view == 3 ? ImGui::GetFontSize() * 8.0f : ImGui::CalcTextSize(tr("learn.scale.weight_zero")).x + ImGui::GetFontSize() * 8.0f);
  if (L.probe_view == 3) return draw_param_gradient(app, L, p);
  const std::vector<std::vector<float>>* grads = L.probe_view == 1 ? &p.weight_grads : L.probe_view == 2 ? &p.score_grads : nullptr;
  if (grads && grads->size() != (size_t)spec.layers) grads = nullptr;  // not probed with gradients yet
  float range = 0.0f;
  if (grads)
    for (const auto& g : *grads)
      for (float v : g) range = std::max(range, std::fabs(v));
  if (grads && range == 0.0f) range = 1.0f;
  colour_scale(ImGui::GetFontSize() * 8.0f, range);
  const char* open_label = tr_id("learn.open", "learn_open");
  const float open_w = ImGui::CalcTextSize(open_label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x;
  same_line_if_room(spec.layers > 1 ? ImGui::GetFontSize() * 5.0f : open_w, ImGui::GetFontSize() * 2.0f);
  int& open_layer = L.open_layer;
  open_layer = std::clamp(open_layer, 0, spec.layers - 1);
  if (spec.layers > 1) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
    std::string format = trf("learn.open_layer", {{"l", "\x01"}});  // the slider's printf format: '%' twice, the layer as %d
    for (size_t at = format.find('%'); at != std::string::npos; at = format.find('%', at + 2)) format.insert(at, 1, '%');
    if (const size_t at = format.find('\x01'); at != std::string::npos) format.replace(at, 1, "%d");
    ImGui::SliderInt("##open_layer", &open_layer, 0, spec.layers - 1, format.c_str());
    remember_item(app, "learn_open_layer");
    same_line_if_room(open_w);
  }
  if (ImGui::SmallButton(open_label)) {
    if (std::string err = learn_open_in_lab(app, open_layer); !err.empty()) notify(app, err);
  }
  remember_item(app, "learn_open");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("learn.open.tip"));

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
      std::string label, compact;  // (compact: the notation "L0 h1", where "L0 head 1" does not fit)
      if (ideal) label = compact = R > 1 ? trf("learn.ideal_relation", {{"relation", relation_label(task.relation_names[r])}}) : tr("learn.ideal");
      else {
        label = trf("learn.head_label", {{"l", l}, {"h", h}});
        compact = "L" + std::to_string(l) + " h" + std::to_string(h);
        const auto at = std::find_if(last.rbegin(), last.rend(), [&](const lrn::EvalPoint& e) { return e.step <= shown_step; });
        if (at != last.rend()) {
          double best = 0;
          for (int k = 0; k < R; ++k) best = std::max(best, at->pattern[((size_t)l * spec.heads + h) * R + k]);
          label += "  " + num(best, 2);
          compact += " " + num(best, 2);
        }
      }
      // No wider than its thumbnail (the whole label is the tooltip's first line), so the row keeps its columns.
      const std::string shown = fit_label(ImGui::CalcTextSize(label.c_str()).x <= size.x ? label : compact, size.x);
      if (ideal) ImGui::TextColored(ImVec4(0.55f, 0.80f, 1.0f, 1.0f), "%s", shown.c_str());
      else ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(l * spec.heads + h)), "%s", shown.c_str());
      const float* w = ideal ? L.run().ideal[(size_t)l * R + r].data()
                             : (grads ? (*grads)[l].data() : p.weights[l].data()) + (size_t)h * n * m;
      const Thumbnail cells = thumbnail(app, w, n, m, &mask, size, ideal ? 0.0f : range);
      const int qi = cells.row, kj = cells.col;
      remember_rect(app, ideal ? "learn_l" + std::to_string(l) + "_ideal" + std::to_string(r)
                               : "learn_l" + std::to_string(l) + "_h" + std::to_string(h),
                    cells.min, cells.max);
      if (qi >= 0)
        ImGui::SetTooltip("%s\n%s", label.c_str(),
                          trf(mask.allows(qi, kj) ? Key("learn.cell") : Key("learn.cell_masked"),
                              {{"i", qi}, {"query", name(p.example.tokens[qi])}, {"j", kj}, {"key", name(keys_tokens[kj])},
                               {"what", ideal || !grads ? tr("learn.cell.weight") : kViews[L.probe_view]},
                               {"value", g4(w[(size_t)qi * m + kj])}}).c_str());
      ImGui::PopID();
      ImGui::EndGroup();
    }
  }
}

}  // namespace attnlab
