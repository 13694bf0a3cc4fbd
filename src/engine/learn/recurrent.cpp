// recurrent.cpp — the recurrent models' forward and backward passes (model.h): an Elman tanh RNN and
// an LSTM, with backpropagation through time. Model<T> calls them when spec().model is rnn or lstm.
//
// Every buffer here is time-major: row t·B + b is position t of sequence b, so the B rows of one time
// step are contiguous and each step's recurrent product is one (B × hidden) · (hidden × G·hidden) GEMM.
// The input projections of every step do not depend on each other and run as one product per layer
// before the loop; only the h_t−1 → h_t products are sequential (n of them per layer: the recurrence).
//
// [SECTION] buffers
// [SECTION] embedding and unembedding
// [SECTION] Elman RNN layer     forward / backward
// [SECTION] LSTM layer          forward / backward
// [SECTION] the whole model     embedding -> L recurrent layers -> unembedding; backward in reverse
#include <algorithm>
#include <cmath>

#include "learn/model.h"
#include "stages.h"

namespace attn::learn {

// ---------------------------------------------------------------------------------------------------
// [SECTION] buffers
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::recurrent_layout() {
  const ModelSpec& s = spec_;
  const int B = B_, n = n_, H = s.hidden, GH = arch_kind(s.model).gates * H;
  const size_t rows = (size_t)n * B;
  rec_.assign((size_t)s.layers, RecurrentActs{});
  for (RecurrentActs& r : rec_) {
    r.h.assign((rows + B) * H, T(0));
    if (s.model == Arch::lstm) r.c.assign((rows + B) * H, T(0)), r.tanh_c.assign(rows * H, T(0));
    r.gates.assign(rows * GH, T(0));
  }
  tokens_tm_.assign(rows, 0);
  x_tm_.assign(rows * s.d_model, T(0));
  dx_tm_.assign(rows * s.d_model, T(0));
  logits_tm_.assign(rows * s.vocab, T(0));
  dlogits_tm_.assign(rows * s.vocab, T(0));
  dgates_.assign(rows * GH, T(0));
  dh_above_.assign(rows * H, T(0));
  dh_below_.assign(rows * H, T(0));
  dh_carry_.assign((size_t)B * H, T(0));
  dc_carry_.assign((size_t)B * H, T(0));
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] embedding and unembedding (time-major)
//   x[t·B + b] = W_E[tokens[b·n + t]]                  x:(n·B, d_model)
//   logits[t·B + b] = h_t[b]·W_U + b_U                 h:(n·B, hidden) -> logits:(n·B, vocab)
// ---------------------------------------------------------------------------------------------------
namespace {
// dst[t·B + b] = src[b·n + t] for rows of `width` values (and back with `to_batch_major`)
template <class T>
void transpose_rows(const T* src, T* dst, int B, int n, int width, bool to_batch_major) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < n; ++t) {
      const size_t bm = ((size_t)b * n + t) * width, tm = ((size_t)t * B + b) * width;
      const T* from = src + (to_batch_major ? tm : bm);
      std::copy(from, from + width, dst + (to_batch_major ? bm : tm));
    }
}
}  // namespace

// ---------------------------------------------------------------------------------------------------
// [SECTION] Elman RNN layer: h_t = tanh(W_ih·x_t + b_ih + W_hh·h_t−1 + b_hh),  h_−1 = 0
//   x:(n·B, in)  W_ih:(hidden, in)  W_hh:(hidden, hidden)  a = gates:(n·B, hidden)  h:((n+1)·B, hidden)
// ---------------------------------------------------------------------------------------------------
namespace {
// pass 1 of both cells: a = x·W_ihᵀ + b_ih + b_hh for every step at once   x:(rows, in) -> a:(rows, GH)
template <class T>
void input_projection(const KernelSet& ks, const T* x, int rows, int in, const T* w_ih, const T* b_ih, const T* b_hh,
                      int GH, T* a) {
  product(ks, Product<T>{.M = rows, .N = GH, .K = in, .A = x, .lda = in, .B = w_ih, .ldb = in, .C = a, .ldc = GH,
                         .b_transposed = true});
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < GH; ++k) a[(size_t)r * GH + k] += b_ih[k] + b_hh[k];
}
// one step's recurrent term: a_t += h_t−1·W_hhᵀ      h_t−1:(B, hidden) W_hh:(GH, hidden) -> a_t:(B, GH)
template <class T>
void recurrent_term(const KernelSet& ks, const T* h_prev, int B, int H, const T* w_hh, int GH, T* a_t) {
  product(ks, Product<T>{.M = B, .N = GH, .K = H, .A = h_prev, .lda = H, .B = w_hh, .ldb = H, .C = a_t, .ldc = GH,
                         .b_transposed = true, .accumulate = true});
}
// What step t gives back to h_t−1 through the recurrent weights: dh_carry = da_t·W_hh
//   da_t:(B, GH)  W_hh:(GH, hidden) -> dh_carry:(B, hidden)
template <class T>
void carry_back(const KernelSet& ks, const T* da_t, int B, int GH, const T* w_hh, int H, T* dh_carry) {
  product(ks, Product<T>{.M = B, .N = H, .K = GH, .A = da_t, .lda = GH, .B = w_hh, .ldb = H, .C = dh_carry, .ldc = H});
}
// The weight gradients both cells share, once the loop has filled dA (every step's da_t):
//   dW_ih += dAᵀ·x    dW_hh += dAᵀ·h_t−1 (rows of h shifted by one step: h_−1 = 0 adds nothing)
//   db_ih += Σ_rows dA   db_hh += Σ_rows dA    dx = dA·W_ih
template <class T>
void recurrent_weight_grads(const KernelSet& ks, const T* da, int rows, int GH, const T* x, int in, const T* h_prev,
                            int H, const T* w_ih, T* dw_ih, T* dw_hh, T* db_ih, T* db_hh, T* dx) {
  product(ks, Product<T>{.M = GH, .N = in, .K = rows, .A = da, .lda = GH, .B = x, .ldb = in, .C = dw_ih, .ldc = in,
                         .a_transposed = true, .accumulate = true});
  product(ks, Product<T>{.M = GH, .N = H, .K = rows, .A = da, .lda = GH, .B = h_prev, .ldb = H, .C = dw_hh, .ldc = H,
                         .a_transposed = true, .accumulate = true});
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < GH; ++k) {
      db_ih[k] += da[(size_t)r * GH + k];
      db_hh[k] += da[(size_t)r * GH + k];
    }
  product(ks, Product<T>{.M = rows, .N = in, .K = GH, .A = da, .lda = GH, .B = w_ih, .ldb = in, .C = dx, .ldc = in});
}
}  // namespace

// Layer l's weight gradients from dgates_ (every step's da_t), and dx, its input's gradient.
template <class T>
void Model<T>::layer_weight_grads(int l, int GH, const T* x, int in, T* dx) {
  recurrent_weight_grads(ks(), dgates_.data(), n_ * B_, GH, x, in, rec_[(size_t)l].h.data(), spec_.hidden, param(Param::weight_ih, l),
               grad(Param::weight_ih, l), grad(Param::weight_hh, l), grad(Param::bias_ih, l), grad(Param::bias_hh, l), dx);
}

template <class T>
void Model<T>::rnn_layer_forward(int l, const T* x, int in) {
  const int B = B_, n = n_, H = spec_.hidden;
  RecurrentActs& r = rec_[(size_t)l];
  // pass 1: the input projections of every step (independent of each other: one product)
  input_projection(ks(), x, n * B, in, param(Param::weight_ih, l), param(Param::bias_ih, l), param(Param::bias_hh, l), H,
                   r.gates.data());
  // pass 2: the recurrence, one step after another (h_−1 = 0: step 0 has no recurrent term)
  for (int t = 0; t < n; ++t) {
    T* a = r.gates.data() + (size_t)t * B * H;
    if (t > 0) recurrent_term(ks(), r.h.data() + (size_t)t * B * H, B, H, param(Param::weight_hh, l), H, a);
    T* h = r.h.data() + (size_t)(t + 1) * B * H;
    std::copy(a, a + (size_t)B * H, h);
    tanh_inplace(ks(), h, B * H);
  }
}

// dh_out:(n·B, hidden) ∂loss/∂h_t from above (the unembedding or the next layer); writes dx:(n·B, in).
// Through time, from the last step back:
//   dh_t  = dh_out_t + da_t+1·W_hh            (the carry: what h_t gave to step t+1)
//   da_t  = dh_t ⊙ (1 − h_t²)                 (tanh' = 1 − tanh²)
// then the weight gradients of every step at once (recurrent_weight_grads).
template <class T>
void Model<T>::rnn_layer_backward(int l, const T* x, int in, const T* dh_out, T* dx) {
  const int B = B_, n = n_, H = spec_.hidden;
  RecurrentActs& r = rec_[(size_t)l];
  std::fill(dh_carry_.begin(), dh_carry_.end(), T(0));
  for (int t = n - 1; t >= 0; --t) {
    const T* h = r.h.data() + (size_t)(t + 1) * B * H;
    const T* g = dh_out + (size_t)t * B * H;
    T* da = dgates_.data() + (size_t)t * B * H;
    for (int k = 0; k < B * H; ++k) da[k] = (g[k] + dh_carry_[(size_t)k]) * (T(1) - h[k] * h[k]);
    if (t > 0) carry_back(ks(), da, B, H, param(Param::weight_hh, l), H, dh_carry_.data());
  }
  layer_weight_grads(l, H, x, in, dx);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] LSTM layer (PyTorch's gate order i, f, g, o):
//   a_t = W_ih·x_t + b_ih + W_hh·h_t−1 + b_hh = [a_i, a_f, a_g, a_o]       a:(n·B, 4·hidden)
//   i = σ(a_i)  f = σ(a_f)  g = tanh(a_g)  o = σ(a_o)
//   c_t = f ⊙ c_t−1 + i ⊙ g     h_t = o ⊙ tanh(c_t)                         c_−1 = h_−1 = 0
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::lstm_layer_forward(int l, const T* x, int in) {
  const int B = B_, n = n_, H = spec_.hidden, GH = 4 * H;
  RecurrentActs& r = rec_[(size_t)l];
  // pass 1: the input projections of every step at once
  input_projection(ks(), x, n * B, in, param(Param::weight_ih, l), param(Param::bias_ih, l), param(Param::bias_hh, l), GH,
                   r.gates.data());
  // pass 2: the recurrence; the gates are kept after their nonlinearity (what backward needs)
  for (int t = 0; t < n; ++t) {
    T* a = r.gates.data() + (size_t)t * B * GH;
    if (t > 0) recurrent_term(ks(), r.h.data() + (size_t)t * B * H, B, H, param(Param::weight_hh, l), GH, a);
    const T* c_prev = r.c.data() + (size_t)t * B * H;
    T* c = r.c.data() + (size_t)(t + 1) * B * H;
    T* tc = r.tanh_c.data() + (size_t)t * B * H;
    T* h = r.h.data() + (size_t)(t + 1) * B * H;
    // the gates in place: σ over [i, f], tanh over g, σ over o (each row b: i, f, g, o blocks of H)
    for (int b = 0; b < B; ++b) {
      T* ab = a + (size_t)b * GH;
      sigmoid_inplace(ks(), ab, 2 * H);
      tanh_inplace(ks(), ab + 2 * H, H);
      sigmoid_inplace(ks(), ab + 3 * H, H);
      for (int k = 0; k < H; ++k) c[(size_t)b * H + k] = ab[H + k] * c_prev[(size_t)b * H + k] + ab[k] * ab[2 * H + k];
    }
    std::copy(c, c + (size_t)B * H, tc);
    tanh_inplace(ks(), tc, B * H);
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < H; ++k) h[(size_t)b * H + k] = a[(size_t)b * GH + 3 * H + k] * tc[(size_t)b * H + k];
  }
}

// Through time, from the last step back, with two carries (what h_t and c_t gave to step t+1):
//   dh_t = dh_out_t + da_t+1·W_hh
//   dc_t = dc_carry + dh_t ⊙ o ⊙ (1 − tanh²(c_t))       dc_carry for step t−1 = dc_t ⊙ f
//   da_i = dc_t ⊙ g ⊙ i(1 − i)    da_f = dc_t ⊙ c_t−1 ⊙ f(1 − f)
//   da_g = dc_t ⊙ i ⊙ (1 − g²)    da_o = dh_t ⊙ tanh(c_t) ⊙ o(1 − o)
// then the weight gradients of every step at once (recurrent_weight_grads).
template <class T>
void Model<T>::lstm_layer_backward(int l, const T* x, int in, const T* dh_out, T* dx) {
  const int B = B_, n = n_, H = spec_.hidden, GH = 4 * H;
  RecurrentActs& r = rec_[(size_t)l];
  std::fill(dh_carry_.begin(), dh_carry_.end(), T(0));
  std::fill(dc_carry_.begin(), dc_carry_.end(), T(0));
  for (int t = n - 1; t >= 0; --t) {
    const T* a = r.gates.data() + (size_t)t * B * GH;
    const T* c_prev = r.c.data() + (size_t)t * B * H;
    const T* tanh_c = r.tanh_c.data() + (size_t)t * B * H;
    const T* g_out = dh_out + (size_t)t * B * H;
    T* da = dgates_.data() + (size_t)t * B * GH;
    for (int b = 0; b < B; ++b) {
      const T* ab = a + (size_t)b * GH;
      T* dab = da + (size_t)b * GH;
      for (int k = 0; k < H; ++k) {
        const size_t at = (size_t)b * H + k;
        const T i = ab[k], f = ab[H + k], g = ab[2 * H + k], o = ab[3 * H + k], tc = tanh_c[at];
        const T dh = g_out[at] + dh_carry_[at];
        const T dc = dc_carry_[at] + dh * o * (T(1) - tc * tc);
        dab[k] = dc * g * i * (T(1) - i);
        dab[H + k] = dc * c_prev[at] * f * (T(1) - f);
        dab[2 * H + k] = dc * i * (T(1) - g * g);
        dab[3 * H + k] = dh * tc * o * (T(1) - o);
        dc_carry_[at] = dc * f;
      }
    }
    if (t > 0) carry_back(ks(), da, B, GH, param(Param::weight_hh, l), H, dh_carry_.data());
  }
  layer_weight_grads(l, GH, x, in, dx);
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] the whole model: embedding -> L recurrent layers -> unembedding, and back
// ---------------------------------------------------------------------------------------------------
template <class T>
void Model<T>::recurrent_forward() {
  const ModelSpec& s = spec_;
  const int B = B_, n = n_, D = s.d_model, H = s.hidden, V = s.vocab, rows = n * B;
  // pass 1: the embedding, time-major
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < n; ++t) tokens_tm_[(size_t)t * B + b] = tokens_[(size_t)b * n + t];
  const T* w_e = param(Param::w_e);
  for (int r = 0; r < rows; ++r) std::copy(w_e + (size_t)tokens_tm_[(size_t)r] * D, w_e + (size_t)(tokens_tm_[(size_t)r] + 1) * D, x_tm_.data() + (size_t)r * D);
  // pass 2: the layers; layer l's input is layer l−1's h_0 … h_n−1 (its rows after the initial state)
  for (int l = 0; l < s.layers; ++l) {
    const T* x = l == 0 ? x_tm_.data() : rec_[(size_t)l - 1].h.data() + (size_t)B * H;
    const int in = l == 0 ? D : H;
    if (s.model == Arch::lstm) lstm_layer_forward(l, x, in);
    else rnn_layer_forward(l, x, in);
  }
  // pass 3: logits = h·W_U + b_U, then batch-major for the cross-entropy and the metrics
  const T* top = rec_.back().h.data() + (size_t)B * H;
  project_forward(ks(), top, rows, H, param(Param::w_u), V, logits_tm_.data());
  const T* b_u = param(Param::b_u);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < V; ++c) logits_tm_[(size_t)r * V + c] += b_u[c];
  transpose_rows(logits_tm_.data(), logits_.data(), B, n, V, true);
}

// From dlogits_ (batch-major):
//   dW_U += hᵀ·dlogits   db_U += Σ_rows dlogits   dh_top = dlogits·W_Uᵀ
//   each layer from the top: its dx is the gradient at the layer below's h (or at the embedding)
//   dW_E[token] += dx_t, and dX_ (input_grads) = dx batch-major
template <class T>
void Model<T>::recurrent_backward() {
  const ModelSpec& s = spec_;
  const int B = B_, n = n_, D = s.d_model, H = s.hidden, V = s.vocab, rows = n * B;
  transpose_rows(dlogits_.data(), dlogits_tm_.data(), B, n, V, false);
  std::fill(dh_above_.begin(), dh_above_.end(), T(0));  // project_backward adds to it
  const T* top = rec_.back().h.data() + (size_t)B * H;
  project_backward(ks(), dlogits_tm_.data(), top, rows, H, param(Param::w_u), V, grad(Param::w_u), dh_above_.data());
  T* db_u = grad(Param::b_u);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < V; ++c) db_u[c] += dlogits_tm_[(size_t)r * V + c];
  for (int l = s.layers - 1; l >= 0; --l) {
    const T* x = l == 0 ? x_tm_.data() : rec_[(size_t)l - 1].h.data() + (size_t)B * H;
    const int in = l == 0 ? D : H;
    T* dx = l == 0 ? dx_tm_.data() : dh_below_.data();
    if (s.model == Arch::lstm) lstm_layer_backward(l, x, in, dh_above_.data(), dx);
    else rnn_layer_backward(l, x, in, dh_above_.data(), dx);
    if (l > 0) std::swap(dh_above_, dh_below_);
  }
  T* dw_e = grad(Param::w_e);
  for (int r = 0; r < rows; ++r) {
    const T* g = dx_tm_.data() + (size_t)r * D;
    T* de = dw_e + (size_t)tokens_tm_[(size_t)r] * D;
    for (int c = 0; c < D; ++c) de[c] += g[c];
  }
  transpose_rows(dx_tm_.data(), dX_.data(), B, n, D, true);
}

// The members defined here, for the two instantiations model.cpp makes of the rest.
#define ATTNLAB_RECURRENT_MEMBERS(T)                                            \
  template void Model<T>::recurrent_layout();                                   \
  template void Model<T>::recurrent_forward();                                  \
  template void Model<T>::recurrent_backward();                                 \
  template void Model<T>::rnn_layer_forward(int, const T*, int);                \
  template void Model<T>::rnn_layer_backward(int, const T*, int, const T*, T*); \
  template void Model<T>::lstm_layer_forward(int, const T*, int);               \
  template void Model<T>::lstm_layer_backward(int, const T*, int, const T*, T*); \
  template void Model<T>::layer_weight_grads(int, int, const T*, int, T*);
ATTNLAB_RECURRENT_MEMBERS(float)
ATTNLAB_RECURRENT_MEMBERS(double)
#undef ATTNLAB_RECURRENT_MEMBERS

}  // namespace attn::learn
