// Grouped convolutions of 4 channels per group, in and out (ResNeXt-50
// 32x4d's first-stage 3x3 layers: 32 groups over 56x56), nhwc float32 on
// AVX-512. One 16-lane vector holds the outputs of 4 whole groups, and its
// 128-bit lanes are the groups: input channel i of each group is spread over
// its group's lanes by one in-lane permute of the 16 input channels the 4
// groups read, then one FMA with the 16 weights. oneDNN 2.6 runs these as a
// small product per group, at about half this kernel's rate; at 8 channels
// per group this kernel measured even and at 16 oneDNN 1.9x faster
// (docs/PERFORMANCE.md, issue 19), so those stay on oneDNN.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::kernels {
namespace {

struct GroupedRows {
  ConvGeometry g;
  const float *x = nullptr;
  const float *w = nullptr;     // [C / 16][KH][KW][4][16]
  const float *bias = nullptr;  // [O] or null
  float *y = nullptr;
  float lo = -INFINITY, hi = INFINITY;
};

// The filter as the kernel reads it: for each block of 16 output channels,
// tap and input channel i of the group, the 16 lanes' weights.
void packGroupedFilter(const float *f, const FilterIndexer &fi, const ConvGeometry &g, int64_t G, float *dst) {
  for (int64_t cb = 0; cb < g.O / 16; ++cb)
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw)
        for (int64_t i = 0; i < G; ++i)
          for (int64_t l = 0; l < 16; ++l) *dst++ = f[fi.at(cb * 16 + l, i, kh, kw)];
}

void groupedRowsAvx512(const GroupedRows &p, int64_t row0, int64_t row1);

}  // namespace
}  // namespace webnn::cpu::kernels

#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#include <immintrin.h>
#if defined(__clang__)  // which ignores the GCC pragma
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), apply_to = function)
#endif

namespace webnn::cpu::kernels {
namespace {

// Input channel i of each group (128-bit lane), over that group's lanes.
inline __m512 spread(__m512 xv, int i) {
  switch (i) {  // vpermilps takes an immediate
    case 0: return _mm512_permute_ps(xv, 0x00);
    case 1: return _mm512_permute_ps(xv, 0x55);
    case 2: return _mm512_permute_ps(xv, 0xaa);
    default: return _mm512_permute_ps(xv, 0xff);
  }
}

constexpr int G = 4;

// A tile's accumulators start at the bias of its 16 channels.
template <int R>
inline void initTile(const GroupedRows &p, int64_t cb, __m512 *acc) {
  const __m512 b = p.bias ? _mm512_loadu_ps(p.bias + cb * 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = b;
}

// ... and end clamped to the fused activation's range.
template <int R>
inline void storeTile(const GroupedRows &p, int64_t ow0, int64_t cb, const __m512 *acc, float *yrow) {
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    _mm512_storeu_ps(yrow + (ow0 + r) * p.g.O + cb * 16, _mm512_min_ps(_mm512_max_ps(acc[r], lo), hi));
}

// R output pixels (columns ow0 .. ow0 + R - 1 of one row) x 16 channels;
// Edge: some of their windows reach into the left or right padding.
template <int R, bool Edge>
inline void tile(const GroupedRows &p, const float *xn, int64_t oh, int64_t ow0, int64_t cb, float *yrow) {
  const ConvGeometry &g = p.g;
  __m512 acc[R];
  initTile<R>(p, cb, acc);
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.padTop + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    const float *xrow = xn + ih * g.W * g.C + cb * 16;
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const float *wt = p.w + ((cb * g.KH + kh) * g.KW + kw) * G * 16;
      const int64_t iw0 = ow0 * g.sw - g.padLeft + kw * g.dw;
      __m512 wv[G];
#pragma GCC unroll 4
      for (int i = 0; i < G; ++i) wv[i] = _mm512_loadu_ps(wt + i * 16);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const int64_t iw = iw0 + r * g.sw;
        if (Edge && (iw < 0 || iw >= g.W)) continue;
        const __m512 xv = _mm512_loadu_ps(xrow + iw * g.C);
#pragma GCC unroll 4
        for (int i = 0; i < G; ++i) acc[r] = _mm512_fmadd_ps(spread(xv, i), wv[i], acc[r]);
      }
    }
  }
  storeTile<R>(p, ow0, cb, acc, yrow);
}

// tile<R, false> for a 3-wide, stride-1, undilated window: each input
// column's spread channels serve the (up to) 3 outputs that read it, so a
// row of R outputs spreads R + 2 columns, not 3 R.
template <int R>
inline void tile3(const GroupedRows &p, const float *xn, int64_t oh, int64_t ow0, int64_t cb, float *yrow) {
  const ConvGeometry &g = p.g;
  __m512 acc[R];
  initTile<R>(p, cb, acc);
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.padTop + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    const float *xcol = xn + (ih * g.W + ow0 - g.padLeft) * g.C + cb * 16;
    const float *wt = p.w + (cb * g.KH + kh) * 3 * G * 16;
#pragma GCC unroll 10
    for (int j = 0; j < R + 2; ++j) {
      const __m512 xv = _mm512_loadu_ps(xcol + j * g.C);
#pragma GCC unroll 4
      for (int i = 0; i < G; ++i) {
        const __m512 xi = spread(xv, i);
#pragma GCC unroll 3
        for (int kw = 0; kw < 3; ++kw)
          if (j - kw >= 0 && j - kw < R)
            acc[j - kw] = _mm512_fmadd_ps(xi, _mm512_loadu_ps(wt + (kw * G + i) * 16), acc[j - kw]);
      }
    }
  }
  storeTile<R>(p, ow0, cb, acc, yrow);
}

// A row's last OW % R pixels as one tile of that many (a 1-pixel tile is
// one chain of dependent FMAs, several times slower per pixel).
template <int R = 7>
inline void tailTile(int64_t count, const GroupedRows &p, const float *xn, int64_t oh, int64_t ow0, int64_t cb,
                     float *yrow) {
  if constexpr (R >= 1) {
    if (count == R) return tile<R, true>(p, xn, oh, ow0, cb, yrow);
    tailTile<R - 1>(count, p, xn, oh, ow0, cb, yrow);
  }
}

void groupedRowsAvx512(const GroupedRows &p, int64_t row0, int64_t row1) {
  const ConvGeometry &g = p.g;
  constexpr int R = 8;
  const bool window3 = g.KW == 3 && g.sw == 1 && g.dw == 1;
  for (int64_t row = row0; row < row1; ++row) {
    const int64_t n = row / g.OH, oh = row % g.OH;
    const float *xn = p.x + n * g.H * g.W * g.C;
    float *yrow = p.y + row * g.OW * g.O;
    for (int64_t cb = 0; cb < g.O / 16; ++cb) {
      int64_t ow = 0;
      for (; ow + R <= g.OW; ow += R) {
        const bool inside = ow * g.sw >= g.padLeft && (ow + R - 1) * g.sw - g.padLeft + (g.KW - 1) * g.dw < g.W;
        if (inside && window3) tile3<R>(p, xn, oh, ow, cb, yrow);
        else if (inside) tile<R, false>(p, xn, oh, ow, cb, yrow);
        else tile<R, true>(p, xn, oh, ow, cb, yrow);
      }
      if (ow < g.OW) tailTile(g.OW - ow, p, xn, oh, ow, cb, yrow);
    }
  }
}

}  // namespace
}  // namespace webnn::cpu::kernels

#if defined(__clang__)
#pragma clang attribute pop
#endif
#pragma GCC pop_options
#else  // not x86-64: avx512Available() is false, never runs
namespace webnn::cpu::kernels {
namespace {
void groupedRowsAvx512(const GroupedRows &, int64_t, int64_t) {}
}  // namespace
}  // namespace webnn::cpu::kernels
#endif

namespace webnn::cpu::kernels {
namespace {

class GroupedNarrowConvKernel final : public Kernel {
 public:
  GroupedNarrowConvKernel(const ConvGeometry &g, const FilterIndexer &fi, bool hasBias, float lo, float hi)
      : g_(g), fi_(fi), G_(g.ICg()), hasBias_(hasBias), lo_(lo), hi_(hi) {}

  Status run(const KernelContext &ctx) override {
    // Packed on the first run (loading must not touch the mmapped weights);
    // a run that cannot get its memory fails, and the next one tries again.
    if (!packed_) {
      if (!filter_.resize(size_t(g_.O * g_.KH * g_.KW * G_)))
        return Status(StatusCode::kOutOfMemory, "grouped conv2d: cannot allocate the packed filter");
      packGroupedFilter(in<float>(ctx, 1), fi_, g_, G_, filter_.data());
      packed_ = true;
    }
    GroupedRows p;
    p.g = g_;
    p.x = in<float>(ctx, 0);
    p.w = filter_.data();
    p.bias = hasBias_ ? in<float>(ctx, 2) : nullptr;
    p.y = outp<float>(ctx, 0);
    p.lo = lo_, p.hi = hi_;
    // At least ~100k FLOPs per chunk: a thread hand-off costs microseconds.
    const int64_t rowFlops = std::max<int64_t>(1, 2 * g_.KH * g_.KW * G_ * g_.OW * g_.O);
    parallelFor(ctx, g_.N * g_.OH, std::max<int64_t>(1, 100000 / rowFlops),
                [&](int64_t b, int64_t e) { groupedRowsAvx512(p, b, e); });
    return Status::ok();
  }

 private:
  ConvGeometry g_;
  FilterIndexer fi_;
  int64_t G_;
  bool hasBias_;
  float lo_, hi_;
  bool packed_ = false;
  AlignedFloats filter_;
};

}  // namespace

bool groupedNarrowEnabled() { return debugOptions().groupedNarrow.load(std::memory_order_relaxed); }
void setGroupedNarrowEnabled(bool enabled) { debugOptions().groupedNarrow.store(enabled, std::memory_order_relaxed); }

std::unique_ptr<Kernel> makeGroupedNarrowConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                              float lo, float hi, std::string *why) {
  if (!groupedNarrowEnabled()) return refuse(why, "off (WEBNN_GROUPED_NARROW=0)");
  if (!avx512Available()) return refuse(why, "no AVX-512");
  if (!g.nhwc) return refuse(why, "not nhwc");
  if (node.inputs[0]->dtype != DataType::kFloat32) return refuse(why, "not float32");
  if (g.groups == 1) return refuse(why, "not grouped");
  if (g.ICg() != 4 || g.OCg() != 4) return refuse(why, "not 4 channels per group, in and out");
  if (g.O % 16) return refuse(why, "channels not a multiple of 16");
  if (!node.inputs[1]->constantData) return refuse(why, "filter not constant");
  return std::make_unique<GroupedNarrowConvKernel>(g, fi, hasBiasInput(node), lo, hi);
}

}  // namespace webnn::cpu::kernels
