// session.h — one training run as Learn mode and the page drive it: a Trainer and everything kept
// around it (the batch-loss curve, weight snapshots to replay, the probe through the weights, the
// previous run's curves to compare), behind a message-shaped interface:
//
//   commands in   apply(Command)   Start, Train, Pause, Step, Reset, Replay, SetProbe, ProbeGradients, OpenModel
//   work          work(budget_ms)  training steps and evaluations, cut into slices that fit the budget
//   state out     state()          what a view draws: phase, step, curves, the probe, snapshot steps
//
// Nothing here draws or reads a clock the UI owns, so the same session can run on another thread (a
// Web Worker, a std::thread) with state() sent back as a message; in one thread, state() is updated in
// place, appended to rather than rebuilt, and costs nothing to read.
//
// State machine:  idle (no run) --Train--> running <--Pause/Train--> paused;  running --last step--> done;
//                 running --non-finite loss--> diverged (last good weights kept);  Reset -> paused at step 0.
// A command that is refused (a setup naming a bad field, a probe in tokens the task lacks) returns the
// message and changes nothing: the run, its weights and its state are kept.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "learn/train.h"

namespace attn::learn {

// Who started a run: its name on the comparison plot and the experiment and variant it came from
// (-1: free settings). The previous run becomes the comparison when it learned the same task for the
// same experiment: another experiment's run says nothing about this one's question.
struct RunTag {
  std::string label;
  int experiment = -1, variant = -1;
};

// [SECTION] commands
namespace cmd {
struct Start { TrainSetup setup; RunTag tag; bool run = true; };  // a new run (replaces the current one)
struct Train { TrainSetup setup; RunTag tag; };  // resume; or start `setup` when there is no run, it is over, or `setup` differs
struct Pause {};
struct Step { TrainSetup setup; RunTag tag; };   // one step, then paused (starting `setup` paused first, as Train would)
struct Reset { TrainSetup setup; RunTag tag; };  // the run's setup again from step 0, paused (`setup` when there is no run)
struct Replay { int index = -1; };               // the probe through snapshot `index` (state().replay_probe); -1 live
struct SetProbe { std::string text; };           // the probe's input in the task's tokens ("a b c", cross: "src -> out"); "" held-out
struct ProbeGradients { bool on = false; };      // the probe also computes ∂loss/∂A, ∂loss/∂S and ∂loss/∂W
struct OpenModel {                               // a model file's weights as this run's at `step` (paused)
  TrainSetup setup;
  RunTag tag;
  std::vector<float> params;
  int step = 0;
  std::vector<EvalPoint> history;                // the file's evaluations before `step`
};
}  // namespace cmd
using Command = std::variant<cmd::Start, cmd::Train, cmd::Pause, cmd::Step, cmd::Reset, cmd::Replay, cmd::SetProbe,
                             cmd::ProbeGradients, cmd::OpenModel>;

// [SECTION] state
// The share of saturated softmax rows at an evaluation, over every layer and head (Metrics::saturation).
float mean_saturation(const EvalPoint& p);

struct SessionState {
  bool started = false;     // a run exists (possibly at step 0)
  bool running = false;     // work() takes steps
  bool evaluating = false;  // an evaluation is under way (work() finishes it, running or not)
  bool done = false, diverged = false, converged = false;
  std::string message;      // why training stopped early (diverged, converged)
  TrainSetup run_setup;     // the current run's setup (valid when started)
  RunTag tag;
  const Task* task = nullptr;
  int step = 0;

  std::vector<EvalPoint> history;  // every evaluation of the run, in order
  std::vector<float> train_loss;   // the training batch's loss at every step run here
  int train_loss_from = 0;         // the step before train_loss[0] (a run opened from a file starts later)
  int opened_at = -1;              // the step a model file was opened at, -1 for a run trained here

  // The previous run's held-out curves, drawn under this run's (see RunTag).
  struct Compare {
    std::string label;
    int experiment = -1, variant = -1;
    std::vector<std::pair<int, float>> loss, accuracy, saturation;  // (step, value)
  } compare;

  // The weights at every evaluation, thinned to at most kMaxSnapshots (the first and the newest stay,
  // every other one of the rest goes), so a long run keeps an even spread; the weights stay in the
  // session, the state lists their steps.
  static constexpr size_t kMaxSnapshots = 200;
  std::vector<int> snapshot_steps;
  int replay = -1;                 // the snapshot the replay probe shows, -1 = the live weights

  // The probe: the held-out set's first example, or the input typed (it has no targets: no loss, no
  // gradients), through the live weights (probe, at probe_step) and through the replayed snapshot.
  bool typed_probe = false;
  std::string probe_text;          // the typed input accepted, "" for the held-out example
  Example probe_example;
  bool probe_gradients = false;
  Probe probe, replay_probe;
  int probe_step = -1;
  std::vector<std::vector<float>> ideal;  // per layer × relation: the task's ideal pattern on the probe (n, m)

  // Speed: measured over the last second of running, and the last work() call's steps and time.
  double steps_per_s = 0.0;
  int steps_last_work = 0;
  float ms_last_work = 0.0f;

  // What changed, for a copy of this state kept elsewhere (io/session_wire.h sends only what changed):
  // each counts up when its part is replaced. `run`: a new run (history and curves start again).
  struct Versions {
    uint64_t run = 0, probe = 0, replay = 0, compare = 0, ideal = 0, snapshots = 0;
    bool operator==(const Versions&) const = default;
  } versions;
  std::string refused;  // the last command refused, and why ("" after one carried out)
  uint64_t commands = 0;  // commands applied (refused or not): a copy elsewhere knows which it reflects

  // "idle", "running", "paused", "done", "diverged".
  const char* phase() const;
  int replay_step() const { return replay >= 0 ? snapshot_steps[(size_t)replay] : -1; }
};

// [SECTION] session
class Session {
 public:
  // Carries out one command: "" or why it was refused (then nothing changed).
  std::string apply(const Command& c);
  // Whether a session in state `s` refuses command `c`, and why ("" if not): what apply() checks first,
  // so a copy of the state on another thread can answer at once.
  static std::string check(const SessionState& s, const Command& c);
  // What apply(c) will surely do to a session in state `s`, done to `s` without the trainer: a new
  // run begun (its step, empty curves; the run it replaces as the comparison), a pause, a resume, the
  // replayed snapshot, the probe's text, gradients on or off. What needs the trainer (evaluations, the
  // probe's numbers) is left as it was. A copy of the state on another thread shows it from when the
  // command is sent until the session's own state has applied it (attn::SessionCopy).
  static void foresee(SessionState& s, const Command& c);
  // Runs pending evaluations and, while running, training: units of one micro-batch (a training part or
  // an evaluation chunk), at least one, then as many as fit in budget_ms. Then refreshes the probe if
  // the weights moved. Returns true when the state changed.
  bool work(double budget_ms);
  const SessionState& state() const { return s_; }
  bool busy() const { return s_.started && (s_.running || s_.evaluating); }

  // Open in the lab: the model with the weights shown (live, or the replayed snapshot) run forward on
  // the probe example, for the lab to show layer `layer`. "" or why not.
  struct LabLayer {
    Model<float> model{ModelSpec{}};
    Example example;
    int step = 0;
  };
  std::string lab_layer(int layer, LabLayer& out) const;

  // The trainer, read-only: for writing the run as a model file or log lines (io/model_json.h).
  const Trainer& trainer() const { return trainer_; }
  // The weights of snapshot `index` (state().snapshot_steps[index]).
  const std::vector<float>& snapshot_weights(int index) const { return snapshots_[(size_t)index]; }

 private:
  void start(const TrainSetup& setup, const RunTag& tag, bool run);
  void set_probe(const std::string& text);
  void step_once();
  void replay(int index);
  void open_model(const cmd::OpenModel& m);
  void record_snapshot();  // after an evaluation has joined the history
  void sync();             // state's run fields from the trainer: phase, step, new evaluations
  void refresh_probe();
  void build_ideal();

  Trainer trainer_;
  SessionState s_;
  std::vector<std::vector<float>> snapshots_;  // beside s_.snapshot_steps
  std::vector<std::pair<double, int>> rate_marks_;  // (seconds of running, step)
  double running_s_ = 0.0, last_work_s_ = 0.0;      // time spent running; when work() last ran
  bool was_running_ = false;                        // the run was running after the last work()
  std::chrono::steady_clock::time_point clock0_ = std::chrono::steady_clock::now();
};

}  // namespace attn::learn
