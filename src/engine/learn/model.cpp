// model.cpp — the attention-only transformer's forward and backward passes (see model.h); the
// recurrent models' passes are in recurrent.cpp, and Model dispatches on spec().model.
//
// [SECTION] spec and layout
// [SECTION] init
// [SECTION] buffers           laid out once per (batch, n, m), reused every step; one head's views
// [SECTION] embedding         forward / backward
// [SECTION] attention layer   forward / backward
// [SECTION] unembedding       forward / backward
// [SECTION] cross-entropy     forward / backward
// [SECTION] the whole model   forward: embedding -> L layers -> unembedding -> loss; backward in reverse
#include "learn/model.h"

#include <algorithm>
#include <cmath>

#include "prng.h"
#include "stages.h"

namespace attn::learn {

// ---------------------------------------------------------------------------------------------------
// [SECTION] spec and layout
// ---------------------------------------------------------------------------------------------------
namespace {
int pos_rows(const ModelSpec& s) { return std::max(s.n_ctx, s.cross ? s.n_src : 0); }

// out = the listed rows of x (cols wide), in order; and back: the listed rows of out from x's rows, the
// other rows of out 0 (scatter_rows), or x's rows added to the listed rows of out (add_rows).
template <class T>
void gather_rows(const T* x, int cols, const std::vector<int>& rows, std::vector<T>& out) {
  out.resize(rows.size() * (size_t)cols);
  for (size_t i = 0; i < rows.size(); ++i) std::copy_n(x + (size_t)rows[i] * cols, cols, out.data() + i * cols);
}
template <class T>
void scatter_rows(const T* x, int cols, const std::vector<int>& rows, std::vector<T>& out) {
  std::fill(out.begin(), out.end(), T(0));
  for (size_t i = 0; i < rows.size(); ++i) std::copy_n(x + i * cols, cols, out.data() + (size_t)rows[i] * cols);
}
template <class T>
void add_rows(const T* x, int cols, const std::vector<int>& rows, T* out) {
  for (size_t i = 0; i < rows.size(); ++i) {
    T* row = out + (size_t)rows[i] * cols;
    for (int c = 0; c < cols; ++c) row[c] += x[i * cols + c];
  }
}

// Rows of a table by id plus a table's rows by position, and back (kernels.h EmbedArgs):
//   y[r] = e[ids[r]] + p[r mod n] (no p: e[ids[r]])      ge[ids[r]] += dy[r], gp[r mod n] += dy[r]
// float goes to the kernels (vectors), double is the formula.
void embed_rows(const KernelSet& ks, const int* ids, int rows, int n, const float* e, const float* p, int cols, float* y) {
  ks.embed_rows({.rows = rows, .cols = cols, .n = n, .ids = ids, .e = e, .p = p, .y = y});
}
void embed_rows(const KernelSet&, const int* ids, int rows, int n, const double* e, const double* p, int cols, double* y) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double er = e[(size_t)ids[r] * cols + c];
      y[(size_t)r * cols + c] = p ? er + p[(size_t)(r % n) * cols + c] : er;
    }
}
void embed_rows_backward(const KernelSet& ks, const int* ids, int rows, int n, const float* dy, int cols, float* ge, float* gp) {
  ks.embed_rows_backward({.rows = rows, .cols = cols, .n = n, .ids = ids, .dy = dy, .ge = ge, .gp = gp});
}
void embed_rows_backward(const KernelSet&, const int* ids, int rows, int n, const double* dy, int cols, double* ge, double* gp) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double g = dy[(size_t)r * cols + c];
      ge[(size_t)ids[r] * cols + c] += g;
      if (gp) gp[(size_t)(r % n) * cols + c] += g;
    }
}
}  // namespace

const std::vector<ArchKind>& arch_kinds() {
  static const std::vector<ArchKind> table = {
      {Arch::attention, "attention", 0},
      {Arch::rnn, "rnn", 1},
      {Arch::lstm, "lstm", 4},
  };
  return table;
}
const ArchKind* find_arch(const std::string& name) {
  for (const ArchKind& k : arch_kinds())
    if (name == k.name) return &k;
  return nullptr;
}
const ArchKind& arch_kind(Arch a) { return arch_kinds()[(size_t)a]; }
std::string arch_names() {
  std::string s;
  for (const ArchKind& k : arch_kinds()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

std::string validate(const ModelSpec& s) {
  std::string e;
  if (s.recurrent()) {
    if (!(e = check_range("hidden", s.hidden, 1, ModelLimits::max_hidden)).empty()) return e;
    if (s.tied) return std::string("tied: a ") + arch_kind(s.model).name + " model has no tied unembedding (W_U is hidden x vocab)";
    if (s.cross) return std::string("model: a ") + arch_kind(s.model).name + " reads one sequence; cross-attention needs model attention";
  }
  if (!(e = check_range("layers", s.layers, 1, ModelLimits::max_layers)).empty()) return e;
  if (!(e = check_range("vocab", s.vocab, 2, ModelLimits::max_vocab)).empty()) return e;
  if (!(e = validate(static_cast<const AttentionSpec&>(s), kModelLimits)).empty()) return e;
  if (!(e = check_range("n", s.n_ctx, 1, ModelLimits::max_seq)).empty()) return e;
  if (s.cross && !(e = check_range("source_n", s.n_src, 1, ModelLimits::max_seq)).empty()) return e;
  // (The lab's engine takes RoPE with d_k 1, rotating nothing; a model refuses it: it would learn
  // without the positions it was asked for.)
  if (positional_kind(s.positional).rotates_qk && s.d_k < 2) return "d_k: RoPE rotates pairs, so d_k must be at least 2";
  return check_mask(s.mask, s.n_ctx, s.cross ? s.n_src : s.n_ctx);
}

const char* to_string(Param p) {
  static const char* const names[] = {"w_e", "pos", "w_q", "w_k", "w_v", "w_o", "w_u", "weight_ih", "weight_hh", "bias_ih", "bias_hh", "b_u"};
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
  if (s.recurrent()) {
    // PyTorch's names: weight_ih_l0, ... (torch.nn.RNN / torch.nn.LSTM's state_dict keys)
    const int GH = arch_kind(s.model).gates * s.hidden;
    const auto add_named = [&](Param kind, int layer, int rows, int cols) {
      t.push_back({kind, layer, rows, cols, offset, std::string(to_string(kind)) + "_l" + std::to_string(layer)});
      offset += (size_t)rows * cols;
    };
    add(Param::w_e, -1, s.vocab, D);
    for (int l = 0; l < s.layers; ++l) {
      add_named(Param::weight_ih, l, GH, l == 0 ? D : s.hidden);
      add_named(Param::weight_hh, l, GH, s.hidden);
      add_named(Param::bias_ih, l, 1, GH);
      add_named(Param::bias_hh, l, 1, GH);
    }
    add(Param::w_u, -1, s.hidden, s.vocab);
    add(Param::b_u, -1, 1, s.vocab);
    return t;
  }
  add(Param::w_e, -1, s.vocab, D);
  if (positional_kind(s.positional).trained) add(Param::pos, -1, pos_rows(s), D);
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
  // (not in layout(): they outlive a change of batch size, as a step's last part may be shorter)
  folds_.assign((size_t)spec.layers * 3, Fold{});
  fold_grads_.assign((size_t)spec.layers * 3, Fold{});
  if (const OutputFolding f = output_folding(); f != OutputFolding::none) {
    const size_t hv = (size_t)spec.heads * spec.d_v, hu = (size_t)spec.heads * spec.vocab;
    out_fold_.nw.assign(hv * spec.vocab, T(0));
    out_fold_.dn.assign(hv * spec.vocab, T(0));
    if (f == OutputFolding::values) {
      out_fold_.m.assign((size_t)spec.d_model * hu, T(0));
      out_fold_.dm.assign((size_t)spec.d_model * hu, T(0));
    }
  }
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
    if (spec_.recurrent()) {
      const float bound = (float)(1.0 / std::sqrt((double)spec_.hidden));
      for (size_t i = 0; i < t.size(); ++i) params_[t.offset + i] = t.kind == Param::w_e ? (T)rng.normal() : (T)rng.uniform_sym(bound);
      continue;
    }
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
  if (B == B_ && n == n_ && m == m_ && (!x_.empty() || !rec_.empty())) return;
  B_ = B, n_ = n, m_ = m;
  const ModelSpec& s = spec_;
  const int D = s.d_model, H = s.heads, HK = H * s.d_k, HV = H * s.d_v, L = s.layers;
  const int src_rows = s.cross ? B * m : 0;
  const size_t cells = (size_t)B * H * n * m;
  mask_ = build_mask(s.mask, n, m);
  mask_from_.assign((size_t)n + 1, MaskMatrix{});
  fully_.assign((size_t)n, 0);
  if (s.recurrent()) {
    x_.clear();
    logits_.assign((size_t)B * n * s.vocab, T(0));
    dlogits_.assign((size_t)B * n * s.vocab, T(0));
    probs_.assign((size_t)B * n * s.vocab, T(0));
    row_loss_.assign((size_t)B * n, T(0));
    dX_.assign((size_t)B * n * D, T(0));
    recurrent_layout();
    return;
  }
  // The positional encoding, as its registration says: a trained table (a parameter), a fixed one
  // (`add`, on zeros), or a rotation of Q and K.
  const PositionalKind& pk = positional_kind(s.positional);
  pos_table_.clear();
  if (pk.add && !pk.trained) {
    const int rows = std::max(n, s.cross ? m : 0);
    std::vector<float> table((size_t)rows * D, 0.0f);
    pk.add(table, rows, D, 0);
    pos_table_.assign(table.begin(), table.end());
  }
  if (pk.rotates_qk) rope_ = rope_table(std::max(n, m), s.d_k);
  x_.assign((size_t)L + 1, std::vector<T>((size_t)B * n * D));
  xs_.assign((size_t)src_rows * D, T(0));
  act_.assign((size_t)L, LayerActs{});
  const int kv_rows = s.cross ? B * m : B * n;
  for (LayerActs& a : act_) {
    a.q.assign((size_t)B * n * HK, T(0));
    a.k.assign((size_t)kv_rows * HK, T(0));
    a.v.assign((size_t)kv_rows * HV, T(0));
    a.weights.assign(cells, T(0));
    a.concat.assign((size_t)B * n * HV, T(0));
    a.dweights.assign(cells, T(0));
    a.dscores.assign(cells, T(0));
  }
  logits_.assign((size_t)B * n * s.vocab, T(0));
  dlogits_.assign((size_t)B * n * s.vocab, T(0));
  probs_.assign((size_t)B * n * s.vocab, T(0));
  row_loss_.assign((size_t)B * n, T(0));
  dX_.assign((size_t)B * n * D, T(0));
  dXsrc_.assign((size_t)src_rows * D, T(0));
  dQ_.assign((size_t)B * n * HK, T(0));
  dK_.assign((size_t)kv_rows * HK, T(0));
  dV_.assign((size_t)kv_rows * HV, T(0));
  dconcat_.assign((size_t)B * n * HV, T(0));
}

template <class T>
typename Model<T>::Head Model<T>::head(LayerActs& a, int b, int h) {
  const int n = n_, m = m_, d_k = spec_.d_k, d_v = spec_.d_v, HK = spec_.heads * d_k, HV = spec_.heads * d_v;
  const size_t cells = ((size_t)b * spec_.heads + h) * n * m;
  const size_t q_at = (size_t)b * n * HK + h * d_k, k_at = (size_t)b * m * HK + h * d_k;
  const size_t v_at = (size_t)b * m * HV + h * d_v, o_at = (size_t)b * n * HV + h * d_v;
  return {.Q = a.q.data() + q_at, .K = a.k.data() + k_at, .V = a.v.data() + v_at,
          .A = a.weights.data() + cells, .dA = a.dweights.data() + cells, .dS = a.dscores.data() + cells,
          .O = a.concat.data() + o_at,
          .dQ = dQ_.data() + q_at, .dK = dK_.data() + k_at, .dV = dV_.data() + v_at, .dO = dconcat_.data() + o_at};
}

template <class T>
const MaskMatrix& Model<T>::mask_from(int row0) {
  if (row0 <= 0) return mask_;
  MaskMatrix& tail = mask_from_[(size_t)row0];
  if (tail.m == 0) tail = mask_rows_from(mask_, row0);  // not built yet (layout() empties these with each new mask_)
  return tail;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] embedding
// ---------------------------------------------------------------------------------------------------
// X[r] = W_E[tokens[r]] + P[r mod n]       (P: learned rows, fixed sinusoid rows, or nothing;
//                                           RoPE adds nothing here, it rotates Q and K)
//   tokens:(rows) with rows = batch·n  ->  x:(rows, d_model)
template <class T>
const T* Model<T>::positions() const {
  if (positional_kind(spec_.positional).trained) return param(Param::pos);
  return pos_table_.empty() ? nullptr : pos_table_.data();
}

template <class T>
void Model<T>::embed_forward(const int* tokens, int rows, int n, T* x) const {
  embed_rows(ks(), tokens, rows, n, param(Param::w_e), positions(), spec_.d_model, x);
}

// dW_E[tokens[r]] += dX[r]      dP[r mod n] += dX[r] (learned positions only)
template <class T>
void Model<T>::embed_backward(const int* tokens, int rows, int n, const T* dx) {
  T* dpos = positional_kind(spec_.positional).trained ? grad(Param::pos) : nullptr;
  embed_rows_backward(ks(), tokens, rows, n, dx, spec_.d_model, grad(Param::w_e), dpos);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] folded projections: Y = X·W when X is an embedding, X[r] = W_E[tokens[r]] + P[r mod n]
//   Y[r] = (W_E·W)[tokens[r]] + (P·W)[r mod n]            W_E·W:(vocab, cols)  P·W:(n, cols)
//   dW += Xᵀ·dY = W_Eᵀ·G_E + Pᵀ·G_P       G_E[t] = Σ_{r: tokens[r] = t} dY[r]    G_P[i] = Σ_{r mod n = i} dY[r]
//   and what flows back through W into X (dY·Wᵀ) goes straight on to the embedding's parameters:
//   dW_E += G_E·Wᵀ      dP += G_P·Wᵀ (learned positions)
// The same sums regrouped: vocab + n rows go through each product instead of every row of the batch.
// ---------------------------------------------------------------------------------------------------
template <class T>
typename Model<T>::Input Model<T>::projection_input(int l, bool keys_values, bool forward) const {
  const bool source = keys_values && spec_.cross;
  Input in{.x = source ? xs_.data() : x_[(size_t)l].data(), .rows = B_ * (source ? m_ : n_), .tokens = nullptr,
           .n = source ? m_ : n_, .folded = false};
  // X_0 is an embedding unless a hook may have changed it (the source is never hooked)
  if (source || (l == 0 && !(forward && hook_))) {
    in.tokens = source ? source_.data() : tokens_.data();
    in.folded = in.rows > spec_.vocab + (positions() ? in.n : 0);  // fewer rows through the products
  }
  return in;
}

template <class T>
void Model<T>::input_project_forward(const Input& in, Param kind, int l, int cols, T* y) {
  const int V = spec_.vocab, D = spec_.d_model;
  const T* w = param(kind, l);
  if (!in.folded) return project_forward(ks(), in.x, in.rows, D, w, cols, y);
  const T* pos = positions();
  Fold& f = folds_[fold_slot(kind, l)];
  if (f.n != in.n) {  // not kept from an earlier part of this step (same weights): worked out
    f.e.resize((size_t)V * cols);
    f.p.resize((size_t)in.n * cols);
    project_forward(ks(), param(Param::w_e), V, D, w, cols, f.e.data());       // W_E·W
    if (pos) project_forward(ks(), pos, in.n, D, w, cols, f.p.data());         // P·W
    f.n = in.n;
  }
  embed_rows(ks(), in.tokens, in.rows, in.n, f.e.data(), pos ? f.p.data() : nullptr, cols, y);  // the rows, as an embedding's
}

// Unfolded: dW += Xᵀ·dY, dX += dY·Wᵀ. Folded: dW and the embedding's gradients as above; dX untouched.
// In a part with more to follow (backward_part's `more`), G_E and G_P only gather this part's rows: the
// products wait for the last part, which multiplies the whole batch's sums once.
template <class T>
void Model<T>::input_project_backward(const Input& in, const T* dy, Param kind, int l, int cols, T* dx) {
  const T* w = param(kind, l);
  if (!in.folded) return project_backward(ks(), dy, in.x, in.rows, spec_.d_model, w, cols, grad(kind, l), dx);
  // G_E and G_P: dY's rows summed by token and by position (on top of earlier parts' rows)
  const size_t slot = fold_slot(kind, l);
  Fold& g = fold_grads_[slot];
  if (g.pending && g.n != in.n) fold_products(slot);  // (no step changes n between parts)
  if (!g.pending) {
    g.e.assign((size_t)spec_.vocab * cols, T(0));
    g.p.assign((size_t)in.n * cols, T(0));
    g.n = in.n, g.pending = true;
  }
  embed_rows_backward(ks(), in.tokens, in.rows, in.n, dy, cols, g.e.data(), positions() ? g.p.data() : nullptr);
  if (!more_parts_) fold_products(slot);
}

// The folded products of one projection from its sums G_E, G_P (above), then nothing pending.
template <class T>
void Model<T>::fold_products(size_t slot) {
  static constexpr Param kinds[] = {Param::w_q, Param::w_k, Param::w_v};
  const Param kind = kinds[slot % 3];
  const int l = (int)(slot / 3), V = spec_.vocab, D = spec_.d_model;
  Fold& g = fold_grads_[slot];
  const int cols = (int)(g.e.size() / (size_t)V);
  const T* w = param(kind, l);
  T* dw = grad(kind, l);
  const auto add_products = [&](const T* table, const T* sums, int rows, T* dtable) {
    // dW += tableᵀ·sums      dtable += sums·Wᵀ
    product(ks(), Product<T>{.M = D, .N = cols, .K = rows, .A = table, .lda = D, .B = sums, .ldb = cols, .C = dw,
                             .ldc = cols, .a_transposed = true, .accumulate = true});
    if (dtable)
      product(ks(), Product<T>{.M = rows, .N = D, .K = cols, .A = sums, .lda = cols, .B = w, .ldb = cols, .C = dtable,
                               .ldc = D, .b_transposed = true, .accumulate = true});
  };
  add_products(param(Param::w_e), g.e.data(), V, grad(Param::w_e));
  if (const T* pos = positions())
    add_products(pos, g.p.data(), g.n, positional_kind(spec_.positional).trained ? grad(Param::pos) : nullptr);
  g.pending = false;
}

// The gradient at X_0: what the backward left in dX_ (the residual's share) plus, when X_0's
// projections were folded, their share dQ·W_Qᵀ (+ dK·W_Kᵀ + dV·W_Vᵀ in self-attention), from the first
// layer's dQ, dK, dV (the backward ends there, so they are still in dQ_, dK_, dV_).
template <class T>
const std::vector<T>& Model<T>::input_grads() const {
  if (!folded_x0_) return dX_;
  if (!dX0_ready_) {
    const ModelSpec& s = spec_;
    const int rows = B_ * n_, D = s.d_model, HK = s.heads * s.d_k, HV = s.heads * s.d_v;
    dX0_ = dX_;
    const auto add = [&](const std::vector<T>& dy, Param w, int cols) {
      product(ks(), Product<T>{.M = rows, .N = D, .K = cols, .A = dy.data(), .lda = cols, .B = param(w, 0), .ldb = cols,
                               .C = dX0_.data(), .ldc = D, .b_transposed = true, .accumulate = true});
    };
    add(dQ_, Param::w_q, HK);
    if (!s.cross) add(dK_, Param::w_k, HK), add(dV_, Param::w_v, HV);
    dX0_ready_ = true;
  }
  return dX0_;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] attention layer: X_l+1 = X_l + concat_h(A_h·V_h)·W_O
//   Q = X_l·W_Q  K = Xkv·W_K  V = Xkv·W_V    (Xkv: X_l, or the encoded source in cross-attention)
//   A_h = softmax(α·Q_h·K_hᵀ where the mask allows)    Q_h, K_h rotated by RoPE when it is on
//   X:(B·n, d_model)  Q:(B·n, H·d_k)  K:(B·m, H·d_k)  V:(B·m, H·d_v)  A_h:(n, m) per sequence and head
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::attention_layer_forward(int l) {
  const ModelSpec& s = spec_;
  const int B = B_, n = n_, m = m_, D = s.d_model, d_k = s.d_k, d_v = s.d_v, HK = s.heads * d_k, HV = s.heads * d_v;
  LayerActs& a = act_[(size_t)l];
  const T* x = x_[(size_t)l].data();
  // the last layer of a targets_only forward goes on with X_l's rows with a target only (passes 1 and 3)
  const bool live_rows = targets_only_ && l == s.layers - 1;
  if (live_rows) gather_rows(x, D, live_, live_x_);
  // pass 1: the projections, every sequence and head in one product each (folded for an embedding); in
  // the last layer of a targets_only forward, the queries of the rows with a target only (the others'
  // are 0: their outputs go nowhere, and their gradients are zeros)
  const Input q_in = projection_input(l, false, true), kv_in = projection_input(l, true, true);
  if (live_queries(l, q_in)) {
    live_q_.resize(live_.size() * (size_t)HK);
    project_forward(ks(), live_x_.data(), (int)live_.size(), D, param(Param::w_q, l), HK, live_q_.data());
    scatter_rows(live_q_.data(), HK, live_, a.q);
  } else {
    input_project_forward(q_in, Param::w_q, l, HK, a.q.data());
  }
  input_project_forward(kv_in, Param::w_k, l, HK, a.k.data());
  // (the folded output, [SECTION] folded output; its values folded: Y = X_l·M in place of V)
  const OutputFolding fold = l == s.layers - 1 ? out_fold_.kind : OutputFolding::none;
  const bool folded_values = fold == OutputFolding::values;
  const int V = s.vocab, HU = s.heads * V;
  if (fold != OutputFolding::none && !out_fold_.ready) output_fold_tables();
  if (folded_values) {
    project_forward(ks(), x, B * n, D, out_fold_.m.data(), HU, out_fold_.y.data());
  } else {
    input_project_forward(kv_in, Param::w_v, l, HV, a.v.data());
  }
  // pass 2: per sequence and head, A_h (scores and softmax fused) and O_h = A_h·V_h into concat
  // (folded: Z_h = A_h·Y_h); in the last layer of a targets_only forward, from the sequence's first
  // row with a target on (rows r0…n−1, their own mask)
  for (int b = 0; b < B; ++b) {
    const int r0 = live_rows ? first_live_[(size_t)b] : 0, rows = n - r0;
    const MaskMatrix& mask = mask_from(r0);
    for (int h = 0; h < s.heads; ++h) {
      const Head hd = head(a, b, h);
      if (positional_kind(s.positional).rotates_qk) {
        apply_rope(hd.Q, n, d_k, HK, rope_);
        apply_rope(hd.K, m, d_k, HK, rope_);
      }
      T* A = hd.A + (size_t)r0 * m;
      attention_weights_forward(ks(), hd.Q + (size_t)r0 * HK, HK, hd.K, HK, rows, m, d_k, (T)s.alpha(), mask, A,
                                fully_.data() + r0);
      if (folded_values) {
        const size_t at = (size_t)b * n * HU + (size_t)h * V;
        mix_forward(ks(), A, out_fold_.y.data() + at, HU, rows, m, V, out_fold_.z.data() + at + (size_t)r0 * HU, HU,
                    mask.ranges.data());
      } else {
        mix_forward(ks(), A, hd.V, HV, rows, m, d_v, hd.O + (size_t)r0 * HV, HV, mask.ranges.data());
      }
    }
  }
  if (fold != OutputFolding::none) return folded_logits();
  if (hook_) hook_->head_outputs(l, B, n, a.concat.data());
  // pass 3: the residual, X_l+1 = X_l + concat·W_O (X_l read as the product's C_in: not copied first);
  // in the last layer of a targets_only forward, for the rows with a target only (into X_L's first rows)
  std::vector<T>& next = x_[(size_t)l + 1];
  if (live_rows) {
    const int R = (int)live_.size();
    gather_rows(a.concat.data(), HV, live_, live_concat_);
    output_forward(ks(), live_concat_.data(), R, HV, param(Param::w_o, l), D, next.data(), true, live_x_.data());
  } else {
    output_forward(ks(), a.concat.data(), B * n, HV, param(Param::w_o, l), D, next.data(), true, x);
  }
  if (hook_) hook_->stream(l + 1, B, n, next.data());
}

// dX_ holds dX_l+1 on entry and dX_l on exit: the residual passes it through unchanged, and what flows
// back through Q (and, in self-attention, K and V) is added to it; in cross-attention K and V send theirs
// to the source stream, dXsrc_.
//   dW_O += concatᵀ·dY   dconcat = dY·W_Oᵀ
//   dA_h = dO_h·V_hᵀ     dV_h = A_hᵀ·dO_h
//   dS_h = A_h ⊙ (dA_h − rowsum(dA_h ⊙ A_h))
//   dQ_h = α·dS_h·K_h    dK_h = α·dS_hᵀ·Q_h      (then back through RoPE's rotation, transposed)
//   dW += Xᵀ·dY          dX += dY·Wᵀ             for each of Q, K, V
template <class T>
void Model<T>::attention_layer_backward(int l) {
  const ModelSpec& s = spec_;
  const int B = B_, n = n_, m = m_, D = s.d_model, d_k = s.d_k, d_v = s.d_v, HK = s.heads * d_k, HV = s.heads * d_v;
  LayerActs& a = act_[(size_t)l];
  // pass 1: back through the output projection and the residual (dX_ keeps dX_l+1 as is); in the last
  // layer of a targets_only forward, from the rows with a target (the others' dconcat is 0); folded:
  // dZ_h = dlogits for every head, on every row (0 without a target)
  const OutputFolding fold = l == s.layers - 1 ? out_fold_.kind : OutputFolding::none;
  const bool folded_values = fold == OutputFolding::values;
  const int V = s.vocab, HU = s.heads * V;
  if (fold != OutputFolding::none) begin_output_fold_sums();
  if (folded_values) {
    scatter_rows(dlogits_.data(), V, live_, out_fold_.dz);
  } else if (fold == OutputFolding::output) {  // dN += concatᵀ·dlogits, dconcat = dlogits·Nᵀ (rows with a target)
    const int R = (int)live_.size();
    product(ks(), Product<T>{.M = HV, .N = V, .K = R, .A = live_concat_.data(), .lda = HV, .B = dlogits_.data(), .ldb = V,
                             .C = out_fold_.dn.data(), .ldc = V, .a_transposed = true, .accumulate = true});
    live_dconcat_.resize((size_t)R * HV);
    product(ks(), Product<T>{.M = R, .N = HV, .K = V, .A = dlogits_.data(), .lda = V, .B = out_fold_.nw.data(), .ldb = V,
                             .C = live_dconcat_.data(), .ldc = HV, .b_transposed = true});
    scatter_rows(live_dconcat_.data(), HV, live_, dconcat_);
  } else if (targets_only_ && l == s.layers - 1) {
    const int R = (int)live_.size();
    live_dconcat_.resize((size_t)R * HV);
    output_backward(ks(), live_dx_.data(), live_concat_.data(), R, HV, param(Param::w_o, l), D, grad(Param::w_o, l),
                    live_dconcat_.data());
    scatter_rows(live_dconcat_.data(), HV, live_, dconcat_);
  } else {
    output_backward(ks(), dX_.data(), a.concat.data(), B * n, HV, param(Param::w_o, l), D, grad(Param::w_o, l), dconcat_.data());
  }
  // pass 2: per sequence and head, back through O_h = A_h·V_h, the softmax, the scores and RoPE; in
  // the last layer of a targets_only forward, from the sequence's first row with a target on, as forward
  const bool live_rows = targets_only_ && l == s.layers - 1;
  for (int b = 0; b < B; ++b) {
    const int r0 = live_rows ? first_live_[(size_t)b] : 0, rows = n - r0;
    const MaskMatrix& mask = mask_from(r0);
    for (int h = 0; h < s.heads; ++h) {
      const Head hd = head(a, b, h);
      const T* A = hd.A + (size_t)r0 * m;
      T *dA = hd.dA + (size_t)r0 * m, *dS = hd.dS + (size_t)r0 * m;
      // (the mask's ranges skip the cells it hides: their terms are zeros)
      if (folded_values) {  // dA_h = dZ_h·Y_hᵀ, dY_h = A_hᵀ·dZ_h
        const size_t at = (size_t)b * n * HU + (size_t)h * V;
        const T* dz = out_fold_.dz.data() + ((size_t)b * n + r0) * V;
        weights_backward(ks(), dz, V, A, out_fold_.y.data() + at, HU, rows, m, V, mask, dA, dS);
        mix_backward(ks(), dz, V, A, rows, m, V, out_fold_.dy.data() + at, HU, &mask);
      } else {
        const T* dO = hd.dO + (size_t)r0 * HV;
        weights_backward(ks(), dO, HV, A, hd.V, HV, rows, m, d_v, mask, dA, dS);
        mix_backward(ks(), dO, HV, A, rows, m, d_v, hd.dV, HV, &mask);
      }
      scores_backward(ks(), dS, hd.Q + (size_t)r0 * HK, HK, hd.K, HK, rows, m, d_k, (T)s.alpha(), hd.dQ + (size_t)r0 * HK,
                      HK, hd.dK, HK, &mask);
      for (int i = 0; i < r0; ++i) std::fill_n(hd.dQ + (size_t)i * HK, d_k, T(0));  // (no target: no gradient)
      if (positional_kind(s.positional).rotates_qk) {
        apply_rope(hd.dQ, n, d_k, HK, rope_, true);
        apply_rope(hd.dK, m, d_k, HK, rope_, true);
      }
    }
  }
  // pass 3: back through the projections, every sequence and head in one product each (folded for an
  // embedding: then the gradient through them goes to W_E and P directly, not into dX)
  const Input q_in = projection_input(l, false, false), kv_in = projection_input(l, true, false);
  T* dX_kv = s.cross ? dXsrc_.data() : dX_.data();
  if (live_queries(l, q_in)) {  // only the rows with a target have a query gradient
    const int R = (int)live_.size();
    gather_rows(dQ_.data(), HK, live_, live_q_);
    live_dxq_.assign((size_t)R * D, T(0));
    project_backward(ks(), live_q_.data(), live_x_.data(), R, D, param(Param::w_q, l), HK, grad(Param::w_q, l), live_dxq_.data());
    add_rows(live_dxq_.data(), D, live_, dX_.data());
  } else {
    input_project_backward(q_in, dQ_.data(), Param::w_q, l, HK, dX_.data());
  }
  input_project_backward(kv_in, dK_.data(), Param::w_k, l, HK, dX_kv);
  if (folded_values)  // dM += X_lᵀ·dY, dX += dY·Mᵀ
    project_backward(ks(), out_fold_.dy.data(), x_[(size_t)l].data(), B * n, D, out_fold_.m.data(), HU,
                     out_fold_.dm.data(), dX_.data());
  else
    input_project_backward(kv_in, dV_.data(), Param::w_v, l, HV, dX_kv);
  // (the folded output's products into dW_V, dW_O, dW_U once the step's parts are in)
  if (fold != OutputFolding::none && !more_parts_) output_fold_products();
  if (l == 0) folded_x0_ = q_in.folded;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] unembedding: logits = X_L·W_U   (tied: X_L·W_Eᵀ)      X_L:(B·n, d_model) -> logits:(B·n, vocab)
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::unembed_forward() {
  const ModelSpec& s = spec_;
  const int rows = output_rows(), D = s.d_model, V = s.vocab;
  const T* xl = x_[(size_t)s.layers].data();
  if (s.tied)
    product(ks(), Product<T>{.M = rows, .N = V, .K = D, .A = xl, .lda = D, .B = param(Param::w_e), .ldb = D,
                             .C = logits_.data(), .ldc = V, .b_transposed = true});
  else
    project_forward(ks(), xl, rows, D, param(Param::w_u), V, logits_.data());
}

// dW_U = X_Lᵀ·dlogits   dX_L = dlogits·W_Uᵀ        (tied: dW_E += dlogitsᵀ·X_L, dX_L = dlogits·W_E)
// Writes dX_ (the gradient entering the last layer); after a targets_only forward, live_dx_ too (its
// rows with a target, which are dX_'s only non-zero rows).
template <class T>
void Model<T>::unembed_backward() {
  const ModelSpec& s = spec_;
  const int rows = output_rows(), D = s.d_model, V = s.vocab;
  // (folded output: the residual's share, from X_L−1's rows with a target; the heads' share comes back
  // through the folded products)
  const T* xl = out_fold_.kind != OutputFolding::none ? live_x_.data() : x_[(size_t)s.layers].data();
  std::vector<T>& dx = targets_only_ ? live_dx_ : dX_;
  dx.assign((size_t)rows * D, T(0));
  if (s.tied) {
    product(ks(), Product<T>{.M = V, .N = D, .K = rows, .A = dlogits_.data(), .lda = V, .B = xl, .ldb = D,
                             .C = grad(Param::w_e), .ldc = D, .a_transposed = true, .accumulate = true});
    product(ks(), Product<T>{.M = rows, .N = D, .K = V, .A = dlogits_.data(), .lda = V, .B = param(Param::w_e), .ldb = D,
                             .C = dx.data(), .ldc = D});
  } else {
    project_backward(ks(), dlogits_.data(), xl, rows, D, param(Param::w_u), V, grad(Param::w_u), dx.data());
  }
  if (targets_only_) scatter_rows(live_dx_.data(), D, live_, dX_);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] folded output: when only the logits leave the last layer (a targets_only forward), its
// output projection and the unembedding fold into one product, and where d_v ≥ vocab its values too:
//   logits = X_L·W_U = X·W_U + concat·W_O·W_U = X·W_U + concat·N          N = W_O·W_U  (H·d_v, vocab)
//          = X·W_U + Σ_h A_h·(X·W_V,h)·N_h = X·W_U + Σ_h A_h·Y_h        Y_h = X·M_h, M_h = W_V,h·N_h
//   X = X_L−1 (B·n, d_model), N_h: N's rows of head h, M_h (d_model, vocab); the rows with a target only.
// Back, with G = dlogits:
//   output: dN += concatᵀ·G    dconcat = G·Nᵀ                                   (attention_layer_backward)
//   values: dZ_h = G   dA_h = G·Y_hᵀ   dY_h = A_hᵀ·G   dM += Xᵀ·dY   dX += dY·Mᵀ     (attention_layer_backward)
//           dW_V,h += dM_h·N_hᵀ   dN_h = W_V,hᵀ·dM_h                               (output_fold_products)
//   both:   dW_O += dN·W_Uᵀ   dW_U += W_Oᵀ·dN (and X·W_U's own, unembed_backward)  (output_fold_products)
// A row with a target then costs H·d_v·vocab multiply-adds instead of H·d_v·d_model + d_model·vocab
// for concat·W_O·W_U, fewer when the vocabulary is small; folding the values too costs vocab columns
// instead of d_v per head in Y and in A·Y, fewer when d_v ≥ vocab. The same sums regrouped: the
// numbers change by float rounding. N and M are worked out once per step (same_weights), and dN or dM
// gather a step's parts for one set of products at its last part, like the folded projections.
// One-layer models are left as they are (their values are folded through the embedding already).
// ---------------------------------------------------------------------------------------------------
template <class T>
OutputFolding Model<T>::output_folding() const {
  const ModelSpec& s = spec_;
  if (s.recurrent() || s.layers < 2 || s.cross || s.tied) return OutputFolding::none;
  if (s.d_v >= s.vocab) return OutputFolding::values;
  // (a margin: with vocab just under d_model the saving is small, and the numbers would change for it)
  return 2 * s.vocab <= s.d_model ? OutputFolding::output : OutputFolding::none;
}

template <class T>
void Model<T>::output_fold_tables() {
  const ModelSpec& s = spec_;
  const int D = s.d_model, V = s.vocab, d_v = s.d_v, HV = s.heads * d_v, HU = s.heads * V;
  const T* w_v = param(Param::w_v, s.layers - 1);
  project_forward(ks(), param(Param::w_o, s.layers - 1), HV, D, param(Param::w_u), V, out_fold_.nw.data());  // N = W_O·W_U
  if (out_fold_.kind == OutputFolding::values)
    for (int h = 0; h < s.heads; ++h)  // M_h = W_V,h·N_h
      product(ks(), Product<T>{.M = D, .N = V, .K = d_v, .A = w_v + (size_t)h * d_v, .lda = HV,
                               .B = out_fold_.nw.data() + (size_t)h * d_v * V, .ldb = V,
                               .C = out_fold_.m.data() + (size_t)h * V, .ldc = HU});
  out_fold_.ready = true;
}

template <class T>
void Model<T>::folded_logits() {
  const ModelSpec& s = spec_;
  const int R = (int)live_.size(), D = s.d_model, V = s.vocab, HV = s.heads * s.d_v, HU = s.heads * V;
  project_forward(ks(), live_x_.data(), R, D, param(Param::w_u), V, logits_.data());  // X·W_U
  if (out_fold_.kind == OutputFolding::output) {  // + concat·N
    gather_rows(act_[(size_t)s.layers - 1].concat.data(), HV, live_, live_concat_);
    product(ks(), Product<T>{.M = R, .N = V, .K = HV, .A = live_concat_.data(), .lda = HV, .B = out_fold_.nw.data(),
                             .ldb = V, .C = logits_.data(), .ldc = V, .accumulate = true});
    return;
  }
  for (int i = 0; i < R; ++i) {  // + Σ_h Z_h, the heads in order
    T* z = logits_.data() + (size_t)i * V;
    const T* zr = out_fold_.z.data() + (size_t)live_[(size_t)i] * HU;
    for (int h = 0; h < s.heads; ++h)
      for (int c = 0; c < V; ++c) z[c] += zr[(size_t)h * V + c];
  }
}

// The first part of a step starts the sums dN or dM at zero; later parts add to them.
template <class T>
void Model<T>::begin_output_fold_sums() {
  if (out_fold_.pending == out_fold_.kind) return;
  if (out_fold_.pending != OutputFolding::none) output_fold_products();  // (a part folded another way)
  std::vector<T>& sums = out_fold_.kind == OutputFolding::values ? out_fold_.dm : out_fold_.dn;
  std::fill(sums.begin(), sums.end(), T(0));
  out_fold_.pending = out_fold_.kind;
}

template <class T>
void Model<T>::output_fold_products() {
  const ModelSpec& s = spec_;
  const int L = s.layers - 1, D = s.d_model, V = s.vocab, d_v = s.d_v, HV = s.heads * d_v, HU = s.heads * V;
  const T* w_v = param(Param::w_v, L);
  if (out_fold_.pending == OutputFolding::values)  // dN from the sums dM
    for (int h = 0; h < s.heads; ++h) {
      const T* dm = out_fold_.dm.data() + (size_t)h * V;
      const size_t n_at = (size_t)h * d_v * V;
      // dW_V,h += dM_h·N_hᵀ
      product(ks(), Product<T>{.M = D, .N = d_v, .K = V, .A = dm, .lda = HU, .B = out_fold_.nw.data() + n_at, .ldb = V,
                               .C = grad(Param::w_v, L) + (size_t)h * d_v, .ldc = HV, .b_transposed = true,
                               .accumulate = true});
      // dN_h = W_V,hᵀ·dM_h
      product(ks(), Product<T>{.M = d_v, .N = V, .K = D, .A = w_v + (size_t)h * d_v, .lda = HV, .B = dm, .ldb = HU,
                               .C = out_fold_.dn.data() + n_at, .ldc = V, .a_transposed = true});
    }
  // dW_O += dN·W_Uᵀ      dW_U += W_Oᵀ·dN
  product(ks(), Product<T>{.M = HV, .N = D, .K = V, .A = out_fold_.dn.data(), .lda = V, .B = param(Param::w_u), .ldb = V,
                           .C = grad(Param::w_o, L), .ldc = D, .b_transposed = true, .accumulate = true});
  product(ks(), Product<T>{.M = D, .N = V, .K = HV, .A = param(Param::w_o, L), .lda = D, .B = out_fold_.dn.data(),
                           .ldb = V, .C = grad(Param::w_u), .ldc = V, .a_transposed = true, .accumulate = true});
  out_fold_.pending = OutputFolding::none;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] cross-entropy: loss = mean over target cells of logsumexp(z) − z[target]
//   z: one row of logits (vocab); rows without a target (−1) count for nothing. 0 if none has one.
// The forward keeps each row's softmax(z) (probs_), which is most of the backward.
// ---------------------------------------------------------------------------------------------------
namespace {
// p[r] = softmax(z[r]), loss[r] = logsumexp(z[r]) − z[r][target[r]] (both 0 without a target); z, p:(rows, cols).
// float goes to the kernels (SIMD exp), double is the formula.
void crossentropy_rows(const KernelSet& ks, const float* z, const int* targets, int rows, int cols, float* p, float* loss) {
  ks.crossentropy_rows({.rows = rows, .cols = cols, .z = z, .targets = targets, .p = p, .loss = loss});
}
void crossentropy_rows(const KernelSet&, const double* z, const int* targets, int rows, int cols, double* p, double* loss) {
  for (int r = 0; r < rows; ++r) {
    const double* zr = z + (size_t)r * cols;
    double* pr = p + (size_t)r * cols;
    if (targets[r] < 0) {
      std::fill(pr, pr + cols, 0.0);
      loss[r] = 0.0;
      continue;
    }
    const double mx = *std::max_element(zr, zr + cols);  // subtracted only for numerical stability
    double sum = 0.0;
    for (int c = 0; c < cols; ++c) sum += (pr[c] = std::exp(zr[c] - mx));
    for (int c = 0; c < cols; ++c) pr[c] /= sum;
    loss[r] = std::log(sum) - (zr[targets[r]] - mx);
  }
}
}  // namespace

template <class T>
double Model<T>::crossentropy_forward() {
  const int rows = output_rows();
  const int* targets = output_targets();
  crossentropy_rows(ks(), logits_.data(), targets, rows, spec_.vocab, probs_.data(), row_loss_.data());
  double total = 0.0;  // summed in double over the rows
  count_ = 0;
  for (int r = 0; r < rows; ++r)
    if (targets[r] >= 0) total += row_loss_[(size_t)r], ++count_;
  return count_ ? total / count_ : 0.0;
}

// dz = (softmax(z) − onehot(target)) / total_targets on rows with a target, 0 elsewhere (and everywhere
// when total_targets is 0: a batch with nothing to predict has zero gradients). Writes dlogits_.
// The target's own entry, p_t − 1, is written −Σ_{c≠t} p_c: the same number, without the cancellation
// that leaves p_t − 1 with float's absolute error (~6e-8) once the model is confident (1 − p_t ~ 1e-5).
template <class T>
void Model<T>::crossentropy_backward(int total_targets) {
  const int V = spec_.vocab;
  const int* targets = output_targets();
  const T inv = total_targets > 0 ? T(1) / (T)total_targets : T(0);
  for (int r = 0; r < output_rows(); ++r) {
    T* dz = dlogits_.data() + (size_t)r * V;
    const T* p = probs_.data() + (size_t)r * V;
    const int target = targets[r];
    if (target < 0 || total_targets <= 0) {
      std::fill(dz, dz + V, T(0));
      continue;
    }
    T rest = 0;  // Σ_{c≠t} p_c = 1 − p_t
    for (int c = 0; c < V; ++c) {
      dz[c] = p[c] * inv;
      if (c != target) rest += p[c];
    }
    dz[target] = -rest * inv;
  }
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] the whole model: embedding -> L attention layers -> unembedding -> cross-entropy, and back
// ---------------------------------------------------------------------------------------------------
// Positions after the batch's last target: in a self-attention model whose mask hides them from every
// earlier query, nothing they compute reaches a target's logits and their gradients are zeros, so a
// training step leaves them out (model.h). The numbers are the same: the rows left out of each
// product's sums add exact zeros there. The mask on the kept positions must be the corner of the whole
// mask (a term that does not apply to fewer positions, such as a padding key past them, changes it).
template <class T>
int Model<T>::kept_positions(const Batch& b) const {
  const ModelSpec& s = spec_;
  if (s.recurrent() || s.cross) return b.n;
  int last = -1;
  for (int r = 0; r < b.size * b.n; ++r)
    if (b.targets[(size_t)r] >= 0) last = std::max(last, r % b.n);
  const int keep = last + 1;
  if (keep <= 0 || keep >= b.n) return b.n;
  if (trim_.n != b.n || trim_.keep != keep) {
    const MaskMatrix whole = build_mask(s.mask, b.n, b.n), corner = build_mask(s.mask, keep, keep);
    bool same = true;
    for (int i = 0; i < keep && same; ++i)
      for (int j = 0; j < b.n && same; ++j) same = whole.allows(i, j) == (j < keep && corner.allows(i, j));
    trim_ = {b.n, keep, same};
  }
  return trim_.same ? keep : b.n;
}

template <class T>
double Model<T>::forward(const Batch& batch, bool targets_only, bool same_weights) {
  const ModelSpec& s = spec_;
  const int B = batch.size, n = batch.n, m = s.cross ? batch.m : batch.n;
  layout(B, n, m);
  if (!same_weights)
    for (Fold& f : folds_) f.n = -1;
  tokens_ = batch.tokens, targets_ = batch.targets, source_ = batch.source;
  targets_only_ = targets_only && !hook_ && !s.recurrent();
  out_fold_.kind = targets_only_ ? output_folding() : OutputFolding::none;
  if (!same_weights) out_fold_.ready = false;
  if (out_fold_.kind == OutputFolding::values) {  // (its buffers only where it runs: not an evaluation's model)
    const size_t rows = (size_t)B * n, HU = (size_t)s.heads * s.vocab;
    out_fold_.y.resize(rows * HU), out_fold_.z.resize(rows * HU), out_fold_.dy.resize(rows * HU);
    out_fold_.dz.resize(rows * s.vocab);
  }
  live_.clear(), live_targets_.clear();
  first_live_.assign((size_t)B, n);
  if (targets_only_)
    for (int r = 0; r < B * n; ++r)
      if (targets_[(size_t)r] >= 0) {
        live_.push_back(r), live_targets_.push_back(targets_[(size_t)r]);
        first_live_[(size_t)(r / n)] = std::min(first_live_[(size_t)(r / n)], r % n);
      }
  if (s.recurrent()) {
    recurrent_forward();
    return crossentropy_forward();
  }
  embed_forward(tokens_.data(), B * n, n, x_[0].data());
  if (hook_) hook_->stream(0, B, n, x_[0].data());
  if (s.cross) embed_forward(source_.data(), B * m, m, xs_.data());
  for (int l = 0; l < s.layers; ++l) attention_layer_forward(l);
  if (out_fold_.kind == OutputFolding::none) unembed_forward();  // (folded: the last layer wrote the logits)
  return crossentropy_forward();
}

template <class T>
void Model<T>::backward_part(int total_targets, bool add, bool more) {
  if (!add) {
    std::fill(grads_.begin(), grads_.end(), T(0));  // every dW below is accumulated into grads_
    for (Fold& g : fold_grads_) g.pending = false;
    out_fold_.pending = OutputFolding::none;
  }
  more_parts_ = more;
  crossentropy_backward(total_targets);
  backward_from_dlogits();
}

template <class T>
void Model<T>::backward_logits(const std::vector<T>& dlogits) {
  std::fill(grads_.begin(), grads_.end(), T(0));
  for (Fold& g : fold_grads_) g.pending = false;
  out_fold_.pending = OutputFolding::none;
  more_parts_ = false;
  std::copy(dlogits.begin(), dlogits.begin() + (long)std::min(dlogits.size(), dlogits_.size()), dlogits_.begin());
  backward_from_dlogits();
}

template <class T>
void Model<T>::backward_from_dlogits() {
  const ModelSpec& s = spec_;
  folded_x0_ = dX0_ready_ = false;
  if (s.recurrent()) {
    recurrent_backward();
    return;
  }
  unembed_backward();
  if (s.cross) std::fill(dXsrc_.begin(), dXsrc_.end(), T(0));
  for (int l = s.layers - 1; l >= 0; --l) attention_layer_backward(l);
  if (!more_parts_)  // sums of earlier parts whose products are still due (this part was not folded)
    for (size_t slot = 0; slot < fold_grads_.size(); ++slot)
      if (fold_grads_[slot].pending) fold_products(slot);
  if (!more_parts_ && out_fold_.pending != OutputFolding::none) output_fold_products();
  embed_backward(tokens_.data(), B_ * n_, n_, dX_.data());
  if (s.cross) embed_backward(source_.data(), B_ * m_, m_, dXsrc_.data());
}

template class Model<float>;
template class Model<double>;

}  // namespace attn::learn
