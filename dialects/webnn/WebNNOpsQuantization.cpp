// Shape inference and validation for quantizeLinear and dequantizeLinear
// (WebNN spec sections of the same names, "blockwise broadcast the shapes").
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// Spec steps shared by both ops: scale and zeroPoint have the input's rank and
// one shape, which is blockwise broadcastable to the input's (every input
// dimension a whole multiple of the scale's).
LogicalResult checkQuantizationParams(std::optional<Location> loc, StringRef name,
                                      RankedTensorType input, RankedTensorType scale,
                                      RankedTensorType zeroPoint) {
  if (scale.getRank() != input.getRank() || zeroPoint.getRank() != input.getRank())
    return opError(loc, name, "expected 'scale' and 'zeroPoint' of rank ", input.getRank(),
                   " (the input's rank) but got ranks ", scale.getRank(), " and ",
                   zeroPoint.getRank());
  if (scale.getShape() != zeroPoint.getShape())
    return opError(loc, name, "expected 'zeroPoint' of the shape of 'scale' ",
                   formatList(scale.getShape()), " but got ", formatList(zeroPoint.getShape()));
  for (auto [block, dim] : llvm::zip(scale.getShape(), input.getShape())) {
    if (isDynamic(block) || isDynamic(dim)) continue;
    if (block <= 0 || dim % block != 0)
      return opError(loc, name, "expected every input dimension to be a multiple of the 'scale' "
                     "dimension (blockwise broadcast) but got input ",
                     formatList(input.getShape()), " and scale ", formatList(scale.getShape()));
  }
  return success();
}

}  // namespace

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> scale = tensorOperand(loc, name, "scale", adaptor.getScale());
  FailureOr<RankedTensorType> zeroPoint =
      tensorOperand(loc, name, "zeroPoint", adaptor.getZeroPoint());
  if (failed(input) || failed(scale) || failed(zeroPoint)) return failure();
  if (failed(checkSameElementType(loc, name, "scale", *scale, "input", *input)) ||
      failed(checkQuantizationParams(loc, name, *input, *scale, *zeroPoint)))
    return failure();
  results.push_back(RankedTensorType::get(input->getShape(), zeroPoint->getElementType()));
  return success();
}

LogicalResult DequantizeLinearOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> scale = tensorOperand(loc, name, "scale", adaptor.getScale());
  FailureOr<RankedTensorType> zeroPoint =
      tensorOperand(loc, name, "zeroPoint", adaptor.getZeroPoint());
  if (failed(input) || failed(scale) || failed(zeroPoint)) return failure();
  if (failed(checkSameElementType(loc, name, "zeroPoint", *zeroPoint, "input", *input)) ||
      failed(checkQuantizationParams(loc, name, *input, *scale, *zeroPoint)))
    return failure();
  results.push_back(RankedTensorType::get(input->getShape(), scale->getElementType()));
  return success();
}
