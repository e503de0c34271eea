// Separable bilinear resample2d (float32, two adjacent axes, ascending): the
// output is [outer, outH, outW * inner] rows, and output row (o, oy) blends
// source rows lo[oy] and hi[oy] of plane o after each has been interpolated
// along W. An upscale by k shares each interpolated source row among ~k
// output rows, so the horizontal gather runs once per source row instead of
// twice per output element, and the vertical blend is one contiguous,
// vectorized pass per output row.
//
// Each chunk of output rows keeps the two interpolated rows it used last
// (keyed by plane and source row) and recomputes only what the next row
// lacks. The arithmetic per element is the row walk's in Resample.cpp
// (horizontal blends first, then vertical), so the two agree to rounding.
#include <algorithm>
#include <cstring>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Resample.h"

namespace webnn::cpu::kernels {
namespace {

class SeparableLinearResampleKernel final : public Kernel {
 public:
  SeparableLinearResampleKernel(const Shape &in, const Shape &out, int64_t axis, ResampleAxisTable rows,
                                ResampleAxisTable cols)
      : rows_(std::move(rows)), cols_(std::move(cols)) {
    for (int64_t d = 0; d < axis; ++d) outer_ *= out[size_t(d)];
    for (int64_t d = axis + 2; d < 4; ++d) inner_ *= out[size_t(d)];
    inH_ = in[size_t(axis)];
    outH_ = out[size_t(axis)];
    outW_ = out[size_t(axis + 1)];
    inRow_ = in[size_t(axis + 1)] * inner_;
    rowLen_ = outW_ * inner_;
    for (size_t i = 0; i < cols_.t.size(); ++i) {
      colLo_.push_back(cols_.lo[i] * inner_);
      colHi_.push_back(cols_.hi[i] * inner_);
    }
  }

  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    // Chunks of at least ~16K outputs: a chunk recomputes its first rows'
    // interpolated sources, so tiny chunks would repeat that work.
    int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, rowLen_));
    parallelFor(ctx, outer_ * outH_, grain, [&](int64_t begin, int64_t end) { runRows(x, y, begin, end); });
    return Status::ok();
  }

 private:
  // Source row `sy` of plane `o`, interpolated along W into `dst`.
  void interpolateRow(const float *x, int64_t o, int64_t sy, float *dst) const {
    const float *src = x + (o * inH_ + sy) * inRow_;
    const int64_t inner = inner_;
    if (inner == 1) {
      for (int64_t ox = 0; ox < outW_; ++ox) {
        float wx = cols_.t[size_t(ox)];
        dst[ox] = src[colLo_[size_t(ox)]] * (1.f - wx) + src[colHi_[size_t(ox)]] * wx;
      }
      return;
    }
    for (int64_t ox = 0; ox < outW_; ++ox, dst += inner) {
      const float *a = src + colLo_[size_t(ox)], *b = src + colHi_[size_t(ox)];
      float wx = cols_.t[size_t(ox)];
      for (int64_t c = 0; c < inner; ++c) dst[c] = a[c] * (1.f - wx) + b[c] * wx;
    }
  }

  void runRows(const float *x, float *y, int64_t begin, int64_t end) const {
    std::vector<float> scratch(size_t(2 * rowLen_));
    float *slot[2] = {scratch.data(), scratch.data() + rowLen_};
    int64_t key[2] = {-1, -1};  // o * inH + source row held by each slot
    for (int64_t r = begin; r < end; ++r) {
      int64_t o = r / outH_, oy = r % outH_;
      int64_t need[2] = {o * inH_ + rows_.lo[size_t(oy)], o * inH_ + rows_.hi[size_t(oy)]};
      int at[2];
      for (int i = 0; i < 2; ++i) {
        int s = key[0] == need[i] ? 0 : key[1] == need[i] ? 1 : -1;
        if (s < 0) {
          // Keep the slot that holds the other needed row.
          s = i == 0 ? (key[0] == need[1] ? 1 : 0) : 1 - at[0];
          interpolateRow(x, o, need[i] - o * inH_, slot[s]);
          key[s] = need[i];
        }
        at[i] = s;
      }
      const float *top = slot[at[0]], *bottom = slot[at[1]];
      float *dst = y + r * rowLen_;
      float wy = rows_.t[size_t(oy)];
      if (wy == 0.f) {
        std::memcpy(dst, top, size_t(rowLen_) * sizeof(float));
        continue;
      }
      float wt = 1.f - wy;
      for (int64_t i = 0; i < rowLen_; ++i) dst[i] = top[i] * wt + bottom[i] * wy;
    }
  }

  ResampleAxisTable rows_, cols_;
  std::vector<int64_t> colLo_, colHi_;  // cols_ indices scaled by inner_
  int64_t outer_ = 1, inner_ = 1, inH_ = 0, outH_ = 0, outW_ = 0, inRow_ = 0, rowLen_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> makeSeparableLinearResample(const Shape &in, const Shape &out, int64_t axis,
                                                    ResampleAxisTable rows, ResampleAxisTable cols) {
  if (!debugOptions().resampleSeparable.load(std::memory_order_relaxed)) return nullptr;
  return std::make_unique<SeparableLinearResampleKernel>(in, out, axis, std::move(rows), std::move(cols));
}

void setResampleSeparableEnabled(bool enabled) { debugOptions().resampleSeparable.store(enabled); }

}  // namespace webnn::cpu::kernels
