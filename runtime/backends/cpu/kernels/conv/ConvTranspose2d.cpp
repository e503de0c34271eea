// convTranspose2d (nchw/nhwc, every filter layout, groups, dilations,
// asymmetric padding, outputPadding/outputSizes): SGEMM into a column
// buffer, then a gather-form col2im (each output pixel pulls its
// contributions), so threads never collide. The filter is reordered once, on
// the first run, when it is a constant, else on every run; float16 runs
// through the float32 kernel.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <mutex>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Sgemm.h"

namespace webnn::cpu::kernels {
namespace {

class ConvTranspose2dKernel final : public Kernel {
 public:
  ConvTranspose2dKernel(ConvGeometry g, FilterIndexer fi, bool constantFilter, bool hasBias)
      : g_(g), fi_(fi), hasBias_(hasBias), constantFilter_(constantFilter) {}

  Status run(const KernelContext &ctx) override {
    std::call_once(prepared_, [&] {  // first run, not load: loading must not touch the mmapped weights
      filter_.resize(size_t(g_.C * g_.OCg() * g_.KH * g_.KW));
      col_.resize(size_t(g_.H * g_.W * g_.OCg() * g_.KH * g_.KW));
      if (constantFilter_) reorderFilter(in<float>(ctx, 1));
    });
    if (!constantFilter_) reorderFilter(in<float>(ctx, 1));
    const float *x = in<float>(ctx, 0);
    const float *bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    float *y = outp<float>(ctx, 0);
    int64_t ICg = g_.ICg(), OCg = g_.OCg(), Kc = OCg * g_.KH * g_.KW, Pin = g_.H * g_.W;
    for (int64_t n = 0; n < g_.N; ++n)
      for (int64_t grp = 0; grp < g_.groups; ++grp) {
        const float *wg = filter_.data() + grp * ICg * Kc;
        if (!g_.nhwc) {
          // col[(oc, kh, kw)][pin] = sum_i W[i][(oc,kh,kw)] * x[i][pin]
          const float *xg = x + (n * g_.C + grp * ICg) * Pin;
          sgemm(Kc, Pin, ICg, {wg, 1, Kc}, {xg, Pin, 1}, col_.data(), Pin, false, ctx);
        } else {
          // col[pin][(kh, kw, oc)] = sum_i x[pin][i] * W[i][(kh,kw,oc)]
          const float *xg = x + n * Pin * g_.C + grp * ICg;
          sgemm(Pin, Kc, ICg, {xg, g_.C, 1}, {wg, Kc, 1}, col_.data(), Kc, false, ctx);
        }
        col2im(ctx, n, grp, bias, y);
      }
    return Status::ok();
  }

 private:
  // nchw: filter_ = [groups][ICg][OCg][KH][KW]; nhwc: [groups][ICg][KH][KW][OCg].
  void reorderFilter(const float *src) {
    int64_t ICg = g_.ICg(), OCg = g_.OCg();
    for (int64_t i = 0; i < g_.C; ++i)  // i = grp * ICg + icg
      for (int64_t oc = 0; oc < OCg; ++oc)
        for (int64_t h = 0; h < g_.KH; ++h)
          for (int64_t w = 0; w < g_.KW; ++w) {
            // The spec's transposed filter has its "input" dim = all input
            // channels and its "output" dim = OCg.
            float v = src[fi_.at(oc, i, h, w)];
            int64_t idx = g_.nhwc ? (((i * g_.KH + h) * g_.KW + w) * OCg + oc)
                                  : (((i * OCg + oc) * g_.KH + h) * g_.KW + w);
            filter_[idx] = v;
          }
    (void)ICg;
  }

  void col2im(const KernelContext &ctx, int64_t n, int64_t grp, const float *bias, float *y) {
    int64_t OCg = g_.OCg(), Pin = g_.H * g_.W, Kc = OCg * g_.KH * g_.KW;
    const float *col = col_.data();
    // One task per output row: gather every (kh, kw) tap that lands on it.
    parallelFor(ctx, g_.OH, 1, [&](int64_t b, int64_t e) {
      for (int64_t oh = b; oh < e; ++oh)
        for (int64_t ow = 0; ow < g_.OW; ++ow) {
          for (int64_t oc = 0; oc < OCg; ++oc) {
            int64_t o = grp * OCg + oc;
            float acc = bias ? bias[o] : 0.f;
            for (int64_t kh = 0; kh < g_.KH; ++kh) {
              int64_t th = oh + g_.padTop - kh * g_.dh;
              if (th < 0 || th % g_.sh) continue;
              int64_t ih = th / g_.sh;
              if (ih >= g_.H) continue;
              for (int64_t kw = 0; kw < g_.KW; ++kw) {
                int64_t tw = ow + g_.padLeft - kw * g_.dw;
                if (tw < 0 || tw % g_.sw) continue;
                int64_t iw = tw / g_.sw;
                if (iw >= g_.W) continue;
                int64_t pin = ih * g_.W + iw;
                acc += g_.nhwc ? col[pin * Kc + (kh * g_.KW + kw) * OCg + oc]
                               : col[((oc * g_.KH + kh) * g_.KW + kw) * Pin + pin];
              }
            }
            if (g_.nhwc) y[((n * g_.OH + oh) * g_.OW + ow) * g_.O + o] = acc;
            else y[((n * g_.O + o) * g_.OH + oh) * g_.OW + ow] = acc;
          }
        }
    });
  }

  ConvGeometry g_;
  FilterIndexer fi_;
  bool hasBias_, constantFilter_;
  std::once_flag prepared_;
  std::vector<float> filter_, col_;
};

}  // namespace

Status makeConvTranspose2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 3, 1));
  const OperandDesc &x = *node.inputs[0], &f = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (f.dtype != x.dtype) return nodeError(node, "filter data type differs from input");
  ConvGeometry g;
  std::vector<int64_t> padding;
  WEBNN_RETURN_IF_ERROR(readCommonAttrs(node, &g, &padding));
  std::string fl = node.attributes.getString("filterLayout", "iohw");
  std::vector<int64_t> outPad = node.attributes.getInts("outputPadding", {0, 0});
  bool hasSizes = node.attributes.has("outputSizes");
  std::vector<int64_t> sizes = node.attributes.getInts("outputSizes", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (fl != "iohw" && fl != "hwoi" && fl != "ohwi") return nodeError(node, "unknown filterLayout '" + fl + "'");
  if (f.shape.size() != 4) return nodeError(node, "filter must be 4-D");
  if (outPad.size() != 2) return nodeError(node, "outputPadding must have 2 entries");
  if (hasSizes && sizes.size() != 2) return nodeError(node, "outputSizes must have 2 entries");
  int64_t I = 0, OCg = 0;
  FilterIndexer fi = makeIndexer(fl, f.shape, &OCg, &I, &g.KH, &g.KW);
  if (I != g.C) return nodeError(node, "filter input channels must equal input channels");
  if (g.C % g.groups != 0) return nodeError(node, "input channels must be divisible by groups");
  g.O = OCg * g.groups;
  if (outPad[0] < 0 || outPad[1] < 0 || outPad[0] >= g.sh || outPad[1] >= g.sw)
    return nodeError(node, "outputPadding must be smaller than strides");
  // (in - 1) * stride + (k - 1) * dilation + 1 - padding, overflow-checked:
  // options of a corrupt artifact can overflow it.
  auto baseSize = [](int64_t in, int64_t stride, int64_t k, int64_t dil, int64_t p0, int64_t p1, int64_t *out) {
    int64_t a, b;
    return !(__builtin_mul_overflow(in - 1, stride, &a) || __builtin_mul_overflow(k - 1, dil, &b) ||
             __builtin_add_overflow(a, b, out) || __builtin_add_overflow(*out, 1, out) ||
             __builtin_sub_overflow(*out, p0, out) || __builtin_sub_overflow(*out, p1, out));
  };
  int64_t baseH, baseW;
  if (!baseSize(g.H, g.sh, g.KH, g.dh, g.padTop, g.padBottom, &baseH) ||
      !baseSize(g.W, g.sw, g.KW, g.dw, g.padLeft, g.padRight, &baseW))
    return nodeError(node, "the output size overflows int64");
  if (hasSizes) {
    g.OH = sizes[0];
    g.OW = sizes[1];
    int64_t dh, dw;
    if (__builtin_sub_overflow(g.OH, baseH, &dh) || __builtin_sub_overflow(g.OW, baseW, &dw) || dh < 0 ||
        dh >= g.sh || dw < 0 || dw >= g.sw)
      return nodeError(node, "outputSizes are not reachable with these strides and padding");
  } else if (__builtin_add_overflow(baseH, outPad[0], &g.OH) || __builtin_add_overflow(baseW, outPad[1], &g.OW)) {
    return nodeError(node, "the output size overflows int64");
  }
  if (g.OH < 0 || g.OW < 0) return nodeError(node, "padding exceeds the output size");
  WEBNN_RETURN_IF_ERROR(checkBias(node, g.O));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, outputShape(g), x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeConvTranspose2d, out);
  *out = std::make_unique<ConvTranspose2dKernel>(g, fi, f.constantData != nullptr, hasBiasInput(node));
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
