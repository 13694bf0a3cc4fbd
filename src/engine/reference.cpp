// reference.cpp — the reference kernels: the formulas as plain loops, no blocking, no SIMD.
// They are the oracle every fast kernel is tested against, and what the lab's explanations describe.
// Range hints are permissions to skip work, so ignoring them (as these do) is always correct.
#include <algorithm>
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
      const float in = g.C_in ? g.C_in[(size_t)i * g.ldc + j] : c;
      c = g.accumulate ? in + g.alpha * sum : g.alpha * sum;
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

// ds[i,j] = a[i,j]·(da[i,j] − Σ_j' da[i,j']·a[i,j']) inside range[i], 0 outside (da not read there).
void softmax_backward_rows_ref(const SoftmaxBackwardArgs& g) {
  for (int i = 0; i < g.rows; ++i) {
    const float* dai = g.da + (size_t)i * g.cols;
    const float* ai = g.a + (size_t)i * g.cols;
    float* dsi = g.ds + (size_t)i * g.cols;
    const int lo = g.range ? g.range[i].lo : 0, hi = g.range ? std::max(g.range[i].hi, lo) : g.cols;
    float dot = 0.0f;  // pass 1: rowsum(dA ⊙ A)
    for (int j = lo; j < hi; ++j) dot += dai[j] * ai[j];
    for (int j = 0; j < g.cols; ++j) dsi[j] = j >= lo && j < hi ? ai[j] * (dai[j] - dot) : 0.0f;  // pass 2
  }
}

// a = softmax(α·Q·Kᵀ where allowed): the scores as a product, then the softmax above.
void attention_weights_ref(const WeightsArgs& w) {
  gemm_ref({.M = w.n, .N = w.m, .K = w.d_k, .A = w.q, .lda = w.ldq, .B = w.k, .ldb = w.ldk, .C = w.a, .ldc = w.m,
            .alpha = w.alpha, .b_transposed = true});
  softmax_rows_ref({.rows = w.n, .cols = w.m, .s = w.a, .lds = w.m, .allowed = w.allowed, .ldm = w.m, .w = w.a, .ldw = w.m,
                    .fully_masked = w.fully_masked});
}

// da = dO·Vᵀ inside each row's range (0 outside), then ds by the softmax's backward above.
void weights_backward_ref(const WeightsBackwardArgs& g) {
  gemm_ref({.M = g.n, .N = g.m, .K = g.d_v, .A = g.d_o, .lda = g.ld_do, .B = g.v, .ldb = g.ldv, .C = g.da, .ldc = g.m,
            .b_transposed = true});
  for (int i = 0; i < g.n; ++i)
    for (int j = 0; j < g.m; ++j)
      if (j < g.range[i].lo || j >= g.range[i].hi) g.da[(size_t)i * g.m + j] = 0.0f;
  softmax_backward_rows_ref({.rows = g.n, .cols = g.m, .da = g.da, .a = g.a, .ds = g.ds, .range = g.range});
}

// p[r] = softmax(z[r]) and loss[r] = log Σ_c exp(z[r,c]) − z[r,target] for rows with a target; 0 elsewhere.
void crossentropy_rows_ref(const CrossEntropyArgs& g) {
  for (int r = 0; r < g.rows; ++r) {
    const float* z = g.z + (size_t)r * g.cols;
    float* p = g.p + (size_t)r * g.cols;
    const int t = g.targets[r];
    if (t < 0) {
      for (int c = 0; c < g.cols; ++c) p[c] = 0.0f;
      g.loss[r] = 0.0f;
      continue;
    }
    float mx = z[0];  // pass 1: the max (for numerical stability only)
    for (int c = 1; c < g.cols; ++c) mx = std::max(mx, z[c]);
    float sum = 0.0f;  // pass 2: exponentials and their sum
    for (int c = 0; c < g.cols; ++c) sum += (p[c] = std::exp(z[c] - mx));
    for (int c = 0; c < g.cols; ++c) p[c] /= sum;  // pass 3: normalise
    g.loss[r] = std::log(sum) - (z[t] - mx);
  }
}

// m = β1·m + (1 − β1)·g   v = β2·v + (1 − β2)·g²   p = p·decay − step·m / (√v·inv_sqrt_bias2 + eps)
void adamw_ref(const AdamWArgs& a) {
  for (size_t i = 0; i < a.n; ++i) {
    a.m[i] = a.beta1 * a.m[i] + (1.0f - a.beta1) * a.g[i];
    a.v[i] = a.beta2 * a.v[i] + (1.0f - a.beta2) * a.g[i] * a.g[i];
    a.p[i] = a.p[i] * a.decay - a.step * a.m[i] / (std::sqrt(a.v[i]) * a.inv_sqrt_bias2 + a.eps);
  }
}

// y[r] = e[ids[r]] + p[r mod n]
void embed_rows_ref(const EmbedArgs& a) {
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) {
      const float e = a.e[(size_t)a.ids[r] * a.cols + c];
      a.y[(size_t)r * a.cols + c] = a.p ? e + a.p[(size_t)(r % a.n) * a.cols + c] : e;
    }
}
// ge[ids[r]] += dy[r], gp[r mod n] += dy[r]
void embed_rows_backward_ref(const EmbedBackwardArgs& a) {
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) {
      const float g = a.dy[(size_t)r * a.cols + c];
      a.ge[(size_t)a.ids[r] * a.cols + c] += g;
      if (a.gp) a.gp[(size_t)(r % a.n) * a.cols + c] += g;
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
const KernelSet kernel_set = {.name = "reference", .gemm = gemm_ref, .softmax_rows = softmax_rows_ref,
                              .softmax_backward_rows = softmax_backward_rows_ref, .attention_weights = attention_weights_ref,
                              .weights_backward = weights_backward_ref, .crossentropy_rows = crossentropy_rows_ref,
                              .adamw = adamw_ref, .embed_rows = embed_rows_ref, .embed_rows_backward = embed_rows_backward_ref,
                              .dot = dot_ref, .sigmoid = sigmoid_ref, .tanh = tanh_ref};

}  // namespace attn::reference
