#include "runtime/backends/cpu/Memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <atomic>

namespace webnn::cpu {

void *allocateHugePages(size_t bytes, size_t *allocated) {
  size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (rounded < bytes) return nullptr;
  void *p = std::aligned_alloc(kHugePageBytes, rounded);
  if (!p) return nullptr;
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
  *allocated = rounded;
  return p;
}

void *allocatePacked(size_t bytes) {
  const size_t rounded = bytes < 64 ? 64 : (bytes + 63) / 64 * 64;
  if (rounded < bytes) return nullptr;
  if (rounded < kHugePageBytes) return std::aligned_alloc(64, rounded);
  // Not rounded up to whole huge pages (allocateHugePages' way): the tail
  // past the last whole one stays in 4 KiB pages instead of costing up to
  // 2 MiB of memory per constant (ViT-B/16's 50 would add ~65 MB).
  // posix_memalign, not aligned_alloc: C11 wants the size a multiple of the
  // alignment, and sanitizer allocators refuse anything else.
  void *p = nullptr;
  if (posix_memalign(&p, kHugePageBytes, rounded) != 0) return nullptr;
  madvise(p, rounded / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);  // advice only
  return p;
}

void releasePackedSource(const void *data, size_t bytes) {
#ifdef MADV_PAGEOUT
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (uintptr_t(data) + page - 1) & ~(page - 1);
  uintptr_t end = (uintptr_t(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void *>(begin), end - begin, MADV_PAGEOUT);
#else
  (void)data;
  (void)bytes;
#endif
}

namespace {
std::atomic<int64_t> gFailAlignedAllocation{0};  // countdown; 0 = off
}  // namespace

void failAlignedAllocationForTesting(int64_t n) { gFailAlignedAllocation.store(n, std::memory_order_relaxed); }

bool AlignedFloats::resize(size_t count) {
  if (count > SIZE_MAX / sizeof(float) - 64) return false;
  if (gFailAlignedAllocation.load(std::memory_order_relaxed) > 0 &&
      gFailAlignedAllocation.fetch_sub(1, std::memory_order_relaxed) == 1)
    return false;
  const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  float *p = static_cast<float *>(allocatePacked(bytes));
  if (!p) return false;
  data_.reset(p);
  size_ = count;
  return true;
}

}  // namespace webnn::cpu
