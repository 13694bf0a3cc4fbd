// The fast kernels compiled with no vector instructions at all: the baseline the benchmark compares against.
#define ATTN_FORCE_SCALAR 1
#define ATTN_KERNEL_NS scalar
#include "kernels.inc"
