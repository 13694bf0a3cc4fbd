#include "mask.h"
#include "table.h"

#include <algorithm>

namespace attn {

// [SECTION] mask kinds
namespace {

using Kind = MaskTerm::Kind;

MaskTerm make_plain(Kind k) { return MaskTerm{.kind = k}; }
std::string fits(const MaskTerm&, int, int) { return ""; }

// none: allows everything
void hide_none(const MaskTerm&, int, uint8_t*, int) {}

// causal: query i sees keys j ≤ i
void hide_causal(const MaskTerm&, int i, uint8_t* row, int m) {
  for (int j = std::max(i + 1, 0); j < m; ++j) row[j] = 0;
}

// window w: |i − j| < w, and j ≤ i as well when causal (the w most recent keys, itself included)
MaskTerm make_window(int, int) { return MaskTerm{.kind = Kind::window, .window = MaskTerm::default_window}; }
std::string check_window(const MaskTerm& t, int, int) {
  if (t.window < 1 || t.window > Limits::max_tokens)
    return ".window: must be between 1 and " + std::to_string(Limits::max_tokens) + ", got " + std::to_string(t.window);
  return "";
}
void hide_window(const MaskTerm& t, int i, uint8_t* row, int m) {
  const int hi = t.window_causal ? std::min(m, i + 1) : std::min(m, i + t.window);  // keys [lo, hi) stay
  const int lo = std::clamp(i - t.window + 1, 0, m);
  for (int j = 0; j < lo; ++j) row[j] = 0;
  for (int j = std::max(hi, lo); j < m; ++j) row[j] = 0;
}

// padding: the listed keys are hidden from every query
std::string check_padding(const MaskTerm& t, int, int m) {
  if (t.keys.size() > (size_t)Limits::max_padding_keys)
    return ".padding: " + std::to_string(t.keys.size()) + " keys listed, at most " + std::to_string(Limits::max_padding_keys);
  for (int key : t.keys)
    if (key < 0 || key >= m) return ".padding: key index " + std::to_string(key) + " is outside 0.." + std::to_string(m - 1);
  return "";
}
void hide_padding(const MaskTerm& t, int, uint8_t* row, int m) {
  for (int key : t.keys)
    if (key >= 0 && key < m) row[key] = 0;
}

// custom: an explicit n×m matrix, 1 = may attend (the lab starts from all 1s)
MaskTerm make_custom(int n, int m) {
  return MaskTerm{.kind = Kind::custom, .rows = n, .cols = m, .cells = std::vector<uint8_t>((size_t)n * m, 1)};
}
std::string check_custom(const MaskTerm& t, int n, int m) {
  if (t.rows != n || t.cols != m || t.cells.size() != (size_t)n * m)
    return ".custom: expected a " + std::to_string(n) + "x" + std::to_string(m) + " matrix (queries x keys), got " +
           std::to_string(t.rows) + "x" + std::to_string(t.cols);
  return "";
}
void hide_custom(const MaskTerm& t, int i, uint8_t* row, int m) {
  for (int j = 0; j < m; ++j) row[j] &= t.cells[(size_t)i * m + j] ? 1 : 0;
}

constexpr MaskParam kNoParam{};
constexpr MaskParam kWindowParam{.payload = MaskPayload::integer, .lo = 1, .hi = Limits::max_tokens,
                                 .integer = &MaskTerm::window, .flag = "causal", .flag_field = &MaskTerm::window_causal};
constexpr MaskParam kPaddingParam{.payload = MaskPayload::index_list, .lo = 0, .hi = Limits::max_tokens - 1,
                                  .max_items = Limits::max_padding_keys};
constexpr MaskParam kCustomParam{.payload = MaskPayload::matrix01, .max_items = Limits::max_tokens};

constexpr MaskKind kKinds[] = {
    {Kind::none, "none", kNoParam, nullptr, "Allows every key.", [](int, int) { return make_plain(Kind::none); }, fits,
     hide_none},
    {Kind::causal, "causal", kNoParam, "causal", "Each token sees only itself and earlier tokens, as in a text generator.",
     [](int, int) { return make_plain(Kind::causal); }, fits, hide_causal},
    {Kind::window, "window", kWindowParam, "sliding window",
     "Each token sees only neighbours closer than the window width (with \"causal\": only the ones before it).",
     make_window, check_window, hide_window},
    {Kind::padding, "padding", kPaddingParam, "padding",
     "Hide chosen keys from every query, as batches hide the padding after short sentences.",
     [](int, int) { return make_plain(Kind::padding); }, check_padding, hide_padding},
    {Kind::custom, "custom", kCustomParam, "custom (click cells)",
     "Click any cell of the Weights or Masked scores view to allow or hide that single query-key pair.", make_custom,
     check_custom, hide_custom},
};
static_assert(in_enum_order(kKinds, &MaskKind::kind), "one entry per MaskTerm::Kind, in its order");

}  // namespace

std::span<const MaskKind> mask_kinds() { return kKinds; }

const MaskKind& mask_kind(MaskTerm::Kind kind) { return (size_t)kind < std::size(kKinds) ? kKinds[(size_t)kind] : kKinds[0]; }

const MaskKind* find_mask_kind(std::string_view name) { return find_named(kKinds, name); }

std::string mask_field(size_t k) { return "mask[" + std::to_string(k) + "]"; }

// [SECTION] the mask matrix
std::string check_mask(const std::vector<MaskTerm>& terms, int n, int m) {
  if (terms.size() > (size_t)Limits::max_mask_terms)
    return "mask: " + std::to_string(terms.size()) + " terms, at most " + std::to_string(Limits::max_mask_terms);
  for (size_t t = 0; t < terms.size(); ++t)
    if (std::string e = mask_kind(terms[t].kind).check(terms[t], n, m); !e.empty()) return mask_field(t) + e;
  return "";
}

namespace {
// ranges, key_ranges, fully_masked_rows and dense, from mm.allowed
void derive_ranges(MaskMatrix& mm) {
  const int n = mm.n, m = mm.m;
  mm.ranges.resize((size_t)n);
  mm.fully_masked_rows.clear();
  mm.dense = true;
  for (int i = 0; i < n; ++i) {
    int lo = m, hi = 0;
    for (int j = 0; j < m; ++j)
      if (mm.allows(i, j)) lo = lo < j ? lo : j, hi = j + 1;
    if (hi == 0) {
      lo = 0;
      mm.fully_masked_rows.push_back(i);
    }
    mm.ranges[(size_t)i] = {lo, hi};
    for (int j = lo; j < hi; ++j) mm.dense = mm.dense && mm.allows(i, j);
  }
  mm.key_ranges.assign((size_t)m, Range{n, 0});
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      if (mm.allows(i, j)) {
        Range& r = mm.key_ranges[(size_t)j];
        r.lo = r.lo < i ? r.lo : i, r.hi = i + 1;
      }
  for (Range& r : mm.key_ranges)
    if (r.hi == 0) r.lo = 0;  // a key no query sees: empty
}
}  // namespace

MaskMatrix build_mask(const std::vector<MaskTerm>& terms, int n, int m) {
  MaskMatrix mm;
  mm.n = n, mm.m = m;
  mm.allowed.assign((size_t)n * m, 1);
  for (const MaskTerm& term : terms) {
    const MaskKind& kind = mask_kind(term.kind);
    if (kind.check(term, n, m).empty())
      for (int i = 0; i < n; ++i) kind.hide(term, i, &mm.allowed[(size_t)i * m], m);
  }
  derive_ranges(mm);
  return mm;
}

MaskMatrix mask_rows_from(const MaskMatrix& mm, int row0) {
  MaskMatrix tail;
  row0 = std::clamp(row0, 0, mm.n);
  tail.n = mm.n - row0, tail.m = mm.m;
  tail.allowed.assign(mm.allowed.begin() + (long)row0 * mm.m, mm.allowed.end());
  derive_ranges(tail);
  return tail;
}

}  // namespace attn
