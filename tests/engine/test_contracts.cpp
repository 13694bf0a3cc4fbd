// The engine's promises beyond the forward pass's numbers: lean mode on every kernel set, explaining
// a lean result, incremental recompute for every Config field, the registration tables, the
// positional encodings against their formulas, the seeded streams that shared links replay, and
// the limits (checked before any work, previous state kept).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "embedding.h"
#include "engine.h"
#include "learn/model.h"
#include "explain.h"
#include "mask.h"
#include "positional.h"
#include "prng.h"

namespace {

attn::Config sample(std::vector<attn::MaskTerm> mask = {}) {
  attn::Config c;
  c.target.text = "the cat sat on the mat because it was tired and so was the dog next to it";
  c.mask = std::move(mask);
  return c;
}

// [SECTION] lean mode
// Before the fix, gemm_ref ignored rows_done, so lean mode on the reference kernels returned raw
// scores as "weights" (and attnlab-bench --impl reference timed that).
TEST(EngineLean, EveryKernelSetAppliesTheSoftmax) {
  bool saw_reference = false;
  for (const attn::KernelSet* k : attn::available_kernel_sets()) {
    saw_reference |= std::string(k->name) == "reference";
    for (auto mask : std::vector<std::vector<attn::MaskTerm>>{{}, {{attn::MaskTerm::Kind::causal}}}) {
      attn::Engine lean({.keep_scores = false}), full;
      lean.set_kernels(k), full.set_kernels(k);
      ASSERT_EQ(lean.set_config(sample(mask)), "");
      ASSERT_EQ(full.set_config(sample(mask)), "");
      lean.compute(), full.compute();
      const attn::Result &a = lean.result(), &b = full.result();
      for (size_t i = 0; i < b.weights.size(); ++i) ASSERT_NEAR(a.weights[i], b.weights[i], 1e-6) << k->name << " " << i;
      for (int h = 0; h < a.heads; ++h)
        for (int i = 0; i < a.n; ++i) {
          double sum = 0;
          for (int j = 0; j < a.m; ++j) sum += a.weights_head(h)(i, j);
          ASSERT_NEAR(sum, 1.0, 1e-5) << k->name;
        }
    }
  }
  EXPECT_TRUE(saw_reference) << "the reference kernels must be among the sets tried";
}

// Before the fix: a null dereference (scores is empty in a lean result).
TEST(EngineLean, ExplainingALeanResultRecomputesTheScores) {
  attn::Engine lean({.keep_scores = false}), full;
  ASSERT_EQ(lean.set_config(sample({{attn::MaskTerm::Kind::causal}})), "");
  ASSERT_EQ(full.set_config(sample({{attn::MaskTerm::Kind::causal}})), "");
  lean.compute(), full.compute();
  ASSERT_TRUE(lean.result().scores.empty());
  for (int j : {0, 2, 5}) {
    const attn::WeightExplanation a = attn::explain_weight(lean.result(), 1, 5, j);
    const attn::WeightExplanation b = attn::explain_weight(full.result(), 1, 5, j);
    EXPECT_NEAR(a.weight, b.weight, 1e-6);
    EXPECT_NEAR(a.weight, full.result().weights_head(1)(5, j), 1e-6);
    EXPECT_NEAR(a.row_sum, b.row_sum, 1e-5 * b.row_sum);
  }
  EXPECT_NE(attn::explain_cell_text(lean.result(), 1, 5, 2).find("weight = exp"), std::string::npos);
}

// [SECTION] incremental recompute
// The number of fields of an aggregate (C++20: the largest N for which T{any × N} compiles).
struct Any {
  template <class T>
  operator T() const;
};
template <class T, class... A>
constexpr int field_count() {
  if constexpr (requires { T{A{}..., Any{}}; }) return field_count<T, A..., Any>();
  else return sizeof...(A);
}

// Each Config field changed alone, incrementally from a computed base, gives bit for bit the result
// of a fresh engine. If this fails to compile, a field was added: add its change below.
TEST(EngineIncremental, EveryFieldChangedAloneMatchesAFreshRun) {
  // Config = the AttentionSpec it shares with a trained model (one base, 9 fields) + 13 of its own.
  static_assert(field_count<attn::AttentionSpec>() == 9 && field_count<attn::Config>() == 1 + 13,
                "a Config field was added or removed: update `changes`");
  using C = attn::Config;
  const std::vector<std::pair<const char*, std::function<void(C&)>>> changes = {
      {"target", [](C& c) { c.target.text = "a dog sat on a log"; }},
      {"cross", [](C& c) { c.cross = true, c.source.text = "le chat dort"; }},
      {"source", [](C& c) { c.source.text = "another source"; }},  // ignored without cross
      {"max_tokens", [](C& c) { c.max_tokens = 5, c.truncate = true; }},
      {"truncate", [](C& c) { c.truncate = true; }},
      {"d_model", [](C& c) { c.d_model = 24; }},
      {"heads", [](C& c) { c.heads = 3; }},
      {"d_k", [](C& c) { c.d_k = 5; }},
      {"d_v", [](C& c) { c.d_v = 3; }},
      {"seed", [](C& c) { c.seed = 7; }},
      {"embedding", [](C& c) { c.embedding = attn::Embedding::interpretable; }},
      {"positional", [](C& c) { c.positional = attn::Positional::rope; }},
      {"positional learned", [](C& c) { c.positional = attn::Positional::learned; }},
      {"scale_mode", [](C& c) { c.scale_mode = attn::ScaleMode::none; }},
      {"scale_value", [](C& c) { c.scale_mode = attn::ScaleMode::custom, c.scale_value = 0.25f; }},
      {"temperature", [](C& c) { c.temperature = 0.3f; }},
      {"mask", [](C& c) { c.mask = {{attn::MaskTerm::Kind::causal}}; }},
      {"w_q", [](C& c) { c.w_q.assign((size_t)c.heads * c.d_model * c.d_k, 0.01f); }},
      {"w_k", [](C& c) { c.w_k.assign((size_t)c.heads * c.d_model * c.d_k, -0.02f); }},
      {"w_v", [](C& c) { c.w_v.assign((size_t)c.heads * c.d_model * c.d_v, 0.03f); }},
      {"w_o", [](C& c) { c.w_o.assign((size_t)c.heads * c.d_v * c.d_model, 0.04f); }},
      {"handmade", [](C& c) { c.handmade = {{1, "same_word"}}; }},
      {"overrides x", [](C& c) { c.overrides = {{attn::Target::x, 0, 1, 2, 3.0f}}; }},
      {"overrides w_q", [](C& c) { c.overrides = {{attn::Target::w_q, 1, 1, 2, 3.0f}}; }},
      {"overrides w_o", [](C& c) { c.overrides = {{attn::Target::w_o, 0, 3, 2, 3.0f}}; }},
      {"overrides q", [](C& c) { c.overrides = {{attn::Target::q, 2, 1, 2, 3.0f}}; }},
      {"overrides k", [](C& c) { c.overrides = {{attn::Target::k, 3, 4, 0, -3.0f}}; }},
      {"overrides v", [](C& c) { c.overrides = {{attn::Target::v, 0, 0, 1, 5.0f}}; }},
  };
  for (bool keep_scores : {true, false}) {
    for (const auto& [name, change] : changes) {
      attn::Config base = sample(), changed = sample();
      base.source.text = "la souris";
      changed.source.text = "la souris";
      change(changed);
      attn::Engine incremental({.keep_scores = keep_scores}), fresh({.keep_scores = keep_scores});
      ASSERT_EQ(incremental.set_config(base), "") << name;
      incremental.compute();
      ASSERT_EQ(incremental.set_config(changed), "") << name;
      incremental.compute();
      ASSERT_EQ(fresh.set_config(changed), "") << name;
      fresh.compute();
      const attn::Result &a = incremental.result(), &b = fresh.result();
      EXPECT_EQ(a.tokens, b.tokens) << name;
      EXPECT_EQ(a.x, b.x) << name;
      EXPECT_EQ(a.x_source, b.x_source) << name;
      EXPECT_EQ(a.w_q, b.w_q) << name;
      EXPECT_EQ(a.w_o, b.w_o) << name;
      EXPECT_EQ(a.q, b.q) << name;
      EXPECT_EQ(a.k, b.k) << name;
      EXPECT_EQ(a.v, b.v) << name;
      EXPECT_EQ(a.scores, b.scores) << name;
      EXPECT_EQ(a.mask.allowed, b.mask.allowed) << name;
      EXPECT_EQ(a.weights, b.weights) << name;
      EXPECT_EQ(a.output, b.output) << name;
      EXPECT_EQ(a.entropy, b.entropy) << name;
      EXPECT_EQ(a.alpha, b.alpha) << name;
    }
  }
}

// [SECTION] registration tables
TEST(Registration, EveryMaskKindIsRegisteredOnceAndHidesWhatItsDefinitionSays) {
  using Kind = attn::MaskTerm::Kind;
  ASSERT_EQ(attn::mask_kinds().size(), (size_t)Kind::count);
  for (size_t i = 0; i < attn::mask_kinds().size(); ++i) {
    const attn::MaskKind& k = attn::mask_kinds()[i];
    EXPECT_EQ((size_t)k.kind, i);
    EXPECT_EQ(attn::find_mask_kind(k.name), &k);
    EXPECT_STREQ(attn::to_string(k.kind), k.name);
    EXPECT_EQ(k.check(k.make(5, 7), 5, 7), "") << k.name << ": the term the lab adds must fit";
  }
  // The definitions, cell by cell, for n = 6 queries and m = 8 keys (cross-shaped on purpose).
  const int n = 6, m = 8;
  attn::MaskTerm custom = attn::mask_kind(Kind::custom).make(n, m);
  for (int i = 0; i < n; ++i) custom.cells[(size_t)i * m + (i * 3) % m] = 0;
  const std::vector<std::pair<attn::MaskTerm, std::function<bool(int, int)>>> cases = {
      {{Kind::none}, [](int, int) { return true; }},
      {{Kind::causal}, [](int i, int j) { return j <= i; }},
      {{.kind = Kind::window, .window = 3, .window_causal = true}, [](int i, int j) { return i - 3 < j && j <= i; }},
      {{.kind = Kind::window, .window = 2, .window_causal = false}, [](int i, int j) { return std::abs(i - j) < 2; }},
      {{.kind = Kind::padding, .keys = {1, 6}}, [](int, int j) { return j != 1 && j != 6; }},
      {custom, [](int i, int j) { return j != (i * 3) % 8; }},
  };
  for (const auto& [term, allows] : cases) {
    ASSERT_EQ(attn::check_mask({term}, n, m), "");
    const attn::MaskMatrix mm = attn::build_mask({term}, n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) EXPECT_EQ(mm.allows(i, j), allows(i, j)) << attn::to_string(term.kind) << " " << i << "," << j;
    // The ranges the kernels may skip outside: every allowed cell lies in its row's and its key's range.
    ASSERT_EQ(mm.ranges.size(), (size_t)n);
    ASSERT_EQ(mm.key_ranges.size(), (size_t)m);
    for (int j = 0; j < m; ++j) {
      int lo = n, hi = 0;
      for (int i = 0; i < n; ++i)
        if (allows(i, j)) lo = std::min(lo, i), hi = i + 1;
      if (hi == 0) lo = 0;
      EXPECT_EQ(mm.key_ranges[(size_t)j].lo, lo) << attn::to_string(term.kind) << " key " << j;
      EXPECT_EQ(mm.key_ranges[(size_t)j].hi, hi) << attn::to_string(term.kind) << " key " << j;
    }
    // The queries from row0 on as a mask of their own (a training step's last layer starts each
    // sequence at its first row with a target): the same cells, each row's range, and each key's
    // range among those rows counted from row0; all n + 1 starts, the last with no rows.
    for (int row0 = 0; row0 <= n; ++row0) {
      const attn::MaskMatrix tail = attn::mask_rows_from(mm, row0);
      const std::string what = std::string(attn::to_string(term.kind)) + " from row " + std::to_string(row0);
      ASSERT_EQ(tail.n, n - row0) << what;
      ASSERT_EQ(tail.m, m) << what;
      ASSERT_EQ(tail.ranges.size(), (size_t)(n - row0)) << what;
      ASSERT_EQ(tail.key_ranges.size(), (size_t)m) << what;
      std::vector<int> fully;
      bool dense = true;  // no hidden key inside a row's range
      for (int i = 0; i < n - row0; ++i) {
        int lo = m, hi = 0;
        for (int j = 0; j < m; ++j) {
          EXPECT_EQ(tail.allows(i, j), allows(row0 + i, j)) << what << " " << i << "," << j;
          if (allows(row0 + i, j)) lo = std::min(lo, j), hi = j + 1;
        }
        if (hi == 0) lo = 0, fully.push_back(i);
        for (int j = lo; j < hi; ++j) dense = dense && allows(row0 + i, j);
        EXPECT_EQ(tail.ranges[(size_t)i].lo, lo) << what << " row " << i;
        EXPECT_EQ(tail.ranges[(size_t)i].hi, hi) << what << " row " << i;
      }
      EXPECT_EQ(tail.fully_masked_rows, fully) << what;
      EXPECT_EQ(tail.dense, dense) << what;
      for (int j = 0; j < m; ++j) {
        int lo = n - row0, hi = 0;
        for (int i = 0; i < n - row0; ++i)
          if (allows(row0 + i, j)) lo = std::min(lo, i), hi = i + 1;
        if (hi == 0) lo = 0;
        EXPECT_EQ(tail.key_ranges[(size_t)j].lo, lo) << what << " key " << j;
        EXPECT_EQ(tail.key_ranges[(size_t)j].hi, hi) << what << " key " << j;
      }
    }
  }
}

TEST(Registration, EveryPositionalEncodingIsRegisteredOnce) {
  ASSERT_EQ(attn::positional_kinds().size(), (size_t)attn::Positional::count);
  for (size_t i = 0; i < attn::positional_kinds().size(); ++i) {
    const attn::PositionalKind& k = attn::positional_kinds()[i];
    EXPECT_EQ((size_t)k.kind, i);
    EXPECT_EQ(attn::find_positional_kind(k.name), &k);
    EXPECT_STREQ(attn::to_string(k.kind), k.name);
    EXPECT_TRUE(k.label && *k.label && k.help && *k.help);
    EXPECT_TRUE(k.x_title && k.x_help) << k.name;
    EXPECT_EQ(k.add != nullptr, k.p_title != nullptr && k.p_help != nullptr && k.p_words != nullptr) << k.name << ": what it adds, it names";
    EXPECT_TRUE(!k.trained || k.add) << k.name << ": a trained table is shown as the lab's seeded one";
  }
}

// What each entry says is what the lab's engine and the learning model do with it: P in the result is
// `add` on zeros and X = E + P; a model has a `pos` tensor exactly when the entry is trained, and a
// rotation of Q and K exactly when it rotates (its queries differ from the unrotated projection).
TEST(Registration, ThePositionalEntryIsWhatTheEngineAndTheModelDo) {
  for (const attn::PositionalKind& k : attn::positional_kinds()) {
    attn::Config c;
    c.target.text = "a b c a b c d";
    c.positional = k.kind;
    const attn::RunOutput out = attn::run_attention(c);
    ASSERT_EQ(out.error, "") << k.name;
    const attn::Result& r = out.result;
    std::vector<float> p((size_t)r.n * r.d_model, 0.0f);
    if (k.add) k.add(p, r.n, r.d_model, c.seed);
    EXPECT_EQ(r.positions, p) << k.name;
    attn::Config none = c;
    none.positional = attn::Positional::none;
    const attn::Result plain = attn::run_attention(none).result;
    for (size_t i = 0; i < r.x.size(); ++i) ASSERT_EQ(r.x[i], plain.x[i] + p[i]) << k.name << " " << i;
    EXPECT_EQ(r.q != plain.q, k.add || k.rotates_qk) << k.name;
    attn::learn::ModelSpec s;
    s.positional = k.kind;
    const attn::learn::Model<float> model(s);
    EXPECT_EQ(model.find(attn::learn::Param::pos) != nullptr, k.trained) << k.name;
  }
}

// [SECTION] positional encodings against their formulas (in double)
TEST(Positional, SinusoidalIsTheFormula) {
  for (int d : {1, 2, 7, 16}) {
    const int n = 50;
    std::vector<float> x((size_t)n * d, 0.0f);
    attn::add_sinusoidal(x, n, d);
    for (int pos = 0; pos < n; ++pos)
      for (int c = 0; c < d; ++c) {
        const double angle = pos / std::pow(10000.0, (double)(c - c % 2) / d);  // 2i = c rounded down to even
        const double expect = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        ASSERT_NEAR(x[(size_t)pos * d + c], expect, 1e-6) << "d=" << d << " pos=" << pos << " c=" << c;
      }
  }
}

TEST(Positional, RopeRotatesEachPairByPosTimesTheta) {
  for (int d : {2, 5, 8}) {  // odd d: the last coordinate stays as it is
    const int n = 20;
    std::vector<float> m((size_t)n * d), orig;
    for (size_t i = 0; i < m.size(); ++i) m[i] = (float)std::sin(0.37 * (double)i + 1.0);
    orig = m;
    attn::apply_rope(m.data(), n, d, d);
    for (int pos = 0; pos < n; ++pos) {
      for (int i = 0; 2 * i + 1 < d; ++i) {
        const double theta = std::pow(10000.0, -2.0 * i / d), a = orig[(size_t)pos * d + 2 * i], b = orig[(size_t)pos * d + 2 * i + 1];
        ASSERT_NEAR(m[(size_t)pos * d + 2 * i], a * std::cos(pos * theta) - b * std::sin(pos * theta), 1e-5);
        ASSERT_NEAR(m[(size_t)pos * d + 2 * i + 1], a * std::sin(pos * theta) + b * std::cos(pos * theta), 1e-5);
      }
      if (d % 2) {
        ASSERT_EQ(m[(size_t)pos * d + d - 1], orig[(size_t)pos * d + d - 1]);
      }
    }
  }
  // The point of RoPE: the same q and k vectors at positions (i, j) and (i + t, j + t) give the same dot.
  const int d = 8;
  std::vector<float> q(30 * d), k(30 * d);
  for (int p = 0; p < 30; ++p)
    for (int c = 0; c < d; ++c) q[(size_t)p * d + c] = 0.3f * (float)(c + 1), k[(size_t)p * d + c] = 0.2f * (float)(d - c);
  attn::apply_rope(q.data(), 30, d, d);
  attn::apply_rope(k.data(), 30, d, d);
  const auto dot = [&](int i, int j) {
    double s = 0;
    for (int c = 0; c < d; ++c) s += (double)q[(size_t)i * d + c] * k[(size_t)j * d + c];
    return s;
  };
  EXPECT_NEAR(dot(5, 2), dot(25, 22), 1e-4);
  EXPECT_NEAR(dot(3, 9), dot(13, 19), 1e-4);
}

TEST(Positional, LearnedIsASeededTableAddedToX) {
  std::vector<float> a(4 * 6, 0.0f), b(4 * 6, 1.0f);
  attn::add_learned(a, 4, 6, 42);
  attn::add_learned(b, 4, 6, 42);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_FLOAT_EQ(b[i], a[i] + 1.0f);  // added, the same each time
  attn::Rng rng(attn::hash_string("position", 42 + 0x9E37ull * 3));            // position 2's stream
  for (int c = 0; c < 6; ++c) EXPECT_EQ(a[2 * 6 + c], 0.5f * rng.normal());
}

// Explicit x replaces the embedding only: the positional encoding is still added (use
// "positional": "none" for x exactly as given), to the target's and the source's rows alike.
TEST(Positional, ExplicitXGetsThePositionalEncoding) {
  attn::Config c;
  c.d_model = 4, c.heads = 1, c.d_k = c.d_v = 4;
  c.target.x = {1, 2, 3, 4, 5, 6, 7, 8}, c.target.x_rows = 2, c.target.text.clear();
  c.cross = true;
  c.source.x = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, c.source.x_rows = 3;
  for (const attn::PositionalKind& p : attn::positional_kinds()) {
    c.positional = p.kind;
    const attn::RunOutput out = attn::run_attention(c);
    ASSERT_EQ(out.error, "");
    std::vector<float> x = c.target.x, xs = c.source.x;
    if (p.add) p.add(x, 2, 4, c.seed), p.add(xs, 3, 4, c.seed);
    EXPECT_EQ(out.result.x, x) << p.name;
    EXPECT_EQ(out.result.x_source, xs) << p.name;
  }
}

// [SECTION] seeded streams: a shared link replays its numbers only while these stay bit-identical.
// The constants were printed once by this build and are pinned here; natively and in WebAssembly.
TEST(SeededStreams, ArePinned) {
  attn::Rng rng(42);
  EXPECT_EQ(rng.next_u64(), 0xBDD732262FEB6E95ull);
  EXPECT_EQ(attn::hash_string("cat", 42), 0xA46B6B7C83C1EA3Cull);
  std::vector<float> e(4), g(4), p(4, 0.0f);
  attn::embed_token("Cat", attn::Embedding::hashed, 42, e);
  attn::glorot_matrix(42, 'Q', 1, 2, 2, g);
  attn::add_learned(p, 1, 4, 42);
  const std::vector<float> e_pinned = {2.57612872f, 0.381304353f, -0.821956635f, 0.795767307f};
  const std::vector<float> g_pinned = {0.999688208f, -0.313898146f, -0.588286698f, 1.17455149f};
  const std::vector<float> p_pinned = {0.117326185f, -0.220631942f, 0.606052756f, 0.0870286822f};
  EXPECT_EQ(e, e_pinned);
  EXPECT_EQ(g, g_pinned);
  EXPECT_EQ(p, p_pinned);
}

// [SECTION] limits: checked before any work; the previous config and result stay
TEST(Limits, MemoryOverTheBudgetIsRefusedNamingTheField) {
  attn::Engine e;
  ASSERT_EQ(e.set_config(sample()), "");
  e.compute();
  const std::vector<float> before = e.result().output;
  attn::Config wide = sample();
  wide.d_model = 4096, wide.heads = 16, wide.d_k = wide.d_v = 1024;  // 1.3 GiB of W matrices
  const std::string err = e.set_config(wide);
  EXPECT_EQ(err.rfind("d_model: this config needs about", 0), 0u) << err;
  EXPECT_NE(err.find("512 MiB"), std::string::npos) << err;
  EXPECT_FALSE(e.needs_compute());
  EXPECT_EQ(e.result().output, before);
  EXPECT_EQ(e.config(), sample());
  attn::Config many;
  many.heads = 4, many.target.text.clear();
  for (int i = 0; i < 4096; ++i) many.target.text += "w ";
  EXPECT_EQ(e.set_config(many).rfind("heads: this config needs", 0), 0u);
}

TEST(Limits, TheEstimateCoversWhatTheEngineHolds) {
  for (attn::Config c : {sample(), sample({{attn::MaskTerm::Kind::causal}})}) {
    c.d_model = 48, c.heads = 3, c.d_k = 7, c.d_v = 5;
    const attn::RunOutput out = attn::run_attention(c);
    const attn::Result& r = out.result;
    const size_t held = 4 * (r.x.size() * 3 + r.x_source.size() * 2 + r.w_q.size() + r.w_k.size() + r.w_v.size() +
                             r.w_o.size() + r.q.size() + r.k.size() + r.v.size() + r.scores.size() + r.weights.size() +
                             r.concat.size() + r.output.size() + r.entropy.size() + r.max_weight.size()) +
                        r.mask.allowed.size();
    EXPECT_GE(attn::estimate_memory(c, r.n, r.m).bytes, (int64_t)held);
    EXPECT_LE(attn::estimate_memory(c, r.n, r.m).bytes, (int64_t)held * 3);  // and is not absurdly loose
  }
}

TEST(Limits, MaskTermsAndPaddingKeysAreBounded) {
  attn::Config c = sample();
  c.mask.assign(attn::Limits::max_mask_terms + 1, {attn::MaskTerm::Kind::causal});
  EXPECT_EQ(attn::validate(c).rfind("mask: 17 terms, at most 16", 0), 0u) << attn::validate(c);
  c.mask = {{.kind = attn::MaskTerm::Kind::padding, .keys = std::vector<int>(attn::Limits::max_padding_keys + 1, 0)}};
  attn::Engine e;
  EXPECT_EQ(e.set_config(c).rfind("mask[0].padding: 4097 keys listed", 0), 0u);
}

}  // namespace
