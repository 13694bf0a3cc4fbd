// positional.h — the ways a position can be written into the vectors.
#pragma once
#include <cstdint>
#include <span>

namespace attn {

// X[pos, 2i]   += sin(pos / 10000^(2i/d)),  X[pos, 2i+1] += cos(pos / 10000^(2i/d))   (Vaswani et al.)
//   x:(n, d) row-major
void add_sinusoidal(std::span<float> x, int n, int d);

// X[pos, :] += P[pos, :] with P a seeded N(0, 0.5²) table: what a trained model would learn, unlearned.
void add_learned(std::span<float> x, int n, int d, uint64_t seed);

// Rotary encoding (RoFormer): each pair (2i, 2i+1) of a query or key vector at position pos is rotated
// by the angle pos·θ_i, θ_i = 10000^(−2i/d). The dot product q_i·k_j then depends on i − j only
// through these angles. With odd d the last coordinate is left as is.
//   m:(n, d) inside a row-major buffer with row stride ld (one head's columns of Q or K)
void apply_rope(float* m, int n, int d, int ld);

}  // namespace attn
