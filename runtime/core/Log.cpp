#include "core/Log.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>

namespace webnn {
namespace rt {
namespace {

std::mutex &sinkMutex() {
  static std::mutex m;
  return m;
}
// Shared so that a message being delivered on one thread keeps its sink
// alive while another thread replaces it.
std::shared_ptr<const LogSink> &currentSink() {
  static std::shared_ptr<const LogSink> s;
  return s;
}
// Read without the mutex by every logEnabled(): errors only by default.
std::atomic<int> gMaxLevel{int(LogLevel::kError)};

}  // namespace

void setLogSink(LogSink sink, LogLevel maxLevel) {
  std::shared_ptr<const LogSink> next = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
  std::lock_guard<std::mutex> lock(sinkMutex());
  currentSink() = std::move(next);
  gMaxLevel.store(currentSink() ? int(maxLevel) : int(LogLevel::kError), std::memory_order_release);
}

bool logEnabled(LogLevel level) { return int(level) <= gMaxLevel.load(std::memory_order_acquire); }

void log(LogLevel level, const std::string &message) {
  if (!logEnabled(level)) return;
  std::shared_ptr<const LogSink> sink;
  {
    std::lock_guard<std::mutex> lock(sinkMutex());
    sink = currentSink();
  }
  // Called outside the lock, so a callback may log or replace the sink.
  if (sink) {
    (*sink)(level, message.c_str());
  } else if (level == LogLevel::kError) {
    std::fprintf(stderr, "webnn: error: %s\n", message.c_str());
  }
}

}  // namespace rt

void setLogCallback(LogCallback callback, LogLevel maxLevel, void *userData) {
  if (!callback) return rt::setLogSink(nullptr, LogLevel::kError);
  rt::setLogSink([callback, userData](LogLevel level, const char *message) { callback(level, message, userData); },
                 maxLevel);
}

}  // namespace webnn
