// Checks of a model against a session's webnn::Limits (docs/SECURITY.md,
// "Limits"): what the graph fixes is checked when the session is created,
// what depends on a run (dynamic shapes, loop iterations) during the run.
#ifndef WEBNN_RUNTIME_CORE_LIMITS_H
#define WEBNN_RUNTIME_CORE_LIMITS_H

#include <cstdint>
#include <string>

#include "webnn/runtime.h"
#include "webnn/status.h"

namespace webnn::rt {

struct PreparedGraph;

enum class Limit { kLoopIterations, kTensorElements, kArenaBytes, kConstantBytes, kNodes, kNestingDepth };

// kLimitExceeded: "<what> is <value>, above the limit of <limit> (<field>;
// raise it with SessionOptions::limits.<field>, the C option <c_field> or
// webnn-run --<flag>)".
Status limitExceeded(Limit limit, const std::string &what, uint64_t value, uint64_t bound);

// Refuses limits the runtime cannot honour (above the caps in runtime.h).
Status validateLimits(const Limits &limits);

// Everything the graph fixes before a run: node count, nesting depth,
// constant bytes, arena bytes, the element count of every tensor without
// dynamic dimensions, and the trip count of a loop that is a constant and
// is certain to run in full (no condition can stop it).
Status checkLimits(const PreparedGraph &graph, const Limits &limits);

}  // namespace webnn::rt

#endif
