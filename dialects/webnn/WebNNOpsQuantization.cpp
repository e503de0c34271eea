// Shape inference and validation for quantizeLinear and dequantizeLinear
// (WebNN spec sections of the same names, "blockwise broadcast the shapes").
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// Spec steps shared by both ops: scale and zeroPoint have one shape, which is
// blockwise broadcastable to the input's (every input dimension a whole
// multiple of the scale's). The spec's steps ask for the input's rank; a lower
// rank is accepted as the WPT conformance cases and browsers do: the scale's
// dimensions align with the input's trailing ones and the missing leading ones
// count as 1 (a [2, 1] scale on a [1, 1, 2, 2] input is a [1, 1, 2, 1] one).
LogicalResult checkQuantizationParams(std::optional<Location> loc, StringRef name,
                                      RankedTensorType input, RankedTensorType scale,
                                      RankedTensorType zeroPoint) {
  if (scale.getRank() > input.getRank())
    return opError(loc, name, "expected 'scale' of rank at most ", input.getRank(),
                   " (the input's rank) but got rank ", scale.getRank());
  if (scale.getShape() != zeroPoint.getShape())
    return opError(loc, name, "expected 'zeroPoint' of the shape of 'scale' ",
                   formatList(scale.getShape()), " but got ", formatList(zeroPoint.getShape()));
  ArrayRef<int64_t> trailing = input.getShape().take_back(scale.getRank());
  for (auto [block, dim] : llvm::zip(scale.getShape(), trailing)) {
    if (isDynamic(block) || isDynamic(dim)) continue;
    if (block <= 0 || dim % block != 0)
      return opError(loc, name, "expected every input dimension to be a multiple of the 'scale' "
                     "dimension aligned with it (blockwise broadcast) but got input ",
                     formatList(input.getShape()), " and scale ", formatList(scale.getShape()));
  }
  return success();
}

// The result has the input's shape. quantizeLinear: zeroPoint's element
// type, scale the input's; dequantizeLinear: scale's, zeroPoint the input's.
template <typename AdaptorT>
LogicalResult inferQuantizationTypes(std::optional<Location> loc, StringRef name, AdaptorT &adaptor,
                                     bool quantize, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  auto types = tensorOperands(loc, name, {{"input", adaptor.getInput()}, {"scale", adaptor.getScale()},
                                          {"zeroPoint", adaptor.getZeroPoint()}});
  if (failed(types)) return failure();
  auto [input, scale, zeroPoint] = *types;
  RankedTensorType inputTyped = quantize ? scale : zeroPoint, result = quantize ? zeroPoint : scale;
  if (failed(checkSameElementType(loc, name, quantize ? "scale" : "zeroPoint", inputTyped, "input",
                                  input)) ||
      failed(checkQuantizationParams(loc, name, input, scale, zeroPoint)))
    return failure();
  results.push_back(RankedTensorType::get(input.getShape(), result.getElementType()));
  return success();
}

}  // namespace

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  return inferQuantizationTypes(loc, getOperationName(), adaptor, /*quantize=*/true, results);
}

LogicalResult DequantizeLinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  return inferQuantizationTypes(loc, getOperationName(), adaptor, /*quantize=*/false, results);
}
