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

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
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
    int64_t chunks = std::min<int64_t>({numThreads_, (n + grain - 1) / grain, kMaxUnits});
    const int64_t chunk = (n + chunks - 1) / chunks;
    chunks = (n + chunk - 1) / chunk;
    using F = std::remove_reference_t<Fn>;
    dispatch(n, chunk, chunks, [](void *ctx, int64_t b, int64_t e) { (*static_cast<F *>(ctx))(b, e); },
             const_cast<void *>(static_cast<const void *>(&fn)));
  }

  // Like parallelFor, for loops whose threads must finish together on cores
  // that do not run at one speed (a VM's vCPUs share physical cores with
  // other guests, hybrid CPUs mix core kinds: an even split waits for the
  // slowest; docs/PERFORMANCE.md, issue 19). [0, n) is cut into units
  // of `unit` (the last may be shorter); each thread starts on its own
  // contiguous, even share of units, front to back, and once through it
  // takes units from the back of the share with the most left. fn(begin,
  // end) gets one unit per call from the pool, all of [0, n) at once when
  // the loop runs inline. Units cost a claim each (an atomic on the share's
  // own cache line): a few per thread, not thousands.
  template <typename Fn>
  void parallelForUnits(int64_t n, int64_t unit, Fn &&fn) {
    if (n <= 0) return;
    if (unit < 1) unit = 1;
    if (numThreads_ == 1 || n <= unit || insideParallelFor()) {
      fn(int64_t(0), n);
      return;
    }
    if ((n + unit - 1) / unit > kMaxUnits) unit = (n + kMaxUnits - 1) / kMaxUnits;
    const int64_t units = (n + unit - 1) / unit;
    using F = std::remove_reference_t<Fn>;
    dispatch(n, unit, std::min<int64_t>(numThreads_, units),
             [](void *ctx, int64_t b, int64_t e) { (*static_cast<F *>(ctx))(b, e); },
             const_cast<void *>(static_cast<const void *>(&fn)));
  }

 private:
  using ChunkFn = void (*)(void *ctx, int64_t begin, int64_t end);
  static constexpr int64_t kMaxUnits = 0xffff;

  static bool insideParallelFor();
  // Runs fn over [0, n) in units of `unit`, split into `shares` even
  // contiguous shares of units (parallelFor: one unit per share).
  void dispatch(int64_t n, int64_t unit, int64_t shares, ChunkFn fn, void *ctx);
  void workerLoop();
  // Claims shares of job `generation` and runs their units, then takes units
  // from the back of the others' shares, until none are left or a newer job
  // has started.
  void runChunks(uint32_t generation, ChunkFn fn, void *ctx, int64_t n, int64_t unit, bool caller);
  // Takes the front (or back) unit of share `share` of job `generation` into
  // *unit; false when the share has none left or the job is over.
  bool takeUnit(int64_t share, uint32_t generation, bool front, int64_t *unit);
  // Nanoseconds to spin before blocking, -1 = no limit.
  int64_t spinNs() const;

  int numThreads_;
  std::vector<std::thread> workers_;
  std::mutex dispatchMutex_;  // one parallelFor at a time per pool
  std::atomic<WaitPolicy> policy_;

  // The current job: generation (bits 32-63), share count (16-31) and next
  // unclaimed share (0-15). Shares are claimed by compare-exchange on the
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
  std::atomic<uint32_t> chunksDone_{0};  // units run so far
  // One per thread: the units of a share not yet taken, as generation (bits
  // 32-63), front (16-31) and back (0-15). Its owner takes from the front,
  // others from the back, each by compare-exchange on the whole word, so a
  // unit is taken once and only while its job is the word's. A cache line
  // each: owners taking units do not contend.
  struct alignas(64) Share {
    std::atomic<uint64_t> units{0};
  };
  std::unique_ptr<Share[]> shares_;

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
