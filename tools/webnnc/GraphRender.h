// `webnnc inspect --dot / --html`: the compiled graph as a picture (Graphviz)
// or one self-contained HTML page. Both show every node (fused ops with the
// spec ops they stand for), every tensor's type, shape and arena offset, and
// the If/Loop subgraphs inside their control-flow node.
#ifndef WEBNNC_GRAPHRENDER_H
#define WEBNNC_GRAPHRENDER_H

#include <string>
#include <vector>

#include "core/Executor.h"

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

// Graphviz source: tensors are edges labelled with name, type, shape and
// arena offset; inputs, outputs and constants are nodes of their own.
std::string renderDot(const webnn::rt::PreparedGraph &graph, const std::string &artifact);

// One HTML file, with its style inline and no script or external reference:
// a summary, the inputs and outputs, every node with its operands, and the
// arena plan.
std::string renderHtml(const webnn::rt::PreparedGraph &graph, const std::string &artifact);

}  // namespace webnnc

#endif
