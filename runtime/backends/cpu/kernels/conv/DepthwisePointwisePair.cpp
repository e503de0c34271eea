// A depthwise 3x3 stride-1 convolution and the narrow 1x1 convolution
// that alone reads it (MobileNetV2's and MnasNet's 112x112x32 -> 16 first
// block) as one kernel: each thread computes two depthwise output rows
// into a buffer that stays in L1 (Depthwise.h's two-row tiles), then
// projects them with the register tiles of Pointwise.h, so the depthwise
// output (1.6 MB there) is never written to memory and read back.
//
// The arena plan knows nothing of pairs: the 1x1's output may be placed
// over x's bytes, x dying at the depthwise node. Then the two steps run
// apart, the depthwise output in the intermediate's own arena bytes (live
// at both nodes, so apart from either).
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/Pointwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::kernels {
namespace {

// Depthwise output rows computed and projected at a time: the 3x3 stride-1
// tiles make two rows from four input rows.
constexpr int64_t kBlockRows = 2;

// Run-time inputs: the depthwise node's (x, filter, bias?), then the 1x1's
// (the intermediate, unused unless apart; filter, bias?).
class DepthwisePointwiseKernel final : public Kernel {
 public:
  DepthwisePointwiseKernel(ConvGeometry dw, FilterIndexer dwFilter, bool dwBias, ConvGeometry pw,
                           FilterIndexer pwFilter, bool pwBias, size_t dwInputs, Depthwise3x3 d, PointwiseProduct p)
      : dw_(dw), pw_(pw), dwFilter_(dwFilter), pwFilter_(pwFilter), dwBias_(dwBias), pwBias_(pwBias),
        dwInputs_(dwInputs), d_(d), p_(p) {}

  Status run(const KernelContext &ctx) override {
    // Filters as [3][3][C] and [C][O], made on the first run (loading must
    // not touch the mmapped weights); a run that cannot get their memory
    // fails, and the next one tries again. Runs are one at a time.
    if (!prepared_) {
      if (!depthwise_.resize(size_t(9 * dw_.C)) || !pointwise_.resize(size_t(pw_.C * pw_.O)))
        return Status(StatusCode::kOutOfMemory, "depthwise + 1x1 conv2d: cannot allocate the packed filters");
      reorderDepthwiseFilter(in<float>(ctx, 1), dwFilter_, dw_.C, 3, depthwise_.data());
      reorderPointwiseFilter(in<float>(ctx, dwInputs_ + 1), pwFilter_, pw_.C, pw_.O, pointwise_.data());
      prepared_ = true;
    }
    Depthwise3x3 d = d_;
    d.filter = depthwise_.data();
    d.bias = dwBias_ ? in<float>(ctx, 2) : nullptr;
    PointwiseProduct p = p_;
    p.filter = pointwise_.data();
    p.bias = pwBias_ ? in<float>(ctx, dwInputs_ + 2) : nullptr;
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    const int64_t inImage = dw_.H * dw_.W * dw_.C, midRow = dw_.OW * dw_.C, outRow = pw_.W * pw_.O;
    if (pairOutputOverlaps(x, size_t(dw_.N * inImage) * sizeof(float), y,
                           size_t(pw_.N * pw_.H * outRow) * sizeof(float)))
      return runApart(ctx, d, p, x, y);
    const int64_t blocks = (dw_.OH + kBlockRows - 1) / kBlockRows;
    const int64_t blockFlops = kBlockRows * dw_.OW * (18 * dw_.C + 2 * pw_.C * pw_.O);
    std::atomic<bool> noBuffer{false};
    parallelFor(ctx, dw_.N * blocks, std::max<int64_t>(1, 200000 / blockFlops), [&](int64_t b, int64_t e) {
      float *mid = threadBuffer(kBlockRows * midRow);
      if (!mid) {
        noBuffer.store(true, std::memory_order_relaxed);
        return;
      }
      for (int64_t i = b; i < e; ++i) {
        const int64_t n = i / blocks, oh0 = (i % blocks) * kBlockRows, oh1 = std::min(dw_.OH, oh0 + kBlockRows);
        // Rows [oh0, oh1) as their own image: the input rows they read
        // (rows past the real image are the kernel's zero padding).
        const int64_t top = oh0 - dw_.padTop, first = std::max<int64_t>(0, top);
        const int64_t last = std::min(dw_.H - 1, oh1 - 1 - dw_.padTop + 2);
        Depthwise3x3 rows = d;
        rows.H = last - first + 1, rows.OH = oh1 - oh0, rows.padTop = first - top;
        depthwise3x3Avx512(rows, x + n * inImage + first * dw_.W * dw_.C, mid, 0, rows.OH);
        pointwiseRowsAvx512(p, mid, (oh1 - oh0) * dw_.OW, y + (n * pw_.H + oh0) * outRow);
      }
    });
    if (noBuffer.load(std::memory_order_relaxed))
      return Status(StatusCode::kOutOfMemory, "depthwise + 1x1 conv2d: cannot allocate a thread's row buffer");
    return Status::ok();
  }

 private:
  // The depthwise step into the intermediate's bytes, then the 1x1 from them.
  Status runApart(const KernelContext &ctx, const Depthwise3x3 &d, const PointwiseProduct &p, const float *x,
                  float *y) {
    float *mid;
    WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, dwInputs_, "depthwise + 1x1 conv2d", &mid));
    const int64_t inImage = dw_.H * dw_.W * dw_.C, midImage = dw_.OH * dw_.OW * dw_.C;
    const int64_t outImage = pw_.H * pw_.W * pw_.O;
    for (int64_t n = 0; n < dw_.N; ++n) {
      parallelFor(ctx, dw_.OH, 2,
                  [&](int64_t b, int64_t e) { depthwise3x3Avx512(d, x + n * inImage, mid + n * midImage, b, e); });
      pointwiseRowsParallel(ctx, p, mid + n * midImage, pw_.H * pw_.W, y + n * outImage);
    }
    return Status::ok();
  }

  // One buffer per thread, kept across runs (grown on a thread's first
  // run); null when that memory is refused.
  static float *threadBuffer(int64_t floats) {
    thread_local AlignedFloats buffer;
    if (buffer.size() < size_t(floats) && !buffer.resize(size_t(floats))) return nullptr;
    return buffer.data();
  }

  ConvGeometry dw_, pw_;
  FilterIndexer dwFilter_, pwFilter_;
  bool dwBias_, pwBias_;
  size_t dwInputs_;
  Depthwise3x3 d_;
  PointwiseProduct p_;
  bool prepared_ = false;
  AlignedFloats depthwise_, pointwise_;
};

constexpr const char *kCandidate = "depthwise-pointwise pair";

// clampConv's halves, unless a relaxed run takes them to bf16.
bool clampHalf(const NodeDesc &node, ConvGeometry *g, FilterIndexer *fi, float *lo, float *hi) {
  return !relaxedRunsBf16(node) && clampConv(node, g, fi, lo, hi);
}

}  // namespace

bool isDepthwise3x3Conv(const NodeDesc &node) {
  ConvGeometry g;
  FilterIndexer fi;
  if (node.op != "conv2d" && node.op != "fusedConv2d") return false;
  if (!checkConv2d(node, &g, &fi, node.op == "conv2d" ? 3 : 4).isOk()) return false;
  return g.groups == g.C && g.O == g.C && g.KH == 3 && g.KW == 3;
}

std::unique_ptr<Kernel> makeDepthwisePointwisePair(const NodeDesc &dwNode, const NodeDesc &conv, std::string *why) {
  ConvGeometry dw, pw;
  FilterIndexer dwFi, pwFi;
  float lo, hi, pwLo, pwHi;
  if (!avx512Available()) return refuse(why, "no AVX-512");
  if (!depthwiseAvx512Enabled()) return refuse(why, "off (WEBNN_DEPTHWISE_AVX512=0)");
  if (!pointwiseNarrowEnabled()) return refuse(why, "off (WEBNN_POINTWISE_NARROW=0)");
  if (!clampHalf(dwNode, &dw, &dwFi, &lo, &hi))
    return refuse(why, "the producer is not a float32 nhwc depthwise convolution with a clamp epilogue");
  // A residual 1x1 (MobileNetV3's first block) is left to the two kernels:
  // its residual is x, the plan puts y over it, and the steps apart
  // measured slower than the two nodes' own kernels (LR-ASPP's backbone.1).
  if (!clampHalf(conv, &pw, &pwFi, &pwLo, &pwHi))
    return refuse(why,
                  "the consumer is not a float32 nhwc convolution with a clamp epilogue, constant operands and no "
                  "residual");
  if (dw.groups != dw.C || dw.O != dw.C || dw.KH != 3 || dw.sh != 1 ||
      !depthwise3x3Supported(dw.KH, dw.KW, dw.sh, dw.sw, dw.dh, dw.dw, dw.padTop, dw.padBottom, dw.padLeft,
                             dw.padRight))
    return refuse(why, "the producer is not a depthwise 3x3, stride 1, dilation 1, padding 0 or 1");
  if (!plainPointwise(pw) || pw.groups != 1) return refuse(why, "the consumer is not an ungrouped plain 1x1");
  if (pw.N != dw.N || pw.H != dw.OH || pw.W != dw.OW || pw.C != dw.C)
    return refuse(why, "the 1x1 does not read the depthwise output");
  if (dwNode.outputs[0]->rowPitch || dwNode.inputs[0]->rowPitch || conv.outputs[0]->rowPitch)
    return refuse(why, "a strided operand");
  // Where it pays: a narrow 1x1 (its filter in L1, the tiles of the narrow
  // 1x1 kernel) after a depthwise output larger than L2's share.
  if (pw.O > 32) return refuse(why, "the 1x1 has more than 32 output channels");
  if (dw.OH * dw.OW * dw.C * 4 < (int64_t(1) << 20)) return refuse(why, "the depthwise output is under 1 MiB");
  Depthwise3x3 d;
  d.H = dw.H, d.W = dw.W, d.C = dw.C, d.OH = dw.OH, d.OW = dw.OW;
  d.ks = 3, d.stride = 1, d.padTop = dw.padTop, d.padLeft = dw.padLeft;
  d.lo = lo, d.hi = hi;
  PointwiseProduct p;
  p.K = pw.C, p.N = pw.O;
  p.lo = pwLo, p.hi = pwHi;
  return std::make_unique<DepthwisePointwiseKernel>(dw, dwFi, hasBiasInput(dwNode), pw, pwFi, hasBiasInput(conv),
                                                    dwNode.inputs.size(), d, p);
}

Status makeDepthwisePointwisePairChoice(const NodeDesc &dwNode, const NodeDesc &conv, std::unique_ptr<Kernel> *out) {
  std::string why;
  *out = makeDepthwisePointwisePair(dwNode, conv, &why);
  reportPairChoice(dwNode, conv, kCandidate, *out != nullptr, why);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
