// Shape inference and validation for the normalizations (WebNN spec
// "batchNormalization", "instanceNormalization", "layerNormalization"):
// the output is the input's type; the work is checking the parameter shapes.
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// A per-channel parameter (mean, variance, scale, bias) must be 1-D with the
// input's size along the channel axis. Absent optional operands pass.
LogicalResult checkChannelParam(std::optional<Location> loc, StringRef opName,
                                StringRef paramName, Value param, RankedTensorType input,
                                int64_t channels) {
  if (!param) return success();
  FailureOr<RankedTensorType> type = tensorOperand(loc, opName, paramName, param);
  if (failed(type) ||
      failed(checkSameElementType(loc, opName, paramName, *type, "input", input)))
    return failure();
  if (type->getRank() != 1 ||
      (!isDynamic(channels) && !isDynamic(type->getDimSize(0)) &&
       type->getDimSize(0) != channels))
    return opError(loc, opName, "expected operand '", paramName, "' of shape ",
                   formatList({channels}), " but got ", formatList(type->getShape()));
  return success();
}

// checkChannelParam for each of `params`, in order.
LogicalResult checkChannelParams(std::optional<Location> loc, StringRef opName,
                                 RankedTensorType input, int64_t channels,
                                 std::initializer_list<std::pair<StringRef, Value>> params) {
  for (auto [paramName, param] : params)
    if (failed(checkChannelParam(loc, opName, paramName, param, input, channels))) return failure();
  return success();
}

}  // namespace

LogicalResult BatchNormalizationOp::inferReturnTypes(MLIRContext *,
                                                     std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t axis = adaptor.getAxis().value_or(1);
  if (failed(checkAxisInRange(loc, name, axis, input->getRank()))) return failure();
  int64_t channels = input->getDimSize(axis);
  if (failed(checkChannelParams(loc, name, *input, channels,
                                {{"mean", adaptor.getMean()},
                                 {"variance", adaptor.getVariance()},
                                 {"scale", adaptor.getScale()},
                                 {"bias", adaptor.getBias()}})))
    return failure();
  results.push_back(*input);
  return success();
}

LogicalResult InstanceNormalizationOp::inferReturnTypes(MLIRContext *,
                                                        std::optional<Location> loc,
                                                        Adaptor adaptor,
                                                        SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  if (input->getRank() != 4)
    return opError(loc, name, "expected operand 'input' of rank 4 but got rank ",
                   input->getRank());
  StringRef layout = adaptor.getLayout().value_or("nchw");
  if (layout != "nchw" && layout != "nhwc")
    return opError(loc, name, "expected layout \"nchw\" or \"nhwc\" but got \"", layout, "\"");
  int64_t channels = input->getDimSize(layout == "nchw" ? 1 : 3);
  if (failed(checkChannelParams(loc, name, *input, channels,
                                {{"scale", adaptor.getScale()}, {"bias", adaptor.getBias()}})))
    return failure();
  results.push_back(*input);
  return success();
}

LogicalResult LayerNormalizationOp::inferReturnTypes(MLIRContext *,
                                                     std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t rank = input->getRank();
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getAxes())
    axes.assign(given->begin(), given->end());
  else
    for (int64_t i = 1; i < rank; ++i) axes.push_back(i);
  if (failed(checkAxes(loc, name, "axes", axes, rank))) return failure();
  // scale and bias are indexed by position in `axes`, not by input axis.
  SmallVector<int64_t> paramShape;
  for (int64_t axis : axes) paramShape.push_back(input->getDimSize(axis));
  for (auto [paramName, param] :
       {std::pair<StringRef, Value>{"scale", adaptor.getScale()}, {"bias", adaptor.getBias()}}) {
    if (!param) continue;
    FailureOr<RankedTensorType> type = tensorOperand(loc, name, paramName, param);
    if (failed(type) || failed(checkSameElementType(loc, name, paramName, *type, "input", *input)))
      return failure();
    SmallVector<int64_t> merged;
    bool matches = type->getRank() == static_cast<int64_t>(paramShape.size()) &&
                   llvm::all_of(llvm::zip(type->getShape(), paramShape), [](auto dims) {
                     auto [x, y] = dims;
                     return x == y || isDynamic(x) || isDynamic(y);
                   });
    if (!matches)
      return opError(loc, name, "expected operand '", paramName, "' of shape ",
                     formatList(paramShape), " (the input's sizes along axes ",
                     formatList(axes), ") but got ", formatList(type->getShape()));
  }
  results.push_back(*input);
  return success();
}
