#include "positional.h"

#include <cmath>
#include <iterator>

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

// [SECTION] the table
namespace {
constexpr PositionalKind kKinds[] = {
    {Positional::none, "none", "none", "No position: attention by itself ignores word order.", nullptr, false, false,
     "1  X = E", "One row per token: its embedding, with no position information at all.", nullptr, nullptr, nullptr},
    {Positional::sinusoidal, "sinusoidal", "sinusoidal",
     "Adds sin/cos waves of many wavelengths to X (Vaswani et al. 2017).",
     [](std::span<float> x, int n, int d, uint64_t) { add_sinusoidal(x, n, d); }, false, false,
     "1  X = E + P", "One row per token: its embedding E plus its position vector P. Click a cell to edit it.", "P (sinusoidal)",
     "The position vectors added to X: column pairs are sines and cosines of the position, fast in the first columns and "
     "slower to the right. Same word, different position: different row of X.",
     "the sinusoid"},
    {Positional::learned, "learned", "learned", "Adds a seeded random vector per position to X, as a trained table would.",
     add_learned, false, true, "1  X = E + P",
     "One row per token: its embedding E plus its position vector P. Click a cell to edit it.", "P (learned)",
     "The position vectors added to X: one seeded random vector per position (a model would learn them).",
     "the learned (seeded) vector"},
    {Positional::rope, "rope", "RoPE", "Rotates pairs of Q and K coordinates by an angle that grows with position.",
     nullptr, true, false, "1  X = E",
     "One row per token: its embedding. RoPE adds no position here: it rotates Q and K instead.", nullptr, nullptr, nullptr},
};
static_assert(in_enum_order(kKinds, &PositionalKind::kind), "one entry per Positional, in its order");
}  // namespace

std::span<const PositionalKind> positional_kinds() { return kKinds; }

const PositionalKind& positional_kind(Positional p) { return (size_t)p < std::size(kKinds) ? kKinds[(size_t)p] : kKinds[0]; }

const PositionalKind* find_positional_kind(std::string_view name) { return find_named(kKinds, name); }

}  // namespace attn
