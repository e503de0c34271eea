// Shape inference and validation for the fused macro ops (docs/FUSED_OPS.md).
// fusedConv2d reuses conv2d's shape rules by asking webnn.conv2d's inference
// with the same operands and options, so the two can never disagree;
// channelShuffle asks webnn.concat's the same way.
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

LogicalResult FusedConv2dOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  StringRef activation = adaptor.getActivation().value_or("none");
  if (activation != "none" && activation != "relu" && activation != "clamp" &&
      activation != "sigmoid" && activation != "silu" && activation != "hardSwish")
    return opError(loc, name, "expected activation \"none\", \"relu\", \"clamp\", \"sigmoid\", "
                   "\"silu\" or \"hardSwish\" but got \"", activation, "\"");
  bool hasBounds = adaptor.getActivationMinValue() || adaptor.getActivationMaxValue();
  if (hasBounds && activation != "clamp")
    return opError(loc, name, "activationMinValue/activationMaxValue apply to activation "
                   "\"clamp\" only, not \"", activation, "\"");
  if (activation == "clamp" && adaptor.getActivationMinValue() && adaptor.getActivationMaxValue() &&
      adaptor.getActivationMinValue()->convertToDouble() >
          adaptor.getActivationMaxValue()->convertToDouble())
    return opError(loc, name, "expected activationMinValue <= activationMaxValue but got ",
                   adaptor.getActivationMinValue()->convertToDouble(), " > ",
                   adaptor.getActivationMaxValue()->convertToDouble());

  // conv2d's rules on conv2d's share of the operands and options.
  Conv2dOp::Properties conv;
  conv.padding = adaptor.getPaddingAttr();
  conv.strides = adaptor.getStridesAttr();
  conv.dilations = adaptor.getDilationsAttr();
  conv.groups = adaptor.getGroupsAttr();
  conv.inputLayout = adaptor.getInputLayoutAttr();
  conv.filterLayout = adaptor.getFilterLayoutAttr();
  SmallVector<Value, 3> convOperands{adaptor.getInput(), adaptor.getFilter()};
  if (adaptor.getBias()) convOperands.push_back(adaptor.getBias());
  SmallVector<Type, 1> convResults;
  if (failed(Conv2dOp::inferReturnTypes(context, loc, convOperands, DictionaryAttr(),
                                        OpaqueProperties(&conv), RegionRange(), convResults)))
    return failure();  // conv2d's diagnostic names the operand or option

  if (Value residualValue = adaptor.getResidual()) {
    FailureOr<RankedTensorType> residual = tensorOperand(loc, name, "residual", residualValue);
    if (failed(residual)) return failure();
    if (*residual != convResults[0])
      return opError(loc, name, "expected operand 'residual' of the output's type ",
                     convResults[0], " but got ", *residual);
  }
  results.push_back(convResults[0]);
  return success();
}

LogicalResult ChannelShuffleOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                                 Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  // concat's rules on the inputs and axis.
  ConcatOp::Properties concat;
  concat.axis = adaptor.getAxisAttr();
  SmallVector<Type, 1> joined;
  if (failed(ConcatOp::inferReturnTypes(context, loc, adaptor.getInputs(), DictionaryAttr(),
                                        OpaqueProperties(&concat), RegionRange(), joined)))
    return failure();
  auto type = cast<RankedTensorType>(joined[0]);
  const int64_t axis = adaptor.getAxis(), groups = adaptor.getGroups();
  const int64_t channels = type.getDimSize(axis);
  if (groups < 1) return opError(loc, name, "expected groups >= 1 but got ", groups);
  if (isDynamic(channels))
    return opError(loc, name, "expected a static size along axis ", axis, " but got ", formatList(type.getShape()));
  if (channels % groups != 0)
    return opError(loc, name, "expected the size along axis ", axis, " (", channels,
                   ") to be divisible by groups ", groups);
  ArrayRef<int64_t> splits = adaptor.getSplits();
  if (splits.empty()) return opError(loc, name, "expected at least one value in splits");
  int64_t sum = 0;
  for (int64_t size : splits) {
    if (size <= 0) return opError(loc, name, "expected every splits value to be > 0 but got ", formatList(splits));
    if (__builtin_add_overflow(sum, size, &sum))
      return opError(loc, name, "expected splits ", formatList(splits),
                     " to sum to a size but their sum overflows int64");
  }
  if (sum != channels)
    return opError(loc, name, "expected splits ", formatList(splits), " to sum to ", channels,
                   " (the inputs' total size along axis ", axis, ") but they sum to ", sum);
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t size : splits) {
    shape[axis] = size;
    results.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  return success();
}
