// Depthwise 3x3 and 5x5 float32 nhwc convolutions on our AVX-512 kernel
// (Depthwise.h), bias and a ReLU/clamp in the same pass, or SiLU over each
// few rows while they are still in cache. The table tries it
// before oneDNN for stride 1 (faster than oneDNN's brdgmm_dw) and after it
// for stride 2, where brdgmm_dw measured 5-25% faster.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Silu.h"

namespace webnn::cpu::kernels {
namespace {

// Depthwise 3x3, nhwc, float32 on AVX-512 (Depthwise.h): bias and a
// clamp (ReLU, ReLU6) in the same pass. Rows are split over threads.
class DepthwiseAvx512Kernel final : public Kernel {
 public:
  DepthwiseAvx512Kernel(ConvGeometry g, FilterIndexer fi, bool constantFilter, bool hasBias, float lo, float hi,
                        bool silu)
      : g_(g), fi_(fi), constantFilter_(constantFilter), hasBias_(hasBias), silu_(silu) {
    p_.H = g.H, p_.W = g.W, p_.C = g.C, p_.OH = g.OH, p_.OW = g.OW;
    p_.ks = g.KH;
    p_.stride = g.sh, p_.padTop = g.padTop, p_.padLeft = g.padLeft;
    p_.lo = lo, p_.hi = hi;
  }

  Status run(const KernelContext &ctx) override {
    // The filter as [ks][ks][C], made on the first run (loading must not touch
    // the mmapped weights), on every run when it is not constant. A run that
    // cannot get its memory fails, and the next one tries again; runs are
    // one at a time.
    if (!prepared_) {
      if (!filter_.resize(size_t(g_.KH * g_.KW * g_.C)))
        return Status(StatusCode::kOutOfMemory, "depthwise conv2d: cannot allocate the reordered filter");
      if (constantFilter_) reorderDepthwiseFilter(in<float>(ctx, 1), fi_, g_.C, g_.KH, filter_.data());
      prepared_ = true;
    }
    if (!constantFilter_) reorderDepthwiseFilter(in<float>(ctx, 1), fi_, g_.C, g_.KH, filter_.data());
    Depthwise3x3 p = p_;
    p.filter = filter_.data();
    p.bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    // At least ~100k FLOPs per chunk: a thread hand-off costs microseconds.
    int64_t rowFlops = std::max<int64_t>(1, 2 * g_.KH * g_.KW * g_.OW * g_.C);
    int64_t grain = std::max<int64_t>(1, 100000 / rowFlops);
    // Rows wherever they split evenly, 14x14 maps included: the
    // convolutions before and after split by rows too (contiguous rows per
    // thread), so each thread reads the input rows it wrote and writes the
    // rows it will read next. Split by channels, every thread read and
    // wrote all the rows, half of them in the other core's cache:
    // MobileNetV3's 14x14 layers ran no faster at 2 threads than at 1
    // (docs/PERFORMANCE.md, issue 19). Uneven rows (7 on 2 threads) split
    // their channels, in 16-channel blocks over 4 parts per thread.
    int64_t threads = ctx.backendState ? threadPool(ctx).numThreads() : 1;
    int64_t blocks = (g_.C + 15) / 16;
    bool byChannels = threads > 1 && g_.sh == 1 && !rowsSplitEvenly(g_.OH, threads) && blocks >= 2 * threads;
    for (int64_t n = 0; n < g_.N; ++n) {
      const float *xn = x + n * g_.H * g_.W * g_.C;
      float *yn = y + n * g_.OH * g_.OW * g_.C;
      int64_t rowSize = g_.OW * g_.C;
      if (byChannels) {
        int64_t parts = std::min(blocks, 4 * threads);
        parallelFor(ctx, parts, 1, [&](int64_t b, int64_t e) {
          depthwise3x3Avx512(p, xn, yn, 0, g_.OH, std::min(g_.C, b * blocks / parts * 16),
                             std::min(g_.C, e * blocks / parts * 16));
        });
        // Only small maps split their rows unevenly: small enough to stay
        // in cache for a pass of their own.
        if (silu_)
          parallelFor(ctx, g_.OH * rowSize, 16384, [&](int64_t b, int64_t e) { siluAvx512(yn + b, e - b); });
      } else if (silu_) {
        // SiLU over every ~16 KB of output rows just written, before they
        // leave L1/L2, instead of a pass over the whole output after.
        int64_t step = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, rowSize));
        parallelFor(ctx, g_.OH, grain, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; r += step) {
            int64_t r1 = std::min(e, r + step);
            depthwise3x3Avx512(p, xn, yn, r, r1);
            siluAvx512(yn + r * rowSize, (r1 - r) * rowSize);
          }
        });
      } else {
        parallelFor(ctx, g_.OH, grain, [&](int64_t b, int64_t e) { depthwise3x3Avx512(p, xn, yn, b, e); });
      }
    }
    return Status::ok();
  }

 private:
  ConvGeometry g_;
  FilterIndexer fi_;
  bool constantFilter_, hasBias_, silu_;
  Depthwise3x3 p_;
  bool prepared_ = false;
  AlignedFloats filter_;
};

}  // namespace

// WEBNN_DEPTHWISE_AVX512 (DebugOptions.h).
bool depthwiseAvx512Enabled() { return debugOptions().depthwiseAvx512.load(std::memory_order_relaxed); }
void setDepthwiseAvx512Enabled(bool enabled) {
  debugOptions().depthwiseAvx512.store(enabled, std::memory_order_relaxed);
}

std::unique_ptr<Kernel> makeDepthwiseAvx512Conv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                float lo, float hi, bool silu, std::string *why) {
  if (!depthwiseAvx512Enabled()) return refuse(why, "off (WEBNN_DEPTHWISE_AVX512=0)");
  if (!avx512Available()) return refuse(why, "no AVX-512");
  if (!g.nhwc) return refuse(why, "not nhwc");
  if (node.inputs[0]->dtype != DataType::kFloat32) return refuse(why, "not float32");
  if (!(g.groups == g.C && g.O == g.C)) return refuse(why, "not depthwise");
  if (!depthwise3x3Supported(g.KH, g.KW, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padBottom, g.padLeft, g.padRight))
    return refuse(why, "not 3x3 or 5x5, stride 1 or 2, dilation 1, padding up to half the filter");
  return std::make_unique<DepthwiseAvx512Kernel>(g, fi, node.inputs[1]->constantData != nullptr, hasBiasInput(node),
                                                 lo, hi, silu);
}

}  // namespace webnn::cpu::kernels
