// The model-level, read-only part of execution, built once at load and
// shared by every session of a model: operand and node descriptions, the
// arena plan (liveness over the node order, each subgraph in a region of its
// own) and the graph analyses the executor's other parts reuse.
#ifndef WEBNN_RUNTIME_CORE_EXECUTIONPLAN_H
#define WEBNN_RUNTIME_CORE_EXECUTIONPLAN_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ArtifactLoader.h"
#include "core/Kernel.h"
#include "webnn/status.h"

namespace webnn::rt {

// Arena offsets and every mapped constant are aligned to this, so kernels may
// use aligned vector loads on intermediates and weights.
constexpr uint64_t kArenaAlignment = 64;
constexpr uint64_t kNotInArena = UINT64_MAX;

// A control-flow node's subgraph, described like the main graph's nodes.
struct PreparedSubgraph {
  std::vector<NodeDesc> nodes;  // point into PreparedGraph::operands
};

// The main graph's arena plan with concat elimination: a concat input whose
// producer and readers are plain nodes lives inside the concat's output, at
// its slice (the rows of a last-axis concat, rowPitch elements apart; a
// contiguous block where there is one row), so its producer writes there and
// the concat finds it in place. Concats that take the same inputs in the
// same order (DenseNet's) share the last one's buffer, each earlier output a
// view of its first channels. Only for static graphs without subgraphs, and
// used by a session whose every node runs on a backend that takes row
// pitches (Backend::takesRowPitch); others use the plain plan.
struct ConcatViewPlan {
  std::vector<uint64_t> arenaOffset;       // like PreparedGraph::arenaOffset
  std::vector<uint64_t> outputCopyOffset;  // like PreparedGraph::outputCopyOffset
  std::vector<int64_t> rowPitch;           // per tensor: OperandDesc::rowPitch
  uint64_t arenaBytes = 0;
  size_t views = 0;  // tensors placed inside another
  std::string planText;
};

// The model-level, read-only part: built once at load.
struct PreparedGraph {
  LoadedGraph graph;
  std::vector<OperandDesc> operands;  // one per tensor
  std::vector<NodeDesc> nodes;        // point into `operands`
  std::vector<PreparedSubgraph> subgraphs;  // like graph.subgraphs
  // Per tensor: byte offset in the arena, or kNotInArena (inputs, constants,
  // subgraph inputs). Each subgraph's intermediates are planned apart, in a
  // region after the main graph's.
  std::vector<uint64_t> arenaOffset;
  // Per graph output that is an input or constant (not produced by a node):
  // the arena slot it is copied into at the end of a run, else kNotInArena.
  std::vector<uint64_t> outputCopyOffset;
  // Per main-graph node: the input whose arena bytes its output 0 took over
  // (an "accumulate into" op whose input dies there: MemoryPlanner.h's
  // placedIn), or -1. Its kernel must allow that (Kernel::allowsInPlace).
  std::vector<int32_t> outputOverInput;
  uint64_t arenaBytes = 0;
  // Human-readable plan for `webnn-run --print-plan`.
  std::string planText;
  // Absent where no concat input could be placed in its concat's output.
  std::shared_ptr<const ConcatViewPlan> concatViews;
};

// Builds operand descriptions and plans the arena. `g` must come from
// loadArtifact (indices and order already verified).
Status prepareGraph(LoadedGraph &&g, std::shared_ptr<PreparedGraph> *out);

// "node 4 'conv1' (conv2d)": how messages name a node.
std::string nodeLabel(size_t index, const NodeDesc &n);

// Every tensor subgraph `s` (and the subgraphs nested in it) reads, plus what
// it yields: what must stay live until its owning node has run.
void collectSubgraphReads(const LoadedGraph &g, uint32_t s, std::vector<int32_t> *out);

// Per tensor, how many reads the main graph's nodes (and their subgraphs)
// make of it, graph outputs counting as one more.
std::vector<int64_t> countReads(const LoadedGraph &g);

}  // namespace webnn::rt

#endif
