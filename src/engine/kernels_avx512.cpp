// The fast kernels compiled with -mavx512f -mavx2 -mfma (x86-64 only; chosen at run time when the CPU has them).
#define ATTN_KERNEL_NS avx512
#include "kernels.inc"
