// softmax along one axis: exp(x - max) / sum, max-shifted so large inputs
// cannot overflow. Rows along a non-innermost axis are processed as blocks of
// adjacent columns so memory is still read contiguously.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {
namespace {

class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(int64_t outer, int64_t n, int64_t inner) : outer_(outer), n_(n), inner_(inner) {}
  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    if (n_ == 0) return Status::ok();
    if (inner_ == 1) {  // the last axis: contiguous rows, one vectorized sweep each
      auto rows = [&](int64_t b, int64_t e) { softmaxRows(x + b * n_, y + b * n_, e - b, n_, 1.f); };
      const int64_t grain = std::max<int64_t>(1, 8192 / n_);
      if (!ctx.backendState || outer_ <= grain) {
        rows(0, outer_);
        return Status::ok();
      }
      // Units, not one even share per thread, so a faster core takes rows
      // from a slower one (ThreadPool::parallelForUnits): attention's
      // 12 x 197 rows of 197 scores in ViT-B/16.
      ThreadPool &pool = threadPool(ctx);
      pool.parallelForUnits(outer_, std::max(grain, outer_ / (int64_t(pool.numThreads()) * 8)), rows);
      return Status::ok();
    }
    constexpr int64_t kBlock = 64;
    int64_t blocks = (inner_ + kBlock - 1) / kBlock;
    parallelFor(ctx, outer_ * blocks, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, n_ * std::min(inner_, kBlock))),
                [&](int64_t b, int64_t e) {
                  for (int64_t t = b; t < e; ++t) {
                    int64_t o = t / blocks, j0 = (t % blocks) * kBlock, w = std::min(kBlock, inner_ - j0);
                    const float *xs = x + o * n_ * inner_ + j0;
                    float *ys = y + o * n_ * inner_ + j0;
                    float mx[kBlock], sum[kBlock];
                    for (int64_t j = 0; j < w; ++j) mx[j] = -std::numeric_limits<float>::infinity(), sum[j] = 0.f;
                    for (int64_t k = 0; k < n_; ++k)
                      for (int64_t j = 0; j < w; ++j) mx[j] = std::max(mx[j], xs[k * inner_ + j]);
                    // exp(-90) is already denormal: flushed (flushBelowFltMin).
                    for (int64_t k = 0; k < n_; ++k)
                      for (int64_t j = 0; j < w; ++j) {
                        float v = flushBelowFltMin(std::exp(xs[k * inner_ + j] - mx[j]));
                        ys[k * inner_ + j] = v;
                        sum[j] += v;
                      }
                    for (int64_t j = 0; j < w; ++j) sum[j] = 1.f / sum[j];
                    for (int64_t k = 0; k < n_; ++k)
                      for (int64_t j = 0; j < w; ++j)
                        ys[k * inner_ + j] = flushBelowFltMin(ys[k * inner_ + j] * sum[j]);
                  }
                });
    return Status::ok();
  }

 private:
  int64_t outer_, n_, inner_;
};

Status makeSoftmax(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (!node.attributes.has("axis")) return nodeError(node, "missing required attribute 'axis'");
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x.shape.size(), &axis)) return nodeError(node, "axis is out of range");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeSoftmax, out);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  *out = std::make_unique<SoftmaxKernel>(outer, x.shape[axis], inner);
  return Status::ok();
}

}  // namespace

void registerSoftmaxKernels(KernelTable &t) { t.add("softmax", &makeSoftmax); }

}  // namespace webnn::cpu::kernels
