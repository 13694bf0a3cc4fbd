// The fast kernels compiled with -mavx2 -mfma (x86-64 only; chosen at run time when the CPU has them).
#define ATTN_KERNEL_NS avx2
#include "kernels.inc"
