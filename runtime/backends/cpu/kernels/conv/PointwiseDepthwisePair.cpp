// A 1x1 convolution and the depthwise 3x3 one it feeds as one kernel
// (PointwiseDepthwise.h): the expanded tensor between them lives only in a
// few rows of a per-thread ring. The executor offers adjacent nodes
// (makeCpuKernelPair); where both are conv2d family nodes the decision is
// reported like a table's (KernelCandidates.h).
//
// The arena plan knows nothing of pairs: the 1x1's input dies at the 1x1,
// so the depthwise output may be placed over its bytes (MobileNetV2's,
// V3's and EfficientNet-B0's 112x112 stride-2 pairs). Then the kernel
// copies the input into the intermediate's own arena bytes (live at both
// nodes, so apart from either) and runs fused from there; where those
// bytes are fewer than the input's (a 1x1 that narrows), it runs the two
// steps apart, the expanded tensor in them.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/PointwiseDepthwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/RowPitch.h"
#include "runtime/backends/cpu/kernels/Silu.h"

namespace webnn::cpu::kernels {
namespace {

// Run-time inputs: the 1x1 node's (input, filter, bias?, residual?), then
// the depthwise node's (the intermediate, unused; filter, bias?, ...).
class PointwiseDepthwiseKernel final : public Kernel {
 public:
  PointwiseDepthwiseKernel(ConvGeometry pw, FilterIndexer pwFilter, bool pwBias, ConvGeometry dw,
                           FilterIndexer dwFilter, bool dwBias, size_t dwInputs, PointwiseDepthwise p)
      : pw_(pw), dw_(dw), pwFilter_(pwFilter), dwFilter_(dwFilter), pwBias_(pwBias), dwBias_(dwBias),
        dwInputs_(dwInputs), p_(p) {}

  Status run(const KernelContext &ctx) override {
    // Filters as [K][C] and [3][3][C], made on the first run (loading must
    // not touch the mmapped weights); a run that cannot get their memory
    // fails, and the next one tries again. Runs are one at a time.
    if (!prepared_) {
      if (!pointwise_.resize(size_t(pw_.C * pw_.O)) || !depthwise_.resize(size_t(9 * dw_.C)))
        return Status(StatusCode::kOutOfMemory, "conv2d pair: cannot allocate the packed filters");
      reorderPointwiseFilter(in<float>(ctx, 1), pwFilter_, pw_.C, pw_.O, pointwise_.data());
      reorderDepthwiseFilter(in<float>(ctx, dwInputs_ + 1), dwFilter_, dw_.C, 3, depthwise_.data());
      prepared_ = true;
    }
    PointwiseDepthwise p = p_;
    p.pointwise.filter = pointwise_.data();
    p.pointwise.bias = pwBias_ ? in<float>(ctx, 2) : nullptr;
    p.dw.filter = depthwise_.data();
    p.dw.bias = dwBias_ ? in<float>(ctx, dwInputs_ + 2) : nullptr;
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    const size_t xBytes = size_t(pw_.N * pw_.H * pw_.W * pw_.C) * sizeof(float);
    const size_t yBytes = size_t(dw_.N * dw_.OH * dw_.OW * dw_.C) * sizeof(float);
    if (pairOutputOverlaps(x, xBytes, y, yBytes)) {
      // The plan put y over x (MobileNets' stride-2 112x112 pairs). On one
      // thread, one image, a pass that never writes an output row over
      // input rows it has yet to expand runs in place: bottom-up there (y
      // starts at x and its rows are at least as long as two of x's).
      if (pw_.N == 1 && (!ctx.backendState || threadPool(ctx).numThreads() == 1)) {
        for (bool backward : {false, true}) {
          if (!inPlaceSafe(x, y, backward)) continue;
          float *ring = threadRing(pointwiseDepthwiseRingFloats(p));
          if (!ring) return Status(StatusCode::kOutOfMemory, "conv2d pair: cannot allocate a thread's row buffer");
          if (backward) pointwiseDepthwiseAvx512Backward(p, x, y, 0, dw_.OH, ring);
          else pointwiseDepthwiseAvx512(p, x, y, 0, dw_.OH, ring);
          return Status::ok();
        }
      }
      // Else x is copied into the intermediate's bytes (apart from both):
      // one pass over x, where running apart writes and reads back the
      // whole expanded tensor.
      float *mid;
      WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, dwInputs_, "conv2d pair", &mid));
      const size_t midBytes = size_t(pw_.N * pw_.OH * pw_.OW * pw_.O) * sizeof(float);
      if (midBytes < xBytes || pairOutputOverlaps(mid, xBytes, y, yBytes)) return runApart(ctx, p, x, y);
      const int64_t rowBytes = pw_.W * pw_.C * int64_t(sizeof(float));
      copyRows(ctx, reinterpret_cast<const uint8_t *>(x), rowBytes, reinterpret_cast<uint8_t *>(mid), rowBytes,
               pw_.N * pw_.H, rowBytes);
      x = mid;
    }
    const int64_t ringFloats = pointwiseDepthwiseRingFloats(p);
    std::atomic<bool> noRing{false};
    for (int64_t n = 0; n < pw_.N; ++n) {
      const float *xn = x + n * pw_.H * pw_.W * pw_.C;
      float *yn = y + n * dw_.OH * dw_.OW * dw_.C;
      parallelFor(ctx, dw_.OH, 2, [&](int64_t b, int64_t e) {
        float *ring = threadRing(ringFloats);
        if (!ring) {
          noRing.store(true, std::memory_order_relaxed);
          return;
        }
        pointwiseDepthwiseAvx512(p, xn, yn, b, e, ring);
      });
    }
    if (noRing.load(std::memory_order_relaxed))
      return Status(StatusCode::kOutOfMemory, "conv2d pair: cannot allocate a thread's row buffer");
    return Status::ok();
  }

 private:
  // The 1x1 into the intermediate's bytes, then the depthwise step from them.
  Status runApart(const KernelContext &ctx, const PointwiseDepthwise &p, const float *x, float *y) {
    float *mid;
    WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, dwInputs_, "conv2d pair", &mid));
    const int64_t M = pw_.H * pw_.W, rowFloats = dw_.OW * dw_.C;
    for (int64_t n = 0; n < pw_.N; ++n) {
      const float *xn = x + n * M * pw_.C;
      float *mn = mid + n * M * pw_.O, *yn = y + n * dw_.OH * rowFloats;
      pointwiseRowsParallel(ctx, p.pointwise, xn, M, mn);
      parallelFor(ctx, dw_.OH, 2, [&](int64_t b, int64_t e) {
        depthwise3x3Avx512(p.dw, mn, yn, b, e);
        if (p.silu) siluAvx512(yn + b * rowFloats, (e - b) * rowFloats);
      });
    }
    return Status::ok();
  }

  // Whether one pass over the output rows of one image, top-down or
  // bottom-up, writes each row only where no input row it has yet to
  // expand lies (x and y in the same arena).
  bool inPlaceSafe(const float *x, const float *y, bool backward) const {
    const intptr_t xb = reinterpret_cast<intptr_t>(x), yb = reinterpret_cast<intptr_t>(y);
    const intptr_t rowIn = pw_.W * pw_.C * intptr_t(sizeof(float)), rowOut = dw_.OW * dw_.C * intptr_t(sizeof(float));
    for (int64_t oh = 0; oh < dw_.OH; ++oh) {
      const int64_t top = oh * dw_.sh - dw_.padTop;
      // Rows [r0, r1) are still to be expanded when row oh is written.
      const int64_t r0 = backward ? 0 : std::min(dw_.H - 1, top + 2) + 1;
      const int64_t r1 = backward ? std::max<int64_t>(0, top) : dw_.H;
      const intptr_t w0 = yb + oh * rowOut, w1 = w0 + rowOut;
      if (r0 < r1 && w0 < xb + r1 * rowIn && xb + r0 * rowIn < w1) return false;
    }
    return true;
  }

  // One ring per thread, kept across runs (grown on a thread's first run);
  // null when that memory is refused.
  static float *threadRing(int64_t floats) {
    thread_local AlignedFloats ring;
    if (ring.size() < size_t(floats) && !ring.resize(size_t(floats))) return nullptr;
    return ring.data();
  }

  ConvGeometry pw_, dw_;
  FilterIndexer pwFilter_, dwFilter_;
  bool pwBias_, dwBias_;
  size_t dwInputs_;
  PointwiseDepthwise p_;
  bool prepared_ = false;
  AlignedFloats pointwise_, depthwise_;
};

// A conv2d / fusedConv2d node's geometry and epilogue (a clamp, or SiLU)
// when it can be half of a pair: float32, nhwc, constant filter and bias,
// no residual, activation none, relu, clamp or silu.
bool pairHalf(const NodeDesc &node, ConvGeometry *g, FilterIndexer *fi, float *lo, float *hi, bool *silu) {
  if ((node.op != "conv2d" && node.op != "fusedConv2d") || relaxedRunsBf16(node)) return false;
  if (!checkConv2d(node, g, fi, node.op == "conv2d" ? 3 : 4).isOk()) return false;
  if (!g->nhwc || node.inputs[0]->dtype != DataType::kFloat32 || !node.inputs[1]->constantData) return false;
  if (node.inputs.size() > 2 && node.inputs[2] && !node.inputs[2]->constantData) return false;
  *lo = -INFINITY, *hi = INFINITY;
  *silu = false;
  if (node.op == "conv2d") return true;
  Epilogue e;
  if (!readEpilogue(node, *g, &e).isOk() || e.hasResidual || e.activation == ConvActivation::kSigmoid ||
      e.activation == ConvActivation::kHardSwish)
    return false;
  *silu = e.activation == ConvActivation::kSilu;
  if (e.activation == ConvActivation::kRelu) *lo = 0.f;
  if (e.activation == ConvActivation::kClamp) *lo = e.clampMin, *hi = e.clampMax;
  return true;
}

constexpr const char *kPairCandidate = "pointwise-depthwise pair";

// The pair kernel for these halves, or null with *why.
std::unique_ptr<Kernel> makePair(const NodeDesc &producer, const NodeDesc &consumer, const ConvGeometry &pw,
                                 const FilterIndexer &pwFi, float pwLo, float pwHi, bool pwSilu,
                                 const ConvGeometry &dw, const FilterIndexer &dwFi, float lo, float hi, bool silu,
                                 std::string *why) {
  if (!pointwiseDepthwiseEnabled()) return refuse(why, "off (WEBNN_FUSE_POINTWISE_DEPTHWISE=0)");
  if (!depthwiseAvx512Enabled()) return refuse(why, "off (WEBNN_DEPTHWISE_AVX512=0)");
  if (!avx512Available()) return refuse(why, "no AVX-512");
  if (!plainPointwise(pw) || pw.groups != 1) return refuse(why, "the producer is not an ungrouped plain 1x1");
  if (!(dw.groups == dw.C && dw.O == dw.C && dw.C == pw.O && dw.H == pw.OH && dw.W == pw.OW && dw.N == pw.N))
    return refuse(why, "the consumer is not a depthwise convolution of the producer's output");
  if (dw.KH != 3 || !depthwise3x3Supported(dw.KH, dw.KW, dw.sh, dw.sw, dw.dh, dw.dw, dw.padTop, dw.padBottom,
                                            dw.padLeft, dw.padRight))
    return refuse(why, "the depthwise filter is not 3x3, stride 1 or 2, dilation 1, padding 0 or 1");
  // Where it pays (PointwiseDepthwise.h): a short 1x1 (its filter rows in
  // L1, the tile at 160-195 GFLOP/s) and an expanded tensor of 800 KiB or
  // more at stride 1, 1 MiB at stride 2: MobileNetV3-L's and MnasNet's
  // 56x56x72 (882 KiB) measured 10-15% faster fused at stride 1, V3-Small's
  // at stride 2 (our stride-2 rows against oneDNN's) no faster, nor
  // MobileNetV2's 28x28x192 (588 KiB).
  const int64_t expandedBytes = pw.OH * pw.OW * pw.O * 4;
  if (pw.C > 32) return refuse(why, "the 1x1 has more than 32 input channels");
  if (expandedBytes < (dw.sh == 1 ? int64_t(800) << 10 : int64_t(1) << 20))
    return refuse(why, "the expanded tensor is under 800 KiB (stride 1) or 1 MiB (stride 2)");
  PointwiseDepthwise p;
  p.pointwise.K = pw.C, p.pointwise.N = pw.O;
  p.pointwise.lo = pwLo, p.pointwise.hi = pwHi;
  p.pointwise.silu = pwSilu;
  p.dw.H = dw.H, p.dw.W = dw.W, p.dw.C = dw.C, p.dw.OH = dw.OH, p.dw.OW = dw.OW;
  p.dw.stride = dw.sh, p.dw.padTop = dw.padTop, p.dw.padLeft = dw.padLeft;
  p.dw.lo = lo, p.dw.hi = hi;
  p.silu = silu;
  return std::make_unique<PointwiseDepthwiseKernel>(pw, pwFi, hasBiasInput(producer), dw, dwFi, hasBiasInput(consumer),
                                                    producer.inputs.size(), p);
}

}  // namespace

// WEBNN_FUSE_POINTWISE_DEPTHWISE (DebugOptions.h).
bool pointwiseDepthwiseEnabled() { return debugOptions().fusePointwiseDepthwise.load(std::memory_order_relaxed); }
void setPointwiseDepthwiseEnabled(bool enabled) {
  debugOptions().fusePointwiseDepthwise.store(enabled, std::memory_order_relaxed);
}

Status makeConvolutionPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out) {
  out->reset();
  if (producer.op == "mul" && (consumer.op == "conv2d" || consumer.op == "fusedConv2d"))
    return makeScaledPointwisePairChoice(producer, consumer, out);
  if (isChannelAffineConv(producer) && (consumer.op == "conv2d" || consumer.op == "fusedConv2d"))
    return makeAffinePointwisePairChoice(producer, consumer, out);
  if (isDepthwise3x3Conv(producer) && (consumer.op == "conv2d" || consumer.op == "fusedConv2d"))
    return makeDepthwisePointwisePairChoice(producer, consumer, out);
  ConvGeometry pw, dw;
  FilterIndexer pwFi, dwFi;
  float pwLo, pwHi, lo, hi;
  bool pwSilu, silu;
  // Most adjacent nodes are not two convolutions: no report for those.
  if (!pairHalf(producer, &pw, &pwFi, &pwLo, &pwHi, &pwSilu) || !pairHalf(consumer, &dw, &dwFi, &lo, &hi, &silu))
    return Status::ok();
  std::string why;
  *out = makePair(producer, consumer, pw, pwFi, pwLo, pwHi, pwSilu, dw, dwFi, lo, hi, silu, &why);
  reportPairChoice(producer, consumer, kPairCandidate, *out != nullptr, why);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
