// ai.onnx operators A..F -> WebNN. Semantics: onnx/docs/Operators.md.
#include <cctype>
#include <cmath>
#include <map>
#include <limits>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

LogicalResult convertAdd(NodeConverter &c) { return convertBinary(c, "add"); }
LogicalResult convertDiv(NodeConverter &c) { return convertBinary(c, "div"); }
LogicalResult convertAbs(NodeConverter &c) { return convertUnary(c, "abs"); }
LogicalResult convertCeil(NodeConverter &c) { return convertUnary(c, "ceil"); }
LogicalResult convertCos(NodeConverter &c) { return convertUnary(c, "cos"); }
LogicalResult convertErf(NodeConverter &c) { return convertUnary(c, "erf"); }
LogicalResult convertExp(NodeConverter &c) { return convertUnary(c, "exp"); }
LogicalResult convertFloor(NodeConverter &c) { return convertUnary(c, "floor"); }
LogicalResult convertAveragePool(NodeConverter &c) { return convertPool(c, "averagePool2d"); }

LogicalResult convertElu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<Value> out = c.op("elu", {*x}, {c.f64Attr("alpha", c.floatAttr("alpha", 1.0f))});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// BatchNormalization, inference form: y = scale * (x - mean) / sqrt(var + eps) + B.
LogicalResult convertBatchNormalization(NodeConverter &c) {
  SmallVector<Value, 5> in;
  for (size_t i = 0; i < 5; ++i) {
    FailureOr<Value> v = c.requiredInput(i);
    if (failed(v)) return failure();
    in.push_back(*v);
  }
  if (c.intAttr("training_mode", 0) != 0) return emitBatchNormTraining(c, in);
  if (c.intAttr("spatial", 1) == 0)
    return c.fail("spatial=0 (per-activation statistics) is not supported");
  if (failed(c.rejectExtraOutputs(1, "running statistics exist only in training mode")))
    return failure();
  if (NodeConverter::rankOf(in[0]) < 2)
    return c.fail("input must have rank >= 2 (channels on axis 1)");
  // WebNN operand order: input, mean, variance, scale, bias.
  FailureOr<Value> out = c.op("batchNormalization", {in[0], in[3], in[4], in[1], in[2]},
                              {c.i64Attr("axis", 1),
                               c.f64Attr("epsilon", c.floatAttr("epsilon", 1e-5f))});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Cast-6+: `to` is a TensorProto.DataType.
LogicalResult convertCast(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t to = c.intAttr("to", -1);
  Type elem = c.graphImporter().elementType(static_cast<int32_t>(to));
  if (!elem)
    return c.fail("cast to " + onnxTypeName(static_cast<int32_t>(to)) + " is not supported");
  FailureOr<Value> out =
      c.op("cast", {*x}, {c.builder().getNamedAttr("type", TypeAttr::get(elem))});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Clip's bound from input `i`: absent (unbounded), a constant (read here)
// or a run-time scalar (kept as a value).
struct ClipBound {
  std::optional<double> constant;
  Value runtime;
};
FailureOr<ClipBound> clipBound(NodeConverter &c, size_t i, StringRef what, Type elem) {
  if (!c.hasInput(i)) return ClipBound{};
  if (std::optional<ConstantData> d = c.constantInput(i)) {
    if (d->numElements() != 1) return c.fail("'" + what + "' must be a scalar"), failure();
    return ClipBound{d->floatAt(0), Value()};
  }
  FailureOr<Value> v = c.requiredInput(i);
  if (failed(v)) return failure();
  RankedTensorType t = NodeConverter::typeOf(*v);
  if (!t.hasStaticShape() || t.getNumElements() != 1)
    return c.fail("'" + what + "' must be a scalar"), failure();
  if (t.getElementType() != elem) return c.fail("'" + what + "' must have the input's element type"), failure();
  // A rank-0 value broadcasts against any input.
  Value scalar = c.emitReshape(*v, {});
  if (!scalar) return failure();
  return ClipBound{std::nullopt, scalar};
}

LogicalResult emitClamp(NodeConverter &c, Value x, std::optional<double> lo,
                        std::optional<double> hi) {
  SmallVector<NamedAttribute> attrs;
  if (lo) attrs.push_back(c.f64Attr("minValue", *lo));
  if (hi) attrs.push_back(c.f64Attr("maxValue", *hi));
  FailureOr<Value> out = c.op("clamp", {x}, attrs);
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Clip-1/6: bounds are attributes (absent = unbounded).
LogicalResult convertClipAttributes(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  std::optional<double> lo, hi;
  if (c.hasAttr("min")) lo = c.floatAttr("min", 0);
  if (c.hasAttr("max")) hi = c.floatAttr("max", 0);
  return emitClamp(c, *x, lo, hi);
}

// Clip-11+: bounds are optional scalar inputs. Constant bounds become
// clamp's options; a bound computed at run time (a top-dB floor such as
// max(x) - 80) becomes max / min with that value, in ONNX's order (min
// first, so max wins when min > max).
LogicalResult convertClipInputs(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  FailureOr<ClipBound> lo = clipBound(c, 1, "min", elem);
  if (failed(lo)) return failure();
  FailureOr<ClipBound> hi = clipBound(c, 2, "max", elem);
  if (failed(hi)) return failure();
  if (!lo->runtime && !hi->runtime) return emitClamp(c, *x, lo->constant, hi->constant);
  Value v = *x;
  if (lo->runtime) {
    v = c.emit("max", {v, lo->runtime});
  } else if (lo->constant) {
    v = c.emit("clamp", {v}, {c.f64Attr("minValue", *lo->constant)});
  }
  if (hi->runtime) {
    v = c.emit("min", {v, hi->runtime});
  } else if (hi->constant) {
    v = c.emit("clamp", {v}, {c.f64Attr("maxValue", *hi->constant)});
  }
  return c.done(v);
}

// Concatenation of constants stays constant (shape arithmetic needs it).
std::optional<Value> foldConcat(NodeConverter &c, ArrayRef<Value> inputs, int64_t axis,
                                RankedTensorType outType) {
  constexpr int64_t kMaxFoldElements = 1 << 16;
  if (outType.getNumElements() > kMaxFoldElements) return std::nullopt;
  SmallVector<ConstantData> parts;
  for (Value v : inputs) {
    std::optional<ConstantData> d = getConstantData(v);
    if (!d) return std::nullopt;
    parts.push_back(*d);
  }
  unsigned w = (outType.getElementTypeBitWidth() + 7) / 8;
  ArrayRef<int64_t> shape = outType.getShape();
  int64_t outer = 1, inner = w;
  for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
  for (int64_t i = axis + 1; i < outType.getRank(); ++i) inner *= shape[i];
  std::vector<char> bytes;
  bytes.reserve(outType.getNumElements() * w);
  SmallVector<std::vector<char>> expanded;
  for (const ConstantData &d : parts) expanded.push_back(d.expandedBytes());
  for (int64_t o = 0; o < outer; ++o)
    for (size_t p = 0; p < parts.size(); ++p) {
      int64_t chunk = parts[p].type.getShape()[axis] * inner;
      bytes.insert(bytes.end(), expanded[p].begin() + o * chunk,
                   expanded[p].begin() + (o + 1) * chunk);
    }
  return c.constant(DenseElementsAttr::getFromRawBuffer(outType, bytes));
}

LogicalResult convertConcat(NodeConverter &c) {
  SmallVector<Value> inputs;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    FailureOr<Value> v = c.requiredInput(i);
    if (failed(v)) return failure();
    inputs.push_back(*v);
  }
  if (inputs.empty()) return c.fail("needs at least one input");
  if (c.opset() >= 4 && !c.hasAttr("axis")) return c.fail("missing required attribute 'axis'");
  RankedTensorType first = NodeConverter::typeOf(inputs[0]);
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 1), first.getRank(), "axis");
  if (failed(axis)) return failure();
  SmallVector<int64_t> outShape(first.getShape());
  for (size_t i = 1; i < inputs.size(); ++i) {
    RankedTensorType t = NodeConverter::typeOf(inputs[i]);
    if (t.getRank() != first.getRank() || t.getElementType() != first.getElementType())
      return c.fail("input #" + Twine(i) + " does not match input #0's rank and element type");
    outShape[*axis] += t.getShape()[*axis];
  }
  auto outType = RankedTensorType::get(outShape, first.getElementType());
  if (std::optional<Value> folded = foldConcat(c, inputs, *axis, outType)) {
    c.setOutput(0, *folded);
    return success();
  }
  FailureOr<Value> out = c.op("concat", inputs, {c.i64Attr("axis", *axis)});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertConstant(NodeConverter &c) {
  MLIRContext *ctx = c.context();
  Builder &b = c.builder();
  ElementsAttr value;
  if (const onnx::AttributeProto *a = c.attr("value")) {
    FailureOr<ElementsAttr> v =
        convertTensor(a->t(), c.graphImporter().tensorSource(), ctx, c.loc());
    if (failed(v)) return failure();
    value = *v;
  } else if (const onnx::AttributeProto *a = c.attr("value_float")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), a->f());
  } else if (const onnx::AttributeProto *a = c.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getF32Type()),
        ArrayRef<float>(v));
  } else if (const onnx::AttributeProto *a = c.attr("value_int")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   static_cast<int64_t>(a->i()));
  } else if (const onnx::AttributeProto *a = c.attr("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getI64Type()),
        ArrayRef<int64_t>(v));
  } else {
    return c.fail("only 'value', 'value_float(s)' and 'value_int(s)' constants are supported "
                  "(not sparse or string ones)");
  }
  c.setOutput(0, c.graphImporter().graph().addConstant(value, c.node().output(0), c.loc()));
  return success();
}

// Conv: 2-D directly, 1-D as 2-D over a height-1 image, 3-D unrolled over depth.
LogicalResult convertConv(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0), filter = c.requiredInput(1);
  if (failed(input) || failed(filter)) return failure();
  Value x = *input, w = *filter, bias = c.input(2);
  int64_t rank = NodeConverter::rankOf(x);
  if (rank == 5) return convertConv3d(c, x, w, bias);
  if (rank != 3 && rank != 4)
    return c.fail("only 1-D, 2-D and 3-D convolution (rank 3, 4 or 5 input) is supported, got rank " +
                  Twine(rank));
  if (NodeConverter::rankOf(w) != rank)
    return c.fail("weights W must have the same rank as input X");
  size_t n = rank - 2;
  ArrayRef<int64_t> xShape = NodeConverter::shapeOf(x), wShape = NodeConverter::shapeOf(w);
  SmallVector<int64_t> kernel(wShape.drop_front(2));
  if (auto k = c.intsAttr("kernel_shape"); k && ArrayRef<int64_t>(*k) != ArrayRef<int64_t>(kernel))
    return c.fail("'kernel_shape' does not match the weights' spatial dimensions");
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", n, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", n, 1);
  if (failed(strides) || failed(dilations)) return failure();
  FailureOr<SmallVector<int64_t>> pads =
      resolveOnnxPads(c, xShape.drop_front(2), kernel, *strides, *dilations);
  if (failed(pads)) return failure();
  int64_t group = c.intAttr("group", 1);
  if (group < 1) return c.fail("'group' must be positive");

  SmallVector<int64_t> s2 = *strides, d2 = *dilations, p2 = *pads;
  if (n == 1) {
    s2 = {1, s2[0]};
    d2 = {1, d2[0]};
    p2 = {0, (*pads)[0], 0, (*pads)[1]};
    FailureOr<Value> x2 = c.reshape(x, {xShape[0], xShape[1], 1, xShape[2]});
    FailureOr<Value> w2 = c.reshape(w, {wShape[0], wShape[1], 1, wShape[2]});
    if (failed(x2) || failed(w2)) return failure();
    x = *x2;
    w = *w2;
  }
  FailureOr<Value> out =
      c.op("conv2d", {x, w, bias},
           {c.i64ArrayAttr("padding", toWebNNPadding2d(p2)), c.i64ArrayAttr("strides", s2),
            c.i64ArrayAttr("dilations", d2), c.i64Attr("groups", group)});
  if (failed(out)) return failure();
  Value result = *out;
  if (n == 1) {
    ArrayRef<int64_t> s = NodeConverter::shapeOf(result);
    FailureOr<Value> r = c.reshape(result, {s[0], s[1], s[3]});
    if (failed(r)) return failure();
    result = *r;
  }
  c.setOutput(0, result);
  return success();
}

// Dropout at inference is the identity; its mask is all ones (all kept).
LogicalResult convertDropout(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  // The ratio only matters in training mode, so a ratio computed at run
  // time is fine at inference (training_mode absent or a false constant).
  if (c.opset() >= 12 && c.hasInput(2)) {
    std::optional<ConstantData> training = c.constantInput(2);
    // Training mode drops at random unless the ratio is 0 (then it is the
    // identity with an all-true mask, like inference).
    std::optional<ConstantData> ratio = c.hasInput(1) ? c.constantInput(1) : std::nullopt;
    bool zeroRatio = ratio && ratio->numElements() == 1 && ratio->floatAt(0) == 0;
    if (!training && !zeroRatio) {
      std::string chain = describeRuntimeChain(c.input(2));
      return c.fail("input 'training_mode' ('" + c.node().input(2) +
                    "') must be a constant (false, or true with a zero ratio): Dropout in training "
                    "mode drops at random, which is not supported; it is computed at run time" +
                    (chain.empty() ? std::string() : " by " + chain) + " (freeze it with --const-input)");
    }
    if (training && training->numElements() != 1) return c.fail("training_mode must be a scalar");
    if (training && training->intAt(0) != 0 && !zeroRatio) {
      if (!c.hasInput(1))
        return c.fail("training_mode=true with the default ratio 0.5 drops at random: not supported");
      if (!ratio) {
        FailureOr<ConstantData> r = c.requireConstantInput(1, "ratio (with training_mode=true)");
        if (failed(r)) return failure();
      }
      return c.fail("training_mode=true with a non-zero ratio drops at random: not supported");
    }
  }
  if (c.opset() < 7 && c.intAttr("is_test", 0) == 0)
    return c.fail("is_test=0 (training) is not supported");
  c.setOutput(0, *x);
  if (c.outputUsed(1)) {
    RankedTensorType t = NodeConverter::typeOf(*x);
    // Dropout-10+ masks are bool (WebNN uint8); older ones have the input's type.
    Type elem = c.opset() >= 10
                    ? Type(IntegerType::get(c.context(), 8, IntegerType::Unsigned))
                    : t.getElementType();
    auto maskType = RankedTensorType::get(t.getShape(), elem);
    Attribute one = mlir::isa<FloatType>(elem) ? Attribute(FloatAttr::get(elem, 1.0))
                                               : Attribute(IntegerAttr::get(elem, 1));
    c.setOutput(1, c.constant(DenseElementsAttr::get(maskType, one)));
  }
  return success();
}

LogicalResult convertFlatten(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*x);
  int64_t rank = shape.size(), axis = c.intAttr("axis", 1);
  if (axis < 0) axis += rank;  // Flatten-11+
  if (axis < 0 || axis > rank)
    return c.fail("'axis' " + Twine(c.intAttr("axis", 1)) + " is out of range for rank " +
                  Twine(rank));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= shape[i];
  FailureOr<Value> out = c.reshape(*x, {outer, inner});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}


LogicalResult convertDequantizeLinear(NodeConverter &c) { return convertQuantizeLike(c, false); }
LogicalResult convertAnd(NodeConverter &c) { return convertBinary(c, "logicalAnd"); }
LogicalResult convertEqual(NodeConverter &c) { return convertBinary(c, "equal"); }

// ArgMax/ArgMin: int64 indices; select_last_index (12+) reverses the axis
// and maps the index back.
LogicalResult convertArgReduce(NodeConverter &c, StringRef webnnOp) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 0), rank, "axis");
  if (failed(axis)) return failure();
  bool keep = c.intAttr("keepdims", 1) != 0;
  Type i64 = IntegerType::get(c.context(), 64);
  SmallVector<NamedAttribute> attrs = {c.i64Attr("axis", *axis), c.boolAttr("keepDimensions", keep),
                                       c.builder().getNamedAttr("outputDataType", TypeAttr::get(i64))};
  if (c.intAttr("select_last_index", 0) == 0) return c.done(c.emit(webnnOp, {*x}, attrs));
  Value rev = c.emit("reverse", {*x}, {c.i64ArrayAttr("axes", {*axis})});
  Value idx = c.emit(webnnOp, {rev}, attrs);
  int64_t last = NodeConverter::shapeOf(*x)[*axis] - 1;
  return c.done(c.emit("sub", {c.scalar(i64, last), idx}));
}
LogicalResult convertArgMax(NodeConverter &c) { return convertArgReduce(c, "argMax"); }
LogicalResult convertArgMin(NodeConverter &c) { return convertArgReduce(c, "argMin"); }

LogicalResult convertCastLike(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), like = c.requiredInput(1);
  if (failed(x) || failed(like)) return failure();
  return c.done(c.emitCast(*x, NodeConverter::typeOf(*like).getElementType()));
}

// Celu: alpha * elu(x / alpha).
LogicalResult convertCelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  double alpha = c.floatAttr("alpha", 1.0f);
  Value e = c.emit("elu", {c.emit("div", {*x, c.scalar(elem, alpha)})});
  return c.done(c.emit("mul", {e, c.scalar(elem, alpha)}));
}

// ConstantOfShape: a splat of `value` (default float32 0) with the constant shape.
LogicalResult convertConstantOfShape(NodeConverter &c) {
  FailureOr<SmallVector<int64_t>> shape = c.constantIntsInput(0, "input");
  if (failed(shape)) return failure();
  for (int64_t d : *shape)
    if (d < 0) return c.fail("shape dimensions must be non-negative");
  if (llvm::any_of(*shape, [](int64_t d) { return d == 0; }))
    return c.fail("empty tensors are not supported");
  Type elem = Float32Type::get(c.context());
  double v = 0;
  if (const onnx::AttributeProto *a = c.attr("value")) {
    FailureOr<ElementsAttr> t = convertTensor(a->t(), c.graphImporter().tensorSource(), c.context(), c.loc());
    if (failed(t)) return failure();
    auto type = mlir::cast<RankedTensorType>(t->getType());
    if (type.getNumElements() != 1) return c.fail("'value' must hold one element");
    elem = type.getElementType();
    std::optional<ConstantData> d = getConstantData(c.constant(*t));
    v = d->floatAt(0);
    if (elem.isInteger(64)) return c.done(c.constant(DenseElementsAttr::get(
        RankedTensorType::get(*shape, elem), APInt(64, static_cast<uint64_t>(d->intAt(0)), true))));
  }
  return c.done(c.splat(elem, *shape, v));
}

// ConvTranspose: 2-D (1-D lifted). ONNX weights [C_in, C_out/group, kH, kW]
// are WebNN's default "iohw". output_shape fixes the padding as ONNX
// specifies (auto_pad SAME_* splits it, the odd unit at the end for
// SAME_UPPER); a larger output_shape than padding can give goes to
// outputPadding.
LogicalResult convertConvTranspose(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0), filter = c.requiredInput(1);
  if (failed(input) || failed(filter)) return failure();
  Value x = *input, w = *filter, bias = c.input(2);
  int64_t rank = NodeConverter::rankOf(x);
  if (rank != 3 && rank != 4 && rank != 5)
    return c.fail("only 1-D, 2-D and 3-D transposed convolution is supported, got rank " + Twine(rank));
  size_t n = rank - 2;
  SmallVector<int64_t> xs(NodeConverter::shapeOf(x)), ws(NodeConverter::shapeOf(w));
  SmallVector<int64_t> kernel(ArrayRef<int64_t>(ws).drop_front(2));
  FailureOr<SmallVector<int64_t>> strides = spatialListAttr(c, "strides", n, 1);
  FailureOr<SmallVector<int64_t>> dilations = spatialListAttr(c, "dilations", n, 1);
  if (failed(strides) || failed(dilations)) return failure();
  SmallVector<int64_t> outPad = c.intsAttr("output_padding").value_or(SmallVector<int64_t>(n, 0));
  if (outPad.size() != n) return c.fail("'output_padding' has the wrong length");
  std::string autoPad = c.stringAttr("auto_pad", "NOTSET");
  SmallVector<int64_t> pads = c.intsAttr("pads").value_or(SmallVector<int64_t>(2 * n, 0));
  if (pads.size() != 2 * n) return c.fail("'pads' has the wrong length");
  std::optional<SmallVector<int64_t>> outShape = c.intsAttr("output_shape");
  if (outShape && outShape->size() > n) outShape = SmallVector<int64_t>(outShape->end() - n, outShape->end());
  if (!outShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")) {
    outShape = SmallVector<int64_t>();
    for (size_t i = 0; i < n; ++i) outShape->push_back(xs[2 + i] * (*strides)[i]);
  }
  if (outShape) {
    if (outShape->size() != n) return c.fail("'output_shape' has the wrong length");
    for (size_t i = 0; i < n; ++i) {
      int64_t eff = (kernel[i] - 1) * (*dilations)[i] + 1;
      int64_t total = (*strides)[i] * (xs[2 + i] - 1) + outPad[i] + eff - (*outShape)[i];
      if (total < 0) outPad[i] -= total, total = 0;
      bool lowerOdd = autoPad == "SAME_LOWER";
      pads[i] = lowerOdd ? total - total / 2 : total / 2;
      pads[i + n] = total - pads[i];
    }
  } else if (autoPad != "NOTSET" && autoPad != "VALID") {
    return c.fail("unknown auto_pad '" + autoPad + "'");
  } else if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  }
  if (n == 3)
    return emitConvTranspose3d(c, x, w, bias, *strides, *dilations, pads, outPad, c.intAttr("group", 1));
  SmallVector<int64_t> s2 = *strides, d2 = *dilations, p2 = pads, o2 = outPad;
  if (n == 1) {
    s2 = {1, s2[0]};
    d2 = {1, d2[0]};
    o2 = {0, o2[0]};
    p2 = {0, pads[0], 0, pads[1]};
    x = c.emitReshape(x, {xs[0], xs[1], 1, xs[2]});
    w = c.emitReshape(w, {ws[0], ws[1], 1, ws[2]});
  }
  Value out = c.emit("convTranspose2d", {x, w, bias},
                     {c.i64ArrayAttr("padding", toWebNNPadding2d(p2)), c.i64ArrayAttr("strides", s2),
                      c.i64ArrayAttr("dilations", d2), c.i64ArrayAttr("outputPadding", o2),
                      c.i64Attr("groups", c.intAttr("group", 1))});
  if (n == 1 && out) {
    ArrayRef<int64_t> s = NodeConverter::shapeOf(out);
    out = c.emitReshape(out, {s[0], s[1], s[3]});
  }
  return c.done(out);
}

// CumSum-11: axis an input; exclusive / reverse attributes. WebNN's axis is
// an option, so an axis computed at run time (it never changes the shape)
// sums along every axis and selects the one asked for (an out-of-range
// axis, an error in ONNX, selects the last).
LogicalResult convertCumSum(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  auto sumAlong = [&](int64_t axis) {
    return c.emit("cumulativeSum", {*x},
                  {c.i64Attr("axis", axis), c.boolAttr("exclusive", c.intAttr("exclusive", 0) != 0),
                   c.boolAttr("reversed", c.intAttr("reverse", 0) != 0)});
  };
  if (c.hasInput(1) && !c.constantInput(1)) {
    FailureOr<Value> a = c.requiredInput(1);
    if (failed(a)) return failure();
    RankedTensorType at = NodeConverter::typeOf(*a);
    if (!at.hasStaticShape() || at.getNumElements() != 1 || !at.getElementType().isSignlessInteger())
      return c.fail("'axis' must be one int32 or int64");
    if (rank == 0) return c.fail("the input must have rank >= 1");
    Type i64 = IntegerType::get(c.context(), 64);
    // Negative axes count from the end, as in ONNX.
    Value axis = c.emitReshape(c.emitCast(*a, i64), {});
    axis = c.emit("where", {c.emit("lesser", {axis, c.scalar(i64, 0)}),
                            c.emit("add", {axis, c.scalar(i64, rank)}), axis});
    Value out = sumAlong(rank - 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      out = c.emit("where", {c.emit("equal", {axis, c.scalar(i64, d)}), sumAlong(d), out});
    return c.done(out);
  }
  FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(1, "axis");
  if (failed(a)) return failure();
  if (a->size() != 1) return c.fail("'axis' must be a scalar");
  FailureOr<int64_t> axis = c.normalizeAxis((*a)[0], rank, "axis");
  if (failed(axis)) return failure();
  return c.done(sumAlong(*axis));
}

// DepthToSpace: DCR (default) or CRD channel order moved into blocks.
LogicalResult convertDepthToSpace(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  SmallVector<int64_t> s(NodeConverter::shapeOf(*x));
  int64_t b = c.intAttr("blocksize", 0);
  if (s.size() == 4 && ShapedType::isDynamic(s[1]))
    return c.fail("dynamic channels are not supported (fix them with --shape)");
  if (s.size() != 4 || b <= 0 || s[1] % (b * b))
    return c.fail("needs a 4-D input whose channels divide by blocksize^2");
  // A dynamic height or width stays dynamic, times the block.
  auto times = [&](int64_t d) { return ShapedType::isDynamic(d) ? d : d * b; };
  int64_t cOut = s[1] / (b * b);
  bool crd = c.stringAttr("mode", "DCR") == "CRD";
  Value v = crd ? c.emitReshape(*x, {s[0], cOut, b, b, s[2], s[3]})
                : c.emitReshape(*x, {s[0], b, b, cOut, s[2], s[3]});
  SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                  : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
  v = c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", perm)});
  return c.done(c.emitReshape(v, {s[0], cOut, times(s[2]), times(s[3])}));
}

// Expand-8: bidirectional broadcast of the input with a constant shape.
LogicalResult convertExpand(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<SmallVector<int64_t>> target = c.constantIntsInput(1, "shape");
  if (failed(target)) return failure();
  SmallVector<int64_t> in(NodeConverter::shapeOf(*x));
  size_t rank = std::max(in.size(), target->size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i + in.size() >= rank ? in[i + in.size() - rank] : 1;
    int64_t b = i + target->size() >= rank ? (*target)[i + target->size() - rank] : 1;
    if (ShapedType::isDynamic(a) && b != 1)
      return c.fail("Expand of dynamic dimension " + Twine(i + in.size() - rank) + " to size " + Twine(b) +
                    " is not supported (fix the dimension with --shape)");
    if (a != b && a != 1 && b != 1)
      return c.fail("shape does not broadcast with the input's");
    out[i] = a == 1 ? b : a;
  }
  if (ArrayRef<int64_t>(out) == ArrayRef<int64_t>(in)) return c.done(*x);
  return c.done(c.emit("expand", {*x}, {c.i64ArrayAttr("newShape", out)}));
}

// Einsum, by rewriting into WebNN ops: a repeated index in one operand takes
// the diagonal (multiply by an identity mask, sum one copy away), indices
// no later operand or the output needs are summed, and each pair of
// operands becomes one batched matmul between transposes and reshapes.
struct EinsumTerm {
  Value value;
  std::string letters;  // one per dimension; ellipsis dimensions are digits
};

LogicalResult einsumSumOut(NodeConverter &c, EinsumTerm &t, llvm::function_ref<bool(char)> needed) {
  SmallVector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < t.letters.size(); ++i)
    if (needed(t.letters[i])) kept += t.letters[i];
    else axes.push_back(i);
  if (axes.empty()) return success();
  t.value = c.emit("reduceSum", {t.value},
                   {c.i64ArrayAttr("axes", axes), c.boolAttr("keepDimensions", false)});
  t.letters = kept;
  return success(!c.emitFailed());
}

LogicalResult einsumDiagonals(NodeConverter &c, EinsumTerm &t) {
  for (size_t p = 0; p < t.letters.size(); ++p) {
    size_t q = t.letters.find(t.letters[p], p + 1);
    if (q == std::string::npos) continue;
    ArrayRef<int64_t> shape = NodeConverter::shapeOf(t.value);
    int64_t n = shape[p];
    if (shape[q] != n) return c.fail("repeated index '" + Twine(t.letters[p]) + "' has two sizes");
    SmallVector<int64_t> maskShape(shape.size(), 1);
    maskShape[p] = maskShape[q] = n;
    Type elem = NodeConverter::typeOf(t.value).getElementType();
    Value eye = c.emit("triangular", {c.emit("triangular", {c.splat(elem, {n, n}, 1)},
                                             {c.boolAttr("upper", true)})},
                       {c.boolAttr("upper", false)});
    Value masked = c.emit("mul", {t.value, c.emitReshape(eye, maskShape)});
    t.value = c.emit("reduceSum", {masked}, {c.i64ArrayAttr("axes", {static_cast<int64_t>(q)}),
                                             c.boolAttr("keepDimensions", false)});
    t.letters.erase(q, 1);
    if (c.emitFailed()) return failure();
    --p;  // the same letter may repeat a third time
  }
  return success();
}

Value einsumTranspose(NodeConverter &c, Value v, StringRef from, StringRef to) {
  if (from == to) return v;
  SmallVector<int64_t> perm;
  for (char ch : to) perm.push_back(from.find(ch));
  return c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", perm)});
}

// a x b keeping the letters in `keep` (summing the rest).
FailureOr<EinsumTerm> einsumPair(NodeConverter &c, EinsumTerm a, EinsumTerm b, StringRef keep) {
  std::string batch, k, l, r;
  for (char ch : a.letters) {
    bool inB = b.letters.find(ch) != std::string::npos;
    bool kept = keep.find(ch) != std::string::npos;
    (inB ? (kept ? batch : k) : l) += ch;
  }
  for (char ch : b.letters)
    if (a.letters.find(ch) == std::string::npos) r += ch;
  ArrayRef<int64_t> as = NodeConverter::shapeOf(a.value), bs = NodeConverter::shapeOf(b.value);
  auto size = [&](char ch) {
    size_t i = a.letters.find(ch);
    return i != std::string::npos ? as[i] : bs[b.letters.find(ch)];
  };
  SmallVector<int64_t> batchDims;
  for (char ch : batch) {
    if (as[a.letters.find(ch)] != bs[b.letters.find(ch)])
      return c.fail("index '" + Twine(ch) + "' has different sizes in two operands"), failure();
    batchDims.push_back(size(ch));
  }
  auto prod = [&](StringRef letters) {
    int64_t p = 1;
    for (char ch : letters) p *= size(ch);
    return p;
  };
  for (char ch : k)
    if (as[a.letters.find(ch)] != bs[b.letters.find(ch)])
      return c.fail("index '" + Twine(ch) + "' has different sizes in two operands"), failure();
  Value at = einsumTranspose(c, a.value, a.letters, batch + l + k);
  Value bt = einsumTranspose(c, b.value, b.letters, batch + k + r);
  SmallVector<int64_t> aShape(batchDims), bShape(batchDims), outShape(batchDims);
  aShape.append({prod(l), prod(k)});
  bShape.append({prod(k), prod(r)});
  Value m = c.emit("matmul", {c.emitReshape(at, aShape), c.emitReshape(bt, bShape)});
  for (char ch : l + r) outShape.push_back(size(ch));
  m = c.emitReshape(m, outShape);
  if (c.emitFailed()) return failure();
  return EinsumTerm{m, batch + l + r};
}

LogicalResult convertEinsum(NodeConverter &c) {
  std::string eq;
  for (char ch : c.stringAttr("equation", "")) if (ch != ' ') eq += ch;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != c.numInputs())
    return c.fail("equation has " + Twine(terms.size()) + " operands, the node " + Twine(c.numInputs()));
  // Ellipsis dimensions become digits, right-aligned across operands.
  int64_t maxEllipsis = 0;
  SmallVector<EinsumTerm> ops;
  for (size_t i = 0; i < terms.size(); ++i) {
    Value v = c.input(i);
    if (!v) return c.fail("missing input #" + Twine(i));
    int64_t rank = NodeConverter::rankOf(v);
    std::string t = terms[i];
    size_t dots = t.find("...");
    if (dots != std::string::npos) {
      int64_t e = rank - static_cast<int64_t>(t.size() - 3);
      if (e < 0 || e > 10) return c.fail("operand #" + Twine(i) + " does not match its term");
      maxEllipsis = std::max(maxEllipsis, e);
      std::string digits;
      for (int64_t d = 0; d < e; ++d) digits += static_cast<char>('0' + (10 - e + d));
      t = t.substr(0, dots) + digits + t.substr(dots + 3);
    }
    if (static_cast<int64_t>(t.size()) != rank)
      return c.fail("operand #" + Twine(i) + " has rank " + Twine(rank) + " but term '" + terms[i] + "'");
    ops.push_back({v, t});
  }
  std::string out;
  std::string ellipsisDigits;
  for (int64_t d = 0; d < maxEllipsis; ++d) ellipsisDigits += static_cast<char>('0' + (10 - maxEllipsis + d));
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    size_t dots = out.find("...");
    if (dots != std::string::npos) out = out.substr(0, dots) + ellipsisDigits + out.substr(dots + 3);
  } else {
    // Implicit output: ellipsis dims, then letters seen once, alphabetically.
    std::map<char, int> count;
    for (const EinsumTerm &t : ops)
      for (char ch : t.letters) if (!std::isdigit(static_cast<unsigned char>(ch))) ++count[ch];
    out = ellipsisDigits;
    for (auto &[ch, n] : count) if (n == 1) out += ch;
  }
  for (EinsumTerm &t : ops)
    if (failed(einsumDiagonals(c, t))) return failure();
  // Fold left to right, keeping what the output or a later operand needs.
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i == 0) {
      // Sum indices of the first operand no one else uses.
      auto needed = [&](char ch) {
        if (out.find(ch) != std::string::npos) return true;
        for (size_t j = 1; j < ops.size(); ++j)
          if (ops[j].letters.find(ch) != std::string::npos) return true;
        return false;
      };
      if (failed(einsumSumOut(c, ops[0], needed))) return failure();
      continue;
    }
    std::string keep = out;
    for (size_t j = i + 1; j < ops.size(); ++j) keep += ops[j].letters;
    auto neededB = [&](char ch) {
      return keep.find(ch) != std::string::npos || ops[0].letters.find(ch) != std::string::npos;
    };
    if (failed(einsumSumOut(c, ops[i], neededB))) return failure();
    FailureOr<EinsumTerm> r = einsumPair(c, ops[0], ops[i], keep);
    if (failed(r)) return failure();
    ops[0] = *r;
  }
  for (char ch : out)
    if (ops[0].letters.find(ch) == std::string::npos)
      return c.fail("output index '" + Twine(ch) + "' is in no operand");
  return c.done(einsumTranspose(c, ops[0].value, ops[0].letters, out));
}

// EyeLike: ones on diagonal k of a 2-D tensor shaped like the input (a
// constant: only the input's static shape is read).
LogicalResult convertEyeLike(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*x);
  if (shape.size() != 2) return c.fail("input must be 2-D");
  Type elem = NodeConverter::typeOf(*x).getElementType();
  if (c.hasAttr("dtype")) {
    elem = c.graphImporter().elementType(static_cast<int32_t>(c.intAttr("dtype", 1)));
    if (!elem) return c.fail("dtype " + onnxTypeName(static_cast<int32_t>(c.intAttr("dtype", 1))) +
                             " is not a WebNN type");
  }
  int64_t k = c.intAttr("k", 0);
  // The identity pattern through the lower and upper triangles of a splat.
  Value ones = c.splat(elem, shape, 1);
  Value v = c.emit("triangular", {c.emit("triangular", {ones}, {c.boolAttr("upper", true), c.i64Attr("diagonal", k)})},
                   {c.boolAttr("upper", false), c.i64Attr("diagonal", k)});
  return c.done(v);
}
}  // namespace

void populateDefaultDomainAtoF(OpConverterTable &t) {
  t.add("", "Abs", 1, convertAbs);
  t.add("", "Acosh", 9, convertHyperbolic);
  t.add("", "And", 7, convertAnd);
  t.add("", "ArgMax", 1, convertArgMax);
  t.add("", "ArgMin", 1, convertArgMin);
  t.add("", "Asinh", 9, convertHyperbolic);
  t.add("", "Atanh", 9, convertHyperbolic);
  t.add("", "CastLike", 15, convertCastLike);
  t.add("", "Celu", 12, convertCelu);
  t.add("", "ConstantOfShape", 9, convertConstantOfShape);
  t.add("", "ConvTranspose", 1, convertConvTranspose);
  t.add("", "Cosh", 9, convertHyperbolic);
  t.add("", "CumSum", 11, convertCumSum);
  t.add("", "DepthToSpace", 1, convertDepthToSpace);
  t.add("", "DequantizeLinear", 10, convertDequantizeLinear);
  t.add("", "Equal", 1, convertEqual);
  t.add("", "Expand", 8, convertExpand);
  t.add("", "EyeLike", 9, convertEyeLike);
  t.add("", "Add", 1, convertAdd);
  t.add("", "AveragePool", 1, convertAveragePool);
  t.add("", "BatchNormalization", 1, convertBatchNormalization);
  t.add("", "Cast", 6, convertCast);
  t.add("", "Ceil", 1, convertCeil);
  t.add("", "Clip", 1, convertClipAttributes);
  t.add("", "Clip", 11, convertClipInputs);
  t.add("", "Concat", 1, convertConcat);
  t.add("", "Constant", 1, convertConstant);
  t.add("", "Conv", 1, convertConv);
  t.add("", "Cos", 7, convertCos);
  t.add("", "Div", 1, convertDiv);
  t.add("", "Dropout", 1, convertDropout);
  t.add("", "Einsum", 12, convertEinsum);
  t.add("", "Elu", 1, convertElu);
  t.add("", "Erf", 9, convertErf);
  t.add("", "Exp", 1, convertExp);
  t.add("", "Flatten", 1, convertFlatten);
  t.add("", "Floor", 1, convertFloor);
}

}  // namespace mlir::webnn::onnx_import
