// reference.cpp — the reference kernels: the formulas as plain loops, no blocking, no SIMD.
// They are the oracle every fast kernel is tested against, and what the lab's explanations describe.
// Range hints are permissions to skip work, so ignoring them (as these do) is always correct.
#include <cmath>
#include <limits>

#include "kernels.h"

namespace attn::reference {
namespace {

// C[i,j] (+)= alpha · Σ_p A[i,p]·B[p,j]      A:(M,K) (or Aᵀ:(K,M))  B:(K,N) (or Bᵀ:(N,K))  C:(M,N)
// Each row is final when written, so rows_done follows every row.
void gemm_ref(const GemmArgs& g) {
  for (int i = 0; i < g.M; ++i) {
    for (int j = 0; j < g.N; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < g.K; ++p) {
        const float a = g.a_transposed ? g.A[(size_t)p * g.lda + i] : g.A[(size_t)i * g.lda + p];
        const float b = g.b_transposed ? g.B[(size_t)j * g.ldb + p] : g.B[(size_t)p * g.ldb + j];
        sum += a * b;
      }
      float& c = g.C[(size_t)i * g.ldc + j];
      c = g.accumulate ? c + g.alpha * sum : g.alpha * sum;
    }
    if (g.rows_done) g.rows_done(g.ctx, i, 1);
  }
}

// w[i,j] = exp(s[i,j] − max_i) / Σ_j' exp(s[i,j'] − max_i) over allowed j; 0 where masked.
// (range is a permission to skip work: every column is looked at here, which is always correct.)
void softmax_rows_ref(const SoftmaxArgs& a) {
  for (int i = 0; i < a.rows; ++i) {
    const float* si = a.s + (size_t)i * a.lds;
    const uint8_t* mi = a.allowed + (size_t)i * a.ldm;
    float* wi = a.w + (size_t)i * a.ldw;
    // pass 1: max over allowed logits (subtracted only for numerical stability)
    float mx = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < a.cols; ++j)
      if (mi[j] && si[j] > mx) mx = si[j];
    const bool fully = !(mx > -std::numeric_limits<float>::infinity());
    if (a.fully_masked) a.fully_masked[i] = fully;
    // pass 2: exponentials and their sum
    float sum = 0.0f;
    for (int j = 0; j < a.cols; ++j) {
      wi[j] = (mi[j] && !fully) ? std::exp(si[j] - mx) : 0.0f;
      sum += wi[j];
    }
    // pass 3: normalise
    if (!fully)
      for (int j = 0; j < a.cols; ++j) wi[j] /= sum;
  }
}

float dot_ref(const float* a, const float* b, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void sigmoid_ref(float* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = 1.0f / (1.0f + std::exp(-x[i]));
}
void tanh_ref(float* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
}

}  // namespace

extern const KernelSet kernel_set;
const KernelSet kernel_set = {"reference", gemm_ref, softmax_rows_ref, dot_ref, sigmoid_ref, tanh_ref};

}  // namespace attn::reference
