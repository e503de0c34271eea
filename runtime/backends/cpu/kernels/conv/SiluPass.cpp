// fusedConv2d with activation "silu" on our kernels, whose epilogue is a
// clamp: the convolution without activation, then SiLU (x * sigmoid(x)) in
// place over its output in one vectorized pass.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Silu.h"

namespace webnn::cpu::kernels {
namespace {

class SiluPassKernel final : public Kernel {
 public:
  SiluPassKernel(std::unique_ptr<Kernel> conv, int64_t count) : conv_(std::move(conv)), count_(count) {}

  Status run(const KernelContext &ctx) override {
    WEBNN_RETURN_IF_ERROR(conv_->run(ctx));
    float *y = outp<float>(ctx, 0);
    parallelFor(ctx, count_, 16384, [&](int64_t b, int64_t end) { siluInPlace(y + b, end - b); });
    return Status::ok();
  }
  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    return conv_->packConstants(numThreads, out);
  }
  void warmUp(int numThreads) override { conv_->warmUp(numThreads); }

 private:
  std::unique_ptr<Kernel> conv_;
  int64_t count_;
};

}  // namespace

std::unique_ptr<Kernel> makeSiluPass(std::unique_ptr<Kernel> conv, int64_t count) {
  return std::make_unique<SiluPassKernel>(std::move(conv), count);
}

}  // namespace webnn::cpu::kernels
