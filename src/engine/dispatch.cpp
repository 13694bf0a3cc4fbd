// dispatch.cpp — picks the fastest kernel set this CPU runs. Which sets exist is decided by CMake
// (ATTN_HAVE_AVX2 / ATTN_HAVE_AVX512 on x86-64); "native" and "scalar" are always built.
#include <atomic>
#include <vector>

#include "kernels.h"

namespace attn {
namespace native { extern const KernelSet kernel_set; }
namespace scalar { extern const KernelSet kernel_set; }
namespace reference { extern const KernelSet kernel_set; }
#if ATTN_HAVE_AVX2
namespace avx2 { extern const KernelSet kernel_set; }
#endif
#if ATTN_HAVE_AVX512
namespace avx512 { extern const KernelSet kernel_set; }
#endif

namespace {

std::vector<const KernelSet*> detect() {
  std::vector<const KernelSet*> sets;
#if ATTN_HAVE_AVX512
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    sets.push_back(&avx512::kernel_set);
#endif
#if ATTN_HAVE_AVX2
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) sets.push_back(&avx2::kernel_set);
#endif
  sets.push_back(&native::kernel_set);
  sets.push_back(&scalar::kernel_set);
  sets.push_back(&reference::kernel_set);  // the plain loops: slowest, the oracle
  return sets;
}

const std::vector<const KernelSet*>& sets() {
  static const std::vector<const KernelSet*> all = detect();
  return all;
}

std::atomic<const KernelSet*> current{nullptr};

}  // namespace

const KernelSet& kernels() {
  const KernelSet* k = current.load(std::memory_order_relaxed);
  if (!k) {
    k = sets().front();
    current.store(k, std::memory_order_relaxed);
  }
  return *k;
}

std::span<const KernelSet* const> available_kernel_sets() { return sets(); }

bool select_kernels(std::string_view name) {
  for (const KernelSet* k : sets()) {
    if (name == k->name) {
      current.store(k, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

}  // namespace attn
