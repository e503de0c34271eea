// --webnn-fuse-qdq: the quantizeLinear / dequantizeLinear pairs a static int8
// QDQ export (ONNX Runtime's quantizer, bench/quantize_qdq.py) puts around
// each matmul become one webnn.quantizedMatmul (docs/FUSED_OPS.md), which the
// CPU backend runs on 8-bit integers (u8 x s8 -> s32 on AVX512-VNNI):
//
//   a' = dequantizeLinear(quantizeLinear(x, sa, za), sa, za)   (or of an int8/uint8 x)
//   b' = dequantizeLinear(w, sb, zb)                           (w int8/uint8, sb per column)
//      | dequantizeLinear(quantizeLinear(t, sb, zb), sb, zb)   (an activation)
//   y  = matmul(a', b')
//   [r = dequantizeLinear(quantizeLinear(y, so, zo), so, zo)]  (every user of the quantized y)
//   [r = add(r, bias[N])]
//
// Only exact matches fold: per-tensor constant scales and zero points on a
// (and on an activation b), per-tensor or per-column ones on a rank-2
// integer weight, the pairs' scale and zero point equal, no broadcasting
// beyond a rank-2 b shared by every batch, K <= 32768 (products summed
// exactly in int32). The op quantizes a float operand itself with the same
// rule as quantizeLinear, so the fused graph computes what the QDQ graph
// does, but for the float matmul's summation order. A QDQ gemm with a
// constant 8-bit weight (a classifier) becomes a quantizedMatmul too.
//
// Convolutions (docs/FUSED_OPS.md, "quantizedConv2d"; off with convs=false,
// for GPU targets):
//
//   y = conv2d(dequantizeLinear(xi, s, z), dequantizeLinear(w, sw, 0) [, bias])
//   [q = quantizeLinear(y, so, zo)]                     (its single user)
//
// becomes one channels-last quantizedConv2d on the 8-bit xi, 8-bit out when
// q follows, so q(conv) -> dq -> conv chains hand uint8 from layer to layer;
// then a residual block's q([relu](dq(conv) + dq(r))) joins the conv before
// it. The kernel sums exactly in int32; the result differs from the float
// QDQ graph only where a value sits within float rounding of a half step.
//
// Max pools between them (with convs):
//
//   q(maxPool2d(dq(xi, s, z)), s, z)  ->  maxPool2d(xi)        (s > 0)
//
// max commutes with the increasing dequantization, and q undoes dq exactly,
// so the 8-bit pool is bit-identical; only windows that each hold a real
// element fold (dilation 1, floor rounding, padding smaller than the window),
// since an empty window's 0 would not be dq's 0.
#include <cmath>

#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSEQDQ
#include "compiler/transforms/Passes.h.inc"

namespace {

struct QdqCounters {
  int64_t matmuls = 0, convs = 0, gemms = 0, residuals = 0, pools = 0, opsReplaced = 0;
};

bool isInt8Type(Type t) { return t.isInteger(8); }

int64_t numElements(Value v) { return cast<RankedTensorType>(v.getType()).getNumElements(); }

// Two constants with the same type and elements (or the same value).
bool sameConstant(Value x, Value y) {
  if (x == y) return true;
  if (x.getType() != y.getType()) return false;
  if (auto f = floatConstantValues(x)) return f == floatConstantValues(y);
  if (auto i = intConstantValues(x)) return i == intConstantValues(y);
  return false;
}

bool isConstant(Value v) { return constantThroughReshapes(v) != nullptr; }

// Whether a scale/zero point of `input` has one element per column of a rank-2
// input: shape [1, N] or [N].
bool perColumn(Value param, RankedTensorType input) {
  auto t = cast<RankedTensorType>(param.getType());
  if (input.getRank() != 2 || t.getRank() < 1 || t.getShape().back() != input.getDimSize(1)) return false;
  return t.getNumElements() == input.getDimSize(1);
}

// `v` (a constant, maybe under reshapes) as a constant op of v's type: the
// kernels read scales, zero points and biases as constants, and
// fold-constants keeps reshapes of resource-backed constants.
Value materialize(PatternRewriter &rewriter, Location loc, Value v) {
  if (v.getDefiningOp<ConstantOp>()) return v;
  auto type = cast<RankedTensorType>(v.getType());
  if (auto f = floatConstantValues(v)) return floatConstant(rewriter, loc, type.getShape(), type.getElementType(), *f);
  if (auto i = intConstantValues(v)) return intConstant(rewriter, loc, type.getShape(), type.getElementType(), *i);
  return v;
}

// One operand of the matmul, read through its dequantizeLinear.
struct QuantOperand {
  Value x, scale, zeroPoint;
  SmallVector<Operation *> ops;  // the dq (and q) that may become dead
};

std::optional<QuantOperand> matchOperand(Value v, bool allowPerColumn) {
  auto dq = v.getDefiningOp<DequantizeLinearOp>();
  if (!dq || !cast<RankedTensorType>(dq.getType()).getElementType().isF32()) return std::nullopt;
  auto qType = cast<RankedTensorType>(dq.getInput().getType());
  if (!isInt8Type(qType.getElementType()) || !qType.hasStaticShape()) return std::nullopt;
  Value scale = dq.getScale(), zp = dq.getZeroPoint();
  if (!isConstant(scale) || !isConstant(zp)) return std::nullopt;
  QuantOperand r{dq.getInput(), scale, zp, {dq}};
  bool perTensor = numElements(scale) == 1 && numElements(zp) == 1;
  if (auto q = dq.getInput().getDefiningOp<QuantizeLinearOp>();
      q && perTensor && cast<RankedTensorType>(q.getInput().getType()).getElementType().isF32() &&
      sameConstant(q.getScale(), scale) && sameConstant(q.getZeroPoint(), zp)) {
    r.x = q.getInput();
    r.ops.push_back(q);
    return r;
  }
  if (perTensor) return r;
  // Per-column parameters: only on a rank-2 integer weight.
  if (!allowPerColumn || !perColumn(scale, qType) || (numElements(zp) != 1 && !perColumn(zp, qType)))
    return std::nullopt;
  return r;
}

// A per-tensor constant (one element) of float or int8/uint8 type.
bool perTensorConstant(Value v) { return isConstant(v) && numElements(v) == 1; }

struct FuseQdqMatmul : OpRewritePattern<MatmulOp> {
  FuseQdqMatmul(MLIRContext *ctx, QdqCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    auto yType = cast<RankedTensorType>(mm.getType());
    auto aType = cast<RankedTensorType>(mm.getA().getType());
    auto bType = cast<RankedTensorType>(mm.getB().getType());
    if (!yType.getElementType().isF32() || !aType.hasStaticShape() || !bType.hasStaticShape() ||
        aType.getRank() < 2 || bType.getRank() < 2)
      return rewriter.notifyMatchFailure(mm, "not a static float32 matmul of rank >= 2");
    int64_t K = aType.getShape().back(), N = bType.getShape().back();
    if (K > 32768) return rewriter.notifyMatchFailure(mm, "K > 32768: the int32 sum could overflow");
    // b shared by every batch, or the same batch dimensions: no broadcasting.
    if (bType.getRank() != 2 &&
        (bType.getRank() != aType.getRank() || aType.getShape().drop_back(2) != bType.getShape().drop_back(2)))
      return rewriter.notifyMatchFailure(mm, "the matmul broadcasts");
    SmallVector<int64_t> outShape(aType.getShape());
    outShape.back() = N;
    if (yType.getShape() != ArrayRef<int64_t>(outShape))
      return rewriter.notifyMatchFailure(mm, "the matmul broadcasts a");
    std::optional<QuantOperand> a = matchOperand(mm.getA(), false);
    if (!a) return rewriter.notifyMatchFailure(mm, "a is not a per-tensor dequantizeLinear");
    std::optional<QuantOperand> b = matchOperand(mm.getB(), true);
    if (!b) return rewriter.notifyMatchFailure(mm, "b is not a dequantizeLinear the kernel can run");
    if (cast<RankedTensorType>(b->x.getType()).getRank() != 2 && numElements(b->scale) != 1)
      return rewriter.notifyMatchFailure(mm, "per-column scales on a batched b");

    SmallVector<Operation *> dead{mm};
    dead.append(a->ops);
    dead.append(b->ops);
    // The output: quantized and dequantized again by every user, or float.
    Value outScale, outZp;
    SmallVector<Value> replaced{mm.getResult()};
    if (mm->hasOneUse()) {
      if (auto q = dyn_cast<QuantizeLinearOp>(*mm->user_begin());
          q && perTensorConstant(q.getScale()) && perTensorConstant(q.getZeroPoint()) &&
          isInt8Type(cast<RankedTensorType>(q.getType()).getElementType()) && !q->use_empty()) {
        bool allDq = llvm::all_of(q->getUsers(), [&](Operation *user) {
          auto dq = dyn_cast<DequantizeLinearOp>(user);
          return dq && dq.getInput() == q.getResult() && dq.getType() == yType &&
                 sameConstant(dq.getScale(), q.getScale()) && sameConstant(dq.getZeroPoint(), q.getZeroPoint());
        });
        if (allDq) {
          outScale = q.getScale();
          outZp = q.getZeroPoint();
          replaced.clear();
          for (Operation *user : llvm::make_early_inc_range(q->getUsers())) replaced.push_back(user->getResult(0));
          dead.push_back(q);
        }
      }
    }
    // The output's parameters are read where the matmul is.
    DominanceInfo dom;
    if (outScale && (!dom.properlyDominates(outScale, mm) || !dom.properlyDominates(outZp, mm)))
      return rewriter.notifyMatchFailure(mm, "the output's scale is defined after the matmul");
    // A constant bias over the last axis added to the (single) result.
    Value bias, biasSource;
    Operation *biasAdd = nullptr;
    if (replaced.size() == 1 && replaced[0].hasOneUse()) {
      if (auto add = dyn_cast<AddOp>(*replaced[0].user_begin()); add && add.getType() == yType) {
        Value c = otherOperand(add, replaced[0]);
        auto cType = cast<RankedTensorType>(c.getType());
        bool leadingOnes = llvm::all_of(cType.getShape().drop_back(), [](int64_t d) { return d == 1; });
        if (c != replaced[0] && isConstant(c) && dom.properlyDominates(c, mm) && cType.getElementType().isF32() && cType.getRank() >= 1 &&
            cType.getRank() <= yType.getRank() && cType.getShape().back() == N && leadingOnes) {
          biasAdd = add;
          biasSource = c;
        }
      }
    }

    Location loc = mm.getLoc();
    rewriter.setInsertionPoint(mm);
    if (biasSource) {
      std::optional<SmallVector<double>> values = floatConstantValues(biasSource);
      if (!values) return rewriter.notifyMatchFailure(mm, "unreadable bias constant");
      bias = floatConstant(rewriter, loc, {N}, rewriter.getF32Type(), *values);
    }
    auto m = [&](Value v) { return v ? materialize(rewriter, loc, v) : v; };
    auto fused = QuantizedMatmulOp::create(rewriter, loc, a->x, m(a->scale), m(a->zeroPoint), b->x, m(b->scale),
                                           m(b->zeroPoint), m(outScale), m(outZp), bias);
    // Ops between the matmul and the last replaced value keep their place:
    // the fused op sits where the matmul was, before every user.
    if (biasAdd) {
      rewriter.replaceOp(biasAdd, fused.getResult());
    } else {
      for (Value r : replaced) rewriter.replaceAllUsesWith(r, fused.getResult());
    }
    for (Value r : replaced)
      if (r.getDefiningOp() != mm.getOperation()) dead.push_back(r.getDefiningOp());
    ++counters.matmuls;
    counters.opsReplaced += eraseDeadOps(rewriter, dead) + (biasAdd ? 1 : 0);
    return success();
  }

  QdqCounters &counters;
};

// dequantizeLinear of constants (q, scale and zero point) evaluated as the
// runtime kernel does, (q - zp) * scale rounded once to float32, with the
// blockwise broadcast of the scale; nullopt when an operand is not readable.
std::optional<SmallVector<float>> evaluateDequantize(DequantizeLinearOp dq) {
  auto qType = cast<RankedTensorType>(dq.getInput().getType());
  auto sType = cast<RankedTensorType>(dq.getScale().getType());
  if (!qType.hasStaticShape() || !sType.hasStaticShape() || !sType.getElementType().isF32() ||
      sType.getRank() > qType.getRank())
    return std::nullopt;
  std::optional<SmallVector<int64_t>> q = intConstantValues(dq.getInput());
  std::optional<SmallVector<int64_t>> zp = intConstantValues(dq.getZeroPoint());
  std::optional<SmallVector<double>> scale = floatConstantValues(dq.getScale());
  if (!q || !zp || !scale || zp->size() != scale->size()) return std::nullopt;
  int64_t rank = qType.getRank();
  SmallVector<int64_t> sShape(rank - sType.getRank(), 1);
  llvm::append_range(sShape, sType.getShape());
  for (int64_t d = 0; d < rank; ++d)
    if (sShape[d] < 1 || qType.getDimSize(d) % sShape[d] != 0) return std::nullopt;
  SmallVector<float> out(q->size());
  SmallVector<int64_t> idx(rank, 0);
  for (size_t i = 0; i < q->size(); ++i) {
    int64_t s = 0;
    for (int64_t d = 0; d < rank; ++d) s = s * sShape[d] + idx[d] / (qType.getDimSize(d) / sShape[d]);
    out[i] = float(double((*q)[i] - (*zp)[s]) * (*scale)[s]);
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == qType.getDimSize(d); --d) idx[d] = 0;
  }
  return out;
}

// The permutation of filter values from `layout` (a WebNN conv2d filter
// layout) to ohwi, or nullopt for an unknown layout.
std::optional<SmallVector<int64_t>> filterToOhwi(ArrayRef<int64_t> values, ArrayRef<int64_t> shape, StringRef layout,
                                                 SmallVector<int64_t> *ohwiShape) {
  if (layout.size() != 4 || shape.size() != 4) return std::nullopt;
  int64_t pos[4];  // where o, h, w and i are in `layout`
  const char letters[4] = {'o', 'h', 'w', 'i'};
  for (int d = 0; d < 4; ++d) {
    size_t at = layout.find(letters[d]);
    if (at == StringRef::npos) return std::nullopt;
    pos[d] = int64_t(at);
  }
  SmallVector<int64_t> strides(4, 1);
  for (int d = 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  int64_t O = shape[pos[0]], KH = shape[pos[1]], KW = shape[pos[2]], I = shape[pos[3]];
  *ohwiShape = {O, KH, KW, I};
  SmallVector<int64_t> out;
  out.reserve(values.size());
  for (int64_t o = 0; o < O; ++o)
    for (int64_t h = 0; h < KH; ++h)
      for (int64_t w = 0; w < KW; ++w)
        for (int64_t i = 0; i < I; ++i)
          out.push_back(values[o * strides[pos[0]] + h * strides[pos[1]] + w * strides[pos[2]] + i * strides[pos[3]]]);
  return out;
}

// conv2d(dq(xi, s, z), dq(w, sw, 0) [, bias]) [-> q(., so, zo)] ->
// quantizedConv2d (docs/FUSED_OPS.md), channels-last with transposes of the
// 8-bit tensors at its boundaries for an nchw conv; --webnn-convert-layout
// sinks them through the quantize/dequantize ops between layers, where they
// cancel, so a chain of quantized convolutions hands 8-bit nhwc activations
// from one to the next.
struct FuseQdqConv : OpRewritePattern<Conv2dOp> {
  FuseQdqConv(MLIRContext *ctx, QdqCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(Conv2dOp conv, PatternRewriter &rewriter) const override {
    auto yType = cast<RankedTensorType>(conv.getType());
    if (!yType.getElementType().isF32() || !yType.hasStaticShape() || yType.getRank() != 4)
      return rewriter.notifyMatchFailure(conv, "not a static float32 conv2d");
    StringRef inputLayout = conv.getInputLayout().value_or("nchw");
    StringRef filterLayout = conv.getFilterLayout().value_or("oihw");
    if (inputLayout != "nchw" && inputLayout != "nhwc") return rewriter.notifyMatchFailure(conv, "input layout");
    auto dqIn = conv.getInput().getDefiningOp<DequantizeLinearOp>();
    if (!dqIn) return rewriter.notifyMatchFailure(conv, "the input is not a dequantizeLinear");
    auto xType = cast<RankedTensorType>(dqIn.getInput().getType());
    if (!isInt8Type(xType.getElementType()) || !xType.hasStaticShape() || !perTensorConstant(dqIn.getScale()) ||
        !perTensorConstant(dqIn.getZeroPoint()))
      return rewriter.notifyMatchFailure(conv, "the input is not a per-tensor 8-bit dequantizeLinear");
    auto dqW = conv.getFilter().getDefiningOp<DequantizeLinearOp>();
    if (!dqW) return rewriter.notifyMatchFailure(conv, "the filter is not a dequantizeLinear");
    auto wType = cast<RankedTensorType>(dqW.getInput().getType());
    if (!wType.getElementType().isSignlessInteger(8) && !wType.getElementType().isSignedInteger(8))
      return rewriter.notifyMatchFailure(conv, "the filter is not int8");
    std::optional<SmallVector<int64_t>> w = intConstantValues(dqW.getInput());
    std::optional<SmallVector<int64_t>> zw = intConstantValues(dqW.getZeroPoint());
    std::optional<SmallVector<double>> sw = floatConstantValues(dqW.getScale());
    if (!w || !zw || !sw || llvm::any_of(*zw, [](int64_t z) { return z != 0; }))
      return rewriter.notifyMatchFailure(conv, "the filter is not a constant with zero points 0");
    SmallVector<int64_t> ohwiShape;
    std::optional<SmallVector<int64_t>> ohwi = filterToOhwi(*w, wType.getShape(), filterLayout, &ohwiShape);
    if (!ohwi) return rewriter.notifyMatchFailure(conv, "filter layout");
    int64_t O = ohwiShape[0];
    // One scale, or one per output channel along the filter's o axis.
    auto sType = cast<RankedTensorType>(dqW.getScale().getType());
    if (sw->size() != 1) {
      int64_t oAxis = int64_t(filterLayout.find('o')) - (4 - sType.getRank());
      if (int64_t(sw->size()) != O || sType.getRank() > 4 || oAxis < 0 || sType.getDimSize(oAxis) != O)
        return rewriter.notifyMatchFailure(conv, "filter scales are not per output channel");
    }
    if (ohwiShape[1] * ohwiShape[2] * ohwiShape[3] > 32768)
      return rewriter.notifyMatchFailure(conv, "C / groups * KH * KW > 32768: the int32 sum could overflow");
    std::optional<SmallVector<double>> bias;
    if (Value b = conv.getBias()) {
      if (auto dqB = b.getDefiningOp<DequantizeLinearOp>()) {
        if (std::optional<SmallVector<float>> v = evaluateDequantize(dqB)) bias = SmallVector<double>(v->begin(), v->end());
      } else {
        bias = floatConstantValues(b);
      }
      if (!bias || int64_t(bias->size()) != O) return rewriter.notifyMatchFailure(conv, "the bias is not a constant");
    }
    // The output: quantized by its single user, or float.
    QuantizeLinearOp q;
    if (conv->hasOneUse())
      if (auto user = dyn_cast<QuantizeLinearOp>(*conv->user_begin());
          user && perTensorConstant(user.getScale()) && perTensorConstant(user.getZeroPoint()) &&
          isInt8Type(cast<RankedTensorType>(user.getType()).getElementType()))
        q = user;
    DominanceInfo dom;
    if (q && (!dom.properlyDominates(q.getScale(), conv) || !dom.properlyDominates(q.getZeroPoint(), conv)))
      return rewriter.notifyMatchFailure(conv, "the output's scale is defined after the conv");

    Location loc = conv.getLoc();
    rewriter.setInsertionPoint(conv);
    bool nchw = inputLayout == "nchw";
    Value x = dqIn.getInput();
    if (nchw)
      x = TransposeOp::create(rewriter, loc, x, rewriter.getDenseI64ArrayAttr({0, 2, 3, 1})).getResult();
    Value filter = intConstant(rewriter, loc, ohwiShape, wType.getElementType(), *ohwi);
    SmallVector<double> scales(*sw);
    if (scales.size() == 1) scales.assign(O, scales[0]);
    Value filterScale = floatConstant(rewriter, loc, {O}, rewriter.getF32Type(), scales);
    Value biasValue = bias ? floatConstant(rewriter, loc, {O}, rewriter.getF32Type(), *bias) : Value();
    auto m = [&](Value v) { return v ? materialize(rewriter, loc, v) : v; };
    auto fused = QuantizedConv2dOp::create(
        rewriter, loc, x, m(dqIn.getScale()), m(dqIn.getZeroPoint()), filter, filterScale, biasValue,
        q ? m(q.getScale()) : Value(), q ? m(q.getZeroPoint()) : Value(), Value(), Value(), Value(), Value(),
        Value(), conv.getPaddingAttr(), conv.getStridesAttr(), conv.getDilationsAttr(), conv.getGroupsAttr(),
        StringAttr());
    Value result = fused.getResult();
    if (nchw)
      result = TransposeOp::create(rewriter, loc, result, rewriter.getDenseI64ArrayAttr({0, 3, 1, 2})).getResult();
    SmallVector<Operation *> dead{conv, dqIn, dqW};
    if (Value b = conv.getBias())
      if (Operation *def = b.getDefiningOp()) dead.push_back(def);
    if (q) {
      rewriter.replaceOp(q, result);
    } else {
      rewriter.replaceOp(conv, result);
      dead.erase(dead.begin());
    }
    ++counters.convs;
    counters.opsReplaced += eraseDeadOps(rewriter, dead);
    return success();
  }

  QdqCounters &counters;
};

// A residual block's join: q([relu](dq(conv) + dq(r))) where conv is a
// quantizedConv2d's 8-bit output (through the nhwc -> nchw transpose an
// nchw graph has) read by that dq alone, and r any 8-bit tensor of the
// output's type, per-tensor parameters throughout -> one quantizedConv2d
// with the residual, its conv's own q/dq parameters, the relu, and the
// final q's parameters. The fused op sits where the add was, so r is
// defined before it whichever branch is longer.
struct FuseQdqResidual : OpRewritePattern<AddOp> {
  FuseQdqResidual(MLIRContext *ctx, QdqCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  // The quantizedConv2d an operand of the add dequantizes, or null.
  static QuantizedConv2dOp convSide(Value v, bool *viaTranspose, DequantizeLinearOp *dqOut) {
    auto dq = v.getDefiningOp<DequantizeLinearOp>();
    if (!dq || !dq->hasOneUse()) return nullptr;
    Value x = dq.getInput();
    *viaTranspose = false;
    if (auto t = x.getDefiningOp<TransposeOp>()) {
      if (!hasPermutation(t, {0, 3, 1, 2}) || !t->hasOneUse()) return nullptr;
      x = t.getInput();
      *viaTranspose = true;
    }
    auto conv = x.getDefiningOp<QuantizedConv2dOp>();
    if (!conv || !conv->hasOneUse() || !conv.getOutputScale() || conv.getResidual() ||
        conv.getActivation().value_or("none") != "none" || !sameConstant(dq.getScale(), conv.getOutputScale()) ||
        !sameConstant(dq.getZeroPoint(), conv.getOutputZeroPoint()))
      return nullptr;
    *dqOut = dq;
    return conv;
  }

  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    auto yType = cast<RankedTensorType>(add.getType());
    if (!yType.getElementType().isF32() || !yType.hasStaticShape() || yType.getRank() != 4 || !add->hasOneUse())
      return rewriter.notifyMatchFailure(add, "not a float32 4-D add with one user");
    // The add's user: relu (then q) or q.
    Operation *user = *add->user_begin();
    ReluOp relu = dyn_cast<ReluOp>(user);
    if (relu) {
      if (!relu->hasOneUse()) return rewriter.notifyMatchFailure(add, "the relu has several users");
      user = *relu->user_begin();
    }
    auto q = dyn_cast<QuantizeLinearOp>(user);
    if (!q || !perTensorConstant(q.getScale()) || !perTensorConstant(q.getZeroPoint()) ||
        !isInt8Type(cast<RankedTensorType>(q.getType()).getElementType()))
      return rewriter.notifyMatchFailure(add, "the result is not quantized per tensor");
    for (int side = 0; side < 2; ++side) {
      bool viaTranspose = false;
      DequantizeLinearOp dqConv;
      QuantizedConv2dOp conv = convSide(add->getOperand(side), &viaTranspose, &dqConv);
      if (!conv) continue;
      auto dqRes = add->getOperand(1 - side).getDefiningOp<DequantizeLinearOp>();
      if (!dqRes || !perTensorConstant(dqRes.getScale()) || !perTensorConstant(dqRes.getZeroPoint()) ||
          !isInt8Type(cast<RankedTensorType>(dqRes.getInput().getType()).getElementType()))
        continue;
      Value r = dqRes.getInput();
      auto rType = cast<RankedTensorType>(r.getType());
      auto convType = cast<RankedTensorType>(conv.getType());
      Type outElem = cast<RankedTensorType>(q.getType()).getElementType();
      // oneDNN sums the residual in the destination's type.
      if (rType.getElementType() != outElem || convType.getElementType() != outElem) continue;
      DominanceInfo dom;
      if (!dom.properlyDominates(q.getScale(), add) || !dom.properlyDominates(q.getZeroPoint(), add)) continue;
      Location loc = add.getLoc();
      rewriter.setInsertionPoint(add);
      if (viaTranspose)
        r = TransposeOp::create(rewriter, loc, r, rewriter.getDenseI64ArrayAttr({0, 2, 3, 1})).getResult();
      if (cast<RankedTensorType>(r.getType()).getShape() != convType.getShape()) continue;
      auto m = [&](Value v) { return materialize(rewriter, loc, v); };
      auto fused = QuantizedConv2dOp::create(
          rewriter, loc, conv.getInput(), conv.getInputScale(), conv.getInputZeroPoint(), conv.getFilter(),
          conv.getFilterScale(), conv.getBias(), m(q.getScale()), m(q.getZeroPoint()), r, m(dqRes.getScale()),
          m(dqRes.getZeroPoint()), conv.getOutputScale(), conv.getOutputZeroPoint(), conv.getPaddingAttr(),
          conv.getStridesAttr(), conv.getDilationsAttr(), conv.getGroupsAttr(),
          relu ? rewriter.getStringAttr("relu") : StringAttr());
      Value result = fused.getResult();
      if (viaTranspose)
        result = TransposeOp::create(rewriter, loc, result, rewriter.getDenseI64ArrayAttr({0, 3, 1, 2})).getResult();
      SmallVector<Operation *> dead{add, dqConv, dqRes, conv};
      if (relu) dead.push_back(relu);
      if (viaTranspose) dead.push_back(dqConv.getInput().getDefiningOp());
      rewriter.replaceOp(q, result);
      ++counters.residuals;
      counters.opsReplaced += eraseDeadOps(rewriter, dead);
      return success();
    }
    return rewriter.notifyMatchFailure(add, "no quantizedConv2d operand with a quantized residual");
  }

  QdqCounters &counters;
};

// q(maxPool2d(dq(xi, s, z)), s, z) -> maxPool2d(xi): the pool on the 8-bit
// tensor, of q's type, where q was; dq stays for any other user.
struct FoldQdqMaxPool : OpRewritePattern<MaxPool2dOp> {
  FoldQdqMaxPool(MLIRContext *ctx, QdqCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(MaxPool2dOp pool, PatternRewriter &rewriter) const override {
    auto yType = cast<RankedTensorType>(pool.getType());
    if (!yType.getElementType().isF32() || !yType.hasStaticShape() || yType.getRank() != 4 || !pool->hasOneUse())
      return rewriter.notifyMatchFailure(pool, "not a static float32 pool with one user");
    auto q = dyn_cast<QuantizeLinearOp>(*pool->user_begin());
    auto dq = pool.getInput().getDefiningOp<DequantizeLinearOp>();
    if (!q || !dq) return rewriter.notifyMatchFailure(pool, "not between a dequantizeLinear and a quantizeLinear");
    auto xType = cast<RankedTensorType>(dq.getInput().getType());
    auto qType = cast<RankedTensorType>(q.getType());
    if (!isInt8Type(xType.getElementType()) || xType.getElementType() != qType.getElementType() ||
        !perTensorConstant(dq.getScale()) || !perTensorConstant(dq.getZeroPoint()) ||
        !sameConstant(dq.getScale(), q.getScale()) || !sameConstant(dq.getZeroPoint(), q.getZeroPoint()))
      return rewriter.notifyMatchFailure(pool, "the pool's dequantizeLinear and quantizeLinear differ");
    std::optional<SmallVector<double>> scale = floatConstantValues(dq.getScale());
    if (!scale || scale->size() != 1 || !((*scale)[0] > 0) || !std::isfinite((*scale)[0]))
      return rewriter.notifyMatchFailure(pool, "the scale is not a positive finite number");
    // Every window holds a real element: dilation 1, floor rounding, each
    // padding smaller than the window along its axis.
    bool nhwc = pool.getLayout().value_or("nchw") == "nhwc";
    auto xShape = xType.getShape();
    SmallVector<int64_t> window(pool.getWindowDimensions().value_or(
        ArrayRef<int64_t>{nhwc ? xShape[1] : xShape[2], nhwc ? xShape[2] : xShape[3]}));
    SmallVector<int64_t> padding(pool.getPadding().value_or(ArrayRef<int64_t>{0, 0, 0, 0}));
    SmallVector<int64_t> dilations(pool.getDilations().value_or(ArrayRef<int64_t>{1, 1}));
    if (window.size() != 2 || padding.size() != 4 || llvm::any_of(dilations, [](int64_t d) { return d != 1; }) ||
        pool.getRoundingType().value_or("floor") != "floor" || pool.getOutputSizes() ||
        padding[0] >= window[0] || padding[1] >= window[0] || padding[2] >= window[1] || padding[3] >= window[1])
      return rewriter.notifyMatchFailure(pool, "a window could lie wholly in the padding");
    rewriter.setInsertionPoint(pool);
    auto type = RankedTensorType::get(yType.getShape(), xType.getElementType());
    auto fused = MaxPool2dOp::create(rewriter, pool.getLoc(), TypeRange{type}, ValueRange{dq.getInput()},
                                     pool->getAttrs());
    rewriter.replaceOp(q, fused.getResult());
    ++counters.pools;
    counters.opsReplaced += eraseDeadOps(rewriter, {pool, dq});
    return success();
  }

  QdqCounters &counters;
};

// gemm(dq(x) per tensor, dq(w) with w an 8-bit constant [N, K] (bTranspose)
// or [K, N], one scale/zero point or one per output column) [+ c] ->
// quantizedMatmul(x, w^T) [+ c]: a QDQ classifier's Gemm on integers. The
// bias stays a float add before the output's quantizeLinear, as in the
// graph (quantizedMatmul's own bias comes after its output round trip).
struct FuseQdqGemm : OpRewritePattern<GemmOp> {
  FuseQdqGemm(MLIRContext *ctx, QdqCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(GemmOp gemm, PatternRewriter &rewriter) const override {
    auto yType = cast<RankedTensorType>(gemm.getType());
    if (!yType.getElementType().isF32() || !yType.hasStaticShape() || yType.getRank() != 2 ||
        gemm.getATranspose().value_or(false) || gemm.getAlpha().value_or(APFloat(1.0)).convertToDouble() != 1.0 ||
        gemm.getBeta().value_or(APFloat(1.0)).convertToDouble() != 1.0)
      return rewriter.notifyMatchFailure(gemm, "not a plain static float32 gemm");
    std::optional<QuantOperand> a = matchOperand(gemm.getA(), false);
    if (!a) return rewriter.notifyMatchFailure(gemm, "a is not a per-tensor dequantizeLinear");
    auto dqW = gemm.getB().getDefiningOp<DequantizeLinearOp>();
    if (!dqW) return rewriter.notifyMatchFailure(gemm, "b is not a dequantizeLinear");
    auto wType = cast<RankedTensorType>(dqW.getInput().getType());
    std::optional<SmallVector<int64_t>> w = intConstantValues(dqW.getInput());
    std::optional<SmallVector<int64_t>> zw = intConstantValues(dqW.getZeroPoint());
    std::optional<SmallVector<double>> sw = floatConstantValues(dqW.getScale());
    if (!isInt8Type(wType.getElementType()) || wType.getRank() != 2 || !w || !zw || !sw)
      return rewriter.notifyMatchFailure(gemm, "b is not a dequantized 8-bit constant");
    bool bT = gemm.getBTranspose().value_or(false);
    int64_t K = wType.getDimSize(bT ? 1 : 0), N = wType.getDimSize(bT ? 0 : 1);
    if (K > 32768) return rewriter.notifyMatchFailure(gemm, "K > 32768: the int32 sum could overflow");
    // One parameter, or one per output column along w's N axis.
    auto perN = [&](Value v, size_t count) {
      if (count == 1) return true;
      auto t = cast<RankedTensorType>(v.getType());
      return int64_t(count) == N && t.getRank() <= 2 && t.getShape()[bT ? 0 : t.getRank() - 1] == N;
    };
    if (!perN(dqW.getScale(), sw->size()) || !perN(dqW.getZeroPoint(), zw->size()))
      return rewriter.notifyMatchFailure(gemm, "b's parameters are not per tensor or per column");
    std::optional<SmallVector<double>> bias;
    if (Value c = gemm.getC()) {
      if (auto dqC = c.getDefiningOp<DequantizeLinearOp>()) {
        if (std::optional<SmallVector<float>> v = evaluateDequantize(dqC)) bias = SmallVector<double>(v->begin(), v->end());
      } else {
        bias = floatConstantValues(c);
      }
      if (!bias || int64_t(bias->size()) != N) return rewriter.notifyMatchFailure(gemm, "c is not a constant [N]");
    }
    Location loc = gemm.getLoc();
    rewriter.setInsertionPoint(gemm);
    SmallVector<int64_t> wt(w->size());
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) wt[k * N + n] = bT ? (*w)[n * K + k] : (*w)[k * N + n];
    Value b = intConstant(rewriter, loc, {K, N}, wType.getElementType(), wt);
    Value bScale = floatConstant(rewriter, loc, {1, int64_t(sw->size())}, rewriter.getF32Type(), *sw);
    Value bZp = intConstant(rewriter, loc, {1, int64_t(zw->size())}, wType.getElementType(), *zw);
    auto m = [&](Value v) { return materialize(rewriter, loc, v); };
    Value y = QuantizedMatmulOp::create(rewriter, loc, a->x, m(a->scale), m(a->zeroPoint), b, bScale, bZp, Value(),
                                        Value(), Value())
                  .getResult();
    if (bias) y = AddOp::create(rewriter, loc, y, floatConstant(rewriter, loc, {1, N}, rewriter.getF32Type(), *bias));
    SmallVector<Operation *> dead{dqW};
    dead.append(a->ops);
    if (Value c = gemm.getC())
      if (Operation *def = c.getDefiningOp()) dead.push_back(def);
    rewriter.replaceOp(gemm, y);
    ++counters.gemms;
    counters.opsReplaced += eraseDeadOps(rewriter, dead);
    return success();
  }

  QdqCounters &counters;
};

struct FuseQdqPass : impl::WebNNFuseQdqBase<FuseQdqPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    QdqCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<FuseQdqMatmul, FuseQdqGemm>(ctx, counters);
    if (convs) patterns.add<FuseQdqConv, FoldQdqMaxPool>(ctx, counters);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    // Residual joins, once their convolutions are quantizedConv2d.
    RewritePatternSet joins(ctx);
    joins.add<FuseQdqResidual>(ctx, counters);
    if (failed(applyPatternsGreedily(getOperation(), std::move(joins), config))) return signalPassFailure();
    // Convolutions the pattern left float, and gemm (a classifier's Gemm):
    // their constant weights and biases are dequantized once here rather
    // than on every run.
    int64_t folded = 0;
    SmallVector<DequantizeLinearOp> candidates;
    getOperation().walk([&](DequantizeLinearOp dq) {
      if (!dq->use_empty() && llvm::all_of(dq->getUsers(), [&](Operation *u) {
            if (auto conv = dyn_cast<Conv2dOp>(u)) return conv.getInput() != dq.getResult();
            if (auto gemm = dyn_cast<GemmOp>(u)) return gemm.getA() != dq.getResult();
            return false;
          }))
        candidates.push_back(dq);
    });
    for (DequantizeLinearOp dq : candidates) {
      auto type = cast<RankedTensorType>(dq.getType());
      if (!type.getElementType().isF32()) continue;
      std::optional<SmallVector<float>> values = evaluateDequantize(dq);
      if (!values) continue;
      OpBuilder b(dq);
      auto c = ConstantOp::create(b, dq.getLoc(), type, DenseElementsAttr::get(type, ArrayRef<float>(*values)),
                                  StringAttr());
      dq.getResult().replaceAllUsesWith(c.getResult());
      SmallVector<Operation *> producers;
      for (Value v : dq->getOperands())
        if (Operation *def = v.getDefiningOp()) producers.push_back(def);
      dq.erase();
      // The integer constants (and reshapes of them) nothing else reads.
      while (!producers.empty()) {
        Operation *op = producers.pop_back_val();
        if (!op->use_empty() || !isa<ConstantOp, ReshapeOp>(op)) continue;
        for (Value v : op->getOperands())
          if (Operation *def = v.getDefiningOp()) producers.push_back(def);
        op->erase();
      }
      ++folded;
    }
    numWeightsDequantized += folded;
    recordRewrites(ctx, getArgument(), "conv-weights-dequantized", folded);
    numMatmulsFused += counters.matmuls;
    numConvsFused += counters.convs;
    numGemmsFused += counters.gemms;
    numResidualsFused += counters.residuals;
    numPoolsFolded += counters.pools;
    numOpsReplaced += counters.opsReplaced;
    recordRewrites(ctx, getArgument(), "matmuls-fused", counters.matmuls);
    recordRewrites(ctx, getArgument(), "convs-fused", counters.convs);
    recordRewrites(ctx, getArgument(), "gemms-fused", counters.gemms);
    recordRewrites(ctx, getArgument(), "residuals-fused", counters.residuals);
    recordRewrites(ctx, getArgument(), "max-pools-8bit", counters.pools);
    recordRewrites(ctx, getArgument(), "ops-replaced", counters.opsReplaced);
  }
};

}  // namespace
}  // namespace mlir::webnn
