// Shape inference and validation for the fused transformer ops
// (docs/FUSED_OPS.md). fusedMatmul asks webnn.matmul's inference with the
// same operands, so the two shape rules can never disagree.
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

LogicalResult FusedMatmulOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  StringRef activation = adaptor.getActivation().value_or("none");
  if (activation != "none" && activation != "relu" && activation != "gelu")
    return opError(loc, name, "expected activation \"none\", \"relu\" or \"gelu\" but got \"", activation,
                   "\"");
  SmallVector<Type, 1> mmResults;
  if (failed(MatmulOp::inferReturnTypes(context, loc, ValueRange{adaptor.getA(), adaptor.getB()},
                                        DictionaryAttr(), OpaqueProperties(nullptr), RegionRange(), mmResults)))
    return failure();  // matmul's diagnostic names the operand
  auto outType = cast<RankedTensorType>(mmResults[0]);
  if (Value biasValue = adaptor.getBias()) {
    FailureOr<RankedTensorType> bias = tensorOperand(loc, name, "bias", biasValue);
    if (failed(bias)) return failure();
    int64_t n = outType.getShape().back();
    if (bias->getRank() != 1 || bias->getElementType() != outType.getElementType() ||
        (!isDynamic(n) && !isDynamic(bias->getDimSize(0)) && bias->getDimSize(0) != n))
      return opError(loc, name, "expected operand 'bias' of shape [", n, "] and element type ",
                     outType.getElementType(), " but got ", *bias);
  }
  if (Value residualValue = adaptor.getResidual()) {
    FailureOr<RankedTensorType> residual = tensorOperand(loc, name, "residual", residualValue);
    if (failed(residual)) return failure();
    if (*residual != outType)
      return opError(loc, name, "expected operand 'residual' of the output's type ", outType, " but got ",
                     *residual);
  }
  results.push_back(outType);
  return success();
}

LogicalResult FusedAttentionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> q = tensorOperand(loc, name, "query", adaptor.getQuery());
  FailureOr<RankedTensorType> k = tensorOperand(loc, name, "key", adaptor.getKey());
  FailureOr<RankedTensorType> v = tensorOperand(loc, name, "value", adaptor.getValue());
  if (failed(q) || failed(k) || failed(v)) return failure();
  if (failed(checkSameElementType(loc, name, "key", *k, "query", *q)) ||
      failed(checkSameElementType(loc, name, "value", *v, "query", *q)))
    return failure();
  if (q->getRank() != 3 || k->getRank() != 3 || v->getRank() != 3)
    return opError(loc, name, "expected 'query', 'key' and 'value' of rank 3 ([batch, sequence, heads * "
                   "headSize]) but got ranks ", q->getRank(), ", ", k->getRank(), " and ", v->getRank());
  if (!q->hasStaticShape() || !k->hasStaticShape() || !v->hasStaticShape())
    return opError(loc, name, "expected static shapes");
  if (k->getShape() != v->getShape() || k->getDimSize(0) != q->getDimSize(0) ||
      k->getDimSize(2) != q->getDimSize(2))
    return opError(loc, name, "expected 'key' and 'value' of shape [", q->getDimSize(0), ", T, ",
                   q->getDimSize(2), "] but got ", formatList(k->getShape()), " and ", formatList(v->getShape()));
  int64_t heads = adaptor.getHeads();
  if (heads < 1 || q->getDimSize(2) % heads != 0)
    return opError(loc, name, "expected 'heads' to divide the last dimension (", q->getDimSize(2), ") but got ",
                   heads);
  results.push_back(*q);
  return success();
}
