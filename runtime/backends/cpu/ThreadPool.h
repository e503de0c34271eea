// A persistent pool of worker threads for data-parallel kernels.
//
// Sized once per session (webnn-run --threads). parallelFor runs on the calling
// thread, with no hand-off at all, when the pool has one thread, when the range
// fits in one grain, or when called from inside another parallelFor: small ops
// (most of a graph's elementwise tail) then cost nothing extra.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_THREADPOOL_H
#define WEBNN_RUNTIME_BACKENDS_CPU_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace webnn::cpu {

class ThreadPool {
 public:
  // numThreads counts the calling thread: 1 = no workers, everything inline.
  // Values < 1 mean 1.
  explicit ThreadPool(int numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int numThreads() const { return numThreads_; }

  // Starts the workers now rather than in the first parallelFor (on this VM
  // OpenMP's first parallel region took 1.6-6.5 ms in about one run of three).
  void startWorkers();

  // Calls fn(begin, end) over disjoint chunks covering [0, n), each at least
  // `grain` long except possibly the last; returns when all chunks are done.
  // The calling thread takes chunks too. fn must not throw.
  template <typename Fn>
  void parallelFor(int64_t n, int64_t grain, Fn &&fn) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    if (numThreads_ == 1 || n <= grain || insideParallelFor()) {
      fn(int64_t(0), n);
      return;
    }
    using F = std::remove_reference_t<Fn>;
    dispatch(n, grain, [](void *ctx, int64_t b, int64_t e) { (*static_cast<F *>(ctx))(b, e); },
             const_cast<void *>(static_cast<const void *>(&fn)));
  }

 private:
  using ChunkFn = void (*)(void *ctx, int64_t begin, int64_t end);
  struct Job {
    ChunkFn fn = nullptr;
    void *ctx = nullptr;
    int64_t n = 0;
    int64_t chunk = 0;
    int64_t numChunks = 0;
  };

  static bool insideParallelFor();
  void dispatch(int64_t n, int64_t grain, ChunkFn fn, void *ctx);
  void workerLoop();
  // Claims and runs chunks of the current job until none are left.
  void runChunks(const Job &job);

  int numThreads_;
  std::vector<std::thread> workers_;
  std::mutex dispatchMutex_;  // one parallelFor at a time per pool
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job job_;
  uint64_t generation_ = 0;      // bumped per job; workers wait for a change
  int activeWorkers_ = 0;        // workers still inside the current job
  std::atomic<int64_t> nextChunk_{0};
  bool stop_ = false;
};

}  // namespace webnn::cpu

#endif
