// Shape inference and validation for the decoder-LLM ops (docs/LLM.md):
// the checks ONNX Runtime's contrib kernels make on their inputs, done at
// compile time so a loaded artifact never fails inside a kernel.
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

bool known(int64_t d) { return !isDynamic(d); }

// Requires `v`'s static element count to be `count` (dynamic counts pass).
LogicalResult checkCount(std::optional<Location> loc, StringRef name, StringRef what,
                         RankedTensorType t, int64_t count) {
  int64_t n = elementCount(t.getShape());
  if (known(n) && known(count) && n != count)
    return opError(loc, name, "expected operand '", what, "' with ", count,
                   " elements but got shape ", formatList(t.getShape()));
  return success();
}

// gamma/bias/scale vectors: rank 1, `size` elements, the input's element type.
LogicalResult checkVectorOperand(std::optional<Location> loc, StringRef name, StringRef what,
                                 Value v, RankedTensorType input, int64_t size) {
  if (!v) return success();
  FailureOr<RankedTensorType> t = tensorOperand(loc, name, what, v);
  if (failed(t) || failed(checkSameElementType(loc, name, what, *t, "input", input)))
    return failure();
  if (t->getRank() != 1 || (known(size) && known(t->getDimSize(0)) && t->getDimSize(0) != size))
    return opError(loc, name, "expected operand '", what, "' of shape ", formatList({size}),
                   " but got ", formatList(t->getShape()));
  return success();
}

}  // namespace

// ----------------------------------------------------------------- matmulNBits
LogicalResult MatMulNBitsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  auto types = tensorOperands(loc, name, {{"input", adaptor.getInput()}, {"weight", adaptor.getWeight()},
                                          {"scales", adaptor.getScales()}});
  if (failed(types)) return failure();
  auto [input, weight, scales] = *types;
  int64_t K = adaptor.getK(), N = adaptor.getN(), blockSize = adaptor.getBlockSize();
  int64_t bits = adaptor.getBits().value_or(4);
  int64_t accuracy = adaptor.getAccuracyLevel().value_or(0);
  if (K < 1 || N < 1) return opError(loc, name, "expected K >= 1 and N >= 1 but got K = ", K, ", N = ", N);
  if (bits != 2 && bits != 4 && bits != 8)
    return opError(loc, name, "expected bits 2, 4 or 8 but got ", bits);
  if (blockSize < 16 || (blockSize & (blockSize - 1)) != 0)
    return opError(loc, name, "expected blockSize a power of 2 >= 16 but got ", blockSize);
  if (accuracy < 0 || accuracy > 4)
    return opError(loc, name, "expected accuracyLevel in [0, 4] but got ", accuracy);
  if (input.getRank() < 1)
    return opError(loc, name, "expected operand 'input' of rank >= 1 but got rank 0");
  int64_t inK = input.getDimSize(input.getRank() - 1);
  if (known(inK) && inK != K)
    return opError(loc, name, "expected operand 'input' with last dimension K = ", K,
                   " but got shape ", formatList(input.getShape()));
  int64_t kBlocks = (K + blockSize - 1) / blockSize, blob = blockSize * bits / 8;
  SmallVector<int64_t> wantWeight{N, kBlocks, blob};
  if (weight.getShape() != ArrayRef<int64_t>(wantWeight))
    return opError(loc, name, "expected operand 'weight' of shape ", formatList(wantWeight),
                   " (N, ceil(K / blockSize), blockSize * bits / 8) but got ",
                   formatList(weight.getShape()));
  if (failed(checkSameElementType(loc, name, "scales", scales, "input", input)) ||
      failed(checkCount(loc, name, "scales", scales, N * kBlocks)))
    return failure();
  if (Value zpValue = adaptor.getZeroPoints()) {
    FailureOr<RankedTensorType> zp = tensorOperand(loc, name, "zeroPoints", zpValue);
    if (failed(zp)) return failure();
    if (zp->getElementType().isUnsignedInteger(8)) {
      int64_t perRow = (kBlocks * bits + 7) / 8;
      if (failed(checkCount(loc, name, "zeroPoints", *zp, N * perRow))) return failure();
    } else if (zp->getElementType() == input.getElementType()) {
      if (failed(checkCount(loc, name, "zeroPoints", *zp, N * kBlocks))) return failure();
    } else {
      return opError(loc, name, "expected operand 'zeroPoints' of type ui8 (packed) or the "
                     "input's type ", input.getElementType(), " but got ", zp->getElementType());
    }
  }
  if (failed(checkVectorOperand(loc, name, "bias", adaptor.getBias(), input, N)))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = N;
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

// ------------------------------------------------------------ rmsNormalization
LogicalResult RmsNormalizationOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> scale = tensorOperand(loc, name, "scale", adaptor.getScale());
  if (failed(input) || failed(scale)) return failure();
  int64_t rank = input->getRank();
  int64_t axis = adaptor.getAxis().value_or(rank - 1);
  if (rank < 1 || axis < 0 || axis >= rank)
    return opError(loc, name, "expected axis in [0, ", rank, ") but got ", axis);
  if (failed(checkSameElementType(loc, name, "scale", *scale, "input", *input))) return failure();
  ArrayRef<int64_t> normalized = input->getShape().drop_front(axis);
  if (scale->getShape() != normalized)
    return opError(loc, name, "expected operand 'scale' of shape ", formatList(normalized),
                   " (input.shape[axis:]) but got ", formatList(scale->getShape()));
  SmallVector<int64_t> statShape(input->getShape().take_front(axis));
  statShape.append(size_t(rank - axis), 1);
  results.push_back(*input);
  results.push_back(RankedTensorType::get(statShape, Float32Type::get(ctx)));
  return success();
}

// -------------------------------------------------------- skipRmsNormalization
LogicalResult SkipRmsNormalizationOp::inferReturnTypes(MLIRContext *ctx,
                                                       std::optional<Location> loc,
                                                       Adaptor adaptor,
                                                       SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> skip = tensorOperand(loc, name, "skip", adaptor.getSkip());
  if (failed(input) || failed(skip)) return failure();
  int64_t rank = input->getRank();
  if (rank < 1) return opError(loc, name, "expected operand 'input' of rank >= 1 but got rank 0");
  if (failed(checkSameElementType(loc, name, "skip", *skip, "input", *input))) return failure();
  // ORT accepts skip (B, S, H), (1, S, H) or (S, H): the input's trailing
  // dimensions with missing or unit leading ones.
  ArrayRef<int64_t> in = input->getShape(), sk = skip->getShape();
  bool skipOk = !sk.empty() && sk.size() <= in.size();
  bool leadingOnes = true;
  for (size_t j = 0, off = in.size() - sk.size(); skipOk && j < sk.size(); ++j) {
    if (sk[j] != in[off + j] && !(sk[j] == 1 && leadingOnes)) skipOk = false;
    leadingOnes &= sk[j] == 1;
  }
  skipOk &= !sk.empty() && sk.back() == in.back();
  if (!skipOk)
    return opError(loc, name, "expected operand 'skip' with the input's trailing dimensions ",
                   formatList(in), " but got ", formatList(sk));
  int64_t hidden = in.back();
  if (failed(checkVectorOperand(loc, name, "gamma", adaptor.getGamma(), *input, hidden)) ||
      failed(checkVectorOperand(loc, name, "bias", adaptor.getBias(), *input, hidden)))
    return failure();
  SmallVector<int64_t> statShape(in.drop_back());
  statShape.push_back(1);
  results.push_back(*input);
  results.push_back(RankedTensorType::get(statShape, Float32Type::get(ctx)));
  results.push_back(*input);
  return success();
}

// ------------------------------------------------------------- rotaryEmbedding
LogicalResult RotaryEmbeddingOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  auto types = tensorOperands(loc, name, {{"input", adaptor.getInput()}, {"positionIds", adaptor.getPositionIds()},
                                          {"cosCache", adaptor.getCosCache()}, {"sinCache", adaptor.getSinCache()}});
  if (failed(types)) return failure();
  auto [input, pos, cosT, sinT] = *types;
  if (input.getRank() != 3 && input.getRank() != 4)
    return opError(loc, name, "expected operand 'input' of rank 3 [B, S, N*D] or 4 [B, N, S, D] but got rank ",
                   input.getRank());
  if (failed(checkSameElementType(loc, name, "cosCache", cosT, "input", input)) ||
      failed(checkSameElementType(loc, name, "sinCache", sinT, "input", input)))
    return failure();
  if (cosT.getRank() != 2 || cosT.getShape() != sinT.getShape())
    return opError(loc, name, "expected operands 'cosCache' and 'sinCache' of one 2-D shape "
                   "[maxSeq, rotaryDim / 2] but got ", formatList(cosT.getShape()), " and ",
                   formatList(sinT.getShape()));
  int64_t B = input.getDimSize(0);
  int64_t S = input.getRank() == 3 ? input.getDimSize(1) : input.getDimSize(2);
  bool posOk = (pos.getRank() == 1 && pos.getDimSize(0) == 1) ||
               (pos.getRank() == 2 && pos.getDimSize(0) == B && pos.getDimSize(1) == S);
  if (!posOk)
    return opError(loc, name, "expected operand 'positionIds' of shape [1] or ",
                   formatList({B, S}), " but got ", formatList(pos.getShape()));
  int64_t rotaryDim = adaptor.getRotaryEmbeddingDim().value_or(0);
  int64_t numHeads = adaptor.getNumHeads().value_or(0);
  int64_t half = cosT.getDimSize(1);
  int64_t headSize;
  if (input.getRank() == 4) {
    headSize = input.getDimSize(3);
  } else if (numHeads > 0) {
    int64_t hidden = input.getDimSize(2);
    if (known(hidden) && hidden % numHeads != 0)
      return opError(loc, name, "expected the input's hidden size ", hidden,
                     " to be a multiple of numHeads ", numHeads);
    headSize = known(hidden) ? hidden / numHeads : hidden;
  } else {
    if (rotaryDim > 0)
      return opError(loc, name, "expected numHeads with rotaryEmbeddingDim for a 3-D input");
    headSize = 2 * half;  // ORT: head_size = rotary dim = 2 * cos_cache.shape[1]
    int64_t hidden = input.getDimSize(2);
    if (known(hidden) && known(headSize) && hidden % headSize != 0)
      return opError(loc, name, "expected the input's hidden size ", hidden,
                     " to be a multiple of the head size 2 * cosCache.shape[1] = ", headSize);
  }
  if (rotaryDim == 0) rotaryDim = known(half) ? 2 * half : 0;
  if (known(half) && rotaryDim != 2 * half)
    return opError(loc, name, "expected cosCache.shape[1] = rotaryEmbeddingDim / 2 = ",
                   rotaryDim / 2, " but got ", half);
  if (known(headSize) && (rotaryDim > headSize || rotaryDim % 2 != 0))
    return opError(loc, name, "expected an even rotary dimension <= head size ", headSize,
                   " but got ", rotaryDim);
  results.push_back(input);
  return success();
}

// --------------------------------------------------------- groupQueryAttention
LogicalResult GroupQueryAttentionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                      Adaptor adaptor,
                                                      SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  auto types = tensorOperands(loc, name, {{"query", adaptor.getQuery()}, {"pastKey", adaptor.getPastKey()},
                                          {"pastValue", adaptor.getPastValue()}, {"seqlensK", adaptor.getSeqlensK()}});
  if (failed(types)) return failure();
  auto [query, pastKey, pastValue, seqlens] = *types;
  int64_t numHeads = adaptor.getNumHeads(), kvHeads = adaptor.getKvNumHeads();
  if (numHeads < 1 || kvHeads < 1 || numHeads % kvHeads != 0)
    return opError(loc, name, "expected numHeads a positive multiple of kvNumHeads but got ",
                   numHeads, " and ", kvHeads);
  if (query.getRank() != 3)
    return opError(loc, name, "expected operand 'query' of rank 3 [B, S, hidden] but got ",
                   formatList(query.getShape()));
  int64_t B = query.getDimSize(0), S = query.getDimSize(1), qHidden = query.getDimSize(2);
  Value keyV = adaptor.getKey(), valueV = adaptor.getValue();
  if (bool(keyV) != bool(valueV))
    return opError(loc, name, "expected operands 'key' and 'value' both present or both absent");
  int64_t headSize;
  if (!keyV) {  // packed QKV
    int64_t parts = numHeads + 2 * kvHeads;
    if (!known(qHidden) || qHidden % parts != 0)
      return opError(loc, name, "expected packed QKV hidden size a multiple of numHeads + 2 * "
                     "kvNumHeads = ", parts, " but got ", qHidden);
    headSize = qHidden / parts;
  } else {
    if (!known(qHidden) || qHidden % numHeads != 0)
      return opError(loc, name, "expected query hidden size a multiple of numHeads ", numHeads,
                     " but got ", qHidden);
    headSize = qHidden / numHeads;
    SmallVector<int64_t> kvShape{B, S, kvHeads * headSize};
    for (auto [what, v] : {std::pair<StringRef, Value>{"key", keyV}, {"value", valueV}}) {
      FailureOr<RankedTensorType> t = tensorOperand(loc, name, what, v);
      if (failed(t) || failed(checkSameElementType(loc, name, what, *t, "query", query)))
        return failure();
      if (t->getShape() != ArrayRef<int64_t>(kvShape))
        return opError(loc, name, "expected operand '", what, "' of shape ", formatList(kvShape),
                       " but got ", formatList(t->getShape()));
    }
  }
  if (failed(checkSameElementType(loc, name, "pastKey", pastKey, "query", query)) ||
      failed(checkSameElementType(loc, name, "pastValue", pastValue, "query", query)))
    return failure();
  if (pastKey.getRank() != 4 || pastKey.getShape() != pastValue.getShape() ||
      pastKey.getDimSize(0) != B || pastKey.getDimSize(1) != kvHeads ||
      pastKey.getDimSize(3) != headSize)
    return opError(loc, name, "expected operands 'pastKey' and 'pastValue' of one shape [",
                   B, ", ", kvHeads, ", P, ", headSize, "] (BNSH) but got ",
                   formatList(pastKey.getShape()), " and ", formatList(pastValue.getShape()));
  if (seqlens.getRank() != 1 || seqlens.getDimSize(0) != B)
    return opError(loc, name, "expected operand 'seqlensK' of shape [", B, "] but got ",
                   formatList(seqlens.getShape()));
  if (Value totalV = adaptor.getTotalSequenceLength()) {
    FailureOr<RankedTensorType> total = tensorOperand(loc, name, "totalSequenceLength", totalV);
    if (failed(total)) return failure();
    if (elementCount(total->getShape()) != 1)
      return opError(loc, name, "expected operand 'totalSequenceLength' with one element but got shape ",
                     formatList(total->getShape()));
  }
  bool doRotary = adaptor.getDoRotary().value_or(false);
  Value cosV = adaptor.getCosCache(), sinV = adaptor.getSinCache();
  if (bool(cosV) != bool(sinV))
    return opError(loc, name, "expected operands 'cosCache' and 'sinCache' both present or both absent");
  if (doRotary && !cosV) return opError(loc, name, "doRotary needs cosCache and sinCache");
  if (cosV) {
    FailureOr<RankedTensorType> c = tensorOperand(loc, name, "cosCache", cosV);
    FailureOr<RankedTensorType> s = tensorOperand(loc, name, "sinCache", sinV);
    if (failed(c) || failed(s) ||
        failed(checkSameElementType(loc, name, "cosCache", *c, "query", query)) ||
        failed(checkSameElementType(loc, name, "sinCache", *s, "query", query)))
      return failure();
    if (c->getRank() != 2 || c->getShape() != s->getShape() ||
        (known(c->getDimSize(1)) && (2 * c->getDimSize(1) > headSize)))
      return opError(loc, name, "expected operands 'cosCache' and 'sinCache' of one shape "
                     "[maxSeq, rotaryDim / 2] with rotaryDim <= head size ", headSize, " but got ",
                     formatList(c->getShape()), " and ", formatList(s->getShape()));
  }
  if (adaptor.getSoftcap() && adaptor.getSoftcap()->convertToDouble() < 0)
    return opError(loc, name, "expected softcap >= 0 but got ", adaptor.getSoftcap()->convertToDouble());
  int64_t past = pastKey.getDimSize(2);
  int64_t present = known(past) && known(S) ? past + S : ShapedType::kDynamic;
  auto elem = query.getElementType();
  results.push_back(RankedTensorType::get({B, S, numHeads * headSize}, elem));
  auto presentType = RankedTensorType::get({B, kvHeads, present, headSize}, elem);
  results.push_back(presentType);
  results.push_back(presentType);
  return success();
}
