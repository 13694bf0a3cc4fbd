// simd.h — the one place that knows about instruction sets.
//
// Everything above this header (kernels.inc, the ops) is written against a tiny vector vocabulary:
//   vf            a register of VLEN floats
//   vload/vstore  unaligned load/store of VLEN floats
//   vset1         broadcast a scalar
//   vfma(a,b,c)   a*b + c  (fused where the ISA has it)
//   vmax, vandnot, vsqrt, vhsum, vhmax (one float), vallsum, vallmax (in every lane), vlane0, vexp
//   (vexp_nonpositive: without the clamp above 88), vsigmoid, vtanh
// Which ISA backs it is decided by the compiler flags of the translation unit that includes it:
// AVX-512F, AVX2+FMA, SSE2, wasm simd128, NEON, or scalar (VLEN = 1). Native builds compile the kernels
// once per ISA and dispatch at run time (see dispatch.cpp); the web build compiles them for simd128.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(ATTN_FORCE_SCALAR)
#define ATTN_ISA_SCALAR 1
#elif defined(__AVX512F__)
#include <immintrin.h>
#define ATTN_ISA_AVX512 1
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ATTN_ISA_AVX2 1
#elif defined(__SSE2__)
#include <emmintrin.h>
#define ATTN_ISA_SSE2 1
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define ATTN_ISA_WASM 1
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#define ATTN_ISA_NEON 1
#else
#define ATTN_ISA_SCALAR 1
#endif

// Everything below has internal linkage (anonymous namespace): each kernels_*.cpp compiles these
// helpers for a different ISA, and the linker must never merge one ISA's copy into another's.
namespace attn::simd {
namespace {

#if ATTN_ISA_SCALAR
// [SECTION] scalar: VLEN = 1, so every kernel's "tail" path is the whole loop.
using vf = float;
inline constexpr int VLEN = 1;
constexpr const char* isa_name() { return "scalar"; }
inline vf vload(const float* p) { return *p; }
inline void vstore(float* p, vf v) { *p = v; }
inline vf vset1(float s) { return s; }
inline vf vfma(vf a, vf b, vf c) { return a * b + c; }
inline vf vmax(vf a, vf b) { return a > b ? a : b; }
inline float vhsum(vf v) { return v; }
inline float vhmax(vf v) { return v; }
inline vf vallsum(vf v) { return v; }
inline vf vallmax(vf v) { return v; }
inline float vlane0(vf v) { return v; }
inline vf vsqrt(vf v) { return std::sqrt(v); }
#else
// [SECTION] vector ISAs. GCC/Clang vector extensions give +,-,* and lane access portably; only loads,
// stores, fma, max and the integer tricks in vexp need the ISA's own spelling.
#if ATTN_ISA_AVX512
inline constexpr int VLEN = 16;
constexpr const char* isa_name() { return "avx512"; }
#elif ATTN_ISA_AVX2
inline constexpr int VLEN = 8;
constexpr const char* isa_name() { return "avx2"; }
#elif ATTN_ISA_WASM
inline constexpr int VLEN = 4;
constexpr const char* isa_name() { return "simd128"; }
#elif ATTN_ISA_SSE2
inline constexpr int VLEN = 4;
constexpr const char* isa_name() { return "sse2"; }
#else  // NEON
inline constexpr int VLEN = 4;
constexpr const char* isa_name() { return "neon"; }
#endif
typedef float vf __attribute__((vector_size(VLEN * 4)));  // values (registers); memory goes through vf_memory
typedef int32_t vi __attribute__((vector_size(VLEN * 4)));

// Loads and stores through a may_alias type (as the intrinsics headers do): one unaligned vector move.
// A memcpy here is expanded by GCC's generic tuning as 16-byte pieces through a stack slot, which in the
// GEMM micro-kernel cost a store-forwarding stall per panel load (about 6% of peak while training).
typedef float vf_memory __attribute__((vector_size(VLEN * 4), aligned(4), may_alias));
inline vf vload(const float* p) { return *reinterpret_cast<const vf_memory*>(p); }
inline void vstore(float* p, vf v) { *reinterpret_cast<vf_memory*>(p) = v; }
inline vf vset1(float s) {
  // A real broadcast: `vf{} + s` would cost an extra add (0 + s is not s for s = -0).
#if ATTN_ISA_AVX512
  return (vf)_mm512_set1_ps(s);
#elif ATTN_ISA_AVX2
  return (vf)_mm256_set1_ps(s);
#elif ATTN_ISA_SSE2
  return (vf)_mm_set1_ps(s);
#elif ATTN_ISA_WASM
  return (vf)wasm_f32x4_splat(s);
#else
  return (vf)vdupq_n_f32(s);
#endif
}

inline vf vfma(vf a, vf b, vf c) {
#if ATTN_ISA_AVX512
  return (vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif ATTN_ISA_AVX2
  return (vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif ATTN_ISA_NEON
  return (vf)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else  // SSE2 and wasm simd128 have no fused multiply-add
  return a * b + c;
#endif
}

inline vf vmax(vf a, vf b) {
#if ATTN_ISA_AVX512
  return (vf)_mm512_max_ps((__m512)a, (__m512)b);
#elif ATTN_ISA_AVX2
  return (vf)_mm256_max_ps((__m256)a, (__m256)b);
#elif ATTN_ISA_SSE2
  return (vf)_mm_max_ps((__m128)a, (__m128)b);
#elif ATTN_ISA_WASM
  return (vf)wasm_f32x4_pmax((v128_t)a, (v128_t)b);
#else
  return (vf)vmaxq_f32((float32x4_t)a, (float32x4_t)b);
#endif
}

// x's lanes where `drop` is all-zeros, 0 where it is all-ones (one instruction: and-not; written as
// x & ~drop, clang's WebAssembly build made it a bitselect against a zero register, three under V8).
inline vf vandnot(vf x, vi drop) {
#if ATTN_ISA_WASM
  return (vf)wasm_v128_andnot((v128_t)x, (v128_t)drop);
#else
  return (vf)((vi)x & ~drop);
#endif
}

inline vf vsqrt(vf v) {
#if ATTN_ISA_AVX512
  return (vf)_mm512_sqrt_ps((__m512)v);
#elif ATTN_ISA_AVX2
  return (vf)_mm256_sqrt_ps((__m256)v);
#elif ATTN_ISA_SSE2
  return (vf)_mm_sqrt_ps((__m128)v);
#elif ATTN_ISA_WASM
  return (vf)wasm_f32x4_sqrt((v128_t)v);
#else
  return (vf)vsqrtq_f32((float32x4_t)v);
#endif
}

// A vector's lanes combined by op (a sum, a max) as a butterfly: each lane with the lane VLEN/2 away,
// then VLEN/4 away, … 1 (log2(VLEN) shuffles and ops instead of VLEN − 1 dependent scalar steps).
// Every lane ends holding the whole result (the same bits in each, as op commutes), ready to use as a
// vector: the softmax's max and sum, the dot products.
template <class Op>
inline vf vall(vf v, Op op) {
#if ATTN_ISA_AVX512
  v = op(v, __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
  v = op(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11));
  v = op(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
  return op(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
#elif ATTN_ISA_AVX2
  v = op(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3));
  v = op(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5));
  return op(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
#else
  v = op(v, __builtin_shufflevector(v, v, 2, 3, 0, 1));
  return op(v, __builtin_shufflevector(v, v, 1, 0, 3, 2));
#endif
}
inline vf vallsum(vf v) {
  return vall(v, [](vf a, vf b) { return a + b; });
}
inline vf vallmax(vf v) { return vall(v, vmax); }
inline float vlane0(vf v) { return v[0]; }
inline float vhsum(vf v) { return vallsum(v)[0]; }
inline float vhmax(vf v) { return vallmax(v)[0]; }
#endif

// exp(x) for a vector, ~1 ulp over the range that matters to softmax (x <= 0 after the max is
// subtracted). Cody-Waite range reduction x = k·ln2 + r with |r| <= ln2/2, a degree-6 polynomial for
// e^r, then 2^k built in the exponent bits. Inputs below -87.3 (including -inf: a masked logit) give
// exactly 0, so a masked weight is exactly zero, not merely tiny. Inputs above 88 are taken as 88
// (UPPER_CLAMP); vexp_nonpositive leaves that clamp out for callers whose x never exceeds 88 (a
// softmax's logits minus their max), with the same bits wherever x <= 88.
template <bool UPPER_CLAMP>
inline vf vexp_clamped(vf x) {
#if ATTN_ISA_SCALAR
  return x < -87.33654f ? 0.0f : std::exp(UPPER_CLAMP && x > 88.0f ? 88.0f : x);
#else
  vf xc = vmax(x, vset1(-87.33654f));
  if constexpr (UPPER_CLAMP) xc = -vmax(-xc, vset1(-88.0f));
  // k = round(x/ln2), by adding and subtracting 1.5·2^23: the sum t holds k in its low mantissa bits
  // (t's bits are those of 1.5·2^23 plus k), which gives 2^k below without a float-to-int conversion
  // (in WebAssembly a saturating one, six instructions under V8).
  const vf kx = xc * vset1(1.44269504088896341f);
  const vf t = kx + vset1(12582912.0f);
  const vf kf = t - vset1(12582912.0f);
  vf r = vfma(kf, vset1(-0.693359375f), xc);
  r = vfma(kf, vset1(2.12194440e-4f), r);
  vf p = vset1(1.9875691500e-4f);
  p = vfma(p, r, vset1(1.3981999507e-3f));
  p = vfma(p, r, vset1(8.3334519073e-3f));
  p = vfma(p, r, vset1(4.1665795894e-2f));
  p = vfma(p, r, vset1(1.6666665459e-1f));
  p = vfma(p, r, vset1(5.0000001201e-1f));
  p = vfma(p * r, r, r) + vset1(1.0f);
  // 2^k: (k + 127) << 23, from t's bits (the bits of 1.5·2^23 are all shifted out; unsigned, so that
  // they leave without a signed overflow)
  typedef uint32_t vu __attribute__((vector_size(VLEN * 4)));
  const vi bits = (vi)(((vu)t + 127u) << 23);  // a vector cast reinterprets the bits
  const vf y = p * (vf)bits;
  return vandnot(y, x < vset1(-87.33654f));  // 0 where x is below the range (or -inf)
#endif
}
inline vf vexp(vf x) { return vexp_clamped<true>(x); }
inline vf vexp_nonpositive(vf x) { return vexp_clamped<false>(x); }

// Lanes of s where the mask byte is non-zero, -inf elsewhere: a masked row of logits.
inline vf vmasked(const float* s, const uint8_t* mask) {
#if ATTN_ISA_SCALAR
  return *mask ? *s : -INFINITY;
#else
  typedef uint8_t vb __attribute__((vector_size(VLEN)));
  vb bytes;
  std::memcpy(&bytes, mask, sizeof bytes);
  const vi keep = __builtin_convertvector(bytes, vi) != 0;  // all-ones lanes where allowed
  const vi sbits = (vi)vload(s), ninf = (vi)vset1(-INFINITY);  // vector casts reinterpret the bits
  return (vf)((sbits & keep) | (ninf & ~keep));
#endif
}

// dst[c·ld_dst + r] = src[r·ld_src + c] for r, c < 4: a 4×4 block transposed, through 4-float vectors
// (SSE's xmm under AVX too, wasm simd128, NEON: every vector ISA has them). The GEMM's transposed
// pack (kernels.inc) uses it; copies only, so the values are the same as a scalar transpose's.
// With rows < 4, source rows from `rows` on are read as zeros (nothing past them is touched).
inline void transpose4x4(const float* src, int ld_src, float* dst, int ld_dst, int rows = 4) {
#if ATTN_ISA_SCALAR
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) dst[(size_t)c * ld_dst + r] = r < rows ? src[(size_t)r * ld_src + c] : 0.0f;
#else
  typedef float v4 __attribute__((vector_size(16)));
  typedef float v4_memory __attribute__((vector_size(16), aligned(4), may_alias));
  const auto row = [&](int r) { return r < rows ? *reinterpret_cast<const v4_memory*>(src + (size_t)r * ld_src) : v4{}; };
  const v4 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  // pass 1: interleave pairs of rows (a0 b0 a1 b1 | a2 b2 a3 b3); pass 2: interleave the pairs' halves
  const v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
  const v4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
  *reinterpret_cast<v4_memory*>(dst) = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  *reinterpret_cast<v4_memory*>(dst + ld_dst) = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  *reinterpret_cast<v4_memory*>(dst + 2 * (size_t)ld_dst) = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  *reinterpret_cast<v4_memory*>(dst + 3 * (size_t)ld_dst) = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
#endif
}

// {0, 1, …, VLEN − 1}: each lane's index, as a constant. (Built lane by lane in a loop, clang's wasm
// build kept the loop: four stores to the stack and a vector load that waits on them, per call — most
// of the softmax backward's time in WebAssembly.)
#if !ATTN_ISA_SCALAR
inline vi vlane_index() {
  return []<int... I>(std::integer_sequence<int, I...>) { return vi{I...}; }(std::make_integer_sequence<int, VLEN>{});
}
#endif

// v's first `count` lanes (0 <= count <= VLEN), and `fill` in the lanes from count on (a row's last,
// partial vector: its lanes past the row made neutral, whatever memory held there).
inline vf vkeep_first(vf v, int count, float fill) {
#if ATTN_ISA_SCALAR
  return count > 0 ? v : fill;
#else
  const vi inside = vlane_index() < count;  // all-ones lanes below count
  return (vf)(((vi)v & inside) | ((vi)vset1(fill) & ~inside));
#endif
}

// The first `count` lanes (0 <= count <= VLEN) of memory at p, read or written without touching the
// floats past them: AVX-512 and AVX2 mask the move (masked lanes never fault), other ISAs go lane by
// lane through a buffer. vload_first's other lanes are 0.
inline vf vload_first(const float* p, int count) {
#if ATTN_ISA_AVX512
  return (vf)_mm512_maskz_loadu_ps((__mmask16)((1u << count) - 1), p);
#elif ATTN_ISA_AVX2
  return (vf)_mm256_maskload_ps(p, (__m256i)(vlane_index() < count));
#elif ATTN_ISA_SCALAR
  return count > 0 ? *p : 0.0f;
#else
  float buf[VLEN] = {};
  for (int i = 0; i < count; ++i) buf[i] = p[i];
  return vload(buf);
#endif
}
inline void vstore_first(float* p, vf v, int count) {
#if ATTN_ISA_AVX512
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << count) - 1), (__m512)v);
#elif ATTN_ISA_AVX2
  _mm256_maskstore_ps(p, (__m256i)(vlane_index() < count), (__m256)v);
#elif ATTN_ISA_SCALAR
  if (count > 0) *p = v;
#else
  float buf[VLEN];
  vstore(buf, v);
  for (int i = 0; i < count; ++i) p[i] = buf[i];
#endif
}

// vmasked for the first `count` lanes only (count < VLEN: a row's last, partial vector); the lanes from
// count on are -inf whatever the mask says, so they add nothing to a max or (after exp) a sum.
inline vf vmasked_first(const float* s, const uint8_t* mask, int count) {
  return vkeep_first(vmasked(s, mask), count, -INFINITY);
}

// One float through a vector function (for scalar tails).
template <vf (*F)(vf)>
inline float one_lane(float x) {
#if ATTN_ISA_SCALAR
  return F(x);
#else
  return F(vset1(x))[0];
#endif
}

// exp of one float, by the same method as vexp (for scalar tails).
inline float vexp1(float x) { return one_lane<vexp>(x); }

// 1/(1 + e^(−x)) for a vector, through vexp: far below 0 it is ~1e-38 (e^(−x) stops at e^88), never NaN.
inline vf vsigmoid(vf x) { return vset1(1.0f) / (vset1(1.0f) + vexp(-x)); }

// tanh(x) = sign(x)·(1 − e)/(1 + e) with e = e^(−2|x|) ≤ 1, so nothing overflows. Absolute error about
// 1e-7; for |x| below ~1e-3 the relative error grows (1 − e cancels), which the recurrent models that use
// it do not feel: they need h and 1 − h², both of size ~1 there.
inline vf vtanh(vf x) {
#if ATTN_ISA_SCALAR
  const float e = vexp(-2.0f * std::fabs(x));
  return std::copysign((1.0f - e) / (1.0f + e), x);
#else
  const vi sign_bit = (vi)vset1(-0.0f);  // vector casts reinterpret the bits
  const vf magnitude = (vf)((vi)x & ~sign_bit);
  const vf e = vexp(vset1(-2.0f) * magnitude);
  return (vf)((vi)((vset1(1.0f) - e) / (vset1(1.0f) + e)) | ((vi)x & sign_bit));
#endif
}

}  // namespace
}  // namespace attn::simd
