// quantizedConv2d (docs/FUSED_OPS.md): the convolution of an int8 QDQ CNN
// on 8-bit integers. oneDNN's int8 convolution (onednn/QuantizedConv2d.cpp,
// VNNI u8 x s8 -> s32) where it has an optimized implementation; else, and
// without oneDNN, a portable loop with the same arithmetic:
//   acc = sum (x - zx) * w                      (int32, exact)
//   v   = scale[o] * (acc + bias[o] / (sx * sw[o])),  scale[o] = sx * sw[o] [/ so]
//   y   = saturate(roundEven(v) + zo)  or  v     (8-bit or float32 output)
// which is ONNX Runtime's requantization (sum and integer bias times one
// float multiplier per channel). A residual join (scale[o] then puts v in
// the conv's own quantization units) continues
//   v   = convToOut * (saturate(roundEven(v) + zc) - zc) + (sr / so) * (r - zr)
// then relu, then the output's zero point and saturation. The output may
// share the residual's bytes (the memory planner places it there when the
// residual dies at this node): both paths read each residual element before
// writing that output element.
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::kernels {
namespace {

struct QConvShape {
  int64_t N = 0, C = 0, H = 0, W = 0, O = 0, OH = 0, OW = 0, KH = 0, KW = 0, groups = 1;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  bool srcSigned = false;
  int32_t srcZero = 0;
  DataType out = DataType::kFloat32;
  int32_t dstZero = 0;
  std::vector<float> scales, bias;  // per output channel; bias in sum units (may be empty)
  bool relu = false;
  bool hasResidual = false;
  DataType convType = DataType::kUint8;
  int32_t convZero = 0, residualZero = 0;
  float convToOut = 1.f, residualScale = 1.f;
};

float saturateTo(DataType t, float q) {
  return t == DataType::kUint8 ? std::min(255.f, std::max(0.f, q)) : std::min(127.f, std::max(-128.f, q));
}

// The portable kernel: nhwc input, ohwi filter.
class PortableQuantizedConv2d final : public Kernel {
 public:
  explicit PortableQuantizedConv2d(QConvShape s) : s_(std::move(s)) {}
  bool allowsInPlace(size_t output, size_t input) const override { return output == 0 && input == 8; }

  Status run(const KernelContext &ctx) override {
    const void *x = ctx.inputs[0]->data;
    const int8_t *w = static_cast<const int8_t *>(ctx.inputs[3]->data);
    void *y = ctx.outputs[0]->data;
    const void *res = s_.hasResidual ? ctx.inputs[8]->data : nullptr;
    const QConvShape &s = s_;
    parallelFor(ctx, s.N * s.OH, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) rowOf(x, w, res, y, r / s.OH, r % s.OH);
    });
    return Status::ok();
  }

 private:
  void rowOf(const void *x, const int8_t *w, const void *res, void *y, int64_t n, int64_t oh) const {
    const QConvShape &s = s_;
    const int64_t Cg = s.C / s.groups, Og = s.O / s.groups;
    auto xAt = [&](int64_t h, int64_t ww, int64_t c) -> int32_t {
      int64_t i = ((n * s.H + h) * s.W + ww) * s.C + c;
      return s.srcSigned ? int32_t(static_cast<const int8_t *>(x)[i]) : int32_t(static_cast<const uint8_t *>(x)[i]);
    };
    for (int64_t ow = 0; ow < s.OW; ++ow)
      for (int64_t o = 0; o < s.O; ++o) {
        const int64_t g = o / Og;
        int32_t acc = 0;
        for (int64_t kh = 0; kh < s.KH; ++kh) {
          const int64_t h = oh * s.strideH - s.padTop + kh * s.dilationH;
          if (h < 0 || h >= s.H) continue;
          for (int64_t kw = 0; kw < s.KW; ++kw) {
            const int64_t ww = ow * s.strideW - s.padLeft + kw * s.dilationW;
            if (ww < 0 || ww >= s.W) continue;
            const int8_t *wr = w + ((o * s.KH + kh) * s.KW + kw) * Cg;
            for (int64_t c = 0; c < Cg; ++c) acc += (xAt(h, ww, g * Cg + c) - s.srcZero) * int32_t(wr[c]);
          }
        }
        float v = s.scales[o] * (float(acc) + (s.bias.empty() ? 0.f : s.bias[o]));
        const int64_t at = ((n * s.OH + oh) * s.OW + ow) * s.O + o;
        if (s.hasResidual) {
          const float t = saturateTo(s.convType, std::nearbyint(v + float(s.convZero)));
          const int32_t r = s.out == DataType::kUint8 ? int32_t(static_cast<const uint8_t *>(res)[at])
                                                      : int32_t(static_cast<const int8_t *>(res)[at]);
          v = s.convToOut * (t - float(s.convZero)) + s.residualScale * float(r - s.residualZero);
        }
        if (s.relu) v = std::max(v, 0.f);
        if (s.out == DataType::kFloat32) {
          static_cast<float *>(y)[at] = v;
          continue;
        }
        const float q = saturateTo(s.out, std::nearbyint(v) + float(s.dstZero));
        if (s.out == DataType::kUint8)
          static_cast<uint8_t *>(y)[at] = uint8_t(q);
        else
          static_cast<int8_t *>(y)[at] = int8_t(q);
      }
  }

  QConvShape s_;
};

#if WEBNN_HAVE_ONEDNN
// oneDNN's int8 primitive; the portable loop if oneDNN fails on the first run.
class OneDnnQuantizedConv2d final : public Kernel {
 public:
  OneDnnQuantizedConv2d(std::unique_ptr<onednn::QuantizedConv2d> conv, QConvShape s)
      : conv_(std::move(conv)), portable_(std::move(s)) {}

  Status run(const KernelContext &ctx) override {
    if (!useFallback_) {
      const void *residual = ctx.numInputs > 8 && ctx.inputs[8] ? ctx.inputs[8]->data : nullptr;
      Status s = conv_->run(ctx.inputs[0]->data, ctx.inputs[3]->data, residual, ctx.outputs[0]->data, threadPool(ctx));
      if (s.isOk()) return s;
      useFallback_ = true;
    }
    return portable_.run(ctx);
  }
  void warmUp(int numThreads) override { conv_->buildPrimitive(numThreads); }
  bool allowsInPlace(size_t output, size_t input) const override { return output == 0 && input == 8; }

 private:
  std::unique_ptr<onednn::QuantizedConv2d> conv_;
  PortableQuantizedConv2d portable_;
  bool useFallback_ = false;
};
#endif

bool isInt8(DataType t) { return t == DataType::kInt8 || t == DataType::kUint8; }
bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }
int32_t zeroOf(const OperandDesc &z) {
  return z.dtype == DataType::kInt8 ? int32_t(*static_cast<const int8_t *>(z.constantData))
                                    : int32_t(*static_cast<const uint8_t *>(z.constantData));
}

// A one-element float32 / 8-bit constant pair (a scale and zero point).
bool scalarPair(const NodeDesc &node, size_t s, size_t z) {
  if (!present(node, s) || !present(node, z)) return false;
  const OperandDesc &sd = *node.inputs[s], &zd = *node.inputs[z];
  return sd.dtype == DataType::kFloat32 && isInt8(zd.dtype) && numElements(sd.shape) == 1 &&
         numElements(zd.shape) == 1 && sd.constantData && zd.constantData;
}

// Operands: input, inputScale, inputZeroPoint, filter, filterScale, bias?,
// outputScale?, outputZeroPoint?, residual?, residualScale?,
// residualZeroPoint?, convScale?, convZeroPoint?.
Status makeQuantizedConv2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 5, 13, 1));
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  const OperandDesc &x = *node.inputs[0], &xs = *node.inputs[1], &xz = *node.inputs[2];
  const OperandDesc &f = *node.inputs[3], &fs = *node.inputs[4];
  if (!isInt8(x.dtype) || xz.dtype != x.dtype) return nodeError(node, "input must be int8 or uint8, as its zero point");
  if (x.shape.size() != 4 || f.shape.size() != 4)
    return nodeError(node, "input (nhwc) and filter (ohwi) must have rank 4");
  if (f.dtype != DataType::kInt8 || !f.constantData) return nodeError(node, "filter must be an int8 constant");
  QConvShape s;
  s.N = x.shape[0], s.H = x.shape[1], s.W = x.shape[2], s.C = x.shape[3];
  s.O = f.shape[0], s.KH = f.shape[1], s.KW = f.shape[2];
  s.groups = node.attributes.getInt("groups", 1);
  if (s.groups < 1 || s.C % s.groups != 0 || s.O % s.groups != 0 || f.shape[3] != s.C / s.groups)
    return nodeError(node, "groups must divide the input and output channels, filter [O, KH, KW, C / groups]");
  if (s.C / s.groups * s.KH * s.KW > 32768) return nodeError(node, "C / groups * KH * KW must be <= 32768");
  std::vector<int64_t> pad = node.attributes.getInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> str = node.attributes.getInts("strides", {1, 1});
  std::vector<int64_t> dil = node.attributes.getInts("dilations", {1, 1});
  if (pad.size() != 4 || str.size() != 2 || dil.size() != 2 || str[0] < 1 || str[1] < 1 || dil[0] < 1 ||
      dil[1] < 1 || pad[0] < 0 || pad[1] < 0 || pad[2] < 0 || pad[3] < 0)
    return nodeError(node, "padding (4 values >= 0), strides and dilations (2 values >= 1) are malformed");
  s.padTop = pad[0], s.padBottom = pad[1], s.padLeft = pad[2], s.padRight = pad[3];
  s.strideH = str[0], s.strideW = str[1], s.dilationH = dil[0], s.dilationW = dil[1];
  const int64_t spanH = (s.KH - 1) * s.dilationH + 1, spanW = (s.KW - 1) * s.dilationW + 1;
  if (s.H + s.padTop + s.padBottom < spanH || s.W + s.padLeft + s.padRight < spanW)
    return nodeError(node, "the padded input is smaller than the dilated filter");
  s.OH = (s.H + s.padTop + s.padBottom - spanH) / s.strideH + 1;
  s.OW = (s.W + s.padLeft + s.padRight - spanW) / s.strideW + 1;
  if (xs.dtype != DataType::kFloat32 || numElements(xs.shape) != 1 || numElements(xz.shape) != 1 ||
      !xs.constantData || !xz.constantData)
    return nodeError(node, "inputScale / inputZeroPoint must be one-element constants");
  const int64_t nfs = numElements(fs.shape);
  if (fs.dtype != DataType::kFloat32 || (nfs != 1 && nfs != s.O) || !fs.constantData)
    return nodeError(node, "filterScale must be a float32 constant of 1 or O elements");
  const float sx = *static_cast<const float *>(xs.constantData);
  s.srcSigned = x.dtype == DataType::kInt8;
  s.srcZero = zeroOf(xz);
  float so = 1.f;
  if (present(node, 6) != present(node, 7)) return nodeError(node, "outputScale and outputZeroPoint go together");
  if (present(node, 6)) {
    const OperandDesc &os = *node.inputs[6], &oz = *node.inputs[7];
    if (os.dtype != DataType::kFloat32 || !isInt8(oz.dtype) || numElements(os.shape) != 1 ||
        numElements(oz.shape) != 1 || !os.constantData || !oz.constantData)
      return nodeError(node, "outputScale / outputZeroPoint must be one-element float32 / int8 or uint8 constants");
    so = *static_cast<const float *>(os.constantData);
    s.out = oz.dtype;
    s.dstZero = zeroOf(oz);
  }
  const float *biasData = nullptr;
  if (present(node, 5)) {
    const OperandDesc &b = *node.inputs[5];
    if (b.dtype != DataType::kFloat32 || b.shape != Shape{s.O} || !b.constantData)
      return nodeError(node, "bias must be a float32 constant [" + std::to_string(s.O) + "]");
    biasData = static_cast<const float *>(b.constantData);
  }
  const std::string activation = node.attributes.getString("activation", "none");
  if (activation != "none" && activation != "relu") return nodeError(node, "activation must be \"none\" or \"relu\"");
  s.relu = activation == "relu";
  float cs = 0.f;
  if (present(node, 8)) {
    const OperandDesc &r = *node.inputs[8];
    if (s.out == DataType::kFloat32 || r.dtype != s.out)
      return nodeError(node, "residual must be of the 8-bit output's type");
    if (!scalarPair(node, 9, 10) || !scalarPair(node, 11, 12) || node.inputs[10]->dtype != r.dtype)
      return nodeError(node, "residual needs one-element constant residualScale / residualZeroPoint (of its type) and "
                             "convScale / convZeroPoint");
    s.hasResidual = true;
    s.residualScale = *static_cast<const float *>(node.inputs[9]->constantData) / so;
    s.residualZero = zeroOf(*node.inputs[10]);
    cs = *static_cast<const float *>(node.inputs[11]->constantData);
    s.convType = node.inputs[12]->dtype;
    s.convZero = zeroOf(*node.inputs[12]);
    s.convToOut = cs / so;
  } else if (node.inputs.size() > 9 && (present(node, 9) || present(node, 10) || present(node, 11) || present(node, 12))) {
    return nodeError(node, "residualScale, residualZeroPoint, convScale and convZeroPoint need a residual");
  }
  for (int64_t o = 0; o < s.O; ++o) {
    const float sw = static_cast<const float *>(fs.constantData)[nfs == 1 ? 0 : o];
    const float sxw = sx * sw;
    s.scales.push_back(s.hasResidual ? sxw / cs : s.out == DataType::kFloat32 ? sxw : sxw / so);
    if (biasData) s.bias.push_back(sxw != 0.f ? biasData[o] / sxw : 0.f);
  }
  // relu before an 8-bit output whose zero point is the type's lowest value
  // changes nothing (the saturation clips the negatives to it): one post-op
  // less per element (ResNet-50's residual joins).
  if (s.relu && ((s.out == DataType::kUint8 && s.dstZero == 0) || (s.out == DataType::kInt8 && s.dstZero == -128)))
    s.relu = false;
  if (s.hasResidual)
    WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, node.inputs[8]->shape, s.out));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, Shape{s.N, s.OH, s.OW, s.O}, s.out));
#if WEBNN_HAVE_ONEDNN
  onednn::QuantizedConv2dParams p;
  p.N = s.N, p.C = s.C, p.H = s.H, p.W = s.W, p.O = s.O, p.OH = s.OH, p.OW = s.OW, p.KH = s.KH, p.KW = s.KW;
  p.groups = s.groups, p.strideH = s.strideH, p.strideW = s.strideW, p.dilationH = s.dilationH;
  p.dilationW = s.dilationW, p.padTop = s.padTop, p.padBottom = s.padBottom, p.padLeft = s.padLeft;
  p.padRight = s.padRight, p.srcSigned = s.srcSigned, p.srcZero = s.srcZero, p.dstZero = s.dstZero;
  p.output = s.out == DataType::kFloat32 ? onednn::QuantizedConv2dParams::Output::kFloat32
             : s.out == DataType::kUint8  ? onednn::QuantizedConv2dParams::Output::kUint8
                                          : onednn::QuantizedConv2dParams::Output::kInt8;
  p.scales = s.scales;
  p.bias = s.bias;
  p.relu = s.relu;
  p.hasResidual = s.hasResidual;
  p.convZero = s.convZero;
  p.convMin = s.convType == DataType::kUint8 ? 0.f : -128.f;
  p.convMax = s.convType == DataType::kUint8 ? 255.f : 127.f;
  p.convToOut = s.convToOut;
  p.residualScale = s.residualScale;
  p.residualZero = s.residualZero;
  std::string why;
  if (std::unique_ptr<onednn::QuantizedConv2d> conv = onednn::QuantizedConv2d::create(p, &why)) {
    *out = std::make_unique<OneDnnQuantizedConv2d>(std::move(conv), std::move(s));
    return Status::ok();
  }
#endif
  *out = std::make_unique<PortableQuantizedConv2d>(std::move(s));
  return Status::ok();
}

}  // namespace

void registerQuantizedConvKernels(KernelTable &t) { t.add("quantizedConv2d", &makeQuantizedConv2d); }

}  // namespace webnn::cpu::kernels
