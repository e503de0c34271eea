// Error reporting without exceptions: the runtime's C API promises none cross it.
#ifndef WEBNN_STATUS_H
#define WEBNN_STATUS_H

#include <string>
#include <utility>

namespace webnn {

// kBusy: a session was called from a second thread while a call on another
// thread was still running in it (sessions are one-caller-at-a-time).
// kCancelled: Session::cancel() ended the run before it finished.
// kLimitExceeded: the model asks for more than a limit of SessionOptions
// allows (webnn::Limits); the message names the limit and how to raise it.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kInvalidArtifact,
  kUnsupported,
  kIo,
  kOutOfMemory,
  kInternal,
  kBusy,
  kCancelled,
  kLimitExceeded
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }
  bool isOk() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status invalidArtifact(std::string m) { return {StatusCode::kInvalidArtifact, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }

#define WEBNN_RETURN_IF_ERROR(expr)      \
  do {                                   \
    ::webnn::Status _s = (expr);         \
    if (!_s.isOk()) return _s;           \
  } while (0)

}  // namespace webnn

#endif
