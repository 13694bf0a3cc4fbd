// panel_learn_probe.cpp — Learn mode's probe window: every layer's and head's attention on one held-out
// (or typed) example beside the task's ideal pattern, the history scrubber, this example's gradients
// (∂L/∂A, ∂L/∂S, ∂L/∂W), and a recurrent model's influence matrix in the heads' place.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "learn_widgets.h"
#include "mask.h"
#include "panel_learn.h"
#include "panel_recurrent.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

namespace {

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
  char* buf = L.probe_box;
  if (L.run().probe_text != L.probe_box_from)
    std::snprintf(buf, sizeof L.probe_box, "%s", L.run().probe_text.c_str()), L.probe_box_from = L.run().probe_text;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18.0f);
  const bool cross = L.run().run_setup.spec.cross;
  if (ImGui::InputTextWithHint("##probe_text", cross ? "your own input: source -> output, in the task's tokens" : "your own input, in the task's tokens",
                               buf, sizeof L.probe_box, ImGuiInputTextFlags_EnterReturnsTrue))
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
  const Thumbnail cells = thumbnail(g, t.rows, t.cols, nullptr, size, range > 0.0f ? range : 1.0f);
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
  const Thumbnail cells = thumbnail(p.influence.data(), p.n, p.n, nullptr, ImVec2(side, side), range > 0.0f ? range : 1.0f);
  const int i = cells.row, j = cells.col;
  remember_rect(app, "learn_influence", cells.min, cells.max);
  if (i >= 0)
    ImGui::SetTooltip("position %d (%s) <- input %d (%s): %.4g\n%d steps of the hidden state between them", i,
                      task.token_name(p.example.tokens[i]).c_str(), j, task.token_name(p.example.tokens[j]).c_str(),
                      p.influence[(size_t)i * p.n + j], i - j);
}

}  // namespace

void draw_learn_probe(App& app, LearnState& L) {
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
  const char* const kViews[] = {"A (weights)", ("\xE2\x88\x82L/\xE2\x88\x82" "A"), "\xE2\x88\x82L/\xE2\x88\x82S",
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
      const Thumbnail cells = thumbnail(w, n, m, &mask, size, ideal ? 0.0f : range);
      const int qi = cells.row, kj = cells.col;
      remember_rect(app, ideal ? "learn_l" + std::to_string(l) + "_ideal" + std::to_string(r)
                               : "learn_l" + std::to_string(l) + "_h" + std::to_string(h),
                    cells.min, cells.max);
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

}  // namespace attnlab
