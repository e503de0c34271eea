// webnn-run --profile: per-node times of a session as a report.
#ifndef WEBNN_TOOLS_WEBNN_RUN_PROFILE_H
#define WEBNN_TOOLS_WEBNN_RUN_PROFILE_H

#include <nlohmann/json.hpp>

#include "webnn/runtime.h"

namespace webnnrun {

// {"runs", "total_ms", "by_op": [{op, ms, nodes}] (slowest first),
//  "slowest_nodes": [{index, op, name, ms}] (15)}; ms are per run.
nlohmann::json profileJson(const webnn::Session &session);
// The same as a table on stderr.
void printProfile(const nlohmann::json &profile);

// Adds what produced a JSON result to `j`, so a benchmark record says which
// build and CPU path made it: "tool", "version", "runtime_version",
// "artifact_schema_version" and "cpu" {"isa", "features", "bf16_dot_products"}
// (webnn::cpuInfo). Every JSON object webnn-run prints carries these.
void addBuildInfo(nlohmann::json &j);

}  // namespace webnnrun

#endif
