// ai.onnx operators Q..Z -> WebNN. Semantics: onnx/docs/Operators.md.
#include <set>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

LogicalResult convertSub(NodeConverter &c) { return convertBinary(c, "sub"); }
LogicalResult convertReciprocal(NodeConverter &c) { return convertUnary(c, "reciprocal"); }
LogicalResult convertRelu(NodeConverter &c) { return convertUnary(c, "relu"); }
LogicalResult convertSigmoid(NodeConverter &c) { return convertUnary(c, "sigmoid"); }
LogicalResult convertSign(NodeConverter &c) { return convertUnary(c, "sign"); }
LogicalResult convertSin(NodeConverter &c) { return convertUnary(c, "sin"); }
LogicalResult convertSoftplus(NodeConverter &c) { return convertUnary(c, "softplus"); }
LogicalResult convertSoftsign(NodeConverter &c) { return convertUnary(c, "softsign"); }
LogicalResult convertSqrt(NodeConverter &c) { return convertUnary(c, "sqrt"); }
LogicalResult convertTanh(NodeConverter &c) { return convertUnary(c, "tanh"); }

// ONNX Reshape's target: 0 copies the input's dimension (unless allowzero),
// -1 is inferred from the element count.
LogicalResult emitReshape(NodeConverter &c, Value x, ArrayRef<int64_t> target, bool allowZero) {
  ArrayRef<int64_t> in = NodeConverter::shapeOf(x);
  int64_t total = NodeConverter::typeOf(x).getNumElements();
  SmallVector<int64_t> out;
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return c.fail("shape[" + Twine(i) + "] = 0 copies a dimension the input does not have");
      d = in[i];
    } else if (d == -1) {
      if (inferAt >= 0) return c.fail("shape has more than one -1");
      inferAt = i;
      out.push_back(-1);
      continue;
    } else if (d < -1) {
      return c.fail("shape[" + Twine(i) + "] = " + Twine(d) + " is invalid");
    }
    known *= d;
    out.push_back(d);
  }
  if (inferAt >= 0) {
    if (known == 0 || total % known != 0)
      return c.fail("cannot infer the -1 dimension: " + Twine(total) +
                    " elements do not divide by " + Twine(known));
    out[inferAt] = total / known;
  } else if (known != total) {
    return c.fail("cannot reshape " + Twine(total) + " elements into " + Twine(known));
  }
  FailureOr<Value> r = c.reshape(x, out);
  if (failed(r)) return failure();
  c.setOutput(0, *r);
  return success();
}

// Reshape-1: the target is the `shape` attribute.
LogicalResult convertReshapeAttribute(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  std::optional<SmallVector<int64_t>> shape = c.intsAttr("shape");
  if (!shape) return c.fail("missing attribute 'shape'");
  return emitReshape(c, *x, *shape, false);
}

// Reshape-5+: the target is a constant input; allowzero from Reshape-14.
LogicalResult convertReshapeInput(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<SmallVector<int64_t>> shape = c.constantIntsInput(1, "shape");
  if (failed(shape)) return failure();
  return emitReshape(c, *x, *shape, c.opset() >= 14 && c.intAttr("allowzero", 0) != 0);
}

// Shape on static shapes is a constant; Shape-15 adds start/end slicing.
LogicalResult convertShape(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*x);
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    if (i < 0) i += rank;
    return std::min(std::max<int64_t>(i, 0), rank);
  };
  int64_t start = clampIndex(c.intAttr("start", 0)), end = clampIndex(c.intAttr("end", rank));
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(shape[i]);
  c.setOutput(0, c.constantI64(dims, {static_cast<int64_t>(dims.size())}));
  return success();
}

LogicalResult emitSoftmax(NodeConverter &c, Value x, int64_t axis) {
  FailureOr<Value> out = c.op("softmax", {x}, {c.i64Attr("axis", axis)});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Softmax-1/11: the input is coerced to 2-D [prod(d[:axis]), prod(d[axis:])]
// and normalized along the second dimension.
LogicalResult convertSoftmaxCoerced(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*x);
  int64_t rank = shape.size();
  int64_t axis = c.intAttr("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank || rank == 0)
    return c.fail("'axis' " + Twine(c.intAttr("axis", 1)) + " is out of range for rank " +
                  Twine(rank));
  if (axis == rank - 1) return emitSoftmax(c, *x, axis);  // coercion changes nothing
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= shape[i];
  FailureOr<Value> flat = c.reshape(*x, {outer, inner});
  if (failed(flat)) return failure();
  FailureOr<Value> soft = c.op("softmax", {*flat}, {c.i64Attr("axis", 1)});
  if (failed(soft)) return failure();
  FailureOr<Value> out = c.reshape(*soft, shape);
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

// Softmax-13+: along one axis, default the last.
LogicalResult convertSoftmaxAxis(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<int64_t> axis =
      c.normalizeAxis(c.intAttr("axis", -1), NodeConverter::rankOf(*x), "axis");
  if (failed(axis)) return failure();
  return emitSoftmax(c, *x, *axis);
}

LogicalResult emitSqueeze(NodeConverter &c, Value x, std::optional<SmallVector<int64_t>> axes) {
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  int64_t rank = shape.size();
  std::set<int64_t> drop;
  if (!axes) {
    for (int64_t i = 0; i < rank; ++i)
      if (shape[i] == 1) drop.insert(i);
  } else {
    for (int64_t a : *axes) {
      FailureOr<int64_t> axis = c.normalizeAxis(a, rank, "axis");
      if (failed(axis)) return failure();
      if (shape[*axis] != 1)
        return c.fail("cannot squeeze dimension " + Twine(*axis) + " of size " +
                      Twine(shape[*axis]));
      drop.insert(*axis);
    }
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop.count(i)) out.push_back(shape[i]);
  FailureOr<Value> r = c.reshape(x, out);
  if (failed(r)) return failure();
  c.setOutput(0, *r);
  return success();
}

// Squeeze-1/11: `axes` attribute; absent squeezes every 1.
LogicalResult convertSqueezeAttribute(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  return emitSqueeze(c, *x, c.intsAttr("axes"));
}

// Squeeze-13+: `axes` is an optional constant input.
LogicalResult convertSqueezeInput(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  std::optional<SmallVector<int64_t>> axes;
  if (c.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(1, "axes");
    if (failed(a)) return failure();
    axes = *a;
  }
  return emitSqueeze(c, *x, axes);
}

LogicalResult emitUnsqueeze(NodeConverter &c, Value x, ArrayRef<int64_t> axes) {
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  int64_t outRank = shape.size() + axes.size();
  std::set<int64_t> inserted;
  for (int64_t a : axes) {
    FailureOr<int64_t> axis = c.normalizeAxis(a, outRank, "axis");
    if (failed(axis)) return failure();
    if (!inserted.insert(*axis).second) return c.fail("'axes' repeats " + Twine(*axis));
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0, next = 0; i < outRank; ++i)
    out.push_back(inserted.count(i) ? 1 : shape[next++]);
  FailureOr<Value> r = c.reshape(x, out);
  if (failed(r)) return failure();
  c.setOutput(0, *r);
  return success();
}

// Unsqueeze-1/11: `axes` attribute.
LogicalResult convertUnsqueezeAttribute(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  std::optional<SmallVector<int64_t>> axes = c.intsAttr("axes");
  if (!axes) return c.fail("missing required attribute 'axes'");
  return emitUnsqueeze(c, *x, *axes);
}

// Unsqueeze-13+: `axes` is a constant input.
LogicalResult convertUnsqueezeInput(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<SmallVector<int64_t>> axes = c.constantIntsInput(1, "axes");
  if (failed(axes)) return failure();
  return emitUnsqueeze(c, *x, *axes);
}

LogicalResult convertTranspose(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> p = c.intsAttr("perm")) {
    perm = *p;
  } else {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);  // ONNX default: reversed
  }
  std::set<int64_t> seen(perm.begin(), perm.end());
  if (static_cast<int64_t>(perm.size()) != rank || static_cast<int64_t>(seen.size()) != rank ||
      (rank > 0 && (*seen.begin() < 0 || *seen.rbegin() >= rank)))
    return c.fail("'perm' is not a permutation of the input's " + Twine(rank) + " dimensions");
  FailureOr<Value> out = c.op("transpose", {*x}, {c.i64ArrayAttr("permutation", perm)});
  if (failed(out)) return failure();
  c.setOutput(0, *out);
  return success();
}

}  // namespace

void populateDefaultDomainQtoZ(OpConverterTable &t) {
  t.add("", "Reciprocal", 1, convertReciprocal);
  t.add("", "Relu", 1, convertRelu);
  t.add("", "Reshape", 1, convertReshapeAttribute);
  t.add("", "Reshape", 5, convertReshapeInput);
  t.add("", "Shape", 1, convertShape);
  t.add("", "Sigmoid", 1, convertSigmoid);
  t.add("", "Sign", 9, convertSign);
  t.add("", "Sin", 7, convertSin);
  t.add("", "Softmax", 1, convertSoftmaxCoerced);
  t.add("", "Softmax", 13, convertSoftmaxAxis);
  t.add("", "Softplus", 1, convertSoftplus);
  t.add("", "Softsign", 1, convertSoftsign);
  t.add("", "Sqrt", 1, convertSqrt);
  t.add("", "Squeeze", 1, convertSqueezeAttribute);
  t.add("", "Squeeze", 13, convertSqueezeInput);
  t.add("", "Sub", 1, convertSub);
  t.add("", "Tanh", 1, convertTanh);
  t.add("", "Transpose", 1, convertTranspose);
  t.add("", "Unsqueeze", 1, convertUnsqueezeAttribute);
  t.add("", "Unsqueeze", 13, convertUnsqueezeInput);
}

}  // namespace mlir::webnn::onnx_import
