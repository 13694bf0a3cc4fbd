// model.h — an attention-only transformer ("A Mathematical Framework for Transformer Circuits"),
// its forward pass over a batch with every activation kept, and its exact backward pass.
//
//   X_0   = W_E[tokens] + P                      X:(B·n, d_model)   P: the positional scheme's rows
//   X_l+1 = X_l + MHA_l(X_l)                     MHA: the lab's multi-head attention (stages.h), l < L
//           (cross-attention: K and V from X_src = W_E[source] + P instead of X_l)
//   logits = X_L·W_U   (tied: X_L·W_Eᵀ)          logits:(B·n, vocab)
//   loss  = mean over target cells of −log softmax(logits)[target]
//
// Or a recurrent model ("model": "rnn" | "lstm", recurrent.cpp), read one token after another:
//   x_t   = W_E[tokens_t]                        x:(n, d_model) per sequence, no positions (order is the recurrence)
//   h_t   = cell_l(h_l−1 at t, h_t−1)            l = 0 … layers−1: Elman tanh or LSTM, hidden units each
//   logits_t = h_t·W_U + b_U                     logits:(n, vocab)
// with PyTorch's weight names and layouts (torch.nn.RNN / torch.nn.LSTM), so that a model file loads there.
//
// Model<float> is the fast path (SIMD kernels); Model<double> runs the same code through plain loops
// and is the oracle the finite-difference tests check, and that the float path is checked against.
//
// [SECTION] spec        sizes and options, and the parameter layout
// [SECTION] batch       token ids and targets
// [SECTION] hook        an optional intervention on the forward pass (learn/inspect.h)
// [SECTION] model       parameters, gradients, activations
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "kernels.h"
#include "mask.h"
#include "positional.h"

namespace attn::learn {

// ---------------------------------------------------------------------------------------------------
// [SECTION] spec
// ---------------------------------------------------------------------------------------------------
struct ModelLimits {
  static constexpr int max_layers = 4;
  static constexpr int max_vocab = 4096;
  static constexpr int max_seq = 512;    // target and source sequence lengths
  static constexpr int max_d_model = 512;
  static constexpr int max_heads = 16;
  static constexpr int max_d_head = 256;
  static constexpr int max_hidden = 512;  // units of a recurrent layer
};

// The architecture: one entry per kind (name, gates per unit), read by the parser, the layout, the docs.
enum class Arch { attention, rnn, lstm };
struct ArchKind {
  Arch arch;
  const char* name;
  int gates;  // rows of weight_ih per hidden unit: 0 attention, 1 rnn (tanh), 4 lstm (i, f, g, o)
};
const std::vector<ArchKind>& arch_kinds();
const ArchKind* find_arch(const std::string& name);
const ArchKind& arch_kind(Arch a);
std::string arch_names();  // attention, rnn, lstm

constexpr AttentionLimits kModelLimits{ModelLimits::max_d_model, ModelLimits::max_heads, ModelLimits::max_d_head};

// The attention of every layer (AttentionSpec: sizes, positions, scale, temperature, the mask applied
// in every layer as queries × keys), and what a model has besides.
struct ModelSpec : AttentionSpec {
  int vocab = 28;
  int layers = 2;
  int n_ctx = 32;        // the longest target sequence (rows of the learned position table)
  int n_src = 0;         // the longest source sequence (cross-attention only)
  bool cross = false;    // every layer takes K and V from the encoded source sequence
  bool tied = false;     // W_U = W_Eᵀ (no separate unembedding)
  Arch model = Arch::attention;
  int hidden = 64;       // recurrent models: units per layer (d_model is then the embedding's width)
  int distance = 8;      // the delayed_copy task's offset (a task setting: the generators see the spec)
  bool recurrent() const { return model != Arch::attention; }

  // A model's defaults where they differ from the lab's: 2 heads of 16, learned positions.
  ModelSpec() { heads = 2, d_k = d_v = 16, positional = Positional::learned; }
  bool operator==(const ModelSpec&) const = default;
};

// "" when the spec is usable, else one line naming the field.
std::string validate(const ModelSpec& s);

// What a training step's forward folds into the unembedding (Model::output_folding, model.cpp
// [SECTION] folded output): nothing; the last layer's output projection (W_O·W_U); or its values too
// (W_V,h·W_O,h·W_U per head).
enum class OutputFolding { none, output, values };

// One parameter tensor in the flat parameter buffer.
enum class Param { w_e, pos, w_q, w_k, w_v, w_o, w_u, weight_ih, weight_hh, bias_ih, bias_hh, b_u };
struct Tensor {
  Param kind;
  int layer;            // -1 for w_e, pos, w_u
  int rows, cols;       // row-major
  size_t offset;        // into the flat buffer
  std::string name;     // "w_e", "pos", "layers.0.w_q", ..., "w_u"; recurrent: "weight_ih_l0", ..., "b_u"
  size_t size() const { return (size_t)rows * cols; }
};
// The tensors in buffer order: w_e (vocab, d), pos (n_ctx', d) when learned, per layer w_q (d, H·d_k),
// w_k (d, H·d_k), w_v (d, H·d_v), w_o (H·d_v, d), then w_u (d, vocab) unless tied.
// Heads sit side by side in columns, as in the lab's Engine.
// Recurrent: w_e (vocab, d_model), per layer weight_ih_lL (G·hidden, input), weight_hh_lL (G·hidden, hidden),
// bias_ih_lL and bias_hh_lL (1, G·hidden), then w_u (hidden, vocab) and b_u (1, vocab); input = d_model for
// layer 0, hidden above; G = 1 (rnn) or 4 (lstm, gate blocks i, f, g, o). As PyTorch lays them out.
std::vector<Tensor> param_layout(const ModelSpec& s);
const char* to_string(Param p);

// ---------------------------------------------------------------------------------------------------
// [SECTION] batch
// ---------------------------------------------------------------------------------------------------
struct Batch {
  int size = 0, n = 0, m = 0;     // sequences, target length, source length (cross only, else 0)
  std::vector<int> tokens;        // (size, n)
  std::vector<int> targets;       // (size, n); -1 = no target at this position
  std::vector<int> source;        // (size, m), cross-attention only
};
// "" when the batch fits the spec (sizes, token ids), else one line naming the field.
std::string check_batch(const ModelSpec& s, const Batch& b);

// ---------------------------------------------------------------------------------------------------
// [SECTION] hook
// ---------------------------------------------------------------------------------------------------
// Set on a model, forward() hands it two kinds of activation, which it may change in place (ablation,
// activation patching). Without one, forward() runs exactly the operations it runs without the seam.
// backward() after a hooked forward is not defined: the hook's changes have no gradient.
template <class T>
struct ForwardHook {
  virtual ~ForwardHook() = default;
  // Layer l's head outputs A_h·V_h side by side, concat (B·n, H·d_v), before X_l+1 = X_l + concat·W_O.
  virtual void head_outputs(int l, int batch, int n, T* concat) = 0;
  // The residual stream X_l (B·n, d_model) once written, l = 0 (the embedding) .. L, before it is read.
  virtual void stream(int l, int batch, int n, T* x) = 0;
};

// ---------------------------------------------------------------------------------------------------
// [SECTION] model
// ---------------------------------------------------------------------------------------------------
template <class T>
class Model {
 public:
  explicit Model(const ModelSpec& spec);

  const ModelSpec& spec() const { return spec_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const Tensor* find(Param kind, int layer = -1) const;

  // All parameters in one buffer (the optimiser walks it as one vector), gradients beside them.
  std::vector<T>& params() { return params_; }
  const std::vector<T>& params() const { return params_; }
  std::vector<T>& grads() { return grads_; }
  const std::vector<T>& grads() const { return grads_; }
  T* param(Param kind, int layer = -1) { return params_.data() + find(kind, layer)->offset; }
  const T* param(Param kind, int layer = -1) const { return params_.data() + find(kind, layer)->offset; }
  T* grad(Param kind, int layer = -1) { return grads_.data() + find(kind, layer)->offset; }

  // Seeded init, as the PyTorch peer the speed is measured against (bench/): W_E and P ~ N(0, 0.1²);
  // W_Q, W_K, W_V, W_O, W_U ~ N(0, 1/d_model). Recurrent models as PyTorch's defaults: W_E ~ N(0, 1)
  // (nn.Embedding), every recurrent weight and bias, W_U and b_U ~ U(−1/√hidden, 1/√hidden).
  void init(uint64_t seed);

  // float: nullptr = the fastest kernels for this CPU. double ignores it (plain loops).
  void set_kernels(const KernelSet* k) { kernels_ = k; }
  // nullptr = none (the default). The model does not own it.
  void set_hook(ForwardHook<T>* hook) { hook_ = hook; }

  // Runs the batch, keeping every activation for backward(); returns the mean cross-entropy over the
  // target cells (0 if there are none). The batch must pass check_batch.
  // targets_only (what a training step asks for): the last layer's output, the logits and the loss are
  // worked out for the rows with a target only, as no other row's logits are used and their gradients
  // are zeros. The loss and every gradient are the same bit for bit; logits() then holds those rows,
  // in order, and the last stream holds them in its first rows. Ignored with a hook and for the
  // recurrent models. Where it is cheaper (output_folding(): two layers or more, self-attention, W_U
  // of its own, and a small vocabulary), the last layer's output projection and the unembedding are
  // instead folded into one product, or with its values into one product per head (the [SECTION]
  // folded output of model.cpp): the same loss and gradients up to float rounding, and X_L (and when
  // the values are folded, the last layer's values and concat) are then not worked out. Nor are the
  // last layer's weights (and its outputs) on a sequence's rows before its first target.
  // same_weights: no weight has changed since the last forward (a later part of one training step, the
  // next chunk of one evaluation): the folded products' tables W_E·W and P·W of that forward are reused.
  double forward(const Batch& batch, bool targets_only = false, bool same_weights = false);
  // The positions of `b` that a training step needs: up to the batch's last target, where the mask
  // hides the later positions from every earlier query (causal, a causal window), else all of b.n.
  // A step may then keep those (tasks.h keep_first_positions): the same loss and gradients bit for bit.
  // (Done once per step by the Trainer, so that every part of a step has the same n.)
  int kept_positions(const Batch& b) const;
  // Gradients of the last forward's loss with respect to every parameter (overwrites grads()).
  void backward() { backward_part(count_, false); }
  // The same for one part of a larger batch: the gradient of (this part's summed target losses) /
  // total_targets, added to grads() when `add` (a later part) or written over them (the first).
  // Summed over the parts, that is the whole batch's gradient. `more`: another part follows before
  // grads() is read, so the first layer's folded products may wait for it (their sums by token and by
  // position carry over, and the last part, without `more`, multiplies them once for the whole batch);
  // until then grads() lacks their share.
  void backward_part(int total_targets, bool add, bool more = false);
  // Gradients of Σ dlogits ⊙ logits of the last forward (any upstream gradient, (B·n, vocab)); overwrites
  // grads() and input_grads(). A one-hot dlogits gives the gradient of one logit (the influence matrix).
  void backward_logits(const std::vector<T>& dlogits);
  // ∂/∂X_0 after a backward: the gradient at the input embeddings (W_E[token] + P, or the recurrent
  // model's x_t), (B·n, d_model), batch-major. (Worked out on the first call after a backward that
  // folded the first layer's projections: training never needs it.)
  const std::vector<T>& input_grads() const;

  // [SECTION] activations of the last forward (and backward), for metrics, probes and the UI
  int batch_size() const { return B_; }
  int n() const { return n_; }
  int m() const { return m_; }  // keys per query: n for self-attention, the source length for cross
  const MaskMatrix& mask() const { return mask_; }
  const std::vector<T>& logits() const { return logits_; }  // (B·n, vocab)
  // Attention weights of layer l: (B, H, n, m); softmax gradients dA and score gradients dS after
  // backward(), same shape.
  const std::vector<T>& weights(int l) const { return act_[(size_t)l].weights; }
  const std::vector<T>& weight_grads(int l) const { return act_[(size_t)l].dweights; }
  const std::vector<T>& score_grads(int l) const { return act_[(size_t)l].dscores; }
  const std::vector<T>& stream(int l) const { return x_[(size_t)l]; }  // X_l, (B·n, d_model), l ≤ L
  const std::vector<T>& queries(int l) const { return act_[(size_t)l].q; }   // (B·n, H·d_k) after RoPE
  const std::vector<T>& keys(int l) const { return act_[(size_t)l].k; }      // (B·m, H·d_k) after RoPE
  const std::vector<T>& values(int l) const { return act_[(size_t)l].v; }    // (B·m, H·d_v)
  const std::vector<T>& concat(int l) const { return act_[(size_t)l].concat; }  // (B·n, H·d_v)
  const std::vector<T>& source_stream() const { return xs_; }                // (B·m, d_model), cross only
  const std::vector<uint8_t>& fully_masked_rows() const { return fully_; }   // (n), 1 = no key allowed
  int targets_counted() const { return count_; }
  OutputFolding output_folded() const { return out_fold_.kind; }  // what the last forward folded (forward())
  // Recurrent models: layer l's states, time-major ((n + 1)·B, hidden): rows t·B + b hold h_(t−1) of
  // sequence b, so the first B rows are the zero initial state and h_t sits at rows (t + 1)·B + b.
  const std::vector<T>& recurrent_states(int l) const { return rec_[(size_t)l].h; }

 private:
  struct LayerActs {
    std::vector<T> q, k, v;            // (B·n, H·d_k), (B·m, H·d_k) after RoPE; (B·m, H·d_v)
    std::vector<T> weights;            // A: (B, H, n, m)
    std::vector<T> concat;             // (B·n, H·d_v)
    std::vector<T> dweights, dscores;  // backward: dA, dS (B, H, n, m)
  };
  // One sequence b and one head h inside a layer's batched buffers (row-strided views), named as in
  // the formulas: Q_h, K_h, V_h, A_h, O_h = A_h·V_h, and the gradients ∂/∂ of each (dQ is ∂loss/∂Q_h).
  struct Head {
    T *Q, *K, *V;   // (n, d_k), (m, d_k) row stride H·d_k; (m, d_v) row stride H·d_v
    T *A, *dA, *dS; // attention weights, their gradient, the scores' gradient: (n, m) row stride m
    T* O;           // (n, d_v) row stride H·d_v: the head's columns of concat
    T *dQ, *dK, *dV, *dO;  // the backward scratch, the same views as Q, K, V, O
  };
  Head head(LayerActs& a, int b, int h);
  // What a layer's projections read: X_l (Q, and K and V in self-attention) or the encoded source
  // (K and V in cross-attention). When it is an embedding, X[r] = W_E[tokens[r]] + P[r mod n] (X_0,
  // the source) with more rows than W_E and P have together, its products are folded through them
  // (the [SECTION] folded projections of model.cpp).
  struct Input {
    const T* x;          // (rows, d_model)
    int rows;
    const int* tokens;   // its tokens when it is an embedding, else nullptr
    int n;               // positions per sequence (P's rows used)
    bool folded;
  };
  Input projection_input(int l, bool keys_values, bool forward) const;
  const T* positions() const;  // P (n_ctx', d_model): the learned table, the fixed one, or nullptr
  // layer l's projection `kind` (w_q, w_k or w_v) of `in`: Y = X·W, and back: dW += Xᵀ·dY, dX += dY·Wᵀ
  void input_project_forward(const Input& in, Param kind, int l, int cols, T* y);
  void input_project_backward(const Input& in, const T* dy, Param kind, int l, int cols, T* dx);
  void fold_products(size_t slot);  // the folded backward's products from a projection's sums
  void layout(int B, int n, int m);  // sizes every buffer once per (B, n, m)
  void output_fold_tables();          // N = W_O·W_U (and M_h = W_V,h·N_h) for the current weights
  void begin_output_fold_sums();      // a step's first part: the folded output's sums from zero
  void output_fold_products();        // dW_V, dW_O, dW_U from the folded output's sums
  void folded_logits();               // the folded output's logits, from live_x_ and Z
  // The passes, each forward beside its backward (model.cpp).
  void embed_forward(const int* tokens, int rows, int n, T* x) const;
  void embed_backward(const int* tokens, int rows, int n, const T* dx);
  void attention_layer_forward(int l);
  void attention_layer_backward(int l);
  void unembed_forward();
  void unembed_backward();
  double crossentropy_forward();
  void crossentropy_backward(int total_targets);
  void backward_from_dlogits();  // everything below the cross-entropy, from dlogits_
  // recurrent.cpp: the recurrent passes, time-major (row t·B + b)
  void recurrent_layout();
  void recurrent_forward();
  void recurrent_backward();
  void rnn_layer_forward(int l, const T* x, int in);
  void rnn_layer_backward(int l, const T* x, int in, const T* dh_out, T* dx);
  void lstm_layer_forward(int l, const T* x, int in);
  void lstm_layer_backward(int l, const T* x, int in, const T* dh_out, T* dx);
  void layer_weight_grads(int l, int GH, const T* x, int in, T* dx);
  const KernelSet& ks() const { return kernels_ ? *kernels_ : kernels(); }

  ModelSpec spec_;
  std::vector<Tensor> tensors_;
  std::vector<T> params_, grads_;
  const KernelSet* kernels_ = nullptr;
  ForwardHook<T>* hook_ = nullptr;

  // laid out by layout()
  int B_ = 0, n_ = 0, m_ = 0;
  MaskMatrix mask_;
  std::vector<uint8_t> fully_;
  std::vector<T> pos_table_;          // fixed sinusoidal rows (max(n, m), d_model)
  RopeTable rope_;
  std::vector<std::vector<T>> x_;     // X_0 .. X_L
  std::vector<T> xs_;                 // encoded source (cross)
  std::vector<LayerActs> act_;
  std::vector<T> logits_, dlogits_;
  std::vector<T> probs_, row_loss_;   // the cross-entropy's softmax(logits) (B·n, vocab) and loss per row (B·n)
  // backward scratch: dX (entering: dX_l+1, leaving: dX_l), dX_src, and one layer's dQ, dK, dV, dconcat
  std::vector<T> dX_, dXsrc_, dQ_, dK_, dV_, dconcat_;
  // The folded projections' tables, (vocab, cols) and (n, cols), one pair per layer and projection
  // (Q, K, V): forward W_E·W and P·W (n: the positions they were worked out for, −1 when the weights may
  // have changed since), backward G_E and G_P, dY's sums over n positions (pending: their products are
  // still due).
  // folded_x0_: whether the last backward folded X_0's, leaving input_grads() to add their part.
  struct Fold {
    std::vector<T> e, p;
    int n = -1;
    bool pending = false;
  };
  std::vector<Fold> folds_, fold_grads_;
  static size_t fold_slot(Param kind, int l) { return (size_t)l * 3 + (kind == Param::w_q ? 0 : kind == Param::w_k ? 1 : 2); }
  bool more_parts_ = false;
  bool folded_x0_ = false;
  mutable std::vector<T> dX0_;
  mutable bool dX0_ready_ = false;
  std::vector<int> tokens_, targets_, source_;
  int count_ = 0;
  // forward(…, targets_only): the rows with a target (indices into the batch's rows), their targets,
  // and their rows of X_L−1, of the last layer's concat and of dX_L
  bool targets_only_ = false;
  mutable struct Trim {
    int n = -1, keep = -1;
    bool same = false;  // the mask on `keep` positions is the corner of the mask on n, no later key seen
  } trim_;
  std::vector<int> live_, live_targets_;
  // ... and per sequence its first row with a target (n: none). The last layer's attention starts
  // there: an earlier row's output reaches no loss, its query no gradient (its dQ rows are set to 0),
  // and its terms in dK and dV are zeros, so leaving them out changes no sum. Its mask: mask_from(row).
  std::vector<int> first_live_;
  std::vector<MaskMatrix> mask_from_;  // mask_rows_from(mask_, r) at [r], built when first asked for
  const MaskMatrix& mask_from(int row0);
  std::vector<T> live_x_, live_concat_, live_dx_, live_dconcat_, live_q_, live_dxq_;
  // whether layer l's queries are worked out for the rows with a target only: the last layer of a
  // targets_only forward, unless its input is an embedding (then its folded products are cheap)
  bool live_queries(int l, const Input& q_in) const { return targets_only_ && l == spec_.layers - 1 && !q_in.folded; }
  int output_rows() const { return targets_only_ ? (int)live_.size() : B_ * n_; }
  const int* output_targets() const { return targets_only_ ? live_targets_.data() : targets_.data(); }
  // The folded output (model.cpp [SECTION] folded output): what a targets_only forward of this spec
  // folds (the spec alone decides, so every part of a step and every step rounds alike), and its
  // buffers. HU = heads·vocab columns: head h's block of vocab columns in each.
  OutputFolding output_folding() const;
  struct OutputFold {
    OutputFolding kind = OutputFolding::none;  // what the last forward folded
    bool ready = false;    // nw (and m) hold the current weights' tables
    OutputFolding pending = OutputFolding::none;  // dn (output) or dm (values): sums of this step's parts, products due
    std::vector<T> nw, m;  // N = W_O·W_U (H·d_v, vocab); values: M = [M_h] (d_model, HU), M_h = W_V,h·N_h
    std::vector<T> dn, dm; // Σ concatᵀ·dlogits, or worked out from dM (H·d_v, vocab); Σ X_L−1ᵀ·dY (d_model, HU)
    std::vector<T> y, z;   // values: Y = X_L−1·M and Z_h = A_h·Y_h (B·n, HU)
    std::vector<T> dz, dy; // values: dlogits on every row (B·n, vocab), 0 without a target; dY (B·n, HU)
  };
  OutputFold out_fold_;
  // recurrent models (recurrent.cpp), laid out by recurrent_layout()
  struct RecurrentActs {
    std::vector<T> h, c;   // ((n + 1)·B, hidden) time-major, first B rows zero; c: LSTM cells only
    std::vector<T> tanh_c; // (n·B, hidden): LSTM, tanh(c_t) (backward needs it)
    std::vector<T> gates;  // (n·B, G·hidden): pre-activations, then (LSTM) i, f, g, o after their nonlinearity
  };
  std::vector<RecurrentActs> rec_;
  std::vector<int> tokens_tm_;               // (n·B) time-major token ids
  std::vector<T> x_tm_, dx_tm_;              // (n·B, d_model) embedded input and its gradient
  std::vector<T> logits_tm_, dlogits_tm_;    // (n·B, vocab)
  std::vector<T> dgates_, dh_above_, dh_below_, dh_carry_, dc_carry_;  // (n·B, G·h), (n·B, h) ×2, (B, h) ×2
};

extern template class Model<float>;
extern template class Model<double>;

}  // namespace attn::learn
