// Shape inference and validation for the element-wise family, activations,
// cast and where (WebNN spec: "Element-wise binary/logical/unary
// operations", "clamp", "cast", "prelu", "softmax", "where").
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// Output of a broadcasting binary op: both operands must share a data type;
// the result has `resultElement` (or a's data type when null).
LogicalResult inferBroadcastBinary(std::optional<Location> loc, StringRef opName, Value aValue,
                                   Value bValue, Type resultElement,
                                   SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> a = tensorOperand(loc, opName, "a", aValue);
  FailureOr<RankedTensorType> b = tensorOperand(loc, opName, "b", bValue);
  if (failed(a) || failed(b)) return failure();
  if (failed(checkSameElementType(loc, opName, "b", *b, "a", *a))) return failure();
  SmallVector<int64_t> shape;
  if (!broadcastBidirectional(a->getShape(), b->getShape(), shape))
    return opError(loc, opName, "expected broadcastable shapes but got ",
                   formatList(a->getShape()), " for 'a' and ", formatList(b->getShape()),
                   " for 'b'");
  results.push_back(
      RankedTensorType::get(shape, resultElement ? resultElement : a->getElementType()));
  return success();
}

// Activations whose output is their input's type and whose options need no
// check beyond the ODS attribute kinds.
LogicalResult inferSameAsInput(std::optional<Location> loc, StringRef opName, Value input,
                               SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> type = tensorOperand(loc, opName, "input", input);
  if (failed(type)) return failure();
  results.push_back(*type);
  return success();
}

Type uint8Type(MLIRContext *ctx) { return IntegerType::get(ctx, 8, IntegerType::Unsigned); }

}  // namespace

#define WEBNN_INFER_SAME_AS_INPUT(OP)                                                  \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,       \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) { \
    return inferSameAsInput(loc, getOperationName(), adaptor.getInput(), results);     \
  }
WEBNN_INFER_SAME_AS_INPUT(EluOp)
WEBNN_INFER_SAME_AS_INPUT(LeakyReluOp)
WEBNN_INFER_SAME_AS_INPUT(HardSigmoidOp)
WEBNN_INFER_SAME_AS_INPUT(LinearOp)
#undef WEBNN_INFER_SAME_AS_INPUT

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  FailureOr<RankedTensorType> input =
      tensorOperand(loc, getOperationName(), "input", adaptor.getInput());
  if (failed(input)) return failure();
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input->getRank())
    return opError(loc, getOperationName(), "expected axis in [0, ", input->getRank(),
                   ") for an input of rank ", input->getRank(), " but got ", axis);
  results.push_back(*input);
  return success();
}

LogicalResult ClampOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  // Absent bounds mean -inf/+inf, which can never conflict.
  std::optional<APFloat> minValue = adaptor.getMinValue();
  std::optional<APFloat> maxValue = adaptor.getMaxValue();
  if (minValue && maxValue && minValue->convertToDouble() > maxValue->convertToDouble())
    return opError(loc, getOperationName(), "expected minValue <= maxValue but got minValue ",
                   minValue->convertToDouble(), " and maxValue ", maxValue->convertToDouble());
  return inferSameAsInput(loc, getOperationName(), adaptor.getInput(), results);
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  FailureOr<RankedTensorType> input =
      tensorOperand(loc, getOperationName(), "input", adaptor.getInput());
  if (failed(input)) return failure();
  Type target = adaptor.getType();
  // f64 is the float64 extension (WebNNBase.td), which cast converts to and from.
  if (!isWebNNElementType(target) && !target.isF64())
    return opError(loc, getOperationName(),
                   "expected 'type' to be a WebNN data type (f32, f16, i32, ui32, i64, ui64, "
                   "i8, ui8, i4, ui4) or f64 but got ",
                   target);
  results.push_back(RankedTensorType::get(input->getShape(), target));
  return success();
}

LogicalResult PreluOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> slope = tensorOperand(loc, name, "slope", adaptor.getSlope());
  if (failed(input) || failed(slope)) return failure();
  if (failed(checkSameElementType(loc, name, "slope", *slope, "input", *input)))
    return failure();
  SmallVector<int64_t> shape;
  if (!broadcastBidirectional(input->getShape(), slope->getShape(), shape))
    return opError(loc, name, "expected 'slope' shape ", formatList(slope->getShape()),
                   " to broadcast with 'input' shape ", formatList(input->getShape()));
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

#define WEBNN_INFER_ARITHMETIC(OP)                                                     \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,       \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) { \
    return inferBroadcastBinary(loc, getOperationName(), adaptor.getA(), adaptor.getB(), \
                                Type(), results);                                      \
  }
WEBNN_INFER_ARITHMETIC(AddOp)
WEBNN_INFER_ARITHMETIC(SubOp)
WEBNN_INFER_ARITHMETIC(MulOp)
WEBNN_INFER_ARITHMETIC(DivOp)
WEBNN_INFER_ARITHMETIC(MaxOp)
WEBNN_INFER_ARITHMETIC(MinOp)
WEBNN_INFER_ARITHMETIC(PowOp)
#undef WEBNN_INFER_ARITHMETIC

// Comparisons and logical binaries produce uint8 0/1.
#define WEBNN_INFER_PREDICATE(OP)                                                      \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,    \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) { \
    return inferBroadcastBinary(loc, getOperationName(), adaptor.getA(), adaptor.getB(), \
                                uint8Type(ctx), results);                              \
  }
WEBNN_INFER_PREDICATE(EqualOp)
WEBNN_INFER_PREDICATE(NotEqualOp)
WEBNN_INFER_PREDICATE(GreaterOp)
WEBNN_INFER_PREDICATE(GreaterOrEqualOp)
WEBNN_INFER_PREDICATE(LesserOp)
WEBNN_INFER_PREDICATE(LesserOrEqualOp)
WEBNN_INFER_PREDICATE(LogicalAndOp)
WEBNN_INFER_PREDICATE(LogicalOrOp)
WEBNN_INFER_PREDICATE(LogicalXorOp)
#undef WEBNN_INFER_PREDICATE

// isNaN / isInfinite keep the shape and produce uint8.
#define WEBNN_INFER_FLOAT_PREDICATE(OP)                                                 \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,     \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) { \
    FailureOr<RankedTensorType> input =                                                 \
        tensorOperand(loc, getOperationName(), "input", adaptor.getInput());            \
    if (failed(input)) return failure();                                                \
    if (!input->getElementType().isF32() && !input->getElementType().isF16())           \
      return opError(loc, getOperationName(),                                           \
                     "expected operand 'input' of data type f32 or f16 but got ",       \
                     input->getElementType());                                          \
    results.push_back(RankedTensorType::get(input->getShape(), uint8Type(ctx)));        \
    return success();                                                                   \
  }
WEBNN_INFER_FLOAT_PREDICATE(IsNaNOp)
WEBNN_INFER_FLOAT_PREDICATE(IsInfiniteOp)
#undef WEBNN_INFER_FLOAT_PREDICATE

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> condition =
      tensorOperand(loc, name, "condition", adaptor.getCondition());
  FailureOr<RankedTensorType> onTrue =
      tensorOperand(loc, name, "trueValue", adaptor.getTrueValue());
  FailureOr<RankedTensorType> onFalse =
      tensorOperand(loc, name, "falseValue", adaptor.getFalseValue());
  if (failed(condition) || failed(onTrue) || failed(onFalse)) return failure();
  if (!condition->getElementType().isUnsignedInteger(8))
    return opError(loc, name, "expected operand 'condition' to be ui8 but got ",
                   condition->getElementType());
  if (failed(checkSameElementType(loc, name, "falseValue", *onFalse, "trueValue", *onTrue)))
    return failure();
  SmallVector<int64_t> values, shape;
  if (!broadcastBidirectional(onTrue->getShape(), onFalse->getShape(), values) ||
      !broadcastBidirectional(condition->getShape(), values, shape))
    return opError(loc, name, "expected broadcastable shapes but got ",
                   formatList(condition->getShape()), " for 'condition', ",
                   formatList(onTrue->getShape()), " for 'trueValue' and ",
                   formatList(onFalse->getShape()), " for 'falseValue'");
  results.push_back(RankedTensorType::get(shape, onTrue->getElementType()));
  return success();
}
