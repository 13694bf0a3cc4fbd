// reference.cpp — the reference kernels: the formulas as plain loops, no blocking, no SIMD.
// They are the oracle every fast kernel is tested against, and what the lab's explanations describe.
// Range hints are permissions to skip work, so ignoring them (as these do) is always correct.
#include <cmath>
#include <limits>

#include "kernels.h"

namespace attn::reference {
namespace {

// C[i,j] (+)= alpha · Σ_p A[i,p]·B[p,j]      A:(M,K) (or Aᵀ:(K,M))  B:(K,N) (or Bᵀ:(N,K))  C:(M,N)
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
  }
}

// w[i,j] = exp(s[i,j] − max_i) / Σ_j' exp(s[i,j'] − max_i) over allowed j; 0 where masked.
void softmax_rows_ref(const float* s, int lds, const uint8_t* allowed, int ldm, float* w, int ldw, int rows,
                      int cols, const Range* /*range*/, uint8_t* fully_masked) {
  for (int i = 0; i < rows; ++i) {
    const float* si = s + (size_t)i * lds;
    const uint8_t* mi = allowed + (size_t)i * ldm;
    float* wi = w + (size_t)i * ldw;
    // pass 1: max over allowed logits (subtracted only for numerical stability)
    float mx = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < cols; ++j)
      if (mi[j] && si[j] > mx) mx = si[j];
    fully_masked[i] = !(mx > -std::numeric_limits<float>::infinity());
    // pass 2: exponentials and their sum
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) {
      wi[j] = (mi[j] && !fully_masked[i]) ? std::exp(si[j] - mx) : 0.0f;
      sum += wi[j];
    }
    // pass 3: normalise
    if (!fully_masked[i])
      for (int j = 0; j < cols; ++j) wi[j] /= sum;
  }
}

float dot_ref(const float* a, const float* b, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

extern const KernelSet kernel_set;
const KernelSet kernel_set = {"reference", gemm_ref, softmax_rows_ref, dot_ref};

}  // namespace attn::reference
