// mask.h — which key each query may attend to.
//
// The mask is an explicit boolean matrix allowed:(n, m), shared by all heads. Masked logits become −∞
// (never a large negative constant), so their weight is exactly 0. A row with no allowed key has a
// defined result: all-zero weights and a zero output row, reported in fully_masked_rows. (PyTorch's
// scaled_dot_product_attention gives the same zeros since 2.5; earlier versions returned NaN.)
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "kernels.h"

namespace attn {

// [SECTION] mask kinds — the one registration of each kind of mask term. The config parser and
// writer read the name and the parameter's shape, the engine the check and hide functions, the lab its
// checkbox label, help and the term a tick adds, the tests every entry. Adding a kind: a MaskTerm::Kind
// value (config.h, with a field for its parameter), an entry in mask.cpp with its functions, a test and
// docs/cli.md; io/config_json.cpp reads and writes it from the entry's MaskParam.

// How a kind's parameter is spelt in a config: the bare name, or an object {name: payload}.
enum class MaskPayload {
  none,        // the bare string "causal": no parameters
  integer,     // {name: n}, lo ≤ n ≤ hi, into MaskTerm::*integer
  index_list,  // {name: [k, …]}: at most max_items indices, each lo ≤ k ≤ hi, into MaskTerm::keys
  matrix01,    // {name: [[0|1, …], …]}: at most max_items rows of 0s and 1s, into MaskTerm::rows, cols, cells
};
struct MaskParam {
  MaskPayload payload = MaskPayload::none;
  int lo = 0, hi = 0;                  // integer: its range; index_list: each index's range
  int max_items = 0;                   // index_list: how many indices; matrix01: how many rows
  int MaskTerm::*integer = nullptr;    // integer: where it is kept
  const char* flag = nullptr;          // a boolean key beside the payload ({"window": 3, "causal": false})
  bool MaskTerm::*flag_field = nullptr;
};

struct MaskKind {
  MaskTerm::Kind kind;
  const char* name;   // in the config: the string ("causal") or the object's key ({"window": 3})
  MaskParam param;    // how its parameters are written in the config
  const char* label;  // the lab's checkbox (nullptr: not offered there)
  const char* help;   // one plain sentence: the lab's "(?)" and docs/cli.md
  // The term the lab adds when the box is ticked, for n queries and m keys.
  MaskTerm (*make)(int n, int m);
  // "" when the term fits n queries and m keys, else what is wrong (the caller prefixes the field).
  std::string (*check)(const MaskTerm& t, int n, int m);
  // Clears, in row i (m keys), every key the term hides from query i.
  void (*hide)(const MaskTerm& t, int i, uint8_t* row, int m);
  bool bare() const { return param.payload == MaskPayload::none; }  // written as the bare string `name`
};
std::span<const MaskKind> mask_kinds();
const MaskKind& mask_kind(MaskTerm::Kind kind);
const MaskKind* find_mask_kind(std::string_view name);  // nullptr if no kind has this name

// The field name of term k in errors: "mask[k]" (a single term given as an object is mask[0]).
std::string mask_field(size_t k);

struct MaskMatrix {
  int n = 0, m = 0;
  std::vector<uint8_t> allowed;  // (n, m), 1 = may attend
  std::vector<Range> ranges;     // per row: the smallest [lo, hi) holding every allowed key
  std::vector<Range> key_ranges; // per key (column): the smallest [lo, hi) holding every query that sees it
  std::vector<int> fully_masked_rows;
  bool dense = true;              // every key inside each row's range is allowed (no holes): no mask, causal, a window
  bool allows(int i, int j) const { return allowed[(size_t)i * m + j] != 0; }
};

// Checks the terms against the sequence sizes; "" when they fit, else a message naming mask[k].
std::string check_mask(const std::vector<MaskTerm>& terms, int n, int m);

// AND of all terms (an empty list allows everything).
MaskMatrix build_mask(const std::vector<MaskTerm>& terms, int n, int m);

// The queries [row0, n) of mm as a mask of their own (n − row0 rows, the same keys): their rows of
// `allowed` and ranges, and each key's range among them, counted from row0 (for work on a block of a
// head's later rows alone).
MaskMatrix mask_rows_from(const MaskMatrix& mm, int row0);

}  // namespace attn
