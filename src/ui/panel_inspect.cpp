// panel_inspect.cpp — Learn mode's Inspect view: what does a head do? A layers × heads grid of the
// trained (or opened, or replayed) model; a click ablates a head or restores it, and the held-out
// accuracy and loss, the probe's predictions and its attention are measured again at once with those
// heads removed (learn/inspect.h, docs/inspect.md). "Ablate each head" fills the grid with what
// removing each head alone costs. Beside ablation, the same model's other interventions, one view each
// (kViews): activation patching (clean -> corrupted, heatmaps of the restored fraction), direct logit
// attribution (a stacked bar per position), circuits (QK and OV over the vocabulary, composition scores)
// and rollout beside each layer's attention. Every view reads the intact model (no head ablated).
//
// [SECTION] state     the weights under inspection (a copy, taken when the run is not training) and results
// [SECTION] measure   the engine calls, on a click or when the weights change; never every frame
// [SECTION] draw      the switch, the readout, the grid, the probe
// [SECTION] patching  the clean and corrupted inputs, the corrupt-one-token helper, the two heatmaps
// [SECTION] attribution  who wrote each position's logit, as stacked bars
// [SECTION] circuits  QK, OV (and positional QK) of one head; the composition table
// [SECTION] rollout   one layer's mean attention beside the rollout up to it
// [SECTION] views     the table of views, the experiments' actions, the window
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app.h"
#include "colormap.h"
#include "heatmap.h"
#include "i18n.h"
#include "imgui_stdlib.h"
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
  std::string why;                        // why nothing is open (no run, a recurrent model), as the page API gives it
  std::string why_shown;                  // the same on screen, in the learner's language
  std::unique_ptr<lrn::Subject<float>> subject;
  lrn::AblationMode mode = lrn::AblationMode::zero;
  std::vector<char> ablated;              // (layers, heads): 1 = ablated
  lrn::Metrics baseline, current;         // nothing ablated; the heads in `ablated` ablated
  lrn::Example probe_example;
  lrn::ProbeResult probe, intact_probe;   // the probe with the heads ablated, and with none
  bool have_table = false;
  lrn::AblationTable table;               // Ablate each head, in `mode`, on these weights

  int view = 0;                           // kViews: 0 ablation, 1 patching, 2 attribution, 3 circuits, 4 rollout
  uint64_t weights_version = 0;           // counts the weights taken: a view measures again when it moves
  std::string applied_experiment;         // the experiment run whose action ran last ("key/run version")

  struct Patching {
    std::string clean_text, corrupt_text; // in the task's tokens (a cross-attention model: the source)
    int corrupt_at = 0;                   // the helper's position
    int position = -1;                    // the answer's position, −1: the last whose answers differ
    std::string error;                    // why the pair typed last cannot be patched (the result is the last good one); the API's English
    std::string error_shown;              // the same on screen: the lab's own refusals translated, the engine's as they are
    bool have = false;
    lrn::Example clean, corrupt;          // the pair of the result
    lrn::PatchResult result;
    std::vector<float> heads, residual;   // the result as floats for the heatmaps
    uint64_t measured = ~0ull;            // weights_version the pair was measured on
    bool dirty = true;
  } patching;
  struct Attributing {
    int target = -1;                      // −1: each position's prediction; else one token id
    int selected = -1;                    // the bar clicked: its parts written out below
    std::string error;
    lrn::Attribution result;
    uint64_t measured = ~0ull;
    lrn::Example example;
  } attribution;
  struct CircuitView {
    int layer = 0, head = 0;
    bool positional = false;
    std::string error;
    lrn::Circuits result;
    lrn::Composition composition;
    std::vector<float> qk, ov, pqk;
    uint64_t measured = ~0ull;
  } circuits;
  struct RolloutView {
    int layer = -1;                       // −1: the last
    std::string error;
    lrn::Rollout result;
    std::vector<float> attention, rollout;  // (n, n) of the layer shown
    uint64_t measured = ~0ull;
    lrn::Example example;
  } rollout;
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

// Where text wraps when a help marker "(?)" follows it on the same line (window coordinates).
float wrap_before_marker() {
  return ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("(?)").x - 2.0f * ImGui::GetStyle().ItemSpacing.x;
}

// A change in a sentence, always signed: "+1.5", "-0.3", with the language's decimal separator.
std::string signed_num(double v, int digits) { return (v >= 0.0 ? "+" : "") + num(v, digits); }
// How a head is removed (zero, mean) as the learner reads it; lrn::to_string's is the API's.
const char* mode_label(lrn::AblationMode m) { return tr_dynamic(std::string("inspect.mode.") + lrn::to_string(m), lrn::to_string(m)); }

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
void draw_probe_after(App& app, LearnState& L, InspectState& I) {
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
      const Thumbnail cells = thumbnail(w, p.n, p.m, &mask, ImVec2(side, side * aspect));
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
  (void)L;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] patching
// ---------------------------------------------------------------------------------------------------
const ImVec4 kError(1.0f, 0.45f, 0.40f, 1.0f);

// A view's title line, wrapped (at spaces, or between CJK characters) on a narrow window, room kept for
// the "(?)" that follows it on the same line.
void title(const char* text) {
  ImGui::PushTextWrapPos(wrap_before_marker());
  text_wrapped_words("%s", text);
  ImGui::PopTextWrapPos();
}

// `text` cut (with "..") to fit `width` pixels.
std::string fit_text(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string t = text;
  while (!t.empty() && ImGui::CalcTextSize((t + "..").c_str()).x > width) t.pop_back();
  return t.empty() ? std::string() : t + "..";
}

// The sequence a pair's inputs differ in: the decoder's tokens, or a cross-attention model's source.
std::vector<int>& patched_sequence(const lrn::ModelSpec& s, lrn::Example& e) { return s.cross ? e.source : e.tokens; }

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

// A signed (rows, cols) matrix on the lab's heatmap widget, blue-white-red over [−range, range]: fixed
// (the restored fraction's [−1, 1], comparable between pairs) or this matrix's largest |entry| (a
// circuit). `mark_col` lights one column's label. Returns what the mouse did.
struct SignedMap {
  float range = 1.0f;
  bool fixed = true;
  int mark_col = -1;
  float max_cell = 52.0f;
};
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

// ---------------------------------------------------------------------------------------------------
// [SECTION] attribution
// ---------------------------------------------------------------------------------------------------
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

void draw_attribution(App& app, InspectState& I) {
  InspectState::Attributing& A = I.attribution;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const lrn::Task& task = *I.subject->task;
  if (A.measured != I.weights_version || !same_example(A.example, I.probe_example)) measure_attribution(I);
  title(tr("inspect.attr.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.attr.help"));
  // which logit: each position's prediction, or one token everywhere
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12.0f);
  const std::string current = A.target < 0 ? std::string(tr("inspect.attr.of_prediction")) : trf("inspect.attr.of_token", {{"token", task.token_name(A.target)}});
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

// ---------------------------------------------------------------------------------------------------
// [SECTION] circuits
// ---------------------------------------------------------------------------------------------------
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

void draw_circuits(App& app, InspectState& I) {
  InspectState::CircuitView& C = I.circuits;
  const lrn::ModelSpec& s = I.subject->setup.spec;
  const lrn::Task& task = *I.subject->task;
  title(tr("inspect.circ.title"));
  ImGui::SameLine();
  help_marker(tr("inspect.circ.help"));
  // The heads' buttons flow onto more lines where they do not fit across (a phone, many heads), then the checkbox.
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h) {
      const std::string name = "L" + std::to_string(l) + " h" + std::to_string(h);
      if (l || h) same_line_if_fits(name.c_str());
      const bool on = C.layer == l && C.head == h;
      if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
      if (ImGui::SmallButton(name.c_str())) C.layer = l, C.head = h, C.measured = ~0ull;
      if (on) ImGui::PopStyleColor();
      remember_item(app, ("inspect_circ_l" + std::to_string(l) + "_h" + std::to_string(h)).c_str());
    }
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

// ---------------------------------------------------------------------------------------------------
// [SECTION] rollout
// ---------------------------------------------------------------------------------------------------
void measure_rollout(InspectState& I) {
  InspectState::RolloutView& R = I.rollout;
  R.measured = I.weights_version, R.example = I.probe_example;
  lrn::Example e = I.probe_example;
  if (std::string err = lrn::rollout(I.subject->model, e, R.result); !err.empty()) R.error = err, R.result = {};
  else R.error.clear();
}

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
  for (int l = 0; l < r.layers; ++l) {
    const std::string up_to = trf("inspect.roll.up_to", {{"l", l}});
    const float up_w = ImGui::CalcTextSize(up_to.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x;  // wraps at the window's edge
    if (l && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + up_w <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
      ImGui::SameLine();
    const bool on = R.layer == l;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton((up_to + "###roll_l" + std::to_string(l)).c_str())) R.layer = l;
    if (on) ImGui::PopStyleColor();
    remember_item(app, ("inspect_roll_l" + std::to_string(l)).c_str());
  }
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

void draw_ablation(App& app, LearnState& L, InspectState& I) {
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
  draw_probe_after(app, L, I);
}

// One entry per view: its key (experiments name it), its button, the widget name tests find it by, and
// its drawing. Adding a view is one line here and its draw function.
struct InspectViewKind {
  const char* key;
  const char* label;   // its button, in English (the catalogue's inspect.view.<key>.label on screen)
  const char* widget;
  void (*draw)(App&, LearnState&, InspectState&);
};
const InspectViewKind kViews[] = {
    {"ablation", "Ablation", "inspect_view_ablation", draw_ablation},
    {"patching", "Patching", "inspect_view_patching", [](App& a, LearnState&, InspectState& I) { draw_patching(a, I); }},
    {"attribution", "Logit attribution", "inspect_view_attribution", [](App& a, LearnState&, InspectState& I) { draw_attribution(a, I); }},
    {"circuits", "Circuits", "inspect_view_circuits", [](App& a, LearnState&, InspectState& I) { draw_circuits(a, I); }},
    {"rollout", "Rollout", "inspect_view_rollout", [](App& a, LearnState&, InspectState& I) { draw_rollout(a, I); }},
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
  const ImGuiStyle& st = ImGui::GetStyle();
  float right = 0.0f;  // the row wraps when the next button would pass the window's edge
  for (int k = 0; k < kViewCount; ++k) {
    const char* label = tr_id_entry("inspect", std::string("view.") + kViews[k].key, kViews[k].label);  // inspect.view.<key>.label
    const float w = ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * st.FramePadding.x;
    if (k && right + st.ItemSpacing.x + w <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
    const bool on = I.view == k;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(label)) I.view = k;
    if (on) ImGui::PopStyleColor();
    right = ImGui::GetItemRectMax().x;
    remember_item(app, kViews[k].widget);
  }
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
  kViews[I.view].draw(app, L, I);
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
