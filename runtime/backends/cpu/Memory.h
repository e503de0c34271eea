// Memory advice shared by the executor and the CPU kernels.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_MEMORY_H
#define WEBNN_RUNTIME_BACKENDS_CPU_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace webnn::cpu {

constexpr size_t kHugePageBytes = size_t(2) << 20;

// `bytes` rounded up to whole 2 MiB pages (*allocated), 2 MiB-aligned and
// advised to use transparent huge pages, so first touches fault in a few
// zeroed huge pages instead of hundreds of 4 KiB ones. Null on overflow or
// failure; free with std::free.
void *allocateHugePages(size_t bytes, size_t *allocated);

// A long-lived buffer for a kernel's packed constant (or other data read on
// every run): 64-byte aligned; from kHugePageBytes on 2 MiB-aligned and its
// whole 2 MiB pages advised to be huge ones (the tail past the last stays
// small), so that streaming it does not take a TLB miss every 4 KiB (in a
// VM each miss is a two-level walk). Null on failure; free with std::free.
void *allocatePacked(size_t bytes);

// After a constant has been packed into a kernel's layout its original
// bytes (a page range of the mmapped artifact) are not read again: ask the
// kernel to drop those pages, so the model is not resident twice. Contents
// stay valid (clean file pages are read back if ever touched; anonymous
// memory is left alone), so any pointer is safe.
void releasePackedSource(const void *data, size_t bytes);

// Floats on a 64-byte boundary, so a kernel's AVX-512 loads of them never
// split a cache line (std::vector promises 16 bytes). Uninitialized after
// resize, which returns false (contents and size unchanged) when the memory
// is refused: kernels pack into these on their first run, so the failure
// becomes that run's Status instead of an exception.
class AlignedFloats {
 public:
  [[nodiscard]] bool resize(size_t count);
  float *data() const { return data_.get(); }
  size_t size() const { return size_; }
  float &operator[](size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
  size_t size_ = 0;
};

// Tests only: the `n`th AlignedFloats::resize from now (1 = the next) fails
// as if the system refused the memory; 0 turns it off. How a test reaches
// the run path's out-of-memory handling without exhausting the machine.
void failAlignedAllocationForTesting(int64_t n);

}  // namespace webnn::cpu

#endif
