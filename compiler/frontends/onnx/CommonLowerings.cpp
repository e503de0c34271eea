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
  if (failed(c.rejectExtraOutputs(1, "pooling indices have no WebNN equivalent")))
    return failure();
  Value x = *input;
  int64_t rank = NodeConverter::rankOf(x);
  if (rank != 3 && rank != 4)
    return c.fail("only 1-D and 2-D pooling (rank 3 or 4 input) is supported, got rank " +
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
  SmallVector<NamedAttribute> attrs = {
      c.i64ArrayAttr("windowDimensions", k2), c.i64ArrayAttr("padding", toWebNNPadding2d(p2)),
      c.i64ArrayAttr("strides", s2), c.i64ArrayAttr("dilations", d2),
      c.strAttr("roundingType", c.intAttr("ceil_mode", 0) ? "ceil" : "floor")};
  FailureOr<Value> out = c.op(webnnOp, {x}, attrs);
  if (failed(out)) return failure();
  Value result = *out;
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
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  if (shape.size() != 3 && shape.size() != 4)
    return c.fail("only 1-D and 2-D global pooling (rank 3 or 4 input) is supported, got rank " +
                  Twine(shape.size()));
  bool lifted = shape.size() == 3;
  if (lifted) {
    FailureOr<Value> r = c.reshape(x, {shape[0], shape[1], 1, shape[2]});
    if (failed(r)) return failure();
    x = *r;
  }
  // No windowDimensions: the window is the whole spatial extent.
  FailureOr<Value> out = c.op(webnnOp, {x});
  if (failed(out)) return failure();
  Value result = *out;
  if (lifted) {
    FailureOr<Value> r = c.reshape(result, {shape[0], shape[1], 1});
    if (failed(r)) return failure();
    result = *r;
  }
  c.setOutput(0, result);
  return success();
}

}  // namespace mlir::webnn::onnx_import
