// Warm-up at session creation (core/WarmUp.h).
#include "core/WarmUp.h"

#include <sys/resource.h>
#include <system_error>

namespace webnn::rt {

// One thread builds everything before returning. With more, the workers
// start now and a low-priority helper claims kernels in node order while the
// caller goes on to the first run, which claims the next ones too whenever
// the node it is at is not built yet (a kernel claimed by the other is waited
// for at its lock). A helper the system refuses leaves it all to the run.
void KernelWarmUp::start(std::vector<Kernel *> kernels, BackendSession &session) {
  numThreads_ = session.numThreads();
  if (numThreads_ == 1) {
    for (Kernel *k : kernels) k->warmUp(numThreads_);
    return;
  }
  session.startWorkers();
  kernels_ = std::move(kernels);
  done_.reset(new std::atomic<bool>[kernels_.size()]());
  pending_ = true;
  try {
    thread_ = std::thread([this] {
      // Below the run's own threads: a core is lent to JIT only while they
      // leave it idle (at 2 threads, MobileNetV2's slowest start-ups of 25
      // went 22-48 ms -> 14-18, docs/PERFORMANCE.md).
      setpriority(PRIO_PROCESS, 0, 19);  // this thread only (Linux)
      while (!stop_.load(std::memory_order_relaxed) && next()) {
      }
    });
  } catch (const std::system_error &) {
  }
}

bool KernelWarmUp::next() {
  size_t j = next_.fetch_add(1, std::memory_order_relaxed);
  if (j >= kernels_.size()) return false;
  kernels_[j]->warmUp(numThreads_);
  done_[j].store(true, std::memory_order_release);
  return true;
}

void KernelWarmUp::finish() {
  if (thread_.joinable()) thread_.join();
  pending_ = false;
}

}  // namespace webnn::rt
