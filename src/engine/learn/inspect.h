// inspect.h — interventions on a trained attention-only model (docs/inspect.md): what does a head do?
//
// The model has no layer norm and no biases, so the logits are exactly a sum of one term per path:
//   logits[i] = X_0[i]·W_U + Σ_l Σ_h z_lh[i]·W_O^h·W_U        z_lh = A_lh·V_lh, the head's d_v columns of
//                                                             concat; W_O^h its d_v rows of W_O
// Every tool here reads or changes those terms through the model's forward hook (model.h):
//
// [SECTION] heads and modes   which heads, zero or mean, and checking them against a spec
// [SECTION] subject           a model opened for inspection: weights, task, held-out set, head means
// [SECTION] ablation          held-out metrics and one probe with heads removed; the table of every head
// [SECTION] patching          clean -> corrupted, per head and per residual cell: the restored fraction
// [SECTION] attribution       each path's share of one logit at every position
// [SECTION] circuits          QK and OV over the vocabulary, the positional QK, composition scores
// [SECTION] rollout           attention rolled out across layers (Abnar & Zuidema 2020)
//
// Plain structs in, plain structs out; Model<float> and Model<double> alike. No UI include.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "learn/model.h"
#include "learn/tasks.h"
#include "learn/train.h"

namespace attn::learn {

struct InspectLimits {
  // Circuits are vocab × vocab: at 1024, 1M cells (8 MiB in double) per matrix and about 10 MB of JSON.
  // The model's own bound (4096) would be 16M cells per matrix; a larger vocabulary is refused.
  static constexpr int max_circuit_vocab = 1024;
};

// ---------------------------------------------------------------------------------------------------
// [SECTION] heads and modes
// ---------------------------------------------------------------------------------------------------
struct HeadRef {
  int layer = 0, head = 0;
  bool operator==(const HeadRef&) const = default;
};
// "" when every head exists in the spec and none is named twice, else one line naming `field`.
std::string check_heads(const ModelSpec& s, const std::vector<HeadRef>& heads, const char* field);
// "0.1,1.0" -> {(0,1), (1,0)}. "" or one line naming `field` (the format; existence is check_heads').
std::string parse_heads(std::string_view text, const char* field, std::vector<HeadRef>& out);

enum class AblationMode {
  zero,  // the head's output z_lh is replaced by 0: it writes nothing into the residual stream
  mean,  // z_lh[i] is replaced by its mean over the held-out set at the same position i (HeadMeans)
};
const char* to_string(AblationMode m);
// "zero" | "mean"; "" or one line naming `field`.
std::string parse_ablation_mode(std::string_view text, const char* field, AblationMode& out);

struct AblationSpec {
  std::vector<HeadRef> heads;
  AblationMode mode = AblationMode::zero;
};

// The mean ablation's values: μ_lh[i] = (1/B) Σ_b z_lh[b, i], over the B held-out sequences of the
// model as trained (no head ablated), for each position i of the held-out length. (layers, heads, n, d_v)
template <class T>
struct HeadMeans {
  int layers = 0, heads = 0, n = 0, d_v = 0;
  std::vector<T> values;
  const T* at(int l, int h, int i) const { return values.data() + (((size_t)l * heads + h) * n + i) * d_v; }
};

// ---------------------------------------------------------------------------------------------------
// [SECTION] subject
// ---------------------------------------------------------------------------------------------------
// A model opened for inspection. The held-out set is the one `attnlab-cli train` evaluates on (the same
// seed, size and chunks), so the ablation baseline is the model file's last evaluation.
template <class T>
struct Subject {
  TrainSetup setup;
  const Task* task = nullptr;
  Model<T> model{ModelSpec{}};   // the weights; also the work space every tool runs in
  std::vector<Batch> held_out;   // in chunks of train.micro_batch sequences (filled by prepare_held_out)
  HeadMeans<T> means;            // filled by prepare_held_out
};
// Validates the setup and takes the weights (model.h's layout, as parse_model reads them). "" or an error.
template <class T>
std::string open_subject(const TrainSetup& setup, const std::vector<float>& params, Subject<T>& out);
// Draws the held-out set and computes the head means: one held-out pass. Done once; later calls return.
template <class T>
void prepare_held_out(Subject<T>& s);
// The first held-out example (the probe the lab shows).
template <class T>
Example held_out_probe(Subject<T>& s);

// ---------------------------------------------------------------------------------------------------
// [SECTION] ablation
// ---------------------------------------------------------------------------------------------------
// One example through the model with the heads ablated.
struct ProbeResult {
  int n = 0, m = 0, layers = 0, heads = 0;
  double loss = 0.0;                          // over the example's targets (0 if none)
  std::vector<int> predictions;               // argmax per position
  std::vector<std::vector<float>> weights;    // per layer (heads, n, m): the attention, as computed
  std::vector<float> logits;                  // (n, vocab)
};
// The held-out metrics (loss, accuracy, pattern scores: tasks.h's Metrics, as the trainer measures them)
// with `ablation` applied. An ablated head's own attention is still computed: its pattern score is what it
// attends to, though it writes nothing (zero) or a constant (mean). The spec must pass check_heads.
template <class T>
Metrics ablated_metrics(Subject<T>& s, const AblationSpec& ablation);
template <class T>
ProbeResult ablated_probe(Subject<T>& s, const Example& e, const AblationSpec& ablation);

// Every single head ablated alone: (layers · heads) held-out passes, plus the baseline.
struct AblationTable {
  AblationMode mode = AblationMode::zero;
  int layers = 0, heads = 0;
  Metrics baseline;
  std::vector<Metrics> each;  // (layers, heads) row-major
};
template <class T>
AblationTable ablate_each(Subject<T>& s, AblationMode mode);

// The forward hook behind ablation, for a caller that runs the model itself (run MODEL --ablate).
// `means` is needed for the mean mode only, and must outlive the hook.
template <class T>
class AblationHook : public ForwardHook<T> {
 public:
  AblationHook(const ModelSpec& spec, const AblationSpec& ablation, const HeadMeans<T>* means)
      : spec_(spec), ablation_(ablation), means_(means) {}
  void head_outputs(int layer, int batch, int n, T* concat) override;
  void stream(int, int, int, T*) override {}

 private:
  ModelSpec spec_;
  AblationSpec ablation_;
  const HeadMeans<T>* means_;
};

// ---------------------------------------------------------------------------------------------------
// [SECTION] patching
// ---------------------------------------------------------------------------------------------------
// One thing to copy from the clean run into the corrupted one.
struct Patch {
  enum class Kind {
    head,      // z_lh at every position (layer, index = head)
    residual,  // the stream X_layer at position index (layer 0: the embedding; layer l+1: after layer l)
  } kind = Kind::head;
  int layer = 0, index = 0;
};
// The corrupted example's logits (n, vocab) with `patches` taken from the clean run. clean and corrupt
// must have the same lengths (checked by patch(); here as well, returning "" or an error).
template <class T>
std::string patched_logits(Model<T>& model, const Example& clean, const Example& corrupt,
                           const std::vector<Patch>& patches, std::vector<T>& logits);

// The restored fraction of every head and every residual cell at one position p:
//   a, b   = the clean run's and the corrupted run's predictions (argmax) at p, which must differ
//   LD(z)  = z[p, a] − z[p, b]                         (the logit difference)
//   r      = (LD(patched) − LD(corrupted)) / (LD(clean) − LD(corrupted))   0 = corrupted, 1 = clean
struct PatchResult {
  int position = 0, n = 0, layers = 0, heads = 0;
  int clean_answer = 0, corrupt_answer = 0;
  double clean_logit_diff = 0.0, corrupt_logit_diff = 0.0;
  std::vector<double> heads_restored;     // (layers, heads)
  std::vector<double> residual_restored;  // (layers + 1, n): row 0 the embedding, row l + 1 after layer l
};
// position −1: the last position whose predictions differ. Costs 2 + layers·heads + (layers + 1)·n
// forward passes of one sequence. "" or one line naming the field (clean, corrupt, source, position).
template <class T>
std::string patch(Model<T>& model, const Example& clean, const Example& corrupt, int position, PatchResult& out);

// The clean example with one token replaced (the target sequence's, or for a cross-attention model the
// source's): by `with`, or when it is −1 by the smallest id the sequence does not contain (else the next
// id). "" or one line naming the field.
std::string corrupt_one_token(const ModelSpec& spec, const Example& clean, int position, int with, Example& out);

// ---------------------------------------------------------------------------------------------------
// [SECTION] attribution
// ---------------------------------------------------------------------------------------------------
//   logit[i, t] = X_0[i]·u_t + Σ_lh (z_lh[i]·W_O^h)·u_t       u_t: column t of W_U (tied: row t of W_E)
struct Attribution {
  int n = 0, layers = 0, heads = 0;
  struct Position {
    int position = 0, target = 0;
    double logit = 0.0;               // the model's own logit
    double embedding = 0.0;           // the token and position embedding's part
    std::vector<double> heads;        // (layers, heads)
  };
  std::vector<Position> positions;
};
// target −1: at each position the model's prediction. "" or an error naming the field.
template <class T>
std::string attribute(Model<T>& model, const Example& e, int target, Attribution& out);

// ---------------------------------------------------------------------------------------------------
// [SECTION] circuits
// ---------------------------------------------------------------------------------------------------
//   QK^h = W_E·W_Q^h·(W_K^h)ᵀ·W_Eᵀ    (vocab, vocab): row = query token, column = key token; the score is
//                                     α times this (plus the position terms) for layer 0, the direct path
//                                     for later layers
//   OV^h = W_E·W_V^h·W_O^h·W_U        (vocab, vocab): row = attended token, column = logit it raises
//   PQK^h = P·W_Q^h·(W_K^h)ᵀ·Pᵀ       (n_ctx, m_ctx): the positions' own QK, where positions are added
// computed in double from the weights.
struct Circuits {
  int vocab = 0, layer = 0, head = 0;
  std::vector<double> qk, ov;          // (vocab, vocab)
  int pos_rows = 0, pos_cols = 0;      // 0 when positions are not added (none, RoPE)
  std::vector<double> positional_qk;   // (pos_rows, pos_cols)
};
template <class T>
std::string circuits(const Model<T>& model, int layer, int head, Circuits& out);

// Composition of head w (layer l, the writer) into head r (layer l+1, the reader), Elhage et al. 2021:
//   M_w = W_V^w·W_O^w (d, d)   B_r = W_Q^r·(W_K^r)ᵀ (d, d)   N_r = W_V^r·W_O^r (d, d)   (row vectors: x·M)
//   Q = ‖M_w·B_r‖_F / (‖M_w‖_F ‖B_r‖_F)     the reader's queries read what w wrote
//   K = ‖B_r·M_wᵀ‖_F / (‖M_w‖_F ‖B_r‖_F)    its keys do
//   V = ‖M_w·N_r‖_F / (‖M_w‖_F ‖N_r‖_F)     its values do
// A cross-attention model's keys and values come from the source, which no head writes: K and V are NaN.
struct Composition {
  int layers = 0, heads = 0;
  std::vector<double> q, k, v;  // (layers − 1, heads (reader, layer l+1), heads (writer, layer l))
  double at(const std::vector<double>& s, int l, int reader, int writer) const {
    return s[((size_t)l * heads + reader) * heads + writer];
  }
};
// Each pair costs about 6·d_model·d_head² (the norms come from head-sized Gram matrices, inspect.cpp).
// The whole table: (layers − 1)·heads² ≤ 768 pairs (about 150 GFLOP at the model's largest heads,
// d_head 256; milliseconds for the lab's task models).
template <class T>
Composition composition_scores(const Model<T>& model);
// One head's row and column of it: the heads of layer − 1 writing into it, and of layer + 1 reading it
// (2·heads ≤ 32 pairs).
struct HeadComposition {
  struct Pair {
    int layer = 0, head = 0;   // the other head
    double q = 0.0, k = 0.0, v = 0.0;
  };
  std::vector<Pair> from, into;
};
template <class T>
HeadComposition composition_of(const Model<T>& model, int layer, int head);

// ---------------------------------------------------------------------------------------------------
// [SECTION] rollout
// ---------------------------------------------------------------------------------------------------
//   Â_l = rownorm(0.5·mean_h A_lh + 0.5·I)       (the residual as half of each layer's mixing)
//   R_0 = Â_0     R_l = Â_l·R_(l−1)              R_l[i, j]: how much input token j reaches position i
// Self-attention models only (a cross-attention model's keys are the source, not the stream).
struct Rollout {
  int n = 0, layers = 0;
  std::vector<double> attention;  // (layers, n, n): mean over heads of A_lh
  std::vector<double> rollout;    // (layers, n, n): R_l
};
template <class T>
std::string rollout(Model<T>& model, const Example& e, Rollout& out);

}  // namespace attn::learn
