// The little per-op knowledge the DSL needs beyond "op name = WebNN builder
// name": which options name operands (and which operand slot they fill), which
// literal parameters may be written positionally, and which option names hold
// floats or data types. Everything is derived from docs/OPS.md; the other
// options must be attributes the op declares and become those attributes.
#ifndef WEBNN_FRONTENDS_DSL_OPTABLE_H
#define WEBNN_FRONTENDS_DSL_OPTABLE_H

#include <optional>
#include <string>
#include <vector>

namespace mlir::webnn::dsl {

// The operand slot that option `option` of `op` fills (e.g. conv2d's `bias`
// is operand 2), or nullopt if that option is not operand-valued.
std::optional<unsigned> operandOptionSlot(const std::string &op, const std::string &option);

// For ops with optional operands: the number of required operands (the first
// optional slot) and the total number of operand slots.
struct OperandSlots {
  unsigned required;
  unsigned total;
};
std::optional<OperandSlots> operandSlots(const std::string &op);

// Names of the required non-operand parameters of `op`, in WebNN's positional
// order (softmax: axis; slice: starts, sizes). A literal written positionally
// binds to the next of these; the importer rejects a call missing any of them.
const std::vector<std::string> &positionalParameters(const std::string &op);

// The option names of `op` that fill operand slots (conv2d: bias), in
// docs/OPS.md order; empty for ops without optional operands.
std::vector<std::string> operandOptionNames(const std::string &op);

// Options the DSL takes under a name other than the dialect attribute they
// set: the spec's current name for an option the dialect (and the artifact)
// still store under the older one (pooling's `outputShapeRounding` ->
// `roundingType`). Pairs of (option, attribute); empty for most ops.
const std::vector<std::pair<std::string, std::string>> &optionAliases(const std::string &op);

// Options whose numbers are floats even when written as integers (`alpha=1`).
bool isFloatOption(const std::string &option);
// List options whose numbers are floats even when written as integers
// (`resample2d`'s `scales=[2, 2]`).
bool isFloatListOption(const std::string &option);
// List-of-names options the dialect keeps as one comma-joined string
// (`activations=["relu", "tanh"]` -> "relu,tanh", docs/OPS.md).
bool isStringListOption(const std::string &option);
// Options whose value names a data type (`cast`'s `type`).
bool isDataTypeOption(const std::string &option);

}  // namespace mlir::webnn::dsl

#endif
