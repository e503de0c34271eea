// A plain pointwise, ungrouped convolution in nhwc is the GEMM of the
// [N * H * W, C] input with the [C, O] filter: the packed-B kernel
// (PackedSgemm.h), bias, residual and the ReLU/clamp in its epilogue.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include "runtime/backends/cpu/kernels/PackedSgemm.h"

namespace webnn::cpu::kernels {

std::unique_ptr<Kernel> makePointwisePackedConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                float lo, float hi, bool againstOneDnn, std::string *why) {
  if (!g.nhwc) return refuse(why, "not nhwc");
  if (!plainPointwise(g)) return refuse(why, "not 1x1, stride 1, unpadded");
  if (g.groups != 1) return refuse(why, "grouped");
  if (!packedSgemmApplies(node)) return refuse(why, "the packed SGEMM does not apply (" + packedSgemmRefusal(node) + ")");
  PackedProduct p;
  p.M = g.N * g.H * g.W;
  p.K = g.C;
  p.N = g.O;
  // Measured per layer against brgconv_1x1 (ResNet-50, MobileNetV2, 1
  // thread, Intel AVX-512 VM): 5-10% faster from 784 pixels down with >= 512
  // output channels (cold weights dominate; the 48-column panels waste <= 3%);
  // slower at 56x56 and up (output streams past L2) and with 64-160 output
  // channels (up to half a panel computed for nothing). At 7x7 (64 pixels
  // or fewer) the filter is nearly all the traffic from 192 output channels
  // up too: the 7x7 projections and 1x1s of MnasNet, EfficientNet-B0,
  // MobileNetV2, GoogLeNet, RegNetY-400MF and ShuffleNetV2 (192-440
  // channels, K 232-1152) ran faster here than on brgconv_1x1.
  // Without `againstOneDnn` oneDNN refused the layer (under its FLOP floor:
  // ShuffleNetV2 x0.5's 14x14 48 -> 48 and 7x7 96 -> 96) or is absent, and
  // the alternative is the portable im2col + SGEMM, 4-5x slower on those.
  constexpr int64_t kFewPixels = 64, kMinChannelsFewPixels = 192, kMinChannels = 512;
  if (againstOneDnn && p.M > 1024) return refuse(why, "more than 1024 pixels");
  if (againstOneDnn && p.M <= kFewPixels && p.N < kMinChannelsFewPixels)
    return refuse(why, "fewer than 192 output channels at 64 pixels or fewer");
  if (againstOneDnn && p.M > kFewPixels && p.N < kMinChannels)
    return refuse(why, "fewer than 512 output channels over 64 pixels");
  // After oneDNN also the one-pixel GEMVs it leaves to the portable kernel
  // under its floor (RegNetY-400MF's squeeze-excitation 208 -> 52 with ReLU,
  // 43 KB of filter): that one packs the filter on every run.
  if (againstOneDnn ? !packedSgemmSuits(p.M, p.K, p.N) : p.K < 8 || p.N < 8)
    return refuse(why, "too small for the packed SGEMM");
  p.bKStride = fi.si;  // b(k = input channel, n = output channel)
  p.bNStride = fi.so;
  p.lo = lo;
  p.hi = hi;
  p.splitRows = true;
  return makePackedSgemmKernel(node, p);
}

}  // namespace webnn::cpu::kernels
