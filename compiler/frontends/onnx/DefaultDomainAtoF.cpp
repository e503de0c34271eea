// ai.onnx operators A..F -> WebNN. Semantics: onnx/docs/Operators.md.
#include <cmath>
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
  if (c.intAttr("training_mode", 0) != 0)
    return c.fail("training_mode=1 is not supported (WebNN graphs are inference only)");
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
  Type elem = convertElementType(c.context(), static_cast<int32_t>(to));
  if (!elem)
    return c.fail("cast to " + onnxTypeName(static_cast<int32_t>(to)) + " is not supported");
  FailureOr<Value> out =
      c.op("cast", {*x}, {c.builder().getNamedAttr("type", TypeAttr::get(elem))});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Reads Clip's bound from a scalar constant input.
FailureOr<std::optional<double>> clipBound(NodeConverter &c, size_t i, StringRef what) {
  if (!c.hasInput(i)) return std::optional<double>();
  std::optional<ConstantData> d = c.constantInput(i);
  if (!d) return c.fail("'" + what + "' must be a constant"), failure();
  if (d->numElements() != 1) return c.fail("'" + what + "' must be a scalar"), failure();
  return std::optional<double>(d->floatAt(0));
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

// Clip-11+: bounds are optional scalar inputs, which must be constants.
LogicalResult convertClipInputs(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<std::optional<double>> lo = clipBound(c, 1, "min");
  if (failed(lo)) return failure();
  FailureOr<std::optional<double>> hi = clipBound(c, 2, "max");
  if (failed(hi)) return failure();
  return emitClamp(c, *x, *lo, *hi);
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

// Conv: 2-D directly, 1-D as 2-D over a height-1 image.
LogicalResult convertConv(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0), filter = c.requiredInput(1);
  if (failed(input) || failed(filter)) return failure();
  Value x = *input, w = *filter, bias = c.input(2);
  int64_t rank = NodeConverter::rankOf(x);
  if (rank != 3 && rank != 4)
    return c.fail("only 1-D and 2-D convolution (rank 3 or 4 input) is supported, got rank " +
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
  if (c.opset() >= 12 && c.hasInput(2)) {
    std::optional<ConstantData> training = c.constantInput(2);
    if (!training) return c.fail("'training_mode' must be a constant");
    if (training->numElements() != 1 || training->intAt(0) != 0)
      return c.fail("training_mode=true is not supported (WebNN graphs are inference only)");
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

}  // namespace

void populateDefaultDomainAtoF(OpConverterTable &t) {
  t.add("", "Abs", 1, convertAbs);
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
  t.add("", "Elu", 1, convertElu);
  t.add("", "Erf", 9, convertErf);
  t.add("", "Exp", 1, convertExp);
  t.add("", "Flatten", 1, convertFlatten);
  t.add("", "Floor", 1, convertFloor);
}

}  // namespace mlir::webnn::onnx_import
