// 3-D Conv, ConvTranspose and pooling (rank-5 inputs [N, C, D, H, W]) on
// WebNN's 2-D ops.
// Shapes are static, so the depth dimension is unrolled at compile time:
// - Conv: a gather with constant indices collects, for every output depth,
//   the kD input planes its window reads; they become extra input channels
//   of one conv2d over [N * D_out, C * kD, H, W] (weights rearranged to
//   match, group-major so `group` keeps working).
// - MaxPool / AveragePool are separable: a 2-D pool over (H, W) of every
//   depth plane, then a (kD x 1) pool over (D, H_out * W_out). For averages
//   without padding in the divisor the count of a 3-D window is the product
//   of its per-axis counts, so the two divisions compose exactly.
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, bool ceil) {
  int64_t eff = (k - 1) * d + 1;
  int64_t span = in - eff;
  if (span < 0) return 0;
  return (ceil ? (span + s - 1) / s : span / s) + 1;
}

}  // namespace

LogicalResult convertConv3d(NodeConverter &c, Value x, Value w, Value bias) {
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(x), ws = NodeConverter::shapeOf(w);
  if (ws.size() != 5) return c.fail("weights W must have the same rank as input X");
  SmallVector<int64_t> kernel(ws.drop_front(2));
  if (auto k = c.intsAttr("kernel_shape"); k && ArrayRef<int64_t>(*k) != ArrayRef<int64_t>(kernel))
    return c.fail("'kernel_shape' does not match the weights' spatial dimensions");
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", 3, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", 3, 1);
  if (failed(strides) || failed(dilations)) return failure();
  FailureOr<SmallVector<int64_t>> pads =
      resolveOnnxPads(c, xs.drop_front(2), kernel, *strides, *dilations);
  if (failed(pads)) return failure();
  int64_t group = c.intAttr("group", 1);
  int64_t n = xs[0], ch = xs[1], m = ws[0], cg = ws[1], kd = kernel[0];
  if (group < 1 || ch % group || ch / group != cg || m % group)
    return c.fail("'group' does not divide the channels as W's shape says");
  // Depth padding is explicit; H/W padding stays with conv2d.
  if ((*pads)[0] || (*pads)[3])
    x = c.emit("pad", {x}, {c.i64ArrayAttr("beginningPadding", {0, 0, (*pads)[0], 0, 0}),
                            c.i64ArrayAttr("endingPadding", {0, 0, (*pads)[3], 0, 0})});
  if (!x) return failure();
  int64_t depth = NodeConverter::shapeOf(x)[2], h = xs[3], wd = xs[4];
  int64_t dOut = outSize(depth, kd, (*strides)[0], (*dilations)[0], false);
  if (dOut < 1) return c.fail("the kernel is deeper than the padded input");
  SmallVector<int64_t> idx;
  for (int64_t o = 0; o < dOut; ++o)
    for (int64_t k = 0; k < kd; ++k) idx.push_back(o * (*strides)[0] + k * (*dilations)[0]);
  // [N, C, Do, kD, H, W] -> [N, Do, g, kD, C/g, H, W] -> [N*Do, g*kD*C/g, H, W]
  Value g = c.emit("gather", {x, c.constantI64(idx, {dOut, kd})}, {c.i64Attr("axis", 2)});
  g = c.emitReshape(g, {n, group, cg, dOut, kd, h, wd});
  g = c.emit("transpose", {g}, {c.i64ArrayAttr("permutation", {0, 3, 1, 4, 2, 5, 6})});
  g = c.emitReshape(g, {n * dOut, ch * kd, h, wd});
  // [M, C/g, kD, kH, kW] -> [M, kD*C/g, kH, kW]
  Value f = c.emit("transpose", {w}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3, 4})});
  f = c.emitReshape(f, {m, kd * cg, kernel[1], kernel[2]});
  SmallVector<int64_t> p2 = {(*pads)[1], (*pads)[4], (*pads)[2], (*pads)[5]};  // WebNN order
  Value y = c.emit("conv2d", {g, f, bias},
                   {c.i64ArrayAttr("padding", p2),
                    c.i64ArrayAttr("strides", {(*strides)[1], (*strides)[2]}),
                    c.i64ArrayAttr("dilations", {(*dilations)[1], (*dilations)[2]}),
                    c.i64Attr("groups", group)});
  if (!y) return failure();
  ArrayRef<int64_t> ys = NodeConverter::shapeOf(y);
  y = c.emitReshape(y, {n, dOut, m, ys[2], ys[3]});
  return c.done(c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3, 4})}));
}

LogicalResult convertPool3d(NodeConverter &c, StringRef webnnOp, Value x) {
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(x);
  std::optional<SmallVector<int64_t>> kernel = c.intsAttr("kernel_shape");
  if (!kernel) return c.fail("missing required attribute 'kernel_shape'");
  if (kernel->size() != 3)
    return c.fail("'kernel_shape' has " + Twine(kernel->size()) + " values, expected 3");
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", 3, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", 3, 1);
  if (failed(strides) || failed(dilations)) return failure();
  FailureOr<SmallVector<int64_t>> pads =
      resolveOnnxPads(c, xs.drop_front(2), *kernel, *strides, *dilations);
  if (failed(pads)) return failure();
  SmallVector<int64_t> p = *pads;
  bool anyPad = llvm::any_of(p, [](int64_t v) { return v != 0; });
  if (webnnOp == "averagePool2d" && c.intAttr("count_include_pad", 0) && anyPad) {
    // Padding counted in the divisor = averaging a zero-padded input.
    x = c.emit("pad", {x}, {c.i64ArrayAttr("beginningPadding", {0, 0, p[0], p[1], p[2]}),
                            c.i64ArrayAttr("endingPadding", {0, 0, p[3], p[4], p[5]})});
    p.assign(6, 0);
  }
  Type elem = NodeConverter::typeOf(x).getElementType();
  bool viaFloat = webnnOp == "maxPool2d" && !mlir::isa<FloatType>(elem) &&
                  elem.getIntOrFloatBitWidth() <= 16;
  if (viaFloat) x = c.emitCast(x, Float32Type::get(c.context()));
  if (!x) return failure();
  StringRef rounding = c.intAttr("ceil_mode", 0) ? "ceil" : "floor";
  SmallVector<int64_t> s(NodeConverter::shapeOf(x));
  int64_t n = s[0], ch = s[1], d = s[2];
  // (H, W) of every depth plane.
  Value y = c.emitReshape(x, {n, ch * d, s[3], s[4]});
  y = c.emit(webnnOp, {y},
             {c.i64ArrayAttr("windowDimensions", {(*kernel)[1], (*kernel)[2]}),
              c.i64ArrayAttr("padding", {p[1], p[4], p[2], p[5]}),
              c.i64ArrayAttr("strides", {(*strides)[1], (*strides)[2]}),
              c.i64ArrayAttr("dilations", {(*dilations)[1], (*dilations)[2]}),
              c.strAttr("roundingType", rounding)});
  if (!y) return failure();
  int64_t ho = NodeConverter::shapeOf(y)[2], wo = NodeConverter::shapeOf(y)[3];
  // Then D, with the (H, W) result flattened into the width.
  y = c.emitReshape(y, {n, ch, d, ho * wo});
  y = c.emit(webnnOp, {y},
             {c.i64ArrayAttr("windowDimensions", {(*kernel)[0], 1}),
              c.i64ArrayAttr("padding", {p[0], p[3], 0, 0}),
              c.i64ArrayAttr("strides", {(*strides)[0], 1}),
              c.i64ArrayAttr("dilations", {(*dilations)[0], 1}),
              c.strAttr("roundingType", rounding)});
  if (!y) return failure();
  y = c.emitReshape(y, {n, ch, NodeConverter::shapeOf(y)[2], ho, wo});
  if (viaFloat) y = c.emitCast(y, elem);
  return c.done(y);
}

// 3-D ConvTranspose with resolved padding: one convTranspose2d over every
// depth plane ([N*D, C, H, W]) whose output channels carry the kD depth taps
// ([C, M/g * kD, kH, kW] is W's own layout, group-major); each tap's planes
// land at output depth d*sD + kd*dD (interleaved with zeros by pad/reshape)
// and the taps are summed, then the depth padding is cropped.
LogicalResult emitConvTranspose3d(NodeConverter &c, Value x, Value w, Value bias,
                                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                  ArrayRef<int64_t> pads, ArrayRef<int64_t> outPad, int64_t group) {
  SmallVector<int64_t> xs(NodeConverter::shapeOf(x)), ws(NodeConverter::shapeOf(w));
  if (ws.size() != 5) return c.fail("weights W must have the same rank as input X");
  int64_t n = xs[0], ch = xs[1], depth = xs[2], kd = ws[2];
  if (group < 1 || ch % group || ws[0] != ch) return c.fail("W's shape does not match X and 'group'");
  int64_t mg = ws[1], m = mg * group;
  Value planes = c.emit("transpose", {x}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3, 4})});
  planes = c.emitReshape(planes, {n * depth, ch, xs[3], xs[4]});
  Value f = c.emitReshape(w, {ch, mg * kd, ws[3], ws[4]});
  Value y = c.emit("convTranspose2d", {planes, f},
                   {c.i64ArrayAttr("padding", {pads[1], pads[4], pads[2], pads[5]}),
                    c.i64ArrayAttr("strides", {strides[1], strides[2]}),
                    c.i64ArrayAttr("dilations", {dilations[1], dilations[2]}),
                    c.i64ArrayAttr("outputPadding", {outPad[1], outPad[2]}), c.i64Attr("groups", group)});
  if (!y) return failure();
  int64_t ho = NodeConverter::shapeOf(y)[2], wo = NodeConverter::shapeOf(y)[3], plane = ho * wo;
  // [N*D, g*(M/g)*kD, Ho, Wo] -> [N, D, M, kD, Ho*Wo]
  y = c.emitReshape(y, {n, depth, m, kd, plane});
  int64_t sd = strides[0], dd = dilations[0];
  int64_t spread = (depth - 1) * sd + 1;
  int64_t full = spread + (kd - 1) * dd + outPad[0];
  Value sum;
  for (int64_t k = 0; k < kd; ++k) {
    Value t = c.emit("slice", {y}, {c.i64ArrayAttr("starts", {0, 0, 0, k, 0}),
                                    c.i64ArrayAttr("sizes", {n, depth, m, 1, plane})});
    t = c.emitReshape(t, {n, depth, 1, m * plane});
    if (sd > 1) {
      t = c.emit("pad", {t}, {c.i64ArrayAttr("beginningPadding", {0, 0, 0, 0}),
                              c.i64ArrayAttr("endingPadding", {0, 0, sd - 1, 0})});
      t = c.emitReshape(t, {n, depth * sd, m * plane});
      t = c.emit("slice", {t}, {c.i64ArrayAttr("starts", {0, 0, 0}), c.i64ArrayAttr("sizes", {n, spread, m * plane})});
    } else {
      t = c.emitReshape(t, {n, depth, m * plane});
    }
    int64_t before = k * dd, after = full - before - spread;
    if (before || after)
      t = c.emit("pad", {t}, {c.i64ArrayAttr("beginningPadding", {0, before, 0}),
                              c.i64ArrayAttr("endingPadding", {0, after, 0})});
    sum = sum ? c.emit("add", {sum, t}) : t;
  }
  int64_t dOut = full - pads[0] - pads[3];
  if (dOut < 1) return c.fail("the depth padding removes the whole output");
  if (pads[0] || pads[3])
    sum = c.emit("slice", {sum}, {c.i64ArrayAttr("starts", {0, pads[0], 0}),
                                  c.i64ArrayAttr("sizes", {n, dOut, m * plane})});
  sum = c.emitReshape(sum, {n, dOut, m, ho, wo});
  sum = c.emit("transpose", {sum}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3, 4})});
  if (bias) sum = c.emit("add", {sum, c.emitReshape(bias, {1, m, 1, 1, 1})});
  return c.done(sum);
}

}  // namespace mlir::webnn::onnx_import
