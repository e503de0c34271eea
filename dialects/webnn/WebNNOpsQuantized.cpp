// Shape inference and validation for the integer QDQ ops (docs/FUSED_OPS.md,
// "quantizedMatmul"): everything the CPU kernel relies on is checked here, so
// a loaded artifact never meets an operand it cannot run.
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// A scale or zero point: `count` elements (1, or 1 and N for a per-column one).
LogicalResult checkQuantParam(std::optional<Location> loc, StringRef name, StringRef what,
                              RankedTensorType t, int64_t perColumn) {
  int64_t n = elementCount(t.getShape());
  if (n == 1 || (perColumn > 0 && n == perColumn)) return success();
  if (perColumn > 0)
    return opError(loc, name, "expected operand '", what, "' with 1 or ", perColumn,
                   " elements but got shape ", formatList(t.getShape()));
  return opError(loc, name, "expected operand '", what, "' with one element but got shape ",
                 formatList(t.getShape()));
}

}  // namespace

LogicalResult QuantizedMatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> aT = tensorOperand(loc, name, "a", adaptor.getA());
  FailureOr<RankedTensorType> bT = tensorOperand(loc, name, "b", adaptor.getB());
  FailureOr<RankedTensorType> aScaleT = tensorOperand(loc, name, "aScale", adaptor.getAScale());
  FailureOr<RankedTensorType> aZpT = tensorOperand(loc, name, "aZeroPoint", adaptor.getAZeroPoint());
  FailureOr<RankedTensorType> bScaleT = tensorOperand(loc, name, "bScale", adaptor.getBScale());
  FailureOr<RankedTensorType> bZpT = tensorOperand(loc, name, "bZeroPoint", adaptor.getBZeroPoint());
  if (failed(aT) || failed(bT) || failed(aScaleT) || failed(aZpT) || failed(bScaleT) || failed(bZpT))
    return failure();
  RankedTensorType a = *aT, b = *bT, aZp = *aZpT, bZp = *bZpT, bScale = *bScaleT;
  if (!a.hasStaticShape() || !b.hasStaticShape())
    return opError(loc, name, "expected operands 'a' and 'b' of static shapes");
  if (a.getRank() < 2 || b.getRank() < 2)
    return opError(loc, name, "expected operands 'a' and 'b' of rank >= 2 but got ranks ", a.getRank(),
                   " and ", b.getRank());
  // An integer operand carries its zero point's type.
  if (!a.getElementType().isF32() && a.getElementType() != aZp.getElementType())
    return opError(loc, name, "expected operand 'a' of type f32 or its zero point's type ",
                   aZp.getElementType(), " but got ", a.getElementType());
  if (!b.getElementType().isF32() && b.getElementType() != bZp.getElementType())
    return opError(loc, name, "expected operand 'b' of type f32 or its zero point's type ",
                   bZp.getElementType(), " but got ", b.getElementType());
  int64_t K = a.getDimSize(a.getRank() - 1), N = b.getDimSize(b.getRank() - 1);
  if (b.getDimSize(b.getRank() - 2) != K)
    return opError(loc, name, "expected operand 'b' with K = ", K, " rows but got shape ",
                   formatList(b.getShape()));
  if (K > 32768)
    return opError(loc, name, "expected K <= 32768 (an exact int32 sum) but got ", K);
  if (b.getRank() != 2 &&
      (b.getRank() != a.getRank() || a.getShape().drop_back(2) != b.getShape().drop_back(2)))
    return opError(loc, name, "expected operand 'b' of rank 2 or with a's batch dimensions ",
                   formatList(a.getShape().drop_back(2)), " but got shape ", formatList(b.getShape()));
  // Per-column parameters only for an integer weight [K, N].
  int64_t perColumn = (b.getRank() == 2 && !b.getElementType().isF32()) ? N : 0;
  if (failed(checkQuantParam(loc, name, "aScale", *aScaleT, 0)) ||
      failed(checkQuantParam(loc, name, "aZeroPoint", aZp, 0)) ||
      failed(checkQuantParam(loc, name, "bScale", bScale, perColumn)) ||
      failed(checkQuantParam(loc, name, "bZeroPoint", bZp, perColumn)))
    return failure();
  if (elementCount(bZp.getShape()) != elementCount(bScale.getShape()) && elementCount(bZp.getShape()) != 1)
    return opError(loc, name, "expected operand 'bZeroPoint' with 1 element or as many as 'bScale' (",
                   elementCount(bScale.getShape()), ") but got shape ", formatList(bZp.getShape()));
  Value outScale = adaptor.getOutputScale(), outZp = adaptor.getOutputZeroPoint();
  if (bool(outScale) != bool(outZp))
    return opError(loc, name, "expected 'outputScale' and 'outputZeroPoint' together or neither");
  if (outScale) {
    FailureOr<RankedTensorType> s = tensorOperand(loc, name, "outputScale", outScale);
    FailureOr<RankedTensorType> z = tensorOperand(loc, name, "outputZeroPoint", outZp);
    if (failed(s) || failed(z) || failed(checkQuantParam(loc, name, "outputScale", *s, 0)) ||
        failed(checkQuantParam(loc, name, "outputZeroPoint", *z, 0)))
      return failure();
  }
  if (Value bias = adaptor.getBias()) {
    FailureOr<RankedTensorType> t = tensorOperand(loc, name, "bias", bias);
    if (failed(t)) return failure();
    if (t->getRank() != 1 || t->getDimSize(0) != N)
      return opError(loc, name, "expected operand 'bias' of shape ", formatList({N}), " but got ",
                     formatList(t->getShape()));
  }
  SmallVector<int64_t> shape(a.getShape());
  shape.back() = N;
  results.push_back(RankedTensorType::get(shape, Float32Type::get(a.getContext())));
  return success();
}
