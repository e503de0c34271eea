#include "core/Limits.h"

#include <algorithm>
#include <cstring>

#include "core/ControlFlow.h"
#include "core/Executor.h"

namespace webnn::rt {
namespace {

struct LimitName {
  const char *field;  // webnn::Limits
  const char *cField; // webnn_session_options
  const char *flag;   // webnn-run
};

LimitName nameOf(Limit l) {
  switch (l) {
    case Limit::kLoopIterations: return {"maxLoopIterations", "max_loop_iterations", "max-loop-iterations"};
    case Limit::kTensorElements: return {"maxTensorElements", "max_tensor_elements", "max-tensor-elements"};
    case Limit::kArenaBytes: return {"maxArenaBytes", "max_arena_bytes", "max-arena-bytes"};
    case Limit::kConstantBytes: return {"maxConstantBytes", "max_constant_bytes", "max-constant-bytes"};
    case Limit::kNodes: return {"maxNodes", "max_nodes", "max-nodes"};
    case Limit::kNestingDepth: return {"maxNestingDepth", "max_nesting_depth", "max-nesting-depth"};
  }
  return {"?", "?", "?"};
}

// The deepest subgraph under `s` counting `s` itself as `depth`.
uint64_t deepest(const LoadedGraph &g, uint32_t s, uint64_t depth) {
  uint64_t d = depth;
  for (const LoadedNode &n : g.subgraphs[s].nodes)
    for (uint32_t sub : n.subgraphs) d = std::max(d, deepest(g, sub, depth + 1));
  return d;
}

// A loop whose trip count is a constant and whose body yields a condition
// that is always true (a constant, or the incoming condition the loop sets
// to true at every iteration) runs exactly that many times: its count is
// known before the run. -1 otherwise.
int64_t certainTripCount(const LoadedGraph &g, const LoadedNode &node) {
  if (node.op != "loop" || node.inputs.size() < 2 || node.inputs[0] < 0 || node.subgraphs.empty()) return -1;
  const LoadedTensor &trip = g.tensors[size_t(node.inputs[0])];
  if (trip.role != TensorRole::kConstant || !trip.constantData) return -1;
  if (node.inputs[1] >= 0) {
    const LoadedTensor &cond = g.tensors[size_t(node.inputs[1])];
    if (cond.role != TensorRole::kConstant || !cond.constantData || *cond.constantData == 0) return -1;
  }
  const LoadedSubgraph &body = g.subgraphs[node.subgraphs[0]];
  if (body.inputs.size() < 2 || body.outputs.empty()) return -1;
  const uint32_t yielded = body.outputs[0];
  const LoadedTensor &y = g.tensors[yielded];
  const bool alwaysTrue = yielded == body.inputs[1] ||
                          (y.role == TensorRole::kConstant && y.constantData && *y.constantData != 0);
  if (!alwaysTrue) return -1;
  int64_t count = 0;
  std::memcpy(&count, trip.constantData, sizeof count);
  // Scan outputs bound the loop (ControlFlow.cpp).
  const size_t carried = node.inputs.size() - 2;
  if (node.outputs.size() > carried) count = std::min(count, g.tensors[size_t(node.outputs[carried])].shape[0]);
  return std::max<int64_t>(count, 0);
}

}  // namespace

Status limitExceeded(Limit limit, const std::string &what, uint64_t value, uint64_t bound) {
  const LimitName n = nameOf(limit);
  return Status(StatusCode::kLimitExceeded,
                what + " is " + std::to_string(value) + ", above the limit of " + std::to_string(bound) + " (" +
                    n.field + "; raise it with SessionOptions::limits." + n.field + ", the C session option " +
                    n.cField + " or webnn-run --" + n.flag + ")");
}

Status validateLimits(const Limits &limits) {
  if (limits.maxTensorElements > kMaxTensorElementsCap)
    return invalidArgument("limits.maxTensorElements is " + std::to_string(limits.maxTensorElements) +
                           ", above what the runtime can address (2^56 = " + std::to_string(kMaxTensorElementsCap) +
                           ")");
  if (limits.maxNestingDepth > kMaxNestingDepthCap)
    return invalidArgument("limits.maxNestingDepth is " + std::to_string(limits.maxNestingDepth) +
                           ", above the loader's own bound of " + std::to_string(kMaxNestingDepthCap));
  return Status::ok();
}

Status checkLimits(const PreparedGraph &p, const Limits &limits) {
  WEBNN_RETURN_IF_ERROR(validateLimits(limits));
  const LoadedGraph &g = p.graph;
  uint64_t nodes = g.nodes.size();
  for (const LoadedSubgraph &s : g.subgraphs) nodes += s.nodes.size();
  if (nodes > limits.maxNodes) return limitExceeded(Limit::kNodes, "the graph's node count", nodes, limits.maxNodes);

  uint64_t depth = 0;
  for (const LoadedNode &n : g.nodes)
    for (uint32_t s : n.subgraphs) depth = std::max(depth, deepest(g, s, 1));
  if (depth > limits.maxNestingDepth)
    return limitExceeded(Limit::kNestingDepth, "the graph's subgraph nesting depth", depth, limits.maxNestingDepth);

  uint64_t constantBytes = 0;
  for (const LoadedTensor &t : g.tensors) {
    // Constants lie in the mapped files (checked by the loader): the sum is at most their size.
    if (t.role == TensorRole::kConstant) constantBytes += t.byteSize;
    if (!t.dims.empty()) continue;  // dynamic: checked at each run with its sizes
    int64_t count = 0;
    if (elementCount(t.shape, &count) && uint64_t(count) > limits.maxTensorElements)
      return limitExceeded(Limit::kTensorElements, "tensor '" + t.name + "' of shape " + shapeToString(t.shape) + ": its element count",
                           uint64_t(count), limits.maxTensorElements);
  }
  if (constantBytes > limits.maxConstantBytes)
    return limitExceeded(Limit::kConstantBytes, "the graph's constant bytes", constantBytes, limits.maxConstantBytes);
  // The larger of the two plans: a CPU session uses the concat-view one.
  const uint64_t arenaBytes = std::max(p.arenaBytes, p.concatViews ? p.concatViews->arenaBytes : 0);
  if (arenaBytes > limits.maxArenaBytes)
    return limitExceeded(Limit::kArenaBytes, "the arena for intermediate tensors (bytes)", arenaBytes,
                         limits.maxArenaBytes);

  // Loops of the main graph that certainly run their constant trip count.
  // (One in a subgraph runs once per enclosing iteration; the run counts it.)
  uint64_t certain = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    int64_t trip = certainTripCount(g, g.nodes[i]);
    if (trip < 0) continue;
    certain = uint64_t(trip) > UINT64_MAX - certain ? UINT64_MAX : certain + uint64_t(trip);
    if (certain > limits.maxLoopIterations) {
      std::string label = "node " + std::to_string(i);
      if (!g.nodes[i].name.empty()) label += " '" + g.nodes[i].name + "'";
      return limitExceeded(Limit::kLoopIterations,
                           label + " (loop): its constant trip count of " + std::to_string(trip) +
                               " makes the run's loop iterations",
                           certain, limits.maxLoopIterations);
    }
  }
  return Status::ok();
}

}  // namespace webnn::rt
