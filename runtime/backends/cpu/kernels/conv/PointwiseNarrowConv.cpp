// Plain pointwise (1x1, stride 1, unpadded) float32 nhwc convolutions with a
// constant filter and at most 32 output channels (one pass over the rows:
// the row tiles cover every column), or with a residual, at most 128 input
// channels and 784 pixels or more (ResNet-50's 56x56 64 -> 256 and 28x28
// 128 -> 512 block ends, where brgconv_1x1's sum post-op costs a pass of
// its own and ours adds the residual in the tile). MobileNetV2's 14x14 layers to 64 channels and ResNet-50's
// without a residual measured no faster than brgconv_1x1. Where the plan
// writes y over the residual brgconv_1x1 needs no copy: from 56x56 up it is
// tried first then (Conv2dSelection.cpp).
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Pointwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::kernels {
namespace {

// A plain pointwise nhwc convolution with few output channels or a short
// residual block end (rules below) as register-tiled rows (Pointwise.h), the
// filter as [C][O] in L1, bias, residual and clamp in the epilogue; threads
// take contiguous ranges of 8-row tiles.
class PointwiseNarrowKernel final : public Kernel {
 public:
  PointwiseNarrowKernel(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi, bool hasBias,
                        bool hasResidual, float lo, float hi, bool silu)
      : g_(g), fi_(fi), hasBias_(hasBias), hasResidual_(hasResidual), silu_(silu), lo_(lo), hi_(hi),
        w_(static_cast<const float *>(node.inputs[1]->constantData)), yPitch_(node.outputs[0]->rowPitch) {
    for (const PackedOperand &po : node.packed)
      if (po.input == 1 && po.layout == layoutName() && po.bytes == uint64_t(g_.C * g_.O) * sizeof(float))
        prepacked_ = static_cast<const float *>(po.data);
  }

  // The filter as [C][O] floats: prepacked in the artifact, or made on the
  // first run (loading must not touch the mmapped weights).
  static std::string layoutName(int64_t K, int64_t N) {
    return "webnn.pointwise_kn." + std::to_string(K) + "x" + std::to_string(N);
  }
  std::string layoutName() const { return layoutName(g_.C, g_.O); }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    (void)numThreads;  // one layout for every thread count
    PackedBytes pb;
    pb.input = 1;
    pb.layout = layoutName();
    pb.bytes.resize(size_t(g_.C * g_.O) * sizeof(float));
    reorderPointwiseFilter(w_, fi_, g_.C, g_.O, reinterpret_cast<float *>(pb.bytes.data()));
    out->push_back(std::move(pb));
    return Status::ok();
  }

  Status run(const KernelContext &ctx) override {
    const float *filter = prepacked_;
    if (!filter) {
      // Runs are one at a time; a run refused the memory fails, the next retries.
      if (!prepared_) {
        if (!filter_.resize(size_t(g_.C * g_.O)))
          return Status(StatusCode::kOutOfMemory, "1x1 conv2d: cannot allocate the reordered filter");
        reorderPointwiseFilter(w_, fi_, g_.C, g_.O, filter_.data());
        prepared_ = true;
      }
      filter = filter_.data();
    }
    PointwiseProduct p;
    p.K = g_.C, p.N = g_.O;
    p.filter = filter;
    p.bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    p.lo = lo_, p.hi = hi_;
    p.silu = silu_;
    p.ldy = yPitch_;
    const float *x = in<float>(ctx, 0);
    const float *r = hasResidual_ ? in<float>(ctx, 3) : nullptr;
    float *y = outp<float>(ctx, 0);
    pointwiseRowsParallel(ctx, p, x, g_.N * g_.H * g_.W, y, r);
    return Status::ok();
  }

  // Its output only, and only where the maker took it (a dense x, no silu).
  bool honoursRowPitch() const override { return yPitch_ != 0; }
  // A dense y over its residual (input 3): each tile loads an element's
  // residual just before it stores that element.
  bool allowsInPlace(size_t output, size_t input) const override {
    return output == 0 && input == 3 && hasResidual_ && yPitch_ == 0;
  }

 private:
  ConvGeometry g_;
  FilterIndexer fi_;
  bool hasBias_, hasResidual_, silu_;
  float lo_, hi_;
  const float *w_;
  int64_t yPitch_;  // floats between y's pixels in a concat slice; 0: dense
  const float *prepacked_ = nullptr;
  bool prepared_ = false;
  AlignedFloats filter_;
};

}  // namespace

// WEBNN_POINTWISE_NARROW (DebugOptions.h).
bool pointwiseNarrowEnabled() { return debugOptions().pointwiseNarrow.load(std::memory_order_relaxed); }
void setPointwiseNarrowEnabled(bool enabled) {
  debugOptions().pointwiseNarrow.store(enabled, std::memory_order_relaxed);
}

std::unique_ptr<Kernel> makePointwiseNarrowConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                bool hasResidual, float lo, float hi, bool silu, std::string *why) {
  if (!pointwiseNarrowEnabled()) return refuse(why, "off (WEBNN_POINTWISE_NARROW=0)");
  if (!avx512Available()) return refuse(why, "no AVX-512");
  if (!g.nhwc) return refuse(why, "not nhwc");
  if (!plainPointwise(g)) return refuse(why, "not 1x1, stride 1, unpadded");
  if (g.groups != 1) return refuse(why, "grouped");
  if (node.inputs[0]->dtype != DataType::kFloat32) return refuse(why, "not float32");
  if (!node.inputs[1]->constantData) return refuse(why, "filter not constant");
  if (g.C > 1024) return refuse(why, "more than 1024 input channels");
  if (relaxedRunsBf16(node)) return refuse(why, "relaxed precision runs in bfloat16");
  const int64_t M = g.N * g.H * g.W;
  // Where y is a concat's slice, this kernel writes it at the pitch: the
  // kernels after it in the table write a dense y that is then copied there.
  const bool slice = node.outputs[0]->rowPitch != 0;
  if (slice && (silu || node.inputs[0]->rowPitch)) return refuse(why, "a concat slice with silu or a strided input");
  if (g.O > 32 && !(hasResidual && g.C <= 128 && M >= 784) && !(slice && g.C <= 64))
    return refuse(why,
                  "more than 32 output channels, not a residual block end (<= 128 input channels, >= 784 pixels), "
                  "nor a concat slice of <= 64 input channels");
  return std::make_unique<PointwiseNarrowKernel>(node, g, fi, hasBiasInput(node), hasResidual, lo, hi, silu);
}

void pointwiseRowsParallel(const KernelContext &ctx, const PointwiseProduct &p, const float *x, int64_t M, float *y,
                           const float *residual) {
  const int64_t grain = std::max<int64_t>(1, 100000 / (16 * p.K * p.N));
  parallelFor(ctx, (M + 7) / 8, grain, [&](int64_t b, int64_t e) {
    const int64_t m0 = b * 8, m1 = std::min(M, e * 8);
    pointwiseRowsAvx512(p, x + m0 * p.K, m1 - m0, y + m0 * (p.ldy ? p.ldy : p.N),
                        residual ? residual + m0 * p.N : nullptr);
  });
}

}  // namespace webnn::cpu::kernels
