#include "compiler/frontends/dsl/OpTable.h"

#include <algorithm>
#include <map>

namespace mlir::webnn::dsl {

namespace {
struct OptionalOperandOp {
  unsigned required;
  std::vector<std::pair<std::string, unsigned>> options;  // option -> slot
};

// docs/OPS.md, "operands" column: the ops with `?` operands.
const std::map<std::string, OptionalOperandOp> &optionalOperandOps() {
  static const std::map<std::string, OptionalOperandOp> table = {
      {"gemm", {2, {{"c", 2}}}},
      {"conv2d", {2, {{"bias", 2}}}},
      {"convTranspose2d", {2, {{"bias", 2}}}},
      {"batchNormalization", {3, {{"scale", 3}, {"bias", 4}}}},
      {"instanceNormalization", {1, {{"scale", 1}, {"bias", 2}}}},
      {"layerNormalization", {1, {{"scale", 1}, {"bias", 2}}}},
      {"gru", {3, {{"bias", 3}, {"recurrentBias", 4}, {"initialHiddenState", 5}}}},
      {"gruCell", {4, {{"bias", 4}, {"recurrentBias", 5}}}},
      {"lstm",
       {3,
        {{"bias", 3}, {"recurrentBias", 4}, {"peepholeWeight", 5}, {"initialHiddenState", 6},
         {"initialCellState", 7}}}},
      {"lstmCell", {5, {{"bias", 5}, {"recurrentBias", 6}, {"peepholeWeight", 7}}}},
  };
  return table;
}
}  // namespace

std::optional<unsigned> operandOptionSlot(const std::string &op, const std::string &option) {
  auto it = optionalOperandOps().find(op);
  if (it == optionalOperandOps().end()) return std::nullopt;
  for (const auto &[name, slot] : it->second.options)
    if (name == option) return slot;
  return std::nullopt;
}

std::optional<OperandSlots> operandSlots(const std::string &op) {
  auto it = optionalOperandOps().find(op);
  if (it == optionalOperandOps().end()) return std::nullopt;
  unsigned total = it->second.required;
  for (const auto &entry : it->second.options) total = std::max(total, entry.second + 1);
  return OperandSlots{it->second.required, total};
}

std::vector<std::string> operandOptionNames(const std::string &op) {
  std::vector<std::string> names;
  auto it = optionalOperandOps().find(op);
  if (it != optionalOperandOps().end())
    for (const auto &entry : it->second.options) names.push_back(entry.first);
  return names;
}

const std::vector<std::pair<std::string, std::string>> &optionAliases(const std::string &op) {
  // The spec renamed pooling's roundingType to outputShapeRounding
  // (webmachinelearning/webnn#770); WPT's shared cases still write the older
  // name, which stays accepted as the attribute's own name.
  static const std::vector<std::pair<std::string, std::string>> pooling = {
      {"outputShapeRounding", "roundingType"}};
  static const std::vector<std::pair<std::string, std::string>> none;
  if (op == "averagePool2d" || op == "l2Pool2d" || op == "maxPool2d") return pooling;
  return none;
}

const std::vector<std::string> &positionalParameters(const std::string &op) {
  // WebNN builder signatures: softmax(input, axis), concat(inputs, axis),
  // reshape(input, newShape), slice(input, starts, sizes), ...
  static const std::map<std::string, std::vector<std::string>> table = {
      {"softmax", {"axis"}},
      {"concat", {"axis"}},
      {"reshape", {"newShape"}},
      {"expand", {"newShape"}},
      {"slice", {"starts", "sizes"}},
      {"split", {"splits"}},
      {"cast", {"type"}},
      {"pad", {"beginningPadding", "endingPadding"}},
      {"tile", {"repetitions"}},
      {"argMax", {"axis"}},
      {"argMin", {"axis"}},
  };
  static const std::vector<std::string> none;
  auto it = table.find(op);
  return it == table.end() ? none : it->second;
}

bool isFloatOption(const std::string &option) {
  return option == "alpha" || option == "beta" || option == "epsilon" ||
         option == "minValue" || option == "maxValue" || option == "value";
}

bool isFloatListOption(const std::string &option) { return option == "scales"; }

bool isStringListOption(const std::string &option) { return option == "activations"; }

bool isDataTypeOption(const std::string &option) {
  return option == "type" || option == "outputDataType";
}

}  // namespace mlir::webnn::dsl
