// The learning model's gradients: every parameter of Model<double> against central finite differences
// of its own loss (in double), over every option; then the float engine (SIMD kernels) against that
// double reference. The FD check needs nothing but forward(), so it tests backward() independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "learn/model.h"
#include "learn/tasks.h"
#include "prng.h"

namespace {

using attn::MaskTerm;
using attn::Positional;
using attn::ScaleMode;
using namespace attn::learn;

ModelSpec small_spec() {
  ModelSpec s;
  s.vocab = 7, s.d_model = 6, s.layers = 1, s.heads = 2, s.d_k = 3, s.d_v = 4, s.n_ctx = 5;
  return s;
}

Batch random_batch(const ModelSpec& s, int size, int n, int m, uint64_t seed) {
  attn::Rng rng(seed);
  Batch b;
  b.size = size, b.n = n, b.m = s.cross ? m : 0;
  for (int i = 0; i < size * n; ++i) b.tokens.push_back((int)(rng.next_u64() % s.vocab));
  for (int i = 0; i < size * n; ++i) b.targets.push_back(i % 3 == 1 ? -1 : (int)(rng.next_u64() % s.vocab));
  if (s.cross)
    for (int i = 0; i < size * m; ++i) b.source.push_back((int)(rng.next_u64() % s.vocab));
  return b;
}

// Larger weights than the default init, so the attention is far from uniform and every path matters.
void init_strong(Model<double>& model, uint64_t seed) {
  attn::Rng rng(seed);
  for (double& p : model.params()) p = 0.6 * rng.normal();
}

// For each parameter: g = backward's gradient against the fourth-order central difference
//   fd = (8·(L(p + h) − L(p − h)) − (L(p + 2h) − L(p − 2h))) / 12h,   h = 1e-3
// Its truncation error is O(h⁴) ≈ 1e-12, so h can be large enough to keep rounding (~1e-16/h) small:
// the plain two-point difference, O(h²), does not get below 1e-6 through three layers of strong
// weights (measured: worst 1.8e-7 here, 1.1e-6 with h = 1e-4, 4e-6 with two points and h = 2e-5).
// |g − fd| / max(|g|, |fd|, 1e-4) ≤ 1e-6. The floor: near-zero gradients cannot be resolved relatively
// by differences of losses of size ~1.
// every_tensor_moves: a tensor whose whole gradient is zero fails (off where zero is the right answer).
void check_fd(const ModelSpec& spec, const char* what, int n = 5, int m = 4, int batch = 2, bool every_tensor_moves = true) {
  SCOPED_TRACE(what);
  ASSERT_EQ(validate(spec), "");
  Model<double> model(spec);
  init_strong(model, 7);
  const Batch b = random_batch(spec, batch, n, m, 11);
  ASSERT_EQ(check_batch(spec, b), "");
  const double loss = model.forward(b);
  ASSERT_TRUE(std::isfinite(loss));
  model.backward();
  const std::vector<double> g = model.grads();
  const double h = 1e-3;
  double worst = 0.0;
  for (const Tensor& t : model.tensors()) {
    double tensor_norm = 0.0;
    for (size_t i = 0; i < t.size(); ++i) {
      double& p = model.params()[t.offset + i];
      const double saved = p;
      const auto loss_at = [&](double v) {
        p = v;
        return model.forward(b);
      };
      const double d1 = loss_at(saved + h) - loss_at(saved - h), d2 = loss_at(saved + 2 * h) - loss_at(saved - 2 * h);
      p = saved;
      const double fd = (8 * d1 - d2) / (12 * h), an = g[t.offset + i];
      ASSERT_TRUE(std::isfinite(an)) << t.name << "[" << i << "]";
      const double rel = std::fabs(an - fd) / std::max({std::fabs(an), std::fabs(fd), 1e-4});
      worst = std::max(worst, rel);
      ASSERT_LE(rel, 1e-6) << t.name << "[" << i << "] analytic " << an << " finite difference " << fd;
      tensor_norm += an * an;
    }
    // A tensor whose whole gradient is zero would pass trivially: every kind must be exercised.
    if (every_tensor_moves) {
      EXPECT_GT(tensor_norm, 1e-12) << t.name << " has an all-zero gradient";
    }
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", worst);
  ::testing::Test::RecordProperty(std::string("worst_rel_") + what, text);
}

TEST(ModelGradients, OneLayerEachPositionalEncoding) {
  for (Positional p : {Positional::none, Positional::sinusoidal, Positional::learned, Positional::rope}) {
    ModelSpec s = small_spec();
    s.positional = p;
    check_fd(s, attn::to_string(p));
  }
}

TEST(ModelGradients, TwoAndThreeLayersTiedAndUntied) {
  for (int layers : {2, 3})
    for (bool tied : {false, true}) {
      ModelSpec s = small_spec();
      s.layers = layers, s.tied = tied;
      s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}};
      check_fd(s, (std::to_string(layers) + (tied ? " layers tied" : " layers untied")).c_str());
    }
}

TEST(ModelGradients, RopeWithEvenAndOddHeadWidthsOverLayers) {
  for (int d_k : {2, 3, 4}) {
    ModelSpec s = small_spec();
    s.positional = Positional::rope, s.layers = 2, s.d_k = d_k;
    s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}};
    check_fd(s, ("rope d_k " + std::to_string(d_k)).c_str());
  }
}

TEST(ModelGradients, ScaleModesAndTemperature) {
  ModelSpec s = small_spec();
  s.scale_mode = ScaleMode::none;
  check_fd(s, "no scale");
  s.scale_mode = ScaleMode::custom, s.scale_value = 0.7f, s.temperature = 0.5f;
  check_fd(s, "custom scale, temperature 0.5");
  s.scale_mode = ScaleMode::inv_sqrt_dk, s.temperature = 3.0f;
  check_fd(s, "1/sqrt(d_k), temperature 3");
}

TEST(ModelGradients, MasksIncludingFullyMaskedRows) {
  ModelSpec s = small_spec();
  s.layers = 2;
  s.mask = {MaskTerm{.kind = MaskTerm::Kind::window, .window = 2, .window_causal = false}};
  check_fd(s, "window 2");
  // causal + padding of key 0: query 0 sees nothing -> its weights and output are zero, and so is the
  // gradient through them (never NaN).
  s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}, MaskTerm{.kind = MaskTerm::Kind::padding, .keys = {0}}};
  check_fd(s, "causal + padding (fully masked row 0)");
  Model<double> model(s);
  init_strong(model, 3);
  model.forward(random_batch(s, 2, 5, 0, 5));
  model.backward();
  ASSERT_EQ(model.fully_masked_rows()[0], 1);
  for (int l = 0; l < 2; ++l)
    for (int b = 0; b < 2; ++b)
      for (int h = 0; h < s.heads; ++h)
        for (int j = 0; j < 5; ++j) {
          const size_t at = (((size_t)b * s.heads + h) * 5 + 0) * 5 + j;
          EXPECT_EQ(model.weights(l)[at], 0.0);
          EXPECT_EQ(model.score_grads(l)[at], 0.0);
        }
  // A custom mask with an all-masked row in the middle.
  MaskTerm custom{.kind = MaskTerm::Kind::custom, .rows = 5, .cols = 5};
  custom.cells = {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1};
  s.mask = {custom};
  check_fd(s, "custom mask with an empty row");
}

TEST(ModelGradients, CrossAttention) {
  for (int layers : {1, 2})
    for (Positional p : {Positional::learned, Positional::rope, Positional::sinusoidal}) {
      ModelSpec s = small_spec();
      s.cross = true, s.n_src = 6, s.layers = layers, s.positional = p;
      check_fd(s, ("cross " + std::to_string(layers) + " " + attn::to_string(p)).c_str(), 5, 6);
      s.tied = true;
      check_fd(s, "cross tied", 4, 3);  // shorter sequences than the model's maximum
    }
}

// A batch with more rows than W_E and P have together folds the first layer's projections (and, in
// cross-attention, every layer's projections of the source) through the embedding (model.cpp, [SECTION]
// folded projections): the gradients must still match the finite differences, for each positional
// encoding, self- and cross-attention, one and two layers.
TEST(ModelGradients, ProjectionsFoldedThroughTheEmbedding) {
  for (bool cross : {false, true})
    for (Positional p : {Positional::none, Positional::sinusoidal, Positional::learned, Positional::rope}) {
      ModelSpec s = small_spec();
      s.positional = p, s.cross = cross, s.n_src = 4, s.layers = cross ? 2 : 1;
      check_fd(s, ((cross ? "folded cross " : "folded ") + std::string(attn::to_string(p))).c_str(), 5, 4, /*batch*/ 4);
    }
}

// input_grads(), ∂loss/∂X_0, against central differences of the loss with X_0 moved through a forward
// hook (a hooked forward projects X_0 as it is, unfolded), on a batch that folds.
struct NudgeStream : ForwardHook<double> {
  size_t at = 0;
  double delta = 0.0;
  void head_outputs(int, int, int, double*) override {}
  void stream(int l, int, int, double* x) override {
    if (l == 0) x[at] += delta;
  }
};

TEST(ModelGradients, InputGradientsWhenFolded) {
  for (bool cross : {false, true}) {
    ModelSpec s = small_spec();
    s.positional = Positional::learned, s.cross = cross, s.n_src = 4, s.layers = 2;
    Model<double> model(s);
    init_strong(model, 3);
    const Batch b = random_batch(s, 4, 5, 4, 12);
    model.forward(b);
    model.backward();
    const std::vector<double> g = model.input_grads();
    ASSERT_EQ(g.size(), (size_t)4 * 5 * s.d_model);
    NudgeStream nudge;
    model.set_hook(&nudge);
    const double h = 1e-4;
    for (size_t i = 0; i < g.size(); i += 7) {
      nudge.at = i;
      const auto loss_at = [&](double d) {
        nudge.delta = d;
        return model.forward(b);
      };
      const double fd = (loss_at(h) - loss_at(-h)) / (2 * h);
      ASSERT_NEAR(g[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << (cross ? "cross " : "") << "X_0 at " << i;
    }
    model.set_hook(nullptr);
  }
}

// Late in training the model is confident: p_target = 1 − ε with ε ~ 1e-6. The float engine's gradient
// must still match the double reference there. Written as p_t − 1 in float, the target's entry would
// carry float's absolute error (up to 6e-8, a few % of ε): one position, so nothing averages it out.
TEST(ModelGradients, FloatEngineStaysAccurateWhenConfident) {
  ModelSpec s = small_spec();
  Model<double> ref(s);
  init_strong(ref, 5);
  Batch b = random_batch(s, 1, 1, 0, 8);
  ref.forward(b);
  for (size_t r = 0; r < b.targets.size(); ++r) {  // every target the model's own argmax
    const double* z = ref.logits().data() + r * s.vocab;
    b.targets[r] = (int)(std::max_element(z, z + s.vocab) - z);
  }
  // scale W_U until the loss (≈ ε) is about 1e-6
  double* w_u = ref.param(Param::w_u);
  const size_t n_u = (size_t)s.d_model * s.vocab;
  for (int i = 0; i < 100 && ref.forward(b) > 1e-6; ++i)
    for (size_t k = 0; k < n_u; ++k) w_u[k] *= 1.1;
  const double loss = ref.forward(b);
  ASSERT_LT(loss, 1e-5);
  ASSERT_GT(loss, 1e-8);
  Model<float> fast(s);
  for (size_t i = 0; i < ref.params().size(); ++i) {
    fast.params()[i] = (float)ref.params()[i];
    ref.params()[i] = fast.params()[i];
  }
  ref.forward(b), fast.forward(b);
  ref.backward(), fast.backward();
  const Tensor& t = *ref.find(Param::w_u);
  double max_ref = 0.0, max_diff = 0.0;
  for (size_t i = 0; i < t.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(ref.grads()[t.offset + i]));
    max_diff = std::max(max_diff, std::fabs(ref.grads()[t.offset + i] - (double)fast.grads()[t.offset + i]));
  }
  EXPECT_GT(max_ref, 0.0);
  EXPECT_LE(max_diff, 1e-3 * max_ref) << "loss " << loss;
}

// Recurrent models (recurrent.cpp): backpropagation through time against the same finite differences,
// every parameter, sequence lengths 1–7 (length 1 has no recurrent step: weight_hh's gradient is then
// exactly zero, so the all-zero check is waived there), 1–3 layers, widths that differ layer to layer.
ModelSpec recurrent_spec(Arch a, int layers, int hidden) {
  ModelSpec s;
  s.model = a, s.vocab = 5, s.d_model = 3, s.hidden = hidden, s.layers = layers, s.n_ctx = 7;
  return s;
}

TEST(ModelGradients, RecurrentThroughTime) {
  for (Arch a : {Arch::rnn, Arch::lstm})
    for (int layers : {1, 2, 3})
      for (int n : {2, 4, 7}) {
        const ModelSpec s = recurrent_spec(a, layers, layers == 2 ? 4 : 3);
        check_fd(s, (std::string(arch_kind(a).name) + " " + std::to_string(layers) + " layers n " + std::to_string(n)).c_str(), n, 0);
      }
}

TEST(ModelGradients, RecurrentOfLengthOne) {
  for (Arch a : {Arch::rnn, Arch::lstm}) {
    const ModelSpec s = recurrent_spec(a, 2, 3);
    Model<double> model(s);
    init_strong(model, 7);
    const Batch b = random_batch(s, 3, 1, 0, 4);
    model.forward(b);
    model.backward();
    for (const Tensor& t : model.tensors())
      if (t.kind == Param::weight_hh)
        for (size_t i = 0; i < t.size(); ++i) {
          EXPECT_EQ(model.grads()[t.offset + i], 0.0) << t.name;
        }
    check_fd(s, (std::string(arch_kind(a).name) + " length 1").c_str(), 1, 0, 3, false);
  }
}

// The float engine (SIMD kernels, float sums) against the double reference on the same parameters:
// ‖g_float − g_double‖∞ ≤ 1e-3 · ‖g_double‖∞ per tensor, over sizes that are not SIMD multiples.
TEST(ModelGradients, FloatEngineMatchesDoubleReference) {
  struct Case {
    const char* name;
    ModelSpec spec;
    int n, m, batch;
  };
  std::vector<Case> cases;
  {
    ModelSpec s;
    s.vocab = 28, s.d_model = 32, s.layers = 2, s.heads = 2, s.d_k = 16, s.d_v = 16, s.n_ctx = 32;
    s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}};
    cases.push_back({"induction-sized", s, 32, 0, 4});
    s.positional = Positional::rope, s.tied = true, s.heads = 3, s.d_k = 5, s.d_v = 7, s.layers = 3, s.d_model = 19;
    cases.push_back({"rope tied odd sizes", s, 23, 0, 3});
    ModelSpec c = small_spec();
    c.cross = true, c.n_src = 13, c.n_ctx = 11, c.d_model = 17, c.positional = Positional::sinusoidal;
    c.mask = {MaskTerm{.kind = MaskTerm::Kind::padding, .keys = {2, 3}}};
    cases.push_back({"cross", c, 11, 13, 5});
    for (Arch a : {Arch::rnn, Arch::lstm}) {
      ModelSpec r;
      r.model = a, r.vocab = 16, r.d_model = 13, r.hidden = 19, r.layers = 2, r.n_ctx = 32;
      cases.push_back({a == Arch::rnn ? "rnn odd sizes" : "lstm odd sizes", r, 29, 0, 5});
    }
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Model<double> ref(c.spec);
    ref.init(21);
    Model<float> fast(c.spec);
    for (size_t i = 0; i < ref.params().size(); ++i) {
      fast.params()[i] = (float)ref.params()[i];
      ref.params()[i] = fast.params()[i];  // the same numbers in both
    }
    const Batch b = random_batch(c.spec, c.batch, c.n, c.m, 99);
    const double loss_ref = ref.forward(b), loss_fast = fast.forward(b);
    EXPECT_NEAR(loss_fast, loss_ref, 1e-5 * std::fabs(loss_ref));
    ref.backward();
    fast.backward();
    for (const Tensor& t : ref.tensors()) {
      double max_ref = 0.0, max_diff = 0.0;
      for (size_t i = 0; i < t.size(); ++i) {
        max_ref = std::max(max_ref, std::fabs(ref.grads()[t.offset + i]));
        max_diff = std::max(max_diff, std::fabs(ref.grads()[t.offset + i] - (double)fast.grads()[t.offset + i]));
      }
      EXPECT_GT(max_ref, 0.0) << t.name;
      EXPECT_LE(max_diff, 1e-3 * max_ref) << t.name;
    }
  }
}

// A training step's forward works out the last layer's output, the logits and the loss for the rows
// with a target only (forward(batch, targets_only = true)): the loss and every gradient must be the same
// bit for bit as the whole forward's, in float (the kernels) and double, over one to three layers, tied,
// cross-attention, masks, and batches where some sequences (or all) have no target at all. And with it
// off, nothing has changed: the next whole forward gives every row's logits again.
// folded: what the spec folds of the last layer's output (model.h output_folding); when it does, the
// targets_only pass sums in another order: equal up to `tol` times the largest |value|, not bit for bit.
template <class T>
void check_targets_only(const ModelSpec& spec, int n, int m, int batch, const char* what,
                        OutputFolding folded = OutputFolding::none, double tol = 0) {
  SCOPED_TRACE(what);
  Model<T> model(spec);
  model.init(5);
  // drop 1: the first sequence has no target; drop 2: none has; drop 3: each sequence's targets lie in
  // a span of its own (from row 1 + b mod 3 to n − 2 − b mod 2), with holes, and the first has none
  for (int drop : {0, 1, 2, 3}) {
    Batch b = random_batch(spec, batch, n, m, 17 + drop);
    for (int r = 0; r < batch * n; ++r) {
      const int seq = r / n, i = r % n;
      const bool outside = i < 1 + seq % 3 || i > n - 2 - seq % 2 || i % 4 == 2 || seq == 0;
      if ((drop == 1 && r < n) || drop == 2 || (drop == 3 && outside)) b.targets[(size_t)r] = -1;
      else if (drop == 3 && b.targets[(size_t)r] < 0) b.targets[(size_t)r] = (r * 7) % spec.vocab;
    }
    ASSERT_EQ(check_batch(spec, b), "");
    const double whole = model.forward(b);
    const std::vector<T> logits = model.logits();
    model.backward();
    const std::vector<T> grads = model.grads();
    // as in training, the targets_only pass follows another batch's (every row a target), whose
    // activations and gradients are still in the buffers
    Batch other = random_batch(spec, batch, n, m, 99);
    for (int& y : other.targets) y = y >= 0 ? y : 1;
    model.forward(other, true);
    model.backward();
    const double only = model.forward(b, true);
    EXPECT_EQ(model.output_folded(), folded);
    model.backward();
    const auto largest = [](const std::vector<T>& v) {
      double big = 0;
      for (T x : v) big = std::max(big, std::abs((double)x));
      return big;
    };
    const double logit_tol = tol * largest(logits), grad_tol = tol * largest(grads);
    EXPECT_NEAR(whole, only, tol * std::abs(whole)) << "drop " << drop;
    size_t live = 0;
    for (int r = 0; r < batch * n; ++r)
      if (b.targets[(size_t)r] >= 0) {
        for (int c = 0; c < spec.vocab; ++c)
          ASSERT_NEAR(model.logits()[live * spec.vocab + c], logits[(size_t)r * spec.vocab + c], logit_tol) << "row " << r;
        ++live;
      }
    for (size_t i = 0; i < grads.size(); ++i)
      ASSERT_NEAR(model.grads()[i], grads[i], grad_tol) << "drop " << drop << " parameter " << i;
    EXPECT_EQ(model.forward(b), whole);
    EXPECT_EQ(model.logits(), logits);
  }
}

TEST(ModelGradients, TargetsOnlyForwardGivesTheSameLossAndGradients) {
  ModelSpec s;
  s.vocab = 28, s.d_model = 32, s.layers = 2, s.heads = 2, s.d_k = 16, s.d_v = 16, s.n_ctx = 32;
  s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}};
  check_targets_only<float>(s, 32, 0, 8, "induction-sized");
  check_targets_only<double>(s, 32, 0, 3, "induction-sized, double");
  s.layers = 1, s.tied = true;
  check_targets_only<float>(s, 20, 0, 5, "one layer, tied");
  s.layers = 3, s.tied = false, s.positional = Positional::rope, s.heads = 3, s.d_k = 5, s.d_v = 7, s.d_model = 19;
  check_targets_only<float>(s, 23, 0, 4, "three layers, rope, odd sizes");
  ModelSpec c = small_spec();
  c.cross = true, c.n_src = 13, c.n_ctx = 11, c.d_model = 17, c.layers = 2;
  c.mask = {MaskTerm{.kind = MaskTerm::Kind::padding, .keys = {2, 3}}};
  check_targets_only<float>(c, 11, 13, 5, "cross, padding");
  check_targets_only<double>(c, 11, 13, 2, "cross, padding, double");
}

TEST(ModelGradients, PositionsAfterTheLastTargetAreLeftOutWhereNoEarlierQuerySeesThem) {
  // kept_positions: up to the batch's last target where the mask hides the later positions from every
  // earlier query (causal, a causal window); a targets_only pass over those positions gives the loss and
  // every gradient of the whole pass bit for bit. Where an earlier query sees a later key (a window both
  // ways, a custom matrix) or the mask on fewer positions is another (a padding key past them), all.
  ModelSpec s;
  s.vocab = 13, s.d_model = 16, s.layers = 2, s.heads = 2, s.d_k = 8, s.d_v = 8, s.n_ctx = 12;
  struct Case {
    std::vector<MaskTerm> mask;
    int kept;
  };
  MaskTerm both_ways{.kind = MaskTerm::Kind::window, .window = 3, .window_causal = false};
  MaskTerm custom{.kind = MaskTerm::Kind::custom, .rows = 12, .cols = 12};
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) custom.cells.push_back(j <= i || (i == 2 && j == 9));
  const MaskTerm causal{.kind = MaskTerm::Kind::causal};
  for (const Case& c : {Case{{causal}, 7}, Case{{MaskTerm{.kind = MaskTerm::Kind::window, .window = 3}}, 7},
                        Case{{causal, MaskTerm{.kind = MaskTerm::Kind::padding, .keys = {1, 4}}}, 7},
                        Case{{causal, MaskTerm{.kind = MaskTerm::Kind::padding, .keys = {1, 10}}}, 12},
                        Case{{both_ways}, 12}, Case{{custom}, 12}})
    for (int layers : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "mask kind " << (int)c.mask.back().kind << ", " << layers << " layers");
      s.mask = c.mask, s.layers = layers;
      Batch b = random_batch(s, 3, 12, 0, 8);
      for (int r = 0; r < 36; ++r) b.targets[(size_t)r] = r % 12 <= 6 - r / 12 ? (r * 5) % 13 : -1;  // last: 6
      ASSERT_EQ(check_batch(s, b), "");
      Model<float> model(s);
      model.init(2);
      const double whole = model.forward(b, true);
      model.backward();
      const std::vector<float> grads = model.grads();
      ASSERT_EQ(model.kept_positions(b), c.kept);
      Batch kept = b;
      keep_first_positions(kept, c.kept);
      for (int q = 0; q < 3; ++q)  // each sequence's first positions, in order
        for (int i = 0; i < c.kept; ++i) ASSERT_EQ(kept.tokens[(size_t)q * c.kept + i], b.tokens[(size_t)q * 12 + i]);
      ASSERT_EQ(check_batch(s, kept), "");
      EXPECT_EQ(model.forward(kept, true), whole);
      model.backward();
      EXPECT_EQ(model.grads(), grads);
      // no target at all: every position kept (the pass has nothing to compute anyway)
      for (int& y : b.targets) y = -1;
      EXPECT_EQ(model.kept_positions(b), 12);
    }
}

TEST(ModelGradients, FoldedOutputGivesTheSameLossAndGradientsUpToRounding) {
  // d_v ≥ vocab: the last layer's values, output projection and unembedding become one product per
  // head in a targets_only pass; 2·vocab ≤ d_model: its output projection and the unembedding one
  // product (model.cpp [SECTION] folded output). Against the whole pass, unfolded: in double to 1e-12
  // of the largest value, in float to 1e-5.
  constexpr OutputFolding none = OutputFolding::none, output = OutputFolding::output, values = OutputFolding::values;
  // new weights (a step later): the folded tables are worked out again, unless same_weights says not
  const auto new_weights = [](const ModelSpec& spec) {
    const Batch b = random_batch(spec, 4, 16, 0, 3);
    Model<float> model(spec), fresh(spec);
    model.init(5), fresh.init(6);
    model.forward(b, true);
    model.init(6);
    EXPECT_EQ(model.forward(b, true), fresh.forward(b, true));
    EXPECT_EQ(model.logits(), fresh.logits());
  };
  ModelSpec s;
  s.vocab = 11, s.d_model = 24, s.layers = 2, s.heads = 2, s.d_k = 8, s.d_v = 12, s.n_ctx = 16;
  s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}};
  check_targets_only<double>(s, 16, 0, 5, "two layers, double", values, 1e-12);
  check_targets_only<float>(s, 16, 0, 8, "two layers", values, 1e-5);
  new_weights(s);
  s.d_v = 11;  // d_v = vocab: still folded
  check_targets_only<double>(s, 13, 0, 3, "d_v = vocab, double", values, 1e-12);
  s.d_v = 10;  // d_v < vocab, 2·vocab ≤ d_model: the output projection only
  check_targets_only<double>(s, 13, 0, 3, "output only, double", output, 1e-12);
  check_targets_only<float>(s, 16, 0, 8, "output only", output, 1e-5);
  new_weights(s);
  s.layers = 3, s.heads = 3, s.d_k = 6, s.d_v = 9, s.vocab = 7, s.d_model = 19, s.positional = Positional::rope;
  s.mask = {MaskTerm{.kind = MaskTerm::Kind::causal}, MaskTerm{.kind = MaskTerm::Kind::padding, .keys = {2}}};
  check_targets_only<double>(s, 14, 0, 4, "three layers, rope, padding, double", values, 1e-12);
  check_targets_only<float>(s, 14, 0, 4, "three layers, rope, padding", values, 1e-5);
  s.d_v = 5;  // 2·7 ≤ 19
  check_targets_only<double>(s, 14, 0, 4, "three layers, output only, double", output, 1e-12);
  check_targets_only<float>(s, 14, 0, 4, "three layers, output only", output, 1e-5);
  // not folded: 2·vocab > d_model (and d_v < vocab), one layer (X_0's values are folded tables
  // already), tied
  s.vocab = 10;
  check_targets_only<float>(s, 14, 0, 2, "2·vocab > d_model", none);
  s.vocab = 7, s.d_v = 9, s.layers = 1;
  check_targets_only<float>(s, 14, 0, 2, "one layer", none);
  s.layers = 2, s.tied = true;
  check_targets_only<float>(s, 14, 0, 2, "tied", none);
}

TEST(ModelSpec, ValidatesAndLaysOutParameters) {
  ModelSpec s = small_spec();
  EXPECT_EQ(validate(s), "");
  s.layers = 0;
  EXPECT_NE(validate(s).find("layers"), std::string::npos);
  s.layers = 5;
  EXPECT_NE(validate(s).find("layers"), std::string::npos);
  s = small_spec();
  s.layers = 2;
  const auto t = param_layout(s);
  ASSERT_EQ(t.size(), 1u + 1u + 2u * 4u + 1u);  // w_e, pos, 2 × (w_q, w_k, w_v, w_o), w_u
  EXPECT_EQ(t[0].name, "w_e");
  EXPECT_EQ(t[2].name, "layers.0.w_q");
  EXPECT_EQ(t[5].rows, 2 * 4);  // w_o: (H·d_v, d_model)
  EXPECT_EQ(t.back().name, "w_u");
  s.tied = true;
  EXPECT_EQ(param_layout(s).back().name, "layers.1.w_o");
  Batch b = random_batch(s, 2, 5, 0, 1);
  EXPECT_EQ(check_batch(s, b), "");
  b.tokens[3] = 7;
  EXPECT_NE(check_batch(s, b).find("tokens"), std::string::npos);
}

TEST(ModelSpec, RecurrentLayoutHasPyTorchsNamesAndShapes) {
  ModelSpec s = recurrent_spec(Arch::lstm, 2, 5);
  EXPECT_EQ(validate(s), "");
  const auto t = param_layout(s);
  ASSERT_EQ(t.size(), 1u + 2u * 4u + 2u);  // w_e, 2 × (weight_ih, weight_hh, bias_ih, bias_hh), w_u, b_u
  EXPECT_EQ(t[1].name, "weight_ih_l0");
  EXPECT_EQ(t[1].rows, 4 * 5);  // gates i, f, g, o stacked: (4·hidden, input)
  EXPECT_EQ(t[1].cols, 3);      // layer 0's input is the embedding, d_model
  EXPECT_EQ(t[5].name, "weight_ih_l1");
  EXPECT_EQ(t[5].cols, 5);      // above, the layer below's hidden state
  EXPECT_EQ(t[6].name, "weight_hh_l1");
  EXPECT_EQ(t[8].name, "bias_hh_l1");
  EXPECT_EQ(t[8].cols, 20);
  EXPECT_EQ(t[9].name, "w_u");
  EXPECT_EQ(t[9].rows, 5);
  EXPECT_EQ(t[10].name, "b_u");
  EXPECT_EQ(param_layout(recurrent_spec(Arch::rnn, 1, 5))[1].rows, 5);  // one gate
  s.hidden = 0;
  EXPECT_EQ(validate(s).rfind("hidden", 0), 0u);
  s.hidden = ModelLimits::max_hidden + 1;
  EXPECT_EQ(validate(s).rfind("hidden", 0), 0u);
  s.hidden = 4, s.tied = true;
  EXPECT_EQ(validate(s).rfind("tied", 0), 0u);
  EXPECT_EQ(find_arch("gru"), nullptr);
  EXPECT_EQ(find_arch("lstm")->gates, 4);
}

}  // namespace
