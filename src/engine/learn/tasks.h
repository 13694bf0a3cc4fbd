// tasks.h — the toy tasks a model can learn: ONE table, one entry per task (name, help, the pattern an
// ideal head uses, default model and training settings, a generator), read by the trainer, the CLI,
// the docs and the tests. Adding a task touches this table, its generator and a test.
//
// Every generator is deterministic given its Rng (prng.h), so batches are the same natively and in
// WebAssembly (libstdc++ and libc++ distributions differ).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "learn/model.h"
#include "learn/optimizer.h"
#include "prng.h"

namespace attn::learn {

// How to train: the `train` object of a config (docs/train.md).
struct TrainOptions {
  int steps = 1000;
  int batch = 32;
  // Sequences per forward and backward pass: a step runs its batch in parts of this many and sums the
  // parts' gradients before the update, so the page can train a part per slice of a frame. The parts
  // change only the order of float sums, and the CLI uses the same parts, so both give the same numbers.
  int micro_batch = 8;
  AdamWConfig adamw;
  uint64_t seed = 1;        // weights, batches and the held-out set all derive from it
  int eval_every = 100;     // evaluate on the held-out batch every this many steps (and at the end)
  int eval_batch = 256;     // held-out sequences
  // Stop early once training has converged: > 0 ends the run when the held-out accuracy is at least
  // this at `stop_evaluations` evaluations in a row (after step 0). 0: run every step.
  float stop_accuracy = 0.0f;
  int stop_evaluations = 3;
  bool operator==(const TrainOptions&) const = default;
};
struct TrainLimits {
  static constexpr int max_steps = 1000000;
  static constexpr int max_batch = 4096;
  static constexpr int max_eval_batch = 8192;
};
std::string validate(const TrainOptions& t);

// One example: tokens and targets of length n (-1 = nothing to predict), source of length m (cross).
struct Example {
  std::vector<int> tokens, targets, source;
};

struct Task {
  const char* name;
  const char* help;       // what the model must do
  const char* pattern;    // the attention pattern an ideal head uses (docs and UI)
  int relations;          // 1, or 2 for a task where two heads must specialise in different relations
  const char* relation_names[2];
  bool last_layer_pattern;  // the pattern score looks at the last layer only (induction), else at every layer
  // The defaults a config starts from: model shape, mask, positional encoding, training settings.
  void (*defaults)(ModelSpec& spec, TrainOptions& train);
  // "" when the task can run with this spec (vocabulary, lengths), else one line naming the field.
  std::string (*check)(const ModelSpec& spec, int n);
  // One example of target length n (and source length m for cross-attention tasks).
  Example (*generate)(const ModelSpec& spec, int n, Rng& rng);
  int (*source_length)(int n);  // m for a target length n (cross-attention tasks), else 0
  // The keys an ideal head of layer `layer` uses for query i, for relation r: appended to keys.
  void (*ideal_keys)(const Example& e, int layers, int layer, int relation, int i, std::vector<int>& keys);
  // A token id's label (for the model file and `run`): a letter, a digit, a symbol.
  std::string (*token_name)(int id);
};

// The table, in documentation order.
const std::vector<Task>& tasks();
const Task* find_task(const std::string& name);
std::string task_names();  // "previous_token, reverse, ..." for messages

// Token labels (as token_name writes them, separated by spaces) to ids. "" or one line naming `field`
// and the first label the vocabulary lacks.
std::string ids_from_labels(const Task& task, int vocab, std::string_view text, const char* field, std::vector<int>& ids);

// One example as a batch of one; sequences [first, first + count) of a batch as a batch.
Batch batch_of(const Example& e);
Batch slice(const Batch& b, int first, int count);
// Keeps each sequence's first n positions (n ≤ b.n; the source, if any, whole), in b's own buffers.
void keep_first_positions(Batch& b, int n);

// A batch of `size` examples from one generator stream.
Batch make_batch(const Task& task, const ModelSpec& spec, int size, int n, Rng& rng);

// [SECTION] metrics
struct Metrics {
  double loss = 0.0;
  double accuracy = 0.0;                     // argmax == target over the target cells
  int layers = 0, heads = 0;
  std::vector<double> pattern;               // (layers, heads, relations): mass on the ideal keys
  int relations = 1;
  // The task's pattern score: for each relation, the best head (of any layer, or of the last layer for
  // induction: its prefix-match score); the minimum over relations.
  double pattern_score = 0.0;
  double pattern_at(int l, int h, int r = 0) const { return pattern[((size_t)l * heads + h) * relations + r]; }
  // Softmax saturation, per (layer, head): the share of attention rows (queries with two keys or more
  // to see) whose largest weight is above kSaturated. Such a row is nearly one-hot, and softmax's gradient
  // A ⊙ (dA − rowsum(dA ⊙ A)) is then nearly 0: the scores behind it barely learn.
  static constexpr double kSaturated = 0.99;
  std::vector<double> saturation;
};
// Accuracy and pattern scores of the model's last forward pass on `batch` (which it must have run).
template <class T>
Metrics measure(const Task& task, const Model<T>& model, const Batch& batch, double loss);

// The sums behind Metrics, so a held-out set can be measured a chunk at a time (the lab spreads an
// evaluation over frames) and `attnlab-cli train` and the page add the same numbers in the same order.
struct MetricSums {
  double loss = 0.0;                 // Σ mean loss × target cells, over the chunks
  long long correct = 0, total = 0;  // target cells
  std::vector<double> mass;          // (layers, heads, relations): attention on the ideal keys
  std::vector<double> queries;       // (layers, relations): queries that have ideal keys
  std::vector<long long> saturated;  // (layers, heads): rows whose largest weight > Metrics::kSaturated
  long long rows = 0;                // attention rows per (layer, head) with two keys or more to see
  // Adds the model's last forward pass on `batch` (whose mean loss was `loss`).
  template <class T>
  void add(const Task& task, const Model<T>& model, const Batch& batch, double loss);
  Metrics finish(const Task& task, int layers, int heads) const;
};

}  // namespace attn::learn
