// webnn-run --profile: per-node times of a session as a report.
#ifndef WEBNN_TOOLS_WEBNN_RUN_PROFILE_H
#define WEBNN_TOOLS_WEBNN_RUN_PROFILE_H

#include <nlohmann/json.hpp>

#include "webnn/runtime.h"
#include "webnn/version.h"

namespace webnnrun {

// {"runs", "total_ms", "by_op": [{op, ms, nodes}] (slowest first),
//  "slowest_nodes": [{index, op, name, ms}] (15)}; ms are per run.
nlohmann::json profileJson(const webnn::Session &session);
// The same as a table on stderr.
void printProfile(const nlohmann::json &profile);

// Adds what produced a JSON result to `j`, so a benchmark record says which
// build and CPU path made it: "tool", "version", "runtime_version",
// "artifact_schema_version" and "cpu" {"isa", "features", "bf16_dot_products"}
// (webnn::cpuInfo). Every JSON object webnn-run prints carries these
// (webnn_run_test.py checks each). `Json`: nlohmann::json or ordered_json.
template <typename Json>
void addBuildInfo(Json &j) {
  j["tool"] = "webnn-run";
  j["version"] = WEBNN_VERSION_STRING;
  j["runtime_version"] = webnn::version();
  j["artifact_schema_version"] = webnn::artifactSchemaVersion();
  webnn::CpuInfo cpu = webnn::cpuInfo();
  j["cpu"] = {{"isa", cpu.isa}, {"features", cpu.features}, {"bf16_dot_products", cpu.bf16DotProducts}};
}

}  // namespace webnnrun

#endif
