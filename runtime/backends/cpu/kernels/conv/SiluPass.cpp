// fusedConv2d with activation "silu" or "hardSwish" on our kernels, whose
// epilogue is a clamp: the convolution without activation, then the
// activation in place over its output in one vectorized pass.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Silu.h"

namespace webnn::cpu::kernels {
namespace {

using InPlaceActivation = void (*)(float *y, int64_t n);

// x * min(6, max(0, x + 3)) / 6, as the hardSwish kernel computes it; the
// loop vectorizes at the library's x86-64-v3 level.
void hardSwishInPlace(float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = y[i] * std::min(6.f, std::max(0.f, y[i] + 3.f)) * (1.f / 6.f);
}

class ActivationPassKernel final : public Kernel {
 public:
  ActivationPassKernel(std::unique_ptr<Kernel> conv, InPlaceActivation activation, int64_t count)
      : conv_(std::move(conv)), activation_(activation), count_(count) {}

  Status run(const KernelContext &ctx) override {
    WEBNN_RETURN_IF_ERROR(conv_->run(ctx));
    float *y = outp<float>(ctx, 0);
    parallelFor(ctx, count_, 16384, [&](int64_t b, int64_t end) { activation_(y + b, end - b); });
    return Status::ok();
  }
  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    return conv_->packConstants(numThreads, out);
  }
  void warmUp(int numThreads) override { conv_->warmUp(numThreads); }
  // The pass reads only y, after the convolution.
  bool allowsInPlace(size_t output, size_t input) const override { return conv_->allowsInPlace(output, input); }

 private:
  std::unique_ptr<Kernel> conv_;
  InPlaceActivation activation_;
  int64_t count_;
};

}  // namespace

std::unique_ptr<Kernel> makeSiluPass(std::unique_ptr<Kernel> conv, int64_t count) {
  return std::make_unique<ActivationPassKernel>(std::move(conv), &siluInPlace, count);
}

std::unique_ptr<Kernel> makeHardSwishPass(std::unique_ptr<Kernel> conv, int64_t count) {
  return std::make_unique<ActivationPassKernel>(std::move(conv), &hardSwishInPlace, count);
}

}  // namespace webnn::cpu::kernels
