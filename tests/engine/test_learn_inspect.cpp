// Interventions on the learning model (learn/inspect.h): attribution adds up to the logit, zero ablation
// is the model with the head's W_O rows zeroed, patching everything restores the clean run and nothing
// leaves the corrupted one, mean ablation as defined, circuits and composition against explicit products
// written out here, rollout against a hand computation. Small models, so the suite stays fast under node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "learn/inspect.h"
#include "prng.h"

namespace {

using attn::MaskTerm;
using attn::Positional;
using namespace attn::learn;

MaskTerm causal() { return MaskTerm{.kind = MaskTerm::Kind::causal}; }

ModelSpec small_spec(int layers, bool tied = false, Positional pos = Positional::learned) {
  ModelSpec s;
  s.vocab = 9, s.d_model = 8, s.layers = layers, s.heads = 3, s.d_k = 4, s.d_v = 3, s.n_ctx = 7, s.tied = tied;
  s.positional = pos;
  s.mask = {causal()};
  return s;
}

template <class T>
void init_strong(Model<T>& model, uint64_t seed) {
  attn::Rng rng(seed);
  for (T& p : model.params()) p = (T)(0.7 * rng.normal());
}

Example random_example(const ModelSpec& s, int n, uint64_t seed) {
  attn::Rng rng(seed);
  Example e;
  for (int i = 0; i < n; ++i) e.tokens.push_back((int)(rng.next_u64() % s.vocab));
  if (s.cross)
    for (int i = 0; i < n; ++i) e.source.push_back((int)(rng.next_u64() % s.vocab));
  return e;
}

// [SECTION] attribution: embedding + Σ heads = the logit, at every position, for the prediction and another id
template <class T>
double worst_attribution_error(const ModelSpec& s) {
  Model<T> model(s);
  init_strong(model, 3);
  const Example e = random_example(s, s.n_ctx, 5);
  double worst = 0.0;
  for (int target : {-1, 2}) {
    Attribution a;
    EXPECT_EQ(attribute(model, e, target, a), "");
    EXPECT_EQ((int)a.positions.size(), s.n_ctx);
    for (const Attribution::Position& p : a.positions) {
      double sum = p.embedding;
      for (double h : p.heads) sum += h;
      EXPECT_EQ((int)p.heads.size(), s.layers * s.heads);
      if (target >= 0) {
        EXPECT_EQ(p.target, target);
      }
      worst = std::max(worst, std::abs(sum - p.logit) / std::max(std::abs(p.logit), 1e-3));
    }
  }
  return worst;
}

TEST(Attribution, PartsAddUpToTheLogit) {
  std::vector<ModelSpec> specs = {small_spec(1), small_spec(2), small_spec(3, true), small_spec(2, false, Positional::sinusoidal),
                                  small_spec(2, false, Positional::rope)};
  ModelSpec cross = small_spec(2);
  cross.cross = true, cross.n_src = 7, cross.mask = {};
  specs.push_back(cross);
  for (const ModelSpec& s : specs) {
    ASSERT_EQ(validate(s), "");
    EXPECT_LE(worst_attribution_error<double>(s), 1e-10);
    EXPECT_LE(worst_attribution_error<float>(s), 1e-4);
  }
}

// [SECTION] ablation
TEST(Ablation, ZeroIsTheModelWithTheHeadsWORowsZeroed) {
  const ModelSpec s = small_spec(2);
  for (const HeadRef h : {HeadRef{0, 1}, HeadRef{1, 2}}) {
    Model<double> model(s);
    init_strong(model, 9);
    const Example e = random_example(s, 6, 4);
    AblationHook<double> hook(s, AblationSpec{{h}, AblationMode::zero}, nullptr);
    model.set_hook(&hook);
    model.forward(batch_of(Example{e.tokens, std::vector<int>(e.tokens.size(), -1), {}}));
    const std::vector<double> ablated = model.logits();
    model.set_hook(nullptr);
    model.forward(batch_of(Example{e.tokens, std::vector<int>(e.tokens.size(), -1), {}}));
    const std::vector<double> intact = model.logits();
    double* w_o = model.param(Param::w_o, h.layer);
    std::fill(w_o + (size_t)h.head * s.d_v * s.d_model, w_o + (size_t)(h.head + 1) * s.d_v * s.d_model, 0.0);
    model.forward(batch_of(Example{e.tokens, std::vector<int>(e.tokens.size(), -1), {}}));
    double worst = 0.0, changed = 0.0;
    for (size_t i = 0; i < ablated.size(); ++i) {
      worst = std::max(worst, std::abs(ablated[i] - model.logits()[i]));
      changed = std::max(changed, std::abs(ablated[i] - intact[i]));
    }
    EXPECT_LE(worst, 1e-12);
    EXPECT_GT(changed, 1e-3);  // the head mattered, so the check means something
  }
}

// A trained-model subject on a real task, small enough for node.
Subject<double> small_subject(const char* task, uint64_t seed) {
  TrainSetup setup = default_setup(*find_task(task));
  setup.train.eval_batch = 12, setup.train.micro_batch = 5;
  Subject<double> s;
  Model<float> init(setup.spec);
  init.init(seed);
  std::vector<float> params = init.params();
  for (float& p : params) p *= 3.0f;  // far from uniform attention
  EXPECT_EQ(open_subject(setup, params, s), "");
  return s;
}

TEST(Ablation, MeanIsTheHeldOutMeanAtEachPosition) {
  Subject<double> s = small_subject("previous_token", 2);
  prepare_held_out(s);
  const ModelSpec& spec = s.model.spec();
  const int n = spec.n_ctx, D = spec.d_model, d_v = spec.d_v, HV = spec.heads * d_v, V = spec.vocab;
  // μ by its definition: every held-out sequence alone, its head outputs averaged per position
  const Batch all = held_out_batch(s.setup);
  std::vector<double> mu((size_t)n * d_v, 0.0);
  const int head = 1;
  for (int b = 0; b < all.size; ++b) {
    Model<double> alone(spec);
    alone.params() = s.model.params();
    alone.forward(slice(all, b, 1));
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < d_v; ++k) mu[(size_t)i * d_v + k] += alone.concat(0)[(size_t)i * HV + head * d_v + k] / all.size;
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d_v; ++k) EXPECT_NEAR(s.means.at(0, head, i)[k], mu[(size_t)i * d_v + k], 1e-12);
  // the ablated logits: the intact ones with the head's term z·W_O^h·W_U swapped for μ·W_O^h·W_U (one layer)
  const Example e = held_out_probe(s);
  const ProbeResult intact = ablated_probe(s, e, AblationSpec{});
  const std::vector<double> z = s.model.concat(0);
  const ProbeResult ablated = ablated_probe(s, e, AblationSpec{{{0, head}}, AblationMode::mean});
  const double* w_o = s.model.param(Param::w_o, 0);
  const double* w_u = s.model.param(Param::w_u);
  double worst = 0.0;
  for (int i = 0; i < n; ++i)
    for (int t = 0; t < V; ++t) {
      double change = 0.0;
      for (int k = 0; k < d_v; ++k)
        for (int c = 0; c < D; ++c)
          change += (mu[(size_t)i * d_v + k] - z[(size_t)i * HV + head * d_v + k]) * w_o[(size_t)(head * d_v + k) * D + c] * w_u[(size_t)c * V + t];
      worst = std::max(worst, std::abs((double)intact.logits[(size_t)i * V + t] + change - (double)ablated.logits[(size_t)i * V + t]));
    }
  EXPECT_LE(worst, 1e-5);  // the probe's logits are kept as float
}

TEST(Ablation, BaselineIsTheTrainersEvaluationAndEachHeadHasARow) {
  TrainSetup setup = default_setup(*find_task("previous_token"));
  setup.train.steps = 20, setup.train.eval_batch = 20, setup.train.eval_every = 20;
  Trainer trainer;
  ASSERT_EQ(trainer.start(setup), "");
  trainer.run(20);
  ASSERT_FALSE(trainer.history().empty());
  Subject<float> s;
  ASSERT_EQ(open_subject(setup, trainer.model().params(), s), "");
  const AblationTable t = ablate_each(s, AblationMode::zero);
  EXPECT_EQ(t.baseline.loss, trainer.history().back().loss);          // the same sums in the same order
  EXPECT_EQ(t.baseline.accuracy, trainer.history().back().accuracy);
  ASSERT_EQ((int)t.each.size(), setup.spec.layers * setup.spec.heads);
  for (const Metrics& m : t.each) EXPECT_NE(m.loss, t.baseline.loss);
}

TEST(Ablation, HeadsAndModesAreCheckedByName) {
  const ModelSpec s = small_spec(2);
  std::vector<HeadRef> heads;
  EXPECT_EQ(parse_heads("1.0,0.2", "--heads", heads), "");
  EXPECT_EQ(heads, (std::vector<HeadRef>{{1, 0}, {0, 2}}));
  EXPECT_EQ(check_heads(s, heads, "--heads"), "");
  EXPECT_NE(parse_heads("1", "--heads", heads).find("--heads: expected LAYER.HEAD"), std::string::npos);
  EXPECT_NE(parse_heads("1.0,", "--heads", heads).find("--heads"), std::string::npos);
  EXPECT_NE(parse_heads("a.b", "--heads", heads).find("'a.b'"), std::string::npos);
  EXPECT_NE(check_heads(s, {{2, 0}}, "--heads").find("no layer 2"), std::string::npos);
  EXPECT_NE(check_heads(s, {{0, 3}}, "--heads").find("no head 3"), std::string::npos);
  EXPECT_NE(check_heads(s, {{0, 1}, {0, 1}}, "--heads").find("twice"), std::string::npos);
  AblationMode m;
  EXPECT_EQ(parse_ablation_mode("mean", "--mode", m), "");
  EXPECT_EQ(m, AblationMode::mean);
  EXPECT_NE(parse_ablation_mode("half", "--mode", m).find("--mode"), std::string::npos);
}

// [SECTION] patching
template <class T>
void check_patching(const ModelSpec& s) {
  Model<T> model(s);
  init_strong(model, 21);
  const Example clean = random_example(s, 6, 8);
  Example corrupt;
  ASSERT_EQ(corrupt_one_token(s, clean, 2, -1, corrupt), "");
  std::vector<T> clean_logits, corrupt_logits, logits;
  ASSERT_EQ(patched_logits(model, clean, clean, {}, clean_logits), "");
  ASSERT_EQ(patched_logits(model, corrupt, corrupt, {}, corrupt_logits), "");
  // nothing patched: the corrupted run
  ASSERT_EQ(patched_logits(model, clean, corrupt, {}, logits), "");
  EXPECT_EQ(logits, corrupt_logits);
  // the embedding at every position and every head of every layer: the clean run, exactly
  std::vector<Patch> all;
  for (int i = 0; i < 6; ++i) all.push_back({Patch::Kind::residual, 0, i});
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h) all.push_back({Patch::Kind::head, l, h});
  ASSERT_EQ(patched_logits(model, clean, corrupt, all, logits), "");
  EXPECT_EQ(logits, clean_logits);
  // the final residual stream at every position: the clean run
  std::vector<Patch> last;
  for (int i = 0; i < 6; ++i) last.push_back({Patch::Kind::residual, s.layers, i});
  ASSERT_EQ(patched_logits(model, clean, corrupt, last, logits), "");
  EXPECT_EQ(logits, clean_logits);
  // the embedding where both inputs agree (any position but 2; the source's for cross): nothing changes
  ASSERT_EQ(patched_logits(model, clean, corrupt, {{Patch::Kind::residual, 0, 4}, {Patch::Kind::residual, 0, 0}}, logits), "");
  EXPECT_EQ(logits, corrupt_logits);
  EXPECT_NE(clean_logits, corrupt_logits);
}

TEST(Patching, EverythingRestoresTheCleanRunNothingTheCorrupted) {
  check_patching<double>(small_spec(2));
  check_patching<float>(small_spec(2));
  check_patching<float>(small_spec(3, true, Positional::rope));
  ModelSpec cross = small_spec(2);
  cross.cross = true, cross.n_src = 7, cross.mask = {};
  check_patching<double>(cross);
}

TEST(Patching, TheHeatmapIsNormalisedAndTheFinalStreamRestoresOnlyItsPosition) {
  const ModelSpec s = small_spec(2);
  Model<double> model(s);
  init_strong(model, 13);
  // find a pair whose predictions differ somewhere
  PatchResult r;
  std::string err = "none";
  Example clean, corrupt;
  for (uint64_t seed = 1; seed < 40 && !err.empty(); ++seed) {
    clean = random_example(s, 6, seed);
    ASSERT_EQ(corrupt_one_token(s, clean, 1, -1, corrupt), "");
    err = patch(model, clean, corrupt, -1, r);
  }
  ASSERT_EQ(err, "");
  EXPECT_GT(r.clean_logit_diff, r.corrupt_logit_diff);
  ASSERT_EQ((int)r.residual_restored.size(), (s.layers + 1) * 6);
  ASSERT_EQ((int)r.heads_restored.size(), s.layers * s.heads);
  for (int i = 0; i < 6; ++i) {
    const double last = r.residual_restored[(size_t)s.layers * 6 + i];
    EXPECT_NEAR(last, i == r.position ? 1.0 : 0.0, 1e-9) << i;
    if (i != 1) {
      EXPECT_EQ(r.residual_restored[(size_t)i], 0.0) << i;  // the embedding of an unchanged token
    }
  }
  EXPECT_NEAR(r.residual_restored[1], 1.0, 1e-9);  // the changed token's embedding: all of the difference
  // bad input names its field
  Example shorter = corrupt;
  shorter.tokens.pop_back();
  EXPECT_NE(patch(model, clean, shorter, -1, r).find("corrupt:"), std::string::npos);
  EXPECT_NE(patch(model, clean, corrupt, 6, r).find("position:"), std::string::npos);
  EXPECT_NE(patch(model, clean, clean, -1, r).find("position:"), std::string::npos);
  Example outside = clean;
  outside.tokens[0] = s.vocab;
  EXPECT_NE(patch(model, outside, corrupt, -1, r).find("clean: tokens"), std::string::npos);
  EXPECT_NE(corrupt_one_token(s, clean, 6, -1, corrupt).find("corrupt_at"), std::string::npos);
  EXPECT_NE(corrupt_one_token(s, clean, 0, s.vocab, corrupt).find("with"), std::string::npos);
}

// [SECTION] circuits: a hand-made model, every product written out as sums here
ModelSpec handmade_spec() {
  ModelSpec s;
  s.vocab = 4, s.d_model = 3, s.layers = 2, s.heads = 2, s.d_k = 2, s.d_v = 2, s.n_ctx = 3;
  s.positional = Positional::learned, s.mask = {causal()};
  return s;
}

Model<double> handmade_model() {
  Model<double> m(handmade_spec());
  // small integers and halves: every product is exact in double
  for (size_t i = 0; i < m.params().size(); ++i) m.params()[i] = (double)((int)((i * 7 + 3) % 9) - 4) * 0.5;
  return m;
}

TEST(Circuits, QKOVAndPositionalMatchExplicitProducts) {
  const Model<double> m = handmade_model();
  const ModelSpec& s = m.spec();
  const int D = s.d_model, V = s.vocab, dk = s.d_k, dv = s.d_v, HK = s.heads * dk, HV = s.heads * dv;
  for (int l = 0; l < s.layers; ++l)
    for (int h = 0; h < s.heads; ++h) {
      Circuits c;
      ASSERT_EQ(circuits(m, l, h, c), "");
      const double *we = m.param(Param::w_e), *wq = m.param(Param::w_q, l), *wk = m.param(Param::w_k, l);
      const double *wv = m.param(Param::w_v, l), *wo = m.param(Param::w_o, l), *wu = m.param(Param::w_u), *p = m.param(Param::pos);
      for (int a = 0; a < V; ++a)
        for (int b = 0; b < V; ++b) {
          double qk = 0.0, ov = 0.0;
          for (int x = 0; x < D; ++x)
            for (int y = 0; y < D; ++y) {
              for (int k = 0; k < dk; ++k) qk += we[a * D + x] * wq[x * HK + h * dk + k] * wk[y * HK + h * dk + k] * we[b * D + y];
              for (int k = 0; k < dv; ++k) ov += we[a * D + x] * wv[x * HV + h * dv + k] * wo[(h * dv + k) * D + y] * wu[y * V + b];
            }
          EXPECT_EQ(c.qk[(size_t)a * V + b], qk);
          EXPECT_EQ(c.ov[(size_t)a * V + b], ov);
        }
      ASSERT_EQ(c.pos_rows, 3);
      ASSERT_EQ(c.pos_cols, 3);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double pqk = 0.0;
          for (int x = 0; x < D; ++x)
            for (int y = 0; y < D; ++y)
              for (int k = 0; k < dk; ++k) pqk += p[i * D + x] * wq[x * HK + h * dk + k] * wk[y * HK + h * dk + k] * p[j * D + y];
          EXPECT_EQ(c.positional_qk[(size_t)i * 3 + j], pqk);
        }
    }
  Circuits c;
  EXPECT_NE(circuits(m, 2, 0, c).find("no layer 2"), std::string::npos);
  ModelSpec rope = handmade_spec();
  rope.positional = Positional::rope;
  Model<double> r(rope);
  ASSERT_EQ(circuits(r, 0, 0, c), "");
  EXPECT_EQ(c.pos_rows, 0);  // RoPE adds nothing to the stream: no positional QK
}

// ‖X‖_F of a d×d matrix given as a function of (row, col)
template <class F>
double frob(int d, F f) {
  double s = 0.0;
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) s += f(i, j) * f(i, j);
  return std::sqrt(s);
}

TEST(Circuits, CompositionScoresMatchTheirDefinition) {
  const Model<double> m = handmade_model();
  const ModelSpec& s = m.spec();
  const int D = s.d_model, dk = s.d_k, dv = s.d_v, HK = s.heads * dk, HV = s.heads * dv;
  const Composition c = composition_scores(m);
  ASSERT_EQ(c.q.size(), (size_t)(s.layers - 1) * s.heads * s.heads);
  // M_w = W_V^w·W_O^w (layer 0)   B_r = W_Q^r·W_K^rᵀ, N_r = W_V^r·W_O^r (layer 1), each (d, d)
  const auto ov = [&](int l, int h, int i, int j) {
    double x = 0.0;
    for (int k = 0; k < dv; ++k) x += m.param(Param::w_v, l)[i * HV + h * dv + k] * m.param(Param::w_o, l)[(h * dv + k) * D + j];
    return x;
  };
  const auto qk = [&](int l, int h, int i, int j) {
    double x = 0.0;
    for (int k = 0; k < dk; ++k) x += m.param(Param::w_q, l)[i * HK + h * dk + k] * m.param(Param::w_k, l)[j * HK + h * dk + k];
    return x;
  };
  for (int r = 0; r < s.heads; ++r)
    for (int w = 0; w < s.heads; ++w) {
      const auto M = [&](int i, int j) { return ov(0, w, i, j); };
      const auto B = [&](int i, int j) { return qk(1, r, i, j); };
      const auto N = [&](int i, int j) { return ov(1, r, i, j); };
      const auto prod = [&](auto X, auto Y) {
        return [=](int i, int j) {
          double x = 0.0;
          for (int k = 0; k < D; ++k) x += X(i, k) * Y(k, j);
          return x;
        };
      };
      const auto Mt = [&](int i, int j) { return M(j, i); };
      const double q = frob(D, prod(M, B)) / (frob(D, M) * frob(D, B));
      const double k = frob(D, prod(B, Mt)) / (frob(D, M) * frob(D, B));
      const double v = frob(D, prod(M, N)) / (frob(D, M) * frob(D, N));
      EXPECT_NEAR(c.at(c.q, 0, r, w), q, 1e-14);
      EXPECT_NEAR(c.at(c.k, 0, r, w), k, 1e-14);
      EXPECT_NEAR(c.at(c.v, 0, r, w), v, 1e-14);
      EXPECT_GT(q, 0.0);
      EXPECT_LE(q, 1.0);
    }
  // one head's row and column of the table: the same numbers
  for (int h = 0; h < s.heads; ++h) {
    const HeadComposition reader = composition_of(m, 1, h), writer = composition_of(m, 0, h);
    ASSERT_EQ(reader.from.size(), (size_t)s.heads);
    ASSERT_EQ(writer.into.size(), (size_t)s.heads);
    EXPECT_TRUE(reader.into.empty() && writer.from.empty());
    for (int o = 0; o < s.heads; ++o) {
      EXPECT_EQ(reader.from[(size_t)o].q, c.at(c.q, 0, h, o));
      EXPECT_EQ(reader.from[(size_t)o].layer, 0);
      EXPECT_EQ(writer.into[(size_t)o].k, c.at(c.k, 0, o, h));
      EXPECT_EQ(writer.into[(size_t)o].v, c.at(c.v, 0, o, h));
      EXPECT_EQ(writer.into[(size_t)o].layer, 1);
    }
  }
}

// [SECTION] rollout: W_Q = 0 makes every score 0, so a row attends equally to the keys it may see. The
// mask: query 0 sees nothing (a fully masked row: A = 0, so Â's row is the identity's, renormalised),
// query 1 keys 0-1, query 2 keys 0-2.
TEST(Rollout, MatchesAHandComputation) {
  ModelSpec s = handmade_spec();
  s.mask = {MaskTerm{.kind = MaskTerm::Kind::custom, .rows = 3, .cols = 3, .cells = {0, 0, 0, 1, 1, 0, 1, 1, 1}}};
  ASSERT_EQ(validate(s), "");
  Model<double> m(s);
  for (size_t i = 0; i < m.params().size(); ++i) m.params()[i] = 0.25 * (double)(i % 5);
  for (int l = 0; l < 2; ++l) std::fill_n(m.param(Param::w_q, l), s.d_model * s.heads * s.d_k, 0.0);
  Rollout r;
  ASSERT_EQ(rollout(m, Example{{0, 1, 2}, {}, {}}, r), "");
  // Â = rownorm(0.5·A + 0.5·I): rows [1 0 0], [1/4 3/4 0], [1/6 1/6 2/3]
  const double a[9] = {1, 0, 0, 0.25, 0.75, 0, 1.0 / 6, 1.0 / 6, 2.0 / 3};
  // R_1 = Â·Â: rows [1 0 0], [7/16 9/16 0], [23/72 17/72 32/72]
  const double r1[9] = {1, 0, 0, 7.0 / 16, 9.0 / 16, 0, 23.0 / 72, 17.0 / 72, 32.0 / 72};
  ASSERT_EQ(r.rollout.size(), 18u);
  for (int k = 0; k < 9; ++k) {
    EXPECT_NEAR(r.rollout[(size_t)k], a[k], 1e-15) << k;
    EXPECT_NEAR(r.rollout[9 + (size_t)k], r1[k], 1e-15) << k;
  }
  EXPECT_NEAR(r.attention[3], 0.5, 1e-15);  // the raw head mean beside it: row 1 = [1/2 1/2 0]
  ModelSpec cross = s;
  cross.cross = true, cross.n_src = 3, cross.mask = {};
  Model<double> c(cross);
  EXPECT_NE(rollout(c, Example{{0, 1, 2}, {}, {0, 1, 2}}, r).find("rollout:"), std::string::npos);
}

}  // namespace

namespace {
// The order of the product: R_1 = Â_1·Â_0 with two different layers, from the per-layer head means.
TEST(Rollout, MultipliesLaterLayersOnTheLeft) {
  const ModelSpec s = small_spec(2);
  Model<double> m(s);
  init_strong(m, 17);
  Rollout r;
  ASSERT_EQ(rollout(m, random_example(s, 5, 3), r), "");
  const int n = 5;
  const auto hat = [&](int l, int i, int j) {
    double row = 0.0;
    for (int k = 0; k < n; ++k) row += 0.5 * r.attention[((size_t)l * n + i) * n + k] + (i == k ? 0.5 : 0.0);
    return (0.5 * r.attention[((size_t)l * n + i) * n + j] + (i == j ? 0.5 : 0.0)) / row;
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double x = 0.0;
      for (int k = 0; k < n; ++k) x += hat(1, i, k) * hat(0, k, j);
      EXPECT_NEAR(r.rollout[(size_t)n * n + (size_t)i * n + j], x, 1e-14);
      EXPECT_NEAR(r.rollout[(size_t)i * n + j], hat(0, i, j), 1e-15);
    }
}
}  // namespace
