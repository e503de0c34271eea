// `webnn-run --timeout SECONDS`: a thread that cancels the session's runs
// once the limit has passed (Session::cancel), so a graph that would run for
// ever (a loop fed a huge trip count) ends with one error line instead.
#ifndef WEBNN_TOOLS_WEBNN_RUN_WATCHDOG_H
#define WEBNN_TOOLS_WEBNN_RUN_WATCHDOG_H

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "webnn/runtime.h"

namespace webnnrun {

// The exit code of a run ended by --timeout (docs/CLI.md).
constexpr int kTimedOutExitCode = 3;

class Watchdog {
 public:
  // `seconds` <= 0: no limit and no thread.
  Watchdog(webnn::Session *session, double seconds) : session_(session), seconds_(seconds) {
    if (seconds <= 0) return;
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  // Whether the limit has passed (and runs are being cancelled).
  bool fired() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return fired_;
  }
  // The error line for a failed run: "timed out after N s: <where it stopped>"
  // when the watchdog cancelled it, else the run's own message.
  std::string message(const webnn::Status &s) const {
    if (s.code() != webnn::StatusCode::kCancelled || !fired()) return s.message();
    std::ostringstream m;
    m << "timed out after " << seconds_ << " s: " << s.message();
    return m.str();
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds_);
    if (wake_.wait_until(lock, deadline, [this] { return stopped_; })) return;
    fired_ = true;
    // Repeated until stopped: a cancel that lands between two runs is
    // forgotten when the next one starts (Session::cancel).
    while (!stopped_) {
      session_->cancel();
      wake_.wait_for(lock, std::chrono::milliseconds(10), [this] { return stopped_; });
    }
  }

  webnn::Session *session_;
  double seconds_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false, fired_ = false;
  std::thread thread_;
};

}  // namespace webnnrun

#endif
