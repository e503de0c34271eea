#include "dialects/webnn/WebNNOps.h"
#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::webnn;

// Broadcasting per the spec's "bidirectionally broadcast the shapes" (numpy rules).
LogicalResult AddOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      ValueRange operands, DictionaryAttr, OpaqueProperties,
                                      RegionRange, SmallVectorImpl<Type> &results) {
  auto a = cast<RankedTensorType>(operands[0].getType());
  auto b = cast<RankedTensorType>(operands[1].getType());
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(a.getShape(), b.getShape(), shape))
    return emitOptionalError(loc, "shapes ", a, " and ", b, " are not broadcastable");
  results.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

LogicalResult AddOp::verify() {
  if (getA().getType().getElementType() != getB().getType().getElementType())
    return emitOpError() << "operands must have the same data type, got "
                         << getA().getType().getElementType() << " and "
                         << getB().getType().getElementType();
  return success();
}
