// A persistent pool of worker threads for data-parallel kernels.
//
// Sized once per session (webnn-run --threads). parallelFor runs on the calling
// thread, with no hand-off at all, when the pool has one thread, when the range
// fits in one grain, or when called from inside another parallelFor: small ops
// (most of a graph's elementwise tail) then cost nothing extra.
//
// Idle workers (and a caller waiting for the last chunk) spin for a bounded
// time, then block (WaitPolicy). Every parallel loop of the CPU backend runs
// here, oneDNN's primitives included (onednn/: each thread executes a
// single-threaded primitive on its piece of the problem), so one team of
// threads with one waiting policy serves a whole run: beside a second team
// (OpenMP's) the two fought for the cores, and two threads ran CNNs slower
// than one (docs/PERFORMANCE.md). The pool's threads are its
// own, not OpenMP's: OpenMP reads its waiting policy once per process from
// the environment, so a library could not choose it per session.
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

// Whether `rows` cut into `parts` contiguous pieces (the pool's chunks:
// ceil(rows / parts) each) keeps the largest piece within 1/8 of an even
// share. Kernels that could split either rows or channels take rows when
// they split this evenly (rows keep each thread on the rows it wrote in the
// node before), channels otherwise (7 rows on 2 threads: 4 + 3); the cost
// functions price the same choice.
inline bool rowsSplitEvenly(int64_t rows, int64_t parts) {
  if (parts < 1 || rows < parts) return false;
  return (rows + parts - 1) / parts * parts * 8 <= rows * 9;
}

// How a thread with nothing to do waits for the next loop (a worker) or for
// the other threads' chunks (the caller).
enum class WaitPolicy {
  kDefault,  // spin (yielding) kDefaultSpinNs, then block
  kSpin,     // spin (yielding) until there is work: burns the cores between runs
  kBlock,    // block at once: frees the cores, costs a wake-up per loop
};

class ThreadPool {
 public:
  // Bounded spin of WaitPolicy::kDefault: long enough to bridge the serial
  // gaps between the loops of one run and between back-to-back runs (a
  // decode step's ~60 GEMVs, the next token), short enough that a pool with
  // nothing to do soon leaves its cores to others. 0.1-2 ms decoded alike.
  static constexpr int64_t kDefaultSpinNs = 1'000'000;

  // numThreads counts the calling thread: 1 = no workers, everything inline.
  // Values < 1 mean 1.
  explicit ThreadPool(int numThreads, WaitPolicy policy = WaitPolicy::kDefault);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int numThreads() const { return numThreads_; }

  // Takes effect at each thread's next wait.
  void setWaitPolicy(WaitPolicy policy);
  WaitPolicy waitPolicy() const { return policy_.load(std::memory_order_relaxed); }

  // Wakes the workers (started, then blocked, in the constructor) so that
  // the first run finds them spinning.
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

  static bool insideParallelFor();
  void dispatch(int64_t n, int64_t grain, ChunkFn fn, void *ctx);
  void workerLoop();
  // Claims and runs chunks of job `generation` until none are left or a
  // newer job has started.
  void runChunks(uint32_t generation, ChunkFn fn, void *ctx, int64_t n, int64_t chunk, bool caller);
  // Nanoseconds to spin before blocking, -1 = no limit.
  int64_t spinNs() const;

  int numThreads_;
  std::vector<std::thread> workers_;
  std::mutex dispatchMutex_;  // one parallelFor at a time per pool
  std::atomic<WaitPolicy> policy_;

  // The current job: generation (bits 32-63), chunk count (16-31) and next
  // unclaimed chunk (0-15). Chunks are claimed by compare-exchange on the
  // whole word, so a claim succeeds only while its job is unfinished; the
  // caller rewrites the fields below only after its job is finished, so a
  // successful claim means the fields a worker read were that job's.
  std::atomic<uint64_t> state_{0};
  uint32_t generation_ = 0;  // the caller's copy (dispatch holds dispatchMutex_)
  // The job's fields: written by the caller before it publishes the new
  // generation (release), read by workers after seeing it (acquire).
  std::atomic<ChunkFn> fn_{nullptr};
  std::atomic<void *> ctx_{nullptr};
  std::atomic<int64_t> n_{0}, chunk_{0};
  std::atomic<uint32_t> chunksDone_{0};

  // Blocking: a thread announces itself before its last check under mutex_,
  // the other side checks the announcement after its store (both seq_cst),
  // so no wake-up is lost and none is paid for while everyone spins.
  std::mutex mutex_;
  std::condition_variable wake_;  // workers: a new generation or stop
  std::condition_variable done_;  // caller: the last chunk finished
  std::atomic<int> sleepingWorkers_{0};
  std::atomic<bool> callerSleeping_{false};
  std::atomic<bool> stop_{false};
};

}  // namespace webnn::cpu

#endif
