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

// One kernel's share of a node's work, priced on its family's grid.
struct WorkPart {
  std::string family;
  std::vector<double> params;
  double flops = 0;
  double bytes = 0;
  // Applied in registers inside another kernel's loop (no bytes of its
  // own): priced at the family's in-cache rate per element, params[0]
  // elements, instead of on the grid's roofline ratio.
  bool inRegisters = false;
};

// How a node runs with more than one thread.
enum class Threading {
  kPool,       // the kernel's own parallel loop: the family's grid at that thread count
  kOneThread,  // whole on the calling thread (too small to cut): the one-thread grid
  kPieces,     // single-threaded pieces on the pool (PieceSplit.h): the largest piece on the one-thread grid
};

struct NodeCost {
  std::string family;           // calibration family, e.g. "gemm", "conv2d.depthwise"
  std::vector<double> params;   // the family's parameters, each >= 1
  double flops = 0;             // arithmetic operations (a multiply-add is 2)
  double bytes = 0;             // bytes read and written, every operand once
  double packedBytes = 0;       // constant bytes repacked on the first run
  bool jit = false;             // a oneDNN primitive is JIT-compiled for it
  // Passes over the output after the main kernel (an activation or bias the
  // kernel does not apply in its own loop), each on its own family.
  std::vector<WorkPart> after;
  // With threads > 1: how the main kernel runs, and for kPieces the piece
  // count and the largest piece (the one the others wait for).
  Threading threading = Threading::kPool;
  // The kernel's own per-element instructions, not its bytes, bound it
  // (far above its byte roofline), so unlike a kernel bound by moving
  // bytes it gains from more threads inside a graph.
  bool instructionBound = false;
  // With threads > 1 the kernel gives each thread contiguous output rows,
  // as the convolutions around it do, so each thread reads the rows it
  // wrote in the node before: unlike a byte-bound kernel cut another way
  // (whose reads then cross between the cores) it gains from more threads
  // inside a graph, and is priced on the run's thread count.
  bool rowsPerThread = false;
  // With threads > 1 the kernel cuts its elements into contiguous ranges
  // (the pool's units): past one core's L2, where one thread reads from the
  // L3, each core streams its own range (from the L3, or from the L2s of
  // the cores that wrote it where they hold it) and adds its own read rate.
  bool contiguousRanges = false;
  // Its output is a strided slice (OperandDesc::rowPitch: a concat's) that
  // the kernel writes at the pitch itself, no dense copy after it.
  bool writesPitch = false;
  int pieces = 0;
  WorkPart piece;
};

// `constant[k]`: whether input k is a constant of the graph (weightless
// graphs have no constant bytes, so NodeDesc cannot say); `threads`: the
// run's thread count (the oneDNN kernels cut themselves by it).
using CostFunction = NodeCost (*)(const NodeDesc &node, const std::vector<bool> &constant, int threads);

// Null when `op` has none (a new kernel whose family was not added).
CostFunction findCostFunction(std::string_view op);

// Which of two adjacent nodes the backend runs inside the other's kernel
// (makeCpuKernelPair) when the executor offers them as a pair (the
// producer's one output read only by the consumer, as its first input):
// that node costs nothing of its own. batchNormalization + relu runs the
// relu in the normalization's pass; nhwc instanceNormalization + gelu
// (AVX-512) the gelu in the normalization's output sweep; a
// squeeze-excitation channel scale (mul) + the narrow 1x1 it feeds scales
// the filter instead of the map.
// `consumerConstant[k]`: whether the consumer's input k is a constant.
// Shapes, types and roles only: the 1x1 + depthwise convolution pair, whose
// factory reads the filters' bytes, is not seen in a weightless graph and
// is priced as two nodes.
enum class PairedAway { kNone, kConsumer, kProducer };
PairedAway pairedAway(const NodeDesc &producer, const NodeDesc &consumer, const std::vector<bool> &consumerConstant);
// The producer's cost where pairedAway says kConsumer: its own, plus the
// consumer's work where the pair does it in the producer's loop (the
// instanceNormalization + gelu pair: gelu's arithmetic, in registers).
NodeCost pairedProducerCost(const NodeDesc &producer, const NodeDesc &consumer,
                            const std::vector<bool> &producerConstant, int threads);
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
