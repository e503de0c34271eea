// `webnnc compile --target`: which backend each node of an artifact runs on
// (Node.backend, docs/ARTIFACT.md "Placement"), decided from the backends'
// op support tables (runtime/core/OpSupport.h) without opening a device.
//
//   cpu   every node on the CPU (nothing recorded: the runtime's default).
//   gpu   every node the GPU's table takes on the GPU, the rest on the CPU.
//   auto  as gpu, then each connected group of GPU-able nodes that holds no
//         conv, matmul or gemm goes back to the CPU: its copies to and from
//         device memory would cost about what the GPU saves on such light,
//         memory-bound ops (docs/BACKENDS.md, "Placement at compile time").
//
// Works on the artifact as the runtime loads it (the same node order and
// operand descriptions the executor sees). No MLIR here.
#ifndef WEBNN_COMPILER_ARTIFACT_PLACEMENT_H
#define WEBNN_COMPILER_ARTIFACT_PLACEMENT_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/Executor.h"
#include "webnn/status.h"

namespace webnn::placement {

// A node the target's device could not (or, under auto, should not) take.
struct Fallback {
  uint32_t node = 0;
  std::string name, op, reason;
};

struct Result {
  std::string target;
  // Per main-graph node, what the writer stores as Node.backend ("gpu", or
  // empty for the CPU, the runtime's default).
  std::vector<std::string> nodeBackends;
  std::map<std::string, uint64_t> counts;  // nodes per device ("cpu", "gpu")
  std::vector<Fallback> fallbacks;         // in node order
  std::vector<std::string> notes;          // whole-graph reasons (dynamic shapes)
};

// The targets `--target` accepts.
bool isTarget(const std::string &target);

// Places the nodes of `graph` for `target`.
Status placeNodes(const rt::PreparedGraph &graph, const std::string &target, Result *out);

// Loads the artifact at `path` (weights not needed) and places its nodes.
Status placeArtifact(const std::string &path, const std::string &target, Result *out);

// Lines for stderr: "webnnc: placement (--target gpu): 12 nodes on gpu, 3 on cpu"
// then one per (op, reason) that fell back, with a count and the first nodes.
std::string summaryText(const Result &r);

}  // namespace webnn::placement

#endif
