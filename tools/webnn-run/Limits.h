// `webnn-run limits [DEVICE] [--json]`: each backend's op support limits
// (WebNN's opSupportLimits, webnn_op_support_limits in the C API).
#ifndef WEBNN_TOOLS_WEBNN_RUN_LIMITS_H
#define WEBNN_TOOLS_WEBNN_RUN_LIMITS_H

namespace webnnrun {

// argv[0] is "limits". 0 success, 1 a named device without a table, 2 usage.
int runLimits(int argc, char **argv);

}  // namespace webnnrun

#endif
