// conv2d's portable kernel: im2col + SGEMM per (batch, group), with the
// pixel dimension tiled so the column buffer stays bounded; 1x1/stride-1/
// no-pad convolutions read the input directly. Depthwise convolutions
// (groups == channels == outputs) run a direct loop instead, since as a GEMM
// they have a single output row. Filters are reordered into the layout the
// GEMM wants: once, on the first run, when the filter is a constant, else on
// every run. float16 runs through the float32 kernel.
//
// The last candidate of Conv2dSelection.cpp's table (every shape, every
// build), and oneDNN's fallback when it cannot build its primitive.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Sgemm.h"

namespace webnn::cpu::kernels {
namespace {

class PortableConv2dKernel final : public Kernel {
 public:
  PortableConv2dKernel(ConvGeometry g, FilterIndexer fi, bool constantFilter, bool hasBias)
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

}  // namespace

std::unique_ptr<Kernel> makePortableConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi) {
  return std::make_unique<PortableConv2dKernel>(g, fi, node.inputs[1]->constantData != nullptr, hasBiasInput(node));
}

Status makeConv2dPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvGeometry g;
  FilterIndexer fi;
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &g, &fi));
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeConv2dPortable, out);
  *out = makePortableConv(node, g, fi);
  return Status::ok();
}

Status makeFusedConv2dPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  ConvGeometry g;
  FilterIndexer fi;
  WEBNN_RETURN_IF_ERROR(checkConv2d(node, &g, &fi, 4));
  Epilogue e;
  WEBNN_RETURN_IF_ERROR(readEpilogue(node, g, &e));
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeFusedConv2dPortable, out);
  *out = makeEpiloguePass(makePortableConv(node, g, fi), e, numElements(outputShape(g)));
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
