// mask.h — which key each query may attend to.
//
// The mask is an explicit boolean matrix allowed:(n, m), shared by all heads. Masked logits become −∞
// (never a large negative constant), so their weight is exactly 0. A row with no allowed key has a
// defined result: all-zero weights and a zero output row, reported in fully_masked_rows. (PyTorch's
// scaled_dot_product_attention gives the same zeros since 2.5; earlier versions returned NaN.)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "kernels.h"

namespace attn {

struct MaskMatrix {
  int n = 0, m = 0;
  std::vector<uint8_t> allowed;  // (n, m), 1 = may attend
  std::vector<Range> ranges;     // per row: the smallest [lo, hi) holding every allowed key
  std::vector<int> fully_masked_rows;
  bool allows(int i, int j) const { return allowed[(size_t)i * m + j] != 0; }
};

// Checks the terms against the sequence sizes; "" when they fit, else a message naming mask[k].
std::string check_mask(const std::vector<MaskTerm>& terms, int n, int m);

// AND of all terms (an empty list allows everything).
MaskMatrix build_mask(const std::vector<MaskTerm>& terms, int n, int m);

}  // namespace attn
