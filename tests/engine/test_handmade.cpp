// Hand-built heads (handmade_heads.h): weights written by hand for one pattern, checked through the
// engine alone: the pattern appears, the other heads are untouched, bad kinds are refused, and the
// positional heads read position and nothing else.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.h"
#include "embedding.h"
#include "engine.h"
#include "handmade_heads.h"

namespace {

TEST(Handmade, SameWordHeadFindsCopiesAndBadKindsAreRefused) {
  attn::Config c;
  c.target.text = "the cat saw the other cat";
  c.positional = attn::Positional::none;
  c.d_model = 32, c.heads = 2, c.d_k = c.d_v = 16;
  c.handmade = {{1, "same_word"}};
  const attn::RunOutput out = attn::run_attention(c);
  ASSERT_EQ(out.error, "");
  const attn::MatView a = out.result.weights_head(1);
  EXPECT_GT(a(1, 1) + a(1, 5), 0.9f) << "'cat' attends to the two cats";
  EXPECT_GT(a(0, 0) + a(0, 3), 0.9f) << "'the' attends to the two 'the's";
  // Head 0 is untouched: the same as without any hand-built head.
  attn::Config plain = c;
  plain.handmade.clear();
  const attn::RunOutput ref = attn::run_attention(plain);
  EXPECT_EQ(out.result.weights_head(0)(2, 3), ref.result.weights_head(0)(2, 3));
  c.handmade = {{0, "psychic"}};
  EXPECT_EQ(attn::validate(c).rfind("handmade[0].kind", 0), 0u) << attn::validate(c);
  c.handmade = {{2, "pronoun"}};
  EXPECT_EQ(attn::validate(c).rfind("handmade[0].head", 0), 0u) << attn::validate(c);
}

// The positional heads read only the bias feature, so the words must not matter: random sentences of
// table words and unknown words, short and long, with and without a causal mask, at every d_k from 4.
TEST(Handmade, PreviousTokenAndWindowHeadsReadPositionAlone) {
  const char* words[] = {"the", "cat", "dogs", "because", "it", "was", "tired", "zorblax", "sat", "mat", "qwerty"};
  uint64_t state = 12345;
  auto pick = [&] { state = state * 6364136223846793005ull + 1442695040888963407ull; return words[(state >> 33) % 11]; };
  for (int d_k : {4, 8, 16, 32})
    for (int n : {10, 32})
      for (bool causal : {false, true}) {
        attn::Config c;
        std::string text;
        for (int i = 0; i < n; ++i) text += std::string(i ? " " : "") + pick();
        c.target.text = text;
        c.heads = 2, c.d_k = d_k, c.d_v = 8;
        if (causal) c.mask.push_back({attn::MaskTerm::Kind::causal});
        c.handmade = {{0, "previous_token"}, {1, "window"}};
        EXPECT_EQ(attn::meet_handmade_needs(c, "previous_token"),
                  "embedding: interpretable, position: RoPE");  // d_model 32 already holds the bias feature
        const attn::RunOutput out = attn::run_attention(c);
        ASSERT_EQ(out.error, "");
        ASSERT_EQ(out.result.n, n);
        const attn::MatView prev = out.result.weights_head(0), win = out.result.weights_head(1);
        const std::string at = "d_k " + std::to_string(d_k) + ", n " + std::to_string(n) + (causal ? ", causal" : "");
        for (int i = 1; i < n; ++i) EXPECT_GT(prev(i, i - 1), 0.95f) << at << ", row " << i;
        if (d_k < 16) continue;  // the window needs many rotation speeds to keep far tokens out (its help says so)
        for (int i = 1; i + 1 < n; ++i) {
          const float near = win(i, i - 1) + win(i, i) + (causal ? 0.0f : win(i, i + 1));
          EXPECT_GT(near, 0.8f) << at << ", row " << i;
          EXPECT_GT(win(i, i), win(i, i - 1)) << at << ", row " << i << ": the peak is on the token itself";
          EXPECT_GT(win(i, i - 1), 0.1f) << at << ", row " << i << ": a soft window, not a one-hot";
        }
      }
}

TEST(Handmade, PositionalHeadsSetUpWhatTheyNeedAndSeeNothingWithoutRope) {
  attn::Config c;
  c.d_model = 8, c.heads = 1, c.d_k = 8, c.d_v = 8;
  EXPECT_EQ(attn::meet_handmade_needs(c, "window"),
            "embedding: interpretable, position: RoPE, d_model: 16 (the bias feature is dimension 8)");
  EXPECT_EQ(attn::meet_handmade_needs(c, "window"), "") << "nothing left to change";
  EXPECT_EQ(attn::meet_handmade_needs(c, "same_word"), "");
  attn::Config p;
  EXPECT_EQ(attn::meet_handmade_needs(p, "pronoun"), "embedding: interpretable");
  // Every token, in the table or not, has 1 in the bias dimension; the table's words keep their features.
  std::vector<float> x(16);
  attn::embed_token("zorblax", attn::Embedding::interpretable, 3, x);
  EXPECT_EQ(x[8], 1.0f);
  attn::embed_token("cat", attn::Embedding::interpretable, 3, x);
  EXPECT_EQ(x[0], 1.0f) << "cat is an animal";
  EXPECT_EQ(x[8], 1.0f);
  // With an added (sinusoidal) position instead of RoPE, the same weights see no order: no sub-diagonal.
  c.target.text = "the cat sat on the mat because it was tired";
  c.handmade = {{0, "previous_token"}};
  c.positional = attn::Positional::sinusoidal;
  const attn::RunOutput out = attn::run_attention(c);
  ASSERT_EQ(out.error, "");
  float mass = 0.0f;
  for (int i = 1; i < out.result.n; ++i) mass += out.result.weights_head(0)(i, i - 1);
  EXPECT_LT(mass / (out.result.n - 1), 0.5f);
}

}  // namespace
