// resample2d against the spec's worked example (linear 4x4 -> 8x8) and a
// reference implementation of its half-pixel sampling rules.
#include <gtest/gtest.h>

#include <cmath>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/Resample.h"

namespace webnn::cpu::test {
namespace {

// The spec's formulas, written out independently of the kernel.
double sampleRef(const std::vector<double> &x, int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t oy, int64_t ox,
                 bool linear) {
  auto coord = [](int64_t o, int64_t in, int64_t out) {
    double scale = double(out) / double(in);
    return std::min(std::max((o + 0.5) / scale - 0.5, 0.0), double(in - 1));
  };
  double cy = coord(oy, h, oh), cx = coord(ox, w, ow);
  if (!linear) return x[size_t(int64_t(std::ceil(cy - 0.5)) * w + int64_t(std::ceil(cx - 0.5)))];
  int64_t y0 = int64_t(std::floor(cy)), y1 = int64_t(std::ceil(cy));
  int64_t x0 = int64_t(std::floor(cx)), x1 = int64_t(std::ceil(cx));
  double ty = cy - y0, tx = cx - x0;
  auto at = [&](int64_t yy, int64_t xx) { return x[size_t(yy * w + xx)]; };
  double vy0 = at(y0, x0) * (1 - tx) + at(y0, x1) * tx;
  double vy1 = at(y1, x0) * (1 - tx) + at(y1, x1) * tx;
  return vy0 * (1 - ty) + vy1 * ty;
}

TEST(ResampleKernels, SpecLinearExample) {
  std::vector<float> in = {0, 1, 2, 3, 0, 1, 2, 3, 12, 13, 14, 15, 12, 13, 14, 15};
  const std::vector<double> row0 = {0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3};
  const double rowOffsets[] = {0, 0, 0, 3, 9, 12, 12, 12};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
    OpCase c;
    c.op = "resample2d";
    c.inputs = {dt == DataType::kFloat32 ? f32({1, 1, 4, 4}, in) : f16({1, 1, 4, 4}, in)};
    c.outputs = {outSpec(dt, {1, 1, 8, 8})};
    c.attrString("mode", "linear").attrInts("sizes", {8, 8});
    ASSERT_TRUE(runOp(c).isOk());
    std::vector<double> got = c.outputs[0].values();
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) EXPECT_NEAR(got[size_t(y * 8 + x)], row0[size_t(x)] + rowOffsets[y], 1e-2) << y << "," << x;
  }
}

TEST(ResampleKernels, MatchesReferenceForModesAxesAndTypes) {
  struct Case {
    Shape in, out;
    std::vector<int64_t> axes;
  };
  std::vector<Case> cases = {{{2, 3, 4, 5}, {2, 3, 7, 3}, {2, 3}},
                             {{2, 4, 5, 3}, {2, 9, 2, 3}, {1, 2}},
                             {{1, 1, 1, 1}, {1, 1, 3, 2}, {2, 3}},
                             {{3, 2, 6, 1}, {5, 2, 6, 2}, {3, 0}},
                             // Ascending axes with dimensions between them (the row path's `mid`).
                             {{2, 3, 4, 5}, {2, 6, 4, 2}, {1, 3}},
                             {{2, 3, 4, 2}, {3, 3, 5, 2}, {0, 2}}};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kUint8, DataType::kInt8}) {
    for (bool linear : {false, true}) {
      for (const Case &k : cases) {
        int64_t n = 1;
        for (int64_t d : k.in) n *= d;
        std::vector<double> xv(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) xv[size_t(i)] = double((i * 37) % 101) - (dt == DataType::kUint8 ? 0 : 50);
        OpCase c;
        c.op = "resample2d";
        c.inputs = {fromDoubles(dt, k.in, xv)};
        c.outputs = {outSpec(dt, k.out)};
        c.attrString("mode", linear ? "linear" : "nearest-neighbor").attrInts("axes", k.axes);
        ASSERT_TRUE(runOp(c, 2).isOk());
        std::vector<double> got = c.outputs[0].values();
        const std::vector<double> xin = c.inputs[0]->values();
        int64_t a0 = k.axes[0], a1 = k.axes[1];
        // Reference: walk the output, slice the 2-D plane of the two axes.
        std::vector<int64_t> inStride(4), outStride(4);
        for (int d = 3, si = 1, so = 1; d >= 0; --d) {
          inStride[size_t(d)] = si;
          outStride[size_t(d)] = so;
          si *= int(k.in[size_t(d)]);
          so *= int(k.out[size_t(d)]);
        }
        int64_t total = 1;
        for (int64_t d : k.out) total *= d;
        for (int64_t f = 0; f < total; ++f) {
          int64_t coord[4];
          for (int d = 0; d < 4; ++d) coord[d] = (f / outStride[size_t(d)]) % k.out[size_t(d)];
          int64_t h = k.in[size_t(a0)], w = k.in[size_t(a1)];
          std::vector<double> plane(static_cast<size_t>(h * w));
          for (int64_t yy = 0; yy < h; ++yy)
            for (int64_t xx = 0; xx < w; ++xx) {
              int64_t c2[4] = {coord[0], coord[1], coord[2], coord[3]};
              c2[a0] = yy;
              c2[a1] = xx;
              int64_t off = 0;
              for (int d = 0; d < 4; ++d) off += c2[d] * inStride[size_t(d)];
              plane[size_t(yy * w + xx)] = xin[size_t(off)];
            }
          double want = sampleRef(plane, h, w, k.out[size_t(a0)], k.out[size_t(a1)], coord[a0], coord[a1], linear);
          if (dt == DataType::kUint8 || dt == DataType::kInt8) want = std::nearbyint(want);
          // Integers: float vs double rounding may differ at an exact .5 tie.
          double tol = dt == DataType::kFloat16 ? 0.06 : (dt == DataType::kFloat32 ? 1e-4 : 1);
          ASSERT_NEAR(got[size_t(f)], want, tol) << "element " << f;
        }
      }
    }
  }
}

// The separable bilinear kernel against the row walk it replaces for float32
// linear resampling of adjacent axes: nchw and nhwc, up and down, integer and
// odd scales, several planes, chunks split over threads.
TEST(ResampleKernels, SeparableLinearMatchesRowWalk) {
  struct Case {
    Shape in, out;
    std::vector<int64_t> axes;
  };
  std::vector<Case> cases = {{{1, 21, 16, 16}, {1, 21, 256, 256}, {2, 3}},  // DeepLabV3's final resize
                             {{2, 3, 7, 5}, {2, 3, 19, 13}, {2, 3}},
                             {{1, 2, 9, 11}, {1, 2, 4, 3}, {2, 3}},
                             {{1, 1, 1, 6}, {1, 1, 5, 1}, {2, 3}},
                             {{1, 3, 5, 2}, {1, 3, 3, 9}, {2, 3}},
                             {{2, 7, 5, 3}, {2, 15, 11, 3}, {1, 2}},
                             {{1, 6, 6, 17}, {1, 3, 4, 17}, {1, 2}},
                             {{3, 5, 4, 2}, {7, 9, 4, 2}, {0, 1}}};
  for (const Case &k : cases) {
    for (int threads : {1, 3}) {
      int64_t n = 1;
      for (int64_t d : k.in) n *= d;
      std::vector<double> xv(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) xv[size_t(i)] = double((i * 37) % 101) * 0.37 - 17.0;
      std::vector<double> got[2];
      for (bool separable : {true, false}) {
        kernels::setResampleSeparableEnabled(separable);
        ScopedKernelChoices choices;
        OpCase c;
        c.op = "resample2d";
        c.inputs = {fromDoubles(DataType::kFloat32, k.in, xv)};
        c.outputs = {outSpec(DataType::kFloat32, k.out)};
        c.attrString("mode", "linear").attrInts("axes", k.axes);
        ASSERT_TRUE(runOp(c, threads).isOk());
        EXPECT_EQ(choices.last("resample2d").chosen, separable ? "separable-linear" : "rows");
        got[separable ? 0 : 1] = c.outputs[0].values();
      }
      kernels::setResampleSeparableEnabled(true);
      ASSERT_EQ(got[0].size(), got[1].size());
      for (size_t i = 0; i < got[0].size(); ++i)
        ASSERT_NEAR(got[0][i], got[1][i], 4e-6 * std::max(1.0, std::fabs(got[1][i])))
            << shapeToString(k.in) << " -> " << shapeToString(k.out) << " threads " << threads << " element " << i;
    }
  }
}

// Nearest-neighbor, integer types and non-adjacent axes keep the row walk.
TEST(ResampleKernels, SeparableOnlyForFloatLinearAdjacentAxes) {
  ScopedKernelChoices choices;
  auto chosen = [&](DataType dt, const char *mode, std::vector<int64_t> axes, Shape out) {
    OpCase c;
    c.op = "resample2d";
    c.inputs = {fromDoubles(dt, {1, 2, 3, 4}, std::vector<double>(24, 1.0))};
    c.outputs = {outSpec(dt, out)};
    c.attrString("mode", mode).attrInts("axes", axes);
    EXPECT_TRUE(runOp(c).isOk());
    return choices.last("resample2d").chosen;
  };
  EXPECT_EQ(chosen(DataType::kFloat32, "linear", {2, 3}, {1, 2, 6, 8}), "separable-linear");
  EXPECT_EQ(chosen(DataType::kFloat32, "nearest-neighbor", {2, 3}, {1, 2, 6, 8}), "rows");
  EXPECT_EQ(chosen(DataType::kUint8, "linear", {2, 3}, {1, 2, 6, 8}), "rows");
  EXPECT_EQ(chosen(DataType::kFloat32, "linear", {1, 3}, {1, 4, 3, 8}), "rows");
  EXPECT_EQ(chosen(DataType::kFloat32, "linear", {3, 2}, {1, 2, 6, 8}), "elementwise");
}

TEST(ResampleKernels, RejectsBadOptions) {
  OpCase c;
  c.op = "resample2d";
  c.inputs = {f32({1, 1, 2, 2}, {1, 2, 3, 4})};
  c.outputs = {outSpec(DataType::kFloat32, {1, 1, 4, 4})};
  c.attrString("mode", "cubic");
  EXPECT_FALSE(runOp(c).isOk());
  OpCase d = c;
  d.attrs = NodeAttributes();
  d.attrInts("axes", {2, 2});
  EXPECT_FALSE(runOp(d).isOk());
  OpCase e;
  e.op = "resample2d";
  e.inputs = {fromDoubles(DataType::kInt32, {1, 1, 2, 2}, {1, 2, 3, 4})};
  e.outputs = {outSpec(DataType::kInt32, {1, 1, 4, 4})};
  EXPECT_FALSE(runOp(e).isOk());
  OpCase f;
  f.op = "resample2d";
  f.inputs = {f32({1, 1, 2, 2}, {1, 2, 3, 4})};
  f.outputs = {outSpec(DataType::kFloat32, {1, 2, 4, 4})};  // channel axis is not resampled
  EXPECT_FALSE(runOp(f).isOk());
}

}  // namespace
}  // namespace webnn::cpu::test
