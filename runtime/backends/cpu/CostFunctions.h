// What each CPU kernel family costs, for the estimator (runtime/estimate/).
//
// A cost function describes one node as the CPU backend will run it: the
// kernel family its factory picks (the calibration grid is per family), the
// family's parameters (interpolated in log space), and the work: arithmetic
// operations and bytes moved, each operand once. It reads shapes, types and
// options only, never constant bytes, and allocates nothing that grows with
// the shapes, so a hostile graph costs what its node count costs.
// Every op in the kernel registry has one (CostFunctions.AllKernelsCovered).
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_COSTFUNCTIONS_H
#define WEBNN_RUNTIME_BACKENDS_CPU_COSTFUNCTIONS_H

#include <string>
#include <string_view>
#include <vector>

#include "backends/cpu/Kernel.h"

namespace webnn::cpu {

struct NodeCost {
  std::string family;           // calibration family, e.g. "gemm", "conv2d.depthwise"
  std::vector<double> params;   // the family's parameters, each >= 1
  double flops = 0;             // arithmetic operations (a multiply-add is 2)
  double bytes = 0;             // bytes read and written, every operand once
  double packedBytes = 0;       // constant bytes repacked on the first run
  bool jit = false;             // a oneDNN primitive is JIT-compiled for it
};

// `constant[k]`: whether input k is a constant of the graph (weightless
// graphs have no constant bytes, so NodeDesc cannot say).
using CostFunction = NodeCost (*)(const NodeDesc &node, const std::vector<bool> &constant);

// Null when `op` has none (a new kernel whose family was not added).
CostFunction findCostFunction(std::string_view op);
std::vector<std::string_view> costFunctionNames();

// The families a node can be put in, with the number of parameters of each
// (the calibration grid's keys).
struct CostFamily {
  std::string_view name;
  int numParams;
};
const std::vector<CostFamily> &costFamilies();

}  // namespace webnn::cpu

#endif
