// stages.h — the stages of multi-head attention as free functions over plain buffers, each forward
// beside its backward (llm.c style), for one sequence and one head at a time.
//
// Shared by the lab's Engine (one sequence, float, forward only) and the learning model
// (src/engine/learn/model.cpp: a batch of sequences, L layers, float for speed and double as the
// test oracle). Templated on the scalar type T:
//   float   products and softmax go through a KernelSet (the SIMD kernels, or the reference loops);
//   double  plain loops below (the oracle of the finite-difference tests; the KernelSet is ignored).
//
// [SECTION] products and softmax for float and double
// [SECTION] scores       S = α·Q·Kᵀ
// [SECTION] softmax      A = softmax_rows(S where allowed)
// [SECTION] mix          O = A·V
// [SECTION] output       Y (+)= concat·W_O
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels.h"
#include "mask.h"

namespace attn {

// ---------------------------------------------------------------------------------------------------
// [SECTION] products and softmax for float and double
// ---------------------------------------------------------------------------------------------------

// C (+)= α·op(A)·op(B): Product<T> (kernels.h). float goes to the kernels, double to the loops below.
inline void product(const KernelSet& ks, const Product<float>& p) { ks.gemm(p); }

// The double version: the formula as loops, summed in double.
inline void product(const KernelSet&, const Product<double>& p) {
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      double sum = 0.0;
      for (int k = 0; k < p.K; ++k)
        sum += (p.a_transposed ? p.A[(size_t)k * p.lda + i] : p.A[(size_t)i * p.lda + k]) *
               (p.b_transposed ? p.B[(size_t)j * p.ldb + k] : p.B[(size_t)k * p.ldb + j]);
      double& c = p.C[(size_t)i * p.ldc + j];
      const double in = p.C_in ? p.C_in[(size_t)i * p.ldc + j] : c;
      c = p.accumulate ? in + p.alpha * sum : p.alpha * sum;
    }
}

// x = σ(x) and x = tanh(x) in place over n values: float through the kernels, double as the formula.
inline void sigmoid_inplace(const KernelSet& ks, float* x, int n) { ks.sigmoid(x, n); }
inline void sigmoid_inplace(const KernelSet&, double* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = 1.0 / (1.0 + std::exp(-x[i]));
}
inline void tanh_inplace(const KernelSet& ks, float* x, int n) { ks.tanh(x, n); }
inline void tanh_inplace(const KernelSet&, double* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
}

// Row-wise masked softmax, in place allowed (w may equal s). See KernelSet::softmax_rows.
inline void softmax_rows(const KernelSet& ks, const float* s, int lds, const MaskMatrix& mask, float* w, int ldw,
                         uint8_t* fully_masked) {
  ks.softmax_rows({.rows = mask.n, .cols = mask.m, .s = s, .lds = lds, .allowed = mask.allowed.data(), .ldm = mask.m,
                   .w = w, .ldw = ldw, .range = mask.ranges.data(), .fully_masked = fully_masked});
}

inline void softmax_rows(const KernelSet&, const double* s, int lds, const MaskMatrix& mask, double* w, int ldw,
                         uint8_t* fully_masked) {
  for (int i = 0; i < mask.n; ++i) {
    const double* si = s + (size_t)i * lds;
    double* wi = w + (size_t)i * ldw;
    // pass 1: the max over allowed logits, subtracted only for numerical stability
    double mx = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < mask.m; ++j)
      if (mask.allows(i, j) && si[j] > mx) mx = si[j];
    fully_masked[i] = !(mx > -std::numeric_limits<double>::infinity());
    // pass 2: exponentials and their sum (0 where masked; an all-masked row stays all zero)
    double sum = 0.0;
    for (int j = 0; j < mask.m; ++j) {
      wi[j] = mask.allows(i, j) && !fully_masked[i] ? std::exp(si[j] - mx) : 0.0;
      sum += wi[j];
    }
    // pass 3: normalise
    if (!fully_masked[i])
      for (int j = 0; j < mask.m; ++j) wi[j] /= sum;
  }
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] scores: S = α·Q_h·K_hᵀ,  α = scale / τ
//   q:(n, d_k) row stride ldq   k:(m, d_k) row stride ldk   s:(n, m) row stride m
// With a mask, only the cells it allows are needed (n_range): the others are masked out anyway.
// ---------------------------------------------------------------------------------------------------
template <class T>
void scores_forward(const KernelSet& ks, const T* q, int ldq, const T* k, int ldk, int n, int m, int d_k, T alpha,
                    T* s, const Range* needed = nullptr) {
  product(ks, Product<T>{.M = n, .N = m, .K = d_k, .A = q, .lda = ldq, .B = k, .ldb = ldk, .C = s, .ldc = m,
                         .alpha = alpha, .b_transposed = true, .n_range = needed});
}

// A = softmax_rows(α·Q_h·K_hᵀ where the mask allows)     q:(n, d_k)  k:(m, d_k)  ->  a:(n, m) row stride m
// Scores and softmax fused (KernelSet::attention_weights): short rows stay in registers from the
// product to the weights; longer ones go into A block by block, each block becoming weights in place
// as soon as the product has finished it (still in cache). The same numbers as scores_forward then
// softmax_forward; what the lab's Engine runs when it need not keep S, and what the learning model runs
// in every layer. fully_masked (optional): 1 per row with no allowed key, whose weights are all 0.
template <class T>
void attention_weights_forward(const KernelSet& ks, const T* q, int ldq, const T* k, int ldk, int n, int m, int d_k,
                               T alpha, const MaskMatrix& mask, T* a, uint8_t* fully_masked = nullptr) {
  if constexpr (std::is_same_v<T, float>) {
    ks.attention_weights({.n = n, .m = m, .d_k = d_k, .q = q, .ldq = ldq, .k = k, .ldk = ldk, .alpha = alpha,
                          .allowed = mask.allowed.data(), .range = mask.ranges.data(), .dense = mask.dense, .a = a,
                          .fully_masked = fully_masked});
  } else {
    scores_forward(ks, q, ldq, k, ldk, n, m, d_k, alpha, a, mask.ranges.data());
    std::vector<uint8_t> unused;
    if (!fully_masked) unused.resize((size_t)n), fully_masked = unused.data();
    softmax_rows(ks, a, m, mask, a, m, fully_masked);
  }
}

// dQ = α·dS·K      dK = α·dSᵀ·Q        dS:(n, m)  ->  dQ:(n, d_k) row stride ld_dQ,  dK:(m, d_k) row stride
// ld_dK (written, not added)
// dS is 0 where the mask hides a cell, so with the mask's ranges (keys per query, queries per key)
// those terms are skipped; adding zeros changes no sum, so the result is the same either way.
template <class T>
void scores_backward(const KernelSet& ks, const T* dS, const T* q, int ldq, const T* k, int ldk, int n, int m, int d_k,
                     T alpha, T* dQ, int ld_dQ, T* dK, int ld_dK, const MaskMatrix* mask = nullptr) {
  product(ks, Product<T>{.M = n, .N = d_k, .K = m, .A = dS, .lda = m, .B = k, .ldb = ldk, .C = dQ, .ldc = ld_dQ,
                         .alpha = alpha, .k_range = mask ? mask->ranges.data() : nullptr});
  product(ks, Product<T>{.M = m, .N = d_k, .K = n, .A = dS, .lda = m, .B = q, .ldb = ldq, .C = dK, .ldc = ld_dK,
                         .alpha = alpha, .a_transposed = true, .k_range = mask ? mask->key_ranges.data() : nullptr});
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] softmax: A_ij = exp(S_ij) / Σ_j' exp(S_ij') over allowed cells; 0 where masked
//   s, a:(n, m) row stride m (a may be s); a fully masked row gives all-zero weights.
// ---------------------------------------------------------------------------------------------------
template <class T>
void softmax_forward(const KernelSet& ks, const T* s, const MaskMatrix& mask, T* a, uint8_t* fully_masked) {
  softmax_rows(ks, s, mask.m, mask, a, mask.m, fully_masked);
}

// dS = A ⊙ (dA − rowsum(dA ⊙ A))
// (∂A_ij/∂S_ik = A_ij(δ_jk − A_ik)). Masked cells have A = 0, so dS = 0 there; a fully masked row
// (all A = 0) gets dS = 0, never NaN.        dA, a, dS:(n, m) row stride m (dS may be dA)
// With the mask's key ranges, dA is read only inside them (mix_backward may leave it unwritten
// outside) and dS is written 0 outside. float goes to the kernels, double to the loops below.
inline void softmax_backward(const KernelSet& ks, const float* dA, const float* a, int n, int m, float* dS,
                             const Range* keys = nullptr) {
  ks.softmax_backward_rows({.rows = n, .cols = m, .da = dA, .a = a, .ds = dS, .range = keys});
}

inline void softmax_backward(const KernelSet&, const double* dA, const double* a, int n, int m, double* dS,
                             const Range* keys = nullptr) {
  for (int i = 0; i < n; ++i) {
    const double* dai = dA + (size_t)i * m;
    const double* ai = a + (size_t)i * m;
    double* dsi = dS + (size_t)i * m;
    const int lo = keys ? keys[i].lo : 0, hi = keys ? std::max(keys[i].hi, keys[i].lo) : m;
    double dot = 0;  // pass 1: rowsum(dA ⊙ A)
    for (int j = lo; j < hi; ++j) dot += dai[j] * ai[j];
    for (int j = 0; j < lo; ++j) dsi[j] = 0;
    for (int j = lo; j < hi; ++j) dsi[j] = ai[j] * (dai[j] - dot);  // pass 2
    for (int j = hi; j < m; ++j) dsi[j] = 0;
  }
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] mix: O_h = A_h·V_h      a:(n, m)  v:(m, d_v) row stride ldv  ->  o:(n, d_v) row stride ldo
// keys_used[i] (the mask's ranges): A[i, j] = 0 outside it, so those terms are skipped.
// ---------------------------------------------------------------------------------------------------
template <class T>
void mix_forward(const KernelSet& ks, const T* a, const T* v, int ldv, int n, int m, int d_v, T* o, int ldo,
                 const Range* keys_used = nullptr) {
  product(ks, Product<T>{.M = n, .N = d_v, .K = m, .A = a, .lda = m, .B = v, .ldb = ldv, .C = o, .ldc = ldo,
                         .k_range = keys_used});
}

// dV = Aᵀ·dO          dO:(n, d_v) row stride ld_dO  ->  dV:(m, d_v) row stride ld_dV (written)
// With the mask: A is 0 outside each query's key range, so the terms of those queries are skipped.
template <class T>
void mix_backward(const KernelSet& ks, const T* dO, int ld_dO, const T* a, int n, int m, int d_v, T* dV, int ld_dV,
                  const MaskMatrix* mask = nullptr) {
  product(ks, Product<T>{.M = m, .N = d_v, .K = n, .A = a, .lda = m, .B = dO, .ldb = ld_dO, .C = dV, .ldc = ld_dV,
                         .a_transposed = true, .k_range = mask ? mask->key_ranges.data() : nullptr});
}

// Back through the weights and the softmax:
//   dA = dO·Vᵀ      dS = A ⊙ (dA − rowsum(dA ⊙ A))
// both inside each query's key range and 0 outside it (a masked cell's dO·v_j is no gradient of
// anything: A there is the constant 0).   dO:(n, d_v)  v:(m, d_v)  a, dA, dS:(n, m) row stride m
// float goes to the kernels (fused for short rows), double to the product and the loops of
// softmax_backward.
template <class T>
void weights_backward(const KernelSet& ks, const T* dO, int ld_dO, const T* a, const T* v, int ldv, int n, int m, int d_v,
                      const MaskMatrix& mask, T* dA, T* dS) {
  if constexpr (std::is_same_v<T, float>) {
    ks.weights_backward({.n = n, .m = m, .d_v = d_v, .d_o = dO, .ld_do = ld_dO, .v = v, .ldv = ldv, .a = a,
                         .range = mask.ranges.data(), .da = dA, .ds = dS});
  } else {
    product(ks, Product<T>{.M = n, .N = m, .K = d_v, .A = dO, .lda = ld_dO, .B = v, .ldb = ldv, .C = dA, .ldc = m,
                           .b_transposed = true});
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        if (j < mask.ranges[(size_t)i].lo || j >= mask.ranges[(size_t)i].hi) dA[(size_t)i * m + j] = 0;
    softmax_backward(ks, dA, a, n, m, dS, mask.ranges.data());
  }
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] output: Y (+)= concat·W_O     concat:(n, H·d_v)  W_O:(H·d_v, d_model)  ->  Y:(n, d_model)
// The model adds into the residual stream (accumulate: Y = X + concat·W_O, with X given as `residual`
// when Y is another buffer); the lab writes the output alone.
// ---------------------------------------------------------------------------------------------------
template <class T>
void output_forward(const KernelSet& ks, const T* concat, int n, int hv, const T* w_o, int d_model, T* y,
                    bool accumulate, const T* residual = nullptr) {
  product(ks, Product<T>{.M = n, .N = d_model, .K = hv, .A = concat, .lda = hv, .B = w_o, .ldb = d_model, .C = y,
                         .ldc = d_model, .accumulate = accumulate, .C_in = residual});
}

// dW_O += concatᵀ·dY      dconcat = dY·W_Oᵀ (written)
template <class T>
void output_backward(const KernelSet& ks, const T* dy, const T* concat, int n, int hv, const T* w_o, int d_model,
                     T* dw_o, T* dconcat) {
  product(ks, Product<T>{.M = hv, .N = d_model, .K = n, .A = concat, .lda = hv, .B = dy, .ldb = d_model, .C = dw_o,
                         .ldc = d_model, .a_transposed = true, .accumulate = true});
  product(ks, Product<T>{.M = n, .N = hv, .K = d_model, .A = dy, .lda = d_model, .B = w_o, .ldb = d_model, .C = dconcat,
                         .ldc = hv, .b_transposed = true});
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] projection: Y = X·W (all heads side by side in W's columns)
//   x:(n, d_model)  w:(d_model, cols)  ->  y:(n, cols)
// ---------------------------------------------------------------------------------------------------
template <class T>
void project_forward(const KernelSet& ks, const T* x, int n, int d_model, const T* w, int cols, T* y) {
  product(ks, Product<T>{.M = n, .N = cols, .K = d_model, .A = x, .lda = d_model, .B = w, .ldb = cols, .C = y,
                         .ldc = cols});
}

// dW += Xᵀ·dY      dX += dY·Wᵀ
template <class T>
void project_backward(const KernelSet& ks, const T* dy, const T* x, int n, int d_model, const T* w, int cols, T* dw,
                      T* dx) {
  product(ks, Product<T>{.M = d_model, .N = cols, .K = n, .A = x, .lda = d_model, .B = dy, .ldb = cols, .C = dw,
                         .ldc = cols, .a_transposed = true, .accumulate = true});
  product(ks, Product<T>{.M = n, .N = d_model, .K = cols, .A = dy, .lda = cols, .B = w, .ldb = cols, .C = dx,
                         .ldc = d_model, .b_transposed = true, .accumulate = true});
}

}  // namespace attn
