// Shape inference and validation for reductions and argMin/argMax (WebNN
// spec "calculate reduction output sizes").
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// Spec "calculate reduction output sizes": absent axes reduce everything;
// reduced axes become 1 with keepDimensions, else disappear.
FailureOr<SmallVector<int64_t>> reducedShape(std::optional<Location> loc, StringRef opName,
                                             StringRef axesName, ArrayRef<int64_t> inputShape,
                                             std::optional<ArrayRef<int64_t>> axes,
                                             bool keepDimensions) {
  int64_t rank = inputShape.size();
  SmallVector<int64_t> allAxes;
  if (!axes) {
    for (int64_t i = 0; i < rank; ++i) allAxes.push_back(i);
    axes = ArrayRef<int64_t>(allAxes);
  }
  if (failed(checkAxes(loc, opName, axesName, *axes, rank))) return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(*axes, i);
    if (!reduced)
      shape.push_back(inputShape[i]);
    else if (keepDimensions)
      shape.push_back(1);
  }
  return shape;
}

template <typename Adaptor>
LogicalResult inferReduce(std::optional<Location> loc, StringRef opName, Adaptor adaptor,
                          SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  FailureOr<RankedTensorType> input = tensorOperand(loc, opName, "input", adaptor.getInput());
  if (failed(input)) return failure();
  FailureOr<SmallVector<int64_t>> shape =
      reducedShape(loc, opName, "axes", input->getShape(), adaptor.getAxes(),
                   adaptor.getKeepDimensions().value_or(false));
  if (failed(shape)) return failure();
  results.push_back(RankedTensorType::get(*shape, input->getElementType()));
  return success();
}

template <typename Adaptor>
LogicalResult inferArgReduce(MLIRContext *ctx, std::optional<Location> loc, StringRef opName,
                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  FailureOr<RankedTensorType> input = tensorOperand(loc, opName, "input", adaptor.getInput());
  if (failed(input)) return failure();
  if (input->getRank() < 1)
    return opError(loc, opName, "expected operand 'input' of rank >= 1 but got a scalar");
  Type outputType = IntegerType::get(ctx, 32);
  if (std::optional<Type> requested = adaptor.getOutputDataType()) outputType = *requested;
  if (!outputType.isSignlessInteger(32) && !outputType.isSignlessInteger(64))
    return opError(loc, opName, "expected outputDataType i32 or i64 but got ", outputType);
  int64_t axis = adaptor.getAxis();
  // The index must be representable in the output type.
  if (outputType.isSignlessInteger(32) && axis >= 0 && axis < input->getRank() &&
      !isDynamic(input->getDimSize(axis)) &&
      input->getDimSize(axis) > std::numeric_limits<int32_t>::max())
    return opError(loc, opName, "dimension ", axis, " of size ", input->getDimSize(axis),
                   " does not fit outputDataType i32");
  int64_t axes[] = {axis};
  FailureOr<SmallVector<int64_t>> shape =
      reducedShape(loc, opName, "axis", input->getShape(), ArrayRef<int64_t>(axes),
                   adaptor.getKeepDimensions().value_or(false));
  if (failed(shape)) return failure();
  results.push_back(RankedTensorType::get(*shape, outputType));
  return success();
}

}  // namespace

#define WEBNN_INFER_REDUCE(OP)                                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,       \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) { \
    return inferReduce(loc, getOperationName(), adaptor, results);                     \
  }
WEBNN_INFER_REDUCE(ReduceL1Op)
WEBNN_INFER_REDUCE(ReduceL2Op)
WEBNN_INFER_REDUCE(ReduceLogSumOp)
WEBNN_INFER_REDUCE(ReduceLogSumExpOp)
WEBNN_INFER_REDUCE(ReduceMaxOp)
WEBNN_INFER_REDUCE(ReduceMeanOp)
WEBNN_INFER_REDUCE(ReduceMinOp)
WEBNN_INFER_REDUCE(ReduceProductOp)
WEBNN_INFER_REDUCE(ReduceSumOp)
WEBNN_INFER_REDUCE(ReduceSumSquareOp)
#undef WEBNN_INFER_REDUCE

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  return inferArgReduce(ctx, loc, getOperationName(), adaptor, results);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  return inferArgReduce(ctx, loc, getOperationName(), adaptor, results);
}

LogicalResult CumulativeSumOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxisInRange(loc, name, axis, input->getRank()))) return failure();
  results.push_back(*input);
  return success();
}
