#include "mask.h"

namespace attn {

std::string check_mask(const std::vector<MaskTerm>& terms, int n, int m) {
  for (size_t t = 0; t < terms.size(); ++t) {
    const MaskTerm& term = terms[t];
    const std::string where = "mask[" + std::to_string(t) + "]";
    switch (term.kind) {
      case MaskTerm::Kind::window:
        if (term.window < 1) return where + ".window: must be at least 1, got " + std::to_string(term.window);
        break;
      case MaskTerm::Kind::padding:
        for (int key : term.keys)
          if (key < 0 || key >= m)
            return where + ".padding: key index " + std::to_string(key) + " is outside 0.." + std::to_string(m - 1);
        break;
      case MaskTerm::Kind::custom:
        if (term.rows != n || term.cols != m)
          return where + ".custom: expected a " + std::to_string(n) + "x" + std::to_string(m) + " matrix (queries x keys), got " +
                 std::to_string(term.rows) + "x" + std::to_string(term.cols);
        break;
      default: break;
    }
  }
  return "";
}

MaskMatrix build_mask(const std::vector<MaskTerm>& terms, int n, int m) {
  MaskMatrix mm;
  mm.n = n, mm.m = m;
  mm.allowed.assign((size_t)n * m, 1);
  for (const MaskTerm& term : terms) {
    for (int i = 0; i < n; ++i) {
      uint8_t* row = &mm.allowed[(size_t)i * m];
      switch (term.kind) {
        case MaskTerm::Kind::none: break;
        case MaskTerm::Kind::causal:
          for (int j = i + 1; j < m; ++j) row[j] = 0;
          break;
        case MaskTerm::Kind::window:
          for (int j = 0; j < m; ++j) {
            const int dist = i > j ? i - j : j - i;
            if (dist >= term.window || (term.window_causal && j > i)) row[j] = 0;
          }
          break;
        case MaskTerm::Kind::padding:
          for (int key : term.keys)
            if (key >= 0 && key < m) row[key] = 0;
          break;
        case MaskTerm::Kind::custom:
          if (term.rows == n && term.cols == m)
            for (int j = 0; j < m; ++j) row[j] &= term.cells[(size_t)i * m + j] ? 1 : 0;
          break;
      }
    }
  }
  mm.ranges.resize((size_t)n);
  for (int i = 0; i < n; ++i) {
    int lo = m, hi = 0;
    for (int j = 0; j < m; ++j)
      if (mm.allows(i, j)) lo = lo < j ? lo : j, hi = j + 1;
    if (hi == 0) {
      lo = 0;
      mm.fully_masked_rows.push_back(i);
    }
    mm.ranges[(size_t)i] = {lo, hi};
  }
  return mm;
}

}  // namespace attn
