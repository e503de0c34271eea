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

// The optional outputScale and outputZeroPoint: both or neither, one element
// each. *outElem (if asked for) becomes the zero point's element type when
// they are given.
LogicalResult checkOutputQuantization(std::optional<Location> loc, StringRef name, Value outScale,
                                      Value outZp, Type *outElem) {
  if (bool(outScale) != bool(outZp))
    return opError(loc, name, "expected 'outputScale' and 'outputZeroPoint' together or neither");
  if (!outScale) return success();
  auto types = tensorOperands(loc, name, {{"outputScale", outScale}, {"outputZeroPoint", outZp}});
  if (failed(types)) return failure();
  auto [scale, zeroPoint] = *types;
  if (failed(checkQuantParam(loc, name, "outputScale", scale, 0)) ||
      failed(checkQuantParam(loc, name, "outputZeroPoint", zeroPoint, 0)))
    return failure();
  if (outElem) *outElem = zeroPoint.getElementType();
  return success();
}

// The optional float32 bias, one value per output column or channel.
LogicalResult checkBias(std::optional<Location> loc, StringRef name, Value bias, int64_t count) {
  if (!bias) return success();
  FailureOr<RankedTensorType> t = tensorOperand(loc, name, "bias", bias);
  if (failed(t)) return failure();
  if (t->getRank() != 1 || t->getDimSize(0) != count)
    return opError(loc, name, "expected operand 'bias' of shape ", formatList({count}), " but got ",
                   formatList(t->getShape()));
  return success();
}

}  // namespace

LogicalResult QuantizedMatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  auto types = tensorOperands(loc, name,
                              {{"a", adaptor.getA()},
                               {"b", adaptor.getB()},
                               {"aScale", adaptor.getAScale()},
                               {"aZeroPoint", adaptor.getAZeroPoint()},
                               {"bScale", adaptor.getBScale()},
                               {"bZeroPoint", adaptor.getBZeroPoint()}});
  if (failed(types)) return failure();
  auto [a, b, aScale, aZp, bScale, bZp] = *types;
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
  if (failed(checkQuantParam(loc, name, "aScale", aScale, 0)) ||
      failed(checkQuantParam(loc, name, "aZeroPoint", aZp, 0)) ||
      failed(checkQuantParam(loc, name, "bScale", bScale, perColumn)) ||
      failed(checkQuantParam(loc, name, "bZeroPoint", bZp, perColumn)))
    return failure();
  if (elementCount(bZp.getShape()) != elementCount(bScale.getShape()) && elementCount(bZp.getShape()) != 1)
    return opError(loc, name, "expected operand 'bZeroPoint' with 1 element or as many as 'bScale' (",
                   elementCount(bScale.getShape()), ") but got shape ", formatList(bZp.getShape()));
  if (failed(checkOutputQuantization(loc, name, adaptor.getOutputScale(), adaptor.getOutputZeroPoint(),
                                     nullptr)) ||
      failed(checkBias(loc, name, adaptor.getBias(), N)))
    return failure();
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
  auto types = tensorOperands(loc, name,
                              {{"input", adaptor.getInput()},
                               {"inputScale", adaptor.getInputScale()},
                               {"inputZeroPoint", adaptor.getInputZeroPoint()},
                               {"filter", adaptor.getFilter()},
                               {"filterScale", adaptor.getFilterScale()}});
  if (failed(types)) return failure();
  auto [in, inScale, inZp, f, fScale] = *types;
  if (!in.hasStaticShape() || !f.hasStaticShape() || in.getRank() != 4 || f.getRank() != 4)
    return opError(loc, name, "expected operands 'input' (nhwc) and 'filter' (ohwi) of rank 4 and static shapes "
                   "but got ", formatList(in.getShape()), " and ", formatList(f.getShape()));
  if (in.getElementType() != inZp.getElementType())
    return opError(loc, name, "expected operand 'input' of its zero point's type ", inZp.getElementType(),
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
  if (failed(checkQuantParam(loc, name, "inputScale", inScale, 0)) ||
      failed(checkQuantParam(loc, name, "inputZeroPoint", inZp, 0)) ||
      failed(checkQuantParam(loc, name, "filterScale", fScale, O)) ||
      failed(checkBias(loc, name, adaptor.getBias(), O)))
    return failure();
  Value outScale = adaptor.getOutputScale();
  Type outElem = Float32Type::get(context);
  if (failed(checkOutputQuantization(loc, name, outScale, adaptor.getOutputZeroPoint(), &outElem)))
    return failure();
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
