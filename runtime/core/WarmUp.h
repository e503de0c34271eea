// Kernel::warmUp for a session's kernels, which builds at session creation
// what their first run would otherwise build (oneDNN's JIT code). It owns
// the helper thread and the claim on each kernel; the executor's run loop
// asks it, node by node, that the kernel it is about to run is built.
#ifndef WEBNN_RUNTIME_CORE_WARMUP_H
#define WEBNN_RUNTIME_CORE_WARMUP_H

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include "core/Backend.h"
#include "core/Kernel.h"

namespace webnn::rt {

class KernelWarmUp {
 public:
  ~KernelWarmUp() { stop(); }
  // Warms `kernels` (the main graph's nodes first, indexed by node, then the
  // subgraphs'): all of them now with one thread; with more, the session's
  // workers start and a low-priority helper claims kernels in order while
  // the caller goes on to the first run.
  void start(std::vector<Kernel *> kernels, BackendSession &session);
  // Whether the first run has yet to join the helper.
  bool pending() const { return pending_; }
  // Makes sure kernel `i` is warmed: claims and warms the next unclaimed
  // kernels here until it is (one the helper is warming is waited for at its
  // lock, inside the kernel's run).
  void ensure(size_t i) {
    while (!done_[i].load(std::memory_order_acquire) && next()) {
    }
  }
  // Joins the helper (the first run's end).
  void finish();
  // Makes the helper stop after its current kernel, and joins it.
  void stop() {
    stop_.store(true, std::memory_order_relaxed);
    finish();
  }

 private:
  bool next();  // warms the next unclaimed kernel; false when none is left
  std::vector<Kernel *> kernels_;
  int numThreads_ = 1;
  std::unique_ptr<std::atomic<bool>[]> done_;
  std::atomic<size_t> next_{0};
  bool pending_ = false;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace webnn::rt

#endif
