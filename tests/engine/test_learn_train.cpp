// AdamW against its formula, the task generators, and short seeded training runs. Nothing is timed.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "learn/optimizer.h"
#include "learn/tasks.h"
#include "learn/train.h"
#include "learn_expect.h"

namespace {

using namespace attn::learn;

// [SECTION] AdamW
TEST(AdamW, MatchesTheFormulaOnAHandComputedStep) {
  AdamWConfig c;
  c.lr = 0.1f, c.beta1 = 0.9f, c.beta2 = 0.999f, c.eps = 1e-8f, c.weight_decay = 0.01f, c.clip = 1.0f;
  AdamW opt(c, 2);
  std::vector<float> p = {1.0f, -1.0f}, g = {0.5f, -2.0f};
  // Step 1 by hand: ‖g‖ = √4.25 = 2.0616 > clip, so g ← g/2.0616 = (0.24254, −0.97014).
  // Decay: p ← p·(1 − 0.1·0.01) = (0.999, −0.999). m̂ = g, v̂ = g², so the step is lr·g/|g| = ±0.1:
  // p = (0.899, −0.899).
  const double norm = opt.step(p.data(), g.data(), 2);
  EXPECT_NEAR(norm, std::sqrt(4.25), 1e-6);
  EXPECT_NEAR(g[0], 0.5 / (std::sqrt(4.25) + 1e-6), 1e-6);  // clipped in place
  EXPECT_NEAR(p[0], 0.899, 1e-6);
  EXPECT_NEAR(p[1], -0.899, 1e-6);
  // Step 2 from the formula in double (no clipping: ‖g‖ < 1).
  std::vector<double> m = {0.1 * g[0], 0.1 * g[1]}, v = {0.001 * g[0] * g[0], 0.001 * g[1] * g[1]};
  std::vector<double> expect = {p[0], p[1]};
  std::vector<float> g2 = {0.1f, 0.3f};
  for (int i = 0; i < 2; ++i) {
    expect[i] *= 1.0 - 0.1 * 0.01;
    m[i] = 0.9 * m[i] + 0.1 * g2[i];
    v[i] = 0.999 * v[i] + 0.001 * g2[i] * g2[i];
    const double mhat = m[i] / (1 - 0.9 * 0.9), vhat = v[i] / (1 - 0.999 * 0.999);
    expect[i] -= 0.1 * mhat / (std::sqrt(vhat) + 1e-8);
  }
  opt.step(p.data(), g2.data(), 2);
  EXPECT_NEAR(p[0], expect[0], 1e-6);
  EXPECT_NEAR(p[1], expect[1], 1e-6);
  EXPECT_EQ(opt.steps(), 2);
}

TEST(AdamW, ValidatesItsSettings) {
  AdamWConfig c;
  EXPECT_EQ(validate(c), "");
  c.lr = 0;
  EXPECT_EQ(validate(c).rfind("lr:", 0), 0u);
  c.lr = NAN;
  EXPECT_EQ(validate(c).rfind("lr:", 0), 0u);
  c = {};
  c.beta2 = 1.0f;
  EXPECT_EQ(validate(c).rfind("betas[1]", 0), 0u);
  c = {};
  c.clip = -1;
  EXPECT_EQ(validate(c).rfind("clip", 0), 0u);
}

// [SECTION] tasks
uint64_t checksum(const Batch& b) {
  uint64_t h = 1469598103934665603ull;
  for (const std::vector<int>* v : {&b.tokens, &b.targets, &b.source})
    for (int x : *v) h = (h ^ (uint64_t)(x + 7)) * 1099511628211ull;
  return h;
}

TEST(Tasks, TableHasEveryTaskWithWorkingDefaults) {
  std::set<std::string> names;
  for (const Task& t : tasks()) names.insert(t.name);
  for (const char* n : {"previous_token", "reverse", "sort", "induction", "translate", "neighbours", "delayed_copy"})
    EXPECT_TRUE(names.count(n)) << n;
  for (const Task& t : tasks()) {
    const TrainSetup s = default_setup(t);
    EXPECT_EQ(validate(s), "") << t.name;
    EXPECT_NE(std::string(t.help), "");
    EXPECT_NE(std::string(t.pattern), "");
  }
  EXPECT_EQ(find_task("nope"), nullptr);
}

TEST(Tasks, GeneratorsGiveTheDocumentedShapesAndTargets) {
  for (const Task& t : tasks()) {
    SCOPED_TRACE(t.name);
    const TrainSetup s = default_setup(t);
    const int n = s.spec.n_ctx;
    attn::Rng rng(5);
    const Batch b = make_batch(t, s.spec, 50, n, rng);
    ASSERT_EQ(check_batch(s.spec, b), "");
    ASSERT_EQ(b.tokens.size(), 50u * n);
    ASSERT_EQ(b.targets.size(), 50u * n);
    int targets = 0;
    for (int e = 0; e < 50; ++e) {
      const int* x = b.tokens.data() + e * n;
      const int* y = b.targets.data() + e * n;
      const int* src = b.m ? b.source.data() + e * b.m : nullptr;
      for (int i = 0; i < n; ++i) {
        if (y[i] >= 0) ++targets;
        const std::string name = t.name;
        if (name == "previous_token") {
          EXPECT_EQ(y[i], i == 0 ? -1 : x[i - 1]);
        }
        if (name == "reverse") {
          EXPECT_EQ(y[i], x[n - 1 - i]);
        }
        if (name == "translate") {
          EXPECT_EQ(b.m, n);
          EXPECT_EQ(y[i], 10 + src[n - 1 - i]);
          EXPECT_EQ(x[i], i == 0 ? 20 : y[i - 1]);  // teacher forcing from <s>
        }
        if (name == "neighbours") {
          EXPECT_EQ(y[i], i == 0 || i == n - 1 ? -1 : 6 + 6 * x[i - 1] + x[i + 1]);
        }
        if (name == "delayed_copy") {
          EXPECT_EQ(s.spec.distance, 8);
          EXPECT_EQ(y[i], i < 8 ? -1 : x[i - 8]);
        }
      }
      if (std::string(t.name) == "sort") {
        const int k = (n - 1) / 2;
        std::vector<int> digits(x, x + k);
        std::sort(digits.begin(), digits.end());
        EXPECT_EQ(std::adjacent_find(digits.begin(), digits.end()), digits.end()) << "digits must be distinct";
        EXPECT_EQ(x[k], 10);
        for (int i = 0; i < k; ++i) {
          EXPECT_EQ(x[k + 1 + i], digits[i]);
          EXPECT_EQ(y[k + i], digits[i]);
        }
        EXPECT_EQ(y[n - 1], -1);
      }
      if (std::string(t.name) == "induction") {
        // the period: the first repeat of x[0]; the first period's tokens are distinct, 6..14 of them,
        // never the spare id; targets exactly where the next token repeats an earlier one
        int period = 1;
        while (x[period] != x[0]) ++period;
        EXPECT_GE(period, 6);
        EXPECT_LE(period, 14);
        for (int i = 0; i < n; ++i) {
          EXPECT_EQ(x[i], x[i % period]);
          EXPECT_NE(x[i], s.spec.vocab - 1);
          EXPECT_EQ(y[i], i >= period && i + 1 < n ? x[i + 1] : -1);
        }
      }
    }
    EXPECT_GT(targets, 0);
  }
}

TEST(Tasks, InductionPeriodsVary) {
  const Task& t = *find_task("induction");
  const TrainSetup s = default_setup(t);
  attn::Rng rng(1);
  std::set<int> periods;
  for (int e = 0; e < 200; ++e) {
    const Example ex = t.generate(s.spec, 32, rng);
    int p = 1;
    while (ex.tokens[p] != ex.tokens[0]) ++p;
    periods.insert(p);
  }
  EXPECT_EQ(periods.size(), 9u);  // every period 6..14 occurs: no fixed offset to cheat with
}

TEST(Tasks, GeneratorsAreDeterministicAndTheSameInEveryBuild) {
  // Checksums of batch 0 of each task for seed 42, computed once natively; the WebAssembly build must
  // give the same (the generators use prng.h only, never <random>'s distributions).
  const std::vector<std::pair<std::string, uint64_t>> golden = {
#include "learn_task_checksums.inc"
  };
  for (const Task& t : tasks()) {
    const TrainSetup s = default_setup(t);
    attn::Rng a(42), b(42), c(43);
    const Batch x = make_batch(t, s.spec, 8, s.spec.n_ctx, a), y = make_batch(t, s.spec, 8, s.spec.n_ctx, b);
    const Batch z = make_batch(t, s.spec, 8, s.spec.n_ctx, c);
    EXPECT_EQ(checksum(x), checksum(y)) << t.name;
    EXPECT_NE(checksum(x), checksum(z)) << t.name;
    bool found = false;
    for (const auto& [name, sum] : golden)
      if (name == t.name) {
        found = true;
        EXPECT_EQ(checksum(x), sum) << t.name;
      }
    EXPECT_TRUE(found) << t.name << ": add {\"" << t.name << "\", " << checksum(x) << "ull} to learn_task_checksums.inc";
  }
}

TEST(Tasks, DelayedCopyTakesItsDistanceFromTheSpecAndChecksIt) {
  const Task& t = *find_task("delayed_copy");
  TrainSetup s = default_setup(t);
  for (int d : {1, 5, 31}) {
    s.spec.distance = d;
    ASSERT_EQ(validate(s), "") << d;
    attn::Rng rng(3);
    const Example e = t.generate(s.spec, 32, rng);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(e.targets[(size_t)i], i < d ? -1 : e.tokens[(size_t)(i - d)]) << d << " " << i;
    std::vector<int> keys;
    t.ideal_keys(e, 1, 0, 0, 31, keys);
    EXPECT_EQ(keys, std::vector<int>{31 - d});  // the diagonal at offset d
    keys.clear();
    t.ideal_keys(e, 1, 0, 0, d - 1, keys);
    EXPECT_TRUE(keys.empty());
  }
  for (int d : {0, 32, -3}) {
    s.spec.distance = d;
    EXPECT_EQ(validate(s).rfind("distance: must be between 1 and n-1", 0), 0u) << validate(s);
  }
}

TEST(Tasks, RecurrentModelsRefuseBidirectionalAndCrossTasksNamingModel) {
  for (Arch a : {Arch::rnn, Arch::lstm}) {
    for (const char* name : {"reverse", "neighbours", "translate"}) {
      TrainSetup s = default_setup(*find_task(name));
      s.spec.model = a, s.spec.cross = false;
      EXPECT_EQ(validate(s).rfind("model: task ", 0), 0u) << name << ": " << validate(s);
    }
    for (const char* name : {"previous_token", "sort", "induction", "delayed_copy"}) {
      TrainSetup s = default_setup(*find_task(name));
      s.spec.model = a;
      EXPECT_EQ(validate(s), "") << name;
    }
  }
}

TEST(Tasks, ChecksRejectTooSmallAVocabulary) {
  for (const char* name : {"sort", "induction", "translate", "neighbours"}) {  // need 11, 15, 21, 42 ids
    TrainSetup s = default_setup(*find_task(name));
    s.spec.vocab = 10;
    EXPECT_EQ(validate(s).rfind("vocab: this task needs", 0), 0u) << name << ": " << validate(s);
  }
  TrainSetup s = default_setup(*find_task("previous_token"));
  s.spec.vocab = 1;
  EXPECT_EQ(validate(s).rfind("vocab", 0), 0u);
}

// [SECTION] training
TEST(Training, ShortSeededRunLearnsPreviousToken) {
  TrainSetup s = default_setup(*find_task("previous_token"));
  s.train.steps = 120, s.train.eval_every = 40, s.train.eval_batch = 64;
  Trainer t;
  ASSERT_EQ(t.start(s), "");
  const EvalPoint before = t.evaluate();
  EXPECT_NEAR(before.loss, std::log(16.0), 0.3);  // untrained: about uniform over 16 tokens
  while (!t.done()) t.run(7);  // k steps at a time, as a frame loop would
  ASSERT_FALSE(t.diverged()) << t.message();
  ASSERT_EQ(t.history().size(), 4u);  // step 0 + every 40 steps
  EXPECT_EQ(t.history().back().step, 120);
  const EvalPoint& after = t.history().back();
  EXPECT_LT(after.loss, 0.5 * before.loss);
  EXPECT_GT(after.accuracy, 0.9);
  EXPECT_GT(after.pattern_score, 0.5);  // a head attends to the previous token
  EXPECT_GT(after.pattern_score, 3 * before.pattern_score);
}

// A seeded short run of each recurrent model whose held-out loss falls (delayed copy at distance 1: a
// recurrent model can carry one token one step), and its probe: no attention, an influence matrix.
TEST(Training, ShortSeededRecurrentRunsLearnDelayedCopyAtDistanceOne) {
  for (Arch a : {Arch::rnn, Arch::lstm}) {
    SCOPED_TRACE(arch_kind(a).name);
    TrainSetup s = default_setup(*find_task("delayed_copy"));
    s.spec.model = a, s.spec.distance = 1, s.spec.n_ctx = 12, s.spec.hidden = 32;
    s.train.steps = 60, s.train.eval_every = 60, s.train.eval_batch = 64;
    Trainer t;
    ASSERT_EQ(t.start(s), "");
    const EvalPoint before = t.evaluate();
    EXPECT_NEAR(before.loss, std::log(16.0), 0.5);
    while (!t.done()) t.run(20);
    ASSERT_FALSE(t.diverged()) << t.message();
    const EvalPoint& after = t.history().back();
    EXPECT_LT(after.loss, 0.7 * before.loss);
    EXPECT_GT(after.accuracy, 2 * before.accuracy);
    EXPECT_TRUE(after.pattern.empty());
    const Probe p = t.probe(t.held_out_example(), true);
    EXPECT_EQ(p.heads, 0);
    EXPECT_TRUE(p.weights.empty());
    ASSERT_EQ(p.influence.size(), 12u * 12u);
    EXPECT_EQ(p.predictions.size(), 12u);
    for (int i = 0; i < 12; ++i)
      for (int j = i + 1; j < 12; ++j) EXPECT_EQ(p.influence[(size_t)i * 12 + j], 0.0f) << "causal: " << i << " " << j;
    EXPECT_GT(p.influence[11 * 12 + 10], 0.0f);
  }
}

TEST(Training, SaturationCountsNearlyOneHotRowsThatHadAChoice) {
  // previous_token: one layer, causal, so query 0 sees one key (left out) and the others 2..n keys.
  TrainSetup s = default_setup(*find_task("previous_token"));
  attn::Rng rng(attn::hash_string("saturation", 1));
  const Batch batch = make_batch(*find_task("previous_token"), s.spec, 4, s.spec.n_ctx, rng);
  Model<float> model(s.spec);
  model.init(1);
  const attn::learn::Tensor* wq = model.find(Param::w_q, 0);
  const attn::learn::Tensor* wk = model.find(Param::w_k, 0);
  // W_Q = 0: every score is 0, every row uniform over at least two keys, nothing saturated.
  std::fill_n(model.param(Param::w_q, 0), wq->size(), 0.0f);
  Metrics m = measure(*find_task("previous_token"), model, batch, model.forward(batch));
  ASSERT_EQ(m.saturation.size(), (size_t)s.spec.heads);
  for (double v : m.saturation) EXPECT_EQ(v, 0.0);
  // Scores thousands of times larger than usual: softmax is one-hot almost everywhere.
  model.init(1);
  for (float* w : {model.param(Param::w_q, 0), model.param(Param::w_k, 0)})
    for (size_t i = 0; i < wk->size(); ++i) w[i] *= 300.0f;
  m = measure(*find_task("previous_token"), model, batch, model.forward(batch));
  for (double v : m.saturation) EXPECT_GT(v, 0.9);
  // Chunked sums count the same rows as one pass.
  MetricSums sums;
  for (int first = 0; first < batch.size; first += 2) {
    const Batch part = slice(batch, first, 2);
    sums.add(*find_task("previous_token"), model, part, model.forward(part));
  }
  EXPECT_EQ(sums.finish(*find_task("previous_token"), 1, s.spec.heads).saturation, m.saturation);
  EXPECT_EQ(sums.rows, (long long)batch.size * (s.spec.n_ctx - 1)) << "query 0 has one key to see: left out";
}

TEST(Training, MicroBatchesSumToTheWholeBatchsGradient) {
  // In double precision the parts' gradients, each scaled by the whole batch's target count, add up to
  // the whole batch's gradient (up to rounding), for equal and unequal parts, tied and cross models;
  // also as training runs them (`carry`): targets-only forwards, later parts reuse the first's folded
  // tables, and the folded products wait for the last part. Parts of 4 sequences have more rows than
  // vocab + n: folded. Targets-only, the last layer's output folds too (model.h output_folding): with
  // its values for sort untied (d_v 32 ≥ vocab 11), without for induction at d_model 64 with 4 heads.
  struct Case {
    const char* name;
    bool tied;
    int d_model, heads;  // 0: the task's
    OutputFolding folds;
  };
  for (const Case& c : {Case{"induction", false, 0, 0, OutputFolding::none}, Case{"translate", false, 0, 0, OutputFolding::none},
                        Case{"sort", true, 0, 0, OutputFolding::none}, Case{"sort", false, 0, 0, OutputFolding::values},
                        Case{"induction", false, 64, 4, OutputFolding::output}})
    for (bool carry : {false, true}) {
      const char* name = c.name;
      SCOPED_TRACE(carry ? "tables and sums carried over" : "every part whole");
      SCOPED_TRACE(c.tied ? "tied" : "untied");
      SCOPED_TRACE(c.d_model);
      TrainSetup s = default_setup(*find_task(name));
      s.spec.tied = c.tied;
      if (c.d_model) s.spec.d_model = c.d_model, s.spec.heads = c.heads, s.spec.d_k = s.spec.d_v = c.d_model / c.heads;
      attn::Rng rng(attn::hash_string("parts", 3));
      const Batch batch = make_batch(*find_task(name), s.spec, 11, s.spec.n_ctx, rng);
      Model<double> whole(s.spec), parts(s.spec);
      whole.init(5);
      parts.params() = whole.params();
      const double loss = whole.forward(batch);
      whole.backward();
      int targets = 0;
      for (int y : batch.targets) targets += y >= 0;
      double sum = 0.0;
      for (int first = 0, part = 0; first < batch.size; first += 4, ++part) {  // 4 + 4 + 3
        const int size = std::min(4, batch.size - first);
        const Batch b = slice(batch, first, size);
        sum += parts.forward(b, carry, carry && part > 0) * parts.targets_counted();
        EXPECT_EQ(parts.output_folded(), carry ? c.folds : OutputFolding::none);
        parts.backward_part(targets, part > 0, carry && first + size < batch.size);
      }
      EXPECT_NEAR(sum / targets, loss, 1e-12 * loss) << name;
      double worst = 0.0, largest = 0.0;
      for (size_t i = 0; i < whole.grads().size(); ++i) {
        worst = std::max(worst, std::abs(whole.grads()[i] - parts.grads()[i]));
        largest = std::max(largest, std::abs(whole.grads()[i]));
      }
      EXPECT_GT(largest, 0.0) << name;
      EXPECT_LT(worst, 1e-12 * largest) << name;
    }
}

TEST(Training, AStepRunsInPartsAndTheWeightsChangeOnlyAfterTheLast) {
  TrainSetup s = default_setup(*find_task("previous_token"));
  s.train.steps = 4, s.train.batch = 20, s.train.micro_batch = 8, s.train.eval_every = 100;
  Trainer parts, whole;
  ASSERT_EQ(parts.start(s), "");
  TrainSetup one = s;
  one.train.micro_batch = 20;
  ASSERT_EQ(whole.start(one), "");
  EXPECT_EQ(parts.parts_per_step(), 3);  // 8 + 8 + 4
  const std::vector<float> w0 = parts.snapshot();
  EXPECT_FALSE(parts.run_part());
  EXPECT_FALSE(parts.run_part());
  EXPECT_EQ(parts.step(), 0);
  EXPECT_EQ(parts.snapshot(), w0) << "no update before the last part";
  EXPECT_TRUE(parts.run_part());
  EXPECT_EQ(parts.step(), 1);
  EXPECT_NE(parts.snapshot(), w0);
  EXPECT_EQ(parts.run(3), 3);  // run() takes whole steps
  EXPECT_EQ(whole.run(4), 4);
  // The same batches and the same gradient up to the order of float sums: the same run to rounding.
  EXPECT_NEAR(parts.last_train_loss(), whole.last_train_loss(), 1e-5 * whole.last_train_loss());
  const std::vector<float> a = parts.snapshot(), b = whole.snapshot();
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (double)std::abs(a[i] - b[i]));
  EXPECT_LT(worst, 1e-4);
  EXPECT_FALSE(parts.run_part()) << "done: nothing left to run";
}

TEST(Training, DeferredEvaluationsEqualWholeOnesAndKeepTheOrder) {
  // An evaluation a chunk at a time (as the lab spreads it over frames) gives the same points, bit for
  // bit, as one run whole; the chunks are micro-batches (here a whole training batch), the last shorter.
  TrainSetup s = default_setup(*find_task("induction"));
  s.train.steps = 6, s.train.eval_every = 3, s.train.batch = 24, s.train.micro_batch = 24, s.train.eval_batch = 60;
  Trainer whole, chunked;
  ASSERT_EQ(whole.start(s), "");
  ASSERT_EQ(chunked.start(s), "");
  chunked.set_deferred_evaluation(true);
  EXPECT_EQ(chunked.evaluation_chunks(), 3);  // 24 + 24 + 12
  whole.evaluate();
  chunked.begin_evaluation();
  EXPECT_FALSE(chunked.continue_evaluation(2));
  EXPECT_TRUE(chunked.evaluation_pending());
  EXPECT_TRUE(chunked.history().empty());
  EXPECT_TRUE(chunked.continue_evaluation(1));
  while (!whole.done()) whole.run(100);
  int runs = 0;
  while (!chunked.done()) {
    EXPECT_LE(chunked.run(100), 3);  // stops at a step due for an evaluation
    EXPECT_FALSE(chunked.done());    // not done while the last evaluation is pending
    while (chunked.evaluation_pending()) chunked.continue_evaluation(1);
    ++runs;
  }
  EXPECT_EQ(runs, 2);
  ASSERT_EQ(whole.history().size(), 3u);
  learn_expect::same_evaluations(whole.history(), chunked.history());
  // Against an independent reference: one forward pass over the whole held-out batch (drawn from the
  // same seed as the trainer draws it) and measure() on it.
  attn::Rng held_out_rng(attn::hash_string("held-out", s.train.seed));
  const Batch held_out = make_batch(*find_task("induction"), s.spec, s.train.eval_batch, s.spec.n_ctx, held_out_rng);
  Trainer fresh;
  ASSERT_EQ(fresh.start(s), "");
  Model<float> model(s.spec);
  model.params() = fresh.snapshot();
  const double loss = model.forward(held_out);
  const Metrics m = measure(*find_task("induction"), model, held_out, loss);
  EXPECT_NEAR(whole.history()[0].loss, loss, 1e-6 * loss);
  EXPECT_NEAR(whole.history()[0].accuracy, m.accuracy, 1e-12);
  ASSERT_EQ(whole.history()[0].pattern.size(), m.pattern.size());
  for (size_t i = 0; i < m.pattern.size(); ++i) EXPECT_NEAR(whole.history()[0].pattern[i], m.pattern[i], 1e-9);
  // run() finishes a pending evaluation before it steps on, so the history stays in step order.
  Trainer c2;
  ASSERT_EQ(c2.start(s), "");
  c2.set_deferred_evaluation(true);
  c2.begin_evaluation();
  c2.run(100);
  ASSERT_EQ(c2.history().size(), 1u);
  EXPECT_EQ(c2.history()[0].loss, whole.history()[0].loss);
}

TEST(Training, TimeSlicedRunsEqualOneRunAndProbesWork) {
  TrainSetup s = default_setup(*find_task("reverse"));
  s.train.steps = 12, s.train.eval_every = 100, s.train.eval_batch = 8;
  Trainer a, b;
  ASSERT_EQ(a.start(s), "");
  ASSERT_EQ(b.start(s), "");
  a.run(12);
  while (!b.done()) b.run(5);
  EXPECT_EQ(a.snapshot(), b.snapshot());  // bit-identical: same seed, same batches, same order

  const Example e = a.held_out_example(3);
  const Probe p = a.probe(e, true);
  ASSERT_EQ(p.weights.size(), 1u);
  ASSERT_EQ(p.weights[0].size(), (size_t)s.spec.heads * 12 * 12);
  ASSERT_EQ(p.score_grads[0].size(), p.weights[0].size());
  for (int h = 0; h < s.spec.heads; ++h)
    for (int i = 0; i < 12; ++i) {
      double sum = 0, gsum = 0;
      for (int j = 0; j < 12; ++j) {
        sum += p.weights[0][((size_t)h * 12 + i) * 12 + j];
        gsum += p.score_grads[0][((size_t)h * 12 + i) * 12 + j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
      EXPECT_NEAR(gsum, 0.0, 1e-6);  // softmax is shift-invariant: a row of dS sums to 0
    }
  EXPECT_EQ(p.predictions.size(), 12u);
  // The probe used its own buffers: training continues unchanged.
  const std::vector<float> before = a.snapshot();
  a.restore(before);
  EXPECT_EQ(a.snapshot(), before);
}

TEST(Training, DivergenceStopsAndKeepsTheLastGoodWeights) {
  TrainSetup s = default_setup(*find_task("previous_token"));
  s.train.steps = 10;
  Trainer t;
  ASSERT_EQ(t.start(s), "");
  t.run(2);
  std::vector<float> w = t.snapshot();
  w[t.model().find(Param::w_u)->offset] = INFINITY;  // a logit becomes ±inf or NaN: the loss is not finite
  t.restore(w);
  EXPECT_EQ(t.run(5), 0);
  EXPECT_TRUE(t.diverged());
  EXPECT_TRUE(t.done());
  EXPECT_NE(t.message().find("diverged at step 3"), std::string::npos) << t.message();
  EXPECT_EQ(t.snapshot(), w);  // nothing was applied
  EXPECT_EQ(t.run(5), 0);       // and it stays stopped
}

TEST(Training, ValidationNamesTheField) {
  TrainSetup s = default_setup(*find_task("induction"));
  s.train.batch = 0;
  EXPECT_EQ(validate(s).rfind("train.batch", 0), 0u);
  s = default_setup(*find_task("induction"));
  s.train.adamw.lr = -1;
  EXPECT_EQ(validate(s).rfind("train.lr", 0), 0u);
  s = default_setup(*find_task("induction"));
  s.spec.layers = 5;
  EXPECT_EQ(validate(s).rfind("layers", 0), 0u);
  s.task = "nope";
  EXPECT_EQ(validate(s).rfind("task", 0), 0u);
}

}  // namespace
