// Integer and quantized-linear ops (ConvInteger, MatMulInteger, QLinearConv,
// QLinearMatMul, DynamicQuantizeLinear) on WebNN's float ops, exactly:
// 8-bit operands minus their zero points are integers in [-255, 255], so a
// float32 matmul over at most 256 of them sums products < 2^24 without
// rounding (in any order); longer reductions are split into such chunks and
// added in int32. Convolutions go through im2col (a gather with constant
// indices) + that matmul rather than conv2d, whose fast algorithms
// (Winograd) are not exact. QLinear* then requantize as ONNX defines:
// saturate(roundEven(acc * (x_scale * w_scale / y_scale)) + y_zero_point).
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

constexpr int64_t kExactChunk = 256;  // 256 * 255 * 255 < 2^24

Type f32(NodeConverter &c) { return Float32Type::get(c.context()); }
Type i32(NodeConverter &c) { return IntegerType::get(c.context(), 32); }

bool isEightBit(Value v) {
  Type t = NodeConverter::typeOf(v).getElementType();
  return t.isInteger(8);
}

// v - zeroPoint in float32; `zpShape` reshapes a per-row/channel zero point.
Value centred(NodeConverter &c, Value v, Value zp, std::optional<SmallVector<int64_t>> zpShape) {
  Value f = c.emitCast(v, f32(c));
  if (!zp) return f;
  Value z = c.emitCast(zp, f32(c));
  if (zpShape && NodeConverter::typeOf(zp).getNumElements() > 1) z = c.emitReshape(z, *zpShape);
  return c.emit("sub", {f, z});
}

// a [..., M, K] @ b [..., K, N] of centred 8-bit values -> exact int32.
Value exactMatMul(NodeConverter &c, Value a, Value b) {
  if (c.emitFailed() || !a || !b) return Value();
  SmallVector<int64_t> as(NodeConverter::shapeOf(a)), bs(NodeConverter::shapeOf(b));
  int64_t k = as.back();
  if (k <= kExactChunk) return c.emitCast(c.emit("matmul", {a, b}), i32(c));
  Value sum;
  for (int64_t s = 0; s < k; s += kExactChunk) {
    int64_t len = std::min(kExactChunk, k - s);
    SmallVector<int64_t> aStart(as.size(), 0), aSize(as), bStart(bs.size(), 0), bSize(bs);
    aStart.back() = s;
    aSize.back() = len;
    bStart[bs.size() - 2] = s;
    bSize[bs.size() - 2] = len;
    Value pa = c.emit("slice", {a}, {c.i64ArrayAttr("starts", aStart), c.i64ArrayAttr("sizes", aSize)});
    Value pb = c.emit("slice", {b}, {c.i64ArrayAttr("starts", bStart), c.i64ArrayAttr("sizes", bSize)});
    Value part = c.emitCast(c.emit("matmul", {pa, pb}), i32(c));
    sum = sum ? c.emit("add", {sum, part}) : part;
  }
  return sum;
}

// 2-D (1-D lifted) convolution of centred x [N, C, H, W] with centred w
// [M, C/g, kH, kW] -> exact int32 [N, M, Ho, Wo], by im2col.
Value exactConv(NodeConverter &c, Value x, Value w) {
  if (c.emitFailed() || !x || !w) return Value();
  SmallVector<int64_t> xs(NodeConverter::shapeOf(x)), ws(NodeConverter::shapeOf(w));
  int64_t rank = xs.size();
  if (rank != 3 && rank != 4)
    return c.fail("only 1-D and 2-D convolution is supported, got rank " + Twine(rank)), Value();
  if (static_cast<int64_t>(ws.size()) != rank)
    return c.fail("weights W must have the same rank as input X"), Value();
  size_t n = rank - 2;
  SmallVector<int64_t> kernel(ArrayRef<int64_t>(ws).drop_front(2));
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", n, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", n, 1);
  if (failed(strides) || failed(dilations)) return Value();
  FailureOr<SmallVector<int64_t>> pads =
      resolveOnnxPads(c, ArrayRef<int64_t>(xs).drop_front(2), kernel, *strides, *dilations);
  if (failed(pads)) return Value();
  SmallVector<int64_t> k2 = kernel, s2 = *strides, d2 = *dilations, p = *pads;
  if (n == 1) {
    k2 = {1, kernel[0]};
    s2 = {1, s2[0]};
    d2 = {1, d2[0]};
    p = {0, (*pads)[0], 0, (*pads)[1]};
    x = c.emitReshape(x, {xs[0], xs[1], 1, xs[2]});
    xs = {xs[0], xs[1], 1, xs[2]};
  }
  int64_t group = c.intAttr("group", 1), batch = xs[0], ch = xs[1], m = ws[0];
  if (group < 1 || ch % group || ch / group != ws[1] || m % group)
    return c.fail("'group' does not divide the channels as W's shape says"), Value();
  int64_t cg = ch / group, kk = k2[0] * k2[1];
  if (llvm::any_of(p, [](int64_t v) { return v != 0; }))
    x = c.emit("pad", {x}, {c.i64ArrayAttr("beginningPadding", {0, 0, p[0], p[1]}),
                            c.i64ArrayAttr("endingPadding", {0, 0, p[2], p[3]})});
  int64_t hp = xs[2] + p[0] + p[2], wp = xs[3] + p[1] + p[3];
  auto outDim = [](int64_t in, int64_t k, int64_t s, int64_t d) { return (in - ((k - 1) * d + 1)) / s + 1; };
  int64_t ho = outDim(hp, k2[0], s2[0], d2[0]), wo = outDim(wp, k2[1], s2[1], d2[1]);
  if (ho < 1 || wo < 1) return c.fail("the kernel is larger than the padded input"), Value();
  SmallVector<int64_t> idx;
  for (int64_t oh = 0; oh < ho; ++oh)
    for (int64_t ow = 0; ow < wo; ++ow)
      for (int64_t kh = 0; kh < k2[0]; ++kh)
        for (int64_t kw = 0; kw < k2[1]; ++kw)
          idx.push_back((oh * s2[0] + kh * d2[0]) * wp + ow * s2[1] + kw * d2[1]);
  Value cols = c.emit("gather", {c.emitReshape(x, {batch, ch, hp * wp}), c.constantI64(idx, {ho * wo, kk})},
                      {c.i64Attr("axis", 2)});
  // [N, C, HoWo, kk] -> [N, g, HoWo, C/g * kk]
  cols = c.emitReshape(cols, {batch, group, cg, ho * wo, kk});
  cols = c.emit("transpose", {cols}, {c.i64ArrayAttr("permutation", {0, 1, 3, 2, 4})});
  cols = c.emitReshape(cols, {batch, group, ho * wo, cg * kk});
  // [M, C/g, kH, kW] -> [g, C/g * kk, M/g]
  Value f = c.emitReshape(w, {group, m / group, cg * kk});
  f = c.emit("transpose", {f}, {c.i64ArrayAttr("permutation", {0, 2, 1})});
  Value y = exactMatMul(c, cols, f);  // [N, g, HoWo, M/g]
  y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {0, 1, 3, 2})});
  return c.emitReshape(y, n == 1 ? SmallVector<int64_t>{batch, m, wo}
                                 : SmallVector<int64_t>{batch, m, ho, wo});
}

// saturate(roundEven(acc * multiplier) + zp) in zp's 8-bit type.
Value requantize(NodeConverter &c, Value acc, Value multiplier, Value zp) {
  if (c.emitFailed() || !acc || !multiplier || !zp) return Value();
  Type qt = NodeConverter::typeOf(zp).getElementType();
  bool isUnsigned = qt.isUnsignedInteger();
  Value v = c.emit("roundEven", {c.emit("mul", {c.emitCast(acc, f32(c)), multiplier})});
  v = c.emit("add", {v, c.emitCast(zp, f32(c))});
  v = c.emit("clamp", {v}, {c.f64Attr("minValue", isUnsigned ? 0 : -128),
                            c.f64Attr("maxValue", isUnsigned ? 255 : 127)});
  return c.emitCast(v, qt);
}

// A scale or zero point that is a scalar / one-element tensor, or a vector
// laid along `axis` of a rank-`rank` result.
Value alongAxis(NodeConverter &c, Value v, int64_t axis, int64_t rank) {
  if (c.emitFailed() || !v) return Value();
  if (NodeConverter::typeOf(v).getNumElements() == 1) return c.emitReshape(v, {});
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = NodeConverter::typeOf(v).getNumElements();
  return c.emitReshape(v, shape);
}

LogicalResult checkEightBit(NodeConverter &c, std::initializer_list<Value> vs) {
  for (Value v : vs)
    if (v && !isEightBit(v)) return c.fail("only 8-bit integer operands are supported");
  return success();
}

// MatMulInteger: zero points scalar, per row of A ([M]) or per column of B ([N]).
LogicalResult convertMatMulInteger(NodeConverter &c) {
  FailureOr<Value> a = c.requiredInput(0), b = c.requiredInput(1);
  if (failed(a) || failed(b)) return failure();
  if (failed(checkEightBit(c, {*a, *b}))) return failure();
  int64_t m = NodeConverter::shapeOf(*a).size() >= 2 ? NodeConverter::shapeOf(*a).drop_back().back() : 1;
  Value ac = centred(c, *a, c.input(2), SmallVector<int64_t>{m, 1});
  Value bc = centred(c, *b, c.input(3), std::nullopt);
  return c.done(exactMatMul(c, ac, bc));
}

// ConvInteger: x zero point scalar, w zero point scalar or per output channel.
LogicalResult convertConvInteger(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), w = c.requiredInput(1);
  if (failed(x) || failed(w)) return failure();
  if (failed(checkEightBit(c, {*x, *w}))) return failure();
  if (NodeConverter::rankOf(*x) < 3 || NodeConverter::rankOf(*w) != NodeConverter::rankOf(*x))
    return c.fail("x and w must have the same rank, at least 3 ([N, C, spatial...] and [M, C/group, kernel...])");
  SmallVector<int64_t> wzShape(NodeConverter::rankOf(*w), 1);
  wzShape[0] = NodeConverter::shapeOf(*w)[0];
  Value xc = centred(c, *x, c.input(2), std::nullopt);
  Value wc = centred(c, *w, c.input(3), wzShape);
  return c.done(exactConv(c, xc, wc));
}

// QLinearConv: (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?); w's
// scale and zero point scalar or per output channel; B int32 [M].
LogicalResult convertQLinearConv(NodeConverter &c) {
  SmallVector<Value> in;
  for (size_t i = 0; i < 8; ++i) {
    FailureOr<Value> v = c.requiredInput(i);
    if (failed(v)) return failure();
    in.push_back(*v);
  }
  if (failed(checkEightBit(c, {in[0], in[3], in[7]}))) return failure();
  int64_t rank = NodeConverter::rankOf(in[0]);
  SmallVector<int64_t> wzShape(NodeConverter::rankOf(in[3]), 1);
  wzShape[0] = NodeConverter::shapeOf(in[3])[0];
  Value acc = exactConv(c, centred(c, in[0], in[2], std::nullopt), centred(c, in[3], in[5], wzShape));
  if (c.hasInput(8)) acc = c.emit("add", {acc, alongAxis(c, c.input(8), 1, rank)});
  Value mult = c.emit("div", {c.emit("mul", {c.emitReshape(in[1], {}), alongAxis(c, in[4], 1, rank)}),
                              c.emitReshape(in[6], {})});
  return c.done(requantize(c, acc, mult, c.emitReshape(in[7], {})));
}

// QLinearMatMul: (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp); a's
// scale/zero point scalar or per row, b's scalar or per column.
LogicalResult convertQLinearMatMul(NodeConverter &c) {
  SmallVector<Value> in;
  for (size_t i = 0; i < 8; ++i) {
    FailureOr<Value> v = c.requiredInput(i);
    if (failed(v)) return failure();
    in.push_back(*v);
  }
  if (failed(checkEightBit(c, {in[0], in[3], in[7]}))) return failure();
  int64_t ar = NodeConverter::rankOf(in[0]);
  if (ar < 2 || NodeConverter::rankOf(in[3]) < 2) return c.fail("inputs must have rank >= 2");
  int64_t m = NodeConverter::shapeOf(in[0])[ar - 2];
  Value acc = exactMatMul(c, centred(c, in[0], in[2], SmallVector<int64_t>{m, 1}),
                          centred(c, in[3], in[5], std::nullopt));
  int64_t yr = acc ? NodeConverter::rankOf(acc) : 2;
  Value mult = c.emit("div", {c.emit("mul", {alongAxis(c, in[1], yr - 2, yr), alongAxis(c, in[4], yr - 1, yr)}),
                              c.emitReshape(in[6], {})});
  return c.done(requantize(c, acc, mult, c.emitReshape(in[7], {})));
}

// DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) / 255
// (1/255 for an all-zero x), zero point = saturate(roundEven(-min / scale)),
// y = saturate(roundEven(x / scale) + zero point).
LogicalResult convertDynamicQuantizeLinear(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0);
  if (failed(input)) return failure();
  Value x = *input;
  if (!NodeConverter::typeOf(x).getElementType().isF32()) return c.fail("input must be float32");
  Type f = f32(c);
  Value lo = c.emit("min", {c.emit("reduceMin", {x}), c.scalar(f, 0)});
  Value hi = c.emit("max", {c.emit("reduceMax", {x}), c.scalar(f, 0)});
  Value range = c.emit("sub", {hi, lo});
  range = c.emit("where", {c.emit("equal", {range, c.scalar(f, 0)}), c.scalar(f, 1), range});
  Value scale = c.emit("div", {range, c.scalar(f, 255)});
  Value zpf = c.emit("roundEven", {c.emit("clamp", {c.emit("neg", {c.emit("div", {lo, scale})})},
                                          {c.f64Attr("minValue", 0), c.f64Attr("maxValue", 255)})});
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  Value zp = c.emitCast(zpf, u8);
  // x / scale rounded in float32 as ONNX's reference does (the runtime's
  // quantizeLinear divides in double, which rounds ties like 25.5 differently).
  Value q = c.emit("add", {c.emit("roundEven", {c.emit("div", {x, scale})}), zpf});
  Value y = c.emitCast(c.emit("clamp", {q}, {c.f64Attr("minValue", 0), c.f64Attr("maxValue", 255)}), u8);
  if (c.emitFailed() || !y) return failure();
  c.setOutput(0, y);
  if (c.outputUsed(1)) c.setOutput(1, scale);
  if (c.outputUsed(2)) c.setOutput(2, zp);
  return success();
}

}  // namespace

void populateDefaultDomainQuantized(OpConverterTable &t) {
  t.add("", "ConvInteger", 10, convertConvInteger);
  t.add("", "DynamicQuantizeLinear", 11, convertDynamicQuantizeLinear);
  t.add("", "MatMulInteger", 10, convertMatMulInteger);
  t.add("", "QLinearConv", 10, convertQLinearConv);
  t.add("", "QLinearMatMul", 10, convertQLinearMatMul);
}

}  // namespace mlir::webnn::onnx_import
