// Element- and coordinate-indexed data movement: gatherElements, gatherND,
// scatterElements, scatterND (WebNN spec sections of the same names).
//
// Indices may be int32, uint32 or int64 (int64/uint64/int8/uint8 are accepted
// too, as gather does, since front ends may hand them through). An index i in
// [-N, N) with N the indexed dimension's size means i (or N + i when
// negative); the spec leaves values outside that range to the implementation,
// and these kernels clamp them to [0, N - 1] so a run never reads or writes out
// of bounds. Scatter applies updates in row-major order of the indices, so a
// repeated index keeps the last update.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

constexpr std::initializer_list<DataType> kIndexTypes = {DataType::kInt32, DataType::kUint32, DataType::kInt64,
                                                         DataType::kUint64, DataType::kInt8, DataType::kUint8};

template <typename I>
inline int64_t resolveIndex(I raw, int64_t dim) {
  int64_t i = int64_t(raw);
  if constexpr (std::is_signed_v<I>)
    if (i < 0) i += dim;
  return std::min(std::max<int64_t>(i, 0), dim - 1);
}

// Calls f(I{}) with the C++ type of an index operand.
template <typename F>
Status dispatchIndex(DataType t, F &&f) {
  switch (t) {
    case DataType::kInt32: f(int32_t{}); break;
    case DataType::kUint32: f(uint32_t{}); break;
    case DataType::kInt64: f(int64_t{}); break;
    case DataType::kUint64: f(uint64_t{}); break;
    case DataType::kInt8: f(int8_t{}); break;
    default: f(uint8_t{}); break;
  }
  return Status::ok();
}

Status rejectPackedOperand(const NodeDesc &node, const OperandDesc &x, const char *what) {
  if (elementBytes(x.dtype) == 0)
    return nodeUnsupported(node, std::string(what) + " has unsupported data type " +
                                     std::string(dataTypeName(x.dtype)) + " (4-bit types are not supported)");
  return Status::ok();
}

// [outer, axis, inner] view of a shape around `axis`.
struct AxisView {
  int64_t outer = 1, axis = 1, inner = 1;
};
AxisView viewAround(const Shape &s, int64_t axis) {
  AxisView v;
  for (int64_t i = 0; i < axis; ++i) v.outer *= s[size_t(i)];
  v.axis = s[size_t(axis)];
  for (size_t i = size_t(axis) + 1; i < s.size(); ++i) v.inner *= s[i];
  return v;
}

// Shared checks of gatherElements/scatterElements: indices has the input's
// shape except along axis.
Status checkElementsOperands(const NodeDesc &node, const OperandDesc &x, const OperandDesc &ind, int64_t *axis) {
  WEBNN_RETURN_IF_ERROR(rejectPackedOperand(node, x, "input"));
  WEBNN_RETURN_IF_ERROR(checkDataType(node, ind, "indices", kIndexTypes));
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (x.shape.empty()) return nodeError(node, "input must have rank >= 1");
  if (!normalizeAxis(axisAttr, x.shape.size(), axis)) return nodeError(node, "axis is out of range");
  Shape expected = x.shape;
  if (ind.shape.size() == x.shape.size()) expected[size_t(*axis)] = ind.shape[size_t(*axis)];
  if (ind.shape != expected)
    return nodeError(node, "indices shape " + shapeToString(ind.shape) + " must equal the input shape " +
                               shapeToString(x.shape) + " except along axis " + std::to_string(*axis));
  if (x.shape[size_t(*axis)] == 0 && numElements(ind.shape) > 0)
    return nodeError(node, "cannot index an empty axis");
  return Status::ok();
}

// ---- gatherElements: out[o, j, k] = in[o, idx[o, j, k], k].
template <typename E, typename I>
class GatherElementsKernel final : public Kernel {
 public:
  GatherElementsKernel(AxisView in, int64_t idxAxis) : in_(in), idxAxis_(idxAxis) {}
  Status run(const KernelContext &ctx) override {
    const E *x = in<E>(ctx, 0);
    const I *idx = in<I>(ctx, 1);
    E *y = outp<E>(ctx, 0);
    int64_t rows = in_.outer * idxAxis_;
    parallelFor(ctx, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, in_.inner)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        int64_t o = r / idxAxis_;
        const E *src = x + o * in_.axis * in_.inner;
        const I *ir = idx + r * in_.inner;
        E *dst = y + r * in_.inner;
        for (int64_t k = 0; k < in_.inner; ++k) dst[k] = src[resolveIndex(ir[k], in_.axis) * in_.inner + k];
      }
    });
    return Status::ok();
  }

 private:
  AxisView in_;
  int64_t idxAxis_;
};

Status makeGatherElements(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 2, 1));
  const OperandDesc &x = *node.inputs[0], &ind = *node.inputs[1];
  int64_t axis = 0;
  WEBNN_RETURN_IF_ERROR(checkElementsOperands(node, x, ind, &axis));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, ind.shape, x.dtype));
  AxisView view = viewAround(x.shape, axis);
  int64_t idxAxis = ind.shape[size_t(axis)];
  return dispatchIndex(ind.dtype, [&](auto itag) {
    dispatchBytes(elementBytes(x.dtype), [&](auto etag) {
      *out = std::make_unique<GatherElementsKernel<decltype(etag), decltype(itag)>>(view, idxAxis);
    });
  });
}

// ---- scatterElements: out = in; out[o, idx[o, j, k], k] = upd[o, j, k].
template <typename E, typename I>
class ScatterElementsKernel final : public Kernel {
 public:
  ScatterElementsKernel(AxisView in, int64_t idxAxis) : in_(in), idxAxis_(idxAxis) {}
  Status run(const KernelContext &ctx) override {
    const E *x = in<E>(ctx, 0);
    const I *idx = in<I>(ctx, 1);
    const E *upd = in<E>(ctx, 2);
    E *y = outp<E>(ctx, 0);
    int64_t total = in_.outer * in_.axis * in_.inner;
    if (y != x && total) std::memcpy(y, x, size_t(total) * sizeof(E));
    // Different `o` never collide, so split over o; j runs in order inside.
    parallelFor(ctx, in_.outer, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, idxAxis_ * in_.inner)),
                [&](int64_t b, int64_t e) {
                  for (int64_t o = b; o < e; ++o) {
                    E *dst = y + o * in_.axis * in_.inner;
                    for (int64_t j = 0; j < idxAxis_; ++j) {
                      int64_t r = o * idxAxis_ + j;
                      for (int64_t k = 0; k < in_.inner; ++k)
                        dst[resolveIndex(idx[r * in_.inner + k], in_.axis) * in_.inner + k] = upd[r * in_.inner + k];
                    }
                  }
                });
    return Status::ok();
  }

 private:
  AxisView in_;
  int64_t idxAxis_;
};

Status makeScatterElements(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 3, 1));
  const OperandDesc &x = *node.inputs[0], &ind = *node.inputs[1], &upd = *node.inputs[2];
  int64_t axis = 0;
  WEBNN_RETURN_IF_ERROR(checkElementsOperands(node, x, ind, &axis));
  if (upd.dtype != x.dtype) return nodeError(node, "updates and input data types differ");
  if (upd.shape != ind.shape)
    return nodeError(node, "updates shape " + shapeToString(upd.shape) + " must equal the indices shape " +
                               shapeToString(ind.shape));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  AxisView view = viewAround(x.shape, axis);
  int64_t idxAxis = ind.shape[size_t(axis)];
  return dispatchIndex(ind.dtype, [&](auto itag) {
    dispatchBytes(elementBytes(x.dtype), [&](auto etag) {
      *out = std::make_unique<ScatterElementsKernel<decltype(etag), decltype(itag)>>(view, idxAxis);
    });
  });
}

// ---- gatherND / scatterND: indices [..., K] address the first K input dims;
// each coordinate names a contiguous slice of prod(input.shape[K:]) elements.
struct NdPlan {
  int64_t tuples = 0, coordinateSize = 0, sliceElems = 1;
  std::vector<int64_t> dims, strides;  // of the first K input dims
};

Status planNd(const NodeDesc &node, const OperandDesc &x, const OperandDesc &ind, NdPlan *p, Shape *sliceShape) {
  WEBNN_RETURN_IF_ERROR(rejectPackedOperand(node, x, "input"));
  WEBNN_RETURN_IF_ERROR(checkDataType(node, ind, "indices", kIndexTypes));
  if (x.shape.empty() || ind.shape.empty()) return nodeError(node, "input and indices must have rank >= 1");
  int64_t k = ind.shape.back();
  if (k > int64_t(x.shape.size()))
    return nodeError(node, "the last dimension of indices (" + std::to_string(k) + ") exceeds the input rank " +
                               std::to_string(x.shape.size()));
  p->coordinateSize = k;
  p->tuples = numElements(Shape(ind.shape.begin(), ind.shape.end() - 1));
  std::vector<int64_t> st = contiguousStrides(x.shape);
  for (int64_t d = 0; d < k; ++d) {
    p->dims.push_back(x.shape[size_t(d)]);
    p->strides.push_back(st[size_t(d)]);
    if (x.shape[size_t(d)] == 0 && p->tuples > 0) return nodeError(node, "cannot index an empty dimension");
  }
  *sliceShape = Shape(ind.shape.begin(), ind.shape.end() - 1);
  for (size_t d = size_t(k); d < x.shape.size(); ++d) {
    p->sliceElems *= x.shape[d];
    sliceShape->push_back(x.shape[d]);
  }
  return Status::ok();
}

template <typename I>
int64_t tupleOffset(const NdPlan &p, const I *coord) {
  int64_t off = 0;
  for (int64_t d = 0; d < p.coordinateSize; ++d) off += resolveIndex(coord[d], p.dims[size_t(d)]) * p.strides[size_t(d)];
  return off;
}

template <typename I>
class GatherNdKernel final : public Kernel {
 public:
  GatherNdKernel(NdPlan p, size_t esz) : p_(std::move(p)), sliceBytes_(size_t(p_.sliceElems) * esz), esz_(esz) {}
  Status run(const KernelContext &ctx) override {
    const uint8_t *x = in<uint8_t>(ctx, 0);
    const I *idx = in<I>(ctx, 1);
    uint8_t *y = outp<uint8_t>(ctx, 0);
    if (!sliceBytes_) return Status::ok();
    parallelFor(ctx, p_.tuples, std::max<int64_t>(1, int64_t(16384 / sliceBytes_)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t)
        std::memcpy(y + size_t(t) * sliceBytes_, x + size_t(tupleOffset(p_, idx + t * p_.coordinateSize)) * esz_,
                    sliceBytes_);
    });
    return Status::ok();
  }

 private:
  NdPlan p_;
  size_t sliceBytes_, esz_;
};

Status makeGatherND(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 2, 1));
  const OperandDesc &x = *node.inputs[0], &ind = *node.inputs[1];
  NdPlan plan;
  Shape os;
  WEBNN_RETURN_IF_ERROR(planNd(node, x, ind, &plan, &os));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  size_t esz = elementBytes(x.dtype);
  return dispatchIndex(ind.dtype, [&](auto itag) {
    *out = std::make_unique<GatherNdKernel<decltype(itag)>>(std::move(plan), esz);
  });
}

template <typename I>
class ScatterNdKernel final : public Kernel {
 public:
  ScatterNdKernel(NdPlan p, size_t esz, size_t totalBytes)
      : p_(std::move(p)), sliceBytes_(size_t(p_.sliceElems) * esz), esz_(esz), total_(totalBytes) {}
  Status run(const KernelContext &ctx) override {
    const uint8_t *x = in<uint8_t>(ctx, 0);
    const I *idx = in<I>(ctx, 1);
    const uint8_t *upd = in<uint8_t>(ctx, 2);
    uint8_t *y = outp<uint8_t>(ctx, 0);
    if (y != x && total_) std::memcpy(y, x, total_);
    if (!sliceBytes_) return Status::ok();
    // In index order, so that the last of repeated coordinates wins.
    for (int64_t t = 0; t < p_.tuples; ++t)
      std::memcpy(y + size_t(tupleOffset(p_, idx + t * p_.coordinateSize)) * esz_, upd + size_t(t) * sliceBytes_,
                  sliceBytes_);
    return Status::ok();
  }

 private:
  NdPlan p_;
  size_t sliceBytes_, esz_, total_;
};

Status makeScatterND(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 3, 1));
  const OperandDesc &x = *node.inputs[0], &ind = *node.inputs[1], &upd = *node.inputs[2];
  NdPlan plan;
  Shape expectedUpdates;
  WEBNN_RETURN_IF_ERROR(planNd(node, x, ind, &plan, &expectedUpdates));
  if (upd.dtype != x.dtype) return nodeError(node, "updates and input data types differ");
  if (upd.shape != expectedUpdates)
    return nodeError(node, "updates shape " + shapeToString(upd.shape) + " must be " + shapeToString(expectedUpdates) +
                               " (indices.shape[:-1] + input.shape[indices.shape[-1]:])");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  size_t esz = elementBytes(x.dtype);
  size_t total = size_t(numElements(x.shape)) * esz;
  return dispatchIndex(ind.dtype, [&](auto itag) {
    *out = std::make_unique<ScatterNdKernel<decltype(itag)>>(std::move(plan), esz, total);
  });
}

}  // namespace

void registerIndexingKernels(KernelTable &t) {
  t.add("gatherElements", &makeGatherElements);
  t.add("gatherND", &makeGatherND);
  t.add("scatterElements", &makeScatterElements);
  t.add("scatterND", &makeScatterND);
}

}  // namespace webnn::cpu::kernels
