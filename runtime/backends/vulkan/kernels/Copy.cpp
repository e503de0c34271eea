// Data movement as strided copies (shaders/copy.comp): reshape, transpose,
// expand, slice, concat (one dispatch per input) and split (one per output);
// reverse (negative strides), tile; pad and triangular (their own shaders).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {

namespace {

constexpr size_t kMaxRank = 6;
// Dispatches one copy may become when its dims exceed the shader's 6.
constexpr uint64_t kMaxPeeledDispatches = 4096;

// One dispatch over merged dims of rank <= 6.
void addCopyDispatch(KernelPlan *plan, BindingRef src, BindingRef dst, uint32_t bytes, const Shape &dims,
                     const std::vector<uint64_t> &is, const std::vector<uint64_t> &os, uint64_t inOffset,
                     uint64_t outOffset) {
  Dispatch d;
  d.shader = &shaders::copy;
  d.spec = {bytes};
  d.bindings = {src, dst};
  int64_t count = elementsOf(dims);
  d.pushU(uint32_t(count)).pushU(uint32_t(inOffset)).pushU(uint32_t(outOffset));
  size_t off = kMaxRank - dims.size();
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 1 : uint32_t(dims[i - off]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 0 : uint32_t(is[i - off]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 0 : uint32_t(os[i - off]));
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
}

}  // namespace

Status addCopy(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan, BindingRef src, BindingRef dst,
               DataType dtype, const Shape &dims, const std::vector<uint64_t> &inStride,
               const std::vector<uint64_t> &outStride, uint64_t inOffset, uint64_t outOffset) {
  (void)device;
  uint32_t bytes = elementBytes(dtype);
  if (bytes == 0) return nodeUnsupported(node, "data type " + std::string(dataTypeName(dtype)));
  if (elementsOf(dims) == 0) return Status::ok();
  Shape merged = dims;
  std::vector<uint64_t> is = inStride, os = outStride;
  coalesceDims(&merged, {&is, &os});
  // Dims the shader cannot take are walked here: one dispatch per index of
  // the leading ones (a rank-4 tile has 8 dims).
  size_t peel = merged.size() > kMaxRank ? merged.size() - kMaxRank : 0;
  uint64_t outerCount = uint64_t(elementsOf(Shape(merged.begin(), merged.begin() + peel)));
  if (outerCount > kMaxPeeledDispatches) return nodeUnsupported(node, "rank above 6 with too many leading elements");
  Shape inner(merged.begin() + peel, merged.end());
  std::vector<uint64_t> innerIs(is.begin() + peel, is.end()), innerOs(os.begin() + peel, os.end());
  for (uint64_t o = 0; o < outerCount; ++o) {
    uint64_t rest = o, inOff = inOffset, outOff = outOffset;
    for (size_t k = peel; k-- > 0;) {
      uint64_t idx = rest % uint64_t(merged[k]);
      rest /= uint64_t(merged[k]);
      inOff += idx * is[k];
      outOff += idx * os[k];
    }
    addCopyDispatch(plan, src, dst, bytes, inner, innerIs, innerOs, inOff, outOff);
  }
  return Status::ok();
}

namespace {

Status checkOneInOneOut(const NodeDesc &node) {
  if (node.inputs.empty() || !node.inputs[0] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects an input and one output");
  return Status::ok();
}

Status makeReshape(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &y = *node.outputs[0];
  int64_t n = elementsOf(y.shape);
  return addCopy(node, device, plan, in(0), out(0), y.dtype, {n}, {1}, {1}, 0, 0);
}

Status makeTranspose(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  size_t rank = x.shape.size();
  std::vector<int64_t> identity(rank);
  for (size_t i = 0; i < rank; ++i) identity[i] = int64_t(rank - 1 - i);  // WebNN's default: reversed
  std::vector<int64_t> perm = node.attributes.getInts("permutation", identity);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (perm.size() != rank) return nodeUnsupported(node, "permutation of the wrong length");
  std::vector<uint64_t> xs = contiguousStrides(x.shape), inStride(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= int64_t(rank)) return nodeUnsupported(node, "permutation out of range");
    inStride[i] = xs[size_t(perm[i])];
  }
  return addCopy(node, device, plan, in(0), out(0), y.dtype, y.shape, inStride, contiguousStrides(y.shape), 0, 0);
}

Status makeExpand(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  if (x.shape.size() > y.shape.size()) return nodeUnsupported(node, "input rank above the output's");
  return addCopy(node, device, plan, in(0), out(0), y.dtype, y.shape, broadcastStrides(x.shape, y.shape.size()),
                 contiguousStrides(y.shape), 0, 0);
}

Status makeSlice(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  size_t rank = x.shape.size();
  std::vector<int64_t> starts = node.attributes.getInts("starts", {});
  std::vector<int64_t> steps = node.attributes.getInts("strides", std::vector<int64_t>(rank, 1));
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (starts.size() != rank || steps.size() != rank || y.shape.size() != rank)
    return nodeUnsupported(node, "starts/strides of the wrong length");
  std::vector<uint64_t> xs = contiguousStrides(x.shape), inStride(rank);
  uint64_t offset = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (starts[d] < 0 || steps[d] < 1) return nodeUnsupported(node, "negative start or stride");
    offset += uint64_t(starts[d]) * xs[d];
    inStride[d] = xs[d] * uint64_t(steps[d]);
  }
  return addCopy(node, device, plan, in(0), out(0), y.dtype, y.shape, inStride, contiguousStrides(y.shape), offset, 0);
}

Status makeConcat(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.outputs.size() != 1 || node.inputs.empty()) return nodeUnsupported(node, "expects inputs and one output");
  const OperandDesc &y = *node.outputs[0];
  int64_t axis = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0 || axis >= int64_t(y.shape.size())) return nodeUnsupported(node, "axis out of range");
  std::vector<uint64_t> ys = contiguousStrides(y.shape);
  uint64_t at = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!node.inputs[i]) return nodeUnsupported(node, "absent input");
    const OperandDesc &x = *node.inputs[i];
    WEBNN_RETURN_IF_ERROR(addCopy(node, device, plan, in(uint32_t(i)), out(0), y.dtype, x.shape,
                                  contiguousStrides(x.shape), ys, 0, at * ys[size_t(axis)]));
    at += uint64_t(x.shape[size_t(axis)]);
  }
  return Status::ok();
}

Status makeSplit(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.empty() || !node.inputs[0] || node.outputs.empty())
    return nodeUnsupported(node, "expects an input and outputs");
  const OperandDesc &x = *node.inputs[0];
  int64_t axis = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0 || axis >= int64_t(x.shape.size())) return nodeUnsupported(node, "axis out of range");
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  uint64_t at = 0;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const OperandDesc &y = *node.outputs[i];
    WEBNN_RETURN_IF_ERROR(addCopy(node, device, plan, in(0), out(uint32_t(i)), y.dtype, y.shape, xs,
                                  contiguousStrides(y.shape), at * xs[size_t(axis)], 0));
    at += uint64_t(y.shape[size_t(axis)]);
  }
  return Status::ok();
}

// The pad value as the element type's bits (float16: as float32 bits, the
// shader rounds); integers saturated, NaN as 0, as the CPU kernel does.
uint64_t padValueBits(DataType t, double v) {
  if (t == DataType::kFloat32 || t == DataType::kFloat16) {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  double lo, hi;
  switch (t) {
    case DataType::kInt8: lo = -128; hi = 127; break;
    case DataType::kUint8: lo = 0; hi = 255; break;
    case DataType::kInt32: lo = -2147483648.0; hi = 2147483647.0; break;
    case DataType::kUint32: lo = 0; hi = 4294967295.0; break;
    case DataType::kInt64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    default: lo = 0; hi = 18446744073709551615.0; break;
  }
  if (std::isnan(v)) return 0;
  if (v <= lo) return t == DataType::kInt64 ? uint64_t(INT64_MIN) : uint64_t(int64_t(lo));
  if (v >= hi) return t == DataType::kInt64 ? uint64_t(INT64_MAX) : t == DataType::kUint64 ? UINT64_MAX : uint64_t(hi);
  return v < 0 ? uint64_t(int64_t(v)) : uint64_t(v);
}

Status makePad(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  (void)device;
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  size_t rank = x.shape.size();
  std::vector<int64_t> beg = node.attributes.getInts("beginningPadding", {});
  std::string mode = node.attributes.getString("mode", "constant");
  double value = node.attributes.getFloat("value", 0.0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  uint32_t modeCode = mode == "constant" ? 0 : mode == "edge" ? 1 : mode == "reflection" ? 2 : mode == "symmetric" ? 3 : 9;
  if (modeCode == 9) return nodeUnsupported(node, "unknown mode '" + mode + "'");
  uint32_t bytes = elementBytes(x.dtype);
  if (bytes == 0) return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)));
  if (beg.size() != rank || y.shape.size() != rank || rank > kMaxRank) return nodeUnsupported(node, "bad padding");
  int64_t count = elementsOf(y.shape);
  if (count == 0) return Status::ok();
  if (modeCode != 0 && elementsOf(x.shape) == 0) return nodeUnsupported(node, "padding an empty tensor by its edges");
  Dispatch d;
  d.shader = &shaders::pad;
  d.spec = {bytes, modeCode};
  d.bindings = {in(0), out(0)};
  d.pushU(uint32_t(count));
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  size_t off = kMaxRank - rank;
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 1 : uint32_t(y.shape[i - off]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 1 : uint32_t(x.shape[i - off]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 0 : uint32_t(xs[i - off]));
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 0 : uint32_t(beg[i - off]));
  uint64_t bits = padValueBits(x.dtype, value);
  d.pushU(uint32_t(bits)).pushU(uint32_t(bits >> 32));
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

// reverse: a copy reading each reversed axis from its end, the stride
// negated (the shader's 32-bit index arithmetic wraps, so the sum lands
// back inside the tensor).
Status makeReverse(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  size_t rank = x.shape.size();
  std::vector<int64_t> all(rank);
  for (size_t i = 0; i < rank; ++i) all[i] = int64_t(i);
  std::vector<int64_t> axes = node.attributes.getInts("axes", all);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  std::vector<uint64_t> xs = contiguousStrides(x.shape), inStride = xs;
  uint64_t offset = 0;
  for (int64_t a : axes) {
    if (a < 0 || a >= int64_t(rank)) return nodeUnsupported(node, "axis out of range");
    if (x.shape[size_t(a)] == 0) continue;
    offset += uint64_t(x.shape[size_t(a)] - 1) * xs[size_t(a)];
    inStride[size_t(a)] = uint64_t(0) - xs[size_t(a)];
  }
  return addCopy(node, device, plan, in(0), out(0), y.dtype, y.shape, inStride, contiguousStrides(y.shape), offset, 0);
}

// tile: each dim d split into (repetition, position) pairs: the copy reads
// position with the input's stride and repetition with stride 0 (addCopy
// merges what it can and walks dims beyond 6 in dispatches of their own).
Status makeTile(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  size_t rank = x.shape.size();
  std::vector<int64_t> reps = node.attributes.getInts("repetitions", {});
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (reps.size() != rank || y.shape.size() != rank) return nodeUnsupported(node, "repetitions of the wrong length");
  std::vector<uint64_t> xs = contiguousStrides(x.shape), ys = contiguousStrides(y.shape);
  Shape dims;
  std::vector<uint64_t> inStride, outStride;
  for (size_t d = 0; d < rank; ++d) {
    dims.push_back(reps[d]);
    inStride.push_back(0);
    outStride.push_back(uint64_t(x.shape[d]) * ys[d]);
    dims.push_back(x.shape[d]);
    inStride.push_back(xs[d]);
    outStride.push_back(ys[d]);
  }
  return addCopy(node, device, plan, in(0), out(0), y.dtype, dims, inStride, outStride, 0, 0);
}

// triangular: shaders/triangular.comp over the last two dims.
Status makeTriangular(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  (void)device;
  WEBNN_RETURN_IF_ERROR(checkOneInOneOut(node));
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  bool upper = node.attributes.getBool("upper", true);
  int64_t diagonal = node.attributes.getInt("diagonal", 0);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  uint32_t bytes = elementBytes(x.dtype);
  if (bytes == 0 || x.shape.size() < 2) return nodeUnsupported(node, "needs rank >= 2 and a byte-sized type");
  int64_t count = elementsOf(y.shape);
  if (count == 0) return Status::ok();
  diagonal = std::max<int64_t>(std::min<int64_t>(diagonal, INT32_MAX), INT32_MIN);
  Dispatch d;
  d.shader = &shaders::triangular;
  d.spec = {bytes, upper ? 1u : 0u};
  d.bindings = {in(0), out(0)};
  d.pushU(uint32_t(count)).pushU(uint32_t(x.shape[x.shape.size() - 2])).pushU(uint32_t(x.shape.back()));
  d.pushU(uint32_t(int32_t(diagonal))).pushF(0.0f);
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerCopyKernels(std::vector<KernelEntry> *out) {
  out->push_back({"reshape", makeReshape});
  out->push_back({"transpose", makeTranspose});
  out->push_back({"expand", makeExpand});
  out->push_back({"slice", makeSlice});
  out->push_back({"concat", makeConcat});
  out->push_back({"split", makeSplit});
  out->push_back({"pad", makePad});
  out->push_back({"reverse", makeReverse});
  out->push_back({"tile", makeTile});
  out->push_back({"triangular", makeTriangular});
}

}  // namespace webnn::vk
