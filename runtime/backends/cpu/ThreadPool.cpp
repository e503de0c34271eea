#include "ThreadPool.h"

#include <algorithm>
#include <system_error>

#ifdef WEBNN_THREADPOOL_OPENMP
#include <omp.h>
#endif

namespace webnn::cpu {
namespace {
// Set on pool workers and on a caller while it runs chunks: a nested
// parallelFor then runs inline instead of waiting on workers that are busy
// with the outer loop (which would deadlock).
thread_local bool tInsideParallelFor = false;
}  // namespace

ThreadPool::ThreadPool(int numThreads) : numThreads_(std::max(1, numThreads)) {
#ifdef WEBNN_THREADPOOL_OPENMP
  // oneDNN (Debian's build) threads with OpenMP. Sharing its thread team
  // means one set of threads on the cores: a second pool would fight OpenMP's
  // spin-waiting workers between primitives (measured: 2-thread ResNet-50 4-12x
  // slower, docs/PERFORMANCE.md), and the team is already warm when a
  // convolution follows an elementwise op. oneDNN sizes each primitive for
  // the creating thread's OpenMP count, so the kernels a session builds next
  // get the count its runs will use (else each is built twice: ~4 ms of
  // ResNet-50's first run at 1 thread).
  omp_set_num_threads(numThreads_);
  return;
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
    stop_ = true;
  }
  wake_.notify_all();
  for (auto &t : workers_) t.join();
}

void ThreadPool::startWorkers() {
#ifdef WEBNN_THREADPOOL_OPENMP
  if (numThreads_ > 1 && !insideParallelFor()) {
#pragma omp parallel num_threads(numThreads_)
    {
    }
  }
#endif
  // Without OpenMP the workers started in the constructor.
}

bool ThreadPool::insideParallelFor() {
#ifdef WEBNN_THREADPOOL_OPENMP
  if (omp_in_parallel()) return true;
#endif
  return tInsideParallelFor;
}

void ThreadPool::runChunks(const Job &job) {
  for (;;) {
    int64_t c = nextChunk_.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.numChunks) return;
    int64_t begin = c * job.chunk;
    int64_t end = std::min(job.n, begin + job.chunk);
    job.fn(job.ctx, begin, end);
  }
}

void ThreadPool::dispatch(int64_t n, int64_t grain, ChunkFn fn, void *ctx) {
#ifdef WEBNN_THREADPOOL_OPENMP
  // One contiguous range per thread, in a bare parallel region: a worksharing
  // loop (dynamic or static) costs more than it balances here. MobileNetV2 at
  // 2 threads, alternating: 1.91-2.14 -> 1.83-1.86 ms; transformers and a
  // loaded machine unchanged (docs/PERFORMANCE.md).
  {
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
  // A few chunks per thread so an uneven split (or a descheduled worker on a
  // shared VM) does not leave the others idle at the end.
  int64_t maxChunks = int64_t(numThreads_) * 4;
  int64_t numChunks = std::min(maxChunks, (n + grain - 1) / grain);
  int64_t chunk = (n + numChunks - 1) / numChunks;
  numChunks = (n + chunk - 1) / chunk;

  Job job{fn, ctx, n, chunk, numChunks};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = job;
    nextChunk_.store(0, std::memory_order_relaxed);
    activeWorkers_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();

  tInsideParallelFor = true;
  runChunks(job);
  tInsideParallelFor = false;

  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return activeWorkers_ == 0; });
}

void ThreadPool::workerLoop() {
  tInsideParallelFor = true;
  uint64_t seen = 0;
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    runChunks(job);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--activeWorkers_ == 0) done_.notify_one();
    }
  }
}

}  // namespace webnn::cpu
