// resample2d (WebNN spec "resample2d"): nearest-neighbor or bilinear along
// two axes of a 4-D tensor, half-pixel centres.
//
// The spec derives the sampling scale from the sizes, scale = outputSize /
// inputSize, whether the output size came from `sizes` or `scales`, so the
// kernel needs only the input and output shapes (the compiler checked them
// against the options). Per output coordinate along each resampled axis a
// table holds the two source indices and the weight of the second.
//
// With the axes in ascending order (nchw's {2, 3}, nhwc's {1, 2}) the output
// is walked as [outer, outH, mid, outW, inner] rows: the two source rows and
// the vertical weight are found once per row, the horizontal indices come from
// the table, and `inner` (nhwc's channels) is a contiguous, vectorizable run.
// Descending axes take the element-wise path. Float32 linear resampling of
// two adjacent ascending axes goes to the separable kernel instead
// (ResampleSeparable.cpp), which interpolates each source row once.
//
// float16 runs through the float32 kernel (shared adapter); int8/uint8 are
// interpolated in float and rounded half to even, saturating, which equals the
// source value whenever nearest-neighbor is used.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/Resample.h"

namespace webnn::cpu::kernels {
namespace {

using AxisTable = ResampleAxisTable;

AxisTable buildTable(int64_t inSize, int64_t outSize, bool linear) {
  AxisTable a;
  double scale = double(outSize) / double(inSize);
  for (int64_t o = 0; o < outSize; ++o) {
    double c = (double(o) + 0.5) / scale - 0.5;
    c = std::min(std::max(c, 0.0), double(inSize - 1));
    if (linear) {
      double f = std::floor(c);
      a.lo.push_back(int64_t(f));
      a.hi.push_back(int64_t(std::ceil(c)));
      a.t.push_back(float(c - f));
    } else {
      int64_t n = int64_t(std::ceil(c - 0.5));
      a.lo.push_back(n);
      a.hi.push_back(n);
      a.t.push_back(0.f);
    }
  }
  return a;
}

template <typename T>
T storeValue(float v) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(v);
  } else {
    float r = std::nearbyint(v);
    r = std::min(std::max(r, float(std::numeric_limits<T>::lowest())), float(std::numeric_limits<T>::max()));
    return T(r);
  }
}

template <typename T>
class Resample2dKernel final : public Kernel {
 public:
  Resample2dKernel(Shape in, Shape out, std::array<int64_t, 2> axes, AxisTable a0, AxisTable a1)
      : in_(std::move(in)), out_(std::move(out)), axes_(axes), tab_{std::move(a0), std::move(a1)} {
    inStride_ = contiguousStrides(in_);
  }
  Status run(const KernelContext &ctx) override {
    const T *x = in<T>(ctx, 0);
    T *y = outp<T>(ctx, 0);
    if (axes_[0] < axes_[1]) {
      runRows(ctx, x, y);
      return Status::ok();
    }
    int64_t total = numElements(out_);
    parallelFor(ctx, total, 4096, [&](int64_t b, int64_t e) {
      for (int64_t f = b; f < e; ++f) {
        int64_t rem = f, coord[4];
        for (int d = 3; d >= 0; --d) {
          coord[d] = rem % out_[size_t(d)];
          rem /= out_[size_t(d)];
        }
        int64_t base = 0;
        for (int d = 0; d < 4; ++d)
          if (d != axes_[0] && d != axes_[1]) base += coord[d] * inStride_[size_t(d)];
        const AxisTable &ty = tab_[0], &tx = tab_[1];
        int64_t oy = coord[axes_[0]], ox = coord[axes_[1]];
        int64_t sy = inStride_[size_t(axes_[0])], sx = inStride_[size_t(axes_[1])];
        int64_t y0 = ty.lo[size_t(oy)] * sy, y1 = ty.hi[size_t(oy)] * sy;
        int64_t x0 = tx.lo[size_t(ox)] * sx, x1 = tx.hi[size_t(ox)] * sx;
        float wy = ty.t[size_t(oy)], wx = tx.t[size_t(ox)];
        if (wy == 0.f && wx == 0.f) {
          y[f] = x[base + y0 + x0];
          continue;
        }
        float v00 = float(x[base + y0 + x0]), v01 = float(x[base + y0 + x1]);
        float v10 = float(x[base + y1 + x0]), v11 = float(x[base + y1 + x1]);
        float top = v00 * (1.f - wx) + v01 * wx;
        float bottom = v10 * (1.f - wx) + v11 * wx;
        y[f] = storeValue<T>(top * (1.f - wy) + bottom * wy);
      }
    });
    return Status::ok();
  }

 private:
  // Same arithmetic as the element-wise path (horizontal blends first), so
  // both give identical results.
  void runRows(const KernelContext &ctx, const T *x, T *y) {
    int64_t a = axes_[0], b = axes_[1];
    int64_t outer = 1, mid = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= out_[size_t(d)];
    for (int64_t d = a + 1; d < b; ++d) mid *= out_[size_t(d)];
    for (int64_t d = b + 1; d < 4; ++d) inner *= out_[size_t(d)];
    int64_t outH = out_[size_t(a)], outW = out_[size_t(b)];
    int64_t inRow = in_[size_t(b)] * inner;  // one source row: inW x inner
    int64_t inY = mid * inRow, inOuter = in_[size_t(a)] * inY;
    int64_t rowLen = outW * inner;
    const AxisTable &ty = tab_[0], &tx = tab_[1];
    parallelFor(ctx, outer * outH * mid, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, rowLen)),
                [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        int64_t m = r % mid, oy = (r / mid) % outH, o = r / (mid * outH);
        const T *base = x + o * inOuter + m * inRow;
        const T *r0 = base + ty.lo[size_t(oy)] * inY, *r1 = base + ty.hi[size_t(oy)] * inY;
        float wy = ty.t[size_t(oy)];
        T *dst = y + r * rowLen;
        for (int64_t ox = 0; ox < outW; ++ox, dst += inner) {
          int64_t x0 = tx.lo[size_t(ox)] * inner, x1 = tx.hi[size_t(ox)] * inner;
          float wx = tx.t[size_t(ox)];
          if (wy == 0.f && wx == 0.f) {
            std::copy(r0 + x0, r0 + x0 + inner, dst);
            continue;
          }
          for (int64_t c = 0; c < inner; ++c) {
            float top = float(r0[x0 + c]) * (1.f - wx) + float(r0[x1 + c]) * wx;
            float bottom = float(r1[x0 + c]) * (1.f - wx) + float(r1[x1 + c]) * wx;
            dst[c] = storeValue<T>(top * (1.f - wy) + bottom * wy);
          }
        }
      }
    });
  }

  Shape in_, out_;
  std::array<int64_t, 2> axes_;
  std::array<AxisTable, 2> tab_;
  std::vector<int64_t> inStride_;
};

Status makeResample2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(
      checkDataType(node, x, "input", {DataType::kFloat32, DataType::kFloat16, DataType::kUint8, DataType::kInt8}));
  std::string mode = node.attributes.getString("mode", "nearest-neighbor");
  std::vector<int64_t> axes = node.attributes.getInts("axes", {2, 3});
  bool hasSizes = node.attributes.has("sizes");
  std::vector<int64_t> sizes = node.attributes.getInts("sizes", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (x.shape.size() != 4) return nodeError(node, "input must be 4-D, got " + shapeToString(x.shape));
  if (mode != "nearest-neighbor" && mode != "linear") return nodeError(node, "unknown mode '" + mode + "'");
  if (axes.size() != 2 || axes[0] == axes[1] || axes[0] < 0 || axes[0] > 3 || axes[1] < 0 || axes[1] > 3)
    return nodeError(node, "axes must be two distinct values in [0, 4)");
  if (hasSizes && (sizes.size() != 2 || sizes[0] <= 0 || sizes[1] <= 0))
    return nodeError(node, "sizes must be two positive values");
  const OperandDesc &y = *node.outputs[0];
  Shape expected = x.shape;
  for (int i = 0; i < 2; ++i) {
    int64_t size = hasSizes ? sizes[size_t(i)] : y.shape.size() == 4 ? y.shape[size_t(axes[size_t(i)])] : 0;
    if (size <= 0 || x.shape[size_t(axes[size_t(i)])] <= 0)
      return nodeError(node, "resampled dimensions must be non-empty");
    expected[size_t(axes[size_t(i)])] = size;
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, expected, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeResample2d, out);
  bool linear = mode == "linear";
  AxisTable t0 = buildTable(x.shape[size_t(axes[0])], expected[size_t(axes[0])], linear);
  AxisTable t1 = buildTable(x.shape[size_t(axes[1])], expected[size_t(axes[1])], linear);
  std::array<int64_t, 2> ax = {axes[0], axes[1]};
  KernelChoice choice;
  choice.op = node.op;
  choice.node = node.name;
  if (x.dtype == DataType::kFloat32 && linear && ax[1] == ax[0] + 1) {
    *out = makeSeparableLinearResample(x.shape, expected, ax[0], t0, t1);
    if (*out) {
      choice.chosen = "separable-linear";
      reportKernelChoice(choice);
      return Status::ok();
    }
    choice.refused.emplace_back("separable-linear", "off (WEBNN_RESAMPLE_SEPARABLE=0)");
  }
  choice.chosen = ax[0] < ax[1] ? "rows" : "elementwise";
  reportKernelChoice(choice);
  switch (x.dtype) {
    case DataType::kFloat32:
      *out = std::make_unique<Resample2dKernel<float>>(x.shape, expected, ax, std::move(t0), std::move(t1));
      break;
    case DataType::kUint8:
      *out = std::make_unique<Resample2dKernel<uint8_t>>(x.shape, expected, ax, std::move(t0), std::move(t1));
      break;
    default:
      *out = std::make_unique<Resample2dKernel<int8_t>>(x.shape, expected, ax, std::move(t0), std::move(t1));
      break;
  }
  return Status::ok();
}

}  // namespace

void registerResampleKernels(KernelTable &t) { t.add("resample2d", &makeResample2d); }

}  // namespace webnn::cpu::kernels
