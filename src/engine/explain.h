// explain.h — the exact arithmetic behind one cell, for the lab's hover cards and `attnlab-cli explain`.
// Everything is recomputed here from the stored Q, K, V and weights in plain double precision, so an
// explanation is an independent check of the fast kernels' number, not a copy of it.
#pragma once
#include <string>
#include <vector>

#include "engine.h"

namespace attn {

struct Term {
  int index = 0;           // c for a score term (q_i[c]·k_j[c]); j for an output term (a_ij·v_j[c])
  double a = 0, b = 0;     // the two factors
  double product() const { return a * b; }
};

// score(i,j) = (q_i · k_j) · scale / τ
struct ScoreExplanation {
  int head = 0, i = 0, j = 0;
  double dot = 0, alpha = 0, score = 0;
  bool allowed = true;
  std::vector<Term> terms;  // all d_k terms, largest |product| first
};

// weight(i,j) = exp(s_ij − max_i) / Σ_j' exp(s_ij' − max_i), over allowed j'
struct WeightExplanation {
  int head = 0, i = 0, j = 0;
  double score = 0, row_max = 0, exp_shifted = 0, row_sum = 0, weight = 0;
  int allowed_keys = 0;
  bool allowed = true, fully_masked = false;
};

// out_h(i, c) = Σ_j a_ij · v_j[c]
struct OutputExplanation {
  int head = 0, i = 0, c = 0;
  double value = 0;
  std::vector<Term> terms;  // one per key j with a_ij > 0, largest |product| first
};

// q_h(i,c) = Σ_r x_i[r]·W_Q_h[r][c] (likewise k and v from the key sequence), and
// output(i,c) = Σ_r concat_i[r]·W_O[r][c]. With RoPE, q and k are then rotated: `rotated` says so and
// `value` is the stored (rotated) number while the terms add up to the unrotated one.
struct ProjectionExplanation {
  double sum = 0, value = 0;
  bool rotated = false;
  std::vector<Term> terms;  // largest |product| first
};
// target: q, k, v (per head) or output (head ignored; pass Target::w_o to mean the output projection).
ProjectionExplanation explain_projection(const Result& r, Target target, int head, int i, int c);

ScoreExplanation explain_score(const Result& r, int head, int i, int j);
WeightExplanation explain_weight(const Result& r, int head, int i, int j);
OutputExplanation explain_output(const Result& r, int head, int i, int c);

// All three for cell (i, j) of head h (the output column is j mod d_v), as readable text.
std::string explain_cell_text(const Result& r, int head, int i, int j, int max_terms = 6);

}  // namespace attn
