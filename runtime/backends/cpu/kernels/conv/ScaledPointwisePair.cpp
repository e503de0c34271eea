// A squeeze-excitation block's channel scale and the 1x1 convolution after
// it as one kernel: conv1x1(x * s) = x (diag(s) W), so each run scales the
// [C][O] filter by s (C x O multiplies) instead of writing x * s and reading
// it back (H x W x C floats each way), then runs the narrow pointwise tiles
// (Pointwise.h) on x. The executor offers the two adjacent nodes
// (makeCpuKernelPair): a float32 mul of an nhwc tensor by one value per
// channel (per image), whose product only the 1x1 reads.
//
// Why: EfficientNet-B0's SE muls before its narrow projections (112x112x32,
// 56x56x96, 56x56x144) each read and write the whole map, where scaling the
// filter is 0.5-3.5k multiplies.
//
// The arena plan knows nothing of pairs: x dies at the mul, so the 1x1's
// output may be placed over x's bytes (RegNetY-400MF's block2 does). Then
// the kernel runs the two steps apart, the product in the intermediate's
// own arena bytes (live at both nodes, so apart from the output).
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/Pointwise.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

// Run-time inputs: the mul's two (x and s, in either order), then the
// conv's (the product, unused; filter, bias?, residual?).
class ScaledPointwiseKernel final : public Kernel {
 public:
  ScaledPointwiseKernel(const NodeDesc &conv, const ConvGeometry &g, const FilterIndexer &fi, size_t xInput,
                        bool perImageScale, size_t convInputs, float lo, float hi, bool silu)
      : g_(g), fi_(fi), xInput_(xInput), perImageScale_(perImageScale), convInputs_(convInputs),
        hasBias_(hasBiasInput(conv)), hasResidual_(conv.inputs.size() > 3 && conv.inputs[3]), lo_(lo), hi_(hi),
        silu_(silu) {
    const std::string layout = "webnn.pointwise_kn." + std::to_string(g.C) + "x" + std::to_string(g.O);
    for (const PackedOperand &po : conv.packed)
      if (po.input == 1 && po.layout == layout && po.bytes == uint64_t(g.C * g.O) * sizeof(float))
        prepacked_ = static_cast<const float *>(po.data);
  }

  // y over the conv's residual (its run-time input convInputs_ + 3): the
  // narrow tiles load each element's residual just before storing it.
  bool allowsInPlace(size_t output, size_t input) const override {
    return output == 0 && hasResidual_ && input == convInputs_ + 3;
  }

  Status run(const KernelContext &ctx) override {
    const size_t n = size_t(g_.C * g_.O);
    const int64_t M = g_.H * g_.W, scales = perImageScale_ ? g_.N : 1;
    // The [C][O] filter (prepacked, or reordered on the first run: loading
    // must not touch the mmapped weights) and the buffer for its scaled
    // copy. A run refused the memory fails, the next retries; runs are one
    // at a time.
    if (!prepared_) {
      if (!scaled_.resize(n) || !scale_.resize(size_t(scales * g_.C)) || (!prepacked_ && !filter_.resize(n)))
        return Status(StatusCode::kOutOfMemory, "scaled 1x1 conv2d: cannot allocate the filter copies");
      if (!prepacked_) reorderPointwiseFilter(in<float>(ctx, convInputs_ + 1), fi_, g_.C, g_.O, filter_.data());
      prepared_ = true;
    }
    const float *filter = prepacked_ ? prepacked_ : filter_.data();
    const float *x = in<float>(ctx, xInput_);
    const float *r = hasResidual_ ? in<float>(ctx, convInputs_ + 3) : nullptr;
    float *y = outp<float>(ctx, 0);
    // s may share bytes with y too (it dies at the mul): read it first.
    std::memcpy(scale_.data(), in<float>(ctx, 1 - xInput_), size_t(scales * g_.C) * sizeof(float));
    const float *s = scale_.data();
    float *product = nullptr;
    if (pairOutputOverlaps(x, size_t(g_.N * M * g_.C) * sizeof(float), y, size_t(g_.N * M * g_.O) * sizeof(float)))
      WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, convInputs_, "scaled 1x1 conv2d", &product));
    PointwiseProduct p;
    p.K = g_.C, p.N = g_.O;
    p.filter = product ? filter : scaled_.data();
    p.bias = hasBias_ ? in<float>(ctx, convInputs_ + 2) : nullptr;
    p.lo = lo_, p.hi = hi_;
    p.silu = silu_;
    if (product) {
      // The two steps apart: x * s into the product's bytes (over x itself
      // where the plan put it there: element for element), then the 1x1.
      parallelFor(ctx, g_.N * M, std::max<int64_t>(1, 16384 / g_.C), [&](int64_t b, int64_t e) {
        for (int64_t m = b; m < e; ++m) {
          const float *si = s + (perImageScale_ ? m / M * g_.C : 0);
          for (int64_t c = 0; c < g_.C; ++c) product[m * g_.C + c] = x[m * g_.C + c] * si[c];
        }
      });
      x = product;
    }
    for (int64_t img = 0; img < g_.N; ++img) {
      if (!product && (img == 0 || perImageScale_)) {
        const float *si = s + (perImageScale_ ? img * g_.C : 0);
        for (int64_t k = 0; k < g_.C; ++k)
          for (int64_t o = 0; o < g_.O; ++o) scaled_.data()[k * g_.O + o] = filter[k * g_.O + o] * si[k];
      }
      pointwiseRowsParallel(ctx, p, x + img * M * g_.C, M, y + img * M * g_.O, r ? r + img * M * g_.O : nullptr);
    }
    return Status::ok();
  }

 private:
  ConvGeometry g_;
  FilterIndexer fi_;
  size_t xInput_;
  bool perImageScale_;
  size_t convInputs_;
  bool hasBias_, hasResidual_;
  float lo_, hi_;
  bool silu_;
  const float *prepacked_ = nullptr;
  bool prepared_ = false;
  AlignedFloats filter_, scaled_, scale_;
};

constexpr const char *kCandidate = "scaled-pointwise pair";

}  // namespace

std::unique_ptr<Kernel> makeScaledPointwisePair(const NodeDesc &mul, const NodeDesc &conv, std::string *why) {
  ConvGeometry g;
  FilterIndexer fi;
  if (!checkConv2d(conv, &g, &fi, conv.op == "conv2d" ? 3 : 4).isOk()) return refuse(why, "the conv2d is not valid");
  Epilogue e;
  if (conv.op == "fusedConv2d" && !readEpilogue(conv, g, &e).isOk()) return refuse(why, "the epilogue is not valid");
  if (e.activation == ConvActivation::kSigmoid || e.activation == ConvActivation::kHardSwish)
    return refuse(why, "the activation is sigmoid or hardSwish");
  const bool silu = e.activation == ConvActivation::kSilu;
  float lo = e.activation == ConvActivation::kRelu ? 0.f : e.clampMin;
  float hi = e.activation == ConvActivation::kRelu ? INFINITY : e.clampMax;
  if (e.activation == ConvActivation::kNone || silu) lo = -INFINITY, hi = INFINITY;
  if (mul.inputs.size() != 2 || !mul.inputs[0] || !mul.inputs[1] || mul.outputs.size() != 1)
    return refuse(why, "the mul does not have two inputs and one output");
  const Shape x = {g.N, g.H, g.W, g.C};
  size_t xInput = 0;
  if (mul.inputs[0]->shape != x) xInput = 1;
  const OperandDesc &xs = *mul.inputs[xInput], &ss = *mul.inputs[1 - xInput];
  if (!g.nhwc || xs.shape != x || mul.outputs[0]->shape != x)
    return refuse(why, "the mul's product is not the nhwc input of the conv2d, of one operand's shape");
  if (xs.dtype != DataType::kFloat32 || ss.dtype != DataType::kFloat32)
    return refuse(why, "the mul is not float32");
  const bool perImage = ss.shape == Shape{g.N, 1, 1, g.C};
  if (!perImage && ss.shape != Shape{1, 1, 1, g.C})
    return refuse(why, "the scale is not one value per channel ([N or 1, 1, 1, C])");
  if (conv.inputs.size() > 2 && conv.inputs[2] && !conv.inputs[2]->constantData)
    return refuse(why, "the bias is not constant");
  // Where the narrow tiles take the 1x1 alone (their checks and shape rules).
  std::string narrowWhy;
  if (!makePointwiseNarrowConv(conv, g, fi, e.hasResidual, lo, hi, silu, &narrowWhy))
    return refuse(why, "the 1x1 is not one for the narrow pointwise tiles (" + narrowWhy + ")");
  // Scaling the filter must cost less than the product it replaces.
  if (g.C * g.O > g.H * g.W * g.C) return refuse(why, "the filter is larger than the product");
  return std::make_unique<ScaledPointwiseKernel>(conv, g, fi, xInput, perImage && g.N > 1, mul.inputs.size(), lo, hi,
                                                 silu);
}

Status makeScaledPointwisePairChoice(const NodeDesc &mul, const NodeDesc &conv, std::unique_ptr<Kernel> *out) {
  std::string why;
  *out = makeScaledPointwisePair(mul, conv, &why);
  reportPairChoice(mul, conv, kCandidate, *out != nullptr, why);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
