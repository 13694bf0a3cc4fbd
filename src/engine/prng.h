// prng.h — a small, fully specified random generator, so seeded weights are bit-identical in the
// native build (libstdc++) and the web build (libc++), whose std::normal_distribution differ.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

namespace attn {

// splitmix64: a 64-bit state advanced by a constant, output finalised by a bijective mixer.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next_u64() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 24 random bits (exactly representable as a float).
  double uniform() { return (double)(next_u64() >> 40) * (1.0 / 16777216.0); }
  // Uniform in [-a, a).
  float uniform_sym(float a) { return (float)((2.0 * uniform() - 1.0) * a); }
  // Standard normal by Box–Muller on (0, 1] × [0, 1), computed in double then rounded.
  float normal() {
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return (float)(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
};

// FNV-1a over the bytes of s, then mixed with the seed: one stream per (string, seed).
inline uint64_t hash_string(std::string_view s, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  Rng mix(h ^ (seed * 0x9E3779B97F4A7C15ull));
  return mix.next_u64();
}

}  // namespace attn
