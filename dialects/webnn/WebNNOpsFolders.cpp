// Folders: identities (reshape to the same type, identity permutation, full
// slice, ...) and constant folding of small constants. Only
// DenseElementsAttr constants fold; resource blobs (weights) are left to the
// runtime so folding never copies large tensors.
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"
#include "llvm/ADT/APSInt.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// Larger non-splat constants are not folded: the folded copy would add to
// the artifact's size as much as it saves at run time.
constexpr int64_t kMaxFoldedElements = 1 << 16;

DenseElementsAttr foldableConstant(Attribute attr, Type resultType) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  auto result = dyn_cast<RankedTensorType>(resultType);
  if (!dense || !result || !result.hasStaticShape()) return {};
  if (!dense.isSplat() && result.getNumElements() > kMaxFoldedElements) return {};
  return dense;
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

// Builds `resultType` by copying, for every output index, the source element
// `sourceIndexOf(outputIndex)` returns (a linear index into `source`).
template <typename Fn>
DenseElementsAttr remapElements(DenseElementsAttr source, RankedTensorType resultType,
                                Fn sourceIndexOf) {
  if (source.isSplat())
    return DenseElementsAttr::get(resultType, source.getSplatValue<Attribute>());
  auto values = source.getValues<Attribute>();
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> index(shape.size(), 0);
  SmallVector<Attribute> out;
  int64_t count = resultType.getNumElements();
  out.reserve(count);
  for (int64_t n = 0; n < count; ++n) {
    out.push_back(values[sourceIndexOf(ArrayRef<int64_t>(index))]);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, out);
}

// Linear index into a tensor of `shape` that broadcasts to the output (numpy
// rules: trailing-aligned, size-1 dimensions repeat).
int64_t broadcastSourceIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                             ArrayRef<int64_t> outputIndex) {
  size_t offset = outputIndex.size() - shape.size();
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) linear += outputIndex[offset + d] * strides[d];
  return linear;
}

using FloatFn = std::function<std::optional<APFloat>(const APFloat &, const APFloat &)>;
using IntFn = std::function<std::optional<APInt>(const APInt &, const APInt &, bool isUnsigned)>;

// Element-wise arithmetic on two broadcast constants of one element type.
OpFoldResult foldArithmetic(Attribute lhsAttr, Attribute rhsAttr, Type resultType,
                            const FloatFn &floatFn, const IntFn &intFn) {
  DenseElementsAttr lhs = foldableConstant(lhsAttr, resultType);
  DenseElementsAttr rhs = foldableConstant(rhsAttr, resultType);
  if (!lhs || !rhs) return {};
  auto result = cast<RankedTensorType>(resultType);
  Type element = result.getElementType();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (lhsType.getElementType() != element || rhsType.getElementType() != element) return {};
  if (lhs.isSplat() && rhs.isSplat()) {
    if (isa<FloatType>(element)) {
      std::optional<APFloat> v =
          floatFn(lhs.getSplatValue<APFloat>(), rhs.getSplatValue<APFloat>());
      return v ? DenseElementsAttr::get(result, *v) : Attribute();
    }
    std::optional<APInt> v = intFn(lhs.getSplatValue<APInt>(), rhs.getSplatValue<APInt>(),
                                   element.isUnsignedInteger());
    return v ? DenseElementsAttr::get(result, *v) : Attribute();
  }
  if (result.getNumElements() > kMaxFoldedElements) return {};
  SmallVector<int64_t> lhsStrides = rowMajorStrides(lhsType.getShape());
  SmallVector<int64_t> rhsStrides = rowMajorStrides(rhsType.getShape());
  ArrayRef<int64_t> shape = result.getShape();
  SmallVector<int64_t> index(shape.size(), 0);
  int64_t count = result.getNumElements();
  bool isFloat = isa<FloatType>(element);
  bool isUnsigned = element.isUnsignedInteger();
  SmallVector<APFloat> floats;
  SmallVector<APInt> ints;
  for (int64_t n = 0; n < count; ++n) {
    int64_t l = broadcastSourceIndex(lhsType.getShape(), lhsStrides, index);
    int64_t r = broadcastSourceIndex(rhsType.getShape(), rhsStrides, index);
    if (isFloat) {
      std::optional<APFloat> v = floatFn(lhs.getValues<APFloat>()[l], rhs.getValues<APFloat>()[r]);
      if (!v) return {};
      floats.push_back(*v);
    } else {
      std::optional<APInt> v =
          intFn(lhs.getValues<APInt>()[l], rhs.getValues<APInt>()[r], isUnsigned);
      if (!v) return {};
      ints.push_back(*v);
    }
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  if (isFloat) return DenseElementsAttr::get(result, floats);
  return DenseElementsAttr::get(result, ints);
}

}  // namespace

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldArithmetic(
      adaptor.getA(), adaptor.getB(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x + y; },
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x + y; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldArithmetic(
      adaptor.getA(), adaptor.getB(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x - y; },
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x - y; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldArithmetic(
      adaptor.getA(), adaptor.getB(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x * y; },
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x * y; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldArithmetic(
      adaptor.getA(), adaptor.getB(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x / y; },
      // Integer division by zero is left for the runtime to define.
      [](const APInt &x, const APInt &y, bool isUnsigned) -> std::optional<APInt> {
        if (y.isZero()) return std::nullopt;
        if (!isUnsigned && x.isMinSignedValue() && y.isAllOnes()) return std::nullopt;
        return isUnsigned ? x.udiv(y) : x.sdiv(y);
      });
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  // getType() is the `type` attribute here, so name the result explicitly.
  Type outputType = getOutput().getType();
  if (getInput().getType() == outputType) return getInput();
  DenseElementsAttr input = foldableConstant(adaptor.getInput(), outputType);
  if (!input) return {};
  auto resultType = cast<RankedTensorType>(outputType);
  Type from = input.getElementType(), to = resultType.getElementType();
  auto convert = [&](Attribute value) -> Attribute {
    if (auto f = dyn_cast<FloatAttr>(value)) {
      APFloat v = f.getValue();
      if (auto toFloat = dyn_cast<FloatType>(to)) {
        bool lost;
        v.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        return FloatAttr::get(to, v);
      }
      // Float to integer truncates toward zero; NaN and out-of-range values are
      // implementation-defined, so those are not folded.
      if (v.isNaN() || v.isInfinity()) return {};
      APSInt result(to.getIntOrFloatBitWidth(), to.isUnsignedInteger());
      bool exact;
      if (v.convertToInteger(result, APFloat::rmTowardZero, &exact) & APFloat::opInvalidOp)
        return {};
      return IntegerAttr::get(to, result);
    }
    auto i = cast<IntegerAttr>(value);
    bool fromUnsigned = from.isUnsignedInteger();
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      APFloat v(toFloat.getFloatSemantics());
      v.convertFromAPInt(i.getValue(), !fromUnsigned, APFloat::rmNearestTiesToEven);
      return FloatAttr::get(to, v);
    }
    // Integer to integer: extend by the source's signedness, or wrap.
    unsigned width = to.getIntOrFloatBitWidth();
    APInt v = fromUnsigned ? i.getValue().zextOrTrunc(width) : i.getValue().sextOrTrunc(width);
    return IntegerAttr::get(to, v);
  };
  if (input.isSplat()) {
    Attribute v = convert(input.getSplatValue<Attribute>());
    return v ? DenseElementsAttr::get(resultType, v) : Attribute();
  }
  SmallVector<Attribute> values;
  for (Attribute value : input.getValues<Attribute>()) {
    Attribute v = convert(value);
    if (!v) return {};
    values.push_back(v);
  }
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType()) return getInput();
  // reshape(reshape(x)) is one reshape of x, unless several dynamic values
  // copy the input's dimensions by index: then only where the inner reshape
  // copied x's at each of those indices too.
  auto copiesOfX = [&](ReshapeOp inner) {
    ArrayRef<int64_t> outer = getNewShape(), in = inner.getNewShape();
    if (llvm::count_if(outer, ShapedType::isDynamic) < 2) return true;
    if (llvm::count_if(in, ShapedType::isDynamic) < 2) return false;
    for (auto [i, d] : llvm::enumerate(outer))
      if (ShapedType::isDynamic(d) && (i >= in.size() || !ShapedType::isDynamic(in[i]))) return false;
    return true;
  };
  if (auto inner = getInput().getDefiningOp<ReshapeOp>(); inner && copiesOfX(inner)) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (resultType && resultType.hasStaticShape()) return dense.reshape(resultType);
  return {};
}

namespace {
// reshape(weight) where the reshape is the weight's only user becomes the
// weight with the new shape: the bytes are the same in row-major order, so
// the blob is shared, not copied, and the constant keeps its name (weightless
// binding goes by name). Without this a conv1d lowered to conv2d reshaped its
// filter on every run, and the filter, no longer a constant, was not prepacked.
struct ReshapeOfWeight : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto constant = op.getInput().getDefiningOp<ConstantOp>();
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!constant || !resultType || !resultType.hasStaticShape() ||
        !constant.getResult().hasOneUse())
      return failure();
    auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
    if (!resource) return failure();
    auto reshaped = DenseResourceElementsAttr::get(resultType, resource.getRawHandle());
    rewriter.modifyOpInPlace(constant, [&] {
      constant.setValueAttr(reshaped);
      constant.getResult().setType(resultType);
    });
    rewriter.replaceOp(op, constant.getResult());
    return success();
  }
};
}  // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<ReshapeOfWeight>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> permutation;
  if (std::optional<ArrayRef<int64_t>> given = getPermutation())
    permutation.assign(given->begin(), given->end());
  else
    for (int64_t i = rank - 1; i >= 0; --i) permutation.push_back(i);
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i) identity &= permutation[i] == i;
  if (identity) return getInput();
  DenseElementsAttr input = foldableConstant(adaptor.getInput(), getType());
  if (!input || !inputType.hasStaticShape()) return {};
  SmallVector<int64_t> strides = rowMajorStrides(inputType.getShape());
  return remapElements(input, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> out) {
    int64_t linear = 0;
    for (int64_t i = 0; i < rank; ++i) linear += out[i] * strides[permutation[i]];
    return linear;
  });
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType()) return getInput();
  DenseElementsAttr input = foldableConstant(adaptor.getInput(), getType());
  auto inputType = cast<RankedTensorType>(getInput().getType());
  if (!input || !inputType.hasStaticShape()) return {};
  SmallVector<int64_t> strides = rowMajorStrides(inputType.getShape());
  return remapElements(input, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> out) {
    return broadcastSourceIndex(inputType.getShape(), strides, out);
  });
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  auto inputType = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> starts = getStarts();
  SmallVector<int64_t> strides(inputType.getRank(), 1);
  if (std::optional<ArrayRef<int64_t>> given = getStrides())
    strides.assign(given->begin(), given->end());
  bool unitStrides = llvm::all_of(strides, [](int64_t s) { return s == 1; });
  // Equal types alone do not make an identity when a dimension is dynamic
  // (a window from start 1 to the end is `?` too).
  bool zeroStarts = llvm::all_of(starts, [](int64_t s) { return s == 0; });
  if (getInput().getType() == getType() && unitStrides && zeroStarts) return getInput();
  DenseElementsAttr input = foldableConstant(adaptor.getInput(), getType());
  if (!input || !inputType.hasStaticShape()) return {};
  SmallVector<int64_t> inputStrides = rowMajorStrides(inputType.getShape());
  return remapElements(input, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> out) {
    int64_t linear = 0;
    for (size_t i = 0; i < out.size(); ++i)
      linear += (starts[i] + out[i] * strides[i]) * inputStrides[i];
    return linear;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType()) return getInputs()[0];
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (!resultType || !resultType.hasStaticShape() ||
      resultType.getNumElements() > kMaxFoldedElements)
    return {};
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute attr : adaptor.getInputs()) {
    auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
    if (!dense) return {};
    inputs.push_back(dense);
  }
  // Row-major order: for each index of the leading (outer) dimensions, the
  // inputs' inner blocks follow one another.
  int64_t axis = getAxis();
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  SmallVector<Attribute> out;
  out.reserve(resultType.getNumElements());
  for (int64_t o = 0; o < outer; ++o) {
    for (DenseElementsAttr input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t block = type.getNumElements() / std::max<int64_t>(outer, 1);
      auto values = input.getValues<Attribute>();
      for (int64_t i = 0; i < block; ++i) out.push_back(values[o * block + i]);
    }
  }
  return DenseElementsAttr::get(resultType, out);
}
