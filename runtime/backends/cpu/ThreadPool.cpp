#include "ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <system_error>
#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace webnn::cpu {
namespace {
// Set on pool workers and on a caller while it runs chunks: a nested
// parallelFor then runs inline instead of waiting on workers that are busy
// with the outer loop (which would deadlock).
thread_local bool tInsideParallelFor = false;

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

inline uint32_t generationOf(uint64_t state) { return static_cast<uint32_t>(state >> 32); }
inline uint32_t chunksOf(uint64_t state) { return static_cast<uint32_t>(state >> 16) & 0xffff; }
inline uint32_t nextChunkOf(uint64_t state) { return static_cast<uint32_t>(state) & 0xffff; }
// A share's word (Share::units) has the same layout: generation, front, back.
inline uint32_t frontOf(uint64_t units) { return static_cast<uint32_t>(units >> 16) & 0xffff; }
inline uint32_t backOf(uint64_t units) { return static_cast<uint32_t>(units) & 0xffff; }

// Spins until done() or `limitNs` (-1: no limit) passes; true when done()
// became true. The clock is read every few pauses (a pause is ~10-150 cycles
// depending on the CPU, so counting pauses would not bound time). Each round
// also yields: on a core shared with other runnable threads (another
// process, or this pool's own thread that the spinner would delay) they run
// instead, and on an idle core the yield returns at once. On a loaded
// 2-vCPU machine the int4 Llama decode at 2 threads was fastest spinning
// with yields, then blocking at once, then spinning without yields
// (docs/RUNTIME.md, thread waiting; docs/PERFORMANCE.md).
template <typename Done>
bool spinUntil(Done done, int64_t limitNs) {
  if (limitNs == 0) return done();
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::nanoseconds(limitNs);
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (done()) return true;
      cpuRelax();
    }
    sched_yield();
    if (limitNs > 0 && Clock::now() >= deadline) return done();
  }
}
}  // namespace

ThreadPool::ThreadPool(int numThreads, WaitPolicy policy)
    : numThreads_(std::max(1, numThreads)), policy_(policy) {
  workers_.reserve(numThreads_ - 1);
  // If the system refuses a thread (limits, memory), run with the ones it gave:
  // fewer threads is slower, never wrong, and no exception leaves the pool.
  try {
    for (int i = 1; i < numThreads_; ++i) workers_.emplace_back([this] { workerLoop(); });
  } catch (const std::system_error &) {
  }
  numThreads_ = static_cast<int>(workers_.size()) + 1;
  shares_.reset(new Share[size_t(numThreads_)]);
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto &t : workers_) t.join();
}

void ThreadPool::setWaitPolicy(WaitPolicy policy) { policy_.store(policy, std::memory_order_relaxed); }

int64_t ThreadPool::spinNs() const {
  switch (policy_.load(std::memory_order_relaxed)) {
    case WaitPolicy::kSpin: return -1;
    case WaitPolicy::kBlock: return 0;
    case WaitPolicy::kDefault: break;
  }
  return kDefaultSpinNs;
}

void ThreadPool::startWorkers() {
  // Workers started in the constructor spin briefly and then block; one
  // empty loop wakes them, so the first run does not pay their wake-ups.
  if (numThreads_ > 1 && !insideParallelFor()) parallelFor(numThreads_, 1, [](int64_t, int64_t) {});
}

bool ThreadPool::insideParallelFor() { return tInsideParallelFor; }

bool ThreadPool::takeUnit(int64_t share, uint32_t generation, bool front, int64_t *unit) {
  std::atomic<uint64_t> &word = shares_[size_t(share)].units;
  uint64_t u = word.load(std::memory_order_acquire);
  for (;;) {
    if (generationOf(u) != generation || frontOf(u) >= backOf(u)) return false;
    const uint64_t taken = front ? u + (uint64_t(1) << 16) : u - 1;
    if (word.compare_exchange_weak(u, taken, std::memory_order_acq_rel, std::memory_order_acquire)) {
      *unit = front ? frontOf(u) : backOf(u) - 1;
      return true;
    }
  }
}

void ThreadPool::runChunks(uint32_t generation, ChunkFn fn, void *ctx, int64_t n, int64_t unit, bool caller) {
  const uint32_t units = static_cast<uint32_t>((n + unit - 1) / unit);
  auto run = [&](int64_t u) {
    const int64_t begin = u * unit;
    fn(ctx, begin, std::min(n, begin + unit));
    const uint32_t done = chunksDone_.fetch_add(1) + 1;
    if (!caller && done == units && callerSleeping_.load()) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  };
  // Own shares first, front to back.
  uint64_t s = state_.load(std::memory_order_acquire);
  uint32_t numShares = 0;
  for (;;) {
    if (generationOf(s) != generation) return;
    const uint32_t c = nextChunkOf(s);
    numShares = chunksOf(s);
    if (c >= numShares) break;
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    for (int64_t u; takeUnit(c, generation, /*front=*/true, &u);) run(u);
    s = state_.load(std::memory_order_acquire);
  }
  // Then the others' units, from the back of the share with the most left:
  // the ones its owner would reach last.
  for (;;) {
    int64_t busiest = -1;
    uint32_t most = 0;
    for (uint32_t c = 0; c < numShares; ++c) {
      const uint64_t u = shares_[c].units.load(std::memory_order_acquire);
      if (generationOf(u) != generation || frontOf(u) >= backOf(u)) continue;
      if (backOf(u) - frontOf(u) > most) {
        most = backOf(u) - frontOf(u);
        busiest = c;
      }
    }
    if (busiest < 0) return;
    int64_t u;
    if (takeUnit(busiest, generation, /*front=*/false, &u)) run(u);
  }
}

void ThreadPool::dispatch(int64_t n, int64_t unit, int64_t shares, ChunkFn fn, void *ctx) {
  // Another thread is already driving this pool (two runs of one session at
  // once): do the work here rather than queue behind it.
  std::unique_lock<std::mutex> dispatchLock(dispatchMutex_, std::try_to_lock);
  if (!dispatchLock.owns_lock()) {
    tInsideParallelFor = true;
    fn(ctx, 0, n);
    tInsideParallelFor = false;
    return;
  }
  // Shares are claimed rather than assigned: a worker that has not woken
  // yet (a shared machine, or one still blocked) leaves its share to the
  // threads that have, instead of making them wait.
  const int64_t units = (n + unit - 1) / unit;
  fn_.store(fn, std::memory_order_relaxed);
  ctx_.store(ctx, std::memory_order_relaxed);
  n_.store(n, std::memory_order_relaxed);
  chunk_.store(unit, std::memory_order_relaxed);
  chunksDone_.store(0, std::memory_order_relaxed);
  const uint32_t generation = ++generation_;
  for (int64_t c = 0; c < shares; ++c)
    shares_[size_t(c)].units.store(
        uint64_t(generation) << 32 | uint64_t(c * units / shares) << 16 | uint64_t((c + 1) * units / shares),
        std::memory_order_relaxed);
  state_.store(uint64_t(generation) << 32 | uint64_t(shares) << 16);  // seq_cst: before the sleeper check
  if (sleepingWorkers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }

  tInsideParallelFor = true;
  runChunks(generation, fn, ctx, n, unit, /*caller=*/true);
  tInsideParallelFor = false;

  const uint32_t total = static_cast<uint32_t>(units);
  auto allDone = [&] { return chunksDone_.load(std::memory_order_acquire) == total; };
  if (spinUntil(allDone, spinNs())) return;
  std::unique_lock<std::mutex> lock(mutex_);
  callerSleeping_.store(true);
  done_.wait(lock, [&] { return chunksDone_.load() == total; });
  callerSleeping_.store(false, std::memory_order_relaxed);
}

void ThreadPool::workerLoop() {
  tInsideParallelFor = true;
  uint32_t seen = 0;
  for (;;) {
    auto hasWork = [&] {
      return stop_.load(std::memory_order_relaxed) ||
             generationOf(state_.load(std::memory_order_acquire)) != seen;
    };
    if (!spinUntil(hasWork, spinNs())) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepingWorkers_.fetch_add(1);
      wake_.wait(lock, [&] { return stop_.load() || generationOf(state_.load()) != seen; });
      sleepingWorkers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load()) return;
    const uint64_t s = state_.load(std::memory_order_acquire);
    seen = generationOf(s);
    // Read after the generation: possibly the next job's fields already, in
    // which case runChunks finds the generation moved on and claims nothing.
    runChunks(seen, fn_.load(std::memory_order_relaxed), ctx_.load(std::memory_order_relaxed),
              n_.load(std::memory_order_relaxed), chunk_.load(std::memory_order_relaxed), /*caller=*/false);
  }
}

}  // namespace webnn::cpu
