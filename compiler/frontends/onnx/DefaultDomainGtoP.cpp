// ai.onnx operators G..P -> WebNN. Semantics: onnx/docs/Operators.md.
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

LogicalResult convertMul(NodeConverter &c) { return convertBinary(c, "mul"); }
// Pow-12+ lets the exponent's type differ from the base's; the result has
// the base's type, so the exponent is cast to it (WebNN pow needs one type).
LogicalResult convertPow(NodeConverter &c) {
  if (c.opset() < 7) return convertBinary(c, "pow");  // legacy broadcast, one type
  FailureOr<Value> base = c.requiredInput(0);
  if (failed(base)) return failure();
  FailureOr<Value> exponent = c.requiredInput(1);
  if (failed(exponent)) return failure();
  Type elem = NodeConverter::typeOf(*base).getElementType();
  Value e = *exponent;
  if (NodeConverter::typeOf(e).getElementType() != elem) {
    FailureOr<Value> cast = c.op("cast", {e}, {c.builder().getNamedAttr("type", TypeAttr::get(elem))});
    if (failed(cast)) return failure();
    e = *cast;
  }
  FailureOr<Value> out = c.op("pow", {*base, e});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}
LogicalResult convertLog(NodeConverter &c) { return convertUnary(c, "log"); }
LogicalResult convertNeg(NodeConverter &c) { return convertUnary(c, "neg"); }
LogicalResult convertMaxPool(NodeConverter &c) { return convertPool(c, "maxPool2d"); }
LogicalResult convertGlobalAveragePool(NodeConverter &c) {
  return convertGlobalPool(c, "averagePool2d");
}
LogicalResult convertGlobalMaxPool(NodeConverter &c) { return convertGlobalPool(c, "maxPool2d"); }

// Gather of constants stays constant (Shape -> Gather is shape arithmetic).
std::optional<Value> foldGather(NodeConverter &c, const ConstantData &data,
                                ArrayRef<int64_t> indices, ArrayRef<int64_t> indicesShape,
                                int64_t axis) {
  constexpr int64_t kMaxFoldElements = 1 << 16;
  ArrayRef<int64_t> shape = data.type.getShape();
  SmallVector<int64_t> outShape(shape.take_front(axis));
  outShape.append(indicesShape.begin(), indicesShape.end());
  outShape.append(shape.begin() + axis + 1, shape.end());
  auto outType = RankedTensorType::get(outShape, data.type.getElementType());
  if (outType.getNumElements() > kMaxFoldElements) return std::nullopt;
  unsigned w = (data.type.getElementTypeBitWidth() + 7) / 8;
  int64_t outer = 1, inner = w;
  for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
  std::vector<char> src = data.expandedBytes(), bytes;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t idx : indices) {
      const char *from = src.data() + (o * shape[axis] + idx) * inner;
      bytes.insert(bytes.end(), from, from + inner);
    }
  return c.constant(DenseElementsAttr::getFromRawBuffer(outType, bytes));
}

LogicalResult convertGather(NodeConverter &c) {
  FailureOr<Value> data = c.requiredInput(0), indices = c.requiredInput(1);
  if (failed(data) || failed(indices)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*data);
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 0), shape.size(), "axis");
  if (failed(axis)) return failure();
  Value idx = *indices;
  std::optional<ConstantData> cidx = c.constantInput(1);
  if (cidx && ShapedType::isDynamic(shape[*axis])) {
    // The axis length is known only at run time: indices counted from the
    // start index the data, indices counted from the end (all negative)
    // index the axis reversed (-1 is its first element).
    SmallVector<int64_t> values = cidx->ints();
    bool allNegative = llvm::all_of(values, [](int64_t v) { return v < 0; });
    if (!allNegative && llvm::any_of(values, [](int64_t v) { return v < 0; }))
      return c.fail("indices along dynamic dimension " + Twine(*axis) +
                    " must all count from the start or all from the end (fix the dimension with --shape)");
    Value source = *data;
    if (allNegative) {
      for (int64_t &v : values) v = -v - 1;
      source = c.emit("reverse", {source}, {c.i64ArrayAttr("axes", {*axis})});
      idx = c.constantI64(values, cidx->type.getShape());
    }
    return c.done(c.emit("gather", {source, idx}, {c.i64Attr("axis", *axis)}));
  }
  if (cidx) {
    // ONNX counts negative indices from the end; WebNN does not, so resolve
    // them here while they are known.
    SmallVector<int64_t> values = cidx->ints();
    bool anyNegative = false;
    for (int64_t &v : values) {
      if (v < -shape[*axis] || v >= shape[*axis])
        return c.fail("index " + Twine(v) + " is out of range for dimension " + Twine(*axis) +
                      " of size " + Twine(shape[*axis]));
      if (v < 0) v += shape[*axis], anyNegative = true;
    }
    if (std::optional<ConstantData> cdata = c.constantInput(0)) {
      if (std::optional<Value> folded =
              foldGather(c, *cdata, values, cidx->type.getShape(), *axis)) {
        c.setOutput(0, *folded);
        return success();
      }
    }
    if (anyNegative)
      idx = c.constantI64(values, cidx->type.getShape());
  }
  FailureOr<Value> out = c.op("gather", {*data, idx}, {c.i64Attr("axis", *axis)});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Gemm: Y = alpha * A' * B' + beta * C, C unidirectionally broadcast to [M, N].
LogicalResult convertGemm(NodeConverter &c) {
  FailureOr<Value> a = c.requiredInput(0), b = c.requiredInput(1);
  if (failed(a) || failed(b)) return failure();
  FailureOr<Value> out = c.op(
      "gemm", {*a, *b, c.input(2)},
      {c.f64Attr("alpha", c.floatAttr("alpha", 1.0f)), c.f64Attr("beta", c.floatAttr("beta", 1.0f)),
       c.boolAttr("aTranspose", c.intAttr("transA", 0) != 0),
       c.boolAttr("bTranspose", c.intAttr("transB", 0) != 0)});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertHardSigmoid(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<Value> out =
      c.op("hardSigmoid", {*x},
           {c.f64Attr("alpha", c.floatAttr("alpha", 0.2f)), c.f64Attr("beta", c.floatAttr("beta", 0.5f))});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertIdentity(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  c.setOutput(0, *x);
  return success();
}

LogicalResult convertLeakyRelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<Value> out =
      c.op("leakyRelu", {*x}, {c.f64Attr("alpha", c.floatAttr("alpha", 0.01f))});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// MatMul has numpy semantics: a 1-D A is a row [1, K], a 1-D B a column
// [K, 1], and the added dimension is removed from the result. WebNN matmul
// needs rank >= 2.
LogicalResult convertMatMul(NodeConverter &c) {
  FailureOr<Value> a = c.requiredInput(0), b = c.requiredInput(1);
  if (failed(a) || failed(b)) return failure();
  Value lhs = *a, rhs = *b;
  bool rowVector = NodeConverter::rankOf(lhs) == 1, columnVector = NodeConverter::rankOf(rhs) == 1;
  if (NodeConverter::rankOf(lhs) == 0 || NodeConverter::rankOf(rhs) == 0)
    return c.fail("MatMul operands must have rank >= 1");
  if (rowVector) {
    FailureOr<Value> r = c.reshape(lhs, {1, NodeConverter::shapeOf(lhs)[0]});
    if (failed(r)) return failure();
    lhs = *r;
  }
  if (columnVector) {
    FailureOr<Value> r = c.reshape(rhs, {NodeConverter::shapeOf(rhs)[0], 1});
    if (failed(r)) return failure();
    rhs = *r;
  }
  FailureOr<Value> out = c.op("matmul", {lhs, rhs});
  if (failed(out)) return failure();
  Value result = *out;
  if (rowVector || columnVector) {
    SmallVector<int64_t> shape(NodeConverter::shapeOf(result));
    if (columnVector) shape.erase(shape.end() - 1);
    if (rowVector) shape.erase(shape.end() - (columnVector ? 1 : 2));
    FailureOr<Value> r = c.reshape(result, shape);
    if (failed(r)) return failure();
    result = *r;
  }
  c.setOutput(0, result);
  return success();
}

// Max/Min take 1..N inputs in ONNX; WebNN's are binary.
LogicalResult convertVariadicBinary(NodeConverter &c, StringRef webnnOp) {
  if (c.numInputs() == 0) return c.fail("needs at least one input");
  FailureOr<Value> acc = c.requiredInput(0);
  if (failed(acc)) return failure();
  for (size_t i = 1; i < c.numInputs(); ++i) {
    FailureOr<Value> next = c.requiredInput(i);
    if (failed(next)) return failure();
    acc = c.op(webnnOp, {*acc, *next});
    if (failed(acc)) return failure();
  }
  c.setOutput(0, *acc);
  return success();
}
LogicalResult convertMax(NodeConverter &c) { return convertVariadicBinary(c, "max"); }
LogicalResult convertMin(NodeConverter &c) { return convertVariadicBinary(c, "min"); }


LogicalResult convertGreater(NodeConverter &c) { return convertBinary(c, "greater"); }
LogicalResult convertGreaterOrEqual(NodeConverter &c) { return convertBinary(c, "greaterOrEqual"); }
LogicalResult convertLess(NodeConverter &c) { return convertBinary(c, "lesser"); }
LogicalResult convertLessOrEqual(NodeConverter &c) { return convertBinary(c, "lesserOrEqual"); }
LogicalResult convertOr(NodeConverter &c) { return convertBinary(c, "logicalOr"); }
LogicalResult convertNot(NodeConverter &c) { return convertUnary(c, "logicalNot"); }
LogicalResult convertHardSwish(NodeConverter &c) { return convertUnary(c, "hardSwish"); }
LogicalResult convertIsNaN(NodeConverter &c) { return convertUnary(c, "isNaN"); }

LogicalResult convertPRelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), slope = c.requiredInput(1);
  if (failed(x) || failed(slope)) return failure();
  // Before PRelu-7 a 1-D slope of C values applied per channel (axis 1), as
  // exporters of that time wrote it.
  Value s = *slope;
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(*x);
  if (c.opset() < 7 && NodeConverter::rankOf(s) == 1 && xs.size() > 2 &&
      NodeConverter::shapeOf(s)[0] == xs[1]) {
    SmallVector<int64_t> shape(xs.size() - 1, 1);
    shape[0] = xs[1];
    s = c.emitReshape(s, shape);
  }
  return c.done(c.emit("prelu", {*x, s}));
}

// IsInf-10: detect_positive / detect_negative select which infinities count.
LogicalResult convertIsInf(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  bool pos = c.intAttr("detect_positive", 1) != 0, neg = c.intAttr("detect_negative", 1) != 0;
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value inf = c.emit("isInfinite", {*x});
  if (pos && neg) return c.done(inf);
  if (!pos && !neg) return c.done(c.emit("logicalAnd", {inf, c.emit("logicalNot", {inf})}));
  Value side = c.emit(pos ? "greater" : "lesser", {*x, c.scalar(elem, 0)});
  return c.done(c.emit("logicalAnd", {inf, side}));
}

// LogSoftmax: < 13 over the 2-D coercion at `axis` (default 1), >= 13 along `axis` (default -1).
LogicalResult convertLogSoftmax(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  if (c.opset() < 13)
    return c.done(emitCoerced2d(c, *x, c.intAttr("axis", 1),
                                [&](Value v, int64_t a) { return emitLogSoftmax(c, v, a); }));
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", -1), rank, "axis");
  if (failed(axis)) return failure();
  return c.done(emitLogSoftmax(c, *x, *axis));
}

// Hardmax: 1 at the first maximum along the axis, 0 elsewhere.
LogicalResult convertHardmax(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  auto body = [&](Value v, int64_t axis) {
    int64_t rank = NodeConverter::rankOf(v);
    Value idx = c.emit("argMax", {v}, {c.i64Attr("axis", axis), c.boolAttr("keepDimensions", true)});
    Value iota = iotaAlong(c, NodeConverter::typeOf(idx).getElementType(),
                           NodeConverter::shapeOf(v)[axis], axis, rank);
    return c.emitCast(c.emit("equal", {idx, iota}), elem);
  };
  int64_t rank = NodeConverter::rankOf(*x);
  if (c.opset() < 13) return c.done(emitCoerced2d(c, *x, c.intAttr("axis", 1), body));
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", -1), rank, "axis");
  if (failed(axis)) return failure();
  return c.done(body(*x, *axis));
}

// InstanceNormalization: WebNN's is 4-D NCHW; other ranks are viewed as
// [N, C, prod(spatial), 1].
LogicalResult convertInstanceNormalization(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), scale = c.requiredInput(1), bias = c.requiredInput(2);
  if (failed(x) || failed(scale) || failed(bias)) return failure();
  SmallVector<int64_t> shape(NodeConverter::shapeOf(*x));
  if (shape.size() < 3) return c.fail("input must have rank >= 3");
  Value v = *x;
  if (shape.size() != 4) {
    int64_t spatial = 1;
    for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
    v = c.emitReshape(v, {shape[0], shape[1], spatial, 1});
  }
  v = c.emit("instanceNormalization", {v, *scale, *bias},
             {c.f64Attr("epsilon", c.floatAttr("epsilon", 1e-5f))});
  return c.done(c.emitReshape(v, shape));
}

// LayerNormalization-17: normalizes over [axis, rank); Mean and InvStdDev
// outputs (kept in training graphs) are computed alongside when used.
LogicalResult convertLayerNormalization(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), scale = c.requiredInput(1);
  if (failed(x) || failed(scale)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", -1), rank, "axis");
  if (failed(axis)) return failure();
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < rank; ++i) axes.push_back(i);
  double eps = c.floatAttr("epsilon", 1e-5f);
  // WebNN wants scale/bias shaped like the normalized dimensions.
  SmallVector<int64_t> normShape(NodeConverter::shapeOf(*x).drop_front(*axis));
  auto fit = [&](Value v) -> Value {
    if (!v) return v;
    if (NodeConverter::shapeOf(v) == ArrayRef<int64_t>(normShape)) return v;
    return c.emit("expand", {v}, {c.i64ArrayAttr("newShape", normShape)});
  };
  Value y = c.emit("layerNormalization", {*x, fit(*scale), fit(c.input(2))},
                   {c.i64ArrayAttr("axes", axes), c.f64Attr("epsilon", eps)});
  if (c.outputUsed(1) || c.outputUsed(2)) {
    Type elem = NodeConverter::typeOf(*x).getElementType();
    auto keep = [&](Value v) {
      return c.emit("reduceMean", {v}, {c.i64ArrayAttr("axes", axes), c.boolAttr("keepDimensions", true)});
    };
    Value mean = keep(*x);
    Value d = c.emit("sub", {*x, mean});
    Value inv = c.emit("reciprocal",
                       {c.emit("sqrt", {c.emit("add", {keep(c.emit("mul", {d, d})), c.scalar(elem, eps)})})});
    if (c.emitFailed()) return failure();
    if (c.outputUsed(1)) c.setOutput(1, mean);
    if (c.outputUsed(2)) c.setOutput(2, inv);
  }
  return c.done(y);
}

// LRN: x / (bias + alpha/size * sum of x^2 over `size` neighbouring
// channels)^beta. The channel window sum is an average pool over the
// zero-padded squares viewed as [N, 1, C, H*W].
LogicalResult convertLRN(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  SmallVector<int64_t> shape(NodeConverter::shapeOf(*x));
  if (shape.size() < 3) return c.fail("input must have rank >= 3");
  Type elem = NodeConverter::typeOf(*x).getElementType();
  int64_t size = c.intAttr("size", 0);
  if (size <= 0) return c.fail("'size' must be positive");
  int64_t spatial = 1;
  for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value sq = c.emitReshape(c.emit("mul", {*x, *x}), {shape[0], 1, shape[1], spatial});
  sq = c.emit("pad", {sq}, {c.i64ArrayAttr("beginningPadding", {0, 0, before, 0}),
                            c.i64ArrayAttr("endingPadding", {0, 0, after, 0})});
  Value avg = c.emit("averagePool2d", {sq}, {c.i64ArrayAttr("windowDimensions", {size, 1})});
  avg = c.emitReshape(avg, shape);
  Value base = c.emit("add", {c.scalar(elem, c.floatAttr("bias", 1.0f)),
                              c.emit("mul", {avg, c.scalar(elem, c.floatAttr("alpha", 1e-4f))})});
  Value denom = c.emit("pow", {base, c.scalar(elem, c.floatAttr("beta", 0.75f))});
  return c.done(c.emit("div", {*x, denom}));
}

// Mean: sum of the inputs over their count.
LogicalResult convertMean(NodeConverter &c) {
  if (c.numInputs() == 0) return c.fail("needs at least one input");
  Value acc = c.input(0);
  for (size_t i = 1; i < c.numInputs(); ++i) acc = c.emit("add", {acc, c.input(i)});
  if (c.numInputs() == 1) return c.done(acc);
  Type elem = NodeConverter::typeOf(c.input(0)).getElementType();
  return c.done(c.emit("div", {acc, c.scalar(elem, c.numInputs())}));
}

// MeanVarianceNormalization: (x - E[x]) / sqrt(E[(x - E[x])^2] + 1e-9) over `axes`.
LogicalResult convertMeanVarianceNormalization(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  SmallVector<int64_t> axes = c.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  int64_t rank = NodeConverter::rankOf(*x);
  for (int64_t &a : axes) {
    FailureOr<int64_t> n = c.normalizeAxis(a, rank, "axis");
    if (failed(n)) return failure();
    a = *n;
  }
  Type elem = NodeConverter::typeOf(*x).getElementType();
  auto mean = [&](Value v) {
    return c.emit("reduceMean", {v}, {c.i64ArrayAttr("axes", axes), c.boolAttr("keepDimensions", true)});
  };
  Value d = c.emit("sub", {*x, mean(*x)});
  Value sd = c.emit("sqrt", {c.emit("add", {mean(c.emit("mul", {d, d})), c.scalar(elem, 1e-9)})});
  return c.done(c.emit("div", {d, sd}));
}

// Mish: x * tanh(softplus(x)).
LogicalResult convertMish(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  return c.done(c.emit("mul", {*x, c.emit("tanh", {c.emit("softplus", {*x})})}));
}

// Mod: fmod=1 truncates the quotient (C fmod), fmod=0 floors it (the
// result takes the divisor's sign). Integers are computed in float32, exact
// for |values| < 2^24.
LogicalResult convertMod(NodeConverter &c) {
  FailureOr<Value> a = c.requiredInput(0), b = c.requiredInput(1);
  if (failed(a) || failed(b)) return failure();
  Type elem = NodeConverter::typeOf(*a).getElementType();
  bool isFloat = mlir::isa<FloatType>(elem);
  Type f32 = Float32Type::get(c.context());
  Type work = isFloat ? elem : f32;
  Value x = c.emitCast(*a, work), y = c.emitCast(*b, work);
  Value q = c.emit("div", {x, y});
  if (c.intAttr("fmod", 0) != 0) {
    q = c.emit("mul", {c.emit("sign", {q}), c.emit("floor", {c.emit("abs", {q})})});
  } else {
    if (isFloat) return c.fail("fmod=0 is only defined for integers");
    q = c.emit("floor", {q});
  }
  Value r = c.emit("sub", {x, c.emit("mul", {q, y})});
  return c.done(c.emitCast(r, elem));
}

LogicalResult convertNegativeLogLikelihoodLoss(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), target = c.requiredInput(1);
  if (failed(x) || failed(target)) return failure();
  return c.done(emitNegativeLogLikelihood(c, *x, *target, c.input(2)));
}

// OneHot-9/11: depth a constant; values [off, on]; negative indices count
// from depth.
LogicalResult convertOneHot(NodeConverter &c) {
  FailureOr<Value> indices = c.requiredInput(0), values = c.requiredInput(2);
  if (failed(indices) || failed(values)) return failure();
  FailureOr<ConstantData> depthData = c.requireConstantInput(1, "depth");
  if (failed(depthData)) return failure();
  if (depthData->numElements() != 1) return c.fail("'depth' must be a scalar");
  int64_t depth = static_cast<int64_t>(depthData->floatAt(0));
  int64_t rank = NodeConverter::rankOf(*indices) + 1;
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", -1), rank, "axis");
  if (failed(axis)) return failure();
  Type i64 = IntegerType::get(c.context(), 64);
  Value idx = c.emitCast(*indices, i64);
  Value negative = c.emit("lesser", {idx, c.scalar(i64, 0)});
  idx = c.emit("where", {negative, c.emit("add", {idx, c.scalar(i64, depth)}), idx});
  SmallVector<int64_t> lifted(NodeConverter::shapeOf(*indices));
  lifted.insert(lifted.begin() + *axis, 1);
  Value hit = c.emit("equal", {c.emitReshape(idx, lifted), iotaAlong(c, i64, depth, *axis, rank)});
  int64_t vr = NodeConverter::typeOf(*values).getNumElements();
  if (vr != 2) return c.fail("'values' must hold [off_value, on_value]");
  Value flat = c.emitReshape(*values, {2});
  auto pick = [&](int64_t i) {
    return c.emit("slice", {flat}, {c.i64ArrayAttr("starts", {i}), c.i64ArrayAttr("sizes", {1})});
  };
  return c.done(c.emit("where", {hit, pick(1), pick(0)}));
}

// Pad: `pads` [x1_begin, x2_begin, ..., x1_end, ...] an attribute (< 11) or
// constant input (Pad-18 adds `axes`); negative pads crop.
LogicalResult convertPad(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  SmallVector<int64_t> shape(NodeConverter::shapeOf(*x));
  int64_t rank = shape.size();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  SmallVector<int64_t> pads;
  double value = 0;
  Value runtimeValue;  // constant_value computed at run time
  if (c.opset() < 11) {
    auto p = c.intsAttr(c.opset() < 2 ? "paddings" : "pads");
    if (!p) return c.fail("missing attribute 'pads'");
    pads = *p;
    value = c.floatAttr("value", 0.0f);
  } else {
    FailureOr<SmallVector<int64_t>> p = c.constantIntsInput(1, "pads");
    if (failed(p)) return failure();
    pads = *p;
    if (std::optional<ConstantData> v = c.hasInput(2) ? c.constantInput(2) : std::nullopt) {
      if (v->numElements() != 1) return c.fail("'constant_value' must be a scalar");
      value = v->floatAt(0);
    } else if (c.hasInput(2)) {
      FailureOr<Value> rv = c.requiredInput(2);
      if (failed(rv)) return failure();
      RankedTensorType t = NodeConverter::typeOf(*rv);
      if (!t.hasStaticShape() || t.getNumElements() != 1) return c.fail("'constant_value' must be a scalar");
      if (t.getElementType() != elem) return c.fail("'constant_value' must have the input's element type");
      runtimeValue = c.emitReshape(*rv, {});
      if (!runtimeValue) return failure();
    }
  }
  SmallVector<int64_t> axes;
  if (c.opset() >= 18 && c.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(3, "axes");
    if (failed(a)) return failure();
    for (int64_t ax : *a) {
      FailureOr<int64_t> n = c.normalizeAxis(ax, rank, "axis");
      if (failed(n)) return failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  int64_t n = axes.size();
  if (static_cast<int64_t>(pads.size()) != 2 * n)
    return c.fail("'pads' has " + Twine(pads.size()) + " values, expected " + Twine(2 * n));
  SmallVector<int64_t> begin(rank, 0), end(rank, 0);
  for (int64_t i = 0; i < n; ++i) begin[axes[i]] = pads[i], end[axes[i]] = pads[i + n];
  std::string mode = c.stringAttr("mode", "constant");
  StringRef webnnMode = mode == "constant" ? "constant" : mode == "reflect" ? "reflection"
                                                       : mode == "edge"  ? "edge" : "";
  if (webnnMode.empty()) return c.fail("mode '" + mode + "' is not supported");
  Value v = *x;
  // Crop first (negative pads), then pad the rest.
  SmallVector<int64_t> starts(rank, 0), sizes(shape);
  bool crop = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (begin[i] < 0) starts[i] = -begin[i], sizes[i] += begin[i], begin[i] = 0, crop = true;
    if (end[i] < 0) sizes[i] += end[i], end[i] = 0, crop = true;
  }
  if (crop) v = c.emit("slice", {v}, {c.i64ArrayAttr("starts", starts), c.i64ArrayAttr("sizes", sizes)});
  if (llvm::any_of(begin, [](int64_t p) { return p; }) || llvm::any_of(end, [](int64_t p) { return p; })) {
    SmallVector<NamedAttribute> attrs = {c.i64ArrayAttr("beginningPadding", begin),
                                         c.i64ArrayAttr("endingPadding", end),
                                         c.strAttr("mode", webnnMode)};
    if (webnnMode == "constant" && value != 0) attrs.push_back(c.f64Attr("value", value));
    v = c.emit("pad", {v}, attrs);
    if (runtimeValue && webnnMode == "constant") {
      // WebNN's pad value is an option: pad with 0, then select the run-time
      // value outside the input's extent, by a mask built per padded axis
      // (constants of that axis' length, combined by broadcasting).
      Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
      Value inside;
      for (int64_t i = 0; i < rank; ++i) {
        if (!begin[i] && !end[i]) continue;
        int64_t len = begin[i] + sizes[i] + end[i];
        SmallVector<uint8_t> bits;
        for (int64_t k = 0; k < len; ++k) bits.push_back(k >= begin[i] && k < begin[i] + sizes[i]);
        SmallVector<int64_t> shape(rank, 1);
        shape[i] = len;
        Value m = c.constant(DenseElementsAttr::get(RankedTensorType::get(shape, u8), ArrayRef<uint8_t>(bits)));
        inside = inside ? c.emit("logicalAnd", {inside, m}) : m;
      }
      v = c.emit("where", {inside, v, runtimeValue});
    }
  }
  return c.done(v);
}

LogicalResult convertGatherElements(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), idx = c.requiredInput(1);
  if (failed(x) || failed(idx)) return failure();
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 0), NodeConverter::rankOf(*x), "axis");
  if (failed(axis)) return failure();
  return c.done(c.emit("gatherElements", {*x, *idx}, {c.i64Attr("axis", *axis)}));
}

// GatherND (batch_dims by prepending batch coordinates).
LogicalResult convertGatherND(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), idx = c.requiredInput(1);
  if (failed(x) || failed(idx)) return failure();
  return c.done(emitGatherNDBatched(c, *x, *idx, c.intAttr("batch_dims", 0)));
}

// GRU / LSTM -> webnn.gru / webnn.lstm. ONNX gate orders (zrh, iofc) are
// WebNN's default layouts ("zrn", "iofg"); B [D, 2*G*H] splits into the
// input and recurrent biases; Y [seq, D, B, H] is WebNN's sequence output.
FailureOr<std::string> recurrentActivations(NodeConverter &c, size_t perDirection, int64_t dirs) {
  const onnx::AttributeProto *a = c.attr("activations");
  if (c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
    return c.fail("activation_alpha/activation_beta are not supported"), failure();
  if (c.hasAttr("clip")) return c.fail("'clip' is not supported"), failure();
  if (!a) return std::string(perDirection == 2 ? "sigmoid,tanh" : "sigmoid,tanh,tanh");
  SmallVector<std::string> names;
  for (const std::string &n : a->strings()) names.push_back(StringRef(n).lower());
  if (names.size() != perDirection * dirs) return c.fail("'activations' has the wrong length"), failure();
  for (size_t i = perDirection; i < names.size(); ++i)
    if (names[i] != names[i - perDirection])
      return c.fail("different activations per direction are not supported"), failure();
  std::string joined;
  for (size_t i = 0; i < perDirection; ++i) {
    if (names[i] != "sigmoid" && names[i] != "tanh" && names[i] != "relu")
      return c.fail("activation '" + names[i] + "' is not supported (relu, sigmoid, tanh)"), failure();
    joined += (i ? "," : "") + names[i];
  }
  return joined;
}

LogicalResult convertRecurrent(NodeConverter &c, bool lstm) {
  FailureOr<Value> x = c.requiredInput(0), w = c.requiredInput(1), r = c.requiredInput(2);
  if (failed(x) || failed(w) || failed(r)) return failure();
  // webnn.gru/lstm take the step count as an option (and the unrolled forms
  // one slice per step): both need the sequence length at compile time.
  if (NodeConverter::rankOf(*x) == 3 && ShapedType::isDynamic(NodeConverter::shapeOf(*x)[c.intAttr("layout", 0) ? 1 : 0]))
    return c.fail("a dynamic sequence length is not supported (WebNN's recurrent ops take the step count as an "
                  "option; fix it with --shape)");
  if (NodeConverter::rankOf(*x) == 3) {
    // Unrolled where webnn.gru/lstm differ: clip, sequence_lens that are not
    // all the full length (or not constant), ONNX LSTM peepholes (WebNN's
    // output-gate peephole reads the previous cell state, ONNX's the new one).
    int64_t steps = NodeConverter::shapeOf(*x)[c.intAttr("layout", 0) ? 1 : 0];
    std::optional<ConstantData> lens = c.hasInput(4) ? c.constantInput(4) : std::nullopt;
    bool shortLens = c.hasInput(4) && (!lens || llvm::any_of(lens->ints(), [&](int64_t l) { return l != steps; }));
    if ((lstm && c.hasInput(7)) || shortLens || c.hasAttr("clip"))
      return lstm ? emitUnrolledLSTM(c) : emitUnrolledGRU(c);
  }
  // layout=1 (batch-major X [batch, seq, in], states [batch, D, H]) is the
  // default layout transposed on the way in and out.
  bool batchMajor = c.intAttr("layout", 0) != 0;
  auto swap01 = [&](Value v) {
    return v && batchMajor ? c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {1, 0, 2})}) : v;
  };
  x = swap01(*x);
  if (!*x) return failure();
  if (lstm && c.intAttr("input_forget", 0) != 0) return c.fail("input_forget=1 is not supported");
  std::string dir = c.stringAttr("direction", "forward");
  StringRef webnnDir = dir == "forward" ? "forward" : dir == "reverse" ? "backward"
                       : dir == "bidirectional" ? "both" : "";
  if (webnnDir.empty()) return c.fail("unknown direction '" + dir + "'");
  int64_t dirs = webnnDir == "both" ? 2 : 1;
  FailureOr<std::string> acts = recurrentActivations(c, lstm ? 3 : 2, dirs);
  if (failed(acts)) return failure();
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(*x);
  if (xs.size() != 3) return c.fail("X must be [seq_length, batch_size, input_size]");
  int64_t steps = xs[0], hidden = c.intAttr("hidden_size", 0);
  if (hidden <= 0) return c.fail("missing 'hidden_size'");
  if (c.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> lens = c.constantIntsInput(4, "sequence_lens");
    if (failed(lens)) return failure();
    if (llvm::any_of(*lens, [&](int64_t l) { return l != steps; }))
      return c.fail("sequence_lens shorter than the sequence are not supported");
  }
  int64_t gates = lstm ? 4 : 3;
  Value bias, recurrentBias;
  if (c.hasInput(3)) {
    auto half = [&](int64_t i) {
      return c.emit("slice", {c.input(3)}, {c.i64ArrayAttr("starts", {0, i * gates * hidden}),
                                             c.i64ArrayAttr("sizes", {dirs, gates * hidden})});
    };
    bias = half(0);
    recurrentBias = half(1);
  }
  bool wantSequence = c.outputUsed(0);
  SmallVector<Value> operands = {*x, *w, *r, bias, recurrentBias};
  if (lstm) {
    operands.append({Value(), swap01(c.input(5)), swap01(c.input(6))});
  } else {
    operands.push_back(swap01(c.input(5)));
  }
  SmallVector<NamedAttribute> attrs = {
      c.i64Attr("steps", steps), c.i64Attr("hiddenSize", hidden),
      c.boolAttr("returnSequence", wantSequence), c.strAttr("direction", webnnDir),
      c.strAttr("activations", *acts)};
  if (!lstm) attrs.push_back(c.boolAttr("resetAfter", c.intAttr("linear_before_reset", 0) != 0));
  if (c.emitFailed()) return failure();
  FailureOr<SmallVector<Value>> results =
      c.graphImporter().graph().addOp(lstm ? "lstm" : "gru", operands, attrs, c.loc());
  if (failed(results)) return failure();
  // Results: hidden[, cell][, sequence].
  size_t k = 0;
  Value yh = (*results)[k++];
  Value yc = lstm ? (*results)[k++] : Value();
  Value seq = wantSequence ? (*results)[k] : Value();
  if (batchMajor) {
    // [seq, D, batch, H] -> [batch, seq, D, H]; [D, batch, H] -> [batch, D, H].
    if (seq) seq = c.emit("transpose", {seq}, {c.i64ArrayAttr("permutation", {2, 0, 1, 3})});
    yh = swap01(yh);
    yc = swap01(yc);
    if (c.emitFailed()) return failure();
  }
  if (seq) c.setOutput(0, seq);
  if (c.outputUsed(1)) c.setOutput(1, yh);
  if (lstm && c.outputUsed(2)) c.setOutput(2, yc);
  return success();
}
LogicalResult convertGRU(NodeConverter &c) { return convertRecurrent(c, false); }
LogicalResult convertLSTM(NodeConverter &c) { return convertRecurrent(c, true); }

// If whose condition is known at compile time: the taken branch is inlined.
// (A condition that varies per run needs runtime control flow WebNN lacks.)
}  // namespace

void populateDefaultDomainGtoP(OpConverterTable &t) {
  t.add("", "Gather", 1, convertGather);
  t.add("", "GatherElements", 11, convertGatherElements);
  t.add("", "GatherND", 11, convertGatherND);
  t.add("", "Greater", 7, convertGreater);
  t.add("", "GRU", 7, convertGRU);
  t.add("", "GreaterOrEqual", 12, convertGreaterOrEqual);
  t.add("", "Hardmax", 1, convertHardmax);
  t.add("", "HardSwish", 14, convertHardSwish);
  t.add("", "InstanceNormalization", 6, convertInstanceNormalization);
  t.add("", "IsInf", 10, convertIsInf);
  t.add("", "IsNaN", 9, convertIsNaN);
  t.add("", "LayerNormalization", 17, convertLayerNormalization);
  t.add("", "Less", 7, convertLess);
  t.add("", "LessOrEqual", 12, convertLessOrEqual);
  t.add("", "LogSoftmax", 1, convertLogSoftmax);
  t.add("", "LRN", 1, convertLRN);
  t.add("", "LSTM", 7, convertLSTM);
  t.add("", "Mean", 6, convertMean);
  t.add("", "MeanVarianceNormalization", 9, convertMeanVarianceNormalization);
  t.add("", "Mish", 18, convertMish);
  t.add("", "Mod", 10, convertMod);
  t.add("", "NegativeLogLikelihoodLoss", 12, convertNegativeLogLikelihoodLoss);
  t.add("", "Not", 1, convertNot);
  t.add("", "OneHot", 9, convertOneHot);
  t.add("", "Or", 7, convertOr);
  t.add("", "Pad", 1, convertPad);
  t.add("", "PRelu", 1, convertPRelu);
  t.add("", "Gemm", 1, convertGemm);
  t.add("", "GlobalAveragePool", 1, convertGlobalAveragePool);
  t.add("", "GlobalMaxPool", 1, convertGlobalMaxPool);
  t.add("", "HardSigmoid", 1, convertHardSigmoid);
  t.add("", "Identity", 1, convertIdentity);
  t.add("", "LeakyRelu", 1, convertLeakyRelu);
  t.add("", "Log", 1, convertLog);
  t.add("", "MatMul", 1, convertMatMul);
  t.add("", "Max", 1, convertMax);
  t.add("", "MaxPool", 1, convertMaxPool);
  t.add("", "Min", 1, convertMin);
  t.add("", "Mul", 1, convertMul);
  t.add("", "Neg", 1, convertNeg);
  t.add("", "Pow", 1, convertPow);
}

}  // namespace mlir::webnn::onnx_import
