// Ops whose output shape depends on their input values (Unique,
// NonMaxSuppression): WebNN shapes are static, so they are evaluated at
// compile time, which needs every input to be a constant (an initializer,
// a folded computation or --const-input). Runtime inputs are reported by
// name.
#include <algorithm>
#include <map>
#include <numeric>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

// Unique: distinct elements (no axis: of the flattened input) or distinct
// slices along `axis`; sorted ascending (lexicographically for slices) or in
// order of first occurrence. Y is a gather of the first occurrences from the
// constant input; indices, inverse_indices and counts are int64 constants.
LogicalResult convertUnique(NodeConverter &c) {
  FailureOr<ConstantData> d = c.requireConstantInput(0, "X");
  if (failed(d)) return failure();
  Value x = c.input(0);
  SmallVector<int64_t> shape(d->type.getShape());
  int64_t axis = 0;
  if (c.hasAttr("axis")) {
    FailureOr<int64_t> a = c.normalizeAxis(c.intAttr("axis", 0), shape.size(), "axis");
    if (failed(a)) return failure();
    axis = *a;
  } else {
    shape = {d->numElements()};
    x = c.emitReshape(x, shape);
    if (!x) return failure();
  }
  if (shape.empty() || shape[axis] == 0) return c.fail("an empty input has no unique elements");
  int64_t outer = 1, inner = 1, n = shape[axis];
  for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
  for (int64_t i = axis + 1; i < static_cast<int64_t>(shape.size()); ++i) inner *= shape[i];
  bool isFloat = mlir::isa<FloatType>(d->type.getElementType());
  // Slice k as a vector of doubles (exact for the integer sizes tests use;
  // int64 beyond 2^53 would compare approximately).
  auto sliceOf = [&](int64_t k) {
    SmallVector<double> v;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t flat = (o * n + k) * inner + i;
        v.push_back(isFloat ? d->floatAt(flat) : static_cast<double>(d->intAt(flat)));
      }
    return v;
  };
  std::map<SmallVector<double>, int64_t> firstOf;  // slice -> first index
  SmallVector<SmallVector<double>> slices;
  SmallVector<int64_t> order;  // first occurrences, in order of appearance
  for (int64_t k = 0; k < n; ++k) {
    slices.push_back(sliceOf(k));
    if (firstOf.emplace(slices.back(), k).second) order.push_back(k);
  }
  if (c.intAttr("sorted", 1))
    llvm::sort(order, [&](int64_t a, int64_t b) { return slices[a] < slices[b]; });
  std::map<int64_t, int64_t> position;  // first index -> output position
  for (size_t p = 0; p < order.size(); ++p) position[order[p]] = p;
  SmallVector<int64_t> inverse(n), counts(order.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = position[firstOf[slices[k]]];
    inverse[k] = p;
    ++counts[p];
  }
  int64_t u = order.size();
  c.setOutput(0, c.emit("gather", {x, c.constantI64(order, {u})}, {c.i64Attr("axis", axis)}));
  if (c.emitFailed()) return failure();
  if (c.outputUsed(1)) c.setOutput(1, c.constantI64(order, {u}));
  if (c.outputUsed(2)) c.setOutput(2, c.constantI64(inverse, {n}));
  if (c.outputUsed(3)) c.setOutput(3, c.constantI64(counts, {u}));
  return success();
}

// NonMaxSuppression as ONNX (and ONNX Runtime) define it: per batch and
// class, boxes scoring above score_threshold in descending score order (ties:
// lower index first) are kept unless their IoU with a kept box exceeds
// iou_threshold, up to max_output_boxes_per_class.
LogicalResult convertNonMaxSuppression(NodeConverter &c) {
  FailureOr<ConstantData> boxes = c.requireConstantInput(0, "boxes");
  if (failed(boxes)) return failure();
  FailureOr<ConstantData> scores = c.requireConstantInput(1, "scores");
  if (failed(scores)) return failure();
  int64_t maxOut = 0;
  double iouThreshold = 0;
  std::optional<double> scoreThreshold;
  if (c.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> m = c.constantIntsInput(2, "max_output_boxes_per_class");
    if (failed(m)) return failure();
    maxOut = m->empty() ? 0 : (*m)[0];
  }
  if (c.hasInput(3)) {
    FailureOr<ConstantData> t = c.requireConstantInput(3, "iou_threshold");
    if (failed(t)) return failure();
    iouThreshold = t->floatAt(0);
  }
  if (c.hasInput(4)) {
    FailureOr<ConstantData> t = c.requireConstantInput(4, "score_threshold");
    if (failed(t)) return failure();
    scoreThreshold = t->floatAt(0);
  }
  ArrayRef<int64_t> bs = boxes->type.getShape(), ss = scores->type.getShape();
  if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
    return c.fail("boxes must be [batch, boxes, 4] and scores [batch, classes, boxes]");
  bool center = c.intAttr("center_point_box", 0) != 0;
  int64_t batches = bs[0], numBoxes = bs[1], classes = ss[1];
  struct Box {
    double x1, y1, x2, y2;
  };
  auto boxAt = [&](int64_t b, int64_t i) {
    auto v = [&](int64_t k) { return boxes->floatAt((b * numBoxes + i) * 4 + k); };
    if (center) return Box{v(0) - v(2) / 2, v(1) - v(3) / 2, v(0) + v(2) / 2, v(1) + v(3) / 2};
    return Box{std::min(v(1), v(3)), std::min(v(0), v(2)), std::max(v(1), v(3)), std::max(v(0), v(2))};
  };
  auto suppresses = [&](const Box &a, const Box &b) {
    double areaA = (a.x2 - a.x1) * (a.y2 - a.y1), areaB = (b.x2 - b.x1) * (b.y2 - b.y1);
    if (areaA <= 0 || areaB <= 0) return false;
    double iw = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
    double ih = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
    double inter = iw * ih, uni = areaA + areaB - inter;
    if (uni <= 0) return false;
    return inter / uni > iouThreshold;
  };
  SmallVector<int64_t> selected;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t cl = 0; cl < classes; ++cl) {
      SmallVector<int64_t> cand;
      auto score = [&](int64_t i) { return scores->floatAt((b * classes + cl) * numBoxes + i); };
      for (int64_t i = 0; i < numBoxes; ++i)
        if (!scoreThreshold || score(i) > *scoreThreshold) cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t i, int64_t j) { return score(i) > score(j); });
      SmallVector<Box> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= maxOut) break;
        Box bx = boxAt(b, i);
        if (llvm::any_of(kept, [&](const Box &k) { return suppresses(k, bx); })) continue;
        kept.push_back(bx);
        selected.append({b, cl, i});
      }
    }
  if (selected.empty()) return c.fail("no box is selected: an empty result");
  return c.done(c.constantI64(selected, {static_cast<int64_t>(selected.size() / 3), 3}));
}

}  // namespace

void populateDefaultDomainFolded(OpConverterTable &t) {
  t.add("", "NonMaxSuppression", 10, convertNonMaxSuppression);
  t.add("", "Unique", 11, convertUnique);
}

}  // namespace mlir::webnn::onnx_import
