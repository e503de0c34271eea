// ai.onnx operators Q..Z -> WebNN. Semantics: onnx/docs/Operators.md.
#include <cmath>
#include <limits>
#include <set>

#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNShapeUtils.h"

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
// With dynamic dimensions (`--dynamic-dim`), a 0 copies a dynamic dimension
// in place; the -1 is then inferred from the input's other dimensions when
// they are static, else left dynamic for webnn.reshape (one dynamic value,
// resolved at run time).
LogicalResult emitReshape(NodeConverter &c, Value x, ArrayRef<int64_t> target, bool allowZero) {
  ArrayRef<int64_t> in = NodeConverter::shapeOf(x);
  SmallVector<bool> copiedDynamic(in.size(), false);
  SmallVector<int64_t> out;
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return c.fail("shape[" + Twine(i) + "] = 0 copies a dimension the input does not have");
      d = in[i];
      if (ShapedType::isDynamic(d)) {
        copiedDynamic[i] = true;
        out.push_back(d);
        continue;
      }
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
  // The input's elements outside the dynamic dimensions copied in place.
  int64_t total = 1;
  bool totalKnown = true;
  for (size_t i = 0; i < in.size(); ++i) {
    if (copiedDynamic[i]) continue;
    if (ShapedType::isDynamic(in[i])) totalKnown = false;
    else total *= in[i];
  }
  if (inferAt >= 0 && !totalKnown) {
    out[inferAt] = ShapedType::kDynamic;
  } else if (inferAt >= 0) {
    if (known == 0 || total % known != 0)
      return c.fail("cannot infer the -1 dimension: " + Twine(total) +
                    " elements do not divide by " + Twine(known));
    out[inferAt] = total / known;
  } else if (totalKnown && known != total) {
    return c.fail("cannot reshape " + Twine(total) + " elements into " + Twine(known));
  }
  // Several dynamic sizes each copy the input's at the same index
  // (webnn.reshape); an inferred one cannot be among them.
  if (inferAt >= 0 && ShapedType::isDynamic(out[inferAt]) && llvm::count_if(out, ShapedType::isDynamic) >= 2)
    return c.fail("the -1 dimension cannot be inferred besides the dynamic dimensions copied by 0 (its size "
                  "depends on the input's other dynamic dimensions)");
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

// A target with several entries known only at run time (exporters' [batch,
// seq, heads, dim] over [batch, seq, hidden], or [batch, -1]): each must be
// the input's dimension at the same index, which webnn.reshape copies when
// it has several dynamic values; the rest must hold the input's other
// (static) elements.
static LogicalResult reshapeCopyingDynamicDims(NodeConverter &c, Value x, const ShapeValueDims &d) {
  StringRef name = c.node().input(1);
  ArrayRef<int64_t> in = NodeConverter::shapeOf(x);
  std::optional<SmallVector<SymExpr>> xd = c.graphImporter().symbolicDims(x);
  auto refuse = [&](const Twine &why) {
    return c.fail("input 'shape' ('" + name + "') is computed from " +
                  *c.graphImporter().shapeValueOrigin(name) + " and has several entries known only at run time; " +
                  why);
  };
  if (!xd) return refuse("the input's dimensions cannot be followed (fix them with --shape)");
  SmallVector<int64_t> target;
  SmallVector<bool> copied(in.size(), false);
  int64_t targetCount = 1, minusOne = -1;
  for (size_t k = 0; k < d.dims.size(); ++k) {
    std::optional<SymExpr> e = d.exprAt(k);
    if (d.dims[k] && *d.dims[k] == -1) {
      if (minusOne >= 0) return refuse("shape has more than one -1");
      minusOne = int64_t(k);
      target.push_back(-1);
      continue;
    }
    bool copy = !d.dims[k] || (*d.dims[k] == 0 && k < in.size() && ShapedType::isDynamic(in[k]));
    if (!copy) {
      int64_t v = *d.dims[k] == 0 && k < in.size() ? in[k] : *d.dims[k];
      if (v <= 0) return refuse("entry " + Twine(k) + " is " + Twine(v));
      targetCount *= v;
      target.push_back(v);
      continue;
    }
    if (k >= in.size() || !ShapedType::isDynamic(in[k]))
      return refuse("entry " + Twine(k) + (e ? " (" + e->spell() + ")" : std::string()) +
                    " is not a dynamic dimension of the input " + formatList(in) + " at the same index");
    if (*d.dims[k] != 0 && (!e || *e != (*xd)[k]))
      return refuse("entry " + Twine(k) + " (" + (e ? e->spell() : std::string("a product of dynamic sizes")) +
                    ") is not the input's dimension " + Twine(k) + " (" + (*xd)[k].spell() + ")");
    copied[k] = true;
    target.push_back(ShapedType::kDynamic);
  }
  // The input's dimensions not copied: static, a -1 inferred from them; or
  // one dynamic at the -1's index, which it then copies.
  int64_t rest = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    if (copied[i]) continue;
    if (ShapedType::isDynamic(in[i]) && int64_t(i) == minusOne) {
      copied[i] = true;
      target[i] = ShapedType::kDynamic;
      continue;
    }
    if (ShapedType::isDynamic(in[i]))
      return refuse("the input's dynamic dimension " + Twine(i) + " (" + (*xd)[i].spell() +
                    ") is not kept at its index");
    rest *= in[i];
  }
  if (minusOne >= 0 && target[minusOne] == -1) {
    if (targetCount == 0 || rest % targetCount != 0)
      return refuse("the -1 cannot hold the input's other " + Twine(rest) + " elements");
    target[minusOne] = rest / targetCount;
    targetCount = rest;
  }
  if (rest != targetCount)
    return refuse("its static entries hold " + Twine(targetCount) + " elements, the input's other dimensions " +
                  Twine(rest));
  FailureOr<Value> r = c.op("reshape", {x}, {c.i64ArrayAttr("newShape", target)});
  if (failed(r)) return failure();
  c.setOutput(0, *r);
  return success();
}

// Reshape-5+: the target is a constant input; allowzero from Reshape-14.
// A target built from Shape of a dynamic tensor (Shape -> Gather ->
// Unsqueeze -> Concat, as exporters write it) is used when one entry is
// known only at run time: it becomes -1, which the element count fixes.
LogicalResult convertReshapeInput(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  if (c.isShapeValueInput(1)) {
    StringRef name = c.node().input(1);
    const ShapeValueDims *d = c.graphImporter().shapeValueDims(name);
    for (size_t k = 0; d && k < d->dims.size(); ++k)
      if (ShapeValueDims::Entry e = d->entry(k); e.divisor != 1)
        return c.fail("input 'shape' ('" + name + "') entry " + Twine(k) + " is (" + e.expr->spell() + ") / " +
                      Twine(e.divisor) + ", which is not an affine function of the dynamic dimensions (a dimension "
                      "of a graph with --dynamic-dim is offset + coefficients * sizes); fix them with --shape");
    int64_t unknown = 0, inferred = 0;
    SmallVector<int64_t> target;
    for (const std::optional<int64_t> &v : d ? d->dims : SmallVector<std::optional<int64_t>>{}) {
      unknown += !v.has_value();
      inferred += v && *v == -1;
      target.push_back(v.value_or(-1));
    }
    if (d && !d->scalar && unknown + inferred >= 2) return reshapeCopyingDynamicDims(c, *x, *d);
    if (!d || d->scalar || unknown + inferred != 1) {
      std::string why = d && !d->scalar
                            ? ", and " + std::to_string(unknown) + " of its entries are known only at run time" +
                                  (inferred ? " besides a -1" : "") +
                                  ": WebNN's reshape infers one (fix the others with --shape)"
                            : ", whose size is only known at run time (fix the dimension with --shape)";
      return c.fail("input 'shape' ('" + name + "') is computed from " + *c.graphImporter().shapeValueOrigin(name) +
                    why);
    }
    return emitReshape(c, *x, target, c.opset() >= 14 && c.intAttr("allowzero", 0) != 0);
  }
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
  for (int64_t i = start; i < end; ++i) {
    if (ShapedType::isDynamic(shape[i])) {
      // Its static entries stay known, for the Gathers and Reshapes after it.
      // The dynamic ones carry their expressions where the dialect's type
      // inference gives them (Reshape, Range, Expand, ... use them).
      std::optional<SmallVector<SymExpr>> exprs = c.graphImporter().symbolicDims(*x);
      ShapeValueDims entries;
      for (int64_t j = start; j < end; ++j)
        entries.push(ShapedType::isDynamic(shape[j]) ? std::nullopt : std::optional<int64_t>(shape[j]),
                     exprs ? std::optional<SymExpr>((*exprs)[j]) : std::nullopt);
      c.setShapeValueOutput(0, "the shape of '" + c.node().input(0) + "'", std::move(entries));
      return success();
    }
    dims.push_back(shape[i]);
  }
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
  // A dynamic dimension makes its side's product dynamic (webnn.reshape
  // takes one dynamic value).
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t &side = i < axis ? outer : inner;
    side = ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(side) ? ShapedType::kDynamic : side * shape[i];
  }
  if (ShapedType::isDynamic(outer) && ShapedType::isDynamic(inner))
    return c.fail("Softmax-" + Twine(c.opset()) + " coerces the input to 2-D, which needs the dynamic dimensions on "
                  "one side of 'axis' (fix them with --shape)");
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


LogicalResult convertQuantizeLinear(NodeConverter &c) { return convertQuantizeLike(c, true); }
LogicalResult convertRound(NodeConverter &c) { return convertUnary(c, "roundEven"); }
LogicalResult convertTan(NodeConverter &c) { return convertUnary(c, "tan"); }
LogicalResult convertXor(NodeConverter &c) { return convertBinary(c, "logicalXor"); }

// Reduce*: `axes` an attribute before ReduceSum-13 / the others' opset 18,
// an optional input since. Empty axes = all, unless noop_with_empty_axes.
LogicalResult convertReduce(NodeConverter &c, StringRef webnnOp, bool axesInput) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  std::optional<SmallVector<int64_t>> axes;
  if (axesInput) {
    if (c.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(1, "axes");
      if (failed(a)) return failure();
      axes = *a;
    }
  } else {
    axes = c.intsAttr("axes");
  }
  if (axes && axes->empty()) axes.reset();
  if (!axes && axesInput && c.intAttr("noop_with_empty_axes", 0) != 0) {
    c.setOutput(0, *x);
    return success();
  }
  SmallVector<NamedAttribute> attrs = {c.boolAttr("keepDimensions", c.intAttr("keepdims", 1) != 0)};
  if (axes) {
    SmallVector<int64_t> normalized;
    for (int64_t a : *axes) {
      FailureOr<int64_t> n = c.normalizeAxis(a, rank, "axis");
      if (failed(n)) return failure();
      normalized.push_back(*n);
    }
    llvm::sort(normalized);
    normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
    attrs.push_back(c.i64ArrayAttr("axes", normalized));
  }
  return c.done(c.emit(webnnOp, {*x}, attrs));
}

template <const char *Op, bool AxesInput>
LogicalResult convertReduceT(NodeConverter &c) {
  return convertReduce(c, Op, AxesInput);
}
constexpr char kReduceL1[] = "reduceL1", kReduceL2[] = "reduceL2",
               kReduceLogSum[] = "reduceLogSum", kReduceLogSumExp[] = "reduceLogSumExp",
               kReduceMax[] = "reduceMax", kReduceMean[] = "reduceMean",
               kReduceMin[] = "reduceMin", kReduceProd[] = "reduceProduct",
               kReduceSum[] = "reduceSum", kReduceSumSquare[] = "reduceSumSquare";

// Slice: per-axis start/end clamped as ONNX specifies; positive steps are
// WebNN strides, negative steps (walking backwards) gather the exact indices.
LogicalResult emitSlice(NodeConverter &c, Value x, ArrayRef<int64_t> starts,
                        ArrayRef<int64_t> ends, std::optional<SmallVector<int64_t>> axesIn,
                        std::optional<SmallVector<int64_t>> stepsIn) {
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  int64_t rank = shape.size();
  if (starts.size() != ends.size()) return c.fail("'starts' and 'ends' differ in length");
  SmallVector<int64_t> axes, steps;
  if (axesIn) axes = *axesIn;
  else
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(i);
  if (stepsIn) steps = *stepsIn;
  else steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return c.fail("'axes' and 'steps' must match 'starts' in length");
  SmallVector<int64_t> begin(rank, 0), size(shape), stride(rank, 1);
  SmallVector<std::pair<int64_t, SmallVector<int64_t>>> backwards;  // axis, indices
  SmallVector<int64_t> fromEnd;  // dynamic axes sliced relative to their end
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = c.normalizeAxis(axes[i], rank, "axis");
    if (failed(axis)) return failure();
    int64_t dim = shape[*axis], step = steps[i];
    if (step == 0) return c.fail("'steps' must not be 0");
    auto clampTo = [](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); };
    int64_t s = starts[i], e = ends[i];
    if (ShapedType::isDynamic(dim)) {
      // A window whose bounds do not move with the size known at run time:
      // [start >= 0, end of the axis) is webnn.slice's size `?`; [-a, -b)
      // (b = 0: to the end), counted from the end, is a slice of the
      // reversed axis, reversed back. Both assume the axis is long enough,
      // as ONNX Runtime's result would otherwise be shorter.
      const bool toEnd = e >= std::numeric_limits<int32_t>::max();
      if (step == 1 && s >= 0 && toEnd) {
        begin[*axis] = s;
        size[*axis] = ShapedType::kDynamic;
        continue;
      }
      if (step == 1 && s < 0 && (toEnd || (e < 0 && e > s))) {
        begin[*axis] = toEnd ? 0 : -e;
        size[*axis] = toEnd ? -s : e - s;
        fromEnd.push_back(*axis);
        continue;
      }
      return c.fail("Slice along dynamic dimension " + Twine(*axis) +
                    " supports only [start >= 0, end of the axis) and [-a, -b) from the end, with step 1; got [" +
                    Twine(starts[i]) + ", " + Twine(ends[i]) + ") step " + Twine(step) +
                    " (fix the dimension with --shape)");
    }
    if (s < 0) s += dim;
    if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2) e += dim;
    if (step > 0) {
      s = clampTo(s, 0, dim);
      e = clampTo(e, 0, dim);
      begin[*axis] = s;
      size[*axis] = e > s ? (e - s + step - 1) / step : 0;
      stride[*axis] = step;
    } else {
      s = clampTo(s, 0, dim - 1);
      e = clampTo(e, -1, dim - 1);
      SmallVector<int64_t> idx;
      for (int64_t k = s; k > e; k += step) idx.push_back(k);
      backwards.push_back({*axis, idx});
    }
  }
  SmallVector<int64_t> outShape(size);
  for (auto &[axis, idx] : backwards) outShape[axis] = idx.size();
  if (llvm::is_contained(outShape, 0)) {
    // An empty slice of a constant (the prefix of a shape in ONNX function
    // bodies) is an empty constant, which only constant folding may consume;
    // WebNN itself has no empty tensors.
    if (getConstantData(x))
      return c.done(c.constant(DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get(outShape, NodeConverter::typeOf(x).getElementType()), {})));
    return c.fail("slices with an empty result are not supported");
  }
  Value v = x;
  if (!fromEnd.empty()) v = c.emit("reverse", {v}, {c.i64ArrayAttr("axes", fromEnd)});
  if (llvm::any_of(llvm::seq<int64_t>(0, rank), [&](int64_t i) {
        return begin[i] != 0 || size[i] != shape[i] || stride[i] != 1;
      })) {
    // WebNN `sizes` counts the input elements spanned, strides then pick; a
    // dynamic size spans to the end of its axis.
    SmallVector<int64_t> span(rank);
    for (int64_t i = 0; i < rank; ++i)
      span[i] = ShapedType::isDynamic(size[i]) ? size[i] : (size[i] - 1) * stride[i] + 1;
    v = c.emit("slice", {v},
               {c.i64ArrayAttr("starts", begin), c.i64ArrayAttr("sizes", span),
                c.i64ArrayAttr("strides", stride)});
  }
  if (!fromEnd.empty()) v = c.emit("reverse", {v}, {c.i64ArrayAttr("axes", fromEnd)});
  for (auto &[axis, idx] : backwards) {
    if (idx.empty()) return c.fail("slices with an empty result are not supported");
    Value indices = c.constantI64(idx, {static_cast<int64_t>(idx.size())});
    v = c.emit("gather", {v, indices}, {c.i64Attr("axis", axis)});
  }
  return c.done(v);
}

// Slice-1: starts/ends/axes attributes.
LogicalResult convertSliceAttributes(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  auto starts = c.intsAttr("starts"), ends = c.intsAttr("ends");
  if (!starts || !ends) return c.fail("missing attribute 'starts' or 'ends'");
  return emitSlice(c, *x, *starts, *ends, c.intsAttr("axes"), std::nullopt);
}

// Slice-10+: starts, ends, axes?, steps? inputs (constants).
LogicalResult convertSliceInputs(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<SmallVector<int64_t>> starts = c.constantIntsInput(1, "starts");
  if (failed(starts)) return failure();
  FailureOr<SmallVector<int64_t>> ends = c.constantIntsInput(2, "ends");
  if (failed(ends)) return failure();
  std::optional<SmallVector<int64_t>> axes, steps;
  if (c.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(3, "axes");
    if (failed(a)) return failure();
    axes = *a;
  }
  if (c.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(4, "steps");
    if (failed(a)) return failure();
    steps = *a;
  }
  return emitSlice(c, *x, *starts, *ends, axes, steps);
}

// Split: sizes from the `split` attribute (< 13) or input (>= 13), else equal
// parts, one per output (Split-18: `num_outputs`, the last part smaller).
LogicalResult convertSplit(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*x);
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 0), shape.size(), "axis");
  if (failed(axis)) return failure();
  int64_t dim = shape[*axis];
  if (ShapedType::isDynamic(dim))
    return c.fail("Split along dynamic dimension " + Twine(*axis) +
                  " is not supported: its parts' sizes depend on it (fix the dimension with --shape)");
  SmallVector<int64_t> sizes;
  if (c.opset() < 13) {
    if (auto s = c.intsAttr("split")) sizes = *s;
  } else if (c.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> s = c.constantIntsInput(1, "split");
    if (failed(s)) return failure();
    sizes = *s;
  }
  if (sizes.empty()) {
    int64_t n = c.numOutputs();
    if (c.opset() >= 18 && c.hasAttr("num_outputs")) n = c.intAttr("num_outputs", n);
    if (n <= 0) return c.fail("needs at least one output");
    int64_t chunk = (dim + n - 1) / n;
    if (c.opset() < 18 && dim % n != 0)
      return c.fail("dimension " + Twine(dim) + " does not split into " + Twine(n) + " equal parts");
    for (int64_t i = 0, left = dim; i < n; ++i, left -= chunk) sizes.push_back(std::min(chunk, left));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != dim) return c.fail("split sizes add up to " + Twine(total) + ", not " + Twine(dim));
  if (static_cast<int64_t>(sizes.size()) != static_cast<int64_t>(c.numOutputs()))
    return c.fail("split into " + Twine(sizes.size()) + " parts but the node has " +
                  Twine(c.numOutputs()) + " outputs");
  if (sizes.size() == 1) {
    c.setOutput(0, *x);
    return success();
  }
  FailureOr<SmallVector<Value>> parts = c.graphImporter().graph().addOp(
      "split", {*x}, {c.i64ArrayAttr("splits", sizes), c.i64Attr("axis", *axis)}, c.loc(),
      sizes.size());
  if (failed(parts)) return failure();
  for (size_t i = 0; i < parts->size(); ++i) c.setOutput(i, (*parts)[i]);
  return success();
}

// Selu: gamma * elu(x, alpha).
LogicalResult convertSelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value e = c.emit("elu", {*x}, {c.f64Attr("alpha", c.floatAttr("alpha", 1.67326319217681884765625f))});
  return c.done(c.emit("mul", {e, c.scalar(elem, c.floatAttr("gamma", 1.05070102214813232421875f))}));
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
LogicalResult convertShrink(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  double lambd = c.floatAttr("lambd", 0.5f), bias = c.floatAttr("bias", 0.0f);
  Value below = c.emit("lesser", {*x, c.scalar(elem, -lambd)});
  Value above = c.emit("greater", {*x, c.scalar(elem, lambd)});
  Value zero = c.scalar(elem, 0);
  Value hi = c.emit("where", {above, c.emit("sub", {*x, c.scalar(elem, bias)}), zero});
  return c.done(c.emit("where", {below, c.emit("add", {*x, c.scalar(elem, bias)}), hi}));
}

// Size: the element count, an int64 scalar.
LogicalResult convertSize(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  c.setOutput(0, c.constantI64({NodeConverter::typeOf(*x).getNumElements()}, {}));
  return success();
}

// Sum: a chain of adds.
LogicalResult convertSum(NodeConverter &c) {
  if (c.numInputs() == 0) return c.fail("needs at least one input");
  Value acc = c.input(0);
  for (size_t i = 1; i < c.numInputs(); ++i) acc = c.emit("add", {acc, c.input(i)});
  return c.done(acc);
}

// ThresholdedRelu: x where x > alpha, else 0.
LogicalResult convertThresholdedRelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value keep = c.emit("greater", {*x, c.scalar(elem, c.floatAttr("alpha", 1.0f))});
  return c.done(c.emit("where", {keep, *x, c.scalar(elem, 0)}));
}

// Tile-6+: `repeats` a constant input.
LogicalResult convertTile(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  FailureOr<SmallVector<int64_t>> reps = c.constantIntsInput(1, "repeats");
  if (failed(reps)) return failure();
  return c.done(c.emit("tile", {*x}, {c.i64ArrayAttr("repetitions", *reps)}));
}

// Trilu-14: keeps the upper (upper=1) or lower triangle from diagonal k.
LogicalResult convertTrilu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t k = 0;
  bool upper = c.intAttr("upper", 1) != 0;
  if (c.hasInput(1) && !c.constantInput(1)) {
    // k computed at run time: keep x[..., i, j] where j - i >= k (upper) or
    // j - i <= k (lower), i.e. (j - k) >= i or (j - k) <= i, from column
    // indices [1, M] and row indices [N, 1] (constants linear in N + M).
    FailureOr<Value> kv = c.requiredInput(1);
    if (failed(kv)) return failure();
    RankedTensorType kt = NodeConverter::typeOf(*kv);
    if (!kt.hasStaticShape() || kt.getNumElements() != 1 || !kt.getElementType().isInteger(64))
      return c.fail("'k' must be one int64");
    ArrayRef<int64_t> s = NodeConverter::shapeOf(*x);
    if (s.size() < 2) return c.fail("the input must have rank >= 2");
    int64_t n = s[s.size() - 2], m = s[s.size() - 1];
    SmallVector<int64_t> rows, cols;
    for (int64_t i = 0; i < n; ++i) rows.push_back(i);
    for (int64_t j = 0; j < m; ++j) cols.push_back(j);
    Value shifted = c.emit("sub", {c.constantI64(cols, {1, m}), c.emitReshape(*kv, {})});
    Value keep = c.emit(upper ? "greaterOrEqual" : "lesserOrEqual", {shifted, c.constantI64(rows, {n, 1})});
    Type elem = NodeConverter::typeOf(*x).getElementType();
    return c.done(c.emit("where", {keep, *x, c.scalar(elem, 0)}));
  }
  if (c.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> kv = c.constantIntsInput(1, "k");
    if (failed(kv)) return failure();
    if (kv->size() != 1) return c.fail("'k' must be a scalar");
    k = (*kv)[0];
  }
  return c.done(c.emit("triangular", {*x}, {c.boolAttr("upper", upper), c.i64Attr("diagonal", k)}));
}

LogicalResult convertWhere(NodeConverter &c) {
  FailureOr<Value> cond = c.requiredInput(0), a = c.requiredInput(1), b = c.requiredInput(2);
  if (failed(cond) || failed(a) || failed(b)) return failure();
  return c.done(c.emit("where", {*cond, *a, *b}));
}

// SpaceToDepth: blocks of the spatial dims move into channels.
LogicalResult convertSpaceToDepth(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  ArrayRef<int64_t> s = NodeConverter::shapeOf(*x);
  int64_t b = c.intAttr("blocksize", 0);
  if (s.size() == 4 && llvm::any_of(s.drop_front(), [](int64_t d) { return ShapedType::isDynamic(d); }))
    return c.fail("dynamic channels, height or width are not supported: H / blocksize is not affine in them "
                  "(fix them with --shape)");
  if (s.size() != 4 || b <= 0 || s[2] % b || s[3] % b)
    return c.fail("needs a 4-D input whose H and W divide by 'blocksize'");
  Value v = c.emitReshape(*x, {s[0], s[1], s[2] / b, b, s[3] / b, b});
  v = c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {0, 3, 5, 1, 2, 4})});
  return c.done(c.emitReshape(v, {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
}

// SoftmaxCrossEntropyLoss: log_softmax over the classes (axis 1), then
// NegativeLogLikelihoodLoss.
LogicalResult convertSoftmaxCrossEntropyLoss(NodeConverter &c) {
  FailureOr<Value> scores = c.requiredInput(0), labels = c.requiredInput(1);
  if (failed(scores) || failed(labels)) return failure();
  if (NodeConverter::rankOf(*scores) < 2) return c.fail("scores must have rank >= 2");
  Value logProb = emitLogSoftmax(c, *scores, 1);
  Value loss = emitNegativeLogLikelihood(c, logProb, *labels, c.input(2));
  if (c.emitFailed() || !loss) return failure();
  c.setOutput(0, loss);
  if (c.outputUsed(1)) c.setOutput(1, logProb);
  return success();
}

// Range: constant start/limit/delta fold to a constant.
LogicalResult convertRange(NodeConverter &c) {
  // WebNN shapes are static, so the bounds must be known.
  FailureOr<ConstantData> start = c.requireConstantInput(0, "start");
  if (failed(start)) return failure();
  FailureOr<ConstantData> limit = c.requireConstantInput(1, "limit");
  if (failed(limit)) return failure();
  FailureOr<ConstantData> delta = c.requireConstantInput(2, "delta");
  if (failed(delta)) return failure();
  Type elem = start->type.getElementType();
  double s = start->floatAt(0), l = limit->floatAt(0), d = delta->floatAt(0);
  if (d == 0) return c.fail("delta must not be 0");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((l - s) / d)));
  if (n == 0) return c.fail("empty ranges are not supported");
  auto type = RankedTensorType::get({n}, elem);
  if (auto f = mlir::dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> v;
    for (int64_t i = 0; i < n; ++i) {
      APFloat a(s + i * d);
      bool lost;
      a.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(a);
    }
    return c.done(c.constant(DenseElementsAttr::get(type, v)));
  }
  int64_t si = start->intAt(0), di = delta->intAt(0);
  SmallVector<APInt> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(APInt(elem.getIntOrFloatBitWidth(), static_cast<uint64_t>(si + i * di), true));
  return c.done(c.constant(DenseElementsAttr::get(type, v)));
}

// ScatterElements-11 / Scatter-9..10 (the same op): reduction "none" only.
LogicalResult convertScatterElements(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), idx = c.requiredInput(1), upd = c.requiredInput(2);
  if (failed(x) || failed(idx) || failed(upd)) return failure();
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", 0), NodeConverter::rankOf(*x), "axis");
  if (failed(axis)) return failure();
  std::string reduction = c.stringAttr("reduction", "none");
  if (reduction != "none")
    return c.done(emitScatterElementsReduce(c, *x, *idx, *upd, *axis, reduction));
  return c.done(c.emit("scatterElements", {*x, *idx, *upd}, {c.i64Attr("axis", *axis)}));
}

LogicalResult convertScatterND(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), idx = c.requiredInput(1), upd = c.requiredInput(2);
  if (failed(x) || failed(idx) || failed(upd)) return failure();
  std::string reduction = c.stringAttr("reduction", "none");
  if (reduction != "none") return c.done(emitScatterNDReduce(c, *x, *idx, *upd, reduction));
  return c.done(c.emit("scatterND", {*x, *idx, *upd}));
}

// Resize / Upsample -> resample2d where it samples the same points: half-pixel
// centres with scale = outputSize / inputSize, nearest rounding half down
// (ONNX round_prefer_floor), linear = bilinear; asymmetric floor-nearest
// coincides for integer upscale factors. Every other mode, rank or scale goes
// through emitResizeByMatrices.
LogicalResult emitResample(NodeConverter &c, Value x, std::optional<SmallVector<double>> scales,
                           std::optional<SmallVector<int64_t>> sizes, const ResizeParams &p) {
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(x);
  int64_t rank = shape.size();
  SmallVector<double> sc(rank, 1.0);
  SmallVector<int64_t> out(shape);
  bool wholeSizes = true;
  if (sizes) {
    if (static_cast<int64_t>(sizes->size()) != rank) return c.fail("'sizes' must have one value per dimension");
    out = *sizes;
    for (int64_t i = 0; i < rank; ++i) sc[i] = static_cast<double>(out[i]) / shape[i];
  } else if (scales) {
    if (static_cast<int64_t>(scales->size()) != rank) return c.fail("'scales' must have one value per dimension");
    sc = *scales;
    for (int64_t i = 0; i < rank; ++i) {
      out[i] = static_cast<int64_t>(std::floor(shape[i] * sc[i]));
      if (static_cast<double>(out[i]) != shape[i] * sc[i]) wholeSizes = false;
    }
  } else {
    return c.fail("needs 'scales' or 'sizes'");
  }
  StringRef webnnMode;
  if (p.mode == "nearest") {
    bool halfPixel = (p.transform == "half_pixel" || p.transform == "pytorch_half_pixel") &&
                     p.nearestMode == "round_prefer_floor";
    bool integerUpscale = llvm::all_of(ArrayRef<double>(sc).drop_front(std::min<int64_t>(rank, 2)),
                                       [](double s) { return s >= 1 && s == std::floor(s); });
    bool asymmetricFloor = p.transform == "asymmetric" && p.nearestMode == "floor" && integerUpscale;
    if (halfPixel || asymmetricFloor) webnnMode = "nearest-neighbor";
  } else if (p.mode == "linear") {
    bool halfPixel = p.transform == "half_pixel" ||
                     (p.transform == "pytorch_half_pixel" && rank == 4 && out[2] > 1 && out[3] > 1);
    if (halfPixel) webnnMode = "linear";
  }
  bool resample2d = !webnnMode.empty() && rank == 4 && wholeSizes && out[0] == shape[0] &&
                    out[1] == shape[1];
  if (!resample2d) return emitResizeByMatrices(c, x, sc, out, p);
  if (out[2] == shape[2] && out[3] == shape[3]) return c.done(x);
  SmallVector<NamedAttribute> attrs = {c.strAttr("mode", webnnMode), c.i64ArrayAttr("axes", {2, 3})};
  if (sizes)
    attrs.push_back(c.i64ArrayAttr("sizes", {out[2], out[3]}));
  else
    attrs.push_back(c.builder().getNamedAttr("scales", c.builder().getDenseF64ArrayAttr({sc[2], sc[3]})));
  return c.done(c.emit("resample2d", {x}, attrs));
}

// Upsample-7 (scales attribute) / -9 (scales input): asymmetric sampling.
LogicalResult convertUpsample(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  SmallVector<double> scales;
  if (c.opset() < 9) {
    auto f = c.floatsAttr("scales");
    if (!f) return c.fail("missing attribute 'scales'");
    scales.assign(f->begin(), f->end());
  } else {
    FailureOr<ConstantData> d = c.requireConstantInput(1, "scales");
    if (failed(d)) return failure();
    for (int64_t i = 0; i < d->numElements(); ++i) scales.push_back(d->floatAt(i));
  }
  ResizeParams p;
  p.mode = c.stringAttr("mode", "nearest");
  p.transform = "asymmetric";
  p.nearestMode = "floor";
  return emitResample(c, *x, scales, std::nullopt, p);
}

// Resize-10: (X, scales), asymmetric. Resize-11+: (X, roi, scales, sizes) with
// coordinate_transformation_mode / nearest_mode; Resize-18 adds `axes`.
LogicalResult convertResize(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  size_t scalesAt = c.opset() < 11 ? 1 : 2;
  std::optional<SmallVector<double>> scales;
  std::optional<SmallVector<int64_t>> sizes;
  if (c.hasInput(scalesAt)) {
    FailureOr<ConstantData> d = c.requireConstantInput(scalesAt, "scales");
    if (failed(d)) return failure();
    if (d->numElements() > 0) {
      scales.emplace();
      for (int64_t i = 0; i < d->numElements(); ++i) scales->push_back(d->floatAt(i));
    }
  }
  if (c.opset() >= 11 && c.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> s = c.constantIntsInput(3, "sizes");
    if (failed(s)) return failure();
    if (!s->empty()) sizes = *s;
  }
  int64_t rank = NodeConverter::rankOf(*x);
  // Output sizes and sampling weights are computed here from the input's.
  if (!NodeConverter::typeOf(*x).hasStaticShape())
    return c.fail("Resize of a tensor with dynamic dimensions " + formatList(NodeConverter::shapeOf(*x)) +
                  " is not supported (fix them with --shape)");
  ResizeParams p;
  p.mode = c.stringAttr("mode", "nearest");
  p.transform = c.opset() < 11 ? "asymmetric"
                               : c.stringAttr("coordinate_transformation_mode", "half_pixel");
  p.nearestMode = c.opset() < 11 ? "floor" : c.stringAttr("nearest_mode", "round_prefer_floor");
  p.cubicA = c.floatAttr("cubic_coeff_a", -0.75f);
  p.excludeOutside = c.intAttr("exclude_outside", 0) != 0;
  p.extrapolation = c.floatAttr("extrapolation_value", 0.0f);
  if (p.transform == "tf_crop_and_resize") {
    FailureOr<ConstantData> roi = c.requireConstantInput(1, "roi");
    if (failed(roi)) return failure();
    for (int64_t i = 0; i < roi->numElements(); ++i) p.roi.push_back(roi->floatAt(i));
  }
  if (c.opset() >= 18 && c.hasAttr("axes")) {
    SmallVector<int64_t> axes = *c.intsAttr("axes");
    SmallVector<double> fullScales(rank, 1.0), fullRoi(2 * rank, 0.0);
    for (int64_t i = 0; i < rank; ++i) fullRoi[rank + i] = 1.0;
    SmallVector<int64_t> fullSizes(NodeConverter::shapeOf(*x));
    int64_t n = axes.size();
    for (int64_t i = 0; i < n; ++i) {
      FailureOr<int64_t> a = c.normalizeAxis(axes[i], rank, "axis");
      if (failed(a)) return failure();
      if (scales && i < static_cast<int64_t>(scales->size())) fullScales[*a] = (*scales)[i];
      if (sizes && i < static_cast<int64_t>(sizes->size())) fullSizes[*a] = (*sizes)[i];
      if (static_cast<int64_t>(p.roi.size()) == 2 * n) {
        fullRoi[*a] = p.roi[i];
        fullRoi[rank + *a] = p.roi[n + i];
      }
    }
    if (scales) scales = fullScales;
    if (sizes) sizes = fullSizes;
    if (!p.roi.empty()) p.roi = fullRoi;
  }
  if (!p.roi.empty() && static_cast<int64_t>(p.roi.size()) != 2 * rank)
    return c.fail("'roi' must hold 2 values per dimension");
  if (c.opset() >= 18 && sizes && c.stringAttr("keep_aspect_ratio_policy", "stretch") != "stretch")
    return c.fail("keep_aspect_ratio_policy other than 'stretch' is not supported");
  if (c.intAttr("antialias", 0) != 0) return c.fail("antialias is not supported");
  return emitResample(c, *x, scales, sizes, p);
}
}  // namespace

void populateDefaultDomainQtoZ(OpConverterTable &t) {
  t.add("", "QuantizeLinear", 10, convertQuantizeLinear);
  t.add("", "Range", 11, convertRange);
  t.add("", "Reciprocal", 1, convertReciprocal);
  t.add("", "Scatter", 9, convertScatterElements);
  t.add("", "ScatterElements", 11, convertScatterElements);
  t.add("", "ScatterND", 11, convertScatterND);
  t.add("", "Sinh", 9, convertHyperbolic);
  t.add("", "ReduceL1", 1, convertReduceT<kReduceL1, false>);
  t.add("", "ReduceL1", 18, convertReduceT<kReduceL1, true>);
  t.add("", "ReduceL2", 1, convertReduceT<kReduceL2, false>);
  t.add("", "ReduceL2", 18, convertReduceT<kReduceL2, true>);
  t.add("", "ReduceLogSum", 1, convertReduceT<kReduceLogSum, false>);
  t.add("", "ReduceLogSum", 18, convertReduceT<kReduceLogSum, true>);
  t.add("", "ReduceLogSumExp", 1, convertReduceT<kReduceLogSumExp, false>);
  t.add("", "ReduceLogSumExp", 18, convertReduceT<kReduceLogSumExp, true>);
  t.add("", "ReduceMax", 1, convertReduceT<kReduceMax, false>);
  t.add("", "ReduceMax", 18, convertReduceT<kReduceMax, true>);
  t.add("", "ReduceMean", 1, convertReduceT<kReduceMean, false>);
  t.add("", "ReduceMean", 18, convertReduceT<kReduceMean, true>);
  t.add("", "ReduceMin", 1, convertReduceT<kReduceMin, false>);
  t.add("", "ReduceMin", 18, convertReduceT<kReduceMin, true>);
  t.add("", "ReduceProd", 1, convertReduceT<kReduceProd, false>);
  t.add("", "ReduceProd", 18, convertReduceT<kReduceProd, true>);
  t.add("", "ReduceSum", 1, convertReduceT<kReduceSum, false>);
  t.add("", "ReduceSum", 13, convertReduceT<kReduceSum, true>);
  t.add("", "ReduceSumSquare", 1, convertReduceT<kReduceSumSquare, false>);
  t.add("", "ReduceSumSquare", 18, convertReduceT<kReduceSumSquare, true>);
  t.add("", "Resize", 10, convertResize);
  t.add("", "Round", 11, convertRound);
  t.add("", "Selu", 1, convertSelu);
  t.add("", "Shrink", 9, convertShrink);
  t.add("", "Size", 1, convertSize);
  t.add("", "Slice", 1, convertSliceAttributes);
  t.add("", "Slice", 10, convertSliceInputs);
  t.add("", "SoftmaxCrossEntropyLoss", 12, convertSoftmaxCrossEntropyLoss);
  t.add("", "SpaceToDepth", 1, convertSpaceToDepth);
  t.add("", "Split", 1, convertSplit);
  t.add("", "Sum", 1, convertSum);
  t.add("", "Tan", 7, convertTan);
  t.add("", "ThresholdedRelu", 10, convertThresholdedRelu);
  t.add("", "Tile", 6, convertTile);
  t.add("", "Trilu", 14, convertTrilu);
  t.add("", "Where", 9, convertWhere);
  t.add("", "Xor", 7, convertXor);
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
  t.add("", "Upsample", 7, convertUpsample);
  t.add("", "Unsqueeze", 13, convertUnsqueezeInput);
}

}  // namespace mlir::webnn::onnx_import
