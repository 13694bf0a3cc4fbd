// engine.h — multi-head attention, stage by stage, recomputing only what a change touched.
//
//   X  = embed(tokens) + position                       X:(n, d_model)     (Xs:(m, d_model) for keys)
//   Q_h = X·W_Q_h   K_h = Xs·W_K_h   V_h = Xs·W_V_h     W_Q_h, W_K_h:(d_model, d_k)  W_V_h:(d_model, d_v)
//   S_h = Q_h·K_hᵀ · scale / τ                          S_h:(n, m)   scale = 1/√d_k by default
//   A_h = softmax_rows(S_h where allowed, else −∞)      A_h:(n, m)
//   O_h = A_h·V_h                                       O_h:(n, d_v)
//   out = [O_1 … O_H]·W_O                               concat:(n, H·d_v)  W_O:(H·d_v, d_model)
//
// Heads are stored side by side: Q is (n, H·d_k) with head h in columns [h·d_k, (h+1)·d_k), and the
// W_Q of all heads is one (d_model, H·d_k) matrix, so each projection is one matrix product.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "kernels.h"
#include "mask.h"

namespace attn {

// [SECTION] stages, in the order they run
// (w_matrices builds W_Q, W_K, W_V, W_O; the attention weights A_h are the softmax stage's output.)
enum class Stage : int { embed, position, w_matrices, project, mask, score, softmax, mix, output, count };
const char* to_string(Stage s);

// A read-only view of a matrix inside a larger row-major buffer.
struct MatView {
  const float* data = nullptr;
  int rows = 0, cols = 0, ld = 0;
  float operator()(int r, int c) const { return data[(size_t)r * ld + c]; }
};

struct Result {
  int n = 0, m = 0;  // queries, keys (m == n for self-attention)
  int d_model = 0, heads = 0, d_k = 0, d_v = 0;
  bool cross = false;
  std::vector<std::string> tokens, source_tokens;  // source_tokens == tokens for self-attention
  int dropped_tokens = 0, invalid_bytes = 0;        // what the tokenizer clamped or replaced
  float alpha = 1.0f;                               // the factor on Q·Kᵀ: scale / temperature

  std::vector<float> x, x_source;  // (n, d_model), (m, d_model) after positional encoding and edits
  std::vector<float> positions;    // P, (n, d_model): what the positional encoding added to X (zeros if it adds none)
  std::vector<float> w_q, w_k;     // (d_model, H·d_k)
  std::vector<float> w_v;          // (d_model, H·d_v)
  std::vector<float> w_o;          // (H·d_v, d_model)
  std::vector<float> q, k;         // (n, H·d_k), (m, H·d_k)
  std::vector<float> v;            // (m, H·d_v)
  std::vector<float> scores;       // (H, n, m) scaled, before masking (empty unless keep_scores)
  std::vector<float> weights;      // (H, n, m) softmax weights; 0 where masked
  MaskMatrix mask;                 // (n, m), shared by every head
  std::vector<float> concat;       // (n, H·d_v): O_h in columns [h·d_v, (h+1)·d_v)
  std::vector<float> output;       // (n, d_model)
  std::vector<float> entropy;      // (H, n) entropy of each weight row, in bits (0 for a fully masked row)
  std::vector<float> max_weight;   // (H, n)

  MatView x_view() const { return {x.data(), n, d_model, d_model}; }
  MatView positions_view() const { return {positions.data(), n, d_model, d_model}; }
  MatView x_source_view() const { return {x_source.data(), m, d_model, d_model}; }
  MatView q_head(int h) const { return {q.data() + h * d_k, n, d_k, heads * d_k}; }
  MatView k_head(int h) const { return {k.data() + h * d_k, m, d_k, heads * d_k}; }
  MatView v_head(int h) const { return {v.data() + h * d_v, m, d_v, heads * d_v}; }
  MatView w_q_head(int h) const { return {w_q.data() + h * d_k, d_model, d_k, heads * d_k}; }
  MatView w_k_head(int h) const { return {w_k.data() + h * d_k, d_model, d_k, heads * d_k}; }
  MatView w_v_head(int h) const { return {w_v.data() + h * d_v, d_model, d_v, heads * d_v}; }
  MatView w_o_view() const { return {w_o.data(), heads * d_v, d_model, d_model}; }
  MatView scores_head(int h) const { return {scores.data() + (size_t)h * n * m, n, m, m}; }
  MatView weights_head(int h) const { return {weights.data() + (size_t)h * n * m, n, m, m}; }
  MatView out_head(int h) const { return {concat.data() + h * d_v, n, d_v, heads * d_v}; }
  MatView concat_view() const { return {concat.data(), n, heads * d_v, heads * d_v}; }
  MatView output_view() const { return {output.data(), n, d_model, d_model}; }
};

struct EngineOptions {
  // Keep the scores: every score is computed and stored, also where the mask hides it, so the lab
  // can show what the mask removes. Off (lean, as in the benchmark): scores are computed only
  // where the mask allows, straight into the weights buffer a block of rows at a time and turned
  // into weights while still in cache; Result::scores stays empty. Weights and outputs are the
  // same either way.
  bool keep_scores = true;
  bool row_stats = true;  // entropy and max weight per row (one log per weight)
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {}) : options_(options) {}

  // Validates and takes a new config, marking the stages it changes. On error returns one line naming
  // the field and keeps the previous config and result untouched.
  std::string set_config(const Config& config);
  const Config& config() const { return config_; }
  // Queries and keys of the config last taken (known before compute(): output limits use them).
  std::pair<int, int> token_counts() const { return {(int)pending_tokens_.size(), (int)pending_source_tokens_.size()}; }

  // Recomputes the stages that changed since the last call (all of them the first time).
  void compute();
  const Result& result() const { return result_; }

  // Kernels: nullptr = the fastest for this CPU (kernels()); tests pass the reference set.
  void set_kernels(const KernelSet* k) { kernels_ = k; invalidate(); }
  const KernelSet& kernel_set() const { return kernels_ ? *kernels_ : kernels(); }
  // Marks `from` and every later stage for recompute (the benchmark times project -> output this way).
  void invalidate(Stage from = Stage::embed) { dirty_ |= ~((1u << (int)from) - 1u); }

  double last_compute_ms() const { return last_ms_; }
  uint32_t last_recomputed() const { return last_stages_; }  // bit s = Stage s ran in the last compute()
  // How many times stage `s` has run: unchanged means its part of result() is as it was (a view's
  // colours need not be looked at again).
  uint64_t stage_runs(Stage s) const { return stage_runs_[(int)s]; }
  bool needs_compute() const { return dirty_ != 0; }

 private:
  void run_embed();
  void run_position();
  void run_w_matrices();
  void run_project();
  void run_mask();
  void run_score();
  void run_softmax();
  void run_mix();
  void run_output();
  void apply_overrides(Target t, std::vector<float>& data, int rows, int cols, bool per_head_columns, int head_cols);

  EngineOptions options_;
  Config config_;
  bool has_config_ = false;
  Result result_;
  std::vector<float> x_embed_, x_source_embed_;  // embeddings before position
  std::vector<std::string> pending_tokens_, pending_source_tokens_;  // tokenized by set_config
  int pending_dropped_ = 0, pending_invalid_ = 0;
  const KernelSet* kernels_ = nullptr;
  uint32_t dirty_ = ~0u;
  uint32_t last_stages_ = 0;
  uint64_t stage_runs_[(int)Stage::count] = {};
  double last_ms_ = 0.0;
};

// Convenience for tools and tests: validate, compute, return (error, result).
struct RunOutput {
  std::string error;
  Result result;
};
RunOutput run_attention(const Config& config, const KernelSet* kernels = nullptr, EngineOptions options = {});

}  // namespace attn
