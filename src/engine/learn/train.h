// train.h — the training loop: seeded batches from a task, forward, backward, AdamW, held-out
// evaluation, divergence handling. A Trainer runs k steps at a time, or one part of a step (a
// micro-batch), so a frame loop can time-slice it finely (the UI's Learn mode), and keeps the history
// of evaluations, snapshots and probes it needs.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "learn/measures.h"
#include "learn/model.h"
#include "learn/optimizer.h"
#include "learn/tasks.h"

namespace attn::learn {

// Everything a training config describes (docs/train.md).
struct TrainSetup {
  std::string task = "induction";
  ModelSpec spec;        // n_ctx is the sequence length trained on (and n_src = the source's)
  TrainOptions train;
  bool operator==(const TrainSetup&) const = default;
};
// The task's defaults (spec and training options), as `{"task": NAME}` alone gives.
TrainSetup default_setup(const Task& task);
// "" when the setup can train, else one line naming the field.
std::string validate(const TrainSetup& s);
// The held-out set a (valid) setup is evaluated on, drawn from its seed, and a batch cut into chunks of
// at most `chunk` sequences, as an evaluation runs it (train.micro_batch at a time).
Batch held_out_batch(const TrainSetup& setup);
std::vector<Batch> chunks_of(const Batch& b, int chunk);

// One evaluation on the held-out batch.
struct EvalPoint {
  int step = 0;
  double loss = 0.0;        // held-out mean cross-entropy
  double accuracy = 0.0;    // held-out argmax accuracy over the target cells
  double train_loss = 0.0;  // the last training batch's loss
  double grad_norm = 0.0;   // the last step's gradient norm (before clipping)
  double pattern_score = 0.0;
  std::vector<double> pattern;  // (layers, heads, relations), see Metrics
  std::vector<double> saturation;  // (layers, heads), see Metrics
  double ms = 0.0;          // wall time since training started (excluding evaluations before this one: no)
};

// What one example does inside the model: attention of every layer and head and, with gradients,
// ∂loss/∂A and ∂loss/∂S for this example alone.
struct Probe {
  Example example;
  int n = 0, m = 0, layers = 0, heads = 0;
  double loss = 0.0;
  std::vector<std::vector<float>> weights;       // per layer (heads, n, m)
  std::vector<std::vector<float>> weight_grads;  // per layer (heads, n, m), with gradients only
  std::vector<std::vector<float>> score_grads;   // per layer (heads, n, m)
  std::vector<float> param_grads;                // ∂loss/∂ every parameter, model.h's layout (with gradients)
  std::vector<int> predictions;                  // argmax per position
  // Recurrent models (no attention weights; heads = 0), with gradients: the influence matrix (n, n),
  // ‖∂z_i/∂x_j‖ with z_i the logit of i's target (or argmax), see measures.h.
  std::vector<float> influence;
};

class Trainer {
 public:
  // Validates, builds and initialises the model (seeded), draws the held-out batch. "" or an error.
  std::string start(const TrainSetup& setup, const KernelSet* kernels = nullptr);

  // Runs up to k more steps (fewer at the end, or on divergence); evaluates every eval_every steps and
  // after the last. A step already under way (run_part) counts as one. Returns the number of steps run.
  int run(int k);
  // One part of the step under way: the first part draws the step's batch; every part runs forward and
  // backward on its micro_batch sequences, adding to the gradient; the last part updates the weights and
  // returns true (false for the earlier parts, and when nothing was run). run(1) = run_part() until true.
  bool run_part();
  int parts_per_step() const;
  // Training has ended (all steps, divergence, or convergence: train.stop_accuracy) and its last
  // evaluation is in the history.
  bool done() const { return (step_ >= setup_.train.steps || diverged_ || converged_) && !pending_.active; }
  bool diverged() const { return diverged_; }
  bool converged() const { return converged_; }  // stopped early: held-out accuracy reached train.stop_accuracy
  const std::string& message() const { return message_; }  // why training stopped early
  int step() const { return step_; }
  // positions per sequence the last step computed: the task's n, or fewer (model.h kept_positions)
  int positions_computed() const { return batch_.n; }
  double last_train_loss() const { return last_train_loss_; }  // the last step's training-batch loss

  // An evaluation on the held-out batch, now, whole; appended to history().
  EvalPoint evaluate();
  // A frame loop spreads evaluations over frames instead: with deferred evaluation, run() stops after a
  // step that is due for one and leaves it pending; continue_evaluation() then runs the held-out batch a
  // chunk (micro_batch sequences, as a training part) at a time and returns true once the point is in the
  // history. Either way the same numbers are added in the same order: the history is bit-identical.
  void set_deferred_evaluation(bool on) { defer_ = on; }
  bool evaluation_pending() const { return pending_.active; }
  bool continue_evaluation(int chunks = 1);
  void begin_evaluation();  // of the weights as they are now (finish it with continue_evaluation)
  int evaluation_chunks() const { return (int)held_out_chunks_.size(); }
  const std::vector<EvalPoint>& history() const { return history_; }
  const TrainSetup& setup() const { return setup_; }
  const Task& task() const { return *task_; }
  Model<float>& model() { return model_; }
  const Model<float>& model() const { return model_; }

  // Weights as they are now (a copy), and back. A step under way (run_part) is kept: its gradient so far
  // is of the weights before, so put the live weights back before training goes on (as replay does).
  std::vector<float> snapshot() const { return model_.params(); }
  void restore(const std::vector<float>& params);
  // Takes over trained weights (a model file's) as the weights of step `step` of this run: the history
  // is the file's evaluations before that step (the one at `step` is for the caller to run again), and
  // AdamW's moments start from zero if training goes on. false if the size differs.
  bool adopt(const std::vector<float>& params, int step, const std::vector<EvalPoint>& before = {});

  // One example through the current weights (its own buffers: training's are untouched).
  // `weights`: other weights of this model (a snapshot) instead of the current ones.
  Probe probe(const Example& e, bool with_gradients, const std::vector<float>* weights = nullptr);
  // Gradient against distance (measures.h) of the current weights, over the first `sequences` held-out
  // sequences (n forward and backward passes of that many).
  DistanceProfile gradient_by_distance(int sequences = 64);
  // The first example of the held-out set (a fixed probe for the UI).
  Example held_out_example(int index = 0) const;

 private:
  TrainSetup setup_;
  const Task* task_ = nullptr;
  Model<float> model_{ModelSpec{}};
  Model<float> eval_model_{ModelSpec{}}, probe_model_{ModelSpec{}};
  AdamW adamw_;
  Rng batch_rng_{0};
  Batch batch_, held_out_;
  std::vector<Batch> held_out_chunks_;  // held_out_ cut into micro_batch-sized pieces
  // the step under way: its batch, the next part, the part's sequences, the loss summed over targets
  int part_ = 0, batch_targets_ = 0;
  bool weights_set_ = false;  // restore() since the last part: its folded tables are not the weights'
  Batch part_batch_;
  double step_loss_sum_ = 0.0;
  bool finish_step();  // after the last part: check, update, evaluate if due; false on divergence
  struct PendingEval {
    bool active = false;
    size_t next = 0;     // the next chunk
    EvalPoint point;     // step, train loss, gradient norm and time, as at the step evaluated
    MetricSums sums;
  } pending_;
  bool defer_ = false;
  std::vector<float> backup_;
  int step_ = 0;
  bool diverged_ = false, converged_ = false;
  void check_converged();  // after an evaluation joins the history
  std::string message_;
  double last_train_loss_ = 0.0, last_grad_norm_ = 0.0;
  std::chrono::steady_clock::time_point t0_;
  std::vector<EvalPoint> history_;
};

}  // namespace attn::learn
