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

ScoreExplanation explain_score(const Result& r, int head, int i, int j);
WeightExplanation explain_weight(const Result& r, int head, int i, int j);
OutputExplanation explain_output(const Result& r, int head, int i, int c);

// All three for cell (i, j) of head h (the output column is j mod d_v), as readable text.
std::string explain_cell_text(const Result& r, int head, int i, int j, int max_terms = 6);

}  // namespace attn
