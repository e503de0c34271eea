// --webnn-convert-layout: nchw convolutions, pools and normalizations to nhwc,
// then transposes sunk through layout-agnostic ops and cancelled in pairs.
//
// Three greedy phases, so no pattern ever undoes another:
//  1. every nchw op X becomes transpose(X_nhwc(transpose(x, toNhwc)), toNchw);
//     constant filters are permuted to "ohwi" here, in bytes (weights are
//     resource blobs far above the folders' size limit);
//  2. transposes only move down (toward the outputs) through element-wise
//     ops, concat, slice, reductions, reshapes that only drop or insert
//     size-1 dimensions and reshapes that split or merge the channels (a
//     channel shuffle), and transpose(transpose(x)) composes, so
//     toNchw followed by the next op's toNhwc cancels;
//  3. a transpose that only moves size-1 dimensions becomes a reshape (the
//     classifier head: nhwc global pool [1,1,1,C] -> [1,C,1,1] -> reshape).
#include <cstring>
#include <numeric>

#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNCONVERTLAYOUT
#include "compiler/transforms/Passes.h.inc"

namespace {

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

struct LayoutCounters {
  int64_t converted = 0, filtersPermuted = 0, sunk = 0, cancelled = 0;
};

SmallVector<int64_t> permutationOf(TransposeOp t) {
  int64_t rank = cast<RankedTensorType>(t.getInput().getType()).getRank();
  if (std::optional<ArrayRef<int64_t>> p = t.getPermutation()) return SmallVector<int64_t>(*p);
  SmallVector<int64_t> reversed;
  for (int64_t i = rank - 1; i >= 0; --i) reversed.push_back(i);
  return reversed;
}

SmallVector<int64_t> invert(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = int64_t(i);
  return inv;
}

// out[i] = in[perm[i]]: the shape webnn.transpose gives.
SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out;
  for (int64_t p : perm) out.push_back(shape[p]);
  return out;
}

RankedTensorType permuteType(Type type, ArrayRef<int64_t> perm) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(permuteShape(t.getShape(), perm), t.getElementType());
}

Value transpose(PatternRewriter &rewriter, Location loc, Value v, ArrayRef<int64_t> perm) {
  return TransposeOp::create(rewriter, loc, v, rewriter.getDenseI64ArrayAttr(perm)).getResult();
}

// The constant's bytes in row-major order (splats expanded), or failure for
// sub-byte types and anything that is not a dense or resource constant.
FailureOr<std::vector<char>> constantBytes(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0 || !type.hasStaticShape()) return failure();
  size_t expected = size_t(type.getNumElements()) * (bits / 8);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != expected) return failure();
    return std::vector<char>(blob->getData().begin(), blob->getData().end());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || dense.getElementType().isInteger(1)) return failure();
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat()) {
    if (raw.size() != expected) return failure();
    return std::vector<char>(raw.begin(), raw.end());
  }
  std::vector<char> out(expected);
  for (size_t off = 0; off < expected; off += bits / 8) std::memcpy(out.data() + off, raw.data(), bits / 8);
  return out;
}

// A webnn.constant holding transpose(c reshaped to `shape`, perm): the data
// permuted at compile time, as a resource blob when the source was one.
FailureOr<Value> permuteConstant(PatternRewriter &rewriter, Location loc, ConstantOp constant,
                                 ArrayRef<int64_t> shape, ArrayRef<int64_t> perm, StringRef suffix) {
  auto type = cast<RankedTensorType>(constant.getType());
  FailureOr<std::vector<char>> bytes = constantBytes(constant.getValue());
  if (failed(bytes)) return failure();
  size_t elemBytes = type.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> outShape = permuteShape(shape, perm);
  auto outType = RankedTensorType::get(outShape, type.getElementType());
  int64_t rank = int64_t(shape.size());
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) inStrides[d] = inStrides[d + 1] * shape[d + 1];
  std::vector<char> out(bytes->size());
  SmallVector<int64_t> index(rank, 0);
  int64_t count = outType.getNumElements();
  for (int64_t n = 0; n < count; ++n) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) src += index[d] * inStrides[perm[d]];
    std::memcpy(out.data() + n * elemBytes, bytes->data() + src * elemBytes, elemBytes);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < outShape[d]) break;
      index[d] = 0;
    }
  }
  std::string name = constant.getName().value_or("constant").str() + suffix.str();
  ElementsAttr value;
  if (isa<DenseResourceElementsAttr>(constant.getValue())) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(out), alignof(std::max_align_t));
    value = DenseResourceElementsAttr::get(outType, name, std::move(blob));
  } else {
    value = DenseElementsAttr::getFromRawBuffer(outType, ArrayRef<char>(out));
  }
  return ConstantOp::create(rewriter, loc, outType, value, rewriter.getStringAttr(name)).getResult();
}

bool isRank4(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 4 && t.hasStaticShape();
}

// ---------------------------------------------------------------- phase 1

// Rewrites one nchw op in place of itself: transpose in, op with its layout
// option(s) set to nhwc, transpose out. `setNhwc` sets the options on the
// clone and returns false if the op cannot be converted.
LogicalResult convertOp(Operation *op, PatternRewriter &rewriter, LayoutCounters &counters,
                        function_ref<LogicalResult(Operation *)> setNhwc) {
  Value input = op->getOperand(0);
  if (!isRank4(input) || !isRank4(op->getResult(0)))
    return rewriter.notifyMatchFailure(op, "needs a static 4-D input and output");
  Location loc = op->getLoc();
  Value inNhwc = transpose(rewriter, loc, input, kToNhwc);
  Operation *clone = rewriter.clone(*op);
  clone->setOperand(0, inNhwc);
  clone->getResult(0).setType(permuteType(op->getResult(0).getType(), kToNhwc));
  if (failed(setNhwc(clone))) {
    rewriter.eraseOp(clone);
    return rewriter.notifyMatchFailure(op, "operands cannot be expressed in nhwc");
  }
  rewriter.replaceOp(op, transpose(rewriter, loc, clone->getResult(0), kToNchw));
  ++counters.converted;
  return success();
}

// A constant filter in `layout` becomes an "ohwi" constant; other filters
// keep their layout (every layout is valid with an nhwc input).
void permuteFilter(Operation *conv, PatternRewriter &rewriter, LayoutCounters &counters,
                   StringRef layout) {
  Value filter = conv->getOperand(1);
  auto constant = filter.getDefiningOp<ConstantOp>();
  if (!constant || layout == "ohwi" || !isRank4(filter)) return;
  SmallVector<int64_t> perm;
  for (char c : StringRef("ohwi")) perm.push_back(int64_t(layout.find(c)));
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(conv);
  FailureOr<Value> permuted =
      permuteConstant(rewriter, constant.getLoc(), constant,
                      cast<RankedTensorType>(filter.getType()).getShape(), perm, ".ohwi");
  if (failed(permuted)) return;
  conv->setOperand(1, *permuted);
  conv->setAttr("filterLayout", rewriter.getStringAttr("ohwi"));
  ++counters.filtersPermuted;
}

template <typename ConvOp>
struct ConvertConv : OpRewritePattern<ConvOp> {
  ConvertConv(MLIRContext *ctx, LayoutCounters &counters, StringRef defaultFilterLayout)
      : OpRewritePattern<ConvOp>(ctx), counters(counters), defaultFilterLayout(defaultFilterLayout) {}
  LogicalResult matchAndRewrite(ConvOp op, PatternRewriter &rewriter) const override {
    if (op.getInputLayout().value_or("nchw") != "nchw")
      return rewriter.notifyMatchFailure(op, "already nhwc");
    std::string filterLayout = op.getFilterLayout().value_or(defaultFilterLayout).str();
    return convertOp(op, rewriter, counters, [&](Operation *clone) {
      clone->setAttr("inputLayout", rewriter.getStringAttr("nhwc"));
      permuteFilter(clone, rewriter, counters, filterLayout);
      return success();
    });
  }
  LayoutCounters &counters;
  StringRef defaultFilterLayout;
};

template <typename LayoutOp>
struct ConvertLayoutOption : OpRewritePattern<LayoutOp> {
  ConvertLayoutOption(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern<LayoutOp>(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(LayoutOp op, PatternRewriter &rewriter) const override {
    if (op.getLayout().value_or("nchw") != "nchw")
      return rewriter.notifyMatchFailure(op, "already nhwc");
    return convertOp(op, rewriter, counters, [&](Operation *clone) {
      clone->setAttr("layout", rewriter.getStringAttr("nhwc"));
      return success();
    });
  }
  LayoutCounters &counters;
};

// batchNormalization over axis 1 of a 4-D tensor is over axis 3 in nhwc; its
// parameters are 1-D and need no change.
struct ConvertBatchNormalization : OpRewritePattern<BatchNormalizationOp> {
  ConvertBatchNormalization(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(BatchNormalizationOp op, PatternRewriter &rewriter) const override {
    if (op.getAxis().value_or(1) != 1) return rewriter.notifyMatchFailure(op, "axis is not 1");
    return convertOp(op, rewriter, counters, [&](Operation *clone) {
      clone->setAttr("axis", rewriter.getI64IntegerAttr(3));
      return success();
    });
  }
  LayoutCounters &counters;
};

// ---------------------------------------------------------------- phase 2

// transpose(transpose(x, p1), p2) = transpose(x, p1[p2[i]]); identity -> x.
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  ComposeTransposes(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner) return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> p1 = permutationOf(inner), p2 = permutationOf(op), composed;
    for (int64_t p : p2) composed.push_back(p1[p]);
    bool identity = true;
    for (size_t i = 0; i < composed.size(); ++i) identity &= composed[i] == int64_t(i);
    if (identity) {
      rewriter.replaceOp(op, inner.getInput());
      ++counters.cancelled;
    } else {
      rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), inner.getInput(), composed));
    }
    return success();
  }
  LayoutCounters &counters;
};

bool isSinkableUnary(Operation *op) {
  return isa<ReluOp, ClampOp, SigmoidOp, TanhOp, AbsOp, NegOp, ExpOp, LogOp, SqrtOp, HardSwishOp,
             GeluOp, EluOp, LeakyReluOp, HardSigmoidOp, LinearOp, IdentityOp, ErfOp, FloorOp,
             CeilOp, SoftplusOp, SoftsignOp, ReciprocalOp, SignOp, CastOp>(op);
}

bool isSinkableBinary(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp>(op);
}

// op(transpose(x, p)) -> transpose(op(x), p) for element-wise unary ops.
struct SinkThroughUnary : RewritePattern {
  SinkThroughUnary(MLIRContext *ctx, LayoutCounters &counters)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), counters(counters) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isSinkableUnary(op) || op->getNumOperands() != 1 || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not an element-wise unary op");
    auto t = op->getOperand(0).getDefiningOp<TransposeOp>();
    if (!t) return rewriter.notifyMatchFailure(op, "operand is not a transpose");
    SmallVector<int64_t> perm = permutationOf(t);
    Operation *clone = rewriter.clone(*op);
    clone->setOperand(0, t.getInput());
    clone->getResult(0).setType(permuteType(op->getResult(0).getType(), invert(perm)));
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(), clone->getResult(0), perm));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// quantizeLinear / dequantizeLinear of transpose(x, p) with one scale and
// zero point for the whole tensor (an int8 QDQ graph's activations) are
// element-wise: transpose(op(x), p), so the 8-bit tensors between
// quantizedConv2d layers stay nhwc.
template <typename QdqOp>
struct SinkThroughQdq : OpRewritePattern<QdqOp> {
  SinkThroughQdq(MLIRContext *ctx, LayoutCounters &counters) : OpRewritePattern<QdqOp>(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(QdqOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().template getDefiningOp<TransposeOp>();
    if (!t) return rewriter.notifyMatchFailure(op, "input is not a transpose");
    for (Value v : {op.getScale(), op.getZeroPoint()})
      if (cast<RankedTensorType>(v.getType()).getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "not per tensor");
    SmallVector<int64_t> perm = permutationOf(t);
    Operation *clone = rewriter.clone(*op);
    clone->setOperand(0, t.getInput());
    clone->getResult(0).setType(permuteType(op.getType(), invert(perm)));
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), clone->getResult(0), perm));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// op(transpose(a, p), transpose(b, p)) -> transpose(op(a, b), p), and
// op(transpose(a, p), constant) with the constant permuted by p's inverse.
struct SinkThroughBinary : RewritePattern {
  SinkThroughBinary(MLIRContext *ctx, LayoutCounters &counters)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), counters(counters) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isSinkableBinary(op)) return rewriter.notifyMatchFailure(op, "not a sinkable binary op");
    auto ta = op->getOperand(0).getDefiningOp<TransposeOp>();
    auto tb = op->getOperand(1).getDefiningOp<TransposeOp>();
    TransposeOp t = ta ? ta : tb;
    if (!t) return rewriter.notifyMatchFailure(op, "no transposed operand");
    SmallVector<int64_t> perm = permutationOf(t), inv = invert(perm);
    int64_t rank = int64_t(perm.size());
    if (cast<RankedTensorType>(op->getResult(0).getType()).getRank() != rank)
      return rewriter.notifyMatchFailure(op, "the transposed operand is broadcast to a higher rank");
    // Check every operand before creating anything: a pattern that fails
    // must leave the IR untouched.
    for (Value v : op->getOperands()) {
      if (auto tv = v.getDefiningOp<TransposeOp>(); tv && permutationOf(tv) == perm) continue;
      auto type = cast<RankedTensorType>(v.getType());
      if (!v.getDefiningOp<ConstantOp>() || type.getRank() > rank || !type.hasStaticShape() ||
          failed(constantBytes(v.getDefiningOp<ConstantOp>().getValue())))
        return rewriter.notifyMatchFailure(op, "other operand is neither transposed alike nor a constant");
    }
    SmallVector<Value, 2> operands;
    for (Value v : op->getOperands()) {
      if (auto tv = v.getDefiningOp<TransposeOp>(); tv && permutationOf(tv) == perm) {
        operands.push_back(tv.getInput());
        continue;
      }
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(rank - type.getRank(), 1);
      llvm::append_range(shape, type.getShape());
      auto constant = v.getDefiningOp<ConstantOp>();
      FailureOr<Value> permuted =
          permuteConstant(rewriter, constant.getLoc(), constant, shape, inv, ".nhwc");
      assert(succeeded(permuted) && "checked above");
      operands.push_back(*permuted);
    }
    Operation *clone = rewriter.clone(*op);
    clone->setOperands(operands);
    clone->getResult(0).setType(permuteType(op->getResult(0).getType(), inv));
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(), clone->getResult(0), perm));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// concat(transpose(x_k, p), axis) -> transpose(concat(x_k, p[axis]), p).
struct SinkThroughConcat : OpRewritePattern<ConcatOp> {
  SinkThroughConcat(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(ConcatOp op, PatternRewriter &rewriter) const override {
    SmallVector<int64_t> perm;
    SmallVector<Value> inputs;
    for (Value v : op.getInputs()) {
      auto t = v.getDefiningOp<TransposeOp>();
      if (!t || (!perm.empty() && permutationOf(t) != perm))
        return rewriter.notifyMatchFailure(op, "inputs are not all transposed alike");
      perm = permutationOf(t);
      inputs.push_back(t.getInput());
    }
    auto concat = ConcatOp::create(rewriter, op.getLoc(), inputs,
                                   rewriter.getI64IntegerAttr(perm[op.getAxis()]));
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), concat.getResult(), perm));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// reduce(transpose(x, p), axes) -> reduce(x, p[axes]), followed by the
// transpose the kept dimensions still need (none when they stay in order).
template <typename ReduceOp>
struct SinkThroughReduce : OpRewritePattern<ReduceOp> {
  SinkThroughReduce(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern<ReduceOp>(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(ReduceOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().template getDefiningOp<TransposeOp>();
    if (!t) return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm = permutationOf(t);
    int64_t rank = int64_t(perm.size());
    SmallVector<int64_t> axes;
    if (std::optional<ArrayRef<int64_t>> given = op.getAxes()) axes.assign(given->begin(), given->end());
    else for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    SmallVector<int64_t> newAxes;
    for (int64_t a : axes) newAxes.push_back(perm[a]);
    llvm::sort(newAxes);
    bool keep = op.getKeepDimensions().value_or(false);
    SmallVector<int64_t> after;  // the transpose the reduced tensor needs
    if (keep) {
      after = perm;
    } else {
      SmallVector<int64_t> kept;  // source dims of the result, in result order
      for (int64_t i = 0; i < rank; ++i)
        if (!llvm::is_contained(axes, i)) kept.push_back(perm[i]);
      SmallVector<int64_t> sorted(kept);
      llvm::sort(sorted);
      for (int64_t k : kept) after.push_back(int64_t(llvm::find(sorted, k) - sorted.begin()));
    }
    Operation *clone = rewriter.clone(*op);
    clone->setOperand(0, t.getInput());
    clone->setAttr("axes", rewriter.getDenseI64ArrayAttr(newAxes));
    clone->getResult(0).setType(permuteType(op.getType(), invert(after)));
    Value result = clone->getResult(0);
    bool identity = true;
    for (size_t i = 0; i < after.size(); ++i) identity &= after[i] == int64_t(i);
    if (!identity) result = transpose(rewriter, op.getLoc(), result, after);
    rewriter.replaceOp(op, result);
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// slice(transpose(x, p)) -> transpose(slice(x), p): output dimension i of
// the transpose is input dimension p[i], so its window moves there.
struct SinkThroughSlice : OpRewritePattern<SliceOp> {
  SinkThroughSlice(MLIRContext *ctx, LayoutCounters &counters) : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t) return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm = permutationOf(t);
    size_t rank = perm.size();
    ArrayRef<int64_t> starts = op.getStarts(), sizes = op.getSizes();
    if (starts.size() != rank || sizes.size() != rank)
      return rewriter.notifyMatchFailure(op, "window rank differs from the input's");
    SmallVector<int64_t> newStarts(rank), newSizes(rank), newStrides(rank, 1);
    std::optional<ArrayRef<int64_t>> strides = op.getStrides();
    if (strides && strides->size() != rank) return rewriter.notifyMatchFailure(op, "strides rank");
    for (size_t i = 0; i < rank; ++i) {
      newStarts[perm[i]] = starts[i];
      newSizes[perm[i]] = sizes[i];
      if (strides) newStrides[perm[i]] = (*strides)[i];
    }
    auto inner = SliceOp::create(rewriter, op.getLoc(), permuteType(op.getType(), invert(perm)), t.getInput(),
                                 rewriter.getDenseI64ArrayAttr(newStarts), rewriter.getDenseI64ArrayAttr(newSizes),
                                 strides ? rewriter.getDenseI64ArrayAttr(newStrides) : DenseI64ArrayAttr());
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), inner.getResult(), perm));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

bool isPermutation(ArrayRef<int64_t> perm, std::initializer_list<int64_t> want) {
  return perm.size() == want.size() && std::equal(perm.begin(), perm.end(), want.begin());
}

// Channel shuffle (ShuffleNet: reshape [N,C,H,W] -> [N,g,C/g,H,W],
// transpose the two channel factors, reshape back) done on an nhwc tensor:
// splitting or merging the channel dimension moves through the layout
// transpose, so the shuffle becomes one permute of the innermost dimensions
// and the layout transposes around it cancel with their neighbours'.
//
// reshape(transpose(x [N,H,W,C], toNchw), [N,a,b,H,W])
//   -> transpose(reshape(x, [N,H,W,a,b]), [0,3,4,1,2])
struct SplitChannelsThroughLayout : OpRewritePattern<ReshapeOp> {
  SplitChannelsThroughLayout(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t || !isPermutation(permutationOf(t), {0, 3, 1, 2}))
      return rewriter.notifyMatchFailure(op, "input is not an nhwc -> nchw transpose");
    auto in = cast<RankedTensorType>(t.getInput().getType());
    ArrayRef<int64_t> to = op.getNewShape();
    if (!in.hasStaticShape() || to.size() != 5) return rewriter.notifyMatchFailure(op, "not a 5-D split");
    int64_t n = in.getDimSize(0), h = in.getDimSize(1), w = in.getDimSize(2), c = in.getDimSize(3);
    if (to[0] != n || to[3] != h || to[4] != w || to[1] * to[2] != c)
      return rewriter.notifyMatchFailure(op, "does not split only the channels");
    SmallVector<int64_t> shape{n, h, w, to[1], to[2]};
    auto split = ReshapeOp::create(rewriter, op.getLoc(), RankedTensorType::get(shape, in.getElementType()),
                                   t.getInput(), rewriter.getDenseI64ArrayAttr(shape));
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), split.getResult(), {0, 3, 4, 1, 2}));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// reshape(transpose(y [N,H,W,d3,d4], [0,3,4,1,2] or [0,4,3,1,2]), [N,C,H,W])
//   -> transpose(reshape(y or transpose(y, [0,1,2,4,3]), [N,H,W,C]), toNchw)
struct MergeChannelsThroughLayout : OpRewritePattern<ReshapeOp> {
  MergeChannelsThroughLayout(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t) return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm = permutationOf(t);
    bool inOrder = isPermutation(perm, {0, 3, 4, 1, 2}), swapped = isPermutation(perm, {0, 4, 3, 1, 2});
    if (!inOrder && !swapped) return rewriter.notifyMatchFailure(op, "not channel factors moved before H, W");
    auto in = cast<RankedTensorType>(t.getInput().getType());
    ArrayRef<int64_t> to = op.getNewShape();
    if (!in.hasStaticShape() || to.size() != 4) return rewriter.notifyMatchFailure(op, "not a 4-D merge");
    int64_t n = in.getDimSize(0), h = in.getDimSize(1), w = in.getDimSize(2);
    int64_t c = in.getDimSize(3) * in.getDimSize(4);
    if (to[0] != n || to[1] != c || to[2] != h || to[3] != w)
      return rewriter.notifyMatchFailure(op, "does not merge only the channels");
    Value y = t.getInput();
    if (swapped) y = transpose(rewriter, op.getLoc(), y, {0, 1, 2, 4, 3});
    SmallVector<int64_t> shape{n, h, w, c};
    auto merged = ReshapeOp::create(rewriter, op.getLoc(), RankedTensorType::get(shape, in.getElementType()), y,
                                    rewriter.getDenseI64ArrayAttr(shape));
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), merged.getResult(), kToNchw));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// reshape(transpose(x, p), s) where the reshape only drops or inserts size-1
// dimensions (a conv1d run as a conv2d with H = 1: [N,C,1,W] <-> [N,C,W]):
// reshape x to s with its larger dimensions kept in x's order, then
// transpose them into s's order. The transpose moves on toward the next
// layout transpose, with which it composes.
struct SinkThroughUnitReshape : OpRewritePattern<ReshapeOp> {
  SinkThroughUnitReshape(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t) return rewriter.notifyMatchFailure(op, "input is not a transpose");
    auto in = cast<RankedTensorType>(t.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    if (!in.hasStaticShape() || !out.hasStaticShape()) return rewriter.notifyMatchFailure(op, "dynamic shape");
    SmallVector<int64_t> perm = permutationOf(t);
    // The larger dimensions: as x stores them, and as the reshape's result
    // orders them (x's dimension index of each).
    SmallVector<int64_t> inOrder, outOrder;
    for (int64_t i = 0; i < in.getRank(); ++i)
      if (in.getDimSize(i) != 1) inOrder.push_back(i);
    for (int64_t p : perm)
      if (in.getDimSize(p) != 1) outOrder.push_back(p);
    SmallVector<int64_t> outLarge;  // positions of the result's larger dimensions
    for (int64_t i = 0; i < out.getRank(); ++i)
      if (out.getDimSize(i) != 1) outLarge.push_back(i);
    if (outLarge.size() != outOrder.size()) return rewriter.notifyMatchFailure(op, "not only size-1 dimensions change");
    for (size_t k = 0; k < outLarge.size(); ++k)
      if (out.getDimSize(outLarge[k]) != in.getDimSize(outOrder[k]))
        return rewriter.notifyMatchFailure(op, "not only size-1 dimensions change");
    bool keepsOrder = true;
    for (size_t i = 0; i < perm.size(); ++i) keepsOrder &= perm[i] == int64_t(i);
    if (keepsOrder) return rewriter.notifyMatchFailure(op, "identity transpose");
    // z: the result's shape with its larger dimensions in x's order; then
    // result = transpose(z, q) with q taking each larger one to its place.
    SmallVector<int64_t> zShape(out.getShape()), q(out.getRank());
    for (int64_t i = 0; i < out.getRank(); ++i) q[i] = i;
    for (size_t k = 0; k < outLarge.size(); ++k) {
      // The k-th larger dimension of the result is x's dimension outOrder[k],
      // which is the j-th larger one in x's order: z keeps it at slot outLarge[j].
      size_t j = size_t(llvm::find(inOrder, outOrder[k]) - inOrder.begin());
      zShape[outLarge[j]] = in.getDimSize(outOrder[k]);
      q[outLarge[k]] = outLarge[j];
    }
    auto z = ReshapeOp::create(rewriter, op.getLoc(), RankedTensorType::get(zShape, in.getElementType()),
                               t.getInput(), rewriter.getDenseI64ArrayAttr(zShape));
    bool identity = true;
    for (int64_t i = 0; i < out.getRank(); ++i) identity &= q[i] == i;
    rewriter.replaceOp(op, identity ? z.getResult() : transpose(rewriter, op.getLoc(), z.getResult(), q));
    ++counters.sunk;
    return success();
  }
  LayoutCounters &counters;
};

// ---------------------------------------------------------------- phase 3

// A transpose that keeps every dimension larger than 1 in order moves no
// data: it is a reshape.
struct TransposeAsReshape : OpRewritePattern<TransposeOp> {
  TransposeAsReshape(MLIRContext *ctx, LayoutCounters &counters)
      : OpRewritePattern(ctx), counters(counters) {}
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    if (!inType.hasStaticShape()) return rewriter.notifyMatchFailure(op, "dynamic shape");
    int64_t last = -1;
    for (int64_t p : permutationOf(op)) {
      if (inType.getDimSize(p) == 1) continue;
      if (p < last) return rewriter.notifyMatchFailure(op, "moves data");
      last = p;
    }
    auto outType = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getInput(),
                                           rewriter.getDenseI64ArrayAttr(outType.getShape()));
    ++counters.cancelled;
    return success();
  }
  LayoutCounters &counters;
};

struct ConvertLayoutPass : impl::WebNNConvertLayoutBase<ConvertLayoutPass> {
  using Base::Base;
  void runOnOperation() override {
    if (layout != "nhwc") {
      getOperation().emitError() << "--webnn-convert-layout: unsupported layout '" << layout
                                 << "' (expected \"nhwc\")";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    LayoutCounters counters;
    RewritePatternSet convert(ctx);
    convert.add<ConvertConv<Conv2dOp>>(ctx, counters, "oihw");
    convert.add<ConvertConv<ConvTranspose2dOp>>(ctx, counters, "iohw");
    convert.add<ConvertLayoutOption<AveragePool2dOp>, ConvertLayoutOption<MaxPool2dOp>,
                ConvertLayoutOption<L2Pool2dOp>, ConvertLayoutOption<InstanceNormalizationOp>,
                ConvertBatchNormalization>(ctx, counters);
    RewritePatternSet sink(ctx);
    sink.add<ComposeTransposes, SinkThroughUnary, SinkThroughBinary, SinkThroughConcat, SinkThroughSlice,
             SplitChannelsThroughLayout, MergeChannelsThroughLayout, SinkThroughUnitReshape,
             SinkThroughReduce<ReduceL1Op>, SinkThroughReduce<ReduceL2Op>,
             SinkThroughReduce<ReduceLogSumOp>, SinkThroughReduce<ReduceLogSumExpOp>,
             SinkThroughReduce<ReduceMaxOp>, SinkThroughReduce<ReduceMeanOp>,
             SinkThroughReduce<ReduceMinOp>, SinkThroughReduce<ReduceProductOp>,
             SinkThroughReduce<ReduceSumOp>, SinkThroughReduce<ReduceSumSquareOp>,
             SinkThroughQdq<QuantizeLinearOp>, SinkThroughQdq<DequantizeLinearOp>>(ctx, counters);
    RewritePatternSet reshape(ctx);
    reshape.add<TransposeAsReshape>(ctx, counters);
    // Ops the patterns replace are erased as they go; the driver's own
    // folding is off so its constant folders do not race the patterns.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(convert), config)) ||
        failed(applyPatternsGreedily(getOperation(), std::move(sink), config)) ||
        failed(applyPatternsGreedily(getOperation(), std::move(reshape), config)))
      return signalPassFailure();
    numOpsConverted += counters.converted;
    numFiltersPermuted += counters.filtersPermuted;
    numOpsSunk += counters.sunk;
    numTransposesCancelled += counters.cancelled;
    StringRef pass = getArgument();
    recordRewrites(ctx, pass, "ops-converted", counters.converted);
    recordRewrites(ctx, pass, "filters-permuted", counters.filtersPermuted);
    recordRewrites(ctx, pass, "ops-sunk", counters.sunk);
    recordRewrites(ctx, pass, "transposes-removed", counters.cancelled);
  }
};

}  // namespace
}  // namespace mlir::webnn
