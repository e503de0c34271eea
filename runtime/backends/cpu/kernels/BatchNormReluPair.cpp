// batchNormalization and the relu that alone reads its output as one kernel
// (makeCpuKernelPair): y = max(x * mul[c] + add[c], 0) in one pass, instead
// of writing the normalized tensor and reading it back. DenseNet's
// pre-activation blocks (concat -> batchNormalization -> relu -> 1x1 conv)
// have 62 such pairs.
//
// The per-channel mul/add fold is batchNormalization's own
// (Normalization.cpp): scale / sqrt(variance + epsilon) and
// bias - mean * mul, so the pair's output is the two kernels' bit for bit.
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
#include <cstdint>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

// The relu kernel's own form (Elementwise.cpp): NaN and -0 give 0.
inline float relu(float v) { return v > 0.f ? v : 0.f; }

// Run-time inputs: the batchNormalization's (x, mean, variance, scale?,
// bias?; `bnInputs` of them), then the relu's (the normalized tensor, unused).
class BatchNormReluKernel final : public Kernel {
 public:
  BatchNormReluKernel(size_t bnInputs, int64_t outer, int64_t c, int64_t inner, float eps)
      : bnInputs_(bnInputs), outer_(outer), c_(c), inner_(inner), eps_(eps), mul_(size_t(c)), add_(size_t(c)) {}

  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0), *mean = in<float>(ctx, 1), *var = in<float>(ctx, 2);
    const float *scale = input(ctx, 3), *bias = input(ctx, 4);
    float *y = outp<float>(ctx, 0);
    for (int64_t c = 0; c < c_; ++c) {
      float m = (scale ? scale[c] : 1.f) / std::sqrt(var[c] + eps_);
      mul_[size_t(c)] = m;
      add_[size_t(c)] = (bias ? bias[c] : 0.f) - mean[c] * m;
    }
    const uintptr_t xb = reinterpret_cast<uintptr_t>(x), yb = reinterpret_cast<uintptr_t>(y);
    const uintptr_t bytes = uintptr_t(outer_ * c_ * inner_) * sizeof(float);
    if (xb != yb && xb < yb + bytes && yb < xb + bytes) {
      const TensorBuffer *t = ctx.inputs[bnInputs_];
      if (!t || !t->data)
        return Status(StatusCode::kInternal,
                      "batchNormalization + relu: the output overlaps x and the normalized tensor has no buffer");
      float *normalized = static_cast<float *>(t->data);
      apply(ctx, x, normalized, [](float v) { return v; });
      apply(ctx, normalized, y, [](float v) { return relu(v); }, /*identity=*/true);
      return Status::ok();
    }
    apply(ctx, x, y, [](float v) { return relu(v); });
    return Status::ok();
  }

 private:
  // out = f(in * mul[c] + add[c]), or out = f(in) with `identity`.
  template <typename F>
  void apply(const KernelContext &ctx, const float *x, float *y, F f, bool identity = false) const {
    const float *mul = mul_.data(), *add = add_.data();
    if (inner_ == 1) {
      // Channels last: one contiguous row of c_ values per position.
      parallelFor(ctx, outer_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, c_)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const float *xs = x + t * c_;
          float *ys = y + t * c_;
          if (identity)
            for (int64_t c = 0; c < c_; ++c) ys[c] = f(xs[c]);
          else
            for (int64_t c = 0; c < c_; ++c) ys[c] = f(xs[c] * mul[c] + add[c]);
        }
      });
      return;
    }
    parallelFor(ctx, outer_ * c_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, inner_)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t c = t % c_;
        const float *xs = x + t * inner_;
        float *ys = y + t * inner_;
        float m = identity ? 1.f : mul[c], a = identity ? 0.f : add[c];
        if (identity)
          for (int64_t i = 0; i < inner_; ++i) ys[i] = f(xs[i]);
        else
          for (int64_t i = 0; i < inner_; ++i) ys[i] = f(xs[i] * m + a);
      }
    });
  }

  const float *input(const KernelContext &ctx, size_t i) const {
    return (i < bnInputs_ && ctx.inputs[i]) ? static_cast<const float *>(ctx.inputs[i]->data) : nullptr;
  }

  size_t bnInputs_;
  int64_t outer_, c_, inner_;
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
  *out = std::make_unique<BatchNormReluKernel>(bn.inputs.size(), outer, C, inner, eps);
  KernelChoice choice;
  choice.op = bn.op + " + " + relu.op;
  choice.node = bn.name + "' + '" + relu.name;
  choice.chosen = "batchnorm-relu";
  reportKernelChoice(choice);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
