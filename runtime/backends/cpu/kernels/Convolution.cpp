// conv2d and convTranspose2d (nchw/nhwc, every filter layout, groups,
// dilations, asymmetric padding, outputPadding/outputSizes).
//
// conv2d: im2col + SGEMM per (batch, group), with the pixel dimension tiled so
// the column buffer stays bounded; 1x1/stride-1/no-pad convolutions read the
// input directly. Depthwise convolutions (groups == channels == outputs) run a
// direct loop instead, since as a GEMM they have a single output row.
// convTranspose2d: SGEMM into a column buffer, then a gather-form col2im
// (each output pixel pulls its contributions), so threads never collide.
//
// Filters are reordered into the layout the GEMM wants: once, on the first run,
// when the filter is a constant, else on every run.
// float16 runs via the float32 kernels.
//
// fusedConv2d (beyond the spec, docs/FUSED_OPS.md) = activation(conv2d +
// residual): on oneDNN its residual and activation are post-ops of the one
// convolution primitive; the portable kernel runs conv2d, then one pass over
// the output for the residual and activation.
//
// Depthwise 3x3 float32 nhwc convolutions with no residual run our AVX-512
// kernel (Depthwise.h) where the CPU has AVX-512: stride 1 always (faster
// than oneDNN's brdgmm_dw), stride 2 when oneDNN does not take the layer.
//
// With oneDNN (WEBNN_HAVE_ONEDNN), conv2d layers large enough to pay for it
// run on oneDNN instead (onednn/Conv2d.cpp); these kernels remain for small
// layers, shapes oneDNN only has reference code for, and builds without it.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>

#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Depthwise.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/Pointwise.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"
#include "runtime/backends/cpu/kernels/PointwiseDepthwise.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/Sgemm.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/DeferredKernel.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::kernels {
namespace {

struct ConvGeometry {
  bool nhwc = false;
  int64_t N = 0, C = 0, H = 0, W = 0;      // input
  int64_t O = 0, OH = 0, OW = 0;           // output
  int64_t KH = 0, KW = 0, groups = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t ICg() const { return C / groups; }
  int64_t OCg() const { return O / groups; }
};

// Maps (o, i, kh, kw) of a 4-D filter with named layout to an element offset.
struct FilterIndexer {
  int64_t so = 0, si = 0, sh = 0, sw = 0;
  int64_t at(int64_t o, int64_t i, int64_t h, int64_t w) const { return o * so + i * si + h * sh + w * sw; }
};

// Layout letters o/i/h/w (any order) and the 4 dims as stored.
FilterIndexer makeIndexer(const std::string &layout, const Shape &dims, int64_t *O, int64_t *I, int64_t *KH,
                          int64_t *KW) {
  FilterIndexer f;
  int64_t stride = 1;
  for (int d = 3; d >= 0; --d) {
    switch (layout[d]) {
      case 'o': f.so = stride; *O = dims[d]; break;
      case 'i': f.si = stride; *I = dims[d]; break;
      case 'h': f.sh = stride; *KH = dims[d]; break;
      default: f.sw = stride; *KW = dims[d]; break;
    }
    stride *= dims[d];
  }
  return f;
}

Status readCommonAttrs(const NodeDesc &node, ConvGeometry *g, std::vector<int64_t> *padding) {
  *padding = node.attributes.getInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = node.attributes.getInts("strides", {1, 1});
  std::vector<int64_t> dil = node.attributes.getInts("dilations", {1, 1});
  g->groups = node.attributes.getInt("groups", 1);
  std::string layout = node.attributes.getString("inputLayout", "nchw");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (padding->size() != 4) return nodeError(node, "padding must have 4 entries");
  if (strides.size() != 2 || dil.size() != 2) return nodeError(node, "strides and dilations must have 2 entries");
  for (int64_t p : *padding)
    if (p < 0) return nodeError(node, "padding must be non-negative");
  if (strides[0] < 1 || strides[1] < 1 || dil[0] < 1 || dil[1] < 1)
    return nodeError(node, "strides and dilations must be >= 1");
  if (g->groups < 1) return nodeError(node, "groups must be >= 1");
  if (layout != "nchw" && layout != "nhwc") return nodeError(node, "unknown inputLayout '" + layout + "'");
  g->nhwc = layout == "nhwc";
  g->padTop = (*padding)[0];
  g->padBottom = (*padding)[1];
  g->padLeft = (*padding)[2];
  g->padRight = (*padding)[3];
  g->sh = strides[0];
  g->sw = strides[1];
  g->dh = dil[0];
  g->dw = dil[1];
  const Shape &x = node.inputs[0]->shape;
  if (x.size() != 4) return nodeError(node, "input must be 4-D, got " + shapeToString(x));
  g->N = x[0];
  g->C = g->nhwc ? x[3] : x[1];
  g->H = g->nhwc ? x[1] : x[2];
  g->W = g->nhwc ? x[2] : x[3];
  return Status::ok();
}

Shape outputShape(const ConvGeometry &g) {
  return g.nhwc ? Shape{g.N, g.OH, g.OW, g.O} : Shape{g.N, g.O, g.OH, g.OW};
}

// ---------------------------------------------------------------- conv2d
class Conv2dKernel final : public Kernel {
 public:
  Conv2dKernel(ConvGeometry g, FilterIndexer fi, bool constantFilter, bool hasBias)
      : g_(g), fi_(fi), hasBias_(hasBias), constantFilter_(constantFilter) {
    depthwise_ = g_.groups == g_.C && g_.O == g_.C;
    pointwise_ = g_.KH == 1 && g_.KW == 1 && g_.sh == 1 && g_.sw == 1 && g_.padTop == 0 && g_.padLeft == 0 &&
                 g_.padBottom == 0 && g_.padRight == 0;
    int64_t K = g_.ICg() * g_.KH * g_.KW, P = g_.OH * g_.OW;
    // Column tile: at most ~1M floats (4 MB) of im2col at once.
    tileP_ = std::max<int64_t>(1, std::min<int64_t>(P, (int64_t(1) << 20) / std::max<int64_t>(1, K)));
  }

  Status run(const KernelContext &ctx) override {
    // Buffers and the reordered constant filter are made on the first run,
    // not at load: loading must not touch the (mmapped) weights.
    std::call_once(prepared_, [&] {
      filter_.resize(size_t(g_.O * g_.ICg() * g_.KH * g_.KW));
      if (!depthwise_ && !pointwise_) col_.resize(size_t(g_.ICg() * g_.KH * g_.KW * tileP_));
      if (constantFilter_) reorderFilter(in<float>(ctx, 1));
    });
    if (!constantFilter_) reorderFilter(in<float>(ctx, 1));
    const float *x = in<float>(ctx, 0);
    const float *bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    float *y = outp<float>(ctx, 0);
    if (depthwise_) {
      g_.nhwc ? depthwiseNhwc(ctx, x, bias, y) : depthwiseNchw(ctx, x, bias, y);
      return Status::ok();
    }
    int64_t ICg = g_.ICg(), OCg = g_.OCg(), K = ICg * g_.KH * g_.KW, P = g_.OH * g_.OW;
    for (int64_t n = 0; n < g_.N; ++n) {
      for (int64_t grp = 0; grp < g_.groups; ++grp) {
        if (!g_.nhwc) {
          const float *xg = x + (n * g_.C + grp * ICg) * g_.H * g_.W;
          float *yg = y + (n * g_.O + grp * OCg) * P;
          MatrixView A{filter_.data() + grp * OCg * K, K, 1};
          if (pointwise_) {
            sgemm(OCg, P, K, A, {xg, g_.H * g_.W, 1}, yg, P, false, ctx);
            continue;
          }
          for (int64_t p0 = 0; p0 < P; p0 += tileP_) {
            int64_t pt = std::min(tileP_, P - p0);
            im2colNchw(ctx, xg, p0, pt);
            sgemm(OCg, pt, K, A, {col_.data(), pt, 1}, yg + p0, P, false, ctx);
          }
        } else {
          const float *xn = x + n * g_.H * g_.W * g_.C + grp * ICg;
          float *yg = y + n * P * g_.O + grp * OCg;
          MatrixView B{filter_.data() + grp * K * OCg, OCg, 1};
          if (pointwise_) {
            sgemm(P, OCg, K, {xn, g_.C, 1}, B, yg, g_.O, false, ctx);
            continue;
          }
          for (int64_t p0 = 0; p0 < P; p0 += tileP_) {
            int64_t pt = std::min(tileP_, P - p0);
            im2colNhwc(ctx, xn, p0, pt);
            sgemm(pt, OCg, K, {col_.data(), K, 1}, B, yg + p0 * g_.O, g_.O, false, ctx);
          }
        }
      }
    }
    if (bias) addBias(ctx, bias, y);
    return Status::ok();
  }

 private:
  // nchw: filter_ = [O][ICg][KH][KW]. nhwc: filter_ = [groups][KH][KW][ICg][OCg].
  // depthwise: nchw [C][KH][KW], nhwc [KH][KW][C].
  void reorderFilter(const float *src) {
    int64_t ICg = g_.ICg(), OCg = g_.OCg();
    float *dst = filter_.data();
    for (int64_t o = 0; o < g_.O; ++o)
      for (int64_t i = 0; i < ICg; ++i)
        for (int64_t h = 0; h < g_.KH; ++h)
          for (int64_t w = 0; w < g_.KW; ++w) {
            float v = src[fi_.at(o, i, h, w)];
            int64_t idx;
            if (depthwise_ && g_.nhwc) idx = (h * g_.KW + w) * g_.O + o;
            else if (!g_.nhwc || depthwise_) idx = ((o * ICg + i) * g_.KH + h) * g_.KW + w;
            else {
              int64_t grp = o / OCg, oc = o % OCg;
              idx = (((grp * g_.KH + h) * g_.KW + w) * ICg + i) * OCg + oc;
            }
            dst[idx] = v;
          }
  }

  // col[k = (i, kh, kw)][p - p0] for pixels p0..p0+pt.
  void im2colNchw(const KernelContext &ctx, const float *xg, int64_t p0, int64_t pt) {
    int64_t K = g_.ICg() * g_.KH * g_.KW;
    float *col = col_.data();
    parallelFor(ctx, K, std::max<int64_t>(1, 16384 / pt), [&](int64_t kb, int64_t ke) {
      for (int64_t k = kb; k < ke; ++k) {
        int64_t kw = k % g_.KW, kh = (k / g_.KW) % g_.KH, i = k / (g_.KW * g_.KH);
        const float *plane = xg + i * g_.H * g_.W;
        float *dst = col + k * pt;
        for (int64_t t = 0; t < pt; ++t) {
          int64_t p = p0 + t, oh = p / g_.OW, ow = p % g_.OW;
          int64_t ih = oh * g_.sh - g_.padTop + kh * g_.dh, iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
          dst[t] = (ih >= 0 && ih < g_.H && iw >= 0 && iw < g_.W) ? plane[ih * g_.W + iw] : 0.f;
        }
      }
    });
  }

  // col[p - p0][k = (kh, kw, i)]: channels are contiguous in nhwc, so copy runs.
  void im2colNhwc(const KernelContext &ctx, const float *xn, int64_t p0, int64_t pt) {
    int64_t ICg = g_.ICg(), K = ICg * g_.KH * g_.KW;
    float *col = col_.data();
    parallelFor(ctx, pt, std::max<int64_t>(1, 16384 / K), [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; ++t) {
        int64_t p = p0 + t, oh = p / g_.OW, ow = p % g_.OW;
        float *dst = col + t * K;
        for (int64_t kh = 0; kh < g_.KH; ++kh)
          for (int64_t kw = 0; kw < g_.KW; ++kw) {
            int64_t ih = oh * g_.sh - g_.padTop + kh * g_.dh, iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
            float *d = dst + (kh * g_.KW + kw) * ICg;
            if (ih >= 0 && ih < g_.H && iw >= 0 && iw < g_.W)
              std::memcpy(d, xn + (ih * g_.W + iw) * g_.C, size_t(ICg) * sizeof(float));
            else
              std::fill(d, d + ICg, 0.f);
          }
      }
    });
  }

  void depthwiseNchw(const KernelContext &ctx, const float *x, const float *bias, float *y) {
    parallelFor(ctx, g_.N * g_.C, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t c = t % g_.C;
        const float *plane = x + t * g_.H * g_.W;
        const float *wc = filter_.data() + c * g_.KH * g_.KW;
        float *out = y + t * g_.OH * g_.OW;
        float b0 = bias ? bias[c] : 0.f;
        for (int64_t oh = 0; oh < g_.OH; ++oh)
          for (int64_t ow = 0; ow < g_.OW; ++ow) {
            float acc = b0;
            for (int64_t kh = 0; kh < g_.KH; ++kh) {
              int64_t ih = oh * g_.sh - g_.padTop + kh * g_.dh;
              if (ih < 0 || ih >= g_.H) continue;
              for (int64_t kw = 0; kw < g_.KW; ++kw) {
                int64_t iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
                if (iw >= 0 && iw < g_.W) acc += plane[ih * g_.W + iw] * wc[kh * g_.KW + kw];
              }
            }
            out[oh * g_.OW + ow] = acc;
          }
      }
    });
  }

  void depthwiseNhwc(const KernelContext &ctx, const float *x, const float *bias, float *y) {
    int64_t C = g_.C;
    parallelFor(ctx, g_.N * g_.OH, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t n = t / g_.OH, oh = t % g_.OH;
        for (int64_t ow = 0; ow < g_.OW; ++ow) {
          float *out = y + ((n * g_.OH + oh) * g_.OW + ow) * C;
          for (int64_t c = 0; c < C; ++c) out[c] = bias ? bias[c] : 0.f;
          for (int64_t kh = 0; kh < g_.KH; ++kh) {
            int64_t ih = oh * g_.sh - g_.padTop + kh * g_.dh;
            if (ih < 0 || ih >= g_.H) continue;
            for (int64_t kw = 0; kw < g_.KW; ++kw) {
              int64_t iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
              if (iw < 0 || iw >= g_.W) continue;
              const float *xi = x + ((n * g_.H + ih) * g_.W + iw) * C;
              const float *wk = filter_.data() + (kh * g_.KW + kw) * C;
              for (int64_t c = 0; c < C; ++c) out[c] += xi[c] * wk[c];
            }
          }
        }
      }
    });
  }

  void addBias(const KernelContext &ctx, const float *bias, float *y) {
    int64_t P = g_.OH * g_.OW;
    if (g_.nhwc) {
      parallelFor(ctx, g_.N * P, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, g_.O)), [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p)
          for (int64_t o = 0; o < g_.O; ++o) y[p * g_.O + o] += bias[o];
      });
    } else {
      parallelFor(ctx, g_.N * g_.O, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, P)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          float bv = bias[t % g_.O];
          for (int64_t p = 0; p < P; ++p) y[t * P + p] += bv;
        }
      });
    }
  }

  ConvGeometry g_;
  FilterIndexer fi_;
  bool hasBias_, constantFilter_;
  bool depthwise_ = false, pointwise_ = false;
  std::once_flag prepared_;
  std::vector<float> filter_, col_;
  int64_t tileP_ = 1;
};

#if WEBNN_HAVE_ONEDNN
// conv2d on oneDNN (onednn/Conv2d.cpp), the portable kernel kept for the
// case where oneDNN cannot build its primitive on the first run.
class OneDnnConv2dKernel final : public Kernel {
 public:
  OneDnnConv2dKernel(std::unique_ptr<onednn::Conv2d> conv, const NodeDesc &node, KernelFactory portable)
      : conv_(std::move(conv)), fallback_(node, portable), filter_(node.inputs[1]->constantData) {}

  Status run(const KernelContext &ctx) override {
    if (!useFallback_) {
      const TensorBuffer *bias = ctx.numInputs > 2 ? ctx.inputs[2] : nullptr;
      const TensorBuffer *residual = ctx.numInputs > 3 ? ctx.inputs[3] : nullptr;  // fusedConv2d
      Status s = conv_->run(ctx.inputs[0]->data, ctx.inputs[1]->data, bias ? bias->data : nullptr,
                            ctx.outputs[0]->data, threadPool(ctx).numThreads(), residual ? residual->data : nullptr);
      if (s.isOk()) return s;
      useFallback_ = true;
      refused_ = s.message();
    }
    return fallback_.run(ctx, refused_);
  }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    if (!filter_) return Status::ok();
    return onednn::packOperand(
        1, [&] { return conv_->packedFilterLayout(numThreads); },
        [&] { return conv_->packedFilterBytes(numThreads); },
        [&](void *dst) { conv_->packFilter(filter_, dst, numThreads); }, out);
  }

  void warmUp(int numThreads) override { conv_->buildPrimitive(numThreads); }

 private:
  std::unique_ptr<onednn::Conv2d> conv_;
  onednn::DeferredKernel fallback_;
  const void *filter_;  // constant filter, else null
  bool useFallback_ = false;
  std::string refused_;  // oneDNN's reason, once it gave up
};
#endif

Status checkBias(const NodeDesc &node, int64_t O) {
  if (node.inputs.size() < 3 || !node.inputs[2]) return Status::ok();
  const OperandDesc &b = *node.inputs[2];
  if (b.dtype != node.inputs[0]->dtype) return nodeError(node, "bias data type differs from input");
  if (b.shape != Shape{O}) return nodeError(node, "bias must have shape [" + std::to_string(O) + "]");
  return Status::ok();
}

// Checks a conv2d node and computes its geometry.
Status checkConv2d(const NodeDesc &node, ConvGeometry *geometry, FilterIndexer *indexer, size_t maxInputs = 3) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, maxInputs, 1));
  const OperandDesc &x = *node.inputs[0], &f = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (f.dtype != x.dtype) return nodeError(node, "filter data type differs from input");
  ConvGeometry g;
  std::vector<int64_t> padding;
  WEBNN_RETURN_IF_ERROR(readCommonAttrs(node, &g, &padding));
  std::string fl = node.attributes.getString("filterLayout", "oihw");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (fl != "oihw" && fl != "hwio" && fl != "ohwi" && fl != "ihwo")
    return nodeError(node, "unknown filterLayout '" + fl + "'");
  if (f.shape.size() != 4) return nodeError(node, "filter must be 4-D");
  int64_t I = 0;
  FilterIndexer fi = makeIndexer(fl, f.shape, &g.O, &I, &g.KH, &g.KW);
  if (g.C % g.groups != 0 || I != g.C / g.groups)
    return nodeError(node, "filter input channels (" + std::to_string(I) + ") times groups (" +
                               std::to_string(g.groups) + ") must equal input channels (" + std::to_string(g.C) +
                               ")");
  if (g.O % g.groups != 0) return nodeError(node, "output channels must be divisible by groups");
  int64_t effH, effW, padH, padW;
  // Options of a corrupt artifact can overflow these.
  if (__builtin_mul_overflow(g.dh, g.KH - 1, &effH) || __builtin_add_overflow(effH, 1, &effH) ||
      __builtin_mul_overflow(g.dw, g.KW - 1, &effW) || __builtin_add_overflow(effW, 1, &effW) ||
      __builtin_add_overflow(g.H, g.padTop, &padH) || __builtin_add_overflow(padH, g.padBottom, &padH) ||
      __builtin_add_overflow(g.W, g.padLeft, &padW) || __builtin_add_overflow(padW, g.padRight, &padW))
    return nodeError(node, "the dilated filter or the padded input size overflows int64");
  if (padH < effH || padW < effW) return nodeError(node, "the dilated filter is larger than the padded input");
  g.OH = (padH - effH) / g.sh + 1;
  g.OW = (padW - effW) / g.sw + 1;
  WEBNN_RETURN_IF_ERROR(checkBias(node, g.O));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, outputShape(g), x.dtype));
  *geometry = g;
  *indexer = fi;
  return Status::ok();
}

std::atomic<bool> gDepthwiseAvx512{[] {
  const char *v = std::getenv("WEBNN_DEPTHWISE_AVX512");
  return !(v && std::string(v) == "0");
}()};
std::atomic<uint64_t> gDepthwiseAvx512Runs{0};

// A depthwise 3x3 filter as [3][3][C] (Depthwise.h's layout).
void reorderDepthwiseFilter(const float *src, const FilterIndexer &fi, int64_t C, float *hwc) {
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t w = 0; w < 3; ++w) hwc[(h * 3 + w) * C + c] = src[fi.at(c, 0, h, w)];
}

// A 1x1 filter as [C][O] (Pointwise.h's layout).
void reorderPointwiseFilter(const float *src, const FilterIndexer &fi, int64_t C, int64_t O, float *kn) {
  for (int64_t k = 0; k < C; ++k)
    for (int64_t n = 0; n < O; ++n) kn[k * O + n] = src[fi.at(n, k, 0, 0)];
}

// Depthwise 3x3, nhwc, float32 on AVX-512 (Depthwise.h): bias and a
// clamp (ReLU, ReLU6) in the same pass. Rows are split over threads.
class DepthwiseAvx512Kernel final : public Kernel {
 public:
  DepthwiseAvx512Kernel(ConvGeometry g, FilterIndexer fi, bool constantFilter, bool hasBias, float lo, float hi)
      : g_(g), fi_(fi), constantFilter_(constantFilter), hasBias_(hasBias) {
    p_.H = g.H, p_.W = g.W, p_.C = g.C, p_.OH = g.OH, p_.OW = g.OW;
    p_.stride = g.sh, p_.padTop = g.padTop, p_.padLeft = g.padLeft;
    p_.lo = lo, p_.hi = hi;
  }

  Status run(const KernelContext &ctx) override {
    // The filter as [3][3][C], made on the first run (loading must not touch
    // the mmapped weights), on every run when it is not constant.
    std::call_once(prepared_, [&] {
      filter_.resize(size_t(9 * g_.C));
      if (constantFilter_) reorderDepthwiseFilter(in<float>(ctx, 1), fi_, g_.C, filter_.data());
    });
    if (!constantFilter_) reorderDepthwiseFilter(in<float>(ctx, 1), fi_, g_.C, filter_.data());
    Depthwise3x3 p = p_;
    p.filter = filter_.data();
    p.bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    // At least ~100k FLOPs per chunk: a thread hand-off costs microseconds.
    int64_t rowFlops = std::max<int64_t>(1, 18 * g_.OW * g_.C);
    int64_t grain = std::max<int64_t>(1, 100000 / rowFlops);
    // Stride-1 layers with under 8 rows per thread (14x14 and below at 2
    // threads) split their channels instead, in 16-channel blocks over 4
    // parts per thread. With the pool's one contiguous range per thread, 28x28
    // layers run twice as fast split by rows (MobileNetV2 at 2 threads 2.94 ->
    // 2.81 ms, PERFORMANCE.md); below that, rows leave a thread idle.
    int64_t threads = ctx.backendState ? threadPool(ctx).numThreads() : 1;
    int64_t blocks = (g_.C + 15) / 16;
    bool byChannels = threads > 1 && g_.sh == 1 && g_.OH < 8 * threads && blocks >= 2 * threads;
    for (int64_t n = 0; n < g_.N; ++n) {
      const float *xn = x + n * g_.H * g_.W * g_.C;
      float *yn = y + n * g_.OH * g_.OW * g_.C;
      if (byChannels) {
        int64_t parts = std::min(blocks, 4 * threads);
        parallelFor(ctx, parts, 1, [&](int64_t b, int64_t e) {
          depthwise3x3Avx512(p, xn, yn, 0, g_.OH, std::min(g_.C, b * blocks / parts * 16),
                             std::min(g_.C, e * blocks / parts * 16));
        });
      } else {
        parallelFor(ctx, g_.OH, grain, [&](int64_t b, int64_t e) { depthwise3x3Avx512(p, xn, yn, b, e); });
      }
    }
    gDepthwiseAvx512Runs.fetch_add(1, std::memory_order_relaxed);
    return Status::ok();
  }

 private:
  ConvGeometry g_;
  FilterIndexer fi_;
  bool constantFilter_, hasBias_;
  Depthwise3x3 p_;
  std::once_flag prepared_;
  AlignedFloats filter_;
};

// Our AVX-512 depthwise kernel for this node, or null when it does not
// apply (not float32 nhwc depthwise 3x3, no AVX-512, or
// WEBNN_DEPTHWISE_AVX512=0). Callers try it before oneDNN for stride 1 and
// after it for stride 2, where oneDNN's brdgmm_dw measured 5-25% faster.
std::unique_ptr<Kernel> makeDepthwiseAvx512(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                            float lo = -INFINITY, float hi = INFINITY) {
  if (!depthwiseAvx512Enabled() || !avx512Available() || !g.nhwc || node.inputs[0]->dtype != DataType::kFloat32) return nullptr;
  if (!(g.groups == g.C && g.O == g.C)) return nullptr;
  if (!depthwise3x3Supported(g.KH, g.KW, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padBottom, g.padLeft, g.padRight))
    return nullptr;
  bool hasBias = node.inputs.size() > 2 && node.inputs[2];
  return std::make_unique<DepthwiseAvx512Kernel>(g, fi, node.inputs[1]->constantData != nullptr, hasBias, lo, hi);
}

}  // namespace

bool depthwiseAvx512Enabled() { return gDepthwiseAvx512.load(std::memory_order_relaxed); }
void setDepthwiseAvx512Enabled(bool enabled) { gDepthwiseAvx512.store(enabled, std::memory_order_relaxed); }
uint64_t depthwiseAvx512Runs() { return gDepthwiseAvx512Runs.load(std::memory_order_relaxed); }

namespace {

// The portable kernel: im2col + SGEMM / direct depthwise; float16 via float32.
Status makeConv2dPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvGeometry g;
  FilterIndexer fi;
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &g, &fi));
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeConv2dPortable, out);
  bool hasBias = node.inputs.size() > 2 && node.inputs[2];
  *out = std::make_unique<Conv2dKernel>(g, fi, node.inputs[1]->constantData != nullptr, hasBias);
  return Status::ok();
}

#if WEBNN_HAVE_ONEDNN
onednn::Conv2dParams oneDnnParams(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi) {
  onednn::Conv2dParams p;
  p.dtype = node.inputs[0]->dtype;
  p.nhwc = g.nhwc;
  p.N = g.N, p.C = g.C, p.H = g.H, p.W = g.W, p.O = g.O, p.OH = g.OH, p.OW = g.OW;
  p.KH = g.KH, p.KW = g.KW, p.groups = g.groups;
  p.strideH = g.sh, p.strideW = g.sw, p.dilationH = g.dh, p.dilationW = g.dw;
  p.padTop = g.padTop, p.padBottom = g.padBottom, p.padLeft = g.padLeft, p.padRight = g.padRight;
  p.filterStrideO = fi.so, p.filterStrideI = fi.si, p.filterStrideH = fi.sh, p.filterStrideW = fi.sw;
  p.hasBias = node.inputs.size() > 2 && node.inputs[2];
  p.constantFilter = node.inputs[1]->constantData != nullptr;
  p.bf16 = node.relaxedPrecision;
  p.packedFilter = onednn::packedOperands(node, 1);
  return p;
}
#endif

// 1x1, stride 1, unpadded: each output pixel is its input pixel times the filter.
bool plainPointwise(const ConvGeometry &g) {
  return g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && !g.padTop && !g.padBottom && !g.padLeft && !g.padRight;
}

// A plain pointwise, ungrouped convolution in nhwc is the GEMM of the
// [N * H * W, C] input with the [C, O] filter: the packed-B kernel
// (PackedSgemm.h), bias, residual and the ReLU/clamp in its epilogue.
// Null when it does not apply.
std::unique_ptr<Kernel> makePointwisePacked(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                            float lo, float hi) {
  if (!g.nhwc || !plainPointwise(g) || g.groups != 1 || !packedSgemmApplies(node)) return nullptr;
  PackedProduct p;
  p.M = g.N * g.H * g.W;
  p.K = g.C;
  p.N = g.O;
  // Measured per layer against brgconv_1x1 (ResNet-50, MobileNetV2, 1
  // thread, Intel AVX-512 VM): 5-10% faster from 784 pixels down with >= 512
  // output channels (cold weights dominate; the 48-column panels waste <= 3%);
  // slower at 56x56 and up (output streams past L2) and with 64-160 output
  // channels (up to half a panel computed for nothing).
  if (p.M > 1024 || p.N < 512) return nullptr;
  if (!packedSgemmSuits(p.M, p.K, p.N)) return nullptr;
  p.bKStride = fi.si;  // b(k = input channel, n = output channel)
  p.bNStride = fi.so;
  p.lo = lo;
  p.hi = hi;
  return makePackedSgemmKernel(node, p);
}

std::atomic<uint64_t> gPointwiseNarrowRuns{0};

// A plain pointwise nhwc convolution with few output channels or a short
// residual block end (rules below) as register-tiled rows (Pointwise.h), the
// filter as [C][O] in L1, bias, residual and clamp in the epilogue; threads
// take contiguous ranges of 8-row tiles.
class PointwiseNarrowKernel final : public Kernel {
 public:
  PointwiseNarrowKernel(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi, bool hasBias,
                        bool hasResidual, float lo, float hi)
      : g_(g), fi_(fi), hasBias_(hasBias), hasResidual_(hasResidual), lo_(lo), hi_(hi),
        w_(static_cast<const float *>(node.inputs[1]->constantData)) {
    for (const PackedOperand &po : node.packed)
      if (po.input == 1 && po.layout == layoutName() && po.bytes == uint64_t(g_.C * g_.O) * sizeof(float))
        prepacked_ = static_cast<const float *>(po.data);
  }

  // The filter as [C][O] floats: prepacked in the artifact, or made on the
  // first run (loading must not touch the mmapped weights).
  static std::string layoutName(int64_t K, int64_t N) {
    return "webnn.pointwise_kn." + std::to_string(K) + "x" + std::to_string(N);
  }
  std::string layoutName() const { return layoutName(g_.C, g_.O); }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    (void)numThreads;  // one layout for every thread count
    PackedBytes pb;
    pb.input = 1;
    pb.layout = layoutName();
    pb.bytes.resize(size_t(g_.C * g_.O) * sizeof(float));
    reorderPointwiseFilter(w_, fi_, g_.C, g_.O, reinterpret_cast<float *>(pb.bytes.data()));
    out->push_back(std::move(pb));
    return Status::ok();
  }

  Status run(const KernelContext &ctx) override {
    const float *filter = prepacked_;
    if (!filter) {
      std::call_once(prepared_, [&] {
        filter_.resize(size_t(g_.C * g_.O));
        reorderPointwiseFilter(w_, fi_, g_.C, g_.O, filter_.data());
      });
      filter = filter_.data();
    }
    PointwiseProduct p;
    p.K = g_.C, p.N = g_.O;
    p.filter = filter;
    p.bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    p.lo = lo_, p.hi = hi_;
    const float *x = in<float>(ctx, 0);
    const float *r = hasResidual_ ? in<float>(ctx, 3) : nullptr;
    float *y = outp<float>(ctx, 0);
    const int64_t M = g_.N * g_.H * g_.W, tiles = (M + 7) / 8;
    // At least ~100k FLOPs per thread's share: a hand-off costs microseconds.
    const int64_t grain = std::max<int64_t>(1, 100000 / (16 * g_.C * g_.O));
    parallelFor(ctx, tiles, grain, [&](int64_t b, int64_t e) {
      const int64_t m0 = b * 8, m1 = std::min(M, e * 8);
      pointwiseRowsAvx512(p, x + m0 * g_.C, m1 - m0, y + m0 * g_.O, r ? r + m0 * g_.O : nullptr);
    });
    gPointwiseNarrowRuns.fetch_add(1, std::memory_order_relaxed);
    return Status::ok();
  }

 private:
  ConvGeometry g_;
  FilterIndexer fi_;
  bool hasBias_, hasResidual_;
  float lo_, hi_;
  const float *w_;
  const float *prepacked_ = nullptr;
  std::once_flag prepared_;
  AlignedFloats filter_;
};

std::atomic<bool> gPointwiseNarrow{[] {
  const char *v = std::getenv("WEBNN_POINTWISE_NARROW");
  return !(v && std::string(v) == "0");
}()};

// The kernel above for float32 nhwc plain pointwise convolutions with a
// constant filter and at most 32 output channels (one pass over the rows:
// the row tiles cover every column), or with a residual, at most 128 input
// channels and 784 pixels or more (ResNet-50's 56x56 64 -> 256 and 28x28
// 128 -> 512 block ends: brgconv_1x1's sum post-op cost it 0.33 ms a layer,
// ours 0.13); else null. MobileNetV2's 14x14 layers to 64 channels and
// ResNet-50's without a residual measured no faster than brgconv_1x1.
std::unique_ptr<Kernel> makePointwiseNarrow(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                            bool hasResidual, float lo, float hi) {
  if (!gPointwiseNarrow.load(std::memory_order_relaxed) || !avx512Available()) return nullptr;
  if (!g.nhwc || !plainPointwise(g) || g.groups != 1 || node.inputs[0]->dtype != DataType::kFloat32) return nullptr;
  if (!node.inputs[1]->constantData || g.C > 1024 || relaxedRunsBf16(node)) return nullptr;
  const int64_t M = g.N * g.H * g.W;
  if (g.O > 32 && !(hasResidual && g.C <= 128 && M >= 784)) return nullptr;
  const bool hasBias = node.inputs.size() > 2 && node.inputs[2];
  return std::make_unique<PointwiseNarrowKernel>(node, g, fi, hasBias, hasResidual, lo, hi);
}

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

 private:
  ConvGeometry g_;
  std::unique_ptr<Kernel> gemm_;
  Shape colShape_;
  std::vector<float> col_;
};

// The kernel above where it applies (nhwc, ungrouped, at most 64 output
// pixels, >= 256 output channels; a strided 1x1 is a subsampling copy), else
// null.
std::unique_ptr<Kernel> makeIm2colPacked(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                         float lo, float hi) {
  if (!g.nhwc || g.groups != 1 || g.N * g.OH * g.OW > 64 || g.O < 256 || plainPointwise(g) ||
      !packedSgemmApplies(node))  // plain pointwise layers need no copy: makePointwisePacked
    return nullptr;
  PackedProduct p;
  p.M = g.N * g.OH * g.OW;
  p.K = g.KH * g.KW * g.C;
  p.N = g.O;
  if (!packedSgemmSuits(p.M, p.K, p.N)) return nullptr;
  p.bKOffsets.reserve(size_t(p.K));  // k = (kh * KW + kw) * C + c, as the im2col rows
  for (int64_t kh = 0; kh < g.KH; ++kh)
    for (int64_t kw = 0; kw < g.KW; ++kw)
      for (int64_t c = 0; c < g.C; ++c) p.bKOffsets.push_back(fi.at(0, c, kh, kw));
  p.bNStride = fi.so;
  p.lo = lo;
  p.hi = hi;
  return std::make_unique<Im2colPackedConvKernel>(g, makePackedSgemmKernel(node, p));
}

Status makeConv2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvGeometry g;
  FilterIndexer fi;
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &g, &fi));
  if (g.sh == 1 && (*out = makeDepthwiseAvx512(node, g, fi))) return Status::ok();
  if ((*out = makePointwiseNarrow(node, g, fi, false, -INFINITY, INFINITY))) return Status::ok();
  if ((*out = makePointwisePacked(node, g, fi, -INFINITY, INFINITY))) return Status::ok();
  if ((*out = makeIm2colPacked(node, g, fi, -INFINITY, INFINITY))) return Status::ok();
#if WEBNN_HAVE_ONEDNN
  std::string why;
  if (std::unique_ptr<onednn::Conv2d> conv = onednn::Conv2d::create(oneDnnParams(node, g, fi), &why)) {
    *out = std::make_unique<OneDnnConv2dKernel>(std::move(conv), node, &makeConv2dPortable);
    return Status::ok();
  }
#endif
  if ((*out = makeDepthwiseAvx512(node, g, fi))) return Status::ok();
  return makeConv2dPortable(node, out);
}

// ----------------------------------------------------------- fusedConv2d
// Operands: input, filter, bias?, residual? (absent optionals are null).
enum class Activation { kNone, kRelu, kClamp, kSigmoid, kSilu };  // kSilu: x * sigmoid(x)

struct Epilogue {
  Activation activation = Activation::kNone;
  float clampMin = -INFINITY, clampMax = INFINITY;
  bool hasResidual = false;
};

Status readEpilogue(const NodeDesc &node, const ConvGeometry &g, Epilogue *e) {
  std::string activation = node.attributes.getString("activation", "none");
  double lo = node.attributes.getFloat("activationMinValue", -INFINITY);
  double hi = node.attributes.getFloat("activationMaxValue", INFINITY);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (activation == "none") e->activation = Activation::kNone;
  else if (activation == "relu") e->activation = Activation::kRelu;
  else if (activation == "clamp") e->activation = Activation::kClamp;
  else if (activation == "sigmoid") e->activation = Activation::kSigmoid;
  else if (activation == "silu") e->activation = Activation::kSilu;
  else return nodeError(node, "unknown activation '" + activation + "'");
  if (lo > hi) return nodeError(node, "activationMinValue must be <= activationMaxValue");
  e->clampMin = float(lo);
  e->clampMax = float(hi);
  e->hasResidual = node.inputs.size() > 3 && node.inputs[3];
  if (e->hasResidual) {
    const OperandDesc &r = *node.inputs[3];
    if (r.dtype != node.inputs[0]->dtype) return nodeError(node, "residual data type differs from input");
    if (r.shape != outputShape(g))
      return nodeError(node, "residual must have the output's shape " + shapeToString(outputShape(g)) + ", got " +
                                 shapeToString(r.shape));
  }
  return Status::ok();
}

// conv2d (the portable kernel) into the output, then one pass over it:
// y = activation(y + residual).
class FusedConv2dKernel final : public Kernel {
 public:
  FusedConv2dKernel(std::unique_ptr<Kernel> conv, Epilogue e, int64_t count)
      : conv_(std::move(conv)), e_(e), count_(count) {}

  Status run(const KernelContext &ctx) override {
    const TensorBuffer *convInputs[3] = {ctx.inputs[0], ctx.inputs[1], ctx.numInputs > 2 ? ctx.inputs[2] : nullptr};
    KernelContext convCtx = ctx;
    convCtx.inputs = convInputs;
    convCtx.numInputs = 3;
    WEBNN_RETURN_IF_ERROR(conv_->run(convCtx));
    const float *r = e_.hasResidual ? in<float>(ctx, 3) : nullptr;
    float *y = outp<float>(ctx, 0);
    Epilogue e = e_;
    parallelFor(ctx, count_, 16384, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) {
        float v = r ? y[i] + r[i] : y[i];
        switch (e.activation) {
          case Activation::kNone: break;
          case Activation::kRelu: v = v > 0.f ? v : 0.f; break;
          case Activation::kClamp: v = std::min(std::max(v, e.clampMin), e.clampMax); break;
          case Activation::kSigmoid: v = 1.f / (1.f + std::exp(-v)); break;
          case Activation::kSilu: v = v / (1.f + std::exp(-v)); break;
        }
        y[i] = v;
      }
    });
    return Status::ok();
  }

 private:
  std::unique_ptr<Kernel> conv_;
  Epilogue e_;
  int64_t count_;
};

// A convolution kernel with no activation of its own (our kernels' epilogue
// is a clamp), then SiLU in place over its output in one vectorized pass.
class SiluAfterKernel final : public Kernel {
 public:
  SiluAfterKernel(std::unique_ptr<Kernel> conv, int64_t count) : conv_(std::move(conv)), count_(count) {}

  Status run(const KernelContext &ctx) override {
    WEBNN_RETURN_IF_ERROR(conv_->run(ctx));
    float *y = outp<float>(ctx, 0);
    parallelFor(ctx, count_, 16384, [&](int64_t b, int64_t end) {
      constexpr int64_t kChunk = 512;
      float gate[kChunk];
      for (int64_t i = b; i < end; i += kChunk) {
        int64_t n = std::min(kChunk, end - i);
        sigmoidArray(y + i, gate, n);
        for (int64_t j = 0; j < n; ++j) y[i + j] *= gate[j];
      }
    });
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

Status makeFusedConv2dPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvGeometry g;
  FilterIndexer fi;
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &g, &fi, 4));
  Epilogue e;
  WEBNN_RETURN_IF_ERROR(readEpilogue(node, g, &e));
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeFusedConv2dPortable, out);
  bool hasBias = node.inputs.size() > 2 && node.inputs[2];
  auto conv = std::make_unique<Conv2dKernel>(g, fi, node.inputs[1]->constantData != nullptr, hasBias);
  *out = std::make_unique<FusedConv2dKernel>(std::move(conv), e, numElements(outputShape(g)));
  return Status::ok();
}

Status makeFusedConv2d(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvGeometry g;
  FilterIndexer fi;
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &g, &fi, 4));
  Epilogue e;
  WEBNN_RETURN_IF_ERROR(readEpilogue(node, g, &e));
  // float16: converted to float32 around the float32 kernel (oneDNN 2.6 has
  // no float16 post-ops on this CPU class).
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeFusedConv2d, out);
  // Our kernels' epilogue is a clamp: none, relu and clamp fit.
  bool clampEpilogue = e.activation != Activation::kSigmoid && e.activation != Activation::kSilu;
  bool dwEpilogue = !e.hasResidual && clampEpilogue;
  float lo = e.activation == Activation::kRelu ? 0.f : e.clampMin;
  float hi = e.activation == Activation::kRelu ? INFINITY : e.clampMax;
  if (e.activation == Activation::kNone) lo = -INFINITY, hi = INFINITY;
  if (dwEpilogue && g.sh == 1 && (*out = makeDepthwiseAvx512(node, g, fi, lo, hi))) return Status::ok();
  if (clampEpilogue && (*out = makePointwiseNarrow(node, g, fi, e.hasResidual, lo, hi))) return Status::ok();
  if (clampEpilogue && (*out = makePointwisePacked(node, g, fi, lo, hi))) return Status::ok();
  if (clampEpilogue && (*out = makeIm2colPacked(node, g, fi, lo, hi))) return Status::ok();
  if (e.activation == Activation::kSilu) {
    // The same kernels without activation, SiLU as a pass after them;
    // shapes none of them takes get oneDNN's swish post-op below.
    std::unique_ptr<Kernel> conv;
    if ((!e.hasResidual && g.sh == 1 && (conv = makeDepthwiseAvx512(node, g, fi, -INFINITY, INFINITY))) ||
        (conv = makePointwiseNarrow(node, g, fi, e.hasResidual, -INFINITY, INFINITY)) ||
        (conv = makePointwisePacked(node, g, fi, -INFINITY, INFINITY)) ||
        (conv = makeIm2colPacked(node, g, fi, -INFINITY, INFINITY))) {
      *out = std::make_unique<SiluAfterKernel>(std::move(conv), numElements(outputShape(g)));
      return Status::ok();
    }
  }
#if WEBNN_HAVE_ONEDNN
  onednn::Conv2dParams p = oneDnnParams(node, g, fi);
  p.hasResidual = e.hasResidual;
  p.clampMin = e.clampMin;
  p.clampMax = e.clampMax;
  switch (e.activation) {
    case Activation::kNone: p.activation = onednn::Conv2dParams::Activation::kNone; break;
    case Activation::kRelu: p.activation = onednn::Conv2dParams::Activation::kRelu; break;
    case Activation::kClamp: p.activation = onednn::Conv2dParams::Activation::kClamp; break;
    case Activation::kSigmoid: p.activation = onednn::Conv2dParams::Activation::kSigmoid; break;
    case Activation::kSilu: p.activation = onednn::Conv2dParams::Activation::kSilu; break;
  }
  std::string why;
  if (std::unique_ptr<onednn::Conv2d> conv = onednn::Conv2d::create(p, &why)) {
    *out = std::make_unique<OneDnnConv2dKernel>(std::move(conv), node, &makeFusedConv2dPortable);
    return Status::ok();
  }
#endif
  if (dwEpilogue && (*out = makeDepthwiseAvx512(node, g, fi, lo, hi))) return Status::ok();
  if (e.activation == Activation::kSilu && !e.hasResidual) {
    if (std::unique_ptr<Kernel> conv = makeDepthwiseAvx512(node, g, fi, -INFINITY, INFINITY)) {
      *out = std::make_unique<SiluAfterKernel>(std::move(conv), numElements(outputShape(g)));
      return Status::ok();
    }
  }
  return makeFusedConv2dPortable(node, out);
}

// ------------------------------------------------------- convTranspose2d
class ConvTranspose2dKernel final : public Kernel {
 public:
  ConvTranspose2dKernel(ConvGeometry g, FilterIndexer fi, bool constantFilter, bool hasBias)
      : g_(g), fi_(fi), hasBias_(hasBias), constantFilter_(constantFilter) {}

  Status run(const KernelContext &ctx) override {
    std::call_once(prepared_, [&] {  // first run, not load: see Conv2dKernel
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
  bool hasBias = node.inputs.size() > 2 && node.inputs[2];
  *out = std::make_unique<ConvTranspose2dKernel>(g, fi, f.constantData != nullptr, hasBias);
  return Status::ok();
}

// ------------------------------------------- 1x1 + depthwise 3x3 pairs
std::atomic<uint64_t> gPointwiseDepthwiseRuns{0};

// Run-time inputs: the 1x1 node's (input, filter, bias?, residual?), then
// the depthwise node's (the intermediate, unused; filter, bias?, ...).
class PointwiseDepthwiseKernel final : public Kernel {
 public:
  PointwiseDepthwiseKernel(ConvGeometry pw, FilterIndexer pwFilter, bool pwBias, ConvGeometry dw,
                           FilterIndexer dwFilter, bool dwBias, size_t dwInputs, PointwiseDepthwise p)
      : pw_(pw), dw_(dw), pwFilter_(pwFilter), dwFilter_(dwFilter), pwBias_(pwBias), dwBias_(dwBias),
        dwInputs_(dwInputs), p_(p) {}

  Status run(const KernelContext &ctx) override {
    // Filters as [K][C] and [3][3][C], made on the first run (loading must
    // not touch the mmapped weights); a run that cannot get their memory
    // fails, and the next one tries again. Runs are one at a time.
    if (!prepared_) {
      if (!pointwise_.resize(size_t(pw_.C * pw_.O)) || !depthwise_.resize(size_t(9 * dw_.C)))
        return Status(StatusCode::kOutOfMemory, "conv2d pair: cannot allocate the packed filters");
      reorderPointwiseFilter(in<float>(ctx, 1), pwFilter_, pw_.C, pw_.O, pointwise_.data());
      reorderDepthwiseFilter(in<float>(ctx, dwInputs_ + 1), dwFilter_, dw_.C, depthwise_.data());
      prepared_ = true;
    }
    PointwiseDepthwise p = p_;
    p.pointwise.filter = pointwise_.data();
    p.pointwise.bias = pwBias_ ? in<float>(ctx, 2) : nullptr;
    p.dw.filter = depthwise_.data();
    p.dw.bias = dwBias_ ? in<float>(ctx, dwInputs_ + 2) : nullptr;
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    const int64_t ringFloats = pointwiseDepthwiseRingFloats(p);
    std::atomic<bool> noRing{false};
    for (int64_t n = 0; n < pw_.N; ++n) {
      const float *xn = x + n * pw_.H * pw_.W * pw_.C;
      float *yn = y + n * dw_.OH * dw_.OW * dw_.C;
      parallelFor(ctx, dw_.OH, 2, [&](int64_t b, int64_t e) {
        float *ring = threadRing(ringFloats);
        if (!ring) {
          noRing.store(true, std::memory_order_relaxed);
          return;
        }
        pointwiseDepthwiseAvx512(p, xn, yn, b, e, ring);
      });
    }
    if (noRing.load(std::memory_order_relaxed))
      return Status(StatusCode::kOutOfMemory, "conv2d pair: cannot allocate a thread's row buffer");
    gPointwiseDepthwiseRuns.fetch_add(1, std::memory_order_relaxed);
    return Status::ok();
  }

 private:
  // One ring per thread, kept across runs (grown on a thread's first run);
  // null when that memory is refused.
  static float *threadRing(int64_t floats) {
    thread_local AlignedFloats ring;
    if (ring.size() < size_t(floats) && !ring.resize(size_t(floats))) return nullptr;
    return ring.data();
  }

  ConvGeometry pw_, dw_;
  FilterIndexer pwFilter_, dwFilter_;
  bool pwBias_, dwBias_;
  size_t dwInputs_;
  PointwiseDepthwise p_;
  bool prepared_ = false;
  AlignedFloats pointwise_, depthwise_;
};

std::atomic<bool> gFusePointwiseDepthwise{[] {
  const char *v = std::getenv("WEBNN_FUSE_POINTWISE_DEPTHWISE");
  return !(v && std::string(v) == "0");
}()};

// A conv2d / fusedConv2d node's geometry and clamp when it can be half of a
// pair: float32, nhwc, constant filter and bias, no residual, activation
// none, relu or clamp.
bool pairHalf(const NodeDesc &node, ConvGeometry *g, FilterIndexer *fi, float *lo, float *hi) {
  if ((node.op != "conv2d" && node.op != "fusedConv2d") || relaxedRunsBf16(node)) return false;
  if (!checkConv2d(node, g, fi, node.op == "conv2d" ? 3 : 4).isOk()) return false;
  if (!g->nhwc || node.inputs[0]->dtype != DataType::kFloat32 || !node.inputs[1]->constantData) return false;
  if (node.inputs.size() > 2 && node.inputs[2] && !node.inputs[2]->constantData) return false;
  *lo = -INFINITY, *hi = INFINITY;
  if (node.op == "conv2d") return true;
  Epilogue e;
  if (!readEpilogue(node, *g, &e).isOk() || e.hasResidual || e.activation == Activation::kSigmoid ||
      e.activation == Activation::kSilu)
    return false;
  if (e.activation == Activation::kRelu) *lo = 0.f;
  if (e.activation == Activation::kClamp) *lo = e.clampMin, *hi = e.clampMax;
  return true;
}

}  // namespace

bool pointwiseDepthwiseEnabled() { return gFusePointwiseDepthwise.load(std::memory_order_relaxed); }
void setPointwiseDepthwiseEnabled(bool enabled) { gFusePointwiseDepthwise.store(enabled, std::memory_order_relaxed); }
uint64_t pointwiseDepthwiseRuns() { return gPointwiseDepthwiseRuns.load(std::memory_order_relaxed); }
bool pointwiseNarrowEnabled() { return gPointwiseNarrow.load(std::memory_order_relaxed); }
void setPointwiseNarrowEnabled(bool enabled) { gPointwiseNarrow.store(enabled, std::memory_order_relaxed); }
uint64_t pointwiseNarrowRuns() { return gPointwiseNarrowRuns.load(std::memory_order_relaxed); }

Status makeConvolutionPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out) {
  out->reset();
  if (!pointwiseDepthwiseEnabled() || !depthwiseAvx512Enabled() || !avx512Available()) return Status::ok();
  ConvGeometry pw, dw;
  FilterIndexer pwFi, dwFi;
  float pwLo, pwHi, lo, hi;
  if (!pairHalf(producer, &pw, &pwFi, &pwLo, &pwHi) || !pairHalf(consumer, &dw, &dwFi, &lo, &hi)) return Status::ok();
  if (!plainPointwise(pw) || pw.groups != 1) return Status::ok();
  if (!(dw.groups == dw.C && dw.O == dw.C && dw.C == pw.O && dw.H == pw.OH && dw.W == pw.OW && dw.N == pw.N))
    return Status::ok();
  if (!depthwise3x3Supported(dw.KH, dw.KW, dw.sh, dw.sw, dw.dh, dw.dw, dw.padTop, dw.padBottom, dw.padLeft,
                             dw.padRight))
    return Status::ok();
  // Where it pays (PointwiseDepthwise.h): a short 1x1 (its filter rows in
  // L1, the tile at 160-195 GFLOP/s) and an expanded tensor of 1 MiB or
  // more; MobileNetV2's 28x28x192 (0.6 MB) measured no faster fused.
  const int64_t expandedBytes = pw.OH * pw.OW * pw.O * 4;
  if (pw.C > 32 || expandedBytes < (int64_t(1) << 20)) return Status::ok();
  PointwiseDepthwise p;
  p.pointwise.K = pw.C, p.pointwise.N = pw.O;
  p.pointwise.lo = pwLo, p.pointwise.hi = pwHi;
  p.dw.H = dw.H, p.dw.W = dw.W, p.dw.C = dw.C, p.dw.OH = dw.OH, p.dw.OW = dw.OW;
  p.dw.stride = dw.sh, p.dw.padTop = dw.padTop, p.dw.padLeft = dw.padLeft;
  p.dw.lo = lo, p.dw.hi = hi;
  const bool pwBias = producer.inputs.size() > 2 && producer.inputs[2];
  const bool dwBias = consumer.inputs.size() > 2 && consumer.inputs[2];
  *out = std::make_unique<PointwiseDepthwiseKernel>(pw, pwFi, pwBias, dw, dwFi, dwBias, producer.inputs.size(), p);
  return Status::ok();
}

void registerConvolutionKernels(KernelTable &t) {
  t.add("conv2d", &makeConv2d);
  t.add("fusedConv2d", &makeFusedConv2d);
  t.add("convTranspose2d", &makeConvTranspose2d);
}

}  // namespace webnn::cpu::kernels
