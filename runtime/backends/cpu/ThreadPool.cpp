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
constexpr int64_t kMaxChunks = 0xffff;

// Spins until done() or `limitNs` (-1: no limit) passes; true when done()
// became true. The clock is read every few pauses (a pause is ~10-150 cycles
// depending on the CPU, so counting pauses would not bound time). Each round
// also yields: on a core shared with other runnable threads (another
// process, or this pool's own thread that the spinner would delay) they run
// instead, and on an idle core the yield returns at once. Measured on the
// 2-vCPU VM at load ~5, 100M int4 Llama decode at 2 threads: 117-119 tok/s
// spinning 0.2 ms without yields, 163-187 blocking at once, 213-240 with.
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

void ThreadPool::runChunks(uint32_t generation, ChunkFn fn, void *ctx, int64_t n, int64_t chunk, bool caller) {
  uint64_t s = state_.load(std::memory_order_acquire);
  for (;;) {
    if (generationOf(s) != generation) return;
    const uint32_t c = nextChunkOf(s), numChunks = chunksOf(s);
    if (c >= numChunks) return;
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    int64_t begin = int64_t(c) * chunk;
    fn(ctx, begin, std::min(n, begin + chunk));
    uint32_t done = chunksDone_.fetch_add(1) + 1;
    if (!caller && done == numChunks && callerSleeping_.load()) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
    s = state_.load(std::memory_order_acquire);
  }
}

void ThreadPool::dispatch(int64_t n, int64_t grain, ChunkFn fn, void *ctx) {
  // Another thread is already driving this pool (two runs of one session at
  // once): do the work here rather than queue behind it.
  std::unique_lock<std::mutex> dispatchLock(dispatchMutex_, std::try_to_lock);
  if (!dispatchLock.owns_lock()) {
    tInsideParallelFor = true;
    fn(ctx, 0, n);
    tInsideParallelFor = false;
    return;
  }
  // One contiguous range per thread, claimed rather than assigned: a worker
  // that has not woken yet (a shared machine, or one still blocked) leaves
  // its range to the caller instead of making it wait.
  int64_t numChunks = std::min<int64_t>({numThreads_, (n + grain - 1) / grain, kMaxChunks});
  int64_t chunk = (n + numChunks - 1) / numChunks;
  numChunks = (n + chunk - 1) / chunk;
  const uint32_t chunks = static_cast<uint32_t>(numChunks);

  fn_.store(fn, std::memory_order_relaxed);
  ctx_.store(ctx, std::memory_order_relaxed);
  n_.store(n, std::memory_order_relaxed);
  chunk_.store(chunk, std::memory_order_relaxed);
  chunksDone_.store(0, std::memory_order_relaxed);
  const uint32_t generation = ++generation_;
  state_.store(uint64_t(generation) << 32 | uint64_t(chunks) << 16);  // seq_cst: before the sleeper check
  if (sleepingWorkers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }

  tInsideParallelFor = true;
  runChunks(generation, fn, ctx, n, chunk, /*caller=*/true);
  tInsideParallelFor = false;

  auto allDone = [&] { return chunksDone_.load(std::memory_order_acquire) == chunks; };
  if (spinUntil(allDone, spinNs())) return;
  std::unique_lock<std::mutex> lock(mutex_);
  callerSleeping_.store(true);
  done_.wait(lock, [&] { return chunksDone_.load() == chunks; });
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
