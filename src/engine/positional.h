// positional.h — the ways a position can be written into the vectors.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "table.h"

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

// The rotation angles pos·θ_i as tables, computed once per (n, d) in double: cos and sin are (n, d/2).
struct RopeTable {
  int n = 0, d = 0;
  std::vector<double> cos, sin;
};
RopeTable rope_table(int n, int d);

// RoPE with a precomputed table, for any scalar type. Each pair (a, b) of row pos becomes
//   (a·c − b·s, a·s + b·c)                 c, s = cos, sin of pos·θ_i
// Backward: the rotation is orthogonal, so the gradient goes back through its transpose, the rotation
// by −pos·θ_i:  (da, db) = (da'·c + db'·s, −da'·s + db'·c)  — which is `inverse`.
//   m:(n, d) row stride ld; t must have at least n rows and the same d.
template <class T>
void apply_rope(T* m, int n, int d, int ld, const RopeTable& t, bool inverse = false) {
  const int half = d / 2;
  for (int pos = 0; pos < n; ++pos) {
    T* row = m + (size_t)pos * ld;
    const double* cs = t.cos.data() + (size_t)pos * half;
    const double* sn = t.sin.data() + (size_t)pos * half;
    for (int i = 0; i < half; ++i) {
      const T c = (T)cs[i], s = inverse ? (T)-sn[i] : (T)sn[i];
      const T a = row[2 * i], b = row[2 * i + 1];
      row[2 * i] = a * c - b * s;
      row[2 * i + 1] = a * s + b * c;
    }
  }
}

// [SECTION] positional encodings — the one registration of each. The config parser reads the names;
// the lab's engine `add` (it keeps P in its result) and `rotates_qk`; the learning model `trained`,
// `add` and `rotates_qk`; the lab's panels the label, help, titles and words; the tests every entry,
// and that docs/cli.md names it. Adding one: a Positional value and its function here, its entry in
// positional.cpp, a test, and its name in docs/cli.md (its words in assets/lang for the lab).
enum class Positional { none, sinusoidal, learned, rope, count };

struct PositionalKind {
  Positional kind;
  const char* name;   // in the config
  const char* label;  // in the lab
  const char* help;   // one plain sentence
  // X[pos, :] += P[pos, :] for pos in [0, n)  (nullptr: adds nothing)   x:(n, d)
  void (*add)(std::span<float> x, int n, int d, uint64_t seed);
  bool rotates_qk;    // applies apply_rope to each head's Q and K after the projection
  bool trained;       // a learning model trains its own table of P (a `pos` parameter) instead of `add`'s
  // For people (the lab's matrices and hover cards): what X is, what P is, and P in a few words.
  const char* x_title;  // the X block's title
  const char* x_help;
  const char* p_title;  // the P block's title (nullptr: there is no P to show)
  const char* p_help;
  const char* p_words;  // "the sinusoid", inside "P: the sinusoid of position 3, column 2"
};
std::span<const PositionalKind> positional_kinds();
const PositionalKind& positional_kind(Positional p);
const PositionalKind* find_positional_kind(std::string_view name);  // nullptr if none has this name

}  // namespace attn
