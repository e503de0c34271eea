// Control flow at run time: the "if" and "loop" nodes (ops beyond the WebNN
// spec; docs/RUNTIME.md, "Control flow") and the structural checks the loader
// applies to them.
//
// Their subgraphs share the graph's tensor table. A subgraph's nodes read its
// inputs, earlier nodes' outputs and any tensor defined before the owning
// node (captured values); it yields by naming its output tensors. The nodes
// here are kernels like any other, but run their subgraphs through the
// executor (SubgraphRunner) and copy what those yield into their own outputs,
// so a subgraph's intermediates live in its own arena region.
#ifndef WEBNN_RUNTIME_CORE_CONTROLFLOW_H
#define WEBNN_RUNTIME_CORE_CONTROLFLOW_H

#include <memory>
#include <string>
#include <string_view>

#include "core/Kernel.h"
#include "core/ArtifactLoader.h"
#include "webnn/status.h"

namespace webnn::rt {

bool isControlFlowOp(std::string_view op);

// Checks an "if" / "loop" node against its subgraphs (counts, types and
// static shapes of the condition, trip count, carried values and yields).
// The executor copies by these sizes without further checks.
Status checkControlFlowNode(const LoadedGraph &g, const LoadedNode &node, const std::string &where);

class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual Status runSubgraph(uint32_t index) = 0;
  virtual TensorBuffer &tensor(uint32_t index) = 0;
  // A scan output's row count this run (dimension 0; nothing reads it).
  virtual void setRunRows(uint32_t tensor, int64_t rows) = 0;
  // Counts one loop iteration against the session's Limits::maxLoopIterations
  // for this run; kLimitExceeded once the run would go past it.
  virtual Status countLoopIteration() = 0;
};

// The node's kernel; `runner` must outlive it. Fails only on allocation.
Status makeControlFlowKernel(const LoadedGraph &g, const LoadedNode &node, SubgraphRunner *runner,
                             std::unique_ptr<Kernel> *out);

}  // namespace webnn::rt

#endif
