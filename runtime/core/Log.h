// The runtime's messages to the application (webnn::setLogCallback,
// webnn_set_log_callback).
#ifndef WEBNN_RUNTIME_CORE_LOG_H
#define WEBNN_RUNTIME_CORE_LOG_H

#include <functional>
#include <string>

#include "webnn/runtime.h"

namespace webnn::rt {

using LogSink = std::function<void(LogLevel level, const char *message)>;
// Replaces the process's sink (empty: errors to stderr, the rest dropped).
void setLogSink(LogSink sink, LogLevel maxLevel);

// Whether a message at `level` goes anywhere: check before formatting one.
bool logEnabled(LogLevel level);
void log(LogLevel level, const std::string &message);

}  // namespace webnn::rt

#endif
