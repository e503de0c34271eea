// batchNormalization and the relu that alone reads its output as one kernel
// (makeCpuKernelPair): y = max(x * mul[c] + add[c], 0) in one pass, instead
// of writing the normalized tensor and reading it back. DenseNet's
// pre-activation blocks (concat -> batchNormalization -> relu -> 1x1 conv)
// have 62 such pairs.
//
// The per-channel fold and the pass are batchNormalization's own
// (BatchNorm.h), so the pair's output is the two kernels' bit for bit.
// Float32 only; anything else it does not take (the nodes then run apart and
// their own factories check them).
//
// The arena plan knows nothing of pairs: x dies at the batchNormalization,
// so the relu's output may be placed over x's bytes. Exactly over them is
// safe (each element is read before it is written, by the same thread); a
// partial overlap is not (one row's store lands on a row another thread has
// yet to read), so then the two steps run apart through the normalized
// tensor's own arena bytes (live at both nodes, so apart from x and y).
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/backends/cpu/kernels/BatchNorm.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

// Run-time inputs: the batchNormalization's (x, mean, variance, scale?,
// bias?; `bnInputs` of them), then the relu's (the normalized tensor, unused).
class BatchNormReluKernel final : public Kernel {
 public:
  // xPitch: x's row pitch where it is strided (inner 1), else 0.
  BatchNormReluKernel(size_t bnInputs, int64_t outer, int64_t c, int64_t inner, float eps, int64_t xPitch)
      : bnInputs_(bnInputs), outer_(outer), c_(c), inner_(inner), xPitch_(xPitch), eps_(eps), mul_(size_t(c)),
        add_(size_t(c)) {}

  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    foldBatchNorm(in<float>(ctx, 1), in<float>(ctx, 2), input(ctx, 3), input(ctx, 4), eps_, c_, mul_.data(),
                  add_.data());
    // A strided x is a slice of a concat buffer that stays live past this
    // pair, so y is never placed over it: one pass reads it in place.
    if (xPitch_) {
      applyBatchNorm(ctx, x, y, mul_.data(), add_.data(), outer_, c_, inner_, /*relu=*/true, xPitch_);
      return Status::ok();
    }
    const size_t bytes = size_t(outer_ * c_ * inner_) * sizeof(float);
    if (static_cast<const void *>(x) != y && pairOutputOverlaps(x, bytes, y, bytes)) {
      float *normalized;
      WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, bnInputs_, "batchNormalization + relu", &normalized));
      applyBatchNorm(ctx, x, normalized, mul_.data(), add_.data(), outer_, c_, inner_, /*relu=*/false);
      const int64_t n = outer_ * c_ * inner_;
      parallelFor(ctx, n, 16384, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) y[i] = normalized[i] > 0.f ? normalized[i] : 0.f;
      });
      return Status::ok();
    }
    applyBatchNorm(ctx, x, y, mul_.data(), add_.data(), outer_, c_, inner_, /*relu=*/true);
    return Status::ok();
  }
  bool honoursRowPitch() const override { return true; }  // its factory takes no other strided operand

 private:
  const float *input(const KernelContext &ctx, size_t i) const {
    return (i < bnInputs_ && ctx.inputs[i]) ? static_cast<const float *>(ctx.inputs[i]->data) : nullptr;
  }

  size_t bnInputs_;
  int64_t outer_, c_, inner_, xPitch_;
  float eps_;
  std::vector<float> mul_, add_;
};

bool isFloatVector(const NodeDesc &node, size_t i, int64_t size) {
  if (node.inputs.size() <= i || !node.inputs[i]) return i >= 3;  // scale and bias are optional
  const OperandDesc &v = *node.inputs[i];
  return v.dtype == DataType::kFloat32 && v.shape == Shape{size};
}

}  // namespace

Status makeBatchNormReluPair(const NodeDesc &bn, const NodeDesc &relu, std::unique_ptr<Kernel> *out) {
  out->reset();
  if (bn.inputs.size() < 3 || bn.inputs.size() > 5 || bn.outputs.size() != 1 || !bn.inputs[0] || !bn.outputs[0] ||
      relu.inputs.size() != 1 || relu.outputs.size() != 1 || !relu.outputs[0])
    return Status::ok();
  const OperandDesc &x = *bn.inputs[0], &y = *relu.outputs[0];
  if (x.dtype != DataType::kFloat32 || y.dtype != DataType::kFloat32 || y.shape != x.shape ||
      bn.outputs[0]->shape != x.shape || bn.outputs[0]->dtype != x.dtype)
    return Status::ok();
  int64_t axis;
  if (!normalizeAxis(bn.attributes.getInt("axis", 1), x.shape.size(), &axis)) return Status::ok();
  float eps = float(bn.attributes.getFloat("epsilon", 1e-5));
  if (!checkAttributes(bn).isOk() || !checkAttributes(relu).isOk()) return Status::ok();
  int64_t C = x.shape[size_t(axis)];
  for (size_t i = 1; i < 5; ++i)
    if (!isFloatVector(bn, i, C)) return Status::ok();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[size_t(i)];
  for (size_t i = size_t(axis) + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  // A strided x along its last axis (a concat slice) is read in place; a
  // strided intermediate or output is not taken (the nodes run apart).
  if (bn.outputs[0]->rowPitch || y.rowPitch || (x.rowPitch && inner != 1)) return Status::ok();
  *out = std::make_unique<BatchNormReluKernel>(bn.inputs.size(), outer, C, inner, eps, x.rowPitch);
  reportPairChoice(bn, relu, "batchnorm-relu", /*made=*/true, "");
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
