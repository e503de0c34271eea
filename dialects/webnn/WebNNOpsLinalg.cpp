// Shape inference and validation for matmul and gemm (WebNN spec "matmul",
// "gemm").
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

static bool dimsConflict(int64_t x, int64_t y) {
  return !isDynamic(x) && !isDynamic(y) && x != y;
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> a = tensorOperand(loc, name, "a", adaptor.getA());
  FailureOr<RankedTensorType> b = tensorOperand(loc, name, "b", adaptor.getB());
  if (failed(a) || failed(b)) return failure();
  if (failed(checkSameElementType(loc, name, "b", *b, "a", *a))) return failure();
  // The spec requires rank >= 2 for both (front ends unsqueeze 1-D operands).
  if (a->getRank() < 2 || b->getRank() < 2)
    return opError(loc, name, "expected operands 'a' and 'b' of rank >= 2 but got ranks ",
                   a->getRank(), " and ", b->getRank());
  ArrayRef<int64_t> shapeA = a->getShape(), shapeB = b->getShape();
  int64_t rowsA = shapeA[shapeA.size() - 2], colsA = shapeA.back();
  int64_t rowsB = shapeB[shapeB.size() - 2], colsB = shapeB.back();
  if (dimsConflict(colsA, rowsB))
    return opError(loc, name, "expected the columns of 'a' (", colsA,
                   ") to equal the rows of 'b' (", rowsB, ") but got shapes ",
                   formatList(shapeA), " and ", formatList(shapeB));
  SmallVector<int64_t> shape;
  if (!broadcastBidirectional(shapeA.drop_back(2), shapeB.drop_back(2), shape))
    return opError(loc, name, "expected broadcastable batch dimensions but got shapes ",
                   formatList(shapeA), " and ", formatList(shapeB));
  shape.push_back(rowsA);
  shape.push_back(colsB);
  results.push_back(RankedTensorType::get(shape, a->getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> a = tensorOperand(loc, name, "a", adaptor.getA());
  FailureOr<RankedTensorType> b = tensorOperand(loc, name, "b", adaptor.getB());
  if (failed(a) || failed(b)) return failure();
  if (failed(checkSameElementType(loc, name, "b", *b, "a", *a))) return failure();
  if (a->getRank() != 2 || b->getRank() != 2)
    return opError(loc, name, "expected operands 'a' and 'b' of rank 2 but got ranks ",
                   a->getRank(), " and ", b->getRank());
  SmallVector<int64_t> shapeA(a->getShape()), shapeB(b->getShape());
  if (adaptor.getATranspose().value_or(false)) std::swap(shapeA[0], shapeA[1]);
  if (adaptor.getBTranspose().value_or(false)) std::swap(shapeB[0], shapeB[1]);
  if (dimsConflict(shapeA[1], shapeB[0]))
    return opError(loc, name, "expected the columns of 'a' (", shapeA[1],
                   ") to equal the rows of 'b' (", shapeB[0],
                   ") after the aTranspose/bTranspose options");
  SmallVector<int64_t> shape{shapeA[0], shapeB[1]};
  if (Value cValue = adaptor.getC()) {
    FailureOr<RankedTensorType> c = tensorOperand(loc, name, "c", cValue);
    if (failed(c) || failed(checkSameElementType(loc, name, "c", *c, "a", *a)))
      return failure();
    if (!isUnidirectionallyBroadcastable(c->getShape(), shape))
      return opError(loc, name, "expected operand 'c' to broadcast to ", formatList(shape),
                     " but got shape ", formatList(c->getShape()));
  }
  results.push_back(RankedTensorType::get(shape, a->getElementType()));
  return success();
}
