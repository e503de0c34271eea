// What a backend accepts, as data: per op, the data types and ranks of each
// operand (WebNN's MLContext.opSupportLimits(), MLOpSupportLimits).
//
// A backend publishes its table through Backend::opSupportLimits(); the
// compiler reads the same tables to place nodes (`webnnc compile --target`)
// without opening a device. The limits are necessary, not sufficient: a
// node within them may still be refused by the backend's kernel for its
// options, sizes or the device's limits, and then runs on the default
// backend with the kernel's reason (docs/BACKENDS.md).
#ifndef WEBNN_RUNTIME_CORE_OPSUPPORT_H
#define WEBNN_RUNTIME_CORE_OPSUPPORT_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/Kernel.h"
#include "webnn/types.h"

namespace webnn::rt {

// A set of operand data types (bit i: DataType value i).
using DataTypeSet = uint32_t;
constexpr DataTypeSet dataTypeBit(DataType t) { return DataTypeSet(1) << uint32_t(t); }
template <typename... T>
constexpr DataTypeSet dataTypes(T... t) {
  return (dataTypeBit(t) | ...);
}

// MLTensorLimits: the data types and the rank range an operand may have.
struct TensorLimits {
  DataTypeSet dataTypes = 0;
  uint32_t minRank = 0, maxRank = 0;
  bool allows(DataType t, size_t rank) const {
    return (dataTypes & dataTypeBit(t)) && rank >= minRank && rank <= maxRank;
  }
};

// One operand of an op, by its WebNN name ("a", "filter", "output"). Listed
// in the node's operand order; `repeated` (the last entry only) covers every
// remaining operand (concat's inputs, split's outputs).
struct OperandLimits {
  std::string name;
  TensorLimits limits;
  bool repeated = false;
};

struct OpLimits {
  std::string op;
  std::vector<OperandLimits> inputs, outputs;
};

// MLOpSupportLimits for one backend.
struct OpSupportTable {
  std::string backend;               // the backend's name ("vulkan")
  std::string preferredInputLayout;  // "nchw" or "nhwc"
  uint64_t maxTensorByteLength = 0;  // 0: no limit of the backend's own
  TensorLimits input, constant, output;  // graph inputs, constants, graph outputs
  std::vector<OpLimits> ops;             // sorted by op

  const OpLimits *find(std::string_view op) const;
};

// Whether `node` is within `table`'s limits (its op listed, each listed
// operand's type and rank allowed); else false and why, naming the operand
// ("input 'filter' (int8, rank 4): allowed float32, float16 of rank 4").
// Operands past those listed are the backend's kernel to judge.
bool withinLimits(const OpSupportTable &table, const NodeDesc &node, std::string *why);

// The table as MLOpSupportLimits JSON ({"preferredInputLayout", "maxTensorByteLength",
// "input", "constant", "output", <op>: {<operand>: {"dataTypes", "rankRange"}}}),
// keys in a stable order, for webnn_op_support_limits and `webnn-run limits`.
std::string opSupportLimitsJson(const OpSupportTable &table);

// "float32, float16" (in DataType order).
std::string dataTypeSetText(DataTypeSet set);

}  // namespace webnn::rt

#endif
