// averagePool2d, maxPool2d, l2Pool2d (nchw/nhwc, padding, strides,
// dilations, floor/ceil rounding, outputSizes).
//
// Padding elements are not part of any window: average divides by the number
// of real input elements the window covers, l2 sums their squares, max
// ignores them. nchw walks one plane per task; nhwc walks one output row per
// task with the channel loop innermost (contiguous, vectorized), except a
// float global average pool in nhwc (squeeze-excitation's, after every
// EfficientNet / MobileNetV3 depthwise layer): one output row, so it walks
// 16-channel blocks over all pixels instead, the sums in registers; threads
// take rows of one image (each part's sums added after), else blocks.
//
// maxPool2d also runs on int8/uint8: what --webnn-fuse-qdq leaves of a QDQ
// graph's dequantizeLinear -> maxPool2d -> quantizeLinear with one scale and
// zero point (max commutes with the monotonic (de)quantization), so the pool
// reads and writes the 8-bit activations the quantized convolutions around
// it hand over.
//
// A float maxPool2d in nhwc runs MaxPoolAvx512.cpp's row where the CPU has
// AVX-512 (16-channel vectors, a masked tail); this file's walk otherwise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/MaxPoolAvx512.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {
namespace {

enum class PoolKind { kAverage, kMax, kL2 };

struct PoolGeometry {
  bool nhwc = false;
  int64_t N, C, H, W, OH, OW, KH, KW;
  int64_t padTop, padLeft, sh, sw, dh, dw;
  int64_t yPitch = 0;  // nhwc: elements between output pixels (a strided output's row pitch, else C)
  bool honoursRowPitch = true;  // false: a strided operand it leaves to the CPU backend's dense copies
  bool avx512 = false;          // float max in nhwc: MaxPoolAvx512.cpp's row
};

// T: float, or int8_t/uint8_t for kMax.
template <PoolKind K, typename T = float>
class PoolKernel final : public Kernel {
  static_assert(std::is_same_v<T, float> || K == PoolKind::kMax, "8-bit pooling is max only");

 public:
  explicit PoolKernel(PoolGeometry g) : g_(g) {}
  bool honoursRowPitch() const override { return g_.honoursRowPitch; }

  Status run(const KernelContext &ctx) override {
    const T *x = in<T>(ctx, 0);
    T *y = outp<T>(ctx, 0);
    if constexpr (K == PoolKind::kAverage) {
      if (globalNhwc()) {
        const int64_t blocks = (g_.C + 15) / 16, pixels = g_.H * g_.W;
        if (g_.N == 1) {
          if (const int64_t parts = globalRowParts(ctx); parts > 1) {
            globalAverageByRows(x, y, parts, ctx);
            return Status::ok();
          }
        }
        // ~32k floats read per thread's share at least: a hand-off costs microseconds.
        const int64_t grain = std::max<int64_t>(1, 32768 / (16 * pixels));
        parallelFor(ctx, g_.N * blocks, grain, [&](int64_t b, int64_t e) {
          for (int64_t t = b; t < e; ++t) {
            const int64_t n = t / blocks, c0 = t % blocks * 16;
            globalAverageBlock(x + n * pixels * g_.C + c0, pixels, std::min<int64_t>(16, g_.C - c0), y + n * g_.yPitch + c0);
          }
        });
        return Status::ok();
      }
    }
    if (!g_.nhwc) {
      parallelFor(ctx, g_.N * g_.C, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) plane(x + t * g_.H * g_.W, y + t * g_.OH * g_.OW);
      });
    } else {
      parallelFor(ctx, g_.N * g_.OH, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          if constexpr (K == PoolKind::kMax && std::is_same_v<T, float>) {
            if (g_.avx512) {
              maxRowAvx512(x, y, t / g_.OH, t % g_.OH);
              continue;
            }
          }
          rowNhwc(x, y, t / g_.OH, t % g_.OH);
        }
      });
    }
    return Status::ok();
  }

 private:
  static T init() {
    if constexpr (K != PoolKind::kMax) return 0.f;
    else if constexpr (std::is_same_v<T, float>) return -std::numeric_limits<float>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  static T step(T acc, T v) {
    if constexpr (K == PoolKind::kMax) return v > acc ? v : acc;
    else if constexpr (K == PoolKind::kL2) return acc + v * v;
    else return acc + v;
  }
  static T finish(T acc, int64_t count) {
    if constexpr (K == PoolKind::kAverage) return count ? acc / float(count) : 0.f;
    else if constexpr (K == PoolKind::kL2) return std::sqrt(acc);
    else return count ? acc : T(0);  // a window wholly in the padding (ceil rounding): 0, as WPT expects
  }

  void plane(const T *x, T *y) const {
    for (int64_t oh = 0; oh < g_.OH; ++oh)
      for (int64_t ow = 0; ow < g_.OW; ++ow) {
        T acc = init();
        int64_t count = 0;
        for (int64_t kh = 0; kh < g_.KH; ++kh) {
          int64_t ih = oh * g_.sh - g_.padTop + kh * g_.dh;
          if (ih < 0 || ih >= g_.H) continue;
          for (int64_t kw = 0; kw < g_.KW; ++kw) {
            int64_t iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
            if (iw < 0 || iw >= g_.W) continue;
            acc = step(acc, x[ih * g_.W + iw]);
            ++count;
          }
        }
        y[oh * g_.OW + ow] = finish(acc, count);
      }
  }

  // One window over the whole unpadded image, nhwc.
  bool globalNhwc() const {
    return g_.nhwc && g_.OH == 1 && g_.OW == 1 && g_.KH == g_.H && g_.KW == g_.W && g_.padTop == 0 &&
           g_.padLeft == 0 && g_.dh == 1 && g_.dw == 1;
  }

  // One image's global average pool on several threads, split like the
  // convolutions before it (onednn/, the depthwise and pointwise kernels:
  // contiguous output rows per thread), so each thread sums the rows it
  // wrote itself. Split by channel blocks, every thread read all the rows,
  // half of them (at two threads) from the other core's cache: on the Xeon VM
  // that made MobileNetV3's and EfficientNet's squeeze-excitation pools up to
  // twice as slow at two threads as at one. Rows that split unevenly (7 on
  // 2 threads) keep the channel blocks: there the imbalance cost more. A
  // part's sums go to partial_, the calling thread adds the parts.
  int64_t globalRowParts(const KernelContext &ctx) const {
    const int64_t threads = ctx.backendState ? threadPool(ctx).numThreads() : 1;
    if (threads < 2) return 1;
    // At least ~8k floats per part: reading them costs about what a hand-off does.
    const int64_t grainRows = std::max<int64_t>(1, kMinRowPartFloats / std::max<int64_t>(1, g_.W * g_.C));
    const int64_t parts = std::min(threads, g_.H / grainRows);
    return parts > 1 && rowsSplitEvenly(g_.H, parts) ? parts : 1;
  }
  static constexpr int64_t kMinRowPartFloats = 8192;

  void globalAverageByRows(const float *x, float *y, int64_t parts, const KernelContext &ctx) {
    const int64_t C = g_.C, blocks = (C + 15) / 16, rowsPerPart = (g_.H + parts - 1) / parts;
    const int64_t pitch = blocks * 16;  // a part's sums
    partial_.resize(size_t(parts * pitch));
    parallelFor(ctx, parts, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t r0 = std::min(g_.H, t * rowsPerPart), r1 = std::min(g_.H, r0 + rowsPerPart);
        for (int64_t c0 = 0; c0 < C; c0 += 16)
          blockSums(x + r0 * g_.W * C + c0, (r1 - r0) * g_.W, std::min<int64_t>(16, C - c0), &partial_[size_t(t * pitch + c0)]);
      }
    });
    const float pixels = float(g_.H * g_.W);
    for (int64_t c = 0; c < C; ++c) {
      float sum = partial_[size_t(c)];
      for (int64_t t = 1; t < parts; ++t) sum += partial_[size_t(t * pitch + c)];
      y[c] = sum / pixels;
    }
  }

  // Mean over `pixels` pixels (stride C) of `width` <= 16 channels from x.
  void globalAverageBlock(const float *x, int64_t pixels, int64_t width, float *y) const {
    float sums[16];
    blockSums(x, pixels, width, sums);
    for (int64_t c = 0; c < width; ++c) y[c] = sums[c] / float(pixels);
  }

  // Sums over `pixels` pixels (stride C) of `width` <= 16 channels from x:
  // 8-channel vectors with four partial sums each (pixels mod 4) keep the
  // adds' latency off the critical path; a tail under 8 channels scalar.
  void blockSums(const float *x, int64_t pixels, int64_t width, float *y) const {
    typedef float V8 __attribute__((vector_size(32)));
    auto load = [](const float *a) {
      V8 v;
      __builtin_memcpy(&v, a, sizeof v);
      return v;
    };
    const int64_t C = g_.C;
    if (width == 16) {
      V8 a[4][2] = {};
      int64_t p = 0;
      for (; p + 4 <= pixels; p += 4)
        for (int u = 0; u < 4; ++u) {
          a[u][0] += load(x + (p + u) * C);
          a[u][1] += load(x + (p + u) * C + 8);
        }
      for (; p < pixels; ++p) {
        a[0][0] += load(x + p * C);
        a[0][1] += load(x + p * C + 8);
      }
      const V8 s0 = (a[0][0] + a[1][0]) + (a[2][0] + a[3][0]), s1 = (a[0][1] + a[1][1]) + (a[2][1] + a[3][1]);
      for (int c = 0; c < 8; ++c) y[c] = s0[c], y[c + 8] = s1[c];
      return;
    }
    int64_t c0 = 0;
    if (width >= 8) {
      V8 a[4] = {};
      int64_t p = 0;
      for (; p + 4 <= pixels; p += 4)
        for (int u = 0; u < 4; ++u) a[u] += load(x + (p + u) * C);
      for (; p < pixels; ++p) a[0] += load(x + p * C);
      const V8 s0 = (a[0] + a[1]) + (a[2] + a[3]);
      for (int c = 0; c < 8; ++c) y[c] = s0[c];
      c0 = 8;
    }
    float acc[8] = {};
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t c = c0; c < width; ++c) acc[c - c0] += x[p * C + c];
    for (int64_t c = c0; c < width; ++c) y[c] = acc[c - c0];
  }

  // One output row in nhwc. Per output pixel, the window's real taps form
  // a rectangle (padding only trims its edges), and the channels go in
  // blocks of kBlock whose accumulators stay in registers over all taps
  // instead of storing and reloading the output pixel once per tap.
  static constexpr int64_t kBlock = 256 / int64_t(sizeof(T));

  void rowNhwc(const T *x, T *y, int64_t n, int64_t oh) const {
    const int64_t C = g_.C;
    const int64_t ih0 = oh * g_.sh - g_.padTop;
    const int64_t kh0 = poolFirstTap(ih0, g_.dh), kh1 = poolEndTap(ih0, g_.dh, g_.KH, g_.H);
    for (int64_t ow = 0; ow < g_.OW; ++ow) {
      T *out = y + ((n * g_.OH + oh) * g_.OW + ow) * g_.yPitch;
      const int64_t iw0 = ow * g_.sw - g_.padLeft;
      const int64_t kw0 = poolFirstTap(iw0, g_.dw), kw1 = poolEndTap(iw0, g_.dw, g_.KW, g_.W);
      const int64_t count = std::max<int64_t>(0, kh1 - kh0) * std::max<int64_t>(0, kw1 - kw0);
      // Tap (kh, kw) of channel block c0 reads x[base + kh * rowStep + kw * colStep + c0]
      // (base itself may lie before x where the window starts in the padding).
      const Taps taps{((n * g_.H + ih0) * g_.W + iw0) * C, g_.dh * g_.W * C, g_.dw * C, kh0, kh1, kw0, kw1};
      int64_t c0 = 0;
      for (; c0 + kBlock <= C; c0 += kBlock) windowBlock<kBlock>(x, taps, c0, count, out + c0, kBlock);
      if (c0 < C) windowBlock<kBlock>(x, taps, c0, count, out + c0, C - c0);
    }
  }

  void maxRowAvx512(const float *x, float *y, int64_t n, int64_t oh) const {
    const int64_t ih0 = oh * g_.sh - g_.padTop;
    const int64_t kh0 = poolFirstTap(ih0, g_.dh), kh1 = poolEndTap(ih0, g_.dh, g_.KH, g_.H);
    MaxPoolRowNhwc r;
    r.rowCount = std::max<int64_t>(0, kh1 - kh0);
    r.rows = r.rowCount ? x + (n * g_.H + ih0 + kh0 * g_.dh) * g_.W * g_.C : nullptr;
    r.rowStep = g_.dh * g_.W * g_.C;
    r.C = g_.C;
    r.W = g_.W;
    r.OW = g_.OW;
    r.KW = g_.KW;
    r.sw = g_.sw;
    r.dw = g_.dw;
    r.padLeft = g_.padLeft;
    r.y = y + (n * g_.OH + oh) * g_.OW * g_.yPitch;
    r.yPitch = g_.yPitch;
    maxPoolRowNhwcAvx512(r);
  }

  // One output pixel's real taps: element offsets into x and the tap ranges.
  struct Taps {
    int64_t base, rowStep, colStep, kh0, kh1, kw0, kw1;
  };

  // `width` (<= B) channels from c0 of one output pixel; a full block has a
  // constant trip count, so the compiler keeps acc in vector registers.
  template <int64_t B>
  static void windowBlock(const T *x, const Taps &t, int64_t c0, int64_t count, T *out, int64_t width) {
    T acc[B];
    auto walk = [&](auto w) {
      for (int64_t c = 0; c < w; ++c) acc[c] = init();
      for (int64_t kh = t.kh0; kh < t.kh1; ++kh)
        for (int64_t kw = t.kw0; kw < t.kw1; ++kw) {
          const T *xi = x + (t.base + kh * t.rowStep + kw * t.colStep + c0);
          for (int64_t c = 0; c < w; ++c) acc[c] = step(acc[c], xi[c]);
        }
      for (int64_t c = 0; c < w; ++c) out[c] = finish(acc[c], count);
    };
    if (width == B) walk(std::integral_constant<int64_t, B>{});
    else walk(width);
  }

  PoolGeometry g_;
  std::vector<float> partial_;  // globalAverageByRows: each part's channel sums
};

template <PoolKind K>
Status makePool(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  if (K == PoolKind::kMax)
    WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input",
                                        {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kUint8}));
  else
    WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (x.shape.size() != 4) return nodeError(node, "input must be 4-D, got " + shapeToString(x.shape));
  std::string layout = node.attributes.getString("layout", "nchw");
  if (layout != "nchw" && layout != "nhwc") return nodeError(node, "unknown layout '" + layout + "'");
  PoolGeometry g;
  g.nhwc = layout == "nhwc";
  g.N = x.shape[0];
  g.C = g.nhwc ? x.shape[3] : x.shape[1];
  g.H = g.nhwc ? x.shape[1] : x.shape[2];
  g.W = g.nhwc ? x.shape[2] : x.shape[3];
  std::vector<int64_t> window = node.attributes.getInts("windowDimensions", {g.H, g.W});
  std::vector<int64_t> padding = node.attributes.getInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = node.attributes.getInts("strides", {1, 1});
  std::vector<int64_t> dil = node.attributes.getInts("dilations", {1, 1});
  std::string rounding = node.attributes.getString("roundingType", "floor");
  bool hasSizes = node.attributes.has("outputSizes");
  std::vector<int64_t> sizes = node.attributes.getInts("outputSizes", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (window.size() != 2 || padding.size() != 4 || strides.size() != 2 || dil.size() != 2)
    return nodeError(node, "windowDimensions/strides/dilations need 2 entries, padding 4");
  if (rounding != "floor" && rounding != "ceil") return nodeError(node, "unknown roundingType '" + rounding + "'");
  for (int64_t p : padding)
    if (p < 0) return nodeError(node, "padding must be non-negative");
  if (window[0] < 1 || window[1] < 1 || strides[0] < 1 || strides[1] < 1 || dil[0] < 1 || dil[1] < 1)
    return nodeError(node, "windowDimensions, strides and dilations must be >= 1");
  g.KH = window[0];
  g.KW = window[1];
  g.padTop = padding[0];
  g.padLeft = padding[2];
  g.sh = strides[0];
  g.sw = strides[1];
  g.dh = dil[0];
  g.dw = dil[1];
  int64_t spanH, spanW, effH, effW;
  // Options of a corrupt artifact can overflow these.
  if (__builtin_mul_overflow(g.dh, g.KH - 1, &effH) || __builtin_mul_overflow(g.dw, g.KW - 1, &effW) ||
      __builtin_add_overflow(g.H, padding[0], &spanH) || __builtin_add_overflow(spanH, padding[1], &spanH) ||
      __builtin_add_overflow(g.W, padding[2], &spanW) || __builtin_add_overflow(spanW, padding[3], &spanW) ||
      __builtin_sub_overflow(spanH, effH, &spanH) || __builtin_sub_overflow(spanW, effW, &spanW))
    return nodeError(node, "the dilated window or the padded input size overflows int64");
  spanH -= 1;  // cannot overflow: spanH >= -effH > INT64_MIN
  spanW -= 1;
  if (spanH < 0 || spanW < 0) return nodeError(node, "the dilated window is larger than the padded input");
  if (hasSizes) {
    if (sizes.size() != 2) return nodeError(node, "outputSizes must have 2 entries");
    // The spec accepts the floor or the ceil size.
    int64_t fh = spanH / g.sh + 1, fw = spanW / g.sw + 1;
    int64_t ch = fh + (spanH % g.sh != 0), cw = fw + (spanW % g.sw != 0);
    if ((sizes[0] != fh && sizes[0] != ch) || (sizes[1] != fw && sizes[1] != cw))
      return nodeError(node, "outputSizes match neither the floor nor the ceil output size");
    g.OH = sizes[0];
    g.OW = sizes[1];
  } else if (rounding == "ceil") {
    g.OH = spanH / g.sh + 1 + (spanH % g.sh != 0);  // ceil without overflowing spanH + sh
    g.OW = spanW / g.sw + 1 + (spanW % g.sw != 0);
  } else {
    g.OH = spanH / g.sh + 1;
    g.OW = spanW / g.sw + 1;
  }
  Shape os = g.nhwc ? Shape{g.N, g.OH, g.OW, g.C} : Shape{g.N, g.C, g.OH, g.OW};
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makePool<K>, out);
  // A strided nhwc output (a concat slice) is written in place; any other
  // strided operand is left to the CPU backend's dense copies.
  const int64_t yPitch = node.outputs[0]->rowPitch;
  g.honoursRowPitch = !x.rowPitch && (!yPitch || g.nhwc);
  g.yPitch = yPitch && g.honoursRowPitch ? yPitch : g.C;
  if constexpr (K == PoolKind::kMax) {
    if (x.dtype == DataType::kInt8) {
      *out = std::make_unique<PoolKernel<K, int8_t>>(g);
      return Status::ok();
    }
    if (x.dtype == DataType::kUint8) {
      *out = std::make_unique<PoolKernel<K, uint8_t>>(g);
      return Status::ok();
    }
  }
  g.avx512 = K == PoolKind::kMax && g.nhwc && useAvx512();
  *out = std::make_unique<PoolKernel<K>>(g);
  return Status::ok();
}

}  // namespace

void registerPoolingKernels(KernelTable &t) {
  t.add("averagePool2d", &makePool<PoolKind::kAverage>);
  t.add("maxPool2d", &makePool<PoolKind::kMax>);
  t.add("l2Pool2d", &makePool<PoolKind::kL2>);
}

}  // namespace webnn::cpu::kernels
