// fusedConv2d on the portable kernel: conv2d into the output, then one pass
// over it, y = activation(y + residual). Kernels with an epilogue of their
// own (oneDNN's post-ops, our clamp epilogues) do not need it. Sigmoid and
// SiLU go through the vector exp of the elementwise sigmoid op
// (sigmoidArray) and the fused SiLU epilogues (siluInPlace) instead of
// scalar std::exp per element.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Silu.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {
namespace {

class EpiloguePassKernel final : public Kernel {
 public:
  EpiloguePassKernel(std::unique_ptr<Kernel> conv, Epilogue e, int64_t count)
      : conv_(std::move(conv)), e_(e), count_(count) {}

  // y over its residual (input 3): run() copies the residual aside first.
  bool allowsInPlace(size_t output, size_t input) const override { return output == 0 && input == 3; }

  Status run(const KernelContext &ctx) override {
    const TensorBuffer *convInputs[3] = {ctx.inputs[0], ctx.inputs[1], ctx.numInputs > 2 ? ctx.inputs[2] : nullptr};
    KernelContext convCtx = ctx;
    convCtx.inputs = convInputs;
    convCtx.numInputs = 3;
    const float *r = e_.hasResidual ? in<float>(ctx, 3) : nullptr;
    float *y = outp<float>(ctx, 0);
    // The convolution writes y whole before the pass reads r: where the plan
    // put y over r, r is copied aside first (the portable path's layers are
    // small).
    if (r == y) {
      residual_.assign(r, r + count_);
      r = residual_.data();
    }
    WEBNN_RETURN_IF_ERROR(conv_->run(convCtx));
    Epilogue e = e_;
    parallelFor(ctx, count_, 16384, [&](int64_t b, int64_t end) {
      if (r)
        for (int64_t i = b; i < end; ++i) y[i] += r[i];
      switch (e.activation) {
        case ConvActivation::kNone: break;
        case ConvActivation::kRelu:
          for (int64_t i = b; i < end; ++i) y[i] = y[i] > 0.f ? y[i] : 0.f;
          break;
        case ConvActivation::kClamp:
          for (int64_t i = b; i < end; ++i) y[i] = std::min(std::max(y[i], e.clampMin), e.clampMax);
          break;
        case ConvActivation::kSigmoid: sigmoidArray(y + b, y + b, end - b); break;
        case ConvActivation::kSilu: siluInPlace(y + b, end - b); break;
        case ConvActivation::kHardSwish:
          for (int64_t i = b; i < end; ++i) y[i] = y[i] * std::min(6.f, std::max(0.f, y[i] + 3.f)) * (1.f / 6.f);
          break;
      }
    });
    return Status::ok();
  }

 private:
  std::unique_ptr<Kernel> conv_;
  Epilogue e_;
  int64_t count_;
  std::vector<float> residual_;  // the residual's copy when y is over it
};

}  // namespace

std::unique_ptr<Kernel> makeEpiloguePass(std::unique_ptr<Kernel> conv, const Epilogue &e, int64_t count) {
  return std::make_unique<EpiloguePassKernel>(std::move(conv), e, count);
}

}  // namespace webnn::cpu::kernels
