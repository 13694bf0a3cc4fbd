// The lesson's measures (learn/measures.h) on hand-made models whose answer is known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "learn/measures.h"

namespace {

using namespace attn::learn;

// Two tokens, every target token 0; W_E = 0, so every input x_j is 0 and every logit is 0: softmax is
// (½, ½), and ∂loss_i/∂z_i = (½ − 1, ½). With W_U = [[1, −1]] (one unit), ∂loss_i/∂(unit at i) =
// −½·1 + ½·(−1) = −1.
Batch all_zero_targets(int B, int n) {
  Batch b;
  b.size = B, b.n = n;
  b.tokens.assign((size_t)B * n, 1);
  b.targets.assign((size_t)B * n, 0);
  return b;
}

// An RNN of one unit, d_model 1: h_t = tanh(x_t + ½·h_t−1). At x = 0 every h is 0 and tanh' = 1, so
// ∂h_i/∂x_j = ½^(i−j) and ∂loss_i/∂x_j = −½^(i−j): the gradient halves with every step of distance.
TEST(Measures, GradientAgainstDistanceOfAHandMadeRnnHalvesPerStep) {
  ModelSpec s;
  s.model = Arch::rnn, s.vocab = 2, s.d_model = 1, s.hidden = 1, s.layers = 1, s.n_ctx = 6;
  Model<double> m(s);
  std::fill(m.params().begin(), m.params().end(), 0.0);
  m.param(Param::weight_ih, 0)[0] = 1.0;
  m.param(Param::weight_hh, 0)[0] = 0.5;
  m.param(Param::w_u)[0] = 1.0, m.param(Param::w_u)[1] = -1.0;
  const int B = 3, n = 6;
  const DistanceProfile p = gradient_by_distance(m, all_zero_targets(B, n));
  ASSERT_EQ(p.mean.size(), (size_t)n);
  for (int d = 0; d < n; ++d) {
    EXPECT_NEAR(p.mean[(size_t)d], std::pow(0.5, d), 1e-15) << d;
    EXPECT_EQ(p.count[(size_t)d], (long long)B * (n - d)) << d;  // every (sequence, i ≥ d)
  }
  // The influence matrix: z_i = the target's logit = h_i, so ∂z_i/∂x_j = ½^(i−j) below the diagonal, 0 above.
  const std::vector<double> inf = influence_matrix(m, all_zero_targets(1, n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_NEAR(inf[(size_t)i * n + j], j <= i ? std::pow(0.5, i - j) : 0.0, 1e-15) << i << " " << j;
  // The float model measures the same.
  Model<float> f(s);
  for (size_t k = 0; k < f.params().size(); ++k) f.params()[k] = (float)m.params()[k];
  const DistanceProfile pf = gradient_by_distance(f, all_zero_targets(B, n));
  for (int d = 0; d < n; ++d) EXPECT_NEAR(pf.mean[(size_t)d], std::pow(0.5, d), 1e-6) << d;
}

// One attention layer, one head of width 1, no positions, W_Q = W_K = 0: the causal attention is
// uniform, a_ij = 1/(i+1) for j ≤ i, and the scores do not depend on x. With W_V = W_O = 1 the stream
// is X_1,i = x_i + Σ_j≤i x_j/(i+1), so ∂loss_i/∂x_j = −(δ_ij + 1/(i+1)): one step at every distance.
TEST(Measures, GradientAgainstDistanceOfAHandMadeAttentionLayerIsOneStepAtAnyDistance) {
  ModelSpec s;
  s.vocab = 2, s.d_model = 1, s.heads = 1, s.d_k = 1, s.d_v = 1, s.layers = 1, s.n_ctx = 5;
  s.positional = attn::Positional::none;
  s.mask = {attn::MaskTerm{.kind = attn::MaskTerm::Kind::causal}};
  Model<double> m(s);
  std::fill(m.params().begin(), m.params().end(), 0.0);
  m.param(Param::w_v, 0)[0] = 1.0, m.param(Param::w_o, 0)[0] = 1.0;
  m.param(Param::w_u)[0] = 1.0, m.param(Param::w_u)[1] = -1.0;
  const int B = 2, n = 5;
  const DistanceProfile p = gradient_by_distance(m, all_zero_targets(B, n));
  for (int d = 0; d < n; ++d) {
    double expected = 0.0;
    for (int i = d; i < n; ++i) expected += (d == 0 ? 1.0 : 0.0) + 1.0 / (i + 1);
    EXPECT_NEAR(p.mean[(size_t)d], expected / (n - d), 1e-15) << d;
  }
  const std::vector<double> inf = influence_matrix(m, all_zero_targets(1, n));
  EXPECT_NEAR(inf[4 * n + 0], 1.0 / 5, 1e-15);  // the first token reaches the last in one step
  EXPECT_NEAR(inf[4 * n + 4], 1.0 + 1.0 / 5, 1e-15);
  EXPECT_EQ(inf[0 * n + 1], 0.0);
}

}  // namespace
