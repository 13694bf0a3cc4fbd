// panel_inspect.h — Learn mode's Inspect heads view, one file per job (learn.h declares what the rest
// of the lab calls: draw_inspect_switch, draw_inspect, the page's JSON):
//   panel_inspect.cpp              the model under inspection (taken from the run), the view table, the
//                                  experiments' actions, the window, the page's JSON, what the views share
//   panel_inspect_ablation.cpp     heads removed by a click: the readout, the grid, the probe after
//   panel_inspect_patching.cpp     activation patching, clean -> corrupted: the pair, two heatmaps
//   panel_inspect_attribution.cpp  direct logit attribution: a stacked bar per position
//   panel_inspect_circuits.cpp     QK and OV of one head over the vocabulary; the composition table
//   panel_inspect_rollout.cpp      one layer's mean attention beside the rollout up to it
// Every view reads the intact model (no head ablated) but ablation.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "heatmap.h"
#include "imgui.h"
#include "learn.h"
#include "learn/inspect.h"

namespace attnlab {

namespace lrn = attn::learn;

// [SECTION] state: the weights under inspection (a copy, taken when the run is not training) and results
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

namespace inspect {

// [SECTION] what the views share (panel_inspect.cpp)
inline const ImVec4 kGood(0.5f, 0.9f, 0.5f, 1.0f), kBad(1.0f, 0.55f, 0.45f, 1.0f), kNote(0.55f, 0.80f, 1.0f, 1.0f),
    kError(1.0f, 0.45f, 0.40f, 1.0f);
bool same_example(const lrn::Example& a, const lrn::Example& b);
// Where text wraps when a help marker "(?)" follows it on the same line (window coordinates).
float wrap_before_marker();
// A view's title line, wrapped (at spaces, or between CJK characters) on a narrow window, room kept for
// the "(?)" that follows it on the same line.
void title(const char* text);
// A change in a sentence, always signed: "+1.5", "-0.3", with the language's decimal separator.
std::string signed_num(double v, int digits);
// Token ids as the task names them: one string with spaces, or one name each.
std::string labels_of(const lrn::Task& task, const std::vector<int>& ids);
std::vector<std::string> names_of(const lrn::Task& task, const std::vector<int>& ids);
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
                            const std::vector<std::string>& col_labels, ImVec2 size, SignedMap o);

// [SECTION] ablation (panel_inspect_ablation.cpp)
lrn::AblationSpec spec_of(const InspectState& I);
// The held-out metrics and the probe with the chosen heads ablated (one or two held-out passes).
void measure(InspectState& I);
// The probe alone again (a probe typed, or the held-out one back): intact and with the heads ablated.
void measure_probe(InspectState& I);
// How many of the probe's targets `p` predicts right, and how many targets there are.
std::pair<int, int> targets_right(const lrn::Example& e, const lrn::ProbeResult& p);
void draw_ablation(App& app, InspectState& I);

// [SECTION] the other views, one file each
// The pair starts as the probe and that probe with the token at `corrupt_at` corrupted.
void reset_patching(InspectState& I, int corrupt_at);
void draw_patching(App& app, InspectState& I);
void draw_attribution(App& app, InspectState& I);
void draw_circuits(App& app, InspectState& I);
void draw_rollout(App& app, InspectState& I);

}  // namespace inspect
}  // namespace attnlab
