// kernels.h — the fast kernels' interface and the run-time choice between instruction sets.
//
// One source (kernels.inc) is compiled once per instruction set; each compilation fills a KernelSet.
// The engine calls through kernels(), which is the fastest set this CPU runs unless a test or the
// benchmark selects another by name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace attn {

// Half-open interval [lo, hi) of column (or inner) indices.
struct Range {
  int lo = 0, hi = 0;
};

// C = alpha · A·B            (or, with accumulate, C += alpha · A·B)
//   A:(M,K) row stride lda, or, if a_transposed, A is given as Aᵀ:(K,M) (the backward pass's Xᵀ·dY).
//   B:(K,N) row stride ldb, or, if b_transposed, B is given as Bᵀ:(N,K).
//   C:(M,N) row stride ldc.
// Optional per-row hints, used to skip work a mask removes:
//   n_range[i]  only C[i, n_range[i]) is needed; other cells of row i may be left untouched.
//   k_range[i]  A[i, p] is zero for p outside k_range[i], so those terms may be skipped.
// One struct for every scalar type: the kernels take Product<float> (GemmArgs); stages.h runs
// Product<double> through plain loops (the oracle), which ignore the hints.
template <class T>
struct Product {
  int M = 0, N = 0, K = 0;
  const T* A = nullptr;
  int lda = 0;
  const T* B = nullptr;
  int ldb = 0;
  T* C = nullptr;
  int ldc = 0;
  T alpha = 1;
  bool a_transposed = false, b_transposed = false;
  bool accumulate = false;  // C += alpha·A·B instead of C = alpha·A·B (gradients summed over a batch)
  // With accumulate: C = C_in + alpha·A·B, C_in laid out as C (ldc), in place of C's own values (the
  // residual stream: the layer's input plus its output, written once instead of copied and then added
  // to). nullptr: C itself.
  const T* C_in = nullptr;
  const Range* n_range = nullptr;
  const Range* k_range = nullptr;
  // Called as rows_done(ctx, i0, rows) once rows [i0, i0+rows) of C are final, in increasing order,
  // so a caller can consume a block of rows while it is still in cache (the fused softmax does).
  void (*rows_done)(void* ctx, int i0, int rows) = nullptr;
  void* ctx = nullptr;
};
using GemmArgs = Product<float>;

// Row-wise masked softmax:
//   w[i,j] = allowed[i,j] ? exp(s[i,j] − max_i) / Σ_j' exp(s[i,j'] − max_i) : 0
// with the max and the sum taken over allowed j only. Columns outside range[i] (if given) count as
// masked. A row with no allowed column gets all-zero weights (and fully_masked[i] = 1, if given).
// w may be s itself (in place).
struct SoftmaxArgs {
  int rows = 0, cols = 0;
  const float* s = nullptr;          // scores   (rows, cols), row stride lds
  int lds = 0;
  const uint8_t* allowed = nullptr;  // the mask (rows, cols), row stride ldm; 1 = may attend
  int ldm = 0;
  float* w = nullptr;                // weights  (rows, cols), row stride ldw
  int ldw = 0;
  const Range* range = nullptr;      // optional: per row, the columns that may be allowed
  uint8_t* fully_masked = nullptr;   // optional: per row, 1 when no column is allowed
};

// The softmax's backward over rows (stages.h softmax_backward):
//   ds[i,j] = a[i,j] · (da[i,j] − Σ_j' da[i,j']·a[i,j'])      j, j' in range[i] (every column without ranges)
// and ds[i,j] = 0 outside range[i], where da is not read (it may hold anything). ds may be da (in place).
struct SoftmaxBackwardArgs {
  int rows = 0, cols = 0;      // every matrix (rows, cols), row stride cols
  const float* da = nullptr;   // ∂loss/∂A
  const float* a = nullptr;    // the weights A
  float* ds = nullptr;         // ∂loss/∂S
  const Range* range = nullptr;
};

// Cross-entropy of rows of logits against a target class each, and the softmax its gradient needs:
//   p[r] = softmax(z[r])      loss[r] = logsumexp(z[r]) − z[r][target[r]]  (= −log p[r][target[r]])
// A row whose target is < 0 has no loss: p[r] = 0 and loss[r] = 0.
struct CrossEntropyArgs {
  int rows = 0, cols = 0;        // z and p: (rows, cols), row stride cols
  const float* z = nullptr;      // logits
  const int* targets = nullptr;  // (rows)
  float* p = nullptr;            // probabilities
  float* loss = nullptr;         // (rows)
};

// One AdamW update of n parameters in place (learn/optimizer.h has the whole step):
//   m ← β1·m + (1 − β1)·g      v ← β2·v + (1 − β2)·g²      p ← p·decay − step·m / (√v·inv_sqrt_bias2 + eps)
struct AdamWArgs {
  float* p = nullptr;
  const float* g = nullptr;
  float* m = nullptr;
  float* v = nullptr;
  size_t n = 0;
  float beta1 = 0, beta2 = 0, decay = 1, step = 0, inv_sqrt_bias2 = 1, eps = 0;
};

// One head's attention weights, the scores and the softmax fused (stages.h attention_weights_forward):
//   a[i,j] = softmax over allowed j of α·Σ_p q[i,p]·k[j,p];  0 where masked
// the same numbers as gemm (with range as n_range) then softmax_rows. A row with no allowed key is all 0
// (fully_masked[i] = 1). `dense` promises that every key inside a row's range is allowed (no mask, causal,
// a window: no holes), so the kernel need not read `allowed`.
struct WeightsArgs {
  int n = 0, m = 0, d_k = 0;
  const float* q = nullptr;  // (n, d_k) row stride ldq
  int ldq = 0;
  const float* k = nullptr;  // (m, d_k) row stride ldk
  int ldk = 0;
  float alpha = 1;
  const uint8_t* allowed = nullptr;  // the mask (n, m), row stride m
  const Range* range = nullptr;      // per row (required): the smallest range holding its allowed keys
  bool dense = false;
  float* a = nullptr;                // (n, m), row stride m
  uint8_t* fully_masked = nullptr;   // optional (n)
};

// Back through one head's weights (stages.h weights_backward): dA = dO·Vᵀ, then the softmax's backward
//   ds[i,j] = a[i,j] · (da[i,j] − Σ_j' da[i,j']·a[i,j'])      j, j' in range[i]
// da and ds are written in full: 0 outside each row's range.
struct WeightsBackwardArgs {
  int n = 0, m = 0, d_v = 0;
  const float* d_o = nullptr;  // (n, d_v) row stride ld_do
  int ld_do = 0;
  const float* v = nullptr;    // (m, d_v) row stride ldv
  int ldv = 0;
  const float* a = nullptr;    // the weights (n, m), row stride m: 0 outside the ranges
  const Range* range = nullptr;  // per row (required): its keys' range
  float* da = nullptr;         // (n, m), row stride m
  float* ds = nullptr;         // (n, m), row stride m
};

// Rows looked up by id in a table, plus a second table's row by position (a learned model's embedding
// X[r] = W_E[token[r]] + P[r mod n], and its folded projections), and back:
//   y[r] = e[ids[r]] + p[r mod n]          (no p: y[r] = e[ids[r]])
//   ge[ids[r]] += dy[r],  gp[r mod n] += dy[r]   for r = 0, 1, … in order (no gp: ge only)
// Each cell is the one addition the formula names, so every kernel set gives the same numbers.
struct EmbedArgs {
  int rows = 0, cols = 0, n = 1;   // rows of y; the tables' and y's row stride is cols
  const int* ids = nullptr;        // (rows), rows of e
  const float* e = nullptr;
  const float* p = nullptr;        // optional (n, cols)
  float* y = nullptr;              // (rows, cols)
};
struct EmbedBackwardArgs {
  int rows = 0, cols = 0, n = 1;
  const int* ids = nullptr;        // (rows)
  const float* dy = nullptr;       // (rows, cols)
  float* ge = nullptr;             // rows of e's shape
  float* gp = nullptr;             // optional (n, cols)
};

struct KernelSet {
  const char* name;  // "avx512", "avx2", "sse2", "simd128", "neon", "scalar", "reference"
  void (*gemm)(const GemmArgs& args);
  void (*softmax_rows)(const SoftmaxArgs& args);
  void (*softmax_backward_rows)(const SoftmaxBackwardArgs& args);
  void (*attention_weights)(const WeightsArgs& args);
  void (*weights_backward)(const WeightsBackwardArgs& args);
  void (*crossentropy_rows)(const CrossEntropyArgs& args);
  void (*adamw)(const AdamWArgs& args);
  void (*embed_rows)(const EmbedArgs& args);
  void (*embed_rows_backward)(const EmbedBackwardArgs& args);
  // Σ_i a[i]·b[i]
  float (*dot)(const float* a, const float* b, int n);
  // x[i] = 1/(1 + e^(−x[i])) and x[i] = tanh(x[i]), in place (the recurrent models' gates)
  void (*sigmoid)(float* x, int n);
  void (*tanh)(float* x, int n);
};

// The kernel set in use (the fastest this CPU supports, or the one selected).
const KernelSet& kernels();
// Every kernel set compiled into this build that this CPU can run, fastest first.
std::span<const KernelSet* const> available_kernel_sets();
// Selects a kernel set by name; returns false (and changes nothing) if it is not available.
bool select_kernels(std::string_view name);

}  // namespace attn
