#include "core/OpSupport.h"

#include <algorithm>

namespace webnn::rt {

const OpLimits *OpSupportTable::find(std::string_view op) const {
  auto it = std::lower_bound(ops.begin(), ops.end(), op, [](const OpLimits &l, std::string_view o) { return l.op < o; });
  return it != ops.end() && it->op == op ? &*it : nullptr;
}

std::string dataTypeSetText(DataTypeSet set) {
  std::string s;
  for (int t = 0; t < kNumDataTypes; ++t)
    if (set & dataTypeBit(DataType(t))) s += (s.empty() ? "" : ", ") + std::string(dataTypeName(DataType(t)));
  return s.empty() ? "none" : s;
}

namespace {

std::string rankText(const TensorLimits &l) {
  if (l.minRank == l.maxRank) return "of rank " + std::to_string(l.minRank);
  return "of rank " + std::to_string(l.minRank) + " to " + std::to_string(l.maxRank);
}

bool checkOperands(const char *kind, const std::vector<OperandLimits> &limits,
                   const std::vector<const OperandDesc *> &operands, std::string *why) {
  for (size_t i = 0; i < operands.size() && !limits.empty(); ++i) {
    const OperandLimits *l = i < limits.size() ? &limits[i] : limits.back().repeated ? &limits.back() : nullptr;
    if (!l) break;  // past the listed operands: the kernel's to judge
    const OperandDesc *o = operands[i];
    if (!o) continue;  // an absent optional operand
    if (l->limits.allows(o->dtype, o->shape.size())) continue;
    *why = std::string(kind) + " '" + l->name + "' (" + std::string(dataTypeName(o->dtype)) + ", rank " +
           std::to_string(o->shape.size()) + "): allowed " + dataTypeSetText(l->limits.dataTypes) + " " +
           rankText(l->limits);
    return false;
  }
  return true;
}

void appendLimits(std::string *out, const TensorLimits &l) {
  *out += "{\"dataTypes\": [";
  bool first = true;
  for (int t = 0; t < kNumDataTypes; ++t) {
    if (!(l.dataTypes & dataTypeBit(DataType(t)))) continue;
    *out += (first ? "\"" : ", \"") + std::string(dataTypeName(DataType(t))) + "\"";
    first = false;
  }
  *out += "], \"rankRange\": {\"min\": " + std::to_string(l.minRank) + ", \"max\": " + std::to_string(l.maxRank) + "}}";
}

}  // namespace

bool withinLimits(const OpSupportTable &table, const NodeDesc &node, std::string *why) {
  const OpLimits *op = table.find(node.op);
  if (!op) {
    *why = "backend '" + table.backend + "' has no kernel for " + node.op;
    return false;
  }
  return checkOperands("input", op->inputs, node.inputs, why) && checkOperands("output", op->outputs, node.outputs, why);
}

std::string opSupportLimitsJson(const OpSupportTable &table) {
  // Names come from the table (op and operand names, fixed identifiers), so
  // nothing here needs escaping.
  std::string j = "{\"backend\": \"" + table.backend + "\", \"preferredInputLayout\": \"" + table.preferredInputLayout +
                  "\", \"maxTensorByteLength\": " + std::to_string(table.maxTensorByteLength) + ", \"input\": ";
  appendLimits(&j, table.input);
  j += ", \"constant\": ";
  appendLimits(&j, table.constant);
  j += ", \"output\": ";
  appendLimits(&j, table.output);
  for (const OpLimits &op : table.ops) {
    j += ", \"" + op.op + "\": {";
    bool first = true;
    for (const auto *list : {&op.inputs, &op.outputs})
      for (const OperandLimits &o : *list) {
        j += (first ? "\"" : ", \"") + o.name + "\": ";
        appendLimits(&j, o.limits);
        first = false;
      }
    j += "}";
  }
  return j + "}";
}

}  // namespace webnn::rt
