// Resize in the sampling modes resample2d does not have. With static shapes
// a resize is linear in its input and separable per axis: along each resized
// axis the output is M x for a constant [out, in] matrix whose rows hold the
// interpolation weights ONNX's definition gives that output coordinate
// (coordinate_transformation_mode, nearest_mode, linear, cubic with
// cubic_coeff_a and exclude_outside). Nearest rows are one-hot, so those
// results are exact; tf_crop_and_resize's extrapolation is a constant mask.
#include <cmath>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

// The ONNX input coordinate of output coordinate `o` along one axis, or
// nullopt where tf_crop_and_resize extrapolates.
std::optional<double> sourceCoordinate(const ResizeParams &p, int64_t o, int64_t in, double scale, double roiStart, double roiEnd) {
  double x = static_cast<double>(o);
  double outWidth = scale * in;  // ONNX's reference uses the scaled width here
  StringRef t = p.transform;
  if (t == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (t == "pytorch_half_pixel") return outWidth > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  if (t == "asymmetric") return x / scale;
  if (t == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (t == "align_corners") return outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
  if (t == "tf_crop_and_resize") {
    double v = outWidth > 1 ? roiStart * (in - 1) + x * (roiEnd - roiStart) * (in - 1) / (outWidth - 1)
                            : 0.5 * (roiStart + roiEnd) * (in - 1);
    if (v < 0 || v > in - 1) return std::nullopt;
    return v;
  }
  return std::nullopt;  // rejected before
}

// Interpolation weights for fraction r of the way from floor(x) to floor(x)+1,
// on neighbours starting at floor(x) - (n/2 - 1).
SmallVector<double> weights(const ResizeParams &p, double r) {
  if (p.mode == "nearest") {
    bool up;
    if (r == 0) return {1, 0};
    if (p.nearestMode == "round_prefer_floor") up = r > 0.5;
    else if (p.nearestMode == "round_prefer_ceil") up = r >= 0.5;
    else if (p.nearestMode == "floor") up = false;
    else up = true;  // ceil
    return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
  }
  if (p.mode == "linear") return {1 - r, r};
  double a = p.cubicA;
  auto far = [&](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };   // 1 < d < 2
  auto near = [&](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };         // d <= 1
  return {far(r + 1), near(r), near(1 - r), far(2 - r)};
}

}  // namespace

LogicalResult emitResizeByMatrices(NodeConverter &c, Value x, ArrayRef<double> scales,
                                   ArrayRef<int64_t> outShape, const ResizeParams &p) {
  RankedTensorType t = NodeConverter::typeOf(x);
  Type elem = t.getElementType();
  if (!mlir::isa<FloatType>(elem))
    return c.fail("resize of integer tensors is supported only where resample2d applies");
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic")
    return c.fail("unknown resize mode '" + p.mode + "'");
  StringRef tr = p.transform;
  if (tr != "half_pixel" && tr != "pytorch_half_pixel" && tr != "asymmetric" &&
      tr != "tf_half_pixel_for_nn" && tr != "align_corners" && tr != "tf_crop_and_resize")
    return c.fail("coordinate_transformation_mode '" + p.transform + "' is not supported");
  if (p.mode == "nearest" && p.nearestMode != "round_prefer_floor" &&
      p.nearestMode != "round_prefer_ceil" && p.nearestMode != "floor" && p.nearestMode != "ceil")
    return c.fail("unknown nearest_mode '" + p.nearestMode + "'");
  SmallVector<int64_t> shape(t.getShape());
  int64_t rank = shape.size();
  Value y = x, mask;
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t in = shape[axis], out = outShape[axis];
    if (out < 1) return c.fail("resize to an empty dimension");
    double rs = p.roi.empty() ? 0.0 : p.roi[axis], re = p.roi.empty() ? 1.0 : p.roi[rank + axis];
    SmallVector<double> m(out * in, 0.0);
    SmallVector<uint8_t> outside(out, 0);
    bool identity = in == out, anyOutside = false;
    for (int64_t o = 0; o < out; ++o) {
      std::optional<double> src = sourceCoordinate(p, o, in, scales[axis], rs, re);
      if (!src) {
        outside[o] = 1;
        anyOutside = true;
        identity = false;
        continue;
      }
      double fl = std::floor(*src), r = *src - fl;
      SmallVector<double> w = weights(p, r);
      int64_t first = static_cast<int64_t>(fl) - (static_cast<int64_t>(w.size()) / 2 - 1);
      if (p.excludeOutside) {
        double sum = 0;
        for (size_t i = 0; i < w.size(); ++i) {
          int64_t idx = first + static_cast<int64_t>(i);
          if (idx < 0 || idx >= in) w[i] = 0;
          sum += w[i];
        }
        if (sum != 0)
          for (double &v : w) v /= sum;
      }
      for (size_t i = 0; i < w.size(); ++i) {
        // Neighbours outside the input repeat the edge (ONNX pads with edge).
        int64_t idx = std::clamp<int64_t>(first + static_cast<int64_t>(i), 0, in - 1);
        m[o * in + idx] += w[i];
      }
      if (m[o * in + (o < in ? o : 0)] != 1.0) identity = false;
    }
    if (identity) continue;
    // [pre, in, post] -> M [out, in] @ it = [pre, out, post].
    int64_t pre = 1, post = 1;
    for (int64_t i = 0; i < axis; ++i) pre *= shape[i];
    for (int64_t i = axis + 1; i < rank; ++i) post *= shape[i];
    SmallVector<float> mf(m.begin(), m.end());
    Value mat = c.emitCast(
        c.constant(DenseElementsAttr::get(
            RankedTensorType::get({out, in}, Float32Type::get(c.context())), ArrayRef<float>(mf))),
        elem);
    y = c.emit("matmul", {mat, c.emitReshape(y, {pre, in, post})});
    shape[axis] = out;
    y = c.emitReshape(y, shape);
    if (anyOutside) {
      SmallVector<int64_t> ms(rank, 1);
      ms[axis] = out;
      Value axisMask = c.constant(DenseElementsAttr::get(
          RankedTensorType::get(ms, IntegerType::get(c.context(), 8, IntegerType::Unsigned)),
          ArrayRef<uint8_t>(outside)));
      mask = mask ? c.emit("logicalOr", {mask, axisMask}) : axisMask;
    }
  }
  if (mask) y = c.emit("where", {mask, c.scalar(elem, p.extrapolation), y});
  return c.done(y);
}

}  // namespace mlir::webnn::onnx_import
