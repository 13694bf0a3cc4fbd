// The engine's forward pass: against the independent float64 reference, its defining properties,
// incremental recompute, edits, cross-attention and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine.h"
#include "reference64.h"

namespace {

attn::Config base(const std::string& text = "the cat sat on the mat because it was tired") {
  attn::Config c;
  c.target.text = text;
  return c;
}

attn::MaskTerm causal() { return {attn::MaskTerm::Kind::causal}; }
attn::MaskTerm window(int w, bool is_causal) {
  attn::MaskTerm t{attn::MaskTerm::Kind::window};
  t.window = w, t.window_causal = is_causal;
  return t;
}
attn::MaskTerm padding(std::vector<int> keys) {
  attn::MaskTerm t{attn::MaskTerm::Kind::padding};
  t.keys = std::move(keys);
  return t;
}

const attn::Result& run(attn::Engine& e, const attn::Config& c) {
  const std::string err = e.set_config(c);
  EXPECT_EQ(err, "");
  e.compute();
  return e.result();
}

// Fast engine vs float64 over a sweep of shapes, masks and encodings. Tolerance: 2e-5 relative
// (plus 2e-5 absolute), a few float32 ulps accumulated over dot products of length ≤ 64.
TEST(EngineVsFloat64, SweepOfShapesMasksAndEncodings) {
  struct Case { int words, d_model, heads, d_k, d_v; attn::Positional pe; std::vector<attn::MaskTerm> mask; bool cross; };
  const std::vector<Case> cases = {
      {1, 8, 1, 8, 8, attn::Positional::none, {}, false},
      {7, 13, 3, 5, 7, attn::Positional::sinusoidal, {causal()}, false},
      {9, 32, 4, 8, 8, attn::Positional::rope, {window(3, true)}, false},
      {17, 24, 2, 17, 3, attn::Positional::learned, {window(4, false), padding({0, 5})}, false},
      {33, 64, 8, 8, 8, attn::Positional::rope, {causal(), padding({2})}, false},
      {5, 16, 2, 8, 8, attn::Positional::sinusoidal, {}, true},
      {3, 8, 1, 3, 5, attn::Positional::none, {padding({0, 1, 2})}, false},  // every key masked
  };
  const char* words = "a quick brown fox jumps over the lazy dog while seven tired cats watch from a sunny wide "
                      "window and one small bird sings very loudly to nobody in particular at all today";
  for (const auto& kernels : attn::available_kernel_sets()) {
    for (const Case& k : cases) {
      attn::Config c;
      std::string text = words;
      c.target.text = text;
      c.max_tokens = k.words;
      c.truncate = true;
      c.d_model = k.d_model, c.heads = k.heads, c.d_k = k.d_k, c.d_v = k.d_v;
      c.positional = k.pe;
      c.mask = k.mask;
      c.cross = k.cross;
      if (k.cross) c.source.text = "seven tired cats in a window";
      attn::RunOutput out = attn::run_attention(c, kernels);
      ASSERT_EQ(out.error, "");
      const attn::Result& r = out.result;
      ASSERT_EQ(r.n, k.words);
      const ref64::Forward f = ref64::forward(r, k.pe == attn::Positional::rope);
      const double tol = 2e-5;
      for (int h = 0; h < r.heads; ++h) {
        SCOPED_TRACE(std::string(kernels->name) + " n=" + std::to_string(r.n) + " head " + std::to_string(h));
        EXPECT_LT(ref64::max_rel_err(r.q_head(h), f.q[h]), tol);
        EXPECT_LT(ref64::max_rel_err(r.k_head(h), f.k[h]), tol);
        EXPECT_LT(ref64::max_rel_err(r.v_head(h), f.v[h]), tol);
        EXPECT_LT(ref64::max_rel_err(r.scores_head(h), f.scores[h]), tol);
        EXPECT_LT(ref64::max_rel_err(r.weights_head(h), f.weights[h]), tol);
        EXPECT_LT(ref64::max_rel_err(r.out_head(h), f.out[h]), tol);
      }
      EXPECT_LT(ref64::max_rel_err(r.output_view(), f.output), tol);
    }
  }
}

TEST(EngineProperties, RowsSumToOneAndMaskedWeightsAreExactlyZero) {
  attn::Config c = base();
  c.mask = {window(3, false), padding({4})};
  attn::Engine e;
  const attn::Result& r = run(e, c);
  for (int h = 0; h < r.heads; ++h)
    for (int i = 0; i < r.n; ++i) {
      double sum = 0;
      for (int j = 0; j < r.m; ++j) {
        const float w = r.weights_head(h)(i, j);
        if (!r.mask.allows(i, j)) {
          EXPECT_EQ(w, 0.0f);
        }
        sum += w;
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
}

// The per-row readouts against their definitions in double, from the weights themselves:
// entropy = −Σ_j a_j·log₂ a_j and max_weight = max_j a_j, with the scores kept (the lab's engine) and
// lean (the CLI's), over masks with holes (a padded key inside a window), a fully masked row, a sharp
// temperature (one weight near 1, others underflowing to 0) and a flat one (near-uniform rows).
TEST(EngineProperties, RowEntropyAndMaxWeightEqualTheirDefinitions) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "w" + std::to_string(i % 13) + " ";
  attn::MaskTerm holes{attn::MaskTerm::Kind::custom};
  holes.rows = holes.cols = 40;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) holes.cells.push_back(i != 5 && (i + j) % 3 != 0);  // query 5 sees nothing
  for (const bool keep : {true, false})
    for (const float temperature : {0.001f, 0.3f, 1.0f, 1000.0f})
      for (const auto& mask : std::vector<std::vector<attn::MaskTerm>>{{}, {causal()}, {window(7, false), padding({3, 20})}, {holes}}) {
        attn::Config c = base(text);
        c.mask = mask, c.temperature = temperature;
        attn::Engine e({.keep_scores = keep});
        const attn::Result& r = run(e, c);
        for (int h = 0; h < r.heads; ++h)
          for (int i = 0; i < r.n; ++i) {
            double entropy = 0.0;
            float mx = 0.0f;
            for (int j = 0; j < r.m; ++j) {
              const double a = r.weights_head(h)(i, j);
              if (a > 0.0) entropy -= a * std::log2(a);
              mx = std::max(mx, r.weights_head(h)(i, j));
            }
            const size_t k = (size_t)h * r.n + i;
            ASSERT_NEAR(r.entropy[k], entropy, 2e-5 * std::max(1.0, entropy))
                << "keep " << keep << " τ " << temperature << " mask terms " << mask.size() << " head " << h << " row " << i;
            ASSERT_GE(r.entropy[k], 0.0f);
            ASSERT_EQ(r.max_weight[k], mx);
          }
      }
}

TEST(EngineProperties, FullyMaskedRowIsZeroAndReported) {
  attn::Config c = base("one two three");
  attn::MaskTerm custom{attn::MaskTerm::Kind::custom};
  custom.rows = custom.cols = 3;
  custom.cells = {1, 0, 0, 0, 0, 0, 1, 1, 1};  // query 1 may see nothing
  c.mask = {custom};
  attn::Engine e;
  const attn::Result& r = run(e, c);
  ASSERT_EQ(r.mask.fully_masked_rows, std::vector<int>{1});
  for (int h = 0; h < r.heads; ++h) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(r.weights_head(h)(1, j), 0.0f);
    for (int cc = 0; cc < r.d_v; ++cc) EXPECT_EQ(r.out_head(h)(1, cc), 0.0f);
    EXPECT_FALSE(std::isnan(r.output_view()(1, 0)));
  }
}

TEST(EngineProperties, WithoutPositionOutputIsPermutationEquivariant) {
  attn::Config a = base("red green blue yellow");
  a.positional = attn::Positional::none;
  attn::Config b = a;
  b.target.text = "blue red yellow green";  // permutation p = [2, 0, 3, 1]
  const int p[4] = {2, 0, 3, 1};
  const attn::Result ra = attn::run_attention(a).result, rb = attn::run_attention(b).result;
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < ra.d_model; ++c) EXPECT_NEAR(rb.output_view()(i, c), ra.output_view()(p[i], c), 1e-5);
  // ...and with position it is not.
  a.positional = b.positional = attn::Positional::sinusoidal;
  const attn::Result pa = attn::run_attention(a).result, pb = attn::run_attention(b).result;
  double diff = 0;
  for (int i = 0; i < 4; ++i) diff += std::fabs(pb.output_view()(i, 0) - pa.output_view()(p[i], 0));
  EXPECT_GT(diff, 1e-3);
}

TEST(EngineProperties, CausalRowDoesNotSeeTheFuture) {
  attn::Config a = base("the cat sat on the mat");
  a.mask = {causal()};
  attn::Config b = a;
  b.target.text = "the cat sat under a tree";  // tokens 3.. change
  const attn::Result ra = attn::run_attention(a).result, rb = attn::run_attention(b).result;
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < ra.d_model; ++c) EXPECT_EQ(ra.output_view()(i, c), rb.output_view()(i, c));
  EXPECT_NE(ra.output_view()(3, 0), rb.output_view()(3, 0));
}

TEST(EngineProperties, InvSqrtDkScaleEqualsTemperatureSqrtDk) {
  attn::Config a = base();
  a.d_k = 16;
  attn::Config b = a;
  b.scale_mode = attn::ScaleMode::none;
  b.temperature = 4.0f;  // √16
  const attn::Result ra = attn::run_attention(a).result, rb = attn::run_attention(b).result;
  for (size_t i = 0; i < ra.weights.size(); ++i) EXPECT_NEAR(ra.weights[i], rb.weights[i], 1e-6);
}

TEST(EngineProperties, RepeatedWordGetsTheSameEmbedding) {
  attn::Config c = base("the cat saw the dog");
  c.positional = attn::Positional::none;
  const attn::Result r = attn::run_attention(c).result;
  for (int k = 0; k < r.d_model; ++k) EXPECT_EQ(r.x_view()(0, k), r.x_view()(3, k));
  c.positional = attn::Positional::sinusoidal;
  const attn::Result p = attn::run_attention(c).result;
  EXPECT_NE(p.x_view()(0, 1), p.x_view()(3, 1));
}

TEST(EngineProperties, HeadWeightsStayWhenHeadCountChanges) {
  attn::Config c = base();
  c.heads = 2;
  const attn::Result a = attn::run_attention(c).result;
  c.heads = 4;
  const attn::Result b = attn::run_attention(c).result;
  for (int r = 0; r < a.d_model; ++r)
    for (int k = 0; k < a.d_k; ++k) EXPECT_EQ(a.w_q_head(1)(r, k), b.w_q_head(1)(r, k));
}

TEST(EngineLean, SkippingMaskedScoresGivesTheSameWeightsAndOutputs) {
  std::string text;
  for (int i = 0; i < 150; ++i) text += "w" + std::to_string(i % 37) + " ";
  for (const auto& mask : std::vector<std::vector<attn::MaskTerm>>{{}, {causal()}, {window(5, false)}, {window(9, true), padding({3, 60})}}) {
    attn::Config c = base(text);
    c.mask = mask;
    attn::Engine lean({.keep_scores = false}), full;
    run(lean, c);
    run(full, c);
    EXPECT_TRUE(lean.result().scores.empty());
    ASSERT_EQ(lean.result().weights.size(), full.result().weights.size());
    for (size_t i = 0; i < full.result().weights.size(); ++i) ASSERT_NEAR(lean.result().weights[i], full.result().weights[i], 1e-6) << i;
    for (size_t i = 0; i < full.result().output.size(); ++i) ASSERT_NEAR(lean.result().output[i], full.result().output[i], 1e-5) << i;
    // A mask change alone must still be right in lean mode (scores are not kept to reuse).
    c.mask.push_back(padding({7}));
    run(lean, c);
    run(full, c);
    for (size_t i = 0; i < full.result().output.size(); ++i) ASSERT_NEAR(lean.result().output[i], full.result().output[i], 1e-5) << i;
  }
}

TEST(EngineIncremental, MaskOrTemperatureChangeRedoesOnlySoftmaxOnwards) {
  attn::Engine e;
  attn::Config c = base();
  run(e, c);
  EXPECT_EQ(e.last_recomputed(), (1u << (int)attn::Stage::count) - 1);
  const auto bits = [](std::initializer_list<attn::Stage> s) { uint32_t b = 0; for (auto x : s) b |= 1u << (int)x; return b; };
  c.mask = {causal()};
  run(e, c);
  EXPECT_EQ(e.last_recomputed(), bits({attn::Stage::mask, attn::Stage::softmax, attn::Stage::mix, attn::Stage::output}));
  c.temperature = 2.0f;
  run(e, c);
  EXPECT_EQ(e.last_recomputed(), bits({attn::Stage::score, attn::Stage::softmax, attn::Stage::mix, attn::Stage::output}));
  run(e, c);
  EXPECT_EQ(e.last_recomputed(), 0u);
  // The incremental result equals a from-scratch run.
  const attn::Result fresh = attn::run_attention(c).result;
  EXPECT_EQ(e.result().output, fresh.output);
}

TEST(EngineEdits, OverridesApplyPropagateAndSurviveUnrelatedChanges) {
  attn::Engine e;
  attn::Config c = base();
  c.overrides = {{attn::Target::q, 1, 2, 3, 5.5f}, {attn::Target::w_o, 0, 0, 0, -2.0f}, {attn::Target::x, 0, 1, 0, 3.0f}};
  const attn::Result& r = run(e, c);
  EXPECT_EQ(r.q_head(1)(2, 3), 5.5f);
  EXPECT_EQ(r.w_o_view()(0, 0), -2.0f);
  EXPECT_EQ(r.x_view()(1, 0), 3.0f);
  // Scores see the edited q: recompute head 1, row 2 by hand.
  double dot = 0;
  for (int k = 0; k < r.d_k; ++k) dot += (double)r.q_head(1)(2, k) * r.k_head(1)(4, k);
  EXPECT_NEAR(r.scores_head(1)(2, 4), dot * r.alpha, 1e-4);
  c.temperature = 0.5f;
  const attn::Result& r2 = run(e, c);
  EXPECT_EQ(r2.q_head(1)(2, 3), 5.5f);
  c.overrides.clear();
  const attn::Result& r3 = run(e, c);
  EXPECT_NE(r3.q_head(1)(2, 3), 5.5f);
  EXPECT_EQ(r3.output, attn::run_attention(c).result.output);
}

TEST(EngineCross, QueriesFromTargetKeysFromSource) {
  attn::Config c = base("le chat dort");
  c.cross = true;
  c.source.text = "the cat is sleeping now";
  c.mask = {padding({4})};
  const attn::Result r = attn::run_attention(c).result;
  EXPECT_EQ(r.n, 3);
  EXPECT_EQ(r.m, 5);
  EXPECT_EQ(r.scores.size(), (size_t)r.heads * 3 * 5);
  EXPECT_EQ(r.weights_head(0)(0, 4), 0.0f);
}

TEST(EngineErrors, BadInputGivesAMessageAndKeepsState) {
  attn::Engine e;
  attn::Config good = base();
  run(e, good);
  const std::vector<float> before = e.result().output;
  const auto expect_error = [&](attn::Config c, const std::string& field) {
    const std::string err = e.set_config(c);
    EXPECT_EQ(err.rfind(field, 0), 0u) << "error '" << err << "' should start with " << field;
    e.compute();
    EXPECT_EQ(e.result().output, before);
    EXPECT_EQ(e.config(), good);
  };
  attn::Config c = good;
  c.target.text = "   ";
  expect_error(c, "text");
  c = good, c.d_model = 0;
  expect_error(c, "d_model");
  c = good, c.heads = 100000;
  expect_error(c, "heads");
  c = good, c.temperature = NAN;
  expect_error(c, "temperature");
  c = good, c.temperature = INFINITY;
  expect_error(c, "temperature");
  c = good, c.mask = {padding({99})};
  expect_error(c, "mask[0].padding");
  c = good, c.overrides = {{attn::Target::q, 0, 999, 0, 1.0f}};
  expect_error(c, "edits[0]");
  c = good, c.overrides = {{attn::Target::q, 0, 0, 0, NAN}};
  expect_error(c, "edits[0].value");
  c = good;
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "w ";
  c.target.text = many;
  expect_error(c, "text");
  c.truncate = true, c.max_tokens = 256;
  EXPECT_EQ(e.set_config(c), "");
  e.compute();
  EXPECT_EQ(e.result().n, 256);
  EXPECT_EQ(e.result().dropped_tokens, 5000 - 256);
}

}  // namespace
