#include "dialects/webnn/WebNNShapeUtils.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Traits.h"

namespace mlir::webnn {

std::string formatList(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(values, os, [&](int64_t v) {
    if (isDynamic(v))
      os << "?";
    else
      os << v;
  });
  os << "]";
  return text;
}

bool broadcastBidirectional(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                            SmallVectorImpl<int64_t> &out) {
  out.clear();
  return OpTrait::util::getBroadcastedShape(a, b, out);
}

bool isUnidirectionallyBroadcastable(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size()) return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[i], t = to[offset + i];
    if (f == t || f == 1 || isDynamic(f) || isDynamic(t)) continue;
    return false;
  }
  return true;
}

LogicalResult checkAxes(std::optional<Location> loc, StringRef opName, StringRef what,
                        ArrayRef<int64_t> axes, int64_t rank) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return opError(loc, opName, "expected every ", what, " value in [0, ", rank,
                     ") for an input of rank ", rank, " but got ", axis);
    if (!seen.insert(axis).second)
      return opError(loc, opName, "expected unique ", what, " values but ", axis,
                     " appears more than once in ", formatList(axes));
  }
  return success();
}

FailureOr<RankedTensorType> tensorOperand(std::optional<Location> loc, StringRef opName,
                                          StringRef operandName, Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return opError(loc, opName, "expected operand '", operandName,
                   "' to be a ranked tensor but got ", value.getType());
  return type;
}

LogicalResult checkSameElementType(std::optional<Location> loc, StringRef opName,
                                   StringRef operandName, RankedTensorType actual,
                                   StringRef referenceName, RankedTensorType expected) {
  if (actual.getElementType() == expected.getElementType()) return success();
  return opError(loc, opName, "expected operand '", operandName, "' to have the data type of '",
                 referenceName, "' (", expected.getElementType(), ") but got ",
                 actual.getElementType());
}

bool isWebNNElementType(Type type) {
  if (type.isF32() || type.isF16()) return true;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.isSigned()) return false;
  switch (integer.getWidth()) {
    case 4: case 8: case 32: case 64: return true;
    default: return false;
  }
}

LogicalResult checkAxisInRange(std::optional<Location> loc, StringRef opName, int64_t axis,
                               int64_t rank) {
  if (axis < 0 || axis >= rank)
    return opError(loc, opName, "expected axis in [0, ", rank, ") for an input of rank ", rank,
                   " but got ", axis);
  return success();
}

int64_t elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (isDynamic(d)) return ShapedType::kDynamic;
    count *= d;
  }
  return count;
}

}  // namespace mlir::webnn
