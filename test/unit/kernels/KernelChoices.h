// The CPU backend's kernel choices (KernelCandidates.h) collected while in
// scope: which candidate made each kernel and why the ones before it refused.
// Tests check the path a node took with it instead of run counters.
#ifndef WEBNN_TEST_UNIT_KERNELS_KERNELCHOICES_H
#define WEBNN_TEST_UNIT_KERNELS_KERNELCHOICES_H

#include <mutex>
#include <string>
#include <vector>

#include "runtime/backends/cpu/kernels/KernelCandidates.h"

namespace webnn::cpu::test {

class ScopedKernelChoices {
 public:
  ScopedKernelChoices() {
    kernels::setKernelChoiceObserver([this](const kernels::KernelChoice &c) {
      std::lock_guard<std::mutex> lock(mutex_);
      choices_.push_back(c);
    });
  }
  ~ScopedKernelChoices() { kernels::setKernelChoiceObserver(nullptr); }
  ScopedKernelChoices(const ScopedKernelChoices &) = delete;
  ScopedKernelChoices &operator=(const ScopedKernelChoices &) = delete;

  std::vector<kernels::KernelChoice> all() {
    std::lock_guard<std::mutex> lock(mutex_);
    return choices_;
  }
  // The last choice made for an `op` node; an empty choice if none was.
  kernels::KernelChoice last(const std::string &op) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = choices_.rbegin(); it != choices_.rend(); ++it)
      if (it->op == op) return *it;
    return {};
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    choices_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<kernels::KernelChoice> choices_;
};

// The kernel that computes the convolution: a wrapper's inner kernel (the
// SiLU pass names it in its detail), else the chosen candidate.
inline std::string convKernelOf(const kernels::KernelChoice &c) {
  return c.chosen.rfind("silu-after", 0) == 0 || c.chosen.rfind("hardswish-after", 0) == 0 ? c.detail : c.chosen;
}

}  // namespace webnn::cpu::test

#endif
