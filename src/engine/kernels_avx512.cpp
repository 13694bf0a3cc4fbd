// The fast kernels compiled with -mavx512f -mavx2 -mfma (x86-64 only; chosen at run time when the CPU has them).
// GCC 12 warns that avx512fintrin.h's own placeholder register (_mm512_undefined_ps, written `__Y = __Y`)
// is used uninitialized wherever it inlines _mm512_max_ps into the fused attention weights: a false
// positive of the header (GCC bug 105593, fixed in GCC 13), silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#define ATTN_KERNEL_NS avx512
#include "kernels.inc"
