// Every fast kernel set this build has, against the reference kernels, over sizes that are not
// multiples of any SIMD width, with and without mask-skipping hints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels.h"
#include "simd.h"

namespace {

std::vector<float> random_vec(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (float)((s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
  }
  return v;
}

const attn::KernelSet& reference() {
  for (const attn::KernelSet* k : attn::available_kernel_sets())
    if (std::string(k->name) == "reference") return *k;
  throw std::runtime_error("no reference kernels");
}

class KernelSweep : public ::testing::TestWithParam<const attn::KernelSet*> {};

TEST_P(KernelSweep, GemmMatchesReference) {
  const attn::KernelSet& fast = *GetParam();
  const int sizes[] = {1, 2, 3, 5, 7, 13, 17, 31, 33, 64, 65, 100};
  int cases = 0;
  for (int M : sizes)
    for (int N : {1, 3, 8, 17, 33, 64, 70})
      for (int K : {1, 4, 9, 31, 64, 67}) {
        for (bool bt : {false, true}) {
          const int lda = K + 3, ldb = (bt ? K : N) + 2, ldc = N + 1;
          const auto A = random_vec((size_t)M * lda, M * 7 + K);
          const auto B = random_vec((size_t)(bt ? N : K) * ldb, N * 13 + K);
          std::vector<float> C1((size_t)M * ldc, 7.0f), C2((size_t)M * ldc, 7.0f);
          attn::GemmArgs g{.M = M, .N = N, .K = K, .A = A.data(), .lda = lda, .B = B.data(), .ldb = ldb, .C = C1.data(), .ldc = ldc,
                            .alpha = 0.37f, .b_transposed = bt};
          fast.gemm(g);
          g.C = C2.data();
          reference().gemm(g);
          for (int i = 0; i < M; ++i) {
            for (int j = 0; j < N; ++j)
              ASSERT_NEAR(C1[(size_t)i * ldc + j], C2[(size_t)i * ldc + j], 2e-5f * K)
                  << fast.name << " M=" << M << " N=" << N << " K=" << K << " bt=" << bt << " at " << i << "," << j;
            ASSERT_EQ(C1[(size_t)i * ldc + N], 7.0f) << "wrote past the row's N columns";
          }
          ++cases;
        }
      }
  EXPECT_GT(cases, 1000);
}

// The backward pass's products: Aᵀ·B, A·Bᵀ and Aᵀ·Bᵀ, each also accumulating into C, or into C from
// another buffer (C_in: the residual stream's X_l + concat·W_O written without copying X_l first).
TEST_P(KernelSweep, TransposedAndAccumulatingGemmMatchesReference) {
  const attn::KernelSet& fast = *GetParam();
  int cases = 0;
  for (int M : {1, 3, 7, 13, 32, 33})
    for (int N : {1, 5, 16, 17, 40})
      for (int K : {1, 2, 9, 32, 35, 129})  // 129: a long inner dimension, as a weight gradient's sum over rows has
        for (int flags = 0; flags < 12; ++flags) {
          const bool at = flags & 1, bt = flags & 2, acc = flags & 4 || flags >= 8, from_in = flags >= 8;
          const int lda = (at ? M : K) + 1, ldb = (bt ? K : N) + 2, ldc = N + 3;
          const auto A = random_vec((size_t)(at ? K : M) * lda, M * 3 + K + flags);
          const auto B = random_vec((size_t)(bt ? N : K) * ldb, N * 5 + K);
          const auto C0 = random_vec((size_t)M * ldc, M + N);
          // With C_in, C starts as a value no sum here comes near: a kernel that read C instead shows.
          std::vector<float> C1 = from_in ? std::vector<float>(C0.size(), 1e30f) : C0, C2 = C1;
          attn::GemmArgs g{.M = M, .N = N, .K = K, .A = A.data(), .lda = lda, .B = B.data(), .ldb = ldb, .C = C1.data(),
                           .ldc = ldc, .alpha = -0.61f, .a_transposed = at, .b_transposed = bt, .accumulate = acc,
                           .C_in = from_in ? C0.data() : nullptr};
          fast.gemm(g);
          if (from_in) {  // the same bits as C_in copied into C and then accumulated into
            std::vector<float> C3 = C0;
            attn::GemmArgs copied = g;
            copied.C = C3.data(), copied.C_in = nullptr;
            fast.gemm(copied);
            for (int i = 0; i < M; ++i)
              for (int j = 0; j < N; ++j)
                ASSERT_EQ(C1[(size_t)i * ldc + j], C3[(size_t)i * ldc + j]) << fast.name << " C_in at " << i << "," << j;
          }
          g.C = C2.data();
          reference().gemm(g);
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < ldc; ++j)
              ASSERT_NEAR(C1[(size_t)i * ldc + j], C2[(size_t)i * ldc + j], 2e-5f * (K + 1))
                  << fast.name << " M=" << M << " N=" << N << " K=" << K << " flags=" << flags << " at " << i << "," << j;
          // Independent of the reference: one cell from the formula.
          double expect = acc ? C0[0] : 0.0, sum = 0.0;
          for (int p = 0; p < K; ++p) sum += (double)(at ? A[(size_t)p * lda] : A[p]) * (bt ? B[p] : B[(size_t)p * ldb]);
          expect += -0.61 * sum;
          ASSERT_NEAR(C1[0], expect, 1e-4 * (K + 1));
          ++cases;
        }
  EXPECT_EQ(cases, 6 * 5 * 6 * 12);
}

// A weight's gradient, Xᵀ·dY, with X given as is (a_transposed) or transposed into a copy first: each
// cell is the same chain of products in the same order whichever way A arrives (and however the kernel
// packs and walks it: in WebAssembly, Aᵀ packed, panels outermost), so the bits are the same.
TEST_P(KernelSweep, TransposedAGivesTheSameBitsAsItsCopy) {
  const attn::KernelSet& fast = *GetParam();
  struct Case { int M, N, K; };
  for (const Case c : {Case{64, 64, 248}, Case{64, 28, 170}, Case{65, 40, 129}, Case{64, 20, 256}, Case{64, 17, 257},
                       Case{64, 30, 127}, Case{63, 17, 200}, Case{5, 3, 7}}) {
    const int lda = c.M + 1, ldb = c.N + 2, ldc = c.N + 3;
    const auto X = random_vec((size_t)c.K * lda, c.M + c.K), dY = random_vec((size_t)c.K * ldb, c.N * 7 + c.K);
    std::vector<float> A((size_t)c.M * c.K);  // A = Xᵀ, row-major
    for (int r = 0; r < c.M; ++r)
      for (int p = 0; p < c.K; ++p) A[(size_t)r * c.K + p] = X[(size_t)p * lda + r];
    for (const int mode : {0, 1, 2}) {  // C = …, C += …, C = C_in + … (C_in another buffer)
      const bool acc = mode > 0, from_in = mode == 2;
      const auto C0 = random_vec((size_t)c.M * ldc, c.M * 3 + c.N);
      std::vector<float> C1 = from_in ? std::vector<float>(C0.size(), 1e30f) : C0, C2 = C1;
      attn::GemmArgs g{.M = c.M, .N = c.N, .K = c.K, .A = X.data(), .lda = lda, .B = dY.data(), .ldb = ldb,
                       .C = C1.data(), .ldc = ldc, .alpha = 0.37f, .a_transposed = true, .accumulate = acc,
                       .C_in = from_in ? C0.data() : nullptr};
      fast.gemm(g);
      g.A = A.data(), g.lda = c.K, g.a_transposed = false, g.C = C2.data();
      fast.gemm(g);
      for (int i = 0; i < c.M; ++i)
        for (int j = 0; j < ldc; ++j)
          ASSERT_EQ(C1[(size_t)i * ldc + j], C2[(size_t)i * ldc + j])
              << fast.name << " M=" << c.M << " N=" << c.N << " K=" << c.K << " mode=" << mode << " at " << i << "," << j;
    }
  }
}

TEST_P(KernelSweep, GemmSkipsOnlyWhatRangesAllow) {
  // Causal-style ranges: row i needs columns [0, i+1) and has A zero past column i.
  const attn::KernelSet& fast = *GetParam();
  for (int n : {1, 5, 19, 40}) {
    const int K = 11;
    std::vector<attn::Range> ranges((size_t)n);
    for (int i = 0; i < n; ++i) ranges[(size_t)i] = {0, i + 1};
    const auto A = random_vec((size_t)n * K, 3), B = random_vec((size_t)n * K, 4);
    std::vector<float> C1((size_t)n * n, 0.0f), C2((size_t)n * n, 0.0f);
    fast.gemm({.M = n, .N = n, .K = K, .A = A.data(), .lda = K, .B = B.data(), .ldb = K, .C = C1.data(), .ldc = n, .b_transposed = true,
               .n_range = ranges.data()});
    reference().gemm({.M = n, .N = n, .K = K, .A = A.data(), .lda = K, .B = B.data(), .ldb = K, .C = C2.data(), .ldc = n, .b_transposed = true});
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) ASSERT_NEAR(C1[(size_t)i * n + j], C2[(size_t)i * n + j], 1e-4f);
    // The same, added to another buffer's values (C_in) with the ranges.
    const auto C0 = random_vec((size_t)n * n, 6);
    std::vector<float> C3((size_t)n * n, 1e30f), C4((size_t)n * n, 1e30f);
    fast.gemm({.M = n, .N = n, .K = K, .A = A.data(), .lda = K, .B = B.data(), .ldb = K, .C = C3.data(), .ldc = n, .b_transposed = true,
               .accumulate = true, .C_in = C0.data(), .n_range = ranges.data()});
    reference().gemm({.M = n, .N = n, .K = K, .A = A.data(), .lda = K, .B = B.data(), .ldb = K, .C = C4.data(), .ldc = n, .b_transposed = true,
                      .accumulate = true, .C_in = C0.data()});
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) ASSERT_NEAR(C3[(size_t)i * n + j], C4[(size_t)i * n + j], 1e-4f) << "C_in with ranges";
    // k_range: A[i, p] = 0 for p > i; the product over the full K equals the skipped one.
    std::vector<float> W((size_t)n * n, 0.0f);
    for (int i = 0; i < n; ++i)
      for (int p = 0; p <= i; ++p) W[(size_t)i * n + p] = A[((size_t)i * K + p) % A.size()];
    const auto V = random_vec((size_t)n * 9, 5);
    std::vector<float> O1((size_t)n * 9), O2((size_t)n * 9);
    fast.gemm({.M = n, .N = 9, .K = n, .A = W.data(), .lda = n, .B = V.data(), .ldb = 9, .C = O1.data(), .ldc = 9, .k_range = ranges.data()});
    reference().gemm({.M = n, .N = 9, .K = n, .A = W.data(), .lda = n, .B = V.data(), .ldb = 9, .C = O2.data(), .ldc = 9});
    for (size_t i = 0; i < O1.size(); ++i) ASSERT_NEAR(O1[i], O2[i], 1e-4f);
  }
}

// The two ways the GEMM gets B's panels give the same bits: B read in place (untransposed, full panels)
// and B packed from Bᵀ (the 4×4-block transpose and its edges) hold the same numbers in the same order,
// so A·B and A·(Bᵀ given transposed) must agree exactly, and so must every partial panel past N.
TEST_P(KernelSweep, GemmPanelsInPlaceAndTransposedAreBitIdentical) {
  const attn::KernelSet& fast = *GetParam();
  int cases = 0;
  for (int M : {1, 6, 13, 33})
    for (int N : {1, 3, 4, 16, 31, 32, 64, 70, 97})
      for (int K : {1, 3, 4, 7, 16, 33, 64})
        for (bool acc : {false, true}) {
          const int ldb = N + 3, ldbt = K + 5, lda = K + 1, ldc = N + 2;
          const auto A = random_vec((size_t)M * lda, M + 31 * K);
          const auto B = random_vec((size_t)K * ldb, N * 17 + K);
          std::vector<float> Bt((size_t)N * ldbt, 99.0f);  // Bᵀ, with junk in the padding
          for (int p = 0; p < K; ++p)
            for (int j = 0; j < N; ++j) Bt[(size_t)j * ldbt + p] = B[(size_t)p * ldb + j];
          const auto C0 = random_vec((size_t)M * ldc, M * N);
          std::vector<float> C1 = C0, C2 = C0;
          fast.gemm({.M = M, .N = N, .K = K, .A = A.data(), .lda = lda, .B = B.data(), .ldb = ldb, .C = C1.data(), .ldc = ldc,
                     .alpha = 0.83f, .accumulate = acc});
          fast.gemm({.M = M, .N = N, .K = K, .A = A.data(), .lda = lda, .B = Bt.data(), .ldb = ldbt, .C = C2.data(), .ldc = ldc,
                     .alpha = 0.83f, .b_transposed = true, .accumulate = acc});
          for (size_t i = 0; i < C1.size(); ++i)
            ASSERT_EQ(C1[i], C2[i]) << fast.name << " M=" << M << " N=" << N << " K=" << K << " acc=" << acc << " at " << i;
          ++cases;
        }
  EXPECT_EQ(cases, 4 * 9 * 7 * 2);
}

// A row's last, partial vector is done whole when the row has room past its range (the causal rows of
// a longer matrix), and by one exp per lane when it has not: the same bits either way, and the lanes
// past the range are exactly 0. Each row alone (cols = hi, no room) against the same row inside a wider
// matrix whose range ends at hi.
TEST_P(KernelSweep, SoftmaxPartialVectorIsBitIdenticalWithAndWithoutRoom) {
  const attn::KernelSet& fast = *GetParam();
  if (std::string(fast.name) == "reference") GTEST_SKIP() << "the reference looks at every column (a range is a permission)";
  const int cols = 70;
  for (int lo : {0, 1, 5})
    for (int hi = lo; hi <= cols; ++hi) {
      auto s = random_vec((size_t)cols, hi * 3 + lo);
      for (float& x : s) x *= 20.0f;
      std::vector<uint8_t> allowed((size_t)cols);
      for (int j = 0; j < cols; ++j) allowed[(size_t)j] = (j * 5 + hi) % 7 != 0;
      // alone: exactly the columns [lo, hi)
      const int n = hi - lo;
      std::vector<float> alone((size_t)std::max(n, 1), -1.0f);
      uint8_t fully_alone = 9, fully_wide = 9;
      if (n > 0)
        fast.softmax_rows({.rows = 1, .cols = n, .s = s.data() + lo, .lds = n, .allowed = allowed.data() + lo, .ldm = n,
                           .w = alone.data(), .ldw = n, .fully_masked = &fully_alone});
      // wide: all 70 columns, the range [lo, hi)
      std::vector<float> wide((size_t)cols, -1.0f);
      const attn::Range range{lo, hi};
      fast.softmax_rows({.rows = 1, .cols = cols, .s = s.data(), .lds = cols, .allowed = allowed.data(), .ldm = cols,
                         .w = wide.data(), .ldw = cols, .range = &range, .fully_masked = &fully_wide});
      for (int j = 0; j < cols; ++j) {
        const float expect = j >= lo && j < hi ? alone[(size_t)(j - lo)] : 0.0f;  // 0 outside the range
        ASSERT_EQ(wide[(size_t)j], expect) << fast.name << " lo=" << lo << " hi=" << hi << " j=" << j;
      }
      if (n > 0) {
        EXPECT_EQ(fully_alone, fully_wide);
      }
    }
}

TEST_P(KernelSweep, SoftmaxMatchesReferenceAndMasksExactly) {
  const attn::KernelSet& fast = *GetParam();
  for (int rows : {1, 3, 8})
    for (int cols : {1, 2, 3, 4, 5, 7, 15, 16, 17, 33, 100}) {
      auto s = random_vec((size_t)rows * cols, rows * 100 + cols);
      for (float& x : s) x *= 30.0f;  // wide logits: exercises the max subtraction
      std::vector<uint8_t> allowed((size_t)rows * cols);
      for (size_t i = 0; i < allowed.size(); ++i) allowed[i] = (i * 7 % 5) != 0;
      for (int j = 0; j < cols; ++j) allowed[j] = 0;  // row 0 fully masked
      std::vector<float> w1(s.size(), -1.0f), w2(s.size(), -1.0f);
      std::vector<uint8_t> f1((size_t)rows), f2((size_t)rows);
      fast.softmax_rows({.rows = rows, .cols = cols, .s = s.data(), .lds = cols, .allowed = allowed.data(), .ldm = cols,
                         .w = w1.data(), .ldw = cols, .fully_masked = f1.data()});
      reference().softmax_rows({.rows = rows, .cols = cols, .s = s.data(), .lds = cols, .allowed = allowed.data(),
                                .ldm = cols, .w = w2.data(), .ldw = cols, .fully_masked = f2.data()});
      for (int i = 0; i < rows; ++i) {
        ASSERT_EQ(f1[(size_t)i], f2[(size_t)i]);
        double sum = 0;
        for (int j = 0; j < cols; ++j) {
          const size_t at = (size_t)i * cols + j;
          ASSERT_NEAR(w1[at], w2[at], 2e-6f) << fast.name << " rows=" << rows << " cols=" << cols;
          if (!allowed[at]) {
            ASSERT_EQ(w1[at], 0.0f) << "a masked weight must be exactly zero";
          }
          sum += w1[at];
        }
        if (f1[(size_t)i]) EXPECT_EQ(sum, 0.0);
        else EXPECT_NEAR(sum, 1.0, 1e-5);
      }
      EXPECT_EQ(f1[0], 1);
    }
}

TEST_P(KernelSweep, ExpIsAccurateAndFlushesBelowRange) {
  const attn::KernelSet& fast = *GetParam();
  // One allowed pair [0, x]: weight of x is exp(x) / (1 + exp(x)) -> checks exp through softmax.
  double worst = 0;
  for (float x = -80.0f; x <= 0.0f; x += 0.173f) {
    const float s[2] = {0.0f, x};
    const uint8_t allowed[2] = {1, 1};
    float w[2];
    uint8_t fm;
    fast.softmax_rows({.rows = 1, .cols = 2, .s = s, .lds = 2, .allowed = allowed, .ldm = 2, .w = w, .ldw = 2, .fully_masked = &fm});
    const double e = std::exp((double)x), expect = e / (1.0 + e);
    worst = std::max(worst, std::fabs(w[1] - expect) / expect);
  }
  EXPECT_LT(worst, 1e-6) << fast.name;
  const float s[2] = {0.0f, -200.0f};
  const uint8_t allowed[2] = {1, 1};
  float w[2];
  uint8_t fm;
  fast.softmax_rows({.rows = 1, .cols = 2, .s = s, .lds = 2, .allowed = allowed, .ldm = 2, .w = w, .ldw = 2, .fully_masked = &fm});
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 0.0f);
}

// The softmax's backward against its formula in double, over odd sizes and ranges (causal and windows),
// with NaN in dA outside the ranges (mix_backward leaves those cells unwritten): they must not leak.
TEST_P(KernelSweep, SoftmaxBackwardMatchesTheFormula) {
  const attn::KernelSet& fast = *GetParam();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int cases = 0;
  for (int rows : {1, 3, 8, 33})
    for (int cols : {1, 2, 3, 5, 15, 16, 17, 31, 33, 70})
      for (int kind = 0; kind < 3; ++kind) {  // no ranges, causal [0, i+1), a window [i−2, i+3)
        std::vector<attn::Range> range((size_t)rows);
        for (int i = 0; i < rows; ++i)
          range[(size_t)i] = kind == 1 ? attn::Range{0, std::min(i + 1, cols)}
                                       : attn::Range{std::clamp(i - 2, 0, cols), std::clamp(i + 3, 0, cols)};
        const attn::Range* ranges = kind ? range.data() : nullptr;
        auto a = random_vec((size_t)rows * cols, rows * 31 + cols), da = random_vec((size_t)rows * cols, cols * 7 + kind);
        for (float& x : a) x = 0.5f + 0.5f * x;  // weights in [0, 1]
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            if (ranges && (j < ranges[i].lo || j >= ranges[i].hi)) da[(size_t)i * cols + j] = nan, a[(size_t)i * cols + j] = 0.0f;
        std::vector<float> ds((size_t)rows * cols, -7.0f);
        fast.softmax_backward_rows({.rows = rows, .cols = cols, .da = da.data(), .a = a.data(), .ds = ds.data(), .range = ranges});
        std::vector<float> in_place = da;
        fast.softmax_backward_rows({.rows = rows, .cols = cols, .da = in_place.data(), .a = a.data(), .ds = in_place.data(), .range = ranges});
        for (int i = 0; i < rows; ++i) {
          const int lo = ranges ? ranges[i].lo : 0, hi = ranges ? ranges[i].hi : cols;
          double dot = 0.0;
          for (int j = lo; j < hi; ++j) dot += (double)da[(size_t)i * cols + j] * a[(size_t)i * cols + j];
          for (int j = 0; j < cols; ++j) {
            const size_t at = (size_t)i * cols + j;
            const double expect = j >= lo && j < hi ? a[at] * (da[at] - dot) : 0.0;
            ASSERT_NEAR(ds[at], expect, 1e-6 * (1 + cols)) << fast.name << " rows=" << rows << " cols=" << cols << " kind=" << kind << " at " << i << "," << j;
            ASSERT_EQ(in_place[at], ds[at]) << fast.name << ": in place differs at " << i << "," << j;
          }
        }
        ++cases;
      }
  EXPECT_EQ(cases, 4 * 10 * 3);
}

// A mask for the fused attention weights' tests: per kind, which keys row i may see, the rows' smallest
// ranges, and whether those ranges are dense (no holes).
struct TestMask {
  std::vector<uint8_t> allowed;
  std::vector<attn::Range> range;
  bool dense = true, starts_at_0 = true;
};
TestMask test_mask(int kind, int n, int m) {
  TestMask t;
  t.allowed.assign((size_t)n * m, 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      bool ok = true;                                   // kind 0: no mask
      if (kind == 1) ok = j <= i;                       // causal
      if (kind == 2) ok = j >= i - 2 && j < i + 3;      // a window: ranges start later
      if (kind == 3) ok = j <= i && (i + j) % 3 != 0;   // holes inside causal ranges (not dense)
      if (kind == 4) ok = j <= i && i % 4 != 1;         // causal, every fourth row fully masked
      t.allowed[(size_t)i * m + j] = ok;
    }
  for (int i = 0; i < n; ++i) {
    int lo = m, hi = 0;
    for (int j = 0; j < m; ++j)
      if (t.allowed[(size_t)i * m + j]) lo = std::min(lo, j), hi = j + 1;
    if (hi == 0) lo = 0;
    t.range.push_back({lo, hi});
    for (int j = lo; j < hi; ++j) t.dense = t.dense && t.allowed[(size_t)i * m + j];
    t.starts_at_0 = t.starts_at_0 && lo == 0;
  }
  return t;
}

// The shapes both fused-weights tests sweep: n queries, m keys, d = d_k or d_v, and a mask kind of
// test_mask: sizes that are not multiples of any SIMD width, rows past one register tile.
struct HeadCase {
  int n, m, d, kind;
  std::string where(const attn::KernelSet& k, int i, int j) const {
    return std::string(k.name) + " n=" + std::to_string(n) + " m=" + std::to_string(m) + " d=" + std::to_string(d) +
           " kind=" + std::to_string(kind) + " at " + std::to_string(i) + "," + std::to_string(j);
  }
};
std::vector<HeadCase> head_cases() {
  std::vector<HeadCase> cases;
  for (int n : {1, 3, 8, 32, 33})
    for (int m : {1, 5, 16, 17, 31, 32, 33, 64, 65})
      for (int d : {1, 3, 16, 17})
        for (int kind = 0; kind < 5; ++kind) cases.push_back({n, m, d, kind});
  return cases;
}

// One head's fused scores and softmax against the general way (the GEMM with the ranges as n_range,
// then softmax_rows): bit for bit where every range starts at key 0, to float rounding where a window
// starts later; against the reference kernels; masked weights exactly 0. Query and key rows sit inside
// wider rows (other heads beside them), over sizes that are not multiples of any SIMD width.
TEST_P(KernelSweep, AttentionWeightsMatchTheProductThenTheSoftmax) {
  const attn::KernelSet& fast = *GetParam();
  const std::vector<HeadCase> cases = head_cases();
  for (const HeadCase& c : cases) {
    const int n = c.n, m = c.m, d_k = c.d, kind = c.kind;
    const TestMask mask = test_mask(kind, n, m);
    const int ld = d_k + 5;
    auto q = random_vec((size_t)n * ld, n * 7 + d_k), k = random_vec((size_t)m * ld, m * 11 + d_k);
    for (float& x : q) x *= 3.0f;
    const float alpha = 0.7f;
    std::vector<float> fused((size_t)n * m, -9.0f), general((size_t)n * m, -9.0f), ref((size_t)n * m, -9.0f);
    std::vector<uint8_t> f_fused((size_t)n, 9), f_general((size_t)n, 9), f_ref((size_t)n, 9);
    const attn::WeightsArgs args{.n = n, .m = m, .d_k = d_k, .q = q.data(), .ldq = ld, .k = k.data(), .ldk = ld, .alpha = alpha,
                                 .allowed = mask.allowed.data(), .range = mask.range.data(), .dense = mask.dense,
                                 .a = fused.data(), .fully_masked = f_fused.data()};
    fast.attention_weights(args);
    fast.gemm({.M = n, .N = m, .K = d_k, .A = q.data(), .lda = ld, .B = k.data(), .ldb = ld, .C = general.data(), .ldc = m,
               .alpha = alpha, .b_transposed = true, .n_range = mask.range.data()});
    fast.softmax_rows({.rows = n, .cols = m, .s = general.data(), .lds = m, .allowed = mask.allowed.data(), .ldm = m,
                       .w = general.data(), .ldw = m, .range = mask.range.data(), .fully_masked = f_general.data()});
    attn::WeightsArgs ref_args = args;
    ref_args.a = ref.data(), ref_args.fully_masked = f_ref.data();
    reference().attention_weights(ref_args);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(f_fused[(size_t)i], f_general[(size_t)i]) << fast.name << " row " << i;
      ASSERT_EQ(f_fused[(size_t)i], f_ref[(size_t)i]) << fast.name << " row " << i;
      for (int j = 0; j < m; ++j) {
        const size_t at = (size_t)i * m + j;
        const std::string where = c.where(fast, i, j);
        if (mask.starts_at_0) {
          ASSERT_EQ(fused[at], general[at]) << where;
        } else {
          ASSERT_NEAR(fused[at], general[at], 1e-6f) << where;
        }
        ASSERT_NEAR(fused[at], ref[at], 2e-6f) << where;
        if (!mask.allowed[at]) {
          ASSERT_EQ(fused[at], 0.0f) << where << ": a masked weight must be exactly 0";
        }
      }
    }
  }
  EXPECT_EQ(cases.size(), 5u * 9 * 4 * 5);
}

// Back through one head's weights, fused (dA = dO·Vᵀ and dS in one go), against the general way (the
// GEMM with n_range, then softmax_backward_rows) and the formula in double: dA and dS inside each row's
// range, exactly 0 outside it.
TEST_P(KernelSweep, WeightsBackwardMatchesTheProductThenTheSoftmaxBackward) {
  const attn::KernelSet& fast = *GetParam();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<HeadCase> cases = head_cases();
  for (const HeadCase& c : cases) {
    const int n = c.n, m = c.m, d_v = c.d, kind = c.kind;
    const TestMask mask = test_mask(kind, n, m);
    const int ld = d_v + 3;
    auto d_o = random_vec((size_t)n * ld, n * 5 + d_v), v = random_vec((size_t)m * ld, m * 3 + d_v);
    auto a = random_vec((size_t)n * m, n + m + kind);
    for (size_t at = 0; at < a.size(); ++at) a[at] = mask.allowed[at] ? 0.5f + 0.5f * a[at] : 0.0f;  // weights: 0 where masked
    std::vector<float> da((size_t)n * m, nan), ds((size_t)n * m, nan), da_general((size_t)n * m, nan), ds_general((size_t)n * m, nan);
    fast.weights_backward({.n = n, .m = m, .d_v = d_v, .d_o = d_o.data(), .ld_do = ld, .v = v.data(), .ldv = ld, .a = a.data(),
                           .range = mask.range.data(), .da = da.data(), .ds = ds.data()});
    fast.gemm({.M = n, .N = m, .K = d_v, .A = d_o.data(), .lda = ld, .B = v.data(), .ldb = ld, .C = da_general.data(), .ldc = m,
               .b_transposed = true, .n_range = mask.range.data()});
    fast.softmax_backward_rows({.rows = n, .cols = m, .da = da_general.data(), .a = a.data(), .ds = ds_general.data(), .range = mask.range.data()});
    for (int i = 0; i < n; ++i) {
      const int lo = mask.range[(size_t)i].lo, hi = mask.range[(size_t)i].hi;
      double dot = 0.0;
      std::vector<double> da_expect((size_t)m, 0.0);
      for (int j = lo; j < hi; ++j) {
        for (int p = 0; p < d_v; ++p) da_expect[(size_t)j] += (double)d_o[(size_t)i * ld + p] * v[(size_t)j * ld + p];
        dot += da_expect[(size_t)j] * a[(size_t)i * m + j];
      }
      for (int j = 0; j < m; ++j) {
        const size_t at = (size_t)i * m + j;
        const std::string where = c.where(fast, i, j);
        if (j < lo || j >= hi) {
          ASSERT_EQ(da[at], 0.0f) << where;
          ASSERT_EQ(ds[at], 0.0f) << where;
          continue;
        }
        if (mask.starts_at_0) {
          ASSERT_EQ(da[at], da_general[at]) << where;
          ASSERT_EQ(ds[at], ds_general[at]) << where;
        }
        ASSERT_NEAR(da[at], da_expect[(size_t)j], 1e-5 * (1 + d_v)) << where;
        ASSERT_NEAR(ds[at], a[at] * (da_expect[(size_t)j] - dot), 1e-5 * (1 + d_v) * (1 + m)) << where;
      }
    }
  }
  EXPECT_EQ(cases.size(), 5u * 9 * 4 * 5);
}

// Cross-entropy and its softmax against the formula in double, over odd vocabularies (partial last
// vectors), wide logits and rows without a target; and each row's result is the same bits alone (its
// last vector without room) as inside the matrix (with the next row as room).
TEST_P(KernelSweep, CrossEntropyMatchesTheFormula) {
  const attn::KernelSet& fast = *GetParam();
  for (int rows : {1, 2, 7})
    for (int cols : {1, 2, 3, 5, 15, 16, 17, 28, 33, 70}) {
      auto z = random_vec((size_t)rows * cols, rows * 13 + cols);
      for (float& x : z) x *= 30.0f;
      std::vector<int> targets((size_t)rows);
      for (int r = 0; r < rows; ++r) targets[(size_t)r] = r % 3 == 1 ? -1 : (r * 5 + 3) % cols;
      std::vector<float> p((size_t)rows * cols, -1.0f), loss((size_t)rows, -1.0f);
      fast.crossentropy_rows({.rows = rows, .cols = cols, .z = z.data(), .targets = targets.data(), .p = p.data(), .loss = loss.data()});
      for (int r = 0; r < rows; ++r) {
        const float* zr = z.data() + (size_t)r * cols;
        const int t = targets[(size_t)r];
        double mx = zr[0], sum = 0.0;
        for (int c = 1; c < cols; ++c) mx = std::max(mx, (double)zr[c]);
        for (int c = 0; c < cols; ++c) sum += std::exp(zr[c] - mx);
        const double expect_loss = t < 0 ? 0.0 : mx + std::log(sum) - zr[t];
        ASSERT_NEAR(loss[(size_t)r], expect_loss, 1e-5 * (1 + expect_loss)) << fast.name << " rows=" << rows << " cols=" << cols << " row " << r;
        for (int c = 0; c < cols; ++c) {
          const double expect = t < 0 ? 0.0 : std::exp(zr[c] - mx) / sum;
          ASSERT_NEAR(p[(size_t)r * cols + c], expect, 2e-6) << fast.name << " rows=" << rows << " cols=" << cols << " at " << r << "," << c;
        }
        std::vector<float> p1((size_t)cols, -1.0f);
        float loss1 = -1.0f;
        fast.crossentropy_rows({.rows = 1, .cols = cols, .z = zr, .targets = &targets[(size_t)r], .p = p1.data(), .loss = &loss1});
        ASSERT_EQ(loss1, loss[(size_t)r]) << fast.name << " cols=" << cols << " row " << r << " alone";
        for (int c = 0; c < cols; ++c) ASSERT_EQ(p1[(size_t)c], p[(size_t)r * cols + c]) << fast.name << " cols=" << cols << " alone at " << c;
      }
    }
}

// Embedding rows (the learned models' X = W_E[token] + P[position] and their folded projections): each
// cell is one float addition, so every set gives the formula's bits; ids repeat (a row of the gradient
// tables gathers several rows, in order), widths leave partial vectors, and nothing past a table or y is
// touched (guards after each buffer).
TEST_P(KernelSweep, EmbedRowsAreTheFormulaBitForBit) {
  const attn::KernelSet& fast = *GetParam();
  constexpr float guard = 12345.0f;
  // (3 rows: two ids and a position with no row, whose table rows must stay as they are; 40 rows: eight
  // to a table row, of magnitudes 2⁻⁴ … 2⁴, so that summing them in another order than r's shows)
  for (int cols : {1, 3, 4, 5, 15, 16, 17, 31, 64, 70})
    for (int rows : {11, 3, 40})
      for (bool with_p : {false, true}) {
        const int n = 4, vocab = 5;
        std::vector<int> ids((size_t)rows);
        for (int r = 0; r < rows; ++r) ids[(size_t)r] = (r * 7 + 1) % vocab;
        const auto e = random_vec((size_t)vocab * cols, 40 + cols), p = random_vec((size_t)n * cols, 41 + cols);
        auto dy = random_vec((size_t)rows * cols, 42 + cols);
        for (size_t i = 0; i < dy.size(); ++i)  // (× 1/√2: full mantissas, where random_vec's have 16 bits)
          dy[i] = std::ldexp(dy[i] * 0.70710678f, (int)(i / (size_t)cols * 5 % 9) - 4);
        const std::string where = std::string(fast.name) + " cols=" + std::to_string(cols) + " rows=" + std::to_string(rows) +
                                  (with_p ? " with p" : " no p");
        std::vector<float> y((size_t)rows * cols + 1, guard);
        fast.embed_rows({.rows = rows, .cols = cols, .n = n, .ids = ids.data(), .e = e.data(), .p = with_p ? p.data() : nullptr, .y = y.data()});
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) {
            const float er = e[(size_t)ids[(size_t)r] * cols + c];
            ASSERT_EQ(y[(size_t)r * cols + c], with_p ? er + p[(size_t)(r % n) * cols + c] : er) << where << " at " << r << "," << c;
          }
        ASSERT_EQ(y.back(), guard) << where;
        std::vector<float> ge = random_vec((size_t)vocab * cols, 43 + cols), gp = random_vec((size_t)n * cols, 44 + cols);
        std::vector<float> ge_expect = ge, gp_expect = gp;
        ge.push_back(guard), gp.push_back(guard);
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) {
            ge_expect[(size_t)ids[(size_t)r] * cols + c] += dy[(size_t)r * cols + c];
            if (with_p) gp_expect[(size_t)(r % n) * cols + c] += dy[(size_t)r * cols + c];
          }
        fast.embed_rows_backward({.rows = rows, .cols = cols, .n = n, .ids = ids.data(), .dy = dy.data(), .ge = ge.data(),
                                  .gp = with_p ? gp.data() : nullptr});
        for (size_t i = 0; i < ge_expect.size(); ++i) ASSERT_EQ(ge[i], ge_expect[i]) << where << " ge " << i;
        for (size_t i = 0; i < gp_expect.size(); ++i) ASSERT_EQ(gp[i], gp_expect[i]) << where << " gp " << i;
        ASSERT_EQ(ge.back(), guard) << where;
        ASSERT_EQ(gp.back(), guard) << where;
      }
}

// AdamW's update against its formula in double, over lengths that are not multiples of any SIMD width.
TEST_P(KernelSweep, AdamWMatchesTheFormula) {
  const attn::KernelSet& fast = *GetParam();
  for (int n = 0; n < 70; n += n < 20 ? 1 : 7) {
    auto p = random_vec((size_t)n, 1 + n), g = random_vec((size_t)n, 2 + n), m = random_vec((size_t)n, 3 + n), v = random_vec((size_t)n, 4 + n);
    for (float& x : m) x *= 0.1f;
    for (float& x : v) x = 0.01f * x * x;  // second moments are >= 0
    const std::vector<float> p0 = p, m0 = m, v0 = v;
    const attn::AdamWArgs args{.p = p.data(), .g = g.data(), .m = m.data(), .v = v.data(), .n = (size_t)n, .beta1 = 0.9f,
                               .beta2 = 0.999f, .decay = 0.999f, .step = 0.0123f, .inv_sqrt_bias2 = 3.7f, .eps = 1e-8f};
    fast.adamw(args);
    for (int i = 0; i < n; ++i) {
      const double gi = g[(size_t)i];
      const double mi = 0.9 * m0[(size_t)i] + (1 - 0.9) * gi, vi = 0.999 * v0[(size_t)i] + (1 - 0.999) * gi * gi;
      const double pi = p0[(size_t)i] * 0.999 - 0.0123 * mi / (std::sqrt(vi) * 3.7 + 1e-8);
      ASSERT_NEAR(m[(size_t)i], mi, 1e-6) << fast.name << " n=" << n << " i=" << i;
      ASSERT_NEAR(v[(size_t)i], vi, 1e-7 * (1 + vi)) << fast.name << " n=" << n << " i=" << i;
      ASSERT_NEAR(p[(size_t)i], pi, 1e-6 * (1 + std::fabs(pi))) << fast.name << " n=" << n << " i=" << i;
    }
  }
}

TEST_P(KernelSweep, DotMatchesReference) {
  const attn::KernelSet& fast = *GetParam();
  for (int n = 0; n < 70; ++n) {
    const auto a = random_vec((size_t)n, 1), b = random_vec((size_t)n, 2);
    EXPECT_NEAR(fast.dot(a.data(), b.data(), n), reference().dot(a.data(), b.data(), n), 1e-5f);
  }
}

// The recurrent models' gates: σ and tanh against the formula in double, over odd lengths (scalar tails)
// and a range wide enough to saturate both, including ±100 (no overflow, no NaN).
TEST_P(KernelSweep, SigmoidAndTanhMatchTheFormula) {
  const attn::KernelSet& fast = *GetParam();
  for (int n : {1, 3, 17, 33, 70}) {
    std::vector<float> x = random_vec((size_t)n, 7);
    for (float& v : x) v *= 12.0f;
    x[0] = n % 2 ? 100.0f : -100.0f;
    std::vector<float> s = x, t = x;
    fast.sigmoid(s.data(), n);
    fast.tanh(t.data(), n);
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(s[(size_t)i], 1.0 / (1.0 + std::exp(-(double)x[(size_t)i])), 2e-7) << x[(size_t)i];
      EXPECT_NEAR(t[(size_t)i], std::tanh((double)x[(size_t)i]), 2e-7) << x[(size_t)i];
    }
  }
  float tiny[2] = {1e-5f, -3e-4f};
  fast.tanh(tiny, 2);
  EXPECT_NEAR(tiny[0], 1e-5f, 1e-7f);
  EXPECT_NEAR(tiny[1], -3e-4f, 1e-7f);
}

std::string name_of(const ::testing::TestParamInfo<const attn::KernelSet*>& info) { return info.param->name; }

INSTANTIATE_TEST_SUITE_P(AllKernelSets, KernelSweep, ::testing::ValuesIn(attn::available_kernel_sets().begin(), attn::available_kernel_sets().end()), name_of);

// The softmaxes' exp leaves out vexp's clamp above 88, as their arguments (logits minus their max) never
// exceed 0: it must give vexp's bits for every x <= 88 (here: every 251st float up to 88, the ends and
// the edge of the flush to 0), in this build's instruction set (SSE2 natively, simd128 in WebAssembly).
TEST(Simd, ExpWithoutTheUpperClampHasVexpsBitsUpTo88) {
  using namespace attn::simd;
  std::vector<float> xs = {0.0f, -0.0f, -INFINITY, 88.0f, -87.33654f, std::nextafter(-87.33654f, 0.0f),
                           std::nextafter(-87.33654f, -1.0f), -1e-30f, 1e-30f};
  uint32_t b88;
  const float f88 = 88.0f;
  std::memcpy(&b88, &f88, 4);
  const auto from_bits = [](uint64_t b) {  // (no std::bit_cast in Emscripten 3.1.6's libc++)
    const uint32_t u = (uint32_t)b;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  for (uint64_t b = 0; b <= b88; b += 251) xs.push_back(from_bits(b));                      // 0 … 88
  for (uint64_t b = 0x80000000u; b <= 0xFF800000u; b += 251) xs.push_back(from_bits(b));  // -0 … -inf
  while (xs.size() % VLEN) xs.push_back(0.0f);
  size_t differ = 0;
  for (size_t i = 0; i < xs.size(); i += VLEN) {
    float a[VLEN], b[VLEN];
    vstore(a, vexp(vload(&xs[i])));
    vstore(b, vexp_nonpositive(vload(&xs[i])));
    for (int l = 0; l < VLEN; ++l) differ += std::memcmp(&a[l], &b[l], 4) != 0;
  }
  EXPECT_EQ(differ, 0u) << "of " << xs.size() << " in " << isa_name();
  EXPECT_GT(xs.size(), 9000000u);
}

TEST(Dispatch, SelectsByNameAndRejectsUnknown) {
  const std::string best = attn::kernels().name;
  EXPECT_TRUE(attn::select_kernels("reference"));
  EXPECT_STREQ(attn::kernels().name, "reference");
  EXPECT_FALSE(attn::select_kernels("no-such-isa"));
  EXPECT_STREQ(attn::kernels().name, "reference");
  EXPECT_TRUE(attn::select_kernels(best));
#if defined(__wasm_simd128__)
  EXPECT_EQ(best, "simd128");
#endif
}

}  // namespace
