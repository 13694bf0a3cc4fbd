// model.cpp — the attention-only transformer's forward and backward passes (see model.h).
//
// [SECTION] spec and layout
// [SECTION] init
// [SECTION] buffers           laid out once per (batch, n, m), reused every step
// [SECTION] embedding         forward / backward
// [SECTION] forward           embedding -> L attention layers -> unembedding -> cross-entropy
// [SECTION] backward          the same, in reverse
#include "learn/model.h"

#include <algorithm>
#include <cmath>

#include "prng.h"
#include "stages.h"

namespace attn::learn {

// ---------------------------------------------------------------------------------------------------
// [SECTION] spec and layout
// ---------------------------------------------------------------------------------------------------
float ModelSpec::alpha() const {
  const float scale = scale_mode == ScaleMode::inv_sqrt_dk ? 1.0f / std::sqrt((float)d_k)
                      : scale_mode == ScaleMode::none      ? 1.0f
                                                           : scale_value;
  return scale / temperature;
}

namespace {
int pos_rows(const ModelSpec& s) { return std::max(s.n_ctx, s.cross ? s.n_src : 0); }
}  // namespace

std::string validate(const ModelSpec& s) {
  std::string e;
  if (!(e = check_range("layers", s.layers, 1, ModelLimits::max_layers)).empty()) return e;
  if (!(e = check_range("vocab", s.vocab, 2, ModelLimits::max_vocab)).empty()) return e;
  if (!(e = check_range("d_model", s.d_model, 1, ModelLimits::max_d_model)).empty()) return e;
  if (!(e = check_range("heads", s.heads, 1, ModelLimits::max_heads)).empty()) return e;
  if (!(e = check_range("d_k", s.d_k, 1, ModelLimits::max_d_head)).empty()) return e;
  if (!(e = check_range("d_v", s.d_v, 1, ModelLimits::max_d_head)).empty()) return e;
  if (!(e = check_range("n", s.n_ctx, 1, ModelLimits::max_seq)).empty()) return e;
  if (s.cross && !(e = check_range("source_n", s.n_src, 1, ModelLimits::max_seq)).empty()) return e;
  if (!std::isfinite(s.temperature) || s.temperature < Limits::min_temperature || s.temperature > Limits::max_temperature)
    return "temperature: must be a number between 0.001 and 1000";
  if (s.scale_mode == ScaleMode::custom && (!std::isfinite(s.scale_value) || std::fabs(s.scale_value) > Limits::max_abs_scale))
    return "scale: must be true, false or a finite number within ±1e4";
  if (s.positional == Positional::rope && s.d_k < 2) return "d_k: RoPE rotates pairs, so d_k must be at least 2";
  return check_mask(s.mask, s.n_ctx, s.cross ? s.n_src : s.n_ctx);
}

const char* to_string(Param p) {
  static const char* const names[] = {"w_e", "pos", "w_q", "w_k", "w_v", "w_o", "w_u"};
  return names[(int)p];
}

std::vector<Tensor> param_layout(const ModelSpec& s) {
  std::vector<Tensor> t;
  size_t offset = 0;
  const auto add = [&](Param kind, int layer, int rows, int cols) {
    std::string name = layer < 0 ? to_string(kind) : "layers." + std::to_string(layer) + "." + to_string(kind);
    t.push_back({kind, layer, rows, cols, offset, std::move(name)});
    offset += (size_t)rows * cols;
  };
  const int D = s.d_model, HK = s.heads * s.d_k, HV = s.heads * s.d_v;
  add(Param::w_e, -1, s.vocab, D);
  if (s.positional == Positional::learned) add(Param::pos, -1, pos_rows(s), D);
  for (int l = 0; l < s.layers; ++l) {
    add(Param::w_q, l, D, HK);
    add(Param::w_k, l, D, HK);
    add(Param::w_v, l, D, HV);
    add(Param::w_o, l, HV, D);
  }
  if (!s.tied) add(Param::w_u, -1, D, s.vocab);
  return t;
}

std::string check_batch(const ModelSpec& s, const Batch& b) {
  if (b.size < 1) return "batch: must hold at least one sequence";
  if (b.n < 1 || b.n > s.n_ctx) return "n: sequence length " + std::to_string(b.n) + " must be 1.." + std::to_string(s.n_ctx);
  if (b.tokens.size() != (size_t)b.size * b.n) return "tokens: expected batch x n ids";
  if (b.targets.size() != (size_t)b.size * b.n) return "targets: expected batch x n ids";
  if (s.cross) {
    if (b.m < 1 || b.m > s.n_src) return "source: length " + std::to_string(b.m) + " must be 1.." + std::to_string(s.n_src);
    if (b.source.size() != (size_t)b.size * b.m) return "source: expected batch x m ids";
  } else if (b.m != 0 || !b.source.empty()) {
    return "source: only a cross-attention model takes a source sequence";
  }
  const auto ids_ok = [&](const std::vector<int>& v, bool allow_none) {
    for (int id : v)
      if (!(id >= 0 && id < s.vocab) && !(allow_none && id == -1)) return false;
    return true;
  };
  if (!ids_ok(b.tokens, false)) return "tokens: ids must be 0.." + std::to_string(s.vocab - 1);
  if (!ids_ok(b.targets, true)) return "targets: ids must be 0.." + std::to_string(s.vocab - 1) + " or -1 (none)";
  if (!ids_ok(b.source, false)) return "source: ids must be 0.." + std::to_string(s.vocab - 1);
  if (std::string e = check_mask(s.mask, b.n, s.cross ? b.m : b.n); !e.empty()) return e;
  return "";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] init
// ---------------------------------------------------------------------------------------------------
template <class T>
Model<T>::Model(const ModelSpec& spec) : spec_(spec), tensors_(param_layout(spec)) {
  const size_t total = tensors_.empty() ? 0 : tensors_.back().offset + tensors_.back().size();
  params_.assign(total, T(0));
  grads_.assign(total, T(0));
}

template <class T>
const Tensor* Model<T>::find(Param kind, int layer) const {
  for (const Tensor& t : tensors_)
    if (t.kind == kind && t.layer == layer) return &t;
  return nullptr;
}

template <class T>
void Model<T>::init(uint64_t seed) {
  // One stream per tensor, so a tensor's values do not depend on the ones laid out before it.
  for (const Tensor& t : tensors_) {
    Rng rng(hash_string(t.name, seed));
    const bool embedding = t.kind == Param::w_e || t.kind == Param::pos;
    const double sd = embedding ? 0.1 : 1.0 / std::sqrt((double)spec_.d_model);
    for (size_t i = 0; i < t.size(); ++i) params_[t.offset + i] = (T)(sd * rng.normal());
  }
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] buffers
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::layout(int B, int n, int m) {
  if (B == B_ && n == n_ && m == m_ && !x_.empty()) return;
  B_ = B, n_ = n, m_ = m;
  const ModelSpec& s = spec_;
  const int D = s.d_model, H = s.heads, HK = H * s.d_k, HV = H * s.d_v, L = s.layers;
  const int src_rows = s.cross ? B * m : 0;
  const size_t cells = (size_t)B * H * n * m;
  mask_ = build_mask(s.mask, n, m);
  fully_.assign((size_t)n, 0);
  pos_table_.clear();
  if (s.positional == Positional::sinusoidal) {
    const int rows = std::max(n, s.cross ? m : 0);
    std::vector<float> table((size_t)rows * D, 0.0f);
    add_sinusoidal(table, rows, D);
    pos_table_.assign(table.begin(), table.end());
  }
  if (s.positional == Positional::rope) rope_ = rope_table(std::max(n, m), s.d_k);
  x_.assign((size_t)L + 1, std::vector<T>((size_t)B * n * D));
  xs_.assign((size_t)src_rows * D, T(0));
  act_.assign((size_t)L, LayerActs{});
  const int kv_rows = s.cross ? B * m : B * n;
  for (LayerActs& a : act_) {
    a.q.assign((size_t)B * n * HK, T(0));
    a.k.assign((size_t)kv_rows * HK, T(0));
    a.v.assign((size_t)kv_rows * HV, T(0));
    a.a.assign(cells, T(0));
    a.o.assign((size_t)B * n * HV, T(0));
    a.da.assign(cells, T(0));
    a.ds.assign(cells, T(0));
  }
  logits_.assign((size_t)B * n * s.vocab, T(0));
  dlogits_.assign((size_t)B * n * s.vocab, T(0));
  dx_.assign((size_t)B * n * D, T(0));
  dxs_.assign((size_t)src_rows * D, T(0));
  dq_.assign((size_t)B * n * HK, T(0));
  dk_.assign((size_t)kv_rows * HK, T(0));
  dv_.assign((size_t)kv_rows * HV, T(0));
  do_.assign((size_t)B * n * HV, T(0));
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] embedding
// ---------------------------------------------------------------------------------------------------
// X[r] = W_E[tokens[r]] + P[r mod n]       (P: learned rows, fixed sinusoid rows, or nothing;
//                                           RoPE adds nothing here, it rotates Q and K)
//   tokens:(rows) with rows = batch·n  ->  x:(rows, d_model)
template <class T>
void Model<T>::embed_forward(const int* tokens, int rows, int n, T* x) const {
  const int D = spec_.d_model;
  const T* w_e = param(Param::w_e);
  const T* pos = spec_.positional == Positional::learned ? param(Param::pos)
                 : spec_.positional == Positional::sinusoidal ? pos_table_.data()
                                                             : nullptr;
  for (int r = 0; r < rows; ++r) {
    const T* e = w_e + (size_t)tokens[r] * D;
    const T* p = pos ? pos + (size_t)(r % n) * D : nullptr;
    T* xr = x + (size_t)r * D;
    for (int c = 0; c < D; ++c) xr[c] = p ? e[c] + p[c] : e[c];
  }
}

// dW_E[tokens[r]] += dX[r]      dP[r mod n] += dX[r] (learned positions only)
template <class T>
void Model<T>::embed_backward(const int* tokens, int rows, int n, const T* dx) {
  const int D = spec_.d_model;
  T* dw_e = grad(Param::w_e);
  T* dpos = spec_.positional == Positional::learned ? grad(Param::pos) : nullptr;
  for (int r = 0; r < rows; ++r) {
    const T* g = dx + (size_t)r * D;
    T* de = dw_e + (size_t)tokens[r] * D;
    for (int c = 0; c < D; ++c) de[c] += g[c];
    if (dpos) {
      T* dp = dpos + (size_t)(r % n) * D;
      for (int c = 0; c < D; ++c) dp[c] += g[c];
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] forward
// ---------------------------------------------------------------------------------------------------
template <class T>
double Model<T>::forward(const Batch& batch) {
  const ModelSpec& s = spec_;
  const int B = batch.size, n = batch.n, m = s.cross ? batch.m : batch.n;
  layout(B, n, m);
  tokens_ = batch.tokens, targets_ = batch.targets, source_ = batch.source;
  const KernelSet& K = ks();
  const int D = s.d_model, H = s.heads, dk = s.d_k, dv = s.d_v, HK = H * dk, HV = H * dv, V = s.vocab;
  const T alpha = (T)s.alpha();
  const bool rope = s.positional == Positional::rope;

  // pass 1: embeddings (the source too, for cross-attention)
  embed_forward(tokens_.data(), B * n, n, x_[0].data());
  if (s.cross) embed_forward(source_.data(), B * m, m, xs_.data());

  // pass 2: the layers, each X_l+1 = X_l + concat_h(softmax(α·Q_h·K_hᵀ)·V_h)·W_O
  for (int l = 0; l < s.layers; ++l) {
    LayerActs& a = act_[(size_t)l];
    const T* x = x_[(size_t)l].data();
    const T* kv_in = s.cross ? xs_.data() : x;
    const int kv_rows = B * m;
    // Q = X·W_Q, K = Xkv·W_K, V = Xkv·W_V: all sequences and heads in one product each
    project_forward(K, x, B * n, D, param(Param::w_q, l), HK, a.q.data());
    project_forward(K, kv_in, kv_rows, D, param(Param::w_k, l), HK, a.k.data());
    project_forward(K, kv_in, kv_rows, D, param(Param::w_v, l), HV, a.v.data());
    for (int b = 0; b < B; ++b) {
      T* qb = a.q.data() + (size_t)b * n * HK;
      T* kb = a.k.data() + (size_t)b * m * HK;
      const T* vb = a.v.data() + (size_t)b * m * HV;
      for (int h = 0; h < H; ++h) {
        if (rope) {
          apply_rope(qb + h * dk, n, dk, HK, rope_);
          apply_rope(kb + h * dk, m, dk, HK, rope_);
        }
        T* w = a.a.data() + ((size_t)b * H + h) * n * m;
        scores_forward(K, qb + h * dk, HK, kb + h * dk, HK, n, m, dk, alpha, w, mask_.ranges.data());
        softmax_forward(K, w, mask_, w, fully_.data());
        mix_forward(K, w, vb + h * dv, HV, n, m, dv, a.o.data() + (size_t)b * n * HV + h * dv, HV, mask_.ranges.data());
      }
    }
    // residual: X_l+1 = X_l + concat·W_O
    std::vector<T>& next = x_[(size_t)l + 1];
    std::copy(x, x + (size_t)B * n * D, next.begin());
    output_forward(K, a.o.data(), B * n, HV, param(Param::w_o, l), D, next.data(), true);
  }

  // pass 3: logits = X_L·W_U (tied: X_L·W_Eᵀ)
  const T* xl = x_[(size_t)s.layers].data();
  if (s.tied)
    product(K, Product<T>{.M = B * n, .N = V, .K = D, .A = xl, .lda = D, .B = param(Param::w_e), .ldb = D,
                          .C = logits_.data(), .ldc = V, .b_transposed = true});
  else
    project_forward(K, xl, B * n, D, param(Param::w_u), V, logits_.data());

  // pass 4: loss = mean over targets of logsumexp(logits) − logits[target] (max subtracted for stability)
  double total = 0.0;
  count_ = 0;
  for (int r = 0; r < B * n; ++r) {
    if (targets_[(size_t)r] < 0) continue;
    const T* z = logits_.data() + (size_t)r * V;
    double mx = z[0];
    for (int c = 1; c < V; ++c) mx = std::max(mx, (double)z[c]);
    double sum = 0.0;
    for (int c = 0; c < V; ++c) sum += std::exp((double)z[c] - mx);
    total += mx + std::log(sum) - (double)z[targets_[(size_t)r]];
    ++count_;
  }
  return count_ ? total / count_ : 0.0;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] backward
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::backward_part(int total_targets, bool add) {
  const ModelSpec& s = spec_;
  const int B = B_, n = n_, m = m_;
  const KernelSet& K = ks();
  const int D = s.d_model, H = s.heads, dk = s.d_k, dv = s.d_v, HK = H * dk, HV = H * dv, V = s.vocab;
  const T alpha = (T)s.alpha();
  const bool rope = s.positional == Positional::rope;
  if (!add) std::fill(grads_.begin(), grads_.end(), T(0));  // every dW below is accumulated into grads_

  // cross-entropy + softmax:  dlogits = (softmax(logits) − onehot(target)) / total   on target rows, else 0
  for (int r = 0; r < B * n; ++r) {
    T* z = dlogits_.data() + (size_t)r * V;
    std::copy(logits_.data() + (size_t)r * V, logits_.data() + (size_t)(r + 1) * V, z);
    if (targets_[(size_t)r] < 0 || total_targets <= 0) {
      std::fill(z, z + V, T(0));
      continue;
    }
    T mx = z[0];
    for (int c = 1; c < V; ++c) mx = std::max(mx, z[c]);
    T sum = 0;
    for (int c = 0; c < V; ++c) sum += (z[c] = std::exp(z[c] - mx));
    const T inv = T(1) / (sum * (T)total_targets);
    for (int c = 0; c < V; ++c) z[c] *= inv;
    z[targets_[(size_t)r]] -= T(1) / (T)total_targets;
  }

  // unembedding:  dW_U = X_Lᵀ·dlogits,  dX_L = dlogits·W_Uᵀ     (tied: dW_E += dlogitsᵀ·X_L, dX_L = dlogits·W_E)
  const T* xl = x_[(size_t)s.layers].data();
  std::fill(dx_.begin(), dx_.end(), T(0));
  if (s.tied) {
    product(K, Product<T>{.M = V, .N = D, .K = B * n, .A = dlogits_.data(), .lda = V, .B = xl, .ldb = D,
                          .C = grad(Param::w_e), .ldc = D, .a_transposed = true, .accumulate = true});
    product(K, Product<T>{.M = B * n, .N = D, .K = V, .A = dlogits_.data(), .lda = V, .B = param(Param::w_e), .ldb = D,
                          .C = dx_.data(), .ldc = D});
  } else {
    project_backward(K, dlogits_.data(), xl, B * n, D, param(Param::w_u), V, grad(Param::w_u), dx_.data());
  }
  if (s.cross) std::fill(dxs_.begin(), dxs_.end(), T(0));

  // the layers, last to first. dx_ holds dX_l+1 on entry and dX_l on exit: the residual passes the
  // gradient through unchanged (dX_l = dX_l+1 + what flows back through Q, K and V).
  for (int l = s.layers - 1; l >= 0; --l) {
    LayerActs& a = act_[(size_t)l];
    const T* x = x_[(size_t)l].data();
    const T* kv_in = s.cross ? xs_.data() : x;
    // output projection: dW_O += concatᵀ·dY, dconcat = dY·W_Oᵀ
    output_backward(K, dx_.data(), a.o.data(), B * n, HV, param(Param::w_o, l), D, grad(Param::w_o, l), do_.data());
    for (int b = 0; b < B; ++b) {
      const T* qb = a.q.data() + (size_t)b * n * HK;
      const T* kb = a.k.data() + (size_t)b * m * HK;
      const T* vb = a.v.data() + (size_t)b * m * HV;
      for (int h = 0; h < H; ++h) {
        const size_t cell0 = ((size_t)b * H + h) * n * m;
        const T* w = a.a.data() + cell0;
        T* da = a.da.data() + cell0;
        T* ds = a.ds.data() + cell0;
        T* dqh = dq_.data() + (size_t)b * n * HK + h * dk;
        T* dkh = dk_.data() + (size_t)b * m * HK + h * dk;
        // mix: dA = dO·Vᵀ, dV = Aᵀ·dO
        // (the mask's ranges skip the cells it hides: their terms are zeros)
        mix_backward(K, do_.data() + (size_t)b * n * HV + h * dv, HV, w, vb + h * dv, HV, n, m, dv, da,
                     dv_.data() + (size_t)b * m * HV + h * dv, HV, &mask_);
        // softmax: dS = A ⊙ (dA − rowsum(dA ⊙ A))
        softmax_backward(da, w, n, m, ds, mask_.ranges.data());
        // scores: dQ = α·dS·K, dK = α·dSᵀ·Q   (with respect to the rotated Q and K)
        scores_backward(K, ds, qb + h * dk, HK, kb + h * dk, HK, n, m, dk, alpha, dqh, HK, dkh, HK, &mask_);
        // RoPE: back through the transposed rotation
        if (rope) {
          apply_rope(dqh, n, dk, HK, rope_, true);
          apply_rope(dkh, m, dk, HK, rope_, true);
        }
      }
    }
    // projections: dW += Xᵀ·dY, dX += dY·Wᵀ (K and V into the source stream for cross-attention)
    T* dkv = s.cross ? dxs_.data() : dx_.data();
    project_backward(K, dq_.data(), x, B * n, D, param(Param::w_q, l), HK, grad(Param::w_q, l), dx_.data());
    project_backward(K, dk_.data(), kv_in, B * m, D, param(Param::w_k, l), HK, grad(Param::w_k, l), dkv);
    project_backward(K, dv_.data(), kv_in, B * m, D, param(Param::w_v, l), HV, grad(Param::w_v, l), dkv);
  }

  // embeddings
  embed_backward(tokens_.data(), B * n, n, dx_.data());
  if (s.cross) embed_backward(source_.data(), B * m, m, dxs_.data());
}

template class Model<float>;
template class Model<double>;

}  // namespace attn::learn
