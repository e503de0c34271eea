#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <cstring>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"

namespace webnn::cpu::kernels {
namespace {

// Convolutions with few output pixels (ResNet-50's last stage: 7x7, 3x3
// filters over 512 channels) as one GEMM of an im2col copy of the input,
// [N * OH * OW, KH * KW * C], with the filter as [KH * KW * C, O] on the
// packed-B kernel. Measured per layer (Intel AVX-512 VM, 1 thread): oneDNN's
// Winograd and direct kernels both ran these at ~117 GFLOP/s; the copy is
// under 1 MB, and the 9.4 MB filter streams from memory once per inference.
class Im2colPackedConvKernel final : public Kernel {
 public:
  Im2colPackedConvKernel(const ConvGeometry &g, std::unique_ptr<Kernel> gemm)
      : g_(g), gemm_(std::move(gemm)), colShape_{g.N * g.OH * g.OW, g.KH * g.KW * g.C} {}

  Status run(const KernelContext &ctx) override {
    const int64_t M = colShape_[0], K = colShape_[1], C = g_.C;
    if (col_.empty()) col_.resize(size_t(M * K));  // first run, not load
    const float *x = in<float>(ctx, 0);
    float *col = col_.data();
    parallelFor(ctx, M, 8, [&](int64_t mb, int64_t me) {
      for (int64_t m = mb; m < me; ++m) {
        const int64_t n = m / (g_.OH * g_.OW), oh = m / g_.OW % g_.OH, ow = m % g_.OW;
        float *dst = col + m * K;
        for (int64_t kh = 0; kh < g_.KH; ++kh)
          for (int64_t kw = 0; kw < g_.KW; ++kw, dst += C) {
            const int64_t ih = oh * g_.sh - g_.padTop + kh * g_.dh, iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
            if (ih < 0 || ih >= g_.H || iw < 0 || iw >= g_.W) std::memset(dst, 0, size_t(C) * sizeof(float));
            else std::memcpy(dst, x + ((n * g_.H + ih) * g_.W + iw) * C, size_t(C) * sizeof(float));
          }
      }
    });
    TensorBuffer colBuf{DataType::kFloat32, &colShape_, col};
    const TensorBuffer *inputs[4] = {&colBuf, ctx.inputs[1], ctx.numInputs > 2 ? ctx.inputs[2] : nullptr,
                                     ctx.numInputs > 3 ? ctx.inputs[3] : nullptr};
    KernelContext gemmCtx = ctx;
    gemmCtx.inputs = inputs;
    WEBNN_RETURN_IF_ERROR(gemm_->run(gemmCtx));
    return Status::ok();
  }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    return gemm_->packConstants(numThreads, out);
  }
  void warmUp(int numThreads) override { gemm_->warmUp(numThreads); }
  // The product reads the copy, not x: the residual is the GEMM's to keep.
  bool allowsInPlace(size_t output, size_t input) const override { return gemm_->allowsInPlace(output, input); }

 private:
  ConvGeometry g_;
  std::unique_ptr<Kernel> gemm_;
  Shape colShape_;
  std::vector<float> col_;
};

}  // namespace

// Where it applies: nhwc, ungrouped, at most 64 output pixels, >= 256 output
// channels; a strided 1x1 is a subsampling copy, a plain one needs no copy
// (makePointwisePackedConv).
std::unique_ptr<Kernel> makeIm2colPackedConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                             float lo, float hi, std::string *why) {
  if (!g.nhwc) return refuse(why, "not nhwc");
  if (g.groups != 1) return refuse(why, "grouped");
  if (g.N * g.OH * g.OW > 64) return refuse(why, "more than 64 output pixels");
  if (g.O < 256) return refuse(why, "fewer than 256 output channels");
  if (plainPointwise(g)) return refuse(why, "plain 1x1 (no copy needed)");
  if (!packedSgemmApplies(node)) return refuse(why, "the packed SGEMM does not apply (" + packedSgemmRefusal(node) + ")");
  PackedProduct p;
  p.M = g.N * g.OH * g.OW;
  p.K = g.KH * g.KW * g.C;
  p.N = g.O;
  if (!packedSgemmSuits(p.M, p.K, p.N)) return refuse(why, "too small for the packed SGEMM");
  p.bKOffsets.reserve(size_t(p.K));  // k = (kh * KW + kw) * C + c, as the im2col rows
  for (int64_t kh = 0; kh < g.KH; ++kh)
    for (int64_t kw = 0; kw < g.KW; ++kw)
      for (int64_t c = 0; c < g.C; ++c) p.bKOffsets.push_back(fi.at(0, c, kh, kw));
  p.bNStride = fi.so;
  p.lo = lo;
  p.hi = hi;
  return std::make_unique<Im2colPackedConvKernel>(g, makePackedSgemmKernel(node, p));
}

}  // namespace webnn::cpu::kernels
