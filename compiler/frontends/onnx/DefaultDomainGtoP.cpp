// ai.onnx operators G..P -> WebNN. Semantics: onnx/docs/Operators.md.
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

LogicalResult convertMul(NodeConverter &c) { return convertBinary(c, "mul"); }
// Pow-12+ lets the exponent's type differ from the base's; the result has
// the base's type, so the exponent is cast to it (WebNN pow needs one type).
LogicalResult convertPow(NodeConverter &c) {
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
  if (std::optional<ConstantData> cidx = c.constantInput(1)) {
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

}  // namespace

void populateDefaultDomainGtoP(OpConverterTable &t) {
  t.add("", "Gather", 1, convertGather);
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
  t.add("", "Pow", 7, convertPow);
}

}  // namespace mlir::webnn::onnx_import
