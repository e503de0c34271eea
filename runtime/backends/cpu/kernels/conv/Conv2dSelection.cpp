// Which kernel runs a conv2d or fusedConv2d node: one ordered table, tried
// top to bottom, the first candidate that takes the node making its kernel
// (KernelCandidates.h records why the ones before it refused). The order is
// measured, not alphabetical:
// - our AVX-512 depthwise 3x3 first at stride 1 (faster than oneDNN's
//   brdgmm_dw), after oneDNN at stride 2 (brdgmm_dw measured 5-25% faster);
//   5x5 likewise from 14 output columns up;
// - our pointwise and packed-SGEMM kernels for the shapes where they beat
//   oneDNN (each file says which and by how much), conv1d included, and
//   ours for grouped layers of 4 channels per group; the packed 1x1 from
//   784 output pixels up, and 14x14 expands, only after oneDNN, and the
//   narrow 1x1 to 16 channels from 64 at 784 pixels up likewise;
// - fusedConv2d "silu" on those kernels without activation, SiLU after
//   (the depthwise kernel applies it itself, row by row); "hardSwish" the
//   same way, a pass after the kernel;
// - oneDNN for the rest of what it optimizes (residual and activation as
//   post-ops, hardSwish included; SiLU is our pass after it), when built
//   with it;
// - after oneDNN, for what it refused (under its FLOP floor) or without it:
//   the narrow tiles and depthwise kernel as above, and the packed SGEMM for
//   any other plain 1x1 (ShuffleNetV2 x0.5's 48- and 96-channel 1x1s: the
//   portable kernel ran them 4-5x slower; one-pixel squeeze-excitation
//   1x1s, a sigmoid as a pass after it);
// - the portable kernel (im2col + SGEMM, direct depthwise) for everything
//   else: small layers, shapes oneDNN only has reference code for, builds
//   without oneDNN, float16.
// conv2d is fusedConv2d without residual or activation: the same table.
#include <cmath>
#include <string>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::kernels {
namespace {

struct ConvRequest {
  const NodeDesc &node;
  ConvGeometry g;
  FilterIndexer fi;
  bool fused = false;  // fusedConv2d (its epilogue below), else conv2d
  Epilogue e;
  // Our kernels' epilogue is a clamp: none, relu and clamp fit it, as [lo, hi].
  bool clampEpilogue = true;
  float lo = -INFINITY, hi = INFINITY;
};

// ConvRequest without its activation (the SiLU pass applies it after).
ConvRequest withoutActivation(const ConvRequest &r) {
  ConvRequest plain = r;
  plain.e.activation = ConvActivation::kNone;
  plain.clampEpilogue = true;
  plain.lo = -INFINITY, plain.hi = INFINITY;
  return plain;
}

int64_t outputCount(const ConvRequest &r) { return numElements(outputShape(r.g)); }

std::unique_ptr<Kernel> depthwiseAvx512(const ConvRequest &r, std::string *why) {
  if (r.e.hasResidual) return refuse(why, "has a residual");
  if (r.e.activation == ConvActivation::kHardSwish) {
    std::unique_ptr<Kernel> conv = makeDepthwiseAvx512Conv(r.node, r.g, r.fi, -INFINITY, INFINITY, false, why);
    if (!conv) return nullptr;
    return makeHardSwishPass(std::move(conv), outputCount(r));
  }
  bool silu = r.e.activation == ConvActivation::kSilu;
  if (!r.clampEpilogue && !silu) return refuse(why, "activation is not none, relu, clamp, silu or hardSwish");
  if (silu) return makeDepthwiseAvx512Conv(r.node, r.g, r.fi, -INFINITY, INFINITY, true, why);
  return makeDepthwiseAvx512Conv(r.node, r.g, r.fi, r.lo, r.hi, false, why);
}

std::unique_ptr<Kernel> depthwiseAvx512Stride1(const ConvRequest &r, std::string *why) {
  if (r.g.sh != 1) return refuse(why, "stride is not 1 (tried after oneDNN)");
  // 5x5 below 14 output columns: oneDNN's jit_dw measured faster there
  // (docs/PERFORMANCE.md, mobile nets).
  if (r.g.KH == 5 && r.g.OW < 14) return refuse(why, "5x5 with fewer than 14 output columns (tried after oneDNN)");
  return depthwiseAvx512(r, why);
}

std::unique_ptr<Kernel> pointwiseNarrowAnyPlan(const ConvRequest &r, std::string *why) {
  bool silu = r.e.activation == ConvActivation::kSilu;
  if (!r.clampEpilogue && !silu) return refuse(why, "activation is not none, relu, clamp or silu");
  if (silu) return makePointwiseNarrowConv(r.node, r.g, r.fi, r.e.hasResidual, -INFINITY, INFINITY, true, why);
  return makePointwiseNarrowConv(r.node, r.g, r.fi, r.e.hasResidual, r.lo, r.hi, false, why);
}

// A residual block end of 3136 output pixels (56x56) or more written over
// its dying residual (the arena plan's in-place output) is tried after
// oneDNN: brgconv_1x1's sum post-op then adds what y already holds, with no
// copy first, and ran ResNet-50's 56x56 64 -> 256 and ResNeXt-50's 128 ->
// 256 block ends 5-8% faster than the narrow tiles at 1 and 2 threads; at
// 28x28 (128 -> 512) the narrow tiles stayed even or ahead
// (docs/PERFORMANCE.md, issue 19). The same for the narrow projections of
// the mobile nets' 56x56 blocks (72 -> 24 in MobileNetV3-L and MnasNet,
// 144 -> 24 in MobileNetV2, 16 -> 16 in V3-L's first) ran 7-19% faster
// on oneDNN at 1 thread.
constexpr int64_t kNarrowResidualOverItAfterOneDnnPixels = 3136;

// A 1x1 to 16 output channels from 64 input channels or more over 784
// pixels (28x28) or more is tried after oneDNN: with one 16-channel vector
// per row the narrow tiles pay a broadcast load per FMA, and brgconv_1x1
// ran SqueezeNet's 55x55 64 -> 16 and 128 -> 16 and GoogLeNet's 28x28
// 192 -> 16 squeeze and reduce layers 5-25% faster (1 thread, warm and cold
// caches, and in the graph). 24 and 32 channels measured even, 14x14 mixed.
constexpr int64_t kNarrowSixteenAfterOneDnnPixels = 784;
constexpr int64_t kNarrowSixteenAfterOneDnnInputChannels = 64;

std::unique_ptr<Kernel> pointwiseNarrow(const ConvRequest &r, std::string *why) {
#if WEBNN_HAVE_ONEDNN
  if (r.g.O == 16 && r.g.C >= kNarrowSixteenAfterOneDnnInputChannels && !r.e.hasResidual &&
      r.g.N * r.g.H * r.g.W >= kNarrowSixteenAfterOneDnnPixels && onednn::policy().enabled)
    return refuse(why, "16 output channels from " + std::to_string(kNarrowSixteenAfterOneDnnInputChannels) +
                           " input channels or more over " + std::to_string(kNarrowSixteenAfterOneDnnPixels) +
                           " pixels or more (tried after oneDNN)");
  if (r.e.hasResidual && r.node.outputOverInput == 3 &&
      r.g.N * r.g.H * r.g.W >= kNarrowResidualOverItAfterOneDnnPixels && onednn::policy().enabled)
    return refuse(why, "a residual block end over its residual, " +
                           std::to_string(kNarrowResidualOverItAfterOneDnnPixels) +
                           " output pixels or more (tried after oneDNN)");
#endif
  return pointwiseNarrowAnyPlan(r, why);
}

std::unique_ptr<Kernel> pointwisePackedAnySize(const ConvRequest &r, std::string *why) {
  if (!r.clampEpilogue) return refuse(why, "activation is not none, relu or clamp");
  return makePointwisePackedConv(r.node, r.g, r.fi, r.lo, r.hi, /*againstOneDnn=*/true, why);
}

// After oneDNN refused a plain 1x1 (under its FLOP floor) or is absent: any
// shape, the portable kernel being all that is left.
std::unique_ptr<Kernel> pointwisePackedAfterOneDnn(const ConvRequest &r, std::string *why) {
  if (!r.clampEpilogue) return refuse(why, "activation is not none, relu or clamp");
  return makePointwisePackedConv(r.node, r.g, r.fi, r.lo, r.hi, /*againstOneDnn=*/false, why);
}

// The same for an activation our epilogues lack (sigmoid: a squeeze-
// excitation's second 1x1; silu, hardSwish): the packed SGEMM without it,
// then the pass after the convolution that the portable kernel runs too.
std::unique_ptr<Kernel> pointwisePackedThenEpilogueAfterOneDnn(const ConvRequest &r, std::string *why) {
  if (r.clampEpilogue) return refuse(why, "activation is none, relu or clamp (taken above)");
  std::unique_ptr<Kernel> conv =
      makePointwisePackedConv(r.node, r.g, r.fi, -INFINITY, INFINITY, /*againstOneDnn=*/false, why);
  if (!conv) return nullptr;
  return makeEpiloguePass(std::move(conv), r.e, outputCount(r));
}

// The packed 1x1 tried after oneDNN (docs/PERFORMANCE.md, issue 19):
// - from 784 output pixels (28x28) up, where brgconv_1x1 ran ResNeXt-50's
//   28x28 256 -> 512 block ends and 512 -> 512 faster at 1 and 2 threads:
//   input and output, which the packed walk re-reads per panel, outweigh
//   the filter it streams once;
// - with a residual from 196 pixels (14x14) up: the packed tiles read the
//   residual in their epilogue, 48 columns of 8 rows a row apart, from L3;
//   oneDNN's path copies it into y in one sequential pass and its sum
//   post-op then reads it from L2 (ResNet-50's and ResNeXt-50's 14x14 block
//   ends). At 7x7 the filter dominates and the packed SGEMM stays ahead.
// - an inverted-residual expand (<= 160 input channels) from 196 pixels
//   (14x14) up: with K that short each 8 x 48 tile stores and clamps its
//   accumulators after only K steps; brgconv_1x1 ran MnasNet's,
//   MobileNetV2's and MobileNetV3's 14x14 expands (96 or 112 -> 576 or
//   672) faster at 1 and 2 threads. At 7x7 (49 pixels) the filter
//   dominates and the packed tiles stay ahead.
constexpr int64_t kPackedPointwiseBeforeOneDnnPixels = 784;
constexpr int64_t kPackedResidualPointwiseBeforeOneDnnPixels = 196;
constexpr int64_t kPackedExpandBeforeOneDnnPixels = 196;
constexpr int64_t kPackedExpandMaxInputChannels = 160;

std::unique_ptr<Kernel> pointwisePacked(const ConvRequest &r, std::string *why) {
  const int64_t pixels = r.g.N * r.g.H * r.g.W;
  if (plainPointwise(r.g) && pixels >= kPackedPointwiseBeforeOneDnnPixels)
    return refuse(why, std::to_string(kPackedPointwiseBeforeOneDnnPixels) +
                           " output pixels or more (tried after oneDNN)");
  if (plainPointwise(r.g) && r.e.hasResidual && pixels >= kPackedResidualPointwiseBeforeOneDnnPixels)
    return refuse(why, "a residual and " + std::to_string(kPackedResidualPointwiseBeforeOneDnnPixels) +
                           " output pixels or more (tried after oneDNN)");
  if (plainPointwise(r.g) && r.g.C <= kPackedExpandMaxInputChannels && pixels >= kPackedExpandBeforeOneDnnPixels)
    return refuse(why, "<= " + std::to_string(kPackedExpandMaxInputChannels) + " input channels and " +
                           std::to_string(kPackedExpandBeforeOneDnnPixels) +
                           " output pixels or more (tried after oneDNN)");
  return pointwisePackedAnySize(r, why);
}

std::unique_ptr<Kernel> im2colPacked(const ConvRequest &r, std::string *why) {
  if (!r.clampEpilogue) return refuse(why, "activation is not none, relu or clamp");
  return makeIm2colPackedConv(r.node, r.g, r.fi, r.lo, r.hi, why);
}

std::unique_ptr<Kernel> rowWindowPacked(const ConvRequest &r, std::string *why) {
  if (!r.clampEpilogue) return refuse(why, "activation is not none, relu or clamp");
  return makeRowWindowPackedConv(r.node, r.g, r.fi, r.lo, r.hi, why);
}

std::unique_ptr<Kernel> groupedNarrow(const ConvRequest &r, std::string *why) {
  if (r.e.hasResidual) return refuse(why, "has a residual");
  if (!r.clampEpilogue) return refuse(why, "activation is not none, relu or clamp");
  return makeGroupedNarrowConv(r.node, r.g, r.fi, r.lo, r.hi, why);
}

// Our kernels that take a layer before oneDNN would, without activation:
// the SiLU pass's inner table.
const KernelCandidate<ConvRequest> kOwnKernels[] = {
    {"depthwise-avx512", &depthwiseAvx512Stride1},
    {"pointwise-narrow", &pointwiseNarrow},
    {"pointwise-packed-sgemm", &pointwisePacked},
    {"im2col-packed-sgemm", &im2colPacked},
    {"row-window-packed-sgemm", &rowWindowPacked},
    {"grouped-narrow-avx512", &groupedNarrow},
};

// "a: why; b: why" of an inner table's refusals.
std::string refusals(const KernelChoice &c) {
  std::string s;
  for (const auto &r : c.refused) s += (s.empty() ? "" : "; ") + r.first + ": " + r.second;
  return s;
}

// The first of our kernels that takes `r` without activation, then `pass`.
std::unique_ptr<Kernel> ownKernelThenPass(const ConvRequest &r, std::string *why,
                                          std::unique_ptr<Kernel> (*pass)(std::unique_ptr<Kernel>, int64_t)) {
  KernelChoice inner;
  std::unique_ptr<Kernel> conv = chooseKernel(kOwnKernels, withoutActivation(r), &inner);
  if (!conv) return refuse(why, "none of our kernels takes it without activation (" + refusals(inner) + ")");
  *why = inner.chosen;
  return pass(std::move(conv), outputCount(r));
}

std::unique_ptr<Kernel> siluAfterOwnKernel(const ConvRequest &r, std::string *why) {
  if (r.e.activation != ConvActivation::kSilu) return refuse(why, "activation is not silu");
  return ownKernelThenPass(r, why, &makeSiluPass);
}

// hardSwish after a 1x1 our tiles or the packed SGEMM take (oneDNN has it
// as a post-op, for the layers those kernels refuse).
std::unique_ptr<Kernel> hardSwishAfterOwnKernel(const ConvRequest &r, std::string *why) {
  if (r.e.activation != ConvActivation::kHardSwish) return refuse(why, "activation is not hardSwish");
  return ownKernelThenPass(r, why, &makeHardSwishPass);
}

#if WEBNN_HAVE_ONEDNN
std::unique_ptr<Kernel> oneDnn(const ConvRequest &r, std::string *why) {
  if (r.fused) return makeOneDnnConv(r.node, r.g, r.fi, &r.e, &makeFusedConv2dPortable, why);
  return makeOneDnnConv(r.node, r.g, r.fi, nullptr, &makeConv2dPortable, why);
}

// oneDNN's swish post-op measured slower than the convolution alone and then
// our SiLU pass (docs/FUSED_OPS.md has the figures).
std::unique_ptr<Kernel> siluAfterOneDnn(const ConvRequest &r, std::string *why) {
  if (r.e.activation != ConvActivation::kSilu) return refuse(why, "activation is not silu");
  std::unique_ptr<Kernel> conv = oneDnn(withoutActivation(r), why);
  if (!conv) return nullptr;
  return makeSiluPass(std::move(conv), outputCount(r));
}
#endif

std::unique_ptr<Kernel> portable(const ConvRequest &r, std::string *why) {
  std::unique_ptr<Kernel> k;
  Status s = r.fused ? makeFusedConv2dPortable(r.node, &k) : makeConv2dPortable(r.node, &k);
  if (!s.isOk()) return refuse(why, s.message());
  return k;
}

const KernelCandidate<ConvRequest> kConv2dCandidates[] = {
    {"depthwise-avx512", &depthwiseAvx512Stride1},
    {"pointwise-narrow", &pointwiseNarrow},
    {"pointwise-packed-sgemm", &pointwisePacked},
    {"im2col-packed-sgemm", &im2colPacked},
    {"row-window-packed-sgemm", &rowWindowPacked},
    {"grouped-narrow-avx512", &groupedNarrow},
    {"silu-after-own-kernel", &siluAfterOwnKernel},
    {"hardswish-after-own-kernel", &hardSwishAfterOwnKernel},
#if WEBNN_HAVE_ONEDNN
    {"silu-after-onednn", &siluAfterOneDnn},
    {"onednn", &oneDnn},
#endif
    {"pointwise-narrow-after-onednn", &pointwiseNarrowAnyPlan},
    {"depthwise-avx512-after-onednn", &depthwiseAvx512},
    {"pointwise-packed-sgemm-after-onednn", &pointwisePackedAfterOneDnn},
    {"pointwise-packed-sgemm-then-epilogue-after-onednn", &pointwisePackedThenEpilogueAfterOneDnn},
    {"portable", &portable},
};

Status chooseConv2dKernel(ConvRequest &request, std::unique_ptr<Kernel> *out) {
  KernelChoice choice;
  choice.op = request.node.op;
  choice.node = request.node.name;
  *out = chooseKernel(kConv2dCandidates, request, &choice);
  reportKernelChoice(choice);
  if (!*out) return nodeError(request.node, "no conv2d kernel takes it: " + choice.describe());
  return Status::ok();
}

Status makeConv2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvRequest r{node};
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &r.g, &r.fi));
  return chooseConv2dKernel(r, out);
}

Status makeFusedConv2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvRequest r{node};
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &r.g, &r.fi, 4));
  WEBNN_RETURN_IF_ERROR(readEpilogue(node, r.g, &r.e));
  // float16: converted to float32 around the float32 kernel (oneDNN 2.6 has
  // no float16 post-ops on this CPU class).
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeFusedConv2d, out);
  r.fused = true;
  const ConvActivation a = r.e.activation;
  r.clampEpilogue = a != ConvActivation::kSigmoid && a != ConvActivation::kSilu && a != ConvActivation::kHardSwish;
  r.lo = a == ConvActivation::kRelu ? 0.f : r.e.clampMin;
  r.hi = a == ConvActivation::kRelu ? INFINITY : r.e.clampMax;
  if (a == ConvActivation::kNone) r.lo = -INFINITY, r.hi = INFINITY;
  return chooseConv2dKernel(r, out);
}

}  // namespace

void registerConvolutionKernels(KernelTable &t) {
  t.add("conv2d", &makeConv2d);
  t.add("fusedConv2d", &makeFusedConv2d);
  t.add("convTranspose2d", &makeConvTranspose2d);
}

}  // namespace webnn::cpu::kernels
