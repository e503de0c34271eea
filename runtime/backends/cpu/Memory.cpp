#include "Memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

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

void AlignedFloats::resize(size_t count) {
  const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  data_.reset(static_cast<float *>(std::aligned_alloc(64, bytes ? bytes : 64)));
  if (!data_) throw std::bad_alloc();
  size_ = count;
}

}  // namespace webnn::cpu
