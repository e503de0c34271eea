// maxPool2d on int8/uint8 tensors (nchw/nhwc, padding, strides, dilations):
// what --webnn-fuse-qdq leaves of a QDQ graph's dequantizeLinear ->
// maxPool2d -> quantizeLinear with one scale and zero point (max commutes
// with the monotonic (de)quantization), so the pool reads and writes the
// 8-bit activations the quantized convolutions around it hand over.
//
// Padding elements are not part of any window. nhwc walks one output row per
// task with the channel loop innermost: plain byte max over contiguous
// channels, which the compiler vectorizes.
#include <algorithm>
#include <limits>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Pooling.h"

namespace webnn::cpu::kernels {
namespace {

template <typename T>
class MaxPool2d8BitKernel final : public Kernel {
 public:
  explicit MaxPool2d8BitKernel(PoolGeometry g) : g_(g) {
    // Each window's steps inside the input, per output row and column: the
    // per-element loops then need no bounds tests or divisions.
    ranges(g_.OH, g_.sh, g_.padTop, g_.KH, g_.dh, g_.H, &rows_);
    ranges(g_.OW, g_.sw, g_.padLeft, g_.KW, g_.dw, g_.W, &cols_);
  }

  Status run(const KernelContext &ctx) override {
    const T *x = in<T>(ctx, 0);
    T *y = outp<T>(ctx, 0);
    if (g_.nhwc) {
      parallelFor(ctx, g_.N * g_.OH, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) rowNhwc(x, y, t / g_.OH, t % g_.OH);
      });
    } else {
      parallelFor(ctx, g_.N * g_.C, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) plane(x + t * g_.H * g_.W, y + t * g_.OH * g_.OW);
      });
    }
    return Status::ok();
  }

 private:
  static constexpr T kLowest = std::numeric_limits<T>::lowest();

  // Window steps [lo, hi) with 0 <= o * stride - pad + step * d < size, for
  // each output position o; lo == hi for a window wholly in the padding.
  struct Range {
    int64_t start, lo, hi;  // start: the window's first input position (o * stride - pad)
  };
  static void ranges(int64_t outSize, int64_t stride, int64_t pad, int64_t k, int64_t d, int64_t size,
                     std::vector<Range> *out) {
    out->resize(size_t(outSize));
    for (int64_t o = 0; o < outSize; ++o) {
      int64_t start = o * stride - pad;
      int64_t lo = start >= 0 ? 0 : (-start + d - 1) / d;
      int64_t hi = start >= size ? 0 : std::min(k, (size - 1 - start) / d + 1);
      (*out)[size_t(o)] = Range{start, lo, std::max(lo, hi)};
    }
  }

  void plane(const T *x, T *y) const {
    for (int64_t oh = 0; oh < g_.OH; ++oh) {
      const Range r = rows_[size_t(oh)];
      for (int64_t ow = 0; ow < g_.OW; ++ow) {
        const Range c = cols_[size_t(ow)];
        T acc = kLowest;
        for (int64_t kh = r.lo; kh < r.hi; ++kh) {
          const T *row = x + (r.start + kh * g_.dh) * g_.W + c.start;
          for (int64_t kw = c.lo; kw < c.hi; ++kw) acc = std::max(acc, row[kw * g_.dw]);
        }
        y[oh * g_.OW + ow] = r.lo < r.hi && c.lo < c.hi ? acc : T(0);
      }
    }
  }

  void rowNhwc(const T *x, T *y, int64_t n, int64_t oh) const {
    const int64_t C = g_.C;
    const Range r = rows_[size_t(oh)];
    for (int64_t ow = 0; ow < g_.OW; ++ow) {
      T *__restrict out = y + ((n * g_.OH + oh) * g_.OW + ow) * C;
      const Range c = cols_[size_t(ow)];
      if (r.lo >= r.hi || c.lo >= c.hi) {
        std::fill(out, out + C, T(0));
        continue;
      }
      std::fill(out, out + C, kLowest);
      for (int64_t kh = r.lo; kh < r.hi; ++kh) {
        const T *xrow = x + ((n * g_.H + r.start + kh * g_.dh) * g_.W + c.start) * C;
        for (int64_t kw = c.lo; kw < c.hi; ++kw) {
          const T *__restrict xi = xrow + kw * g_.dw * C;
          for (int64_t c2 = 0; c2 < C; ++c2) out[c2] = std::max(out[c2], xi[c2]);
        }
      }
    }
  }

  PoolGeometry g_;
  std::vector<Range> rows_, cols_;
};

}  // namespace

std::unique_ptr<Kernel> makeMaxPool2d8Bit(const PoolGeometry &g, DataType dtype) {
  if (dtype == DataType::kInt8) return std::make_unique<MaxPool2d8BitKernel<int8_t>>(g);
  return std::make_unique<MaxPool2d8BitKernel<uint8_t>>(g);
}

}  // namespace webnn::cpu::kernels
