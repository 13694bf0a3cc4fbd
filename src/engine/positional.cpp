#include "positional.h"

#include <cmath>

#include "prng.h"

namespace attn {

void add_sinusoidal(std::span<float> x, int n, int d) {
  for (int pos = 0; pos < n; ++pos) {
    for (int i = 0; 2 * i < d; ++i) {
      const double angle = pos / std::pow(10000.0, (2.0 * i) / d);
      x[(size_t)pos * d + 2 * i] += (float)std::sin(angle);
      if (2 * i + 1 < d) x[(size_t)pos * d + 2 * i + 1] += (float)std::cos(angle);
    }
  }
}

void add_learned(std::span<float> x, int n, int d, uint64_t seed) {
  for (int pos = 0; pos < n; ++pos) {
    Rng rng(hash_string("position", seed + 0x9E37ull * (uint64_t)(pos + 1)));
    for (int c = 0; c < d; ++c) x[(size_t)pos * d + c] += 0.5f * rng.normal();
  }
}

RopeTable rope_table(int n, int d) {
  RopeTable t;
  t.n = n, t.d = d;
  const int half = d / 2;
  t.cos.resize((size_t)n * half);
  t.sin.resize((size_t)n * half);
  for (int pos = 0; pos < n; ++pos)
    for (int i = 0; i < half; ++i) {
      const double theta = std::pow(10000.0, -(2.0 * i) / d);
      t.cos[(size_t)pos * half + i] = std::cos(pos * theta);
      t.sin[(size_t)pos * half + i] = std::sin(pos * theta);
    }
  return t;
}

void apply_rope(float* m, int n, int d, int ld) { apply_rope<float>(m, n, d, ld, rope_table(n, d)); }

}  // namespace attn
