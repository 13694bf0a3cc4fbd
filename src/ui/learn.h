// learn.h — Learn mode: train an attention-only model on a toy task inside the lab and watch its heads
// form. The run itself is the learning engine's Session (src/engine/learn/session.h: the state machine,
// time slicing, snapshots, replay, the probe); this file holds what the Learn panels edit and show
// besides, sends the session its commands, and gives it each frame's time: every frame the session
// works for at most LearnState::budget_ms, then the panels draw its state.
//
// A refused setting (lr 0, 10⁹ steps, NaN) names the field in `error` and leaves the run as it was.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "learn/session.h"
#include "session_link.h"

namespace attnlab {

struct App;
struct InspectState;  // panel_inspect.cpp: the model the Inspect view holds and what it measured on it

struct LearnState {
  attn::learn::TrainSetup setup;        // what the settings panel edits (used by the next Train)
  std::unique_ptr<attn::SessionLink> link;  // the run (on this thread or its own): its state() is what the panels draw
  const attn::learn::SessionState& run() const { return link->state(); }
  int tab = 0;                          // narrow screens show one window at a time: 0 training, 1 curves, 2 probe
  std::string error;                    // why the last Train / train() was refused, naming the field
  int experiment = -1;                  // the experiment whose variant was loaded last, -1 none
  int variant = -1;                     // which of its variants (0, 1, ...)
  int experiment_distance = 0;          // the delayed copy's distance an experiment's slider set (0: each variant's own)
  std::string variant_label;            // that variant's label: the next run's name on the comparison
  std::vector<int> predictions;         // per experiment: the learner's prediction (-1: none yet)
  std::vector<bool> revealed;           // per experiment: its measured outcome is shown (predicted and every variant run, or asked for)
  std::vector<unsigned> variants_run;   // per experiment: a bit for each variant whose run has ended
  std::string probe_error;              // why the typed probe was refused
  char probe_box[512] = {};             // the probe window's text box (the typed probe being written)
  std::string probe_box_from;           // the probe text the box last took over (a refused input stays to be mended)

  int probe_view = 0;                   // 0: A, 1: ∂L/∂A, 2: ∂L/∂S per head; 3: ∂L/∂ a weight matrix (this example's loss)
  int grad_tensor = 2;                  // which weight matrix view 3 shows: an index into the model's tensors
  int open_layer = 0;                   // the layer "Open in the lab" shows
  int probe_panel = 0;                  // the probe's window shows 0: the attention, 1: Inspect heads
  std::shared_ptr<InspectState> inspect;  // made when the Inspect view is first shown

  // The recurrence lesson (panel_recurrent.cpp), for delayed_copy runs: which view the probe window
  // shows, and what was measured here to draw in it.
  int lesson_view = 0;                  // 0 the probe, 1 gradient against distance, 2 accuracy against distance, 3 path length
  struct DistanceCurve {
    std::string label;                  // "rnn, distance 16, untrained"
    attn::learn::Arch model = attn::learn::Arch::attention;
    bool trained = false;
    std::vector<double> mean;           // mean ‖∂loss_i/∂x_j‖ at d = i − j
  };
  std::vector<DistanceCurve> grad_curves;  // measured on a button press or when a delayed_copy run ends
  std::string grad_measured;            // the run and step measured last (not measured again)
  struct PagePoint {
    attn::learn::Arch model;
    int distance = 0, steps = 0;
    double accuracy = 0.0;
  };
  std::vector<PagePoint> page_sweep;    // finished delayed_copy runs of this page: accuracy at their distance
  struct Matrix {
    int n = 0, step = 0, distance = 0;
    std::string what;                   // "RNN: influence" / "attention, head 1: weights"
    std::vector<float> v;               // (n, n)
  };
  Matrix last_recurrent, last_attention;  // the latest delayed_copy probe of each kind, to compare side by side
  int path_query = -1, path_key = -1;   // the path-length diagram's query i and key j (-1: the task's pair)

  // Time slicing: a frame trains for at most budget_ms, and less when drawing takes more, so that the
  // app's whole work per frame stays near frame_target_ms (a 60 Hz frame is 16.7 ms).
  float budget_ms = 10.0f;
  float frame_target_ms = 14.0f;
  float draw_ms = 4.0f;                 // the frame's other work: the last frames' worst, slowly forgotten
  bool settings_dirty = false;          // settings edited since the run started
};

using attn::learn::mean_saturation;

// [SECTION] experiments: two or more runs of one task that differ in one setting, with a prediction to make
// first and what the runs gave when measured. The table is data, assets/experiments.json (compiled in;
// bench/learn_experiments.py trains the same configs and prints the figures the texts quote). A teacher
// loads variant A, trains, loads variant B, trains: the curves show B's run over A's in grey.
struct Experiment {
  std::string key;       // "scaling", ...
  std::string name;      // the question it answers
  std::string predict;   // what to predict before training
  std::vector<std::string> choices;
  int answer = 0;        // the choice the runs bear out (with a sweep: at the variants' own distance)
  // Optional, with a sweep: for each choice, the models it says learn the task (as the sweep's rows name
  // them), so that the answer at any distance is read off the sweep (experiment_answer).
  std::vector<std::vector<std::string>> choice_learners;
  std::string measured;  // what the two runs gave, in plain words (shown once a run has ended)
  struct Variant {
    std::string label;
    std::string config;  // a training config (docs/train.md), as JSON text
  };
  std::vector<Variant> variants;  // two or more; one for an experiment that intervenes on its trained model
  // Optional: what the Inspect heads view does once a run of it has ended, as JSON text, e.g.
  // {"view": "ablation", "each": true} (panel_inspect.cpp's apply_experiment); "" none.
  std::string inspect;
  // Optional: held-out accuracy against the delayed copy's distance, per model, measured with
  // `attnlab-cli sweep` (the "sweep" object of the experiment: its budget, then one row per model).
  struct SweepRow {
    std::string model;
    int params = 0;
    std::vector<std::pair<int, double>> accuracy;  // (distance, held-out accuracy)
  };
  std::vector<SweepRow> sweep;
  std::string sweep_budget;  // what every run of the sweep had, in plain words
};
std::span<const Experiment> experiments();
// A model "learns" the delayed copy at a distance when the sweep measured this much held-out accuracy there.
constexpr double kLearnedAccuracy = 0.9;
// The choice an experiment's measurements bear out at the delayed copy's `distance`: with a sweep and
// choice_learners, the choice naming exactly the models the sweep saw learn it there (-1: no choice
// does, or the sweep did not measure that distance); without them, `answer`.
int experiment_answer(const Experiment& e, int distance);
// An experiment's words as the lab shows them: the catalogue's "experiment.<key>.<field>"
// (docs/translating.md), else the English of assets/experiments.json. Fields: question, ask,
// choice.<i>, measured, variant.<i>, budget; "" for another field.
const char* experiment_text(const Experiment& e, std::string_view field);
// A task's name as the lab shows it: the catalogue's "task.<name>.label", else the name itself.
const char* task_label(const char* name);
// A task's relation ("previous", "next smallest": what one ideal pattern shows) as the lab shows it: the
// catalogue's "learn.relation.<name>", spaces written as _.
const char* relation_label(const char* name);
// Loads variant `variant` of experiment `index` as the settings (Train starts it); a delayed copy takes
// the distance the experiment's slider set (experiment_distance). "" or why not.
std::string learn_load_experiment(App& app, int index, int variant);
// The variants of experiment `e` whose runs have not yet ended (an experiment is revealed once its
// prediction is made and this is empty).
std::vector<int> experiment_runs_left(const LearnState& L, int e);

// A task's defaults as the Learn panel offers them: the CLI's, with evaluations often enough for curves.
attn::learn::TrainSetup learn_defaults(const attn::learn::Task& task);

// The Learn state, created on first use (App owns it).
LearnState& learn_state(App& app);
bool learn_busy(const App& app);  // training runs or an evaluation is under way
// Training asks for a frame: every frame when it trains in the UI's frames (its slices are the frames'
// work), at most kLearnFramesPerS a second when it trains on a thread of its own, so that drawing the
// curves does not take the cores the training needs (a software GL draws on the same two cores).
inline constexpr double kLearnFramesPerS = 10.0;
bool learn_wants_frame(const App& app, double seconds_since_last_frame);
// In how many seconds training will want its next frame: 0 when it wants one now, infinity when it
// wants none (nothing runs). A shell that sleeps between frames wakes for it (web_main.cpp).
double learn_frame_due_in(const App& app, double seconds_since_last_frame);

// Plain-words state: "idle", "running", "paused", "done", "diverged".
inline const char* learn_phase(const LearnState& L) { return L.run().phase(); }

// Starts a new run from `setup` (running or paused). On a refused setup returns the message naming the
// field and changes nothing else (the current run, its weights and its state are kept).
std::string learn_start(App& app, const attn::learn::TrainSetup& setup, bool run = true);
// Train: resume the current run, or start one from the settings when there is none, it is finished or
// the settings changed. Returns "" or the refusal.
std::string learn_train(App& app);
void learn_pause(App& app);
void learn_step(App& app);   // one step, then paused (starts a paused run first when needed)
void learn_reset(App& app);  // the same settings again from step 0, paused

// Shows the weights of snapshot `index` in the probe view (-1: back to the live weights).
void learn_replay(App& app, int index);

// Shows layer `layer` of the model (live or replayed weights) on the probe example in the lab: X is the
// residual stream entering that layer, W_Q/W_K/W_V/W_O its trained weights; switches to the lab. "" or why not.
std::string learn_open_in_lab(App& app, int layer);

// Runs this frame's slice of training (called by frame() in both modes) and refreshes the probe.
void learn_tick(App& app);

// The page API (docs/web-api.md): a training config in the attnlab-cli train schema (docs/train.md).
std::string learn_train_json(App& app, std::string_view options);
std::string learn_status_json(App& app);   // state, step, loss, accuracy, pattern scores, steps/s
std::string learn_history_json(App& app);  // every evaluation, as `attnlab-cli train --log` lines, in an array
void learn_stop(App& app);                 // pause; Train (or train()) resumes

// The probe: text in the task's tokens ("a b c"; a cross-attention task: "source -> output"), or ""
// for the held-out example again. "" or the error naming the token the vocabulary lacks (the probe
// stays as it was). The thumbnails, the ideal pattern and Open in the lab follow it.
std::string learn_set_probe(App& app, std::string_view text);
// The example the probe shows.
inline const attn::learn::Example& learn_probe_example(const LearnState& L) { return L.run().probe_example; }
// The probe computes gradients (the probe view shows one of them).
void learn_probe_gradients(App& app, bool on);

// Files and links of a run. The model as a model file (attnlab-cli train --out's format, read by
// `attnlab-cli run`); "" when nothing was trained.
std::string learn_model_json(App& app);
// Opens a model file: its config becomes the run's (paused), its weights the run's at its step, and
// Learn mode shows it. "" or the error naming the field; on error the current run is kept.
std::string learn_open_model(App& app, std::string_view text);
// The run's complete training config (every key): with the same seed it trains the same run again.
std::string learn_run_json(App& app);
// A file the person opened or dropped: a model file opens in Learn mode (learn_open_model), anything
// else is a lab setup (config, and a preset file's view: apply_setup). A refusal is also shown on
// screen, naming the file and the field. Returns "" or the error.
std::string open_file_text(App& app, const std::string& name, std::string_view text);

// The Learn mode's windows (panel_learn.cpp) with their Lab | Learn switch; the lab's nav bar has a
// Learn button. set_learn_mode switches (L does too).
void draw_learn_mode(App& app);
// The probe window's "Attention | Inspect heads" switch (panel_inspect.cpp); true when Inspect is chosen,
// and then draw_inspect draws the window: heads ablated by a click, what they change, Ablate each head.
bool draw_inspect_switch(App& app);
void draw_inspect(App& app);

// The page API's interventions (docs/inspect.md, docs/web-api.md) on the current run's weights:
// `command` ablate | patch | attribute | circuits | rollout, `options` a JSON object with the CLI's options
// as fields (heads, mode, each, example, clean, corrupt, corrupt_at, with, tokens, source, position,
// target, layer, head). Returns the CLI's JSON document, or "" with `error` naming the field. Nothing
// of the run changes either way.
std::string learn_inspect_json(App& app, std::string_view command, std::string_view options, std::string& error);
// What the Inspect view shows: {"open", "step", "mode", "ablated": [[l, h]...], "baseline": {loss,
// accuracy}, "loss", "accuracy", "probe_right", "probe_right_intact", "probe_targets", "each": bool}, or {"open": false, "why"}.
std::string learn_inspect_view_json(App& app);
// How much held-out accuracy (0..1) the heads removed in the Inspect view cost; 0 when none is removed.
double learn_inspect_accuracy_drop(const App& app);
void draw_mode_switch(App& app);
void set_learn_mode(App& app, bool learn);

}  // namespace attnlab
