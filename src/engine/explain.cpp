#include "explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attn {
namespace {

void sort_terms(std::vector<Term>& terms) {
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& x, const Term& y) { return std::fabs(x.product()) > std::fabs(y.product()); });
}

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

}  // namespace

ScoreExplanation explain_score(const Result& r, int head, int i, int j) {
  ScoreExplanation e;
  e.head = head, e.i = i, e.j = j;
  const MatView q = r.q_head(head), k = r.k_head(head);
  for (int c = 0; c < r.d_k; ++c) {
    e.terms.push_back({c, q(i, c), k(j, c)});
    e.dot += (double)q(i, c) * k(j, c);
  }
  e.alpha = r.alpha;
  e.score = e.dot * e.alpha;
  e.allowed = r.mask.allows(i, j);
  sort_terms(e.terms);
  return e;
}

WeightExplanation explain_weight(const Result& r, int head, int i, int j) {
  WeightExplanation e;
  e.head = head, e.i = i, e.j = j;
  // Row i of S_h: stored unless the engine ran lean (EngineOptions::keep_scores off); then recomputed
  // here as α·q_i·k_t, which is what the lean pass computed.
  std::vector<double> s_row((size_t)r.m);
  for (int t = 0; t < r.m; ++t)
    s_row[(size_t)t] = r.scores.empty() ? explain_score(r, head, i, t).score : (double)r.scores_head(head)(i, t);
  e.score = s_row[(size_t)j];
  e.allowed = r.mask.allows(i, j);
  e.row_max = -INFINITY;
  for (int t = 0; t < r.m; ++t)
    if (r.mask.allows(i, t)) e.row_max = std::max(e.row_max, s_row[(size_t)t]), ++e.allowed_keys;
  e.fully_masked = e.allowed_keys == 0;
  if (e.fully_masked) return e;
  for (int t = 0; t < r.m; ++t)
    if (r.mask.allows(i, t)) e.row_sum += std::exp(s_row[(size_t)t] - e.row_max);
  e.exp_shifted = e.allowed ? std::exp(e.score - e.row_max) : 0.0;
  e.weight = e.exp_shifted / e.row_sum;
  return e;
}

OutputExplanation explain_output(const Result& r, int head, int i, int c) {
  OutputExplanation e;
  e.head = head, e.i = i, e.c = c;
  const MatView a = r.weights_head(head), v = r.v_head(head);
  for (int j = 0; j < r.m; ++j) {
    if (a(i, j) == 0.0f) continue;
    e.terms.push_back({j, a(i, j), v(j, c)});
    e.value += (double)a(i, j) * v(j, c);
  }
  sort_terms(e.terms);
  return e;
}

ProjectionExplanation explain_projection(const Result& r, Target target, int head, int i, int c) {
  ProjectionExplanation e;
  MatView in, w, out;
  switch (target) {
    case Target::q: in = r.x_view(), w = r.w_q_head(head), out = r.q_head(head); break;
    case Target::k: in = r.x_source_view(), w = r.w_k_head(head), out = r.k_head(head); break;
    case Target::v: in = r.x_source_view(), w = r.w_v_head(head), out = r.v_head(head); break;
    default: in = r.concat_view(), w = r.w_o_view(), out = r.output_view(); break;
  }
  for (int k = 0; k < in.cols; ++k) {
    e.terms.push_back({k, in(i, k), w(k, c)});
    e.sum += (double)in(i, k) * w(k, c);
  }
  e.value = out(i, c);
  e.rotated = std::fabs(e.value - e.sum) > 1e-4 * (1.0 + std::fabs(e.sum)) && (target == Target::q || target == Target::k);
  sort_terms(e.terms);
  return e;
}

std::string explain_cell_text(const Result& r, int head, int i, int j, int max_terms) {
  const ScoreExplanation s = explain_score(r, head, i, j);
  const WeightExplanation w = explain_weight(r, head, i, j);
  const std::string qi = "\"" + r.tokens[(size_t)i] + "\"", kj = "\"" + r.source_tokens[(size_t)j] + "\"";
  std::string out = "head " + std::to_string(head) + ", query " + std::to_string(i) + " " + qi + ", key " +
                    std::to_string(j) + " " + kj + "\n";
  out += "score = (q_i . k_j) x scale / temperature = " + fmt("%.6g", s.dot) + " x " + fmt("%.6g", s.alpha) + " = " +
         fmt("%.6g", s.score) + "\n  largest terms of q_i . k_j:";
  for (int t = 0; t < (int)s.terms.size() && t < max_terms; ++t)
    out += "  " + fmt("%.4g", s.terms[(size_t)t].a) + "x" + fmt("%.4g", s.terms[(size_t)t].b) + "=" +
           fmt("%.4g", s.terms[(size_t)t].product()) + " [c=" + std::to_string(s.terms[(size_t)t].index) + "]";
  out += "\n";
  if (w.fully_masked) {
    out += "weight = 0: every key is masked for this query, so the row is all zeros and its output is zero\n";
  } else if (!w.allowed) {
    out += "weight = 0: the mask hides this key (its logit is -inf, and exp(-inf) = 0)\n";
  } else {
    out += "weight = exp(s - max) / sum = exp(" + fmt("%.6g", w.score) + " - " + fmt("%.6g", w.row_max) + ") / " +
           fmt("%.6g", w.row_sum) + " = " + fmt("%.6g", w.exp_shifted) + " / " + fmt("%.6g", w.row_sum) + " = " +
           fmt("%.6g", w.weight) + "  (over " + std::to_string(w.allowed_keys) + " allowed keys)\n";
  }
  const OutputExplanation o = explain_output(r, head, i, j % r.d_v);
  out += "output[" + std::to_string(i) + "][" + std::to_string(o.c) + "] = sum_j a_ij x v_j = " + fmt("%.6g", o.value) +
         "\n  largest contributions:";
  for (int t = 0; t < (int)o.terms.size() && t < max_terms; ++t)
    out += "  " + fmt("%.4g", o.terms[(size_t)t].a) + "x" + fmt("%.4g", o.terms[(size_t)t].b) + " [j=" +
           std::to_string(o.terms[(size_t)t].index) + " \"" + r.source_tokens[(size_t)o.terms[(size_t)t].index] + "\"]";
  out += "\n";
  return out;
}

}  // namespace attn
