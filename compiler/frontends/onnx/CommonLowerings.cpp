// Lowerings shared by several ONNX ops across the letter-range tables.
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {

LogicalResult convertBinary(NodeConverter &c, StringRef webnnOp) {
  FailureOr<Value> a = c.requiredInput(0), b = c.requiredInput(1);
  if (failed(a) || failed(b)) return failure();
  Value rhs = *b;
  if (c.opset() < 7 && c.intAttr("broadcast", 0) == 1 && c.hasAttr("axis")) {
    // Legacy broadcast: B's dims line up with A's starting at `axis`; pad
    // B's shape with trailing 1s so numpy right-alignment means the same.
    int64_t rankA = NodeConverter::rankOf(*a), rankB = NodeConverter::rankOf(rhs);
    FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 0), rankA, "axis");
    if (failed(axis)) return failure();
    if (*axis + rankB > rankA) return c.fail("B does not fit in A at 'axis'");
    SmallVector<int64_t> shape(NodeConverter::shapeOf(rhs));
    shape.append(rankA - *axis - rankB, 1);
    FailureOr<Value> r = c.reshape(rhs, shape);
    if (failed(r)) return failure();
    rhs = *r;
  }
  FailureOr<Value> out = c.op(webnnOp, {*a, rhs});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertUnary(NodeConverter &c, StringRef webnnOp) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<Value> out = c.op(webnnOp, {*x});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Reads a per-spatial-dimension list attribute, default all `dflt`.
FailureOr<SmallVector<int64_t>> spatialListAttr(NodeConverter &c, StringRef name, size_t n,
                                                int64_t dflt) {
  std::optional<SmallVector<int64_t>> v = c.intsAttr(name);
  if (!v) return SmallVector<int64_t>(n, dflt);
  if (v->size() != n)
    return c.fail("'" + name + "' has " + Twine(v->size()) + " values, expected " + Twine(n)),
           failure();
  for (int64_t x : *v)
    if (x < 1) return c.fail("'" + name + "' values must be positive"), failure();
  return *v;
}

LogicalResult convertPool(NodeConverter &c, StringRef webnnOp) {
  FailureOr<Value> input = c.requiredInput(0);
  if (failed(input)) return failure();
  Value x = *input;
  if (webnnOp == "maxPool2d" && c.outputUsed(1)) return convertMaxPoolWithIndices(c, x);
  if (failed(c.rejectExtraOutputs(1, "pooling indices have no WebNN equivalent")))
    return failure();
  int64_t rank = NodeConverter::rankOf(x);
  if (rank == 5) return convertPool3d(c, webnnOp, x);
  if (rank != 3 && rank != 4)
    return c.fail("only 1-D, 2-D and 3-D pooling (rank 3, 4 or 5 input) is supported, got rank " +
                  Twine(rank));
  size_t n = rank - 2;
  std::optional<SmallVector<int64_t>> kernel = c.intsAttr("kernel_shape");
  if (!kernel) return c.fail("missing required attribute 'kernel_shape'");
  if (kernel->size() != n)
    return c.fail("'kernel_shape' has " + Twine(kernel->size()) + " values, expected " +
                  Twine(n));
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", n, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", n, 1);
  if (failed(strides) || failed(dilations)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  FailureOr<SmallVector<int64_t>> pads =
      resolveOnnxPads(c, shape.drop_front(2), *kernel, *strides, *dilations);
  if (failed(pads)) return failure();

  // 1-D pooling is 2-D pooling over a height-1 image.
  SmallVector<int64_t> k2 = *kernel, s2 = *strides, d2 = *dilations, p2 = *pads;
  if (n == 1) {
    k2 = {1, k2[0]};
    s2 = {1, s2[0]};
    d2 = {1, d2[0]};
    p2 = {0, (*pads)[0], 0, (*pads)[1]};
    FailureOr<Value> lifted = c.reshape(x, {shape[0], shape[1], 1, shape[2]});
    if (failed(lifted)) return failure();
    x = *lifted;
  }
  bool anyPad = llvm::any_of(p2, [](int64_t p) { return p != 0; });
  if (webnnOp == "averagePool2d" && c.intAttr("count_include_pad", 0) && anyPad) {
    // WebNN's averagePool2d leaves padding out of the divisor; ONNX's
    // count_include_pad=1 counts it, which is averaging a zero-padded input.
    FailureOr<Value> padded =
        c.op("pad", {x},
             {c.i64ArrayAttr("beginningPadding", {0, 0, p2[0], p2[1]}),
              c.i64ArrayAttr("endingPadding", {0, 0, p2[2], p2[3]})});
    if (failed(padded)) return failure();
    x = *padded;
    p2.assign(4, 0);
  }
  // maxPool2d takes floats; integer maxima are exact through float32 for
  // the 8-bit types ONNX MaxPool allows.
  Type elem = NodeConverter::typeOf(x).getElementType();
  bool viaFloat = webnnOp == "maxPool2d" && !mlir::isa<FloatType>(elem) &&
                  elem.getIntOrFloatBitWidth() <= 16;
  if (viaFloat) x = c.emitCast(x, Float32Type::get(c.context()));
  SmallVector<NamedAttribute> attrs = {
      c.i64ArrayAttr("windowDimensions", k2), c.i64ArrayAttr("padding", toWebNNPadding2d(p2)),
      c.i64ArrayAttr("strides", s2), c.i64ArrayAttr("dilations", d2),
      c.strAttr("roundingType", c.intAttr("ceil_mode", 0) ? "ceil" : "floor")};
  FailureOr<Value> out = c.op(webnnOp, {x}, attrs);
  if (failed(out)) return failure();
  Value result = *out;
  if (viaFloat) result = c.emitCast(result, elem);
  if (!result) return failure();
  if (n == 1) {
    ArrayRef<int64_t> s = NodeConverter::shapeOf(result);
    FailureOr<Value> lowered = c.reshape(result, {s[0], s[1], s[3]});
    if (failed(lowered)) return failure();
    result = *lowered;
  }
  c.setOutput(0, result);
  return success();
}

LogicalResult convertGlobalPool(NodeConverter &c, StringRef webnnOp) {
  FailureOr<Value> input = c.requiredInput(0);
  if (failed(input)) return failure();
  Value x = *input;
  SmallVector<int64_t> shape(NodeConverter::shapeOf(x));
  if (shape.size() < 3)
    return c.fail("global pooling needs an input of rank >= 3, got rank " + Twine(shape.size()));
  // Any number of spatial dims: pool a [N, C, 1, prod(spatial)] view.
  bool viewed = shape.size() != 4;
  if (viewed) {
    int64_t spatial = 1;
    for (int64_t d : ArrayRef<int64_t>(shape).drop_front(2)) spatial *= d;
    x = c.emitReshape(x, {shape[0], shape[1], 1, spatial});
  }
  // No windowDimensions: the window is the whole spatial extent.
  Value result = c.emit(webnnOp, {x});
  if (viewed) {
    SmallVector<int64_t> out(shape.size(), 1);
    out[0] = shape[0];
    out[1] = shape[1];
    result = c.emitReshape(result, out);
  }
  return c.done(result);
}

Value emitLogSoftmax(NodeConverter &c, Value x, int64_t axis) {
  Value m = c.emit("reduceMax", {x}, {c.i64ArrayAttr("axes", {axis}), c.boolAttr("keepDimensions", true)});
  Value shifted = c.emit("sub", {x, m});
  Value sum = c.emit("reduceSum", {c.emit("exp", {shifted})},
                     {c.i64ArrayAttr("axes", {axis}), c.boolAttr("keepDimensions", true)});
  return c.emit("sub", {shifted, c.emit("log", {sum})});
}

Value iotaAlong(NodeConverter &c, Type elem, int64_t n, int64_t axis, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  auto type = RankedTensorType::get(shape, elem);
  if (auto f = mlir::dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> v;
    for (int64_t i = 0; i < n; ++i) {
      APFloat a(static_cast<double>(i));
      bool lost;
      a.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(a);
    }
    return c.constant(DenseElementsAttr::get(type, v));
  }
  unsigned w = elem.getIntOrFloatBitWidth();
  SmallVector<APInt> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(APInt(w, i));
  return c.constant(DenseElementsAttr::get(type, v));
}

// The class axis is compared with an iota instead of gathering, so a target
// equal to an out-of-range ignore_index selects nothing rather than reading
// out of bounds.
Value emitNegativeLogLikelihood(NodeConverter &c, Value logProb, Value target, Value weight) {
  if (c.emitFailed() || !logProb) return Value();
  RankedTensorType t = NodeConverter::typeOf(logProb);
  int64_t rank = t.getRank();
  if (rank < 2) return c.fail("input must have rank >= 2"), Value();
  Type elem = t.getElementType();
  int64_t classes = t.getShape()[1];
  SmallVector<int64_t> targetShape(NodeConverter::shapeOf(target));
  if (static_cast<int64_t>(targetShape.size()) != rank - 1)
    return c.fail("target must have rank " + Twine(rank - 1)), Value();
  SmallVector<int64_t> lifted(targetShape);
  lifted.insert(lifted.begin() + 1, 1);
  Type idxType = NodeConverter::typeOf(target).getElementType();
  Value oneHot = c.emitCast(
      c.emit("equal", {c.emitReshape(target, lifted), iotaAlong(c, idxType, classes, 1, rank)}),
      elem);
  auto sumClasses = [&](Value v) {
    return c.emit("reduceSum", {v}, {c.i64ArrayAttr("axes", {1}), c.boolAttr("keepDimensions", false)});
  };
  Value picked = sumClasses(c.emit("mul", {logProb, oneHot}));
  Value w;  // per-element weight, 0 where ignored
  if (weight) {
    SmallVector<int64_t> wShape(rank, 1);
    wShape[1] = classes;
    w = sumClasses(c.emit("mul", {oneHot, c.emitReshape(weight, wShape)}));
  } else {
    w = sumClasses(oneHot);
  }
  if (c.hasAttr("ignore_index")) {
    int64_t ignore = c.intAttr("ignore_index", 0);
    if (ignore >= 0 && ignore < classes) {
      Value keep = c.emit("notEqual", {target, c.scalar(idxType, ignore)});
      w = c.emit("mul", {w, c.emitCast(keep, elem)});
    }
  }
  Value loss = c.emit("neg", {c.emit("mul", {picked, w})});
  std::string reduction = c.stringAttr("reduction", "mean");
  if (reduction == "none") return loss;
  Value total = c.emit("reduceSum", {loss});
  if (reduction == "sum") return total;
  if (reduction != "mean") return c.fail("unknown reduction '" + reduction + "'"), Value();
  return c.emit("div", {total, c.emit("reduceSum", {w})});
}

Value emitCoerced2d(NodeConverter &c, Value x, int64_t axis,
                    llvm::function_ref<Value(Value, int64_t)> body) {
  if (c.emitFailed() || !x) return Value();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  int64_t rank = shape.size();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank || rank == 0)
    return c.fail("'axis' is out of range for rank " + Twine(rank)), Value();
  if (axis == rank - 1) return body(x, axis);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= shape[i];
  SmallVector<int64_t> original(shape);
  return c.emitReshape(body(c.emitReshape(x, {outer, inner}), 1), original);
}

// Hyperbolic functions from exp and log (WebNN has only tanh).
static LogicalResult convertHyperbolicAs(NodeConverter &c, StringRef which) {
  FailureOr<Value> input = c.requiredInput(0);
  if (failed(input)) return failure();
  Value x = *input;
  Type elem = NodeConverter::typeOf(x).getElementType();
  auto k = [&](double v) { return c.scalar(elem, v); };
  if (which == "sinh" || which == "cosh") {
    Value ep = c.emit("exp", {x}), en = c.emit("exp", {c.emit("neg", {x})});
    return c.done(c.emit("mul", {c.emit(which == "sinh" ? "sub" : "add", {ep, en}), k(0.5)}));
  }
  if (which == "asinh" || which == "acosh") {
    Value r = c.emit("sqrt", {c.emit(which == "asinh" ? "add" : "sub", {c.emit("mul", {x, x}), k(1)})});
    return c.done(c.emit("log", {c.emit("add", {x, r})}));
  }
  // atanh = 0.5 * log((1 + x) / (1 - x))
  Value q = c.emit("div", {c.emit("add", {k(1), x}), c.emit("sub", {k(1), x})});
  return c.done(c.emit("mul", {c.emit("log", {q}), k(0.5)}));
}
LogicalResult convertHyperbolic(NodeConverter &c) {
  std::string op = c.opType().lower();
  return convertHyperbolicAs(c, op);
}


// QuantizeLinear / DequantizeLinear: WebNN wants scale and zeroPoint with the
// input's rank and one shape, so a scalar becomes [1, ..., 1] and a per-axis
// vector lies along `axis`. An absent zero point is 0 of the quantized type
// (uint8 for QuantizeLinear).
LogicalResult convertQuantizeLike(NodeConverter &c, bool quantize) {
  FailureOr<Value> x = c.requiredInput(0), scale = c.requiredInput(1);
  if (failed(x) || failed(scale)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  if (int64_t block = c.intAttr("block_size", 0); block != 0) {
    // Blocked (opset 21): scale (and zero point) have x's rank, with
    // ceil(dim / block_size) along `axis`; WebNN's block-wise form needs the
    // blocks to divide the dimension exactly.
    FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 1), rank, "axis");
    if (failed(axis)) return failure();
    ArrayRef<int64_t> xs = NodeConverter::shapeOf(*x), ss = NodeConverter::shapeOf(*scale);
    bool fits = block > 0 && int64_t(ss.size()) == rank;
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = d == *axis ? xs[d] == ss[d] * block : xs[d] == ss[d];
    if (!fits)
      return c.fail("blocked quantization needs a scale of the input's rank with dimension " + Twine(*axis) +
                    " = input / block_size (" + Twine(block) + ") exactly");
    SmallVector<int64_t> sShape(ss);
    Value zp = c.hasInput(2) ? c.input(2)
                             : c.splat(quantize ? Type(IntegerType::get(c.context(), 8, IntegerType::Unsigned))
                                                : NodeConverter::typeOf(*x).getElementType(),
                                       sShape, 0);
    return c.done(c.emit(quantize ? "quantizeLinear" : "dequantizeLinear", {*x, *scale, zp}));
  }
  SmallVector<int64_t> shape(rank, 1);
  int64_t sRank = NodeConverter::rankOf(*scale);
  if (sRank == 1 && NodeConverter::shapeOf(*scale)[0] != 1) {
    FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 1), rank, "axis");
    if (failed(axis)) return failure();
    shape[*axis] = NodeConverter::shapeOf(*scale)[0];
  } else if (sRank > 1) {
    return c.fail("only scalar or per-axis scales are supported");
  }
  Value s = c.emitReshape(*scale, shape);
  Value zp;
  if (c.hasInput(2)) {
    zp = c.emitReshape(c.input(2), shape);
  } else {
    Type zt = quantize ? Type(IntegerType::get(c.context(), 8, IntegerType::Unsigned))
                       : NodeConverter::typeOf(*x).getElementType();
    zp = c.splat(zt, shape, 0);
  }
  return c.done(c.emit(quantize ? "quantizeLinear" : "dequantizeLinear", {*x, s, zp}));
}

}  // namespace mlir::webnn::onnx_import
