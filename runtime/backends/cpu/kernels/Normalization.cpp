// batchNormalization, instanceNormalization, layerNormalization.
// Mean and variance use two passes (mean first, then mean of squared
// deviations), as the spec writes them, which avoids the cancellation of the
// one-pass E[x^2] - E[x]^2 form. float16 runs via the float32 kernels.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/backends/cpu/kernels/BatchNorm.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/InstanceNormNhwc.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/RowPitch.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {
namespace {

const float *optionalInput(const KernelContext &ctx, size_t i) {
  return (i < ctx.numInputs && ctx.inputs[i]) ? static_cast<const float *>(ctx.inputs[i]->data) : nullptr;
}

Status checkVector(const NodeDesc &node, size_t i, const char *what, int64_t size, DataType dt) {
  if (node.inputs.size() <= i || !node.inputs[i]) return Status::ok();
  const OperandDesc &v = *node.inputs[i];
  if (v.dtype != dt) return nodeError(node, std::string(what) + " data type differs from input");
  if (v.shape != Shape{size})
    return nodeError(node, std::string(what) + " must have shape [" + std::to_string(size) + "], got " +
                               shapeToString(v.shape));
  return Status::ok();
}

// ---- batchNormalization: y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c]
class BatchNormKernel final : public Kernel {
 public:
  // xPitch: x's row pitch (OperandDesc::rowPitch) where the axis is the
  // last (inner 1), else 0.
  BatchNormKernel(int64_t outer, int64_t c, int64_t inner, float eps, int64_t xPitch, bool honours)
      : outer_(outer), c_(c), inner_(inner), xPitch_(xPitch), honours_(honours), eps_(eps), mul_(size_t(c)),
        add_(size_t(c)) {}
  Status run(const KernelContext &ctx) override {
    foldBatchNorm(in<float>(ctx, 1), in<float>(ctx, 2), optionalInput(ctx, 3), optionalInput(ctx, 4), eps_, c_,
                  mul_.data(), add_.data());
    applyBatchNorm(ctx, in<float>(ctx, 0), outp<float>(ctx, 0), mul_.data(), add_.data(), outer_, c_, inner_,
                   /*relu=*/false, xPitch_);
    return Status::ok();
  }
  bool honoursRowPitch() const override { return honours_; }

 private:
  int64_t outer_, c_, inner_, xPitch_;
  bool honours_;
  float eps_;
  std::vector<float> mul_, add_;  // folded per-channel affine transform
};

Status makeBatchNorm(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 5, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  int64_t axisAttr = node.attributes.getInt("axis", 1);
  double eps = node.attributes.getFloat("epsilon", 1e-5);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x.shape.size(), &axis)) return nodeError(node, "axis is out of range");
  int64_t C = x.shape[axis];
  WEBNN_RETURN_IF_ERROR(checkVector(node, 1, "mean", C, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkVector(node, 2, "variance", C, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkVector(node, 3, "scale", C, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkVector(node, 4, "bias", C, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeBatchNorm, out);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  // A strided x along its last axis is read in place; any other strided
  // operand goes through the CPU backend's dense copies (the kernel then
  // says it does not honour the pitch).
  const bool stridedX = x.rowPitch && inner == 1 && !node.outputs[0]->rowPitch;
  *out = std::make_unique<BatchNormKernel>(outer, C, inner, float(eps), stridedX ? x.rowPitch : 0,
                                           stridedX || !hasRowPitch(node));
  return Status::ok();
}

// ---- layerNormalization (and instanceNormalization in nchw, which is
// layerNormalization over the spatial axes with per-channel scale/bias).
// For every "outer" position the normalized elements are found through a
// table of offsets, in axes order, so scale/bias index = position in table.
class GroupNormKernel final : public Kernel {
 public:
  // channelOf: for instance norm, the scale index is the channel of the outer
  // position: (outer / channelInner) % channels; otherwise scale follows the table.
  GroupNormKernel(std::vector<int64_t> outerOff, std::vector<int64_t> innerOff, float eps, bool perChannel,
                  int64_t channels)
      : outer_(std::move(outerOff)), inner_(std::move(innerOff)), eps_(eps), perChannel_(perChannel),
        channels_(channels) {
    contiguous_ = true;
    for (size_t i = 0; i < inner_.size(); ++i)
      if (inner_[i] != int64_t(i)) contiguous_ = false;
  }
  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    const float *scale = optionalInput(ctx, 1), *bias = optionalInput(ctx, 2);
    float *y = outp<float>(ctx, 0);
    int64_t n = int64_t(inner_.size());
    if (n == 0) return Status::ok();
    parallelFor(ctx, int64_t(outer_.size()), std::max<int64_t>(1, 8192 / n), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const float *xs = x + outer_[o];
        float *ys = y + outer_[o];
        double sum = 0;
        if (contiguous_) for (int64_t i = 0; i < n; ++i) sum += xs[i];
        else for (int64_t i = 0; i < n; ++i) sum += xs[inner_[i]];
        float mean = float(sum / double(n));
        double sq = 0;
        if (contiguous_) for (int64_t i = 0; i < n; ++i) { float d = xs[i] - mean; sq += d * d; }
        else for (int64_t i = 0; i < n; ++i) { float d = xs[inner_[i]] - mean; sq += d * d; }
        float rstd = 1.f / std::sqrt(float(sq / double(n)) + eps_);
        if (perChannel_) {
          int64_t c = o % channels_;
          float s = (scale ? scale[c] : 1.f) * rstd, bb = (bias ? bias[c] : 0.f) - mean * s;
          if (contiguous_) for (int64_t i = 0; i < n; ++i) ys[i] = xs[i] * s + bb;
          else for (int64_t i = 0; i < n; ++i) ys[inner_[i]] = xs[inner_[i]] * s + bb;
        } else {
          for (int64_t i = 0; i < n; ++i) {
            int64_t off = contiguous_ ? i : inner_[i];
            float v = (xs[off] - mean) * rstd;
            if (scale) v *= scale[i];
            if (bias) v += bias[i];
            ys[off] = v;
          }
        }
      }
    });
    return Status::ok();
  }

 private:
  std::vector<int64_t> outer_, inner_;
  float eps_;
  bool perChannel_;
  int64_t channels_;
  bool contiguous_ = false;
};

// instanceNormalization in nhwc: with AVX-512, whole pixel rows per image
// (InstanceNormNhwc.h), cut into one group of channels per thread where the
// images are fewer than the threads. Otherwise each task takes a block of
// channels and sweeps the image's pixel rows three times (sums, squared
// deviations, output), every access a contiguous run of the block. Same
// two-pass double accumulation.
//
// As the instanceNormalization + gelu pair (makeInstanceNormGeluPair, AVX-512
// only), the output sweep applies gelu. The arena plan knows nothing of
// pairs: the gelu's output may be placed over x. Exactly over it is safe
// (each row's channels are read, then written, by the one thread that owns
// them, after every statistics sweep over them); a partial overlap is not,
// and then the two steps run apart through the normalized tensor's own
// arena bytes (the gelu's input, live at both nodes).
class InstanceNormNhwcKernel final : public Kernel {
 public:
  // normInputs: the instanceNormalization node's input count (a pair's run
  // time inputs continue with the gelu's).
  InstanceNormNhwcKernel(int64_t n, int64_t pixels, int64_t c, float eps, size_t normInputs, bool gelu)
      : n_(n), pixels_(pixels), c_(c), eps_(eps), normInputs_(normInputs), gelu_(gelu) {}
  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    const float *scale = normInputs_ > 1 ? optionalInput(ctx, 1) : nullptr;
    const float *bias = normInputs_ > 2 ? optionalInput(ctx, 2) : nullptr;
    float *y = outp<float>(ctx, 0);
    if (pixels_ == 0 || c_ == 0) return Status::ok();
    if (gelu_) {
      const size_t bytes = size_t(n_ * pixels_ * c_) * sizeof(float);
      if (static_cast<const void *>(x) != y && pairOutputOverlaps(x, bytes, y, bytes)) {
        float *normalized;
        WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, normInputs_, "instanceNormalization + gelu", &normalized));
        runAvx512(ctx, x, normalized, scale, bias, false);
        parallelFor(ctx, n_ * pixels_ * c_, 16384,
                    [&](int64_t b, int64_t e) { geluArray(normalized + b, y + b, e - b); });
        return Status::ok();
      }
      runAvx512(ctx, x, y, scale, bias, true);
      return Status::ok();
    }
    if (avx512Available()) {
      runAvx512(ctx, x, y, scale, bias, false);
      return Status::ok();
    }
    const int64_t blocks = (c_ + kBlock - 1) / kBlock;
    parallelFor(ctx, n_ * blocks, 1, [&](int64_t b, int64_t e) {
      double acc[kBlock];
      float mean[kBlock], mul[kBlock], add[kBlock];
      for (int64_t t = b; t < e; ++t) {
        int64_t img = t / blocks, c0 = (t % blocks) * kBlock, nc = std::min(kBlock, c_ - c0);
        const float *xs = x + img * pixels_ * c_ + c0;
        float *ys = y + img * pixels_ * c_ + c0;
        std::fill(acc, acc + nc, 0.0);
        for (int64_t p = 0; p < pixels_; ++p)
          for (int64_t c = 0; c < nc; ++c) acc[c] += xs[p * c_ + c];
        for (int64_t c = 0; c < nc; ++c) mean[c] = float(acc[c] / double(pixels_));
        std::fill(acc, acc + nc, 0.0);
        for (int64_t p = 0; p < pixels_; ++p)
          for (int64_t c = 0; c < nc; ++c) {
            float d = xs[p * c_ + c] - mean[c];
            acc[c] += d * d;
          }
        for (int64_t c = 0; c < nc; ++c) {
          float rstd = 1.f / std::sqrt(float(acc[c] / double(pixels_)) + eps_);
          mul[c] = (scale ? scale[c0 + c] : 1.f) * rstd;
          add[c] = (bias ? bias[c0 + c] : 0.f) - mean[c] * mul[c];
        }
        for (int64_t p = 0; p < pixels_; ++p)
          for (int64_t c = 0; c < nc; ++c) ys[p * c_ + c] = xs[p * c_ + c] * mul[c] + add[c];
      }
    });
    return Status::ok();
  }

 private:
  void runAvx512(const KernelContext &ctx, const float *x, float *y, const float *scale, const float *bias,
                 bool gelu) {
    const int64_t threads = ctx.backendState ? threadPool(ctx).numThreads() : 1;
    const int64_t width = instanceNormGroupWidth(c_, n_, threads);
    const int64_t groups = (c_ + width - 1) / width;
    if (scratch_.size() < size_t(n_ * groups * 3 * width)) scratch_.resize(size_t(n_ * groups * 3 * width));
    parallelFor(ctx, n_ * groups, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t img = t / groups, c0 = (t % groups) * width, nc = std::min(width, c_ - c0);
        instanceNormNhwcAvx512(x + img * pixels_ * c_ + c0, y + img * pixels_ * c_ + c0, pixels_, c_, nc,
                               scale ? scale + c0 : nullptr, bias ? bias + c0 : nullptr, eps_, gelu,
                               scratch_.data() + t * 3 * width);
      }
    });
  }

  static constexpr int64_t kBlock = 64;
  int64_t n_, pixels_, c_;
  float eps_;
  size_t normInputs_;
  bool gelu_;
  std::vector<double> scratch_;  // per task: mean, m2 and the mul/add table
};

// layerNormalization over the trailing axes of a row-major tensor (a
// transformer's LayerNorm over the hidden size): rows of n contiguous values,
// each normalized in one vectorized sweep while it sits in L1
// (TransformerSimd.h; AVX-512 when the CPU has it).
class LastAxesLayerNormKernel final : public Kernel {
 public:
  LastAxesLayerNormKernel(int64_t rows, int64_t n, float eps) : rows_(rows), n_(n), eps_(eps) {}
  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    const float *scale = optionalInput(ctx, 1), *bias = optionalInput(ctx, 2);
    float *y = outp<float>(ctx, 0);
    if (n_ == 0) return Status::ok();
    parallelForUnits(ctx, rows_, std::max<int64_t>(1, 16384 / n_), [&](int64_t b, int64_t e) {
      layerNormRows(x + b * n_, y + b * n_, e - b, n_, scale, bias, eps_);
    });
    return Status::ok();
  }

 private:
  int64_t rows_, n_;
  float eps_;
};

// Offsets of all coordinates over `dims` (strides given), in row-major order.
std::vector<int64_t> offsetTable(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  std::vector<int64_t> t{0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(t.size() * size_t(dims[d]));
    for (int64_t base : t)
      for (int64_t i = 0; i < dims[d]; ++i) next.push_back(base + i * strides[d]);
    t = std::move(next);
  }
  return t;
}

Status makeLayerNorm(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 3, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  size_t rank = x.shape.size();
  std::vector<int64_t> def;
  for (size_t i = 1; i < rank; ++i) def.push_back(int64_t(i));
  std::vector<int64_t> axes = node.attributes.getInts("axes", def);
  double eps = node.attributes.getFloat("epsilon", 1e-5);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  std::vector<bool> isAxis(rank, false);
  Shape scaleShape;
  for (int64_t &a : axes) {
    int64_t n;
    if (!normalizeAxis(a, rank, &n)) return nodeError(node, "axis " + std::to_string(a) + " is out of range");
    if (isAxis[n]) return nodeError(node, "axis " + std::to_string(a) + " appears twice");
    isAxis[n] = true;
    a = n;
    scaleShape.push_back(x.shape[n]);
  }
  for (size_t i = 1; i < 3; ++i) {
    if (node.inputs.size() <= i || !node.inputs[i]) continue;
    const OperandDesc &v = *node.inputs[i];
    if (v.dtype != x.dtype) return nodeError(node, "scale/bias data type differs from input");
    if (v.shape != scaleShape)
      return nodeError(node, std::string(i == 1 ? "scale" : "bias") + " must have shape " +
                                 shapeToString(scaleShape) + ", got " + shapeToString(v.shape));
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeLayerNorm, out);
  // Axes that are exactly the trailing ones, in order: contiguous rows.
  bool trailing = !axes.empty();
  for (size_t i = 0; i < axes.size(); ++i) trailing &= axes[i] == int64_t(rank - axes.size() + i);
  if (trailing) {
    int64_t n = 1;
    for (int64_t a : axes) n *= x.shape[a];
    *out = std::make_unique<LastAxesLayerNormKernel>(n == 0 ? 0 : numElements(x.shape) / n, n, float(eps));
    return Status::ok();
  }
  std::vector<int64_t> st = contiguousStrides(x.shape);
  std::vector<int64_t> od, os, id, is;
  for (size_t i = 0; i < rank; ++i)
    if (!isAxis[i]) od.push_back(x.shape[i]), os.push_back(st[i]);
  for (int64_t a : axes) id.push_back(x.shape[a]), is.push_back(st[a]);
  *out = std::make_unique<GroupNormKernel>(offsetTable(od, os), offsetTable(id, is), float(eps), false, 1);
  return Status::ok();
}

Status makeInstanceNorm(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 3, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  double eps = node.attributes.getFloat("epsilon", 1e-5);
  std::string layout = node.attributes.getString("layout", "nchw");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (x.shape.size() != 4) return nodeError(node, "input must be 4-D");
  if (layout != "nchw" && layout != "nhwc") return nodeError(node, "unknown layout '" + layout + "'");
  bool nhwc = layout == "nhwc";
  int64_t N = x.shape[0], C = nhwc ? x.shape[3] : x.shape[1];
  int64_t H = nhwc ? x.shape[1] : x.shape[2], W = nhwc ? x.shape[2] : x.shape[3];
  WEBNN_RETURN_IF_ERROR(checkVector(node, 1, "scale", C, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkVector(node, 2, "bias", C, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeInstanceNorm, out);
  // Outer positions are (n, c) in that order so that o % C is the channel.
  if (nhwc) {
    *out = std::make_unique<InstanceNormNhwcKernel>(N, H * W, C, float(eps), node.inputs.size(), false);
    return Status::ok();
  }
  std::vector<int64_t> outer = offsetTable({N, C}, {C * H * W, H * W}), inner = offsetTable({H * W}, {1});
  *out = std::make_unique<GroupNormKernel>(std::move(outer), std::move(inner), float(eps), true, C);
  return Status::ok();
}

}  // namespace

// instanceNormalization (nhwc, float32) and the gelu that alone reads its
// output, as one kernel: the gelu applied in the normalization's output
// sweep instead of another pass over the map (wav2vec2's GroupNorm -> GELU,
// once --webnn-sink-reshapes puts them side by side). AVX-512 only; else,
// or for anything else, the nodes run apart (their own factories check them).
Status makeInstanceNormGeluPair(const NodeDesc &norm, const NodeDesc &gelu, std::unique_ptr<Kernel> *out) {
  out->reset();
  if (!avx512Available() || !instanceNormGeluOperandsFit(norm, gelu) || !checkAttributes(norm).isOk() ||
      !checkAttributes(gelu).isOk())
    return Status::ok();
  const OperandDesc &x = *norm.inputs[0];
  const int64_t C = x.shape[3];
  *out = std::make_unique<InstanceNormNhwcKernel>(x.shape[0], x.shape[1] * x.shape[2], C,
                                                  float(norm.attributes.getFloat("epsilon", 1e-5)),
                                                  norm.inputs.size(), true);
  reportPairChoice(norm, gelu, "instancenorm-gelu", /*made=*/true, "");
  return Status::ok();
}

void registerNormalizationKernels(KernelTable &t) {
  t.add("batchNormalization", &makeBatchNorm);
  t.add("instanceNormalization", &makeInstanceNorm);
  t.add("layerNormalization", &makeLayerNorm);
}

void foldBatchNorm(const float *mean, const float *var, const float *scale, const float *bias, float eps, int64_t C,
                   float *mul, float *add) {
  for (int64_t c = 0; c < C; ++c) {
    float m = (scale ? scale[c] : 1.f) / std::sqrt(var[c] + eps);
    mul[c] = m;
    add[c] = (bias ? bias[c] : 0.f) - mean[c] * m;
  }
}

namespace {

// The relu kernel's own form (Elementwise.cpp): NaN and -0 give 0.
template <bool Relu>
inline float batchNormOut(float v) {
  return !Relu || v > 0.f ? v : 0.f;
}

template <bool Relu>
void applyBatchNormAs(const KernelContext &ctx, const float *x, float *y, const float *mul, const float *add,
                      int64_t outer, int64_t C, int64_t inner, int64_t xPitch) {
  if (inner == 1) {
    // Channels last (nhwc after convert-layout): each outer position is one
    // contiguous row of C values, a vectorizable multiply-add per row.
    const int64_t pitch = xPitch ? xPitch : C;
    parallelFor(ctx, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, C)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const float *xs = x + t * pitch;
        float *ys = y + t * C;
        for (int64_t c = 0; c < C; ++c) ys[c] = batchNormOut<Relu>(xs[c] * mul[c] + add[c]);
      }
    });
    return;
  }
  parallelFor(ctx, outer * C, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, inner)), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t c = t % C;
      const float *xs = x + t * inner;
      float *ys = y + t * inner;
      float m = mul[c], a = add[c];
      for (int64_t i = 0; i < inner; ++i) ys[i] = batchNormOut<Relu>(xs[i] * m + a);
    }
  });
}

}  // namespace

void applyBatchNorm(const KernelContext &ctx, const float *x, float *y, const float *mul, const float *add,
                    int64_t outer, int64_t C, int64_t inner, bool relu, int64_t xPitch) {
  if (relu)
    applyBatchNormAs<true>(ctx, x, y, mul, add, outer, C, inner, xPitch);
  else
    applyBatchNormAs<false>(ctx, x, y, mul, add, outer, C, inner, xPitch);
}

}  // namespace webnn::cpu::kernels
