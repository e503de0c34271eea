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

namespace {

// A list option of `count` values >= `min` (default `fallback`).
FailureOr<SmallVector<int64_t>> quantizedConvList(std::optional<Location> loc, StringRef name, StringRef what,
                                                  std::optional<ArrayRef<int64_t>> values, size_t count,
                                                  int64_t fallback, int64_t min) {
  if (!values) return SmallVector<int64_t>(count, fallback);
  if (values->size() != count)
    return opError(loc, name, "expected option '", what, "' with ", int64_t(count), " values but got ",
                   formatList(*values));
  for (int64_t v : *values)
    if (v < min) return opError(loc, name, "expected option '", what, "' values >= ", min, " but got ", formatList(*values));
  return SmallVector<int64_t>(values->begin(), values->end());
}

}  // namespace

LogicalResult QuantizedConv2dOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                                  Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> inT = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> inScaleT = tensorOperand(loc, name, "inputScale", adaptor.getInputScale());
  FailureOr<RankedTensorType> inZpT = tensorOperand(loc, name, "inputZeroPoint", adaptor.getInputZeroPoint());
  FailureOr<RankedTensorType> fT = tensorOperand(loc, name, "filter", adaptor.getFilter());
  FailureOr<RankedTensorType> fScaleT = tensorOperand(loc, name, "filterScale", adaptor.getFilterScale());
  if (failed(inT) || failed(inScaleT) || failed(inZpT) || failed(fT) || failed(fScaleT)) return failure();
  RankedTensorType in = *inT, f = *fT;
  if (!in.hasStaticShape() || !f.hasStaticShape() || in.getRank() != 4 || f.getRank() != 4)
    return opError(loc, name, "expected operands 'input' (nhwc) and 'filter' (ohwi) of rank 4 and static shapes "
                   "but got ", formatList(in.getShape()), " and ", formatList(f.getShape()));
  if (in.getElementType() != inZpT->getElementType())
    return opError(loc, name, "expected operand 'input' of its zero point's type ", inZpT->getElementType(),
                   " but got ", in.getElementType());
  int64_t groups = adaptor.getGroups().value_or(1);
  int64_t C = in.getDimSize(3), O = f.getDimSize(0), KH = f.getDimSize(1), KW = f.getDimSize(2);
  if (groups < 1 || C % groups != 0 || O % groups != 0 || f.getDimSize(3) != C / groups)
    return opError(loc, name, "expected groups (", groups, ") dividing the input channels (", C,
                   ") and the filter's output channels (", O, "), and filter shape [O, KH, KW, C / groups] but got ",
                   formatList(f.getShape()));
  if (C / groups * KH * KW > 32768)
    return opError(loc, name, "expected C / groups * KH * KW <= 32768 (an exact int32 sum) but got ",
                   C / groups * KH * KW);
  if (failed(checkQuantParam(loc, name, "inputScale", *inScaleT, 0)) ||
      failed(checkQuantParam(loc, name, "inputZeroPoint", *inZpT, 0)) ||
      failed(checkQuantParam(loc, name, "filterScale", *fScaleT, O)))
    return failure();
  if (Value bias = adaptor.getBias()) {
    FailureOr<RankedTensorType> t = tensorOperand(loc, name, "bias", bias);
    if (failed(t)) return failure();
    if (t->getRank() != 1 || t->getDimSize(0) != O)
      return opError(loc, name, "expected operand 'bias' of shape ", formatList({O}), " but got ",
                     formatList(t->getShape()));
  }
  Value outScale = adaptor.getOutputScale(), outZp = adaptor.getOutputZeroPoint();
  if (bool(outScale) != bool(outZp))
    return opError(loc, name, "expected 'outputScale' and 'outputZeroPoint' together or neither");
  Type outElem = Float32Type::get(context);
  if (outScale) {
    FailureOr<RankedTensorType> s = tensorOperand(loc, name, "outputScale", outScale);
    FailureOr<RankedTensorType> z = tensorOperand(loc, name, "outputZeroPoint", outZp);
    if (failed(s) || failed(z) || failed(checkQuantParam(loc, name, "outputScale", *s, 0)) ||
        failed(checkQuantParam(loc, name, "outputZeroPoint", *z, 0)))
      return failure();
    outElem = z->getElementType();
  }
  FailureOr<SmallVector<int64_t>> pad = quantizedConvList(loc, name, "padding", adaptor.getPadding(), 4, 0, 0);
  FailureOr<SmallVector<int64_t>> str = quantizedConvList(loc, name, "strides", adaptor.getStrides(), 2, 1, 1);
  FailureOr<SmallVector<int64_t>> dil = quantizedConvList(loc, name, "dilations", adaptor.getDilations(), 2, 1, 1);
  if (failed(pad) || failed(str) || failed(dil)) return failure();
  int64_t spanH = ((*dil)[0]) * (KH - 1) + 1, spanW = ((*dil)[1]) * (KW - 1) + 1;
  int64_t H = in.getDimSize(1) + (*pad)[0] + (*pad)[1], W = in.getDimSize(2) + (*pad)[2] + (*pad)[3];
  if (H < spanH || W < spanW)
    return opError(loc, name, "expected the padded input (", H, " x ", W, ") at least the dilated filter (",
                   spanH, " x ", spanW, ")");
  int64_t OH = (H - spanH) / (*str)[0] + 1, OW = (W - spanW) / (*str)[1] + 1;
  auto outType = RankedTensorType::get({in.getDimSize(0), OH, OW, O}, outElem);
  StringRef activation = adaptor.getActivation().value_or("none");
  if (activation != "none" && activation != "relu")
    return opError(loc, name, "expected activation \"none\" or \"relu\" but got \"", activation, "\"");
  Value residual = adaptor.getResidual();
  Value rs = adaptor.getResidualScale(), rz = adaptor.getResidualZeroPoint();
  Value cs = adaptor.getConvScale(), cz = adaptor.getConvZeroPoint();
  if (bool(residual) != bool(rs) || bool(residual) != bool(rz) || bool(residual) != bool(cs) ||
      bool(residual) != bool(cz))
    return opError(loc, name, "expected 'residual' with 'residualScale', 'residualZeroPoint', 'convScale' and "
                   "'convZeroPoint', or none of them");
  if (residual) {
    FailureOr<RankedTensorType> r = tensorOperand(loc, name, "residual", residual);
    if (failed(r)) return failure();
    if (!outScale || *r != outType)
      return opError(loc, name, "expected operand 'residual' of the 8-bit output's type ", outType, " but got ", *r);
    for (auto [what, v] : {std::pair<StringRef, Value>{"residualScale", rs}, {"residualZeroPoint", rz},
                           {"convScale", cs}, {"convZeroPoint", cz}}) {
      FailureOr<RankedTensorType> t = tensorOperand(loc, name, what, v);
      if (failed(t) || failed(checkQuantParam(loc, name, what, *t, 0))) return failure();
    }
    if (cast<RankedTensorType>(rz.getType()).getElementType() != r->getElementType())
      return opError(loc, name, "expected operand 'residualZeroPoint' of the residual's type");
  }
  results.push_back(outType);
  return success();
}
