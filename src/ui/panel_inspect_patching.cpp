// panel_inspect_patching.cpp — Inspect heads' Patching view (panel_inspect.h): activation patching from a
// clean input to a corrupted one (learn/inspect.h patch, docs/inspect.md). The two inputs are typed in the
// task's tokens (or made by the corrupt-one-token helper); the view shows the logit difference of the
// answer and, as two heatmaps, how much of it each head's output and each residual stream position
// restores when copied from the clean run into the corrupted one.
#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "app.h"
#include "i18n.h"
#include "imgui_stdlib.h"
#include "learn_widgets.h"
#include "panel_inspect.h"
#include "widgets.h"

namespace attnlab::inspect {

namespace {

// The sequence a pair's inputs differ in: the decoder's tokens, or a cross-attention model's source.
std::vector<int>& patched_sequence(const lrn::ModelSpec& s, lrn::Example& e) { return s.cross ? e.source : e.tokens; }

// The two typed inputs -> the pair, checked as the CLI checks it; then patch() on it. A refusal keeps the
// last result on screen and says why under the inputs.
void measure_patching(InspectState& I) {
  InspectState::Patching& P = I.patching;
  P.dirty = false;
  P.measured = I.weights_version;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const lrn::Task& task = *I.subject->task;
  lrn::Example clean = I.probe_example, corrupt;
  clean.targets.clear();
  std::vector<int>& clean_seq = patched_sequence(s, clean);
  if (std::string e = lrn::ids_from_labels(task, s.vocab, P.clean_text, "clean", clean_seq); !e.empty()) return void(P.error = P.error_shown = e);
  const int limit = s.cross ? s.n_src : s.n_ctx;
  if (clean_seq.empty())
    return void((P.error = "clean: type the clean input, in the task's tokens", P.error_shown = tr("inspect.patch.error.clean_empty")));
  if ((int)clean_seq.size() > limit)
    return void((P.error = "clean: " + std::to_string(clean_seq.size()) + " tokens, the model takes at most " + std::to_string(limit),
                P.error_shown = trf("inspect.patch.error.clean_long", {{"n", (int)clean_seq.size()}, {"limit", limit}})));
  if (!s.cross && clean.source.size()) clean.source.clear();
  corrupt = clean;
  std::vector<int>& corrupt_seq = patched_sequence(s, corrupt);
  if (std::string e = lrn::ids_from_labels(task, s.vocab, P.corrupt_text, "corrupt", corrupt_seq); !e.empty()) return void(P.error = P.error_shown = e);
  if (corrupt_seq.size() != clean_seq.size())
    return void((P.error = "corrupt: " + std::to_string(corrupt_seq.size()) + " tokens, the clean input has " + std::to_string(clean_seq.size()) +
                          " (they must be as long)",
                P.error_shown = trf("inspect.patch.error.lengths", {{"n", (int)corrupt_seq.size()}, {"clean", (int)clean_seq.size()}})));
  if (P.position >= (int)clean.tokens.size()) P.position = -1;
  lrn::PatchResult r;
  if (std::string e = lrn::patch(I.subject->model, clean, corrupt, P.position, r); !e.empty()) return void(P.error = P.error_shown = e);
  P.error.clear(), P.error_shown.clear();
  P.have = true;
  P.clean = clean, P.corrupt = corrupt, P.result = r;
  P.heads.assign(r.heads_restored.begin(), r.heads_restored.end());
  P.residual.assign(r.residual_restored.begin(), r.residual_restored.end());
}

// The helper: the clean input with the token at `at` replaced by one the sequence lacks.
void corrupt_helper(InspectState& I) {
  InspectState::Patching& P = I.patching;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  lrn::Example clean = I.probe_example, out;
  if (std::string e = lrn::ids_from_labels(*I.subject->task, s.vocab, P.clean_text, "clean", patched_sequence(s, clean)); !e.empty())
    return void(P.error = P.error_shown = e);
  if (std::string e = lrn::corrupt_one_token(s, clean, P.corrupt_at, -1, out); !e.empty()) return void(P.error = P.error_shown = e);
  P.corrupt_text = labels_of(*I.subject->task, patched_sequence(s, out));
  P.position = -1;
  P.dirty = true;
}

}  // namespace

// The pair starts as the probe and that probe with one token corrupted (the helper's default).
void reset_patching(InspectState& I, int corrupt_at) {
  InspectState::Patching& P = I.patching;
  lrn::Example e = I.probe_example;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  P.clean_text = labels_of(*I.subject->task, patched_sequence(s, e));
  P.corrupt_at = std::clamp(corrupt_at, 0, std::max(0, (int)patched_sequence(s, e).size() - 1));
  P.have = false;
  corrupt_helper(I);
}

void draw_patching(App& app, InspectState& I) {
  InspectState::Patching& P = I.patching;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const lrn::Task& task = *I.subject->task;
  if (P.clean_text.empty() && P.corrupt_text.empty()) reset_patching(I, std::max(0, (int)patched_sequence(s, I.probe_example).size() / 4));
  title(tr("inspect.patch.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.patch.help"));
  const char* clean_label = tr("inspect.patch.clean");
  const char* corrupt_label = tr("inspect.patch.corrupted");
  const float label_w = std::max(ImGui::CalcTextSize(clean_label).x, ImGui::CalcTextSize(corrupt_label).x) + ImGui::CalcTextSize(" ").x;
  const auto field = [&](const char* label, const char* id, std::string& text, const char* widget) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    ImGui::SameLine(label_w + ImGui::GetStyle().WindowPadding.x);
    ImGui::SetNextItemWidth(-FLT_MIN);
    const bool changed = ImGui::InputText(id, &text);
    remember_item(app, widget);
    if (ImGui::IsItemHovered()) {
      std::string vocab;
      for (int t = 0; t < s.vocab && vocab.size() < 160; ++t) vocab += (t ? " " : "") + task.token_name(t);
      ImGui::SetTooltip("%s", trf(s.cross ? Key("inspect.patch.field_tip.source") : Key("inspect.patch.field_tip.input"), {{"vocab", vocab}}).c_str());
    }
    return changed;
  };
  if (field(clean_label, "##patch_clean", P.clean_text, "inspect_patch_clean")) P.dirty = true;
  if (field(corrupt_label, "##patch_corrupt", P.corrupt_text, "inspect_patch_corrupt")) P.dirty = true;
  const int n_seq = std::max(1, (int)std::count(P.clean_text.begin(), P.clean_text.end(), ' ') + 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
  const std::string at_format = trf("inspect.patch.at", {{"i", "%d"}});
  ImGui::SliderInt("##patch_at", &P.corrupt_at, 0, n_seq - 1, at_format.c_str(), ImGuiSliderFlags_AlwaysClamp);
  remember_item(app, "inspect_patch_at");
  // Beside the slider when it fits in the window (a longer language on a phone: the next line).
  const float corrupt_w = ImGui::CalcTextSize(tr("inspect.patch.corrupt_one")).x + 2.0f * ImGui::GetStyle().FramePadding.x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + corrupt_w <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
    ImGui::SameLine();
  if (ImGui::SmallButton(tr_id("inspect.patch.corrupt_one", "corrupt_one"))) corrupt_helper(I);
  remember_item(app, "inspect_patch_corrupt_one");
  // "Probe again" goes on the next line when it would pass the window's edge (a phone).
  const float again_w = ImGui::CalcTextSize(tr("inspect.patch.reset")).x + 2.0f * ImGui::GetStyle().FramePadding.x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + again_w + ImGui::GetFontSize() * 2.0f <=
      ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
    ImGui::SameLine();
  if (ImGui::SmallButton(tr_id("inspect.patch.reset", "reset"))) reset_patching(I, P.corrupt_at);
  remember_item(app, "inspect_patch_reset");
  ImGui::SameLine();
  help_marker(tr("inspect.patch.buttons.help"));
  if (P.dirty || P.measured != I.weights_version) measure_patching(I);
  if (!P.error.empty()) {
    ImGui::BeginGroup();
    text_wrapped_colored(kError, (P.error_shown + (P.have ? std::string("  ") + tr("inspect.patch.last_good") : std::string())).c_str());
    ImGui::EndGroup();
    remember_item(app, "inspect_patch_message");
  }
  if (!P.have) return;
  const lrn::PatchResult& r = P.result;
  text_wrapped_words("%s", trf("inspect.patch.summary", {{"pos", r.position},
                                                         {"clean", task.token_name(r.clean_answer)},
                                                         {"corrupt", task.token_name(r.corrupt_answer)},
                                                         {"clean_diff", num(r.clean_logit_diff, 2)},
                                                         {"corrupt_diff", num(r.corrupt_logit_diff, 2)}})
                               .c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11.0f);
  int pos = P.position;
  const std::string answer_format = pos < 0 ? std::string(tr("inspect.patch.answer_auto")) : trf("inspect.patch.answer_at", {{"i", "%d"}});
  if (ImGui::SliderInt("##patch_position", &pos, -1, r.n - 1, answer_format.c_str(), ImGuiSliderFlags_AlwaysClamp)) {
    P.position = pos;
    P.dirty = true;
  }
  remember_item(app, "inspect_patch_position");
  ImGui::SameLine();
  help_marker(tr("inspect.patch.position.help"));

  // heads × layers, then positions × layers, side by side when there is room.
  std::vector<std::string> layer_rows, head_cols, stream_rows;
  for (int l = 0; l < r.layers; ++l) layer_rows.push_back(trf("inspect.layer", {{"l", l}}));
  for (int h = 0; h < r.heads; ++h) head_cols.push_back(trf("inspect.cell.head", {{"h", h}}));
  stream_rows.push_back(tr("inspect.embedding"));
  for (int l = 0; l < r.layers; ++l) stream_rows.push_back(trf("inspect.patch.after_layer", {{"l", l}}));
  std::vector<std::string> cols = names_of(task, P.corrupt.tokens);
  int changed_at = -1;
  const std::vector<int>&a = patched_sequence(s, P.clean), &b = patched_sequence(s, P.corrupt);
  for (int i = 0; i < (int)a.size() && !s.cross; ++i)  // (a source token has no column here)
    if (a[(size_t)i] != b[(size_t)i]) changed_at = i;
  for (int i = 0; i < (int)cols.size(); ++i) cols[(size_t)i] = std::to_string(i) + " " + cols[(size_t)i];

  const float w = ImGui::GetContentRegionAvail().x, fs = ImGui::GetFontSize();
  const bool beside = w > 60.0f * fs;
  title(tr("inspect.patch.heads.title"));
  const float heads_w = beside ? std::min(w * 0.3f, 22.0f * fs) : std::min(w, 24.0f * fs);
  ImGui::BeginGroup();
  const HeatmapEvent eh = signed_heatmap(app, "patch_heads", P.heads, r.layers, r.heads, layer_rows, head_cols, ImVec2(heads_w, 0), {});
  remember_rect(app, "inspect_patch_heads", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::EndGroup();
  if (eh.hovered && eh.row >= 0 && eh.col >= 0)
    ImGui::SetTooltip("%s", trf("inspect.patch.heads.tip", {{"l", eh.row}, {"h", eh.col},
                                                             {"pct", num(100.0 * r.heads_restored[(size_t)eh.row * r.heads + eh.col], 0)},
                                                             {"fraction", num(r.heads_restored[(size_t)eh.row * r.heads + eh.col], 3)}})
                                .c_str());
  if (beside) ImGui::SameLine(0, 2.0f * fs);
  ImGui::BeginGroup();
  title(tr("inspect.patch.stream.title"));
  const HeatmapEvent er = signed_heatmap(app, "patch_stream", P.residual, r.layers + 1, r.n, stream_rows, cols,
                                           ImVec2(ImGui::GetContentRegionAvail().x, 0), {1.0f, true, changed_at});
  remember_rect(app, "inspect_patch_stream", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  remember_rect(app, "inspect_patch_stream_cells", er.cells_min,
                ImVec2(er.cells_min.x + er.cell_w * (float)r.n, er.cells_min.y + er.cell_h * (float)(r.layers + 1)));
  ImGui::EndGroup();
  if (er.hovered && er.row >= 0 && er.col >= 0)
    ImGui::SetTooltip("%s", trf("inspect.patch.stream.tip", {{"row", stream_rows[(size_t)er.row]}, {"pos", er.col},
                                                              {"token", task.token_name(P.corrupt.tokens[(size_t)er.col])},
                                                              {"pct", num(100.0 * r.residual_restored[(size_t)er.row * r.n + er.col], 0)},
                                                              {"fraction", num(r.residual_restored[(size_t)er.row * r.n + er.col], 3)}})
                                .c_str());
  if (changed_at >= 0) text_wrapped_disabled(trf("inspect.patch.outlined", {{"col", changed_at}, {"pos", r.position}}).c_str());
  else text_wrapped_disabled(trf("inspect.patch.read_at", {{"pos", r.position}}).c_str());
}

}  // namespace attnlab::inspect
