// measures.h — what the "why attention replaced recurrence" lesson measures, for any model (attention
// or recurrent, trained or not): how strongly the loss at position i depends on the input at j as a
// function of the distance i − j, and one example's influence matrix.
//
// x_j is the input embedding at position j: X_0 row j (W_E[token] + P) for attention, the recurrent
// model's x_j = W_E[token]. Gradients are taken by the model's own backward pass (exact, as training's).
#pragma once
#include <vector>

#include "learn/model.h"

namespace attn::learn {

// Gradient against distance: mean[d] = the mean of ‖∂loss_i/∂x_j‖₂ over every sequence of the batch
// and every target position i (targets ≥ 0) with j = i − d ≥ 0; count[d] = how many terms.
// d runs 0 … n−1. (j > i is left out: a recurrent or causal model does not look ahead, so it is 0.)
// Costs n forward and backward passes of the batch (one per target position i: sequences do not
// interact, so one pass gives position i's gradient for every sequence at once).
struct DistanceProfile {
  std::vector<double> mean;
  std::vector<long long> count;
};
template <class T>
DistanceProfile gradient_by_distance(Model<T>& model, const Batch& batch);

// Influence matrix of one example (a batch of one): (n, n), row i, column j = ‖∂z_i/∂x_j‖₂ where z_i is
// the logit of position i's target, or of the model's argmax where the position has no target.
// Costs one forward and n backward passes.
template <class T>
std::vector<double> influence_matrix(Model<T>& model, const Batch& one);

}  // namespace attn::learn
