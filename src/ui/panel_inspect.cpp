// panel_inspect.cpp — Learn mode's Inspect view: what does a head do? A layers × heads grid of the
// trained (or opened, or replayed) model; a click ablates a head or restores it, and the held-out
// accuracy and loss, the probe's predictions and its attention are measured again at once with those
// heads removed (learn/inspect.h, docs/inspect.md). "Ablate each head" fills the grid with what
// removing each head alone costs.
//
// [SECTION] state     the weights under inspection (a copy, taken when the run is not training) and results
// [SECTION] measure   the engine calls, on a click or when the weights change; never every frame
// [SECTION] draw      the switch, the readout, the grid, the probe
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app.h"
#include "colormap.h"
#include "learn.h"
#include "learn/inspect.h"
#include "learn_widgets.h"
#include "widgets.h"

namespace attnlab {

namespace lrn = attn::learn;

// ---------------------------------------------------------------------------------------------------
// [SECTION] state
// ---------------------------------------------------------------------------------------------------
struct InspectState {
  // Which weights the subject holds: the run, its step and the snapshot replayed (-1 live).
  uint64_t run_version = 0;
  int step = -1, replay = -1;
  bool open = false;
  std::string why;                        // why nothing is open (no run, a recurrent model)
  std::unique_ptr<lrn::Subject<float>> subject;
  lrn::AblationMode mode = lrn::AblationMode::zero;
  std::vector<char> ablated;              // (layers, heads): 1 = ablated
  lrn::Metrics baseline, current;         // nothing ablated; the heads in `ablated` ablated
  lrn::Example probe_example;
  lrn::ProbeResult probe, intact_probe;   // the probe with the heads ablated, and with none
  bool have_table = false;
  lrn::AblationTable table;               // Ablate each head, in `mode`, on these weights
};

namespace {

InspectState& inspect_state(LearnState& L) {
  if (!L.inspect) L.inspect = std::make_shared<InspectState>();
  return *L.inspect;
}

lrn::AblationSpec spec_of(const InspectState& I) {
  lrn::AblationSpec a;
  a.mode = I.mode;
  const int heads = I.subject->setup.spec.heads;
  for (int k = 0; k < (int)I.ablated.size(); ++k)
    if (I.ablated[(size_t)k]) a.heads.push_back({k / heads, k % heads});
  return a;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] measure
// ---------------------------------------------------------------------------------------------------
// The held-out metrics and the probe with the chosen heads ablated (one or two held-out passes).
void measure(InspectState& I) {
  const lrn::AblationSpec a = spec_of(I);
  I.current = a.heads.empty() ? I.baseline : lrn::ablated_metrics(*I.subject, a);
  I.probe = lrn::ablated_probe(*I.subject, I.probe_example, a);
}

void measure_probe(InspectState& I) {
  I.intact_probe = lrn::ablated_probe(*I.subject, I.probe_example, {});
  I.probe = lrn::ablated_probe(*I.subject, I.probe_example, spec_of(I));
}

bool same_example(const lrn::Example& a, const lrn::Example& b) { return a.tokens == b.tokens && a.source == b.source && a.targets == b.targets; }

// Takes the run's weights (the replayed snapshot's while replaying) when they are not the ones held:
// at once when training is not under way, else only the first time (a click should not wait for
// training, and measuring every frame would cost a held-out pass each). The heads chosen stay chosen
// while the model's shape does.
void follow_run(LearnState& L, InspectState& I) {
  const lrn::SessionState& r = L.run();
  if (!r.started) {
    I.open = false, I.subject.reset(), I.why = "Train a model (or open a model file) first: its heads appear here.";
    return;
  }
  if (r.run_setup.spec.recurrent()) {
    I.open = false, I.subject.reset();
    I.why = std::string("This model is ") + lrn::arch_kind(r.run_setup.spec.model).name +
            ": it has no attention heads to remove. Ablation, patching and attribution take an attention model.";
    return;
  }
  const bool same = I.subject && I.run_version == r.versions.run && I.step == r.step && I.replay == r.replay;
  if (!same && (!I.subject || !L.link->busy())) {
    std::vector<float> params;
    if (!L.link->shown_weights(params)) {
      I.why = "The trained weights are on their way from the training worker.";
      return;
    }
    auto subject = std::make_unique<lrn::Subject<float>>();
    if (std::string e = lrn::open_subject(r.run_setup, params, *subject); !e.empty()) {
      I.open = false, I.subject.reset(), I.why = e;
      return;
    }
    const lrn::ModelSpec& s = r.run_setup.spec;
    if (!I.subject || I.subject->setup.spec.layers != s.layers || I.subject->setup.spec.heads != s.heads)
      I.ablated.assign((size_t)s.layers * s.heads, 0);
    I.subject = std::move(subject);
    I.run_version = r.versions.run, I.step = r.step, I.replay = r.replay;
    I.open = true, I.why.clear(), I.have_table = false;
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

// How many of the probe's targets `p` predicts right, and how many targets there are.
std::pair<int, int> targets_right(const lrn::Example& e, const lrn::ProbeResult& p) {
  int right = 0, counted = 0;
  for (int i = 0; i < p.n && i < (int)e.targets.size(); ++i)
    if (e.targets[(size_t)i] >= 0) ++counted, right += p.predictions[(size_t)i] == e.targets[(size_t)i];
  return {right, counted};
}

// A click on a head: ablated <-> restored, and everything measured again.
void toggle_head(InspectState& I, int layer, int head) {
  char& on = I.ablated[(size_t)layer * I.subject->setup.spec.heads + head];
  on = !on;
  measure(I);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] draw
// ---------------------------------------------------------------------------------------------------
const ImVec4 kGood(0.5f, 0.9f, 0.5f, 1.0f), kBad(1.0f, 0.55f, 0.45f, 1.0f), kNote(0.55f, 0.80f, 1.0f, 1.0f);

void draw_readout(App& app, InspectState& I) {
  const int ablated = (int)std::count(I.ablated.begin(), I.ablated.end(), 1);
  const double acc = I.current.accuracy, d_acc = 100.0 * (acc - I.baseline.accuracy), d_loss = I.current.loss - I.baseline.loss;
  ImGui::BeginGroup();
  if (ablated == 0) {
    ImGui::Text("held-out accuracy %.1f%%   loss %.4f", 100.0 * acc, I.current.loss);
    ImGui::TextDisabled("no head removed: click a head below to remove it");
  } else {
    ImGui::Text("held-out accuracy %.1f%%", 100.0 * acc);
    ImGui::SameLine();
    ImGui::TextColored(d_acc < -0.05 ? kBad : kGood, "(%+.1f points)", d_acc);
    ImGui::SameLine();
    ImGui::Text("  loss %.4f", I.current.loss);
    ImGui::SameLine();
    ImGui::TextColored(d_loss > 0.0005 ? kBad : kGood, "(%+.3f)", d_loss);
    ImGui::TextDisabled("%d head%s removed (%s); intact: %.1f%%, loss %.4f", ablated, ablated == 1 ? "" : "s", lrn::to_string(I.mode),
                        100.0 * I.baseline.accuracy, I.baseline.loss);
  }
  ImGui::EndGroup();
  remember_rect(app, "inspect_readout", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::SameLine();
  help_marker("Accuracy and loss over the held-out sequences (the ones the curves are measured on), with the\n"
              "heads you removed taken out of the model. A head that matters makes the accuracy fall and the loss\n"
              "rise when it is gone; a head that does nothing, or whose work another head also does, changes little.\n"
              "Removing two heads together can hurt far more than each alone: that is how backups show.");
}

// The grid: one cell per head, a click removes or restores it. With the table, each cell also says what
// removing that head alone costs, coloured by it (red: accuracy lost).
void draw_grid(App& app, InspectState& I) {
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const float fs = ImGui::GetFontSize(), gap = 4.0f * app.style_scale;
  // SameLine(x) counts from the window's left edge: the label column is the padding, the label, a gap.
  const float label_w = ImGui::GetStyle().WindowPadding.x + ImGui::CalcTextSize("layer 0").x + gap * 3.0f;
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
    ImGui::Text("layer %d", l);
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
      char line[64];
      std::snprintf(line, sizeof line, roomy ? "head %d%s" : "%d%s", h, off ? (roomy ? " (off)" : "x") : "");
      dl->AddText(ImVec2(a.x + gap, a.y + gap), ink, line);
      if (each && roomy) {
        std::snprintf(line, sizeof line, "%+.1f pts", 100.0 * d_acc);
        dl->AddText(ImVec2(a.x + gap, a.y + gap + ImGui::GetTextLineHeight()), ink, line);
        std::snprintf(line, sizeof line, "loss %+.3f", d_loss);
        dl->AddText(ImVec2(a.x + gap, a.y + gap + 2.0f * ImGui::GetTextLineHeight()), ink, line);
      }
      if (hovered) {
        ImGui::BeginTooltip();
        ImGui::Text("layer %d, head %d: %s", l, h, off ? "removed (click to restore it)" : "in the model (click to remove it)");
        ImGui::Text("its pattern score on the held-out set: %.2f", I.baseline.pattern_at(l, h));
        if (each)
          ImGui::Text("removed alone (%s): accuracy %.1f%% (%+.1f points), loss %.4f (%+.3f)", lrn::to_string(I.table.mode),
                      100.0 * each->accuracy, 100.0 * d_acc, each->loss, d_loss);
        ImGui::EndTooltip();
      }
      if (clicked) toggle_head(I, l, h);
      ImGui::PopID();
    }
  }
}

// The probe with the heads removed: what it predicts, how many targets are right, and every head's
// attention (a removed head's own attention is still computed; what changes is what later heads see).
void draw_probe_after(App& app, LearnState& L, InspectState& I) {
  const lrn::Task& task = *I.subject->task;
  const lrn::ProbeResult& p = I.probe;
  const lrn::Example& e = I.probe_example;
  std::string predicted;
  for (int i = 0; i < p.n; ++i) predicted += (i ? " " : "") + task.token_name(p.predictions[(size_t)i]);
  const auto [right, counted] = targets_right(e, p);
  const int right_intact = targets_right(e, I.intact_probe).first;
  if (counted > 0)
    ImGui::Text("The probe: %d of %d right (intact: %d)", right, counted, right_intact);
  else
    ImGui::TextUnformatted("The probe (your input, no targets)");
  remember_rect(app, "inspect_probe_right", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  ImGui::SameLine();
  help_marker("The probe is the example under 'Attention'. Its predictions here are those of the model with the\n"
              "heads you removed; a wrong one is counted against the targets. The thumbnails are each head's\n"
              "attention in that model: a removed head still looks where it did, but a later head that relied on\n"
              "it may now look somewhere else.");
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("predicts: %s", predicted.c_str());
  ImGui::PopTextWrapPos();

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
      ImGui::TextColored(off ? kBad : ImGui::ColorConvertU32ToFloat4(head_color(l * s.heads + h)), "L%d head %d%s", l, h, off ? " (off)" : "");
      const float* w = p.weights[(size_t)l].data() + (size_t)h * p.n * p.m;
      const auto [qi, kj] = thumbnail(w, p.n, p.m, &mask, ImVec2(side, side * aspect));
      remember_rect(app, "inspect_thumb_l" + std::to_string(l) + "_h" + std::to_string(h), ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
      if (qi >= 0) {
        const std::vector<int>& keys = s.cross ? e.source : e.tokens;
        ImGui::SetTooltip("L%d head %d%s\nquery %d (%s) -> key %d (%s): weight %.4g", l, h, off ? " (removed)" : "", qi,
                          task.token_name(e.tokens[(size_t)qi]).c_str(), kj, task.token_name(keys[(size_t)kj]).c_str(), w[(size_t)qi * p.m + kj]);
      }
      ImGui::PopID();
      ImGui::EndGroup();
    }
  (void)L;
}

}  // namespace

bool draw_inspect_switch(App& app) {
  LearnState& L = learn_state(app);
  const char* names[] = {"Attention", "Inspect heads"};
  for (int k = 0; k < 2; ++k) {
    if (k) ImGui::SameLine(0, 0);
    const bool on = L.probe_panel == k;
    ImGui::PushStyleColor(ImGuiCol_Button, on ? ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive) : ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
    if (ImGui::SmallButton(names[k])) L.probe_panel = k;
    ImGui::PopStyleColor();
    remember_item(app, k ? "learn_view_inspect" : "learn_view_attention");
  }
  ImGui::SameLine();
  help_marker("Attention: every head's attention on one example, as it trains.\n"
              "Inspect heads: test what a head does by removing it from the trained model and measuring\n"
              "what breaks (an 'ablation'). The model itself is never changed: restore a head with a click.");
  return L.probe_panel == 1;
}

void draw_inspect(App& app) {
  LearnState& L = learn_state(app);
  InspectState& I = inspect_state(L);
  follow_run(L, I);
  if (!I.open) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", I.why.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  const lrn::SessionState& r = L.run();
  // Which weights: the step inspected, and whether training has moved on since.
  if (I.replay >= 0) ImGui::TextColored(kNote, "The weights of step %d (replayed)", I.step);
  else ImGui::Text("The model at step %d", I.step);
  if (r.step != I.step || r.replay != I.replay || r.versions.run != I.run_version) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.80f, 0.35f, 1.0f), "(training is at step %d: this updates when it pauses or ends)", r.step);
  }
  // The mode, Ablate each, Restore all.
  int mode = (int)I.mode;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("remove: mean").x + ImGui::GetFrameHeight() * 1.5f);
  if (ImGui::Combo("##inspect_mode", &mode, "remove: zero\0remove: mean\0")) {
    I.mode = (lrn::AblationMode)mode;
    I.have_table = false;
    measure(I);
  }
  remember_item(app, "inspect_mode");
  ImGui::SameLine();
  help_marker("How a head is removed. zero: its output is replaced by zeros, so it writes nothing at all.\n"
              "mean: by what it writes on average at that position over the held-out sequences, so it still\n"
              "adds its usual constant but nothing that depends on this input. If both hurt alike, the head's\n"
              "job is carrying information about the input, not a fixed offset.");
  ImGui::SameLine();
  if (ImGui::SmallButton("Ablate each head")) {
    I.table = lrn::ablate_each(*I.subject, I.mode);
    I.have_table = true;
  }
  remember_item(app, "inspect_each");
  ImGui::SameLine();
  help_marker("Removes every head alone, one after the other, and writes in its cell how much the held-out\n"
              "accuracy (in percentage points) and the loss change without it. Red: accuracy lost; white: nothing\n"
              "changed; blue: it got better. The heads you removed by clicking are not part of this table.");
  if (std::count(I.ablated.begin(), I.ablated.end(), 1) > 0) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Restore all")) {
      std::fill(I.ablated.begin(), I.ablated.end(), 0);
      measure(I);
    }
    remember_item(app, "inspect_restore");
  }
  draw_readout(app, I);
  draw_grid(app, I);
  ImGui::Separator();
  draw_probe_after(app, L, I);
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
  return j.dump();
}

}  // namespace attnlab
