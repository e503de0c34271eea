// Data-dependent indexing ops built from index arithmetic and WebNN's gather
// and scatter ops: ReverseSequence, GatherND with batch_dims, GridSample,
// scatter reductions, MaxPool's Indices output, MaxUnpool.
#include <cmath>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

Type i64Type(NodeConverter &c) { return IntegerType::get(c.context(), 64); }

// ReverseSequence: y[b, t] = x[b, len_b - 1 - t] for t < len_b, else x[b, t]:
// a gatherElements along the time axis with indices computed from
// sequence_lens (constant or not).
LogicalResult convertReverseSequence(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), lens = c.requiredInput(1);
  if (failed(x) || failed(lens)) return failure();
  SmallVector<int64_t> shape(NodeConverter::shapeOf(*x));
  int64_t rank = shape.size();
  if (rank < 2) return c.fail("input must have rank >= 2");
  int64_t timeAxis = c.intAttr("time_axis", 0), batchAxis = c.intAttr("batch_axis", 1);
  if (!((timeAxis == 0 && batchAxis == 1) || (timeAxis == 1 && batchAxis == 0)))
    return c.fail("time_axis and batch_axis must be 0 and 1 in some order");
  SmallVector<int64_t> lenShape(rank, 1);
  lenShape[batchAxis] = shape[batchAxis];
  Value len = c.emitReshape(c.emitCast(*lens, i64Type(c)), lenShape);
  Value t = iotaAlong(c, i64Type(c), shape[timeAxis], timeAxis, rank);
  Value rev = c.emit("sub", {c.emit("sub", {len, c.scalar(i64Type(c), 1)}), t});
  Value idx = c.emit("where", {c.emit("lesser", {t, len}), rev, t});
  idx = c.emit("expand", {idx}, {c.i64ArrayAttr("newShape", shape)});
  return c.done(c.emit("gatherElements", {*x, idx}, {c.i64Attr("axis", timeAxis)}));
}

// GridSample (opset 16: bilinear / nearest / bicubic; zeros / border /
// reflection; align_corners) on 4-D X [N, C, H, W] and grid [N, Ho, Wo, 2],
// as ONNX Runtime and ONNX's reference compute it: grid coordinates are
// denormalized, an out-of-range coordinate is clamped (border) or reflected
// (reflection), then each tap is fetched with gatherElements from the
// flattened image, taps outside the image reading 0 (zeros) or the
// clamped / reflected pixel.
class GridSampler {
 public:
  GridSampler(NodeConverter &c, Value x, bool alignCorners, StringRef padding)
      : c_(c), x_(x), align_(alignCorners), padding_(padding) {
    ArrayRef<int64_t> s = NodeConverter::shapeOf(x);
    n_ = s[0], ch_ = s[1], h_ = s[2], w_ = s[3];
    elem_ = NodeConverter::typeOf(x).getElementType();
    flat_ = c.emitReshape(x, {n_, ch_, h_ * w_});
  }

  Value k(double v) { return c_.scalar(elem_, v); }

  // Normalized [-1, 1] -> pixel coordinate along a dimension of `size`.
  Value denormalize(Value g, int64_t size) {
    Value p1 = c_.emit("add", {g, k(1)});
    if (align_) return c_.emit("mul", {p1, k((size - 1) / 2.0)});
    return c_.emit("mul", {c_.emit("sub", {c_.emit("mul", {p1, k(size)}), k(1)}), k(0.5)});
  }
  double lo() const { return align_ ? 0.0 : -0.5; }
  double hi(int64_t size) const { return align_ ? size - 1.0 : size - 0.5; }

  // Reflects v into [lo, hi] (repeatedly, like a mirror pair).
  Value reflect(Value v, double lo, double hi) {
    double range = hi - lo;
    if (range <= 0) return c_.emit("add", {c_.emit("mul", {v, k(0)}), k(lo)});  // a 1-pixel axis
    Value below = c_.emit("lesser", {v, k(lo)}), above = c_.emit("greater", {v, k(hi)});
    Value dx = c_.emit("where", {below, c_.emit("sub", {k(lo), v}),
                                 c_.emit("where", {above, c_.emit("sub", {v, k(hi)}), k(0)})});
    Value flips = c_.emit("floor", {c_.emit("div", {dx, k(range)})});
    Value r = c_.emit("sub", {dx, c_.emit("mul", {flips, k(range)})});
    Value odd = c_.emit("equal", {c_.emit("sub", {flips, c_.emit("mul", {c_.emit("floor", {c_.emit("mul", {flips, k(0.5)})}), k(2)})}), k(1)});
    // below & even or above & odd -> lo + r; below & odd or above & even -> hi - r.
    Value toLo = c_.emit("logicalXor", {below, odd});
    Value moved = c_.emit("where", {toLo, c_.emit("add", {k(lo), r}), c_.emit("sub", {k(hi), r})});
    return c_.emit("where", {c_.emit("logicalOr", {below, above}), moved, v});
  }

  // Coordinate-level padding of an out-of-range sample point.
  Value padCoordinate(Value v, int64_t size) {
    if (padding_ == "border")
      return c_.emit("clamp", {v}, {c_.f64Attr("minValue", 0), c_.f64Attr("maxValue", size - 1.0)});
    if (padding_ == "reflection") return reflect(v, lo(), hi(size));
    return v;
  }

  // The pixels at integer-valued coordinates (xi, yi) [N, Ho*Wo] -> [N, C, Ho*Wo].
  Value pixels(Value xi, Value yi) {
    Value valid;
    if (padding_ == "zeros") {
      auto inside = [&](Value v, int64_t size) {
        return c_.emit("logicalAnd", {c_.emit("greaterOrEqual", {v, k(0)}),
                                      c_.emit("lesserOrEqual", {v, k(size - 1.0)})});
      };
      valid = c_.emit("logicalAnd", {inside(xi, w_), inside(yi, h_)});
    } else if (padding_ == "reflection") {
      xi = reflect(xi, lo(), hi(w_));
      yi = reflect(yi, lo(), hi(h_));
    }
    // Truncate toward zero like the references' integer casts, then keep the
    // index inside the image (border padding; harmless otherwise).
    auto index = [&](Value v, int64_t size) {
      Value tr = c_.emit("mul", {c_.emit("sign", {v}), c_.emit("floor", {c_.emit("abs", {v})})});
      return c_.emitCast(c_.emit("clamp", {tr}, {c_.f64Attr("minValue", 0), c_.f64Attr("maxValue", size - 1.0)}),
                         i64Type(c_));
    };
    Value li = c_.emit("add", {c_.emit("mul", {index(yi, h_), c_.scalar(i64Type(c_), w_)}), index(xi, w_)});
    if (!xi) return Value();  // an earlier emit failed (diagnosed at the node)
    int64_t m = NodeConverter::shapeOf(xi)[1];
    li = c_.emit("expand", {c_.emitReshape(li, {n_, 1, m})}, {c_.i64ArrayAttr("newShape", {n_, ch_, m})});
    Value v = c_.emit("gatherElements", {flat_, li}, {c_.i64Attr("axis", 2)});
    if (valid) v = c_.emit("where", {c_.emitReshape(valid, {n_, 1, m}), v, k(0)});
    return v;
  }

  Value weight(Value w) { return w ? c_.emitReshape(w, {n_, 1, NodeConverter::shapeOf(w)[1]}) : Value(); }

  int64_t n_, ch_, h_, w_;

 private:
  NodeConverter &c_;
  Value x_, flat_;
  Type elem_;
  bool align_;
  StringRef padding_;
};

LogicalResult convertGridSample(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), grid = c.requiredInput(1);
  if (failed(x) || failed(grid)) return failure();
  if (NodeConverter::rankOf(*x) != 4) return c.fail("only 4-D inputs are supported");
  if (!isa<FloatType>(NodeConverter::typeOf(*x).getElementType()) ||
      !isa<FloatType>(NodeConverter::typeOf(*grid).getElementType()))
    return c.fail("X and grid must be floating-point tensors");
  ArrayRef<int64_t> gs = NodeConverter::shapeOf(*grid);
  if (gs.size() != 4 || gs[3] != 2 || gs[0] != NodeConverter::shapeOf(*x)[0])
    return c.fail("grid must be [N, H_out, W_out, 2]");
  std::string mode = c.stringAttr("mode", c.opset() >= 20 ? "linear" : "bilinear");
  if (mode == "linear") mode = "bilinear";
  if (mode == "cubic") mode = "bicubic";
  std::string padding = c.stringAttr("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return c.fail("unknown mode '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return c.fail("unknown padding_mode '" + padding + "'");
  GridSampler s(c, *x, c.intAttr("align_corners", 0) != 0, padding);
  int64_t ho = gs[1], wo = gs[2], m = ho * wo;
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value g = c.emitCast(c.emitReshape(*grid, {s.n_, m, 2}), elem);
  auto component = [&](int64_t i) {
    return c.emitReshape(c.emit("slice", {g}, {c.i64ArrayAttr("starts", {0, 0, i}),
                                               c.i64ArrayAttr("sizes", {s.n_, m, 1})}),
                         {s.n_, m});
  };
  Value px = s.padCoordinate(s.denormalize(component(0), s.w_), s.w_);
  Value py = s.padCoordinate(s.denormalize(component(1), s.h_), s.h_);
  Value y;
  if (mode == "nearest") {
    y = s.pixels(c.emit("roundEven", {px}), c.emit("roundEven", {py}));
  } else if (mode == "bilinear") {
    Value x1 = c.emit("floor", {px}), y1 = c.emit("floor", {py});
    Value x2 = c.emit("add", {x1, s.k(1)}), y2 = c.emit("add", {y1, s.k(1)});
    Value dx1 = s.weight(c.emit("sub", {px, x1})), dx2 = s.weight(c.emit("sub", {x2, px}));
    Value dy1 = s.weight(c.emit("sub", {py, y1})), dy2 = s.weight(c.emit("sub", {y2, py}));
    Value top = c.emit("add", {c.emit("mul", {dx2, s.pixels(x1, y1)}), c.emit("mul", {dx1, s.pixels(x2, y1)})});
    Value bottom = c.emit("add", {c.emit("mul", {dx2, s.pixels(x1, y2)}), c.emit("mul", {dx1, s.pixels(x2, y2)})});
    y = c.emit("add", {c.emit("mul", {dy2, top}), c.emit("mul", {dy1, bottom})});
  } else {
    // Bicubic, A = -0.75, on the 4x4 taps around (floor(x), floor(y)).
    auto coeffs = [&](Value t) {
      double a = -0.75;
      auto far = [&](Value d) {  // ((a d - 5a) d + 8a) d - 4a
        Value r = c.emit("sub", {c.emit("mul", {d, s.k(a)}), s.k(5 * a)});
        r = c.emit("add", {c.emit("mul", {r, d}), s.k(8 * a)});
        return c.emit("sub", {c.emit("mul", {r, d}), s.k(4 * a)});
      };
      auto near = [&](Value d) {  // ((a + 2) d - (a + 3)) d d + 1
        Value r = c.emit("sub", {c.emit("mul", {d, s.k(a + 2)}), s.k(a + 3)});
        return c.emit("add", {c.emit("mul", {c.emit("mul", {r, d}), d}), s.k(1)});
      };
      Value one = s.k(1), two = s.k(2);
      return SmallVector<Value>{s.weight(far(c.emit("add", {t, one}))), s.weight(near(t)),
                                s.weight(near(c.emit("sub", {one, t}))),
                                s.weight(far(c.emit("sub", {two, t})))};
    };
    Value fx = c.emit("floor", {px}), fy = c.emit("floor", {py});
    SmallVector<Value> cx = coeffs(c.emit("sub", {px, fx})), cy = coeffs(c.emit("sub", {py, fy}));
    for (int64_t j = 0; j < 4; ++j) {
      Value yj = c.emit("add", {fy, s.k(j - 1)}), row;
      for (int64_t i = 0; i < 4; ++i) {
        Value term = c.emit("mul", {cx[i], s.pixels(c.emit("add", {fx, s.k(i - 1)}), yj)});
        row = row ? c.emit("add", {row, term}) : term;
      }
      Value term = c.emit("mul", {cy[j], row});
      y = y ? c.emit("add", {y, term}) : term;
    }
  }
  return c.done(c.emitReshape(y, {s.n_, s.ch_, ho, wo}));
}

}  // namespace

// GatherND with batch_dims = b: the batch coordinates are prepended to every
// index tuple, which makes it a plain gatherND.
Value emitGatherNDBatched(NodeConverter &c, Value x, Value idx, int64_t batchDims) {
  if (c.emitFailed() || !x || !idx) return Value();
  if (batchDims == 0) return c.emit("gatherND", {x, idx});
  SmallVector<int64_t> is(NodeConverter::shapeOf(idx));
  int64_t rank = is.size();
  if (batchDims < 0 || batchDims >= rank || batchDims >= NodeConverter::rankOf(x))
    return c.fail("batch_dims is out of range"), Value();
  Type it = NodeConverter::typeOf(idx).getElementType();
  SmallVector<int64_t> coordShape(is);
  coordShape.back() = 1;
  SmallVector<Value> parts;
  for (int64_t d = 0; d < batchDims; ++d) {
    Value iota = iotaAlong(c, it, is[d], d, rank);
    parts.push_back(c.emit("expand", {iota}, {c.i64ArrayAttr("newShape", coordShape)}));
  }
  parts.push_back(idx);
  Value full = c.emit("concat", parts, {c.i64Attr("axis", rank - 1)});
  return c.emit("gatherND", {x, full});
}

// ScatterND with a reduction (add, mul, max, min): WebNN's scatterND
// overwrites, so repeated indices would lose updates. The update rows are
// applied one after another in order (gatherND the current value, combine,
// scatterND it back), which is ONNX's definition; bounded to keep graphs sane.
constexpr int64_t kMaxSequentialScatterRows = 4096;

Value emitScatterNDReduce(NodeConverter &c, Value x, Value idx, Value upd, StringRef reduction) {
  if (c.emitFailed() || !x || !idx || !upd) return Value();
  StringRef op = reduction == "add" ? "add" : reduction == "mul" ? "mul"
                 : reduction == "max" ? "max" : reduction == "min" ? "min" : "";
  if (op.empty()) return c.fail("unknown reduction '" + reduction + "'"), Value();
  SmallVector<int64_t> is(NodeConverter::shapeOf(idx)), us(NodeConverter::shapeOf(upd));
  if (is.empty()) return c.fail("indices must have rank >= 1"), Value();
  int64_t k = is.back(), rows = 1;
  for (int64_t d : ArrayRef<int64_t>(is).drop_back()) rows *= d;
  if (rows > kMaxSequentialScatterRows)
    return c.fail("scatter with reduction '" + reduction + "' over " + Twine(rows) +
                  " index rows: more than the " + Twine(kMaxSequentialScatterRows) +
                  " applied one by one"),
           Value();
  SmallVector<int64_t> rest(ArrayRef<int64_t>(us).drop_front(is.size() - 1));
  SmallVector<int64_t> updRows = {rows};
  updRows.append(rest);
  Value idx2 = c.emitReshape(idx, {rows, k});
  Value upd2 = c.emitReshape(upd, updRows);
  for (int64_t r = 0; r < rows; ++r) {
    Value ir = c.emit("slice", {idx2}, {c.i64ArrayAttr("starts", {r, 0}), c.i64ArrayAttr("sizes", {1, k})});
    SmallVector<int64_t> start(updRows.size(), 0), size(updRows);
    start[0] = r;
    size[0] = 1;
    Value ur = c.emit("slice", {upd2}, {c.i64ArrayAttr("starts", start), c.i64ArrayAttr("sizes", size)});
    Value cur = c.emit("gatherND", {x, ir});
    x = c.emit("scatterND", {x, ir, c.emit(op, {cur, ur})});
  }
  return x;
}

// ScatterElements with a reduction: every index element becomes a full
// coordinate tuple (the iota of each other dimension, the index along
// `axis`), which is a ScatterND with a reduction.
Value emitScatterElementsReduce(NodeConverter &c, Value x, Value idx, Value upd, int64_t axis,
                                StringRef reduction) {
  if (c.emitFailed() || !x || !idx || !upd) return Value();
  SmallVector<int64_t> is(NodeConverter::shapeOf(idx));
  int64_t rank = is.size();
  Type i64 = IntegerType::get(c.context(), 64);
  SmallVector<int64_t> one(is);
  one.push_back(1);
  SmallVector<Value> coords;
  for (int64_t d = 0; d < rank; ++d) {
    Value v = d == axis ? c.emitCast(idx, i64)
                        : c.emit("expand", {iotaAlong(c, i64, is[d], d, rank)}, {c.i64ArrayAttr("newShape", is)});
    coords.push_back(c.emitReshape(v, one));
  }
  Value full = coords.size() == 1 ? coords[0] : c.emit("concat", coords, {c.i64Attr("axis", rank)});
  return emitScatterNDReduce(c, x, full, upd, reduction);
}

// MaxPool with its Indices output (2-D): the windows are gathered with
// constant indices from the -inf-padded image ([N, C, Ho*Wo, kH*kW]); the
// value is their max and the index the first maximal tap's flat position in
// the unpadded input (h * W + w, or w * H + h for storage_order=1) plus the
// (n, c) plane's offset, as ONNX defines.
LogicalResult convertMaxPoolWithIndices(NodeConverter &c, Value x) {
  SmallVector<int64_t> xs(NodeConverter::shapeOf(x));
  if (xs.size() != 4) return c.fail("MaxPool's Indices output is supported for 2-D pooling only");
  std::optional<SmallVector<int64_t>> kernel = c.intsAttr("kernel_shape");
  if (!kernel || kernel->size() != 2) return c.fail("'kernel_shape' must have 2 values");
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", 2, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", 2, 1);
  if (failed(strides) || failed(dilations)) return failure();
  FailureOr<SmallVector<int64_t>> pads =
      resolveOnnxPads(c, ArrayRef<int64_t>(xs).drop_front(2), *kernel, *strides, *dilations);
  if (failed(pads)) return failure();
  bool ceil = c.intAttr("ceil_mode", 0) != 0, colMajor = c.intAttr("storage_order", 0) != 0;
  int64_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  SmallVector<int64_t> out(2), end(2);
  for (int i = 0; i < 2; ++i) {
    int64_t padded = xs[2 + i] + (*pads)[i] + (*pads)[2 + i];
    int64_t eff = ((*kernel)[i] - 1) * (*dilations)[i] + 1, span = padded - eff;
    if (span < 0) return c.fail("the window is larger than the padded input");
    out[i] = (ceil ? (span + (*strides)[i] - 1) / (*strides)[i] : span / (*strides)[i]) + 1;
    // A ceil-mode window must start inside the input or its left padding.
    if (ceil && (out[i] - 1) * (*strides)[i] >= xs[2 + i] + (*pads)[i]) --out[i];
    end[i] = std::max<int64_t>((*pads)[2 + i], (out[i] - 1) * (*strides)[i] + eff - xs[2 + i] - (*pads)[i]);
  }
  Type elem = NodeConverter::typeOf(x).getElementType();
  Value xf = c.emitCast(x, Float32Type::get(c.context()));
  xf = c.emit("pad", {xf}, {c.i64ArrayAttr("beginningPadding", {0, 0, (*pads)[0], (*pads)[1]}),
                            c.i64ArrayAttr("endingPadding", {0, 0, end[0], end[1]}),
                            c.f64Attr("value", -INFINITY)});
  int64_t hp = h + (*pads)[0] + end[0], wp = w + (*pads)[1] + end[1];
  int64_t kk = (*kernel)[0] * (*kernel)[1], m = out[0] * out[1];
  SmallVector<int64_t> taps, origin;
  for (int64_t oh = 0; oh < out[0]; ++oh)
    for (int64_t ow = 0; ow < out[1]; ++ow)
      for (int64_t kh = 0; kh < (*kernel)[0]; ++kh)
        for (int64_t kw = 0; kw < (*kernel)[1]; ++kw) {
          int64_t ph = oh * (*strides)[0] + kh * (*dilations)[0], pw = ow * (*strides)[1] + kw * (*dilations)[1];
          taps.push_back(ph * wp + pw);
          int64_t ih = std::clamp<int64_t>(ph - (*pads)[0], 0, h - 1), iw = std::clamp<int64_t>(pw - (*pads)[1], 0, w - 1);
          origin.push_back(colMajor ? iw * h + ih : ih * w + iw);
        }
  Value win = c.emit("gather", {c.emitReshape(xf, {n, ch, hp * wp}), c.constantI64(taps, {m, kk})},
                     {c.i64Attr("axis", 2)});
  Value values = c.emit("reduceMax", {win}, {c.i64ArrayAttr("axes", {3}), c.boolAttr("keepDimensions", false)});
  Type i64 = IntegerType::get(c.context(), 64);
  Value which = c.emit("argMax", {win}, {c.i64Attr("axis", 3), c.boolAttr("keepDimensions", true),
                                         c.builder().getNamedAttr("outputDataType", TypeAttr::get(i64))});
  Value table = c.emit("expand", {c.constantI64(origin, {1, 1, m, kk})}, {c.i64ArrayAttr("newShape", {n, ch, m, kk})});
  Value idx = c.emit("gatherElements", {table, which}, {c.i64Attr("axis", 3)});
  SmallVector<int64_t> planes;
  for (int64_t p = 0; p < n * ch; ++p) planes.push_back(p * h * w);
  idx = c.emit("add", {c.emitReshape(idx, {n, ch, out[0], out[1]}), c.constantI64(planes, {n, ch, 1, 1})});
  values = c.emitCast(c.emitReshape(values, {n, ch, out[0], out[1]}), elem);
  if (c.emitFailed() || !values || !idx) return failure();
  c.setOutput(0, values);
  c.setOutput(1, idx);
  return success();
}

// MaxUnpool: zeros of the unpooled shape ((in - 1) * stride + kernel - pads)
// with X scattered to the flat positions in I (as MaxPool's Indices give
// them); a larger output_shape adds zeros at the end of each dimension, the
// indices keeping their meaning (ONNX's reference does the same).
LogicalResult convertMaxUnpool(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), idx = c.requiredInput(1);
  if (failed(x) || failed(idx)) return failure();
  SmallVector<int64_t> xs(NodeConverter::shapeOf(*x));
  int64_t rank = xs.size(), n = rank - 2;
  if (rank < 3) return c.fail("input must have rank >= 3");
  std::optional<SmallVector<int64_t>> kernel = c.intsAttr("kernel_shape");
  if (!kernel || static_cast<int64_t>(kernel->size()) != n) return c.fail("bad 'kernel_shape'");
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", n, 1);
  if (failed(strides)) return failure();
  SmallVector<int64_t> pads = c.intsAttr("pads").value_or(SmallVector<int64_t>(2 * n, 0));
  if (static_cast<int64_t>(pads.size()) != 2 * n) return c.fail("bad 'pads'");
  SmallVector<int64_t> shape = {xs[0], xs[1]};
  for (int64_t i = 0; i < n; ++i)
    shape.push_back((xs[2 + i] - 1) * (*strides)[i] + (*kernel)[i] - pads[i] - pads[n + i]);
  SmallVector<int64_t> outShape = shape;
  if (c.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> s = c.constantIntsInput(2, "output_shape");
    if (failed(s)) return failure();
    outShape = *s;
    if (static_cast<int64_t>(outShape.size()) != rank) return c.fail("'output_shape' has the wrong length");
    for (int64_t i = 0; i < rank; ++i)
      if (outShape[i] < shape[i] || (i < 2 && outShape[i] != shape[i]))
        return c.fail("'output_shape' is smaller than the unpooled shape");
  }
  int64_t total = 1, count = 1;
  for (int64_t d : shape) total *= d;
  for (int64_t d : xs) count *= d;
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value zeros = c.splat(elem, {total}, 0);
  Value y = c.emit("scatterElements", {zeros, c.emitReshape(*idx, {count}), c.emitReshape(*x, {count})},
                   {c.i64Attr("axis", 0)});
  y = c.emitReshape(y, shape);
  if (outShape != shape) {
    SmallVector<int64_t> extra(rank), none(rank, 0);
    for (int64_t i = 0; i < rank; ++i) extra[i] = outShape[i] - shape[i];
    y = c.emit("pad", {y}, {c.i64ArrayAttr("beginningPadding", none), c.i64ArrayAttr("endingPadding", extra)});
  }
  return c.done(y);
}

// Compress with a compile-time condition: a gather of the selected indices
// (the output shape depends on the condition, so it must be known).
LogicalResult convertCompress(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0);
  FailureOr<ConstantData> cond = c.requireConstantInput(1, "condition");
  if (failed(input) || failed(cond)) return failure();
  Value x = *input;
  int64_t axis = 0;
  if (c.hasAttr("axis")) {
    FailureOr<int64_t> a = c.normalizeAxis(c.intAttr("axis", 0), NodeConverter::rankOf(x), "axis");
    if (failed(a)) return failure();
    axis = *a;
  } else {
    x = c.emitReshape(x, {NodeConverter::typeOf(x).getNumElements()});
    if (!x) return failure();
  }
  int64_t dim = NodeConverter::shapeOf(x)[axis];
  if (cond->numElements() > dim) return c.fail("'condition' is longer than the selected axis");
  SmallVector<int64_t> idx;
  for (int64_t i = 0; i < cond->numElements(); ++i)
    if (cond->intAt(i)) idx.push_back(i);
  if (idx.empty()) return c.fail("the condition selects nothing: an empty result");
  return c.done(c.emit("gather", {x, c.constantI64(idx, {static_cast<int64_t>(idx.size())})},
                       {c.i64Attr("axis", axis)}));
}

// NonZero of a compile-time constant: the [rank, count] int64 coordinates.
LogicalResult convertNonZero(NodeConverter &c) {
  FailureOr<ConstantData> x = c.requireConstantInput(0, "X");
  if (failed(x)) return failure();
  ArrayRef<int64_t> shape = x->type.getShape();
  int64_t rank = shape.size();
  bool isFloat = mlir::isa<FloatType>(x->type.getElementType());
  SmallVector<SmallVector<int64_t>> coords(std::max<int64_t>(rank, 1));
  int64_t count = 0;
  for (int64_t i = 0; i < x->numElements(); ++i) {
    if (isFloat ? x->floatAt(i) == 0 : x->intAt(i) == 0) continue;
    ++count;
    int64_t rem = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      coords[d].push_back(rem % shape[d]);
      rem /= shape[d];
    }
    if (rank == 0) coords[0].push_back(0);
  }
  if (count == 0) return c.fail("no non-zero elements: an empty result");
  SmallVector<int64_t> flat;
  for (auto &row : coords) flat.append(row);
  return c.done(c.constantI64(flat, {std::max<int64_t>(rank, 1), count}));
}

// RoiAlign (X [N, C, H, W], rois [R, 4] as x1, y1, x2, y2, batch_indices
// [R]) with a fixed sampling_ratio, as ONNX Runtime and ONNX's reference
// compute it: per roi and output bin, sampling_ratio^2 bilinear samples
// (out-of-image samples count as 0; coordinates clamped at the border), then
// their average or max (max of the four weighted corners per sample). The
// sample coordinates are separable, so the y and x terms are computed per axis
// and combined on the [R, Sy, Sx] grid; values come from gatherElements on
// each roi's image.
LogicalResult convertRoiAlign(NodeConverter &c) {
  FailureOr<Value> xIn = c.requiredInput(0), roisIn = c.requiredInput(1), bIn = c.requiredInput(2);
  if (failed(xIn) || failed(roisIn) || failed(bIn)) return failure();
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(*xIn), rs = NodeConverter::shapeOf(*roisIn);
  if (xs.size() != 4) return c.fail("X must be [N, C, H, W]");
  if (rs.size() != 2 || rs[1] != 4) return c.fail("rois must be [num_rois, 4]");
  int64_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3], r = rs[0];
  int64_t oh = c.intAttr("output_height", 1), ow = c.intAttr("output_width", 1);
  int64_t ratio = c.intAttr("sampling_ratio", 0);
  if (ratio <= 0)
    return c.fail("sampling_ratio 0 (adaptive: the sample count depends on each roi's size) is not supported");
  if (oh < 1 || ow < 1) return c.fail("output_height/output_width must be positive");
  std::string mode = c.stringAttr("mode", "avg");
  if (mode != "avg" && mode != "max") return c.fail("unknown mode '" + mode + "'");
  std::string ctm = c.opset() >= 16 ? c.stringAttr("coordinate_transformation_mode", "half_pixel")
                                    : "output_half_pixel";
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return c.fail("unknown coordinate_transformation_mode '" + ctm + "'");
  bool halfPixel = ctm == "half_pixel";
  Type elem = NodeConverter::typeOf(*xIn).getElementType();
  Type i64 = IntegerType::get(c.context(), 64);
  auto k = [&](double v) { return c.scalar(elem, v); };
  double scale = c.floatAttr("spatial_scale", 1.0f), offset = halfPixel ? 0.5 : 0.0;
  Value rois = c.emitCast(*roisIn, elem);
  auto coord = [&](int64_t i) {
    Value v = c.emit("slice", {rois}, {c.i64ArrayAttr("starts", {0, i}), c.i64ArrayAttr("sizes", {r, 1})});
    return c.emit("sub", {c.emit("mul", {v, k(scale)}), k(offset)});  // [R, 1]
  };
  // Sample positions along one axis: [R, bins * ratio].
  auto samples = [&](Value start, Value end, int64_t bins) {
    Value len = c.emit("sub", {end, start});
    if (!halfPixel) len = c.emit("max", {len, k(1)});
    Value bin = c.emit("div", {len, k(bins)});
    SmallVector<float> f;
    for (int64_t b = 0; b < bins; ++b)
      for (int64_t i = 0; i < ratio; ++i) f.push_back(b + (i + 0.5f) / ratio);
    Value frac = c.emitCast(c.constant(DenseElementsAttr::get(
                                RankedTensorType::get({1, bins * ratio}, Float32Type::get(c.context())),
                                ArrayRef<float>(f))),
                            elem);
    return c.emit("add", {start, c.emit("mul", {frac, bin})});
  };
  struct Axis {
    Value valid, low, high, wLow, wHigh;
  };
  auto axis = [&](Value pos, int64_t size) {
    Axis a;
    a.valid = c.emit("logicalAnd", {c.emit("greaterOrEqual", {pos, k(-1)}), c.emit("lesserOrEqual", {pos, k(size)})});
    Value p = c.emit("max", {pos, k(0)});
    Value lo = c.emit("floor", {p});
    Value atEdge = c.emit("greaterOrEqual", {lo, k(size - 1)});
    lo = c.emit("where", {atEdge, k(size - 1), lo});
    p = c.emit("where", {atEdge, lo, p});
    Value hi = c.emit("where", {atEdge, lo, c.emit("add", {lo, k(1)})});
    a.wHigh = c.emit("sub", {p, lo});
    a.wLow = c.emit("sub", {k(1), a.wHigh});
    a.low = c.emitCast(lo, i64);
    a.high = c.emitCast(hi, i64);
    return a;
  };
  int64_t sy = oh * ratio, sx = ow * ratio;
  Axis ay = axis(samples(coord(1), coord(3), oh), h), ax = axis(samples(coord(0), coord(2), ow), w);
  Value image = c.emit("gather", {c.emitReshape(*xIn, {n, ch, h * w}), *bIn}, {c.i64Attr("axis", 0)});  // [R, C, HW]
  auto gridY = [&](Value v) { return c.emitReshape(v, {r, sy, 1}); };
  auto gridX = [&](Value v) { return c.emitReshape(v, {r, 1, sx}); };
  Value valid = c.emitReshape(c.emit("logicalAnd", {gridY(ay.valid), gridX(ax.valid)}), {r, 1, sy * sx});
  SmallVector<Value> terms;
  for (int iy = 0; iy < 2; ++iy)
    for (int ix = 0; ix < 2; ++ix) {
      Value yi = iy ? ay.high : ay.low, xi = ix ? ax.high : ax.low;
      Value idx = c.emit("add", {c.emit("mul", {gridY(yi), c.scalar(i64, w)}), gridX(xi)});
      idx = c.emit("expand", {c.emitReshape(idx, {r, 1, sy * sx})}, {c.i64ArrayAttr("newShape", {r, ch, sy * sx})});
      Value v = c.emit("gatherElements", {image, idx}, {c.i64Attr("axis", 2)});
      Value wt = c.emit("mul", {gridY(iy ? ay.wHigh : ay.wLow), gridX(ix ? ax.wHigh : ax.wLow)});
      terms.push_back(c.emit("mul", {v, c.emitReshape(wt, {r, 1, sy * sx})}));
    }
  Value combined = mode == "avg"
                       ? c.emit("add", {c.emit("add", {terms[0], terms[1]}), c.emit("add", {terms[2], terms[3]})})
                       : c.emit("max", {c.emit("max", {terms[0], terms[1]}), c.emit("max", {terms[2], terms[3]})});
  combined = c.emit("where", {valid, combined, k(0)});
  combined = c.emitReshape(combined, {r, ch, oh, ratio, ow, ratio});
  SmallVector<NamedAttribute> red = {c.i64ArrayAttr("axes", {3, 5}), c.boolAttr("keepDimensions", false)};
  return c.done(c.emit(mode == "avg" ? "reduceMean" : "reduceMax", {combined}, red));
}

void populateDefaultDomainIndexing(OpConverterTable &t) {
  t.add("", "RoiAlign", 10, convertRoiAlign);
  t.add("", "Compress", 9, convertCompress);
  t.add("", "NonZero", 9, convertNonZero);
  t.add("", "MaxUnpool", 9, convertMaxUnpool);
  t.add("", "GridSample", 16, convertGridSample);
  t.add("", "ReverseSequence", 10, convertReverseSequence);
}

}  // namespace mlir::webnn::onnx_import
