#include "ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <system_error>
#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#ifdef WEBNN_THREADPOOL_OPENMP
#include <omp.h>
#endif

namespace webnn::cpu {
namespace {
// Set on pool workers and on a caller while it runs chunks: a nested
// parallelFor then runs inline instead of waiting on workers that are busy
// with the outer loop (which would deadlock).
thread_local bool tInsideParallelFor = false;
// This thread has run OpenMP regions with several threads (noteOpenMpTeam).
thread_local bool tOpenMpTeam = false;

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

#ifdef WEBNN_THREADPOOL_OPENMP
namespace {
// OpenMP's idle threads (oneDNN's) spin GOMP_SPINCOUNT pauses (300000 unless
// the environment says otherwise, ~3 ms) before sleeping, except while the
// process has more OpenMP threads than CPUs: then 100 (libgomp's manual,
// GOMP_SPINCOUNT). A team that spins for milliseconds collapses on a core
// shared with other work: MobileNetV2 at 2 threads on the 2-vCPU VM at load
// ~4 took 400 ms per run (3.7-4.1 ms with 100 spins or passive waiting), as
// its threads wait at every barrier for one that is queued behind another
// process. OpenMP reads the spin count only from the environment, before
// any code of ours runs, so the pool gets the short spin by the rule above:
// a thread of ours starts a team as large as the CPU count once per
// process, and it and its team then sleep for good (blocked, no CPU).
void parkOpenMpTeam() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Waits until the team exists: started in the background, it could be
    // kept off the cores by the very spinning it is meant to shorten.
    static std::mutex m;
    static std::condition_variable cv;
    static bool started = false;
    try {
      std::thread([] {
        // The region must do something: without a body no team was made
        // (the process had one OpenMP thread fewer and kept the long spin).
        std::atomic<int> members{0};
#pragma omp parallel num_threads(omp_get_num_procs())
        {
          members.fetch_add(1, std::memory_order_relaxed);
        }
        {
          std::lock_guard<std::mutex> lock(m);
          started = true;
        }
        cv.notify_all();
        // Parked for the life of the process, on objects never destroyed
        // (the static ones above are, at exit).
        std::mutex parkedMutex;
        std::condition_variable parked;
        std::unique_lock<std::mutex> lock(parkedMutex);
        parked.wait(lock, [] { return false; });
      }).detach();
    } catch (const std::system_error &) {
      return;
    }
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [] { return started; });
  });
}
}  // namespace
#endif

ThreadPool::ThreadPool(int numThreads, WaitPolicy policy)
    : numThreads_(std::max(1, numThreads)), policy_(policy) {
#ifdef WEBNN_THREADPOOL_OPENMP
  if (numThreads_ > 1) parkOpenMpTeam();
  // oneDNN (Debian's build) threads with OpenMP and sizes each primitive for
  // the creating thread's OpenMP count, so the kernels a session builds next
  // get the count its runs will use (else each is built twice: ~4 ms of
  // ResNet-50's first run at 1 thread).
  omp_set_num_threads(numThreads_);
#endif
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
#ifdef WEBNN_THREADPOOL_OPENMP
  if (numThreads_ > 1 && !insideParallelFor()) {
    std::atomic<int> members{0};  // a body, else the region makes no team (parkOpenMpTeam)
#pragma omp parallel num_threads(numThreads_)
    {
      members.fetch_add(1, std::memory_order_relaxed);
    }
  }
#endif
}

bool ThreadPool::insideParallelFor() {
#ifdef WEBNN_THREADPOOL_OPENMP
  if (omp_in_parallel()) return true;
#endif
  return tInsideParallelFor;
}

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

void ThreadPool::noteOpenMpTeam(int numThreads) {
  if (numThreads > 1) tOpenMpTeam = true;
}

void ThreadPool::dispatchOpenMp(int64_t n, int64_t grain, ChunkFn fn, void *ctx) {
#ifdef WEBNN_THREADPOOL_OPENMP
  // One contiguous range per thread in a bare parallel region: a worksharing
  // loop (dynamic or static) costs more than it balances here (MobileNetV2 at
  // 2 threads 1.91-2.14 -> 1.83-1.86 ms, docs/PERFORMANCE.md).
  const int64_t numChunks = std::max<int64_t>(1, std::min<int64_t>(numThreads_, n / grain));
  if (numChunks == 1) {
    fn(ctx, 0, n);
    return;
  }
  const int64_t chunk = (n + numChunks - 1) / numChunks;
#pragma omp parallel num_threads(static_cast<int>(numChunks))
  {
    const int64_t begin = int64_t(omp_get_thread_num()) * chunk;
    if (begin < n) fn(ctx, begin, std::min(n, begin + chunk));
  }
#else
  (void)grain;
  fn(ctx, 0, n);
#endif
}

void ThreadPool::dispatch(int64_t n, int64_t grain, ChunkFn fn, void *ctx) {
#ifdef WEBNN_THREADPOOL_OPENMP
  if (tOpenMpTeam) {
    dispatchOpenMp(n, grain, fn, ctx);
    return;
  }
#endif
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
