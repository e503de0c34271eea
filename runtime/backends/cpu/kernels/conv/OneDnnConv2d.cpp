// conv2d / fusedConv2d on oneDNN (onednn/Conv2d.cpp): the residual and the
// activation are post-ops of the one convolution primitive. Taken for layers
// large enough to pay for it that our own kernels before it in the table
// leave; oneDNN refuses shapes it has only reference code for (its reason is
// the refusal). The portable kernel is kept for a primitive oneDNN cannot
// build on the first run.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#if WEBNN_HAVE_ONEDNN
#include <string>
#include <utility>

#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/RowPitch.h"
#include "runtime/backends/cpu/onednn/DeferredKernel.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::kernels {
namespace {

// The portable kernels, on dense copies of a strided output: the fallback
// of a oneDNN kernel that writes a concat slice itself.
Status makeConv2dPortableThroughDense(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  return makeRowPitchAdapter(node, &makeConv2dPortable, out);
}
Status makeFusedConv2dPortableThroughDense(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  return makeRowPitchAdapter(node, &makeFusedConv2dPortable, out);
}

class OneDnnConv2dKernel final : public Kernel {
 public:
  OneDnnConv2dKernel(std::unique_ptr<onednn::Conv2d> conv, const NodeDesc &node, KernelFactory portable,
                     bool writesSlice)
      : conv_(std::move(conv)), fallback_(node, portable), filter_(node.inputs[1]->constantData),
        writesSlice_(writesSlice) {}

  Status run(const KernelContext &ctx) override {
    if (!useFallback_) {
      const TensorBuffer *bias = ctx.numInputs > 2 ? ctx.inputs[2] : nullptr;
      const TensorBuffer *residual = ctx.numInputs > 3 ? ctx.inputs[3] : nullptr;  // fusedConv2d
      Status s = conv_->run(ctx.inputs[0]->data, ctx.inputs[1]->data, bias ? bias->data : nullptr,
                            ctx.outputs[0]->data, threadPool(ctx), residual ? residual->data : nullptr);
      if (s.isOk()) return s;
      useFallback_ = true;
      refused_ = s.message();
    }
    return fallback_.run(ctx, refused_);
  }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    if (!filter_) return Status::ok();
    return onednn::packOperand(
        1, [&] { return conv_->packedFilterLayout(numThreads); },
        [&] { return conv_->packedFilterBytes(numThreads); },
        [&](void *dst) { conv_->packFilter(filter_, dst, numThreads); }, out);
  }

  void warmUp(int numThreads) override { conv_->buildPrimitive(numThreads); }
  bool honoursRowPitch() const override { return writesSlice_; }
  // y over its residual (input 3): the sum post-op adds what y holds, so
  // onednn::Conv2d skips its copy (or reads the residual into its blocked
  // workspace first); the portable fallback copies it aside.
  bool allowsInPlace(size_t output, size_t input) const override { return output == 0 && input == 3; }

 private:
  std::unique_ptr<onednn::Conv2d> conv_;
  onednn::DeferredKernel fallback_;
  const void *filter_;  // constant filter, else null
  bool writesSlice_;    // y is a concat slice, written at its pitch
  bool useFallback_ = false;
  std::string refused_;  // oneDNN's reason, once it gave up
};

onednn::Conv2dParams oneDnnParams(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi) {
  onednn::Conv2dParams p;
  p.dtype = node.inputs[0]->dtype;
  p.nhwc = g.nhwc;
  p.N = g.N, p.C = g.C, p.H = g.H, p.W = g.W, p.O = g.O, p.OH = g.OH, p.OW = g.OW;
  p.KH = g.KH, p.KW = g.KW, p.groups = g.groups;
  p.strideH = g.sh, p.strideW = g.sw, p.dilationH = g.dh, p.dilationW = g.dw;
  p.padTop = g.padTop, p.padBottom = g.padBottom, p.padLeft = g.padLeft, p.padRight = g.padRight;
  p.filterStrideO = fi.so, p.filterStrideI = fi.si, p.filterStrideH = fi.sh, p.filterStrideW = fi.sw;
  p.hasBias = node.inputs.size() > 2 && node.inputs[2];
  p.constantFilter = node.inputs[1]->constantData != nullptr;
  p.bf16 = node.relaxedPrecision;
  p.packedFilter = onednn::packedOperands(node, 1);
  return p;
}

// Whether y, a concat slice (a strided output), is written at its pitch by
// the primitive's destination reorder (Conv2dParams::dstPixelPitch): nhwc
// float32 without a residual (whose sum post-op reads y densely), from a
// dense x.
bool writesSliceItself(const NodeDesc &node, const ConvGeometry &g, const Epilogue *epilogue) {
  for (const OperandDesc *in : node.inputs)
    if (in && in->rowPitch) return false;
  return node.outputs[0]->rowPitch && g.nhwc && node.inputs[0]->dtype == DataType::kFloat32 &&
         !(epilogue && epilogue->hasResidual);
}

}  // namespace

std::unique_ptr<Kernel> makeOneDnnConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                       const Epilogue *epilogue, KernelFactory portable, std::string *why) {
  onednn::Conv2dParams p = oneDnnParams(node, g, fi);
  if (epilogue) {
    const Epilogue &e = *epilogue;
    p.hasResidual = e.hasResidual;
    p.clampMin = e.clampMin;
    p.clampMax = e.clampMax;
    switch (e.activation) {
      case ConvActivation::kNone: p.activation = onednn::Conv2dParams::Activation::kNone; break;
      case ConvActivation::kRelu: p.activation = onednn::Conv2dParams::Activation::kRelu; break;
      case ConvActivation::kClamp: p.activation = onednn::Conv2dParams::Activation::kClamp; break;
      case ConvActivation::kSigmoid: p.activation = onednn::Conv2dParams::Activation::kSigmoid; break;
      case ConvActivation::kSilu: p.activation = onednn::Conv2dParams::Activation::kSilu; break;
      case ConvActivation::kHardSwish: p.activation = onednn::Conv2dParams::Activation::kHardSwish; break;
    }
  }
  const bool writesSlice = writesSliceItself(node, g, epilogue);
  if (writesSlice) {
    p.dstPixelPitch = node.outputs[0]->rowPitch;
    portable = epilogue ? &makeFusedConv2dPortableThroughDense : &makeConv2dPortableThroughDense;
  }
  std::unique_ptr<onednn::Conv2d> conv = onednn::Conv2d::create(p, why);
  if (!conv) return nullptr;
  return std::make_unique<OneDnnConv2dKernel>(std::move(conv), node, portable, writesSlice);
}

}  // namespace webnn::cpu::kernels

#endif  // WEBNN_HAVE_ONEDNN
