// panel_inspect.cpp — Learn mode's Inspect heads view: what does a head do? The trained (or opened, or
// replayed) model's weights, taken from the run, under five interventions, one view each (kViews, one
// file each: panel_inspect.h): ablation, activation patching, direct logit attribution, circuits and
// rollout. This file holds what they share: the model under inspection, the row of views, the
// experiments' actions, the window, the page's JSON (learn_inspect_view_json).
//
// [SECTION] shared    what more than one view draws with (panel_inspect.h)
// [SECTION] state     following the run: the weights copied when training is not under way
// [SECTION] views     the table of views, the experiments' actions, the window, the page's JSON
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app.h"
#include "colormap.h"
#include "heatmap.h"
#include "i18n.h"
#include "learn.h"
#include "learn_widgets.h"
#include "panel_inspect.h"
#include "widgets.h"

namespace attnlab {

// ---------------------------------------------------------------------------------------------------
// [SECTION] shared
// ---------------------------------------------------------------------------------------------------
namespace inspect {

bool same_example(const lrn::Example& a, const lrn::Example& b) { return a.tokens == b.tokens && a.source == b.source && a.targets == b.targets; }

float wrap_before_marker() {
  return ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("(?)").x - 2.0f * ImGui::GetStyle().ItemSpacing.x;
}

void title(const char* text) {
  ImGui::PushTextWrapPos(wrap_before_marker());
  text_wrapped_words("%s", text);
  ImGui::PopTextWrapPos();
}

std::string signed_num(double v, int digits) { return (v >= 0.0 ? "+" : "") + num(v, digits); }

std::string labels_of(const lrn::Task& task, const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + task.token_name(ids[i]);
  return out;
}

std::vector<std::string> names_of(const lrn::Task& task, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(task.token_name(id));
  return out;
}

HeatmapEvent signed_heatmap(App& app, const char* id, const std::vector<float>& v, int rows, int cols, const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels, ImVec2 size, SignedMap o) {
  HeatmapSpec h;
  h.id = id;
  h.m = attn::MatView{v.data(), rows, cols, cols};
  h.cmap = Colormap::diverging;
  h.range = o.range;
  h.range_fixed = o.fixed;
  h.row_labels = &row_labels, h.col_labels = &col_labels;
  h.highlight_col = o.mark_col;
  h.scale = app.style_scale;
  h.max_gutter = 110.0f;
  h.max_cell = o.max_cell;
  return draw_heatmap(h, size);
}

}  // namespace inspect

using namespace inspect;

// ---------------------------------------------------------------------------------------------------
// [SECTION] state
// ---------------------------------------------------------------------------------------------------
namespace {

InspectState& inspect_state(LearnState& L) {
  if (!L.inspect) L.inspect = std::make_shared<InspectState>();
  return *L.inspect;
}

// Takes the run's weights (the replayed snapshot's while replaying) when they are not the ones held:
// at once when training is not under way, else only the first time (a click should not wait for
// training, and measuring every frame would cost a held-out pass each). The heads chosen stay chosen
// while the model's shape does.
void follow_run(LearnState& L, InspectState& I) {
  const lrn::SessionState& r = L.run();
  if (!r.started) {
    I.open = false, I.subject.reset(), I.why = "Train a model (or open a model file) first: its heads appear here.";
    I.why_shown = tr("inspect.why.untrained");
    return;
  }
  if (r.run_setup.spec.recurrent()) {
    I.open = false, I.subject.reset();
    I.why = std::string("This model is ") + lrn::arch_kind(r.run_setup.spec.model).name +
            ": it has no attention heads to remove. Ablation, patching and attribution take an attention model.";
    I.why_shown = trf("inspect.why.recurrent", {{"model", lrn::arch_kind(r.run_setup.spec.model).name}});
    return;
  }
  const bool same = I.subject && I.run_version == r.versions.run && I.step == r.step && I.replay == r.replay;
  if (!same && (!I.subject || !L.link->busy())) {
    std::vector<float> params;
    if (!L.link->shown_weights(params)) {
      I.why = "The trained weights are on their way from the training worker.";
      I.why_shown = tr("inspect.why.on_the_way");
      return;
    }
    auto subject = std::make_unique<lrn::Subject<float>>();
    if (std::string e = lrn::open_subject(r.run_setup, params, *subject); !e.empty()) {
      I.open = false, I.subject.reset(), I.why = e, I.why_shown = e;  // the engine's own message (English, as the API gives it)
      return;
    }
    const lrn::ModelSpec& s = r.run_setup.spec;
    if (!I.subject || I.subject->setup.spec.layers != s.layers || I.subject->setup.spec.heads != s.heads)
      I.ablated.assign((size_t)s.layers * s.heads, 0);
    I.subject = std::move(subject);
    if (I.run_version != r.versions.run) {  // another run (perhaps another task): the views start from its probe
      I.patching = {}, I.attribution = {}, I.circuits = {}, I.rollout = {};
    }
    I.run_version = r.versions.run, I.step = r.step, I.replay = r.replay;
    I.open = true, I.why.clear(), I.have_table = false;
    ++I.weights_version;
    I.probe_example = r.probe_example;
    I.baseline = lrn::ablated_metrics(*I.subject, {});
    I.intact_probe = lrn::ablated_probe(*I.subject, I.probe_example, {});
    measure(I);
  }
  if (I.open && !same_example(I.probe_example, r.probe_example)) {  // a probe typed, or the held-out one again
    I.probe_example = r.probe_example;
    measure_probe(I);
  }
}

}  // namespace

bool draw_inspect_switch(App& app) {
  LearnState& L = learn_state(app);
  const char* names[] = {tr_id("inspect.switch.attention", "attention"), tr_id("inspect.switch.inspect", "inspect")};
  for (int k = 0; k < 2; ++k) {
    if (k) ImGui::SameLine(0, 0);
    const bool on = L.probe_panel == k;
    ImGui::PushStyleColor(ImGuiCol_Button, on ? ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive) : ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
    if (ImGui::SmallButton(names[k])) L.probe_panel = k;
    ImGui::PopStyleColor();
    remember_item(app, k ? "learn_view_inspect" : "learn_view_attention");
  }
  ImGui::SameLine();
  help_marker(tr("inspect.switch.help"));
  return L.probe_panel == 1;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] views
// ---------------------------------------------------------------------------------------------------
namespace {

// One entry per view: its key (experiments name it), its button, the widget name tests find it by, and
// its drawing. Adding a view is one line here and its draw function.
struct InspectViewKind {
  const char* key;
  const char* label;   // its button, in English (the catalogue's inspect.view.<key>.label on screen)
  const char* widget;
  void (*draw)(App&, InspectState&);
};
const InspectViewKind kViews[] = {
    {"ablation", "Ablation", "inspect_view_ablation", draw_ablation},      // panel_inspect_ablation.cpp
    {"patching", "Patching", "inspect_view_patching", draw_patching},      // panel_inspect_patching.cpp
    {"attribution", "Logit attribution", "inspect_view_attribution", draw_attribution},  // _attribution.cpp
    {"circuits", "Circuits", "inspect_view_circuits", draw_circuits},      // panel_inspect_circuits.cpp
    {"rollout", "Rollout", "inspect_view_rollout", draw_rollout},          // panel_inspect_rollout.cpp
};
constexpr int kViewCount = (int)(sizeof kViews / sizeof kViews[0]);

int view_index(const std::string& key) {
  for (int k = 0; k < kViewCount; ++k)
    if (key == kViews[k].key) return k;
  return -1;
}

// An experiment with an "inspect" action (assets/experiments.json): once its run has ended, the view it
// names opens and does what the experiment asks, once per run: {"view": "ablation", "mode", "each": true}
// fills the grid with Ablate each head; {"view": "patching", "corrupt_at": I} makes the probe's pair with
// token I corrupted.
void apply_experiment(LearnState& L, InspectState& I) {
  const lrn::SessionState& r = L.run();
  if (L.experiment < 0 || !I.open || !r.done || r.tag.experiment != L.experiment || I.replay >= 0) return;
  const Experiment& e = experiments()[(size_t)L.experiment];
  if (e.inspect.empty()) return;
  const std::string key = e.key + "/" + std::to_string(r.versions.run) + "/" + std::to_string(I.weights_version);
  if (I.applied_experiment == key) return;
  I.applied_experiment = key;
  const nlohmann::json j = nlohmann::json::parse(e.inspect);  // checked by the tests, as the whole table is
  I.view = std::max(0, view_index(j.value("view", std::string("ablation"))));
  if (I.view == view_index("ablation")) {
    lrn::parse_ablation_mode(j.value("mode", std::string("zero")), "mode", I.mode);
    std::fill(I.ablated.begin(), I.ablated.end(), 0);
    measure(I);
    if (j.value("each", false)) I.table = lrn::ablate_each(*I.subject, I.mode), I.have_table = true;
  } else if (I.view == view_index("patching")) {
    reset_patching(I, j.value("corrupt_at", 0));
  }
}

void draw_view_buttons(App& app, InspectState& I) {
  std::vector<ViewButton> buttons;
  for (const InspectViewKind& v : kViews)  // inspect.view.<key>.label
    buttons.push_back({tr_id_entry("inspect", std::string("view.") + v.key, v.label), v.widget});
  view_buttons(app, buttons, I.view);
  ImGui::SameLine();
  help_marker(tr("inspect.views.help"));
}

}  // namespace

void draw_inspect(App& app) {
  LearnState& L = learn_state(app);
  InspectState& I = inspect_state(L);
  follow_run(L, I);
  if (!I.open) {
    text_wrapped_disabled((I.why_shown.empty() ? I.why : I.why_shown).c_str());
    return;
  }
  const lrn::SessionState& r = L.run();
  // Which weights: the step inspected, and whether training has moved on since.
  if (I.replay >= 0) text_wrapped_colored(kNote, trf("inspect.step_replayed", {{"step", I.step}}).c_str());
  else text_wrapped_words("%s", trf("inspect.step", {{"step", I.step}}).c_str());
  if (r.step != I.step || r.replay != I.replay || r.versions.run != I.run_version) {
    const std::string behind = trf("inspect.step_behind", {{"step", r.step}});
    same_line_if_room(ImGui::CalcTextSize(behind.c_str()).x);  // beside the step when it fits, else below it
    text_wrapped_colored(ImVec4(1.0f, 0.80f, 0.35f, 1.0f), behind.c_str());
  }
  apply_experiment(L, I);
  draw_view_buttons(app, I);
  I.view = std::clamp(I.view, 0, kViewCount - 1);
  kViews[I.view].draw(app, I);
}

double learn_inspect_accuracy_drop(const App& app) {
  const InspectState* I = app.learn ? app.learn->inspect.get() : nullptr;
  if (!I || !I->open || std::count(I->ablated.begin(), I->ablated.end(), 1) == 0) return 0.0;
  return I->baseline.accuracy - I->current.accuracy;
}

std::string learn_inspect_view_json(App& app) {
  LearnState& L = learn_state(app);
  nlohmann::ordered_json j;
  const InspectState* I = L.inspect.get();
  j["open"] = I && I->open;
  if (!I || !I->open) {
    j["why"] = I ? I->why : std::string("the Inspect view has not been shown");
    return j.dump();
  }
  j["step"] = I->step;
  j["mode"] = lrn::to_string(I->mode);
  nlohmann::ordered_json heads = nlohmann::ordered_json::array();
  for (const lrn::HeadRef& h : spec_of(*I).heads) heads.push_back({h.layer, h.head});
  j["ablated"] = heads;
  j["baseline"] = {{"loss", I->baseline.loss}, {"accuracy", I->baseline.accuracy}};
  j["loss"] = I->current.loss;
  j["accuracy"] = I->current.accuracy;
  j["probe_right"] = targets_right(I->probe_example, I->probe).first;
  j["probe_right_intact"] = targets_right(I->probe_example, I->intact_probe).first;
  j["probe_targets"] = targets_right(I->probe_example, I->probe).second;
  j["each"] = I->have_table;
  j["view"] = kViews[std::clamp(I->view, 0, kViewCount - 1)].key;
  const InspectState::Patching& P = I->patching;
  if (!P.error.empty()) j["patch_error"] = P.error;
  if (P.have) {
    const lrn::PatchResult& r = P.result;
    const lrn::ModelSpec& s = I->subject->setup.spec;
    nlohmann::ordered_json p;
    p["clean"] = labels_of(*I->subject->task, s.cross ? P.clean.source : P.clean.tokens);
    p["corrupt"] = labels_of(*I->subject->task, s.cross ? P.corrupt.source : P.corrupt.tokens);
    p["position"] = r.position;
    p["clean_answer"] = I->subject->task->token_name(r.clean_answer);
    p["corrupt_answer"] = I->subject->task->token_name(r.corrupt_answer);
    p["clean_logit_diff"] = r.clean_logit_diff, p["corrupt_logit_diff"] = r.corrupt_logit_diff;
    nlohmann::ordered_json heads = nlohmann::ordered_json::array(), residual = nlohmann::ordered_json::array();
    for (int l = 0; l < r.layers; ++l)
      heads.push_back(std::vector<double>(r.heads_restored.begin() + (long)l * r.heads, r.heads_restored.begin() + (long)(l + 1) * r.heads));
    for (int l = 0; l <= r.layers; ++l)
      residual.push_back(std::vector<double>(r.residual_restored.begin() + (long)l * r.n, r.residual_restored.begin() + (long)(l + 1) * r.n));
    p["heads"] = heads, p["residual"] = residual;
    j["patch"] = p;
  }
  const InspectState::Attributing& A = I->attribution;
  if (A.selected >= 0 && A.selected < (int)A.result.positions.size()) {
    const auto& q = A.result.positions[(size_t)A.selected];
    j["attribution"] = {{"position", q.position}, {"target", q.target}, {"logit", q.logit}, {"embedding", q.embedding}, {"heads", q.heads}};
  }
  j["circuit"] = {I->circuits.layer, I->circuits.head};
  return j.dump();
}

}  // namespace attnlab
