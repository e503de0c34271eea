// `webnnc inspect --dot / --html`: the compiled graph as a picture (Graphviz)
// or one self-contained HTML page. Both show every node (fused ops with the
// spec ops they stand for), every tensor's type, shape and arena offset, the
// If/Loop subgraphs inside their control-flow node and, for an artifact with
// placements, the backend each node runs on and the copies between backends.
#ifndef WEBNNC_GRAPHRENDER_H
#define WEBNNC_GRAPHRENDER_H

#include <string>
#include <vector>

#include "core/Executor.h"
#include "core/PlacementPlan.h"

namespace webnnc {

// "[seq<=2048,768]": a tensor's shape, a dynamic dimension as its expression
// and maximum; a loop's scan output counts the iterations that ran.
std::string shapeText(const webnn::rt::LoadedTensor &t);

// The spec ops a node beyond WebNN's builder methods computes, in order
// (docs/FUSED_OPS.md, docs/LLM.md "Decomposition"), read from its operands
// and options: fusedConv2d with a residual and relu gives {"conv2d",
// "add (residual)", "relu"}. Empty for a spec op. The artifact records the
// fused op, not the nodes of the source graph, so this is what the op
// replaces by definition (the fusion passes form exactly these chains).
std::vector<std::string> fusedOpParts(const webnn::rt::LoadedNode &node);

// " (placed on gpu)" when the node's recorded placement is not where `runsOn`
// (the plan's backend for it) is, i.e. a placement this runtime cannot
// honour; else empty.
std::string placedElsewhere(const webnn::rt::LoadedNode &node, const std::string &runsOn);

// `plan`: where the nodes run (webnn::rt::planPlacement), for an artifact
// that records placements; null draws no placement (a CPU artifact).

// Graphviz source: tensors are edges labelled with name, type, shape and
// arena offset; inputs, outputs and constants are nodes of their own. With a
// plan, each node says its backend (those off the default backend outlined
// in its colour) and each copy per run is a node on the edge it serves.
std::string renderDot(const webnn::rt::PreparedGraph &graph, const std::string &artifact,
                      const webnn::rt::PlacementPlan *plan = nullptr);

// One HTML file, with its style inline and no script or external reference:
// a summary, the inputs and outputs, every node with its operands, and the
// arena plan; with a plan, each node's backend, the copies per run and each
// backend's memory.
std::string renderHtml(const webnn::rt::PreparedGraph &graph, const std::string &artifact,
                       const webnn::rt::PlacementPlan *plan = nullptr);

}  // namespace webnnc

#endif
