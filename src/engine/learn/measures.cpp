// measures.cpp — gradient against distance and the influence matrix (see measures.h).
#include "learn/measures.h"

#include <algorithm>
#include <cmath>

namespace attn::learn {

namespace {
// ‖row r of the input gradient‖₂   (B·n, d_model)
template <class T>
double input_grad_norm(const Model<T>& model, size_t row) {
  const int D = model.spec().d_model;
  const T* g = model.input_grads().data() + row * D;
  double sum = 0.0;
  for (int c = 0; c < D; ++c) sum += (double)g[c] * (double)g[c];
  return std::sqrt(sum);
}
}  // namespace

template <class T>
DistanceProfile gradient_by_distance(Model<T>& model, const Batch& batch) {
  const int B = batch.size, n = batch.n;
  DistanceProfile out;
  out.mean.assign((size_t)n, 0.0);
  out.count.assign((size_t)n, 0);
  Batch one_position = batch;
  for (int i = 0; i < n; ++i) {
    // pass 1: only position i keeps its targets; backward_part(1, …) then gives Σ_b ∂loss_(b,i)/∂·,
    // and sequence b's rows of the input gradient are its own ∂loss_(b,i)/∂x_(b,j)
    bool any = false;
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < n; ++t) {
        const int y = batch.targets[(size_t)b * n + t];
        one_position.targets[(size_t)b * n + t] = t == i ? y : -1;
        any |= t == i && y >= 0;
      }
    if (!any) continue;
    model.forward(one_position);
    model.backward_part(1, false);
    // pass 2: the norms, by distance
    for (int b = 0; b < B; ++b) {
      if (batch.targets[(size_t)b * n + i] < 0) continue;
      for (int j = 0; j <= i; ++j) {
        out.mean[(size_t)(i - j)] += input_grad_norm(model, (size_t)b * n + j);
        ++out.count[(size_t)(i - j)];
      }
    }
  }
  for (int d = 0; d < n; ++d)
    if (out.count[(size_t)d]) out.mean[(size_t)d] /= (double)out.count[(size_t)d];
  return out;
}

template <class T>
std::vector<double> influence_matrix(Model<T>& model, const Batch& one) {
  const int n = one.n, V = model.spec().vocab;
  std::vector<double> out((size_t)n * n, 0.0);
  model.forward(one);
  const std::vector<T> logits = model.logits();
  std::vector<T> dlogits((size_t)n * V, T(0));
  for (int i = 0; i < n; ++i) {
    const T* z = logits.data() + (size_t)i * V;
    const int y = one.targets[(size_t)i];
    const int k = y >= 0 ? y : (int)(std::max_element(z, z + V) - z);
    std::fill(dlogits.begin(), dlogits.end(), T(0));
    dlogits[(size_t)i * V + k] = T(1);
    model.backward_logits(dlogits);
    for (int j = 0; j < n; ++j) out[(size_t)i * n + j] = input_grad_norm(model, (size_t)j);
  }
  return out;
}

template DistanceProfile gradient_by_distance(Model<float>&, const Batch&);
template DistanceProfile gradient_by_distance(Model<double>&, const Batch&);
template std::vector<double> influence_matrix(Model<float>&, const Batch&);
template std::vector<double> influence_matrix(Model<double>&, const Batch&);

}  // namespace attn::learn
