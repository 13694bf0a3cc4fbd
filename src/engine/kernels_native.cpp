// The fast kernels compiled with the build's own flags: SSE2 on x86-64, simd128 on the web, NEON on arm64.
#define ATTN_KERNEL_NS native
#include "kernels.inc"
