// inspect.cpp — ablation, activation patching, logit attribution, circuits and rollout (see inspect.h).
//
// [SECTION] heads and modes
// [SECTION] helpers          one example as a batch, argmax, a head's columns, small double products
// [SECTION] subject
// [SECTION] ablation
// [SECTION] patching
// [SECTION] attribution
// [SECTION] circuits
// [SECTION] rollout
#include "learn/inspect.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::learn {

// ---------------------------------------------------------------------------------------------------
// [SECTION] heads and modes
// ---------------------------------------------------------------------------------------------------
std::string check_heads(const ModelSpec& s, const std::vector<HeadRef>& heads, const char* field) {
  if (s.recurrent()) return std::string(field) + ": a recurrent model has no attention heads";
  for (size_t i = 0; i < heads.size(); ++i) {
    const HeadRef& h = heads[i];
    const std::string name = std::to_string(h.layer) + "." + std::to_string(h.head);
    if (h.layer < 0 || h.layer >= s.layers)
      return std::string(field) + ": head " + name + ": no layer " + std::to_string(h.layer) + " (layers 0.." +
             std::to_string(s.layers - 1) + ")";
    if (h.head < 0 || h.head >= s.heads)
      return std::string(field) + ": head " + name + ": no head " + std::to_string(h.head) + " (heads 0.." +
             std::to_string(s.heads - 1) + ")";
    for (size_t j = 0; j < i; ++j)
      if (heads[j] == h) return std::string(field) + ": head " + name + " is named twice";
  }
  return "";
}

std::string parse_heads(std::string_view text, const char* field, std::vector<HeadRef>& out) {
  out.clear();
  const auto number = [](std::string_view t, int& v) {
    if (t.empty() || t.size() > 4) return false;
    v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    return true;
  };
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    const size_t dot = item.find('.');
    HeadRef h;
    if (dot == std::string_view::npos || !number(item.substr(0, dot), h.layer) || !number(item.substr(dot + 1), h.head))
      return std::string(field) + ": expected LAYER.HEAD[,LAYER.HEAD...] such as 1.0, got '" + std::string(item) + "'";
    out.push_back(h);
    at = comma + 1;
  }
  return "";
}

const char* to_string(AblationMode m) { return m == AblationMode::zero ? "zero" : "mean"; }

std::string parse_ablation_mode(std::string_view text, const char* field, AblationMode& out) {
  if (text == "zero") out = AblationMode::zero;
  else if (text == "mean") out = AblationMode::mean;
  else return std::string(field) + ": expected zero or mean, got '" + std::string(text) + "'";
  return "";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] helpers
// ---------------------------------------------------------------------------------------------------
namespace {

// An example as a batch of one; positions without targets get −1 (an input typed in has none).
Batch one(const Example& e) {
  Batch b = batch_of(e);
  if (b.targets.size() != b.tokens.size()) b.targets.assign(b.tokens.size(), -1);
  return b;
}

// Sets a hook on the model for one scope, and takes it off again on every way out.
template <class T>
struct HookScope {
  Model<T>& model;
  HookScope(Model<T>& m, ForwardHook<T>* hook) : model(m) { model.set_hook(hook); }
  ~HookScope() { model.set_hook(nullptr); }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;
};

template <class T>
int argmax(const T* z, int n) {
  return (int)(std::max_element(z, z + n) - z);
}

// Row i of the unembedding as a column: u_t[c] = W_U[c, t] (tied: W_E[t, c]).
template <class T>
std::vector<double> unembed_column(const Model<T>& model, int t) {
  const ModelSpec& s = model.spec();
  std::vector<double> u((size_t)s.d_model);
  if (s.tied) {
    const T* w_e = model.param(Param::w_e) + (size_t)t * s.d_model;
    for (int c = 0; c < s.d_model; ++c) u[(size_t)c] = (double)w_e[c];
  } else {
    const T* w_u = model.param(Param::w_u);
    for (int c = 0; c < s.d_model; ++c) u[(size_t)c] = (double)w_u[(size_t)c * s.vocab + t];
  }
  return u;
}

// Dense row-major matrices in double, for circuits and composition (sizes ≤ max(vocab, d_model)).
struct Mat {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Mat(int r, int c) : rows(r), cols(c), v((size_t)r * c, 0.0) {}
  double& at(int r, int c) { return v[(size_t)r * cols + c]; }
  double at(int r, int c) const { return v[(size_t)r * cols + c]; }
};
// C = A·B       A:(r, k) B:(k, c) -> C:(r, c)
Mat mul(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k) {
      const double x = a.at(i, k);
      if (x == 0.0) continue;
      for (int j = 0; j < b.cols; ++j) c.at(i, j) += x * b.at(k, j);
    }
  return c;
}
Mat transpose(const Mat& a) {
  Mat t(a.cols, a.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) t.at(j, i) = a.at(i, j);
  return t;
}
// Columns [first, first + count) of a (rows, ld) parameter as a matrix.
template <class T>
Mat columns(const T* w, int rows, int ld, int first, int count) {
  Mat m(rows, count);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < count; ++c) m.at(r, c) = (double)w[(size_t)r * ld + first + c];
  return m;
}
template <class T>
Mat whole(const T* w, int rows, int cols) {
  return columns(w, rows, cols, 0, cols);
}
// A head's four matrices: W_Q^h, W_K^h (d, d_k), W_V^h (d, d_v), W_O^h (d_v, d): its columns and rows.
struct HeadWeights {
  Mat q, k, v, o;
};
template <class T>
HeadWeights head_weights(const Model<T>& model, int l, int h) {
  const ModelSpec& s = model.spec();
  const int D = s.d_model, HK = s.heads * s.d_k, HV = s.heads * s.d_v;
  return {columns(model.param(Param::w_q, l), D, HK, h * s.d_k, s.d_k),
          columns(model.param(Param::w_k, l), D, HK, h * s.d_k, s.d_k),
          columns(model.param(Param::w_v, l), D, HV, h * s.d_v, s.d_v),
          whole(model.param(Param::w_o, l) + (size_t)h * s.d_v * D, s.d_v, D)};
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// [SECTION] subject
// ---------------------------------------------------------------------------------------------------
template <class T>
std::string open_subject(const TrainSetup& setup, const std::vector<float>& params, Subject<T>& out) {
  if (std::string e = validate(setup); !e.empty()) return e;
  out = Subject<T>{};
  out.setup = setup;
  out.task = find_task(setup.task);
  out.model = Model<T>(setup.spec);
  if (params.size() != out.model.params().size())
    return "weights: expected " + std::to_string(out.model.params().size()) + " numbers, got " + std::to_string(params.size());
  out.model.params().assign(params.begin(), params.end());
  return "";
}

// μ_lh[i] = (1/B) Σ_b z_lh[b, i], summed in double over the held-out chunks with no hook set.
template <class T>
void prepare_held_out(Subject<T>& s) {
  if (!s.held_out.empty()) return;
  s.held_out = chunks_of(held_out_batch(s.setup), s.setup.train.micro_batch);
  const ModelSpec& spec = s.model.spec();
  const int L = spec.layers, H = spec.heads, d_v = spec.d_v, HV = H * d_v, n = spec.n_ctx;
  std::vector<double> sum((size_t)L * H * n * d_v, 0.0);
  int sequences = 0;
  s.model.set_hook(nullptr);
  for (const Batch& c : s.held_out) {
    s.model.forward(c);
    sequences += c.size;
    for (int l = 0; l < L; ++l) {
      const T* z = s.model.concat(l).data();
      for (int b = 0; b < c.size; ++b)
        for (int i = 0; i < c.n; ++i)
          for (int h = 0; h < H; ++h)
            for (int k = 0; k < d_v; ++k)
              sum[(((size_t)l * H + h) * n + i) * d_v + k] += (double)z[((size_t)b * c.n + i) * HV + h * d_v + k];
    }
  }
  s.means = HeadMeans<T>{L, H, n, d_v, std::vector<T>(sum.size())};
  for (size_t i = 0; i < sum.size(); ++i) s.means.values[i] = (T)(sequences ? sum[i] / sequences : 0.0);
}

template <class T>
Example held_out_probe(Subject<T>& s) {
  prepare_held_out(s);
  const Batch first = slice(s.held_out.front(), 0, 1);
  return Example{first.tokens, first.targets, first.source};
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] ablation
// ---------------------------------------------------------------------------------------------------
template <class T>
void AblationHook<T>::head_outputs(int layer, int batch, int n, T* concat) {
  const int d_v = spec_.d_v, HV = spec_.heads * d_v;
  for (const HeadRef& h : ablation_.heads) {
    if (h.layer != layer) continue;
    for (int b = 0; b < batch; ++b)
      for (int i = 0; i < n; ++i) {
        T* z = concat + ((size_t)b * n + i) * HV + h.head * d_v;
        const bool mean = ablation_.mode == AblationMode::mean && means_ && i < means_->n;
        const T* mu = mean ? means_->at(h.layer, h.head, i) : nullptr;
        for (int k = 0; k < d_v; ++k) z[k] = mu ? mu[k] : T(0);
      }
  }
}

// As the trainer's evaluation: each chunk's forward, its sums added in order (MetricSums).
template <class T>
Metrics ablated_metrics(Subject<T>& s, const AblationSpec& ablation) {
  prepare_held_out(s);
  AblationHook<T> hook(s.model.spec(), ablation, &s.means);
  const HookScope<T> scope(s.model, ablation.heads.empty() ? nullptr : &hook);
  MetricSums sums;
  for (const Batch& c : s.held_out) sums.add(*s.task, s.model, c, s.model.forward(c));
  return sums.finish(*s.task, s.model.spec().layers, s.model.spec().heads);
}

template <class T>
ProbeResult ablated_probe(Subject<T>& s, const Example& e, const AblationSpec& ablation) {
  if (ablation.mode == AblationMode::mean) prepare_held_out(s);
  const ModelSpec& spec = s.model.spec();
  AblationHook<T> hook(spec, ablation, &s.means);
  const Batch b = one(e);
  ProbeResult p;
  {
    const HookScope<T> scope(s.model, ablation.heads.empty() ? nullptr : &hook);
    p.loss = s.model.forward(b);
  }
  p.n = b.n, p.m = s.model.m(), p.layers = spec.layers, p.heads = spec.heads;
  for (int l = 0; l < spec.layers; ++l) p.weights.emplace_back(s.model.weights(l).begin(), s.model.weights(l).end());
  p.logits.assign(s.model.logits().begin(), s.model.logits().end());
  for (int i = 0; i < b.n; ++i) p.predictions.push_back(argmax(s.model.logits().data() + (size_t)i * spec.vocab, spec.vocab));
  return p;
}

template <class T>
AblationTable ablate_each(Subject<T>& s, AblationMode mode) {
  const ModelSpec& spec = s.model.spec();
  AblationTable t;
  t.mode = mode, t.layers = spec.layers, t.heads = spec.heads;
  t.baseline = ablated_metrics(s, AblationSpec{});
  for (int l = 0; l < spec.layers; ++l)
    for (int h = 0; h < spec.heads; ++h) t.each.push_back(ablated_metrics(s, AblationSpec{{{l, h}}, mode}));
  return t;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] patching
// ---------------------------------------------------------------------------------------------------
namespace {

// Records the clean run (no patches), then writes the chosen clean activations over the corrupted run's.
template <class T>
class PatchHook : public ForwardHook<T> {
 public:
  PatchHook(const ModelSpec& spec, int layers) : spec_(spec), concat_((size_t)layers), stream_((size_t)layers + 1) {}
  bool recording = true;
  const std::vector<Patch>* patches = nullptr;

  void head_outputs(int l, int, int n, T* concat) override {
    const int d_v = spec_.d_v, HV = spec_.heads * d_v;
    std::vector<T>& clean = concat_[(size_t)l];
    if (recording) return clean.assign(concat, concat + (size_t)n * HV);
    for (const Patch& p : *patches)
      if (p.kind == Patch::Kind::head && p.layer == l)
        for (int i = 0; i < n; ++i)
          std::copy_n(clean.data() + (size_t)i * HV + p.index * d_v, d_v, concat + (size_t)i * HV + p.index * d_v);
  }
  void stream(int l, int, int n, T* x) override {
    const int D = spec_.d_model;
    std::vector<T>& clean = stream_[(size_t)l];
    if (recording) return clean.assign(x, x + (size_t)n * D);
    for (const Patch& p : *patches)
      if (p.kind == Patch::Kind::residual && p.layer == l)
        std::copy_n(clean.data() + (size_t)p.index * D, D, x + (size_t)p.index * D);
  }

 private:
  ModelSpec spec_;
  std::vector<std::vector<T>> concat_, stream_;  // the clean run's, per layer
};

std::string check_pair(const ModelSpec& s, const Example& clean, const Example& corrupt) {
  if (std::string e = check_batch(s, one(clean)); !e.empty()) return "clean: " + e;
  if (std::string e = check_batch(s, one(corrupt)); !e.empty()) return "corrupt: " + e;
  if (clean.tokens.size() != corrupt.tokens.size())
    return "corrupt: " + std::to_string(corrupt.tokens.size()) + " tokens, the clean input has " + std::to_string(clean.tokens.size());
  if (clean.source.size() != corrupt.source.size())
    return "corrupt: a source of " + std::to_string(corrupt.source.size()) + " tokens, the clean source has " +
           std::to_string(clean.source.size());
  return "";
}

template <class T>
std::string check_patches(const ModelSpec& s, int n, const std::vector<Patch>& patches) {
  for (const Patch& p : patches) {
    const bool head = p.kind == Patch::Kind::head;
    const int layers = head ? s.layers : s.layers + 1, count = head ? s.heads : n;
    if (p.layer < 0 || p.layer >= layers || p.index < 0 || p.index >= count)
      return std::string("patches: no ") + (head ? "head " : "residual cell ") + std::to_string(p.layer) + "." + std::to_string(p.index);
  }
  return "";
}

}  // namespace

template <class T>
std::string patched_logits(Model<T>& model, const Example& clean, const Example& corrupt,
                           const std::vector<Patch>& patches, std::vector<T>& logits) {
  const ModelSpec& s = model.spec();
  if (std::string e = check_pair(s, clean, corrupt); !e.empty()) return e;
  if (std::string e = check_patches<T>(s, (int)clean.tokens.size(), patches); !e.empty()) return e;
  PatchHook<T> hook(s, s.layers);
  const HookScope<T> scope(model, &hook);
  model.forward(one(clean));
  hook.recording = false, hook.patches = &patches;
  model.forward(one(corrupt));
  logits = model.logits();
  return "";
}

template <class T>
std::string patch(Model<T>& model, const Example& clean, const Example& corrupt, int position, PatchResult& out) {
  const ModelSpec& s = model.spec();
  if (std::string e = check_pair(s, clean, corrupt); !e.empty()) return e;
  const int n = (int)clean.tokens.size(), V = s.vocab, L = s.layers, H = s.heads;
  // pass 1: the clean run (recorded) and the corrupted run, unpatched
  PatchHook<T> hook(s, L);
  const HookScope<T> scope(model, &hook);
  model.forward(one(clean));
  const std::vector<T> clean_logits = model.logits();
  const std::vector<Patch> none;
  hook.recording = false, hook.patches = &none;
  model.forward(one(corrupt));
  const std::vector<T> corrupt_logits = model.logits();
  const auto answer = [&](const std::vector<T>& z, int i) { return argmax(z.data() + (size_t)i * V, V); };
  // pass 2: the position and its two answers
  if (position < 0) {
    for (int i = n - 1; i >= 0 && position < 0; --i)
      if (answer(clean_logits, i) != answer(corrupt_logits, i)) position = i;
    if (position < 0)
      return "position: the clean and corrupted inputs get the same prediction at every position (nothing to restore)";
  } else if (position >= n) {
    return "position: " + std::to_string(position) + " is outside the input (0.." + std::to_string(n - 1) + ")";
  }
  const int a = answer(clean_logits, position), b = answer(corrupt_logits, position);
  const auto diff = [&](const std::vector<T>& z) {
    return (double)z[(size_t)position * V + a] - (double)z[(size_t)position * V + b];
  };
  out = PatchResult{};
  out.position = position, out.n = n, out.layers = L, out.heads = H, out.clean_answer = a, out.corrupt_answer = b;
  out.clean_logit_diff = diff(clean_logits), out.corrupt_logit_diff = diff(corrupt_logits);
  const double span = out.clean_logit_diff - out.corrupt_logit_diff;
  if (!(span > 0.0))
    return "position: the clean and corrupted runs predict the same token at " + std::to_string(position) +
           " (no logit difference to restore)";
  // pass 3: one corrupted run per patch
  const auto restored = [&](Patch p) {
    const std::vector<Patch> one_patch{p};
    hook.patches = &one_patch;
    model.forward(one(corrupt));
    return (diff(model.logits()) - out.corrupt_logit_diff) / span;
  };
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) out.heads_restored.push_back(restored({Patch::Kind::head, l, h}));
  for (int l = 0; l <= L; ++l)
    for (int i = 0; i < n; ++i) out.residual_restored.push_back(restored({Patch::Kind::residual, l, i}));
  return "";
}

std::string corrupt_one_token(const ModelSpec& s, const Example& clean, int position, int with, Example& out) {
  out = clean;
  std::vector<int>& seq = s.cross ? out.source : out.tokens;
  const char* field = s.cross ? "source" : "tokens";
  if (position < 0 || position >= (int)seq.size())
    return "corrupt_at: " + std::to_string(position) + " is outside the " + field + " (0.." + std::to_string((int)seq.size() - 1) + ")";
  if (with >= s.vocab) return "with: token id " + std::to_string(with) + " is outside the vocabulary (0.." + std::to_string(s.vocab - 1) + ")";
  if (with < 0) {
    // the smallest id the sequence lacks, so the corruption cannot be copied from elsewhere in it
    for (int id = 0; id < s.vocab && with < 0; ++id)
      if (std::find(seq.begin(), seq.end(), id) == seq.end()) with = id;
    if (with < 0) with = (seq[(size_t)position] + 1) % s.vocab;
  }
  if (with == seq[(size_t)position]) return "with: the token at " + std::to_string(position) + " is already " + std::to_string(with);
  seq[(size_t)position] = with;
  return "";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] attribution
// ---------------------------------------------------------------------------------------------------
template <class T>
std::string attribute(Model<T>& model, const Example& e, int target, Attribution& out) {
  const ModelSpec& s = model.spec();
  const Batch b = one(e);
  if (std::string err = check_batch(s, b); !err.empty()) return err;
  if (target >= s.vocab) return "target: token id " + std::to_string(target) + " is outside the vocabulary (0.." + std::to_string(s.vocab - 1) + ")";
  model.set_hook(nullptr);
  model.forward(b);
  const int n = b.n, D = s.d_model, V = s.vocab, L = s.layers, H = s.heads, d_v = s.d_v, HV = H * d_v;
  out = Attribution{n, L, H, {}};
  std::vector<double> w_out((size_t)D);
  for (int i = 0; i < n; ++i) {
    Attribution::Position p;
    p.position = i;
    p.target = target >= 0 ? target : argmax(model.logits().data() + (size_t)i * V, V);
    p.logit = (double)model.logits()[(size_t)i * V + p.target];
    const std::vector<double> u = unembed_column(model, p.target);
    // the embedding path: X_0[i]·u_t
    const T* x0 = model.stream(0).data() + (size_t)i * D;
    for (int c = 0; c < D; ++c) p.embedding += (double)x0[c] * u[(size_t)c];
    // each head: (z_lh[i]·W_O^h)·u_t = z_lh[i]·(W_O^h·u_t)
    for (int l = 0; l < L; ++l) {
      const T* w_o = model.param(Param::w_o, l);
      const T* z = model.concat(l).data() + (size_t)i * HV;
      for (int h = 0; h < H; ++h) {
        double sum = 0.0;
        for (int k = 0; k < d_v; ++k) {
          const T* row = w_o + (size_t)(h * d_v + k) * D;
          double ou = 0.0;
          for (int c = 0; c < D; ++c) ou += (double)row[c] * u[(size_t)c];
          sum += (double)z[h * d_v + k] * ou;
        }
        p.heads.push_back(sum);
      }
    }
    out.positions.push_back(std::move(p));
  }
  return "";
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] circuits
// ---------------------------------------------------------------------------------------------------
template <class T>
std::string circuits(const Model<T>& model, int layer, int head, Circuits& out) {
  const ModelSpec& s = model.spec();
  if (std::string e = check_heads(s, {{layer, head}}, "head"); !e.empty()) return e;
  if (s.vocab > InspectLimits::max_circuit_vocab)
    return "vocab: circuits are vocab x vocab; at most " + std::to_string(InspectLimits::max_circuit_vocab) + " tokens, this model has " +
           std::to_string(s.vocab);
  const int D = s.d_model, V = s.vocab;
  const HeadWeights w = head_weights(model, layer, head);
  const Mat w_e = whole(model.param(Param::w_e), V, D);
  const Mat w_u = s.tied ? transpose(w_e) : whole(model.param(Param::w_u), D, V);
  out = Circuits{};
  out.vocab = V, out.layer = layer, out.head = head;
  // QK = (W_E·W_Q)·(W_E·W_K)ᵀ   OV = (W_E·W_V)·(W_O·W_U)
  out.qk = mul(mul(w_e, w.q), transpose(mul(w_e, w.k))).v;
  out.ov = mul(mul(w_e, w.v), mul(w.o, w_u)).v;
  // the positions' own QK where they are added to the stream: a learned table or fixed sinusoids
  const PositionalKind& pk = positional_kind(s.positional);
  if (pk.add) {
    const int rows = std::max(s.n_ctx, s.cross ? s.n_src : 0);
    Mat p(rows, D);
    if (pk.trained) {
      p = whole(model.param(Param::pos), rows, D);
    } else {
      std::vector<float> table((size_t)rows * D, 0.0f);
      pk.add(table, rows, D, 0);
      for (size_t i = 0; i < table.size(); ++i) p.v[i] = (double)table[i];
    }
    const Mat pqk = mul(mul(p, w.q), transpose(mul(p, w.k)));
    out.pos_rows = s.n_ctx, out.pos_cols = s.cross ? s.n_src : s.n_ctx;
    for (int i = 0; i < out.pos_rows; ++i)
      for (int j = 0; j < out.pos_cols; ++j) out.positional_qk.push_back(pqk.at(i, j));
  }
  return "";
}

namespace {
// ‖A·X·C‖_F² = tr(G_A·X·G_C·Xᵀ) = Σ (G_A·X·G_C) ⊙ X      G_A = AᵀA, G_C = C·Cᵀ
// The d_model × d_model products of composition have rank ≤ d_head: their norms come from head-sized
// matrices, never forming a d_model² one (at d_model 512, 32 pairs: milliseconds instead of seconds).
double product_norm(const Mat& g_a, const Mat& x, const Mat& g_c) {
  const Mat y = mul(mul(g_a, x), g_c);
  double t = 0.0;
  for (size_t i = 0; i < y.v.size(); ++i) t += y.v[i] * x.v[i];
  return std::sqrt(std::max(t, 0.0));
}
Mat identity(int n) {
  Mat m(n, n);
  for (int i = 0; i < n; ++i) m.at(i, i) = 1.0;
  return m;
}
// A head's weights and their Gram matrices: G_Q = W_QᵀW_Q, G_K = W_KᵀW_K, G_V = W_VᵀW_V, G_O = W_O·W_Oᵀ.
struct HeadGrams {
  HeadWeights w;
  Mat g_q, g_k, g_v, g_o;
};
template <class T>
HeadGrams head_grams(const Model<T>& model, int l, int h) {
  HeadWeights w = head_weights(model, l, h);
  Mat g_q = mul(transpose(w.q), w.q), g_k = mul(transpose(w.k), w.k), g_v = mul(transpose(w.v), w.v);
  Mat g_o = mul(w.o, transpose(w.o));
  return {std::move(w), std::move(g_q), std::move(g_k), std::move(g_v), std::move(g_o)};
}

// Q, K and V composition of writer (l, w) into reader (l + 1, r), as inspect.h defines them:
//   M_w = W_V^w·I·W_O^w          B_r = W_Q^r·I·(W_K^r)ᵀ          N_r = W_V^r·I·W_O^r
//   M_w·B_r  = W_V^w·(W_O^w·W_Q^r)·(W_K^r)ᵀ       B_r·M_wᵀ = W_Q^r·((W_K^r)ᵀ·(W_O^w)ᵀ)·(W_V^w)ᵀ
//   M_w·N_r  = W_V^w·(W_O^w·W_V^r)·W_O^r
HeadComposition::Pair compose(const HeadGrams& w, const HeadGrams& r, bool cross) {
  const double n_ov_w = product_norm(w.g_v, identity(w.g_v.rows), w.g_o);
  const double n_qk = product_norm(r.g_q, identity(r.g_q.rows), r.g_k);
  const double n_ov_r = product_norm(r.g_v, identity(r.g_v.rows), r.g_o);
  const auto score = [](double num, double den) { return den > 0.0 ? num / den : 0.0; };
  const double nan = std::numeric_limits<double>::quiet_NaN();  // cross: keys and values read the source, which no head writes
  const double q = product_norm(w.g_v, mul(w.w.o, r.w.q), r.g_k);
  const double k = cross ? nan : product_norm(r.g_q, mul(transpose(r.w.k), transpose(w.w.o)), w.g_v);
  const double v = cross ? nan : product_norm(w.g_v, mul(w.w.o, r.w.v), r.g_o);
  return {0, 0, score(q, n_ov_w * n_qk), cross ? nan : score(k, n_ov_w * n_qk), cross ? nan : score(v, n_ov_w * n_ov_r)};
}
}  // namespace

template <class T>
Composition composition_scores(const Model<T>& model) {
  const ModelSpec& s = model.spec();
  Composition c;
  c.layers = s.layers, c.heads = s.heads;
  for (int l = 0; l + 1 < s.layers; ++l) {
    std::vector<HeadGrams> writers, readers;
    for (int h = 0; h < s.heads; ++h) writers.push_back(head_grams(model, l, h)), readers.push_back(head_grams(model, l + 1, h));
    for (int r = 0; r < s.heads; ++r)
      for (int w = 0; w < s.heads; ++w) {
        const HeadComposition::Pair p = compose(writers[(size_t)w], readers[(size_t)r], s.cross);
        c.q.push_back(p.q), c.k.push_back(p.k), c.v.push_back(p.v);
      }
  }
  return c;
}

template <class T>
HeadComposition composition_of(const Model<T>& model, int layer, int head) {
  const ModelSpec& s = model.spec();
  HeadComposition out;
  if (layer < 0 || layer >= s.layers || head < 0 || head >= s.heads) return out;
  const HeadGrams self = head_grams(model, layer, head);
  for (int h = 0; h < s.heads && layer > 0; ++h) {
    HeadComposition::Pair p = compose(head_grams(model, layer - 1, h), self, s.cross);
    p.layer = layer - 1, p.head = h;
    out.from.push_back(p);
  }
  for (int h = 0; h < s.heads && layer + 1 < s.layers; ++h) {
    HeadComposition::Pair p = compose(self, head_grams(model, layer + 1, h), s.cross);
    p.layer = layer + 1, p.head = h;
    out.into.push_back(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// [SECTION] rollout
// ---------------------------------------------------------------------------------------------------
template <class T>
std::string rollout(Model<T>& model, const Example& e, Rollout& out) {
  const ModelSpec& s = model.spec();
  if (s.cross) return "rollout: a cross-attention model's keys are the source, not the residual stream (see attention instead)";
  const Batch b = one(e);
  if (std::string err = check_batch(s, b); !err.empty()) return err;
  model.set_hook(nullptr);
  model.forward(b);
  const int n = b.n, L = s.layers, H = s.heads;
  out = Rollout{n, L, {}, {}};
  std::vector<double> r((size_t)n * n, 0.0), next((size_t)n * n), mixed((size_t)n * n);
  for (int i = 0; i < n; ++i) r[(size_t)i * n + i] = 1.0;  // before layer 0: each position is its own token
  for (int l = 0; l < L; ++l) {
    // pass 1: the mean over heads, and Â = rownorm(0.5·A + 0.5·I)
    const T* a = model.weights(l).data();
    for (int i = 0; i < n; ++i) {
      double row = 0.0;
      for (int j = 0; j < n; ++j) {
        double mean = 0.0;
        for (int h = 0; h < H; ++h) mean += (double)a[((size_t)h * n + i) * n + j];
        mean /= H;
        out.attention.push_back(mean);
        row += (mixed[(size_t)i * n + j] = 0.5 * mean + (i == j ? 0.5 : 0.0));
      }
      for (int j = 0; j < n; ++j) mixed[(size_t)i * n + j] /= row;  // row ≥ 0.5: the identity's half
    }
    // pass 2: R_l = Â_l·R_(l−1)
    std::fill(next.begin(), next.end(), 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) next[(size_t)i * n + j] += mixed[(size_t)i * n + k] * r[(size_t)k * n + j];
    r.swap(next);
    out.rollout.insert(out.rollout.end(), r.begin(), r.end());
  }
  return "";
}

// ---------------------------------------------------------------------------------------------------
#define ATTN_INSPECT_INSTANTIATE(T)                                                                                  \
  template std::string open_subject(const TrainSetup&, const std::vector<float>&, Subject<T>&);                      \
  template void prepare_held_out(Subject<T>&);                                                                       \
  template Example held_out_probe(Subject<T>&);                                                                      \
  template Metrics ablated_metrics(Subject<T>&, const AblationSpec&);                                                \
  template ProbeResult ablated_probe(Subject<T>&, const Example&, const AblationSpec&);                              \
  template AblationTable ablate_each(Subject<T>&, AblationMode);                                                     \
  template class AblationHook<T>;                                                                                    \
  template std::string patched_logits(Model<T>&, const Example&, const Example&, const std::vector<Patch>&,          \
                                      std::vector<T>&);                                                              \
  template std::string patch(Model<T>&, const Example&, const Example&, int, PatchResult&);                          \
  template std::string attribute(Model<T>&, const Example&, int, Attribution&);                                      \
  template std::string circuits(const Model<T>&, int, int, Circuits&);                                               \
  template Composition composition_scores(const Model<T>&);                                                          \
  template HeadComposition composition_of(const Model<T>&, int, int);                                                \
  template std::string rollout(Model<T>&, const Example&, Rollout&);
ATTN_INSPECT_INSTANTIATE(float)
ATTN_INSPECT_INSTANTIATE(double)
#undef ATTN_INSPECT_INSTANTIATE

}  // namespace attn::learn
