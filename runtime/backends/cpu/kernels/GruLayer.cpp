// gru as one kernel per node (RecurrentLayer.h). Gates are kept in slot
// order z, r, n whatever the weight layout.
//
// resetAfter (the default): n = act(x Wn + bn + r * (h Rn + rbn)), so one
// pass over panels of all three gates gives everything a block needs.
// Otherwise n = act(x Wn + bn + (r * h) Rn + rbn) needs all of r before the
// candidate's product: a step is a pass over z/r panels, then one over the
// candidate's panels.
#include <algorithm>
#include <array>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/RecurrentLayer.h"

// The vector helpers pass 64-byte vectors by value between always_inline
// functions that end up inside AVX-512 ones; GCC's ABI note does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace webnn::cpu::kernels {
namespace {

using rnn::activate;
using rnn::load;
using rnn::store;
using rnn::storeFirst;
using rnn::VF;

constexpr int kSlots = 3;  // z, r, n

// panels: resetAfter, [blocks][hidden][3][W]; otherwise z/r panels
// [blocks][hidden][2][W] followed by candidate panels [blocks][hidden][W].
// gx holds the biases, but for rbn under resetAfter.
struct GruDirection : rnn::DirectionBuffers {
  const float *rbn;  // [paddedHidden]: the candidate's recurrent bias (resetAfter)
  float *z, *rh;     // [batch][paddedHidden] scratch (not resetAfter)
};

// Step t over blocks [block0, block1) (resetAfter).
template <int W>
WEBNN_RNN_INLINE void gruStepResetAfter(const GruConfig &c, int64_t steps, const GruDirection &d, int64_t t,
                                        int64_t block0, int64_t block1) {
  using V = VF<W>;
  const int64_t B = c.batch, H = c.hidden, Hp = (H + W - 1) / W * W;
  const int64_t step = d.backward ? steps - 1 - t : t;
  const float *hPrev = d.h[(t + 1) & 1];
  float *hNext = d.h[t & 1];
  for (int64_t bi = block0; bi < block1; ++bi) {
    // Odd steps walk the panels backwards (RecurrentLayer.h).
    const int64_t blk = (t & 1) ? block0 + block1 - 1 - bi : bi, j0 = blk * W;
    const float *panel = d.panels + blk * H * kSlots * W;
    for (int64_t b = 0; b < B; ++b) {
      V acc[kSlots];
      rnn::gemvPanel<W, kSlots>(panel, hPrev + b * Hp, H, acc);
      const float *g = d.gx + (step * B + b) * kSlots * Hp + j0;
      const V zt = activate<W>(c.gate, acc[0] + load<W>(g));
      const V rt = activate<W>(c.gate, acc[1] + load<W>(g + Hp));
      const V nt = activate<W>(c.candidate, load<W>(g + 2 * Hp) + rt * (acc[2] + load<W>(d.rbn + j0)));
      const V hv = zt * load<W>(hPrev + b * Hp + j0) + (1.f - zt) * nt;
      store<W>(hNext + b * Hp + j0, hv);
      if (d.seq) storeFirst<W>(d.seq + step * d.seqStride + b * H + j0, hv, std::min<int64_t>(W, H - j0));
    }
  }
}

// Step t with the reset gate applied before the candidate's product: all of
// r * h first, then the candidate (one thread).
template <int W>
WEBNN_RNN_INLINE void gruStepResetBefore(const GruConfig &c, int64_t steps, const GruDirection &d, int64_t t) {
  using V = VF<W>;
  const int64_t B = c.batch, H = c.hidden, Hp = (H + W - 1) / W * W, blocks = Hp / W;
  const int64_t step = d.backward ? steps - 1 - t : t;
  const float *hPrev = d.h[(t + 1) & 1];
  float *hNext = d.h[t & 1];
  const float *zrPanels = d.panels, *nPanels = d.panels + blocks * H * 2 * W;
  for (int64_t bi = 0; bi < blocks; ++bi) {
    const int64_t blk = (t & 1) ? blocks - 1 - bi : bi, j0 = blk * W;
    for (int64_t b = 0; b < B; ++b) {
      V acc[2];
      rnn::gemvPanel<W, 2>(zrPanels + blk * H * 2 * W, hPrev + b * Hp, H, acc);
      const float *g = d.gx + (step * B + b) * kSlots * Hp + j0;
      store<W>(d.z + b * Hp + j0, activate<W>(c.gate, acc[0] + load<W>(g)));
      const V rt = activate<W>(c.gate, acc[1] + load<W>(g + Hp));
      store<W>(d.rh + b * Hp + j0, rt * load<W>(hPrev + b * Hp + j0));
    }
  }
  for (int64_t bi = 0; bi < blocks; ++bi) {
    const int64_t blk = (t & 1) ? blocks - 1 - bi : bi, j0 = blk * W;
    for (int64_t b = 0; b < B; ++b) {
      V acc[1];
      rnn::gemvPanel<W, 1>(nPanels + blk * H * W, d.rh + b * Hp, H, acc);
      const float *g = d.gx + (step * B + b) * kSlots * Hp + j0;
      const V zt = load<W>(d.z + b * Hp + j0);
      const V nt = activate<W>(c.candidate, acc[0] + load<W>(g + 2 * Hp));
      const V hv = zt * load<W>(hPrev + b * Hp + j0) + (1.f - zt) * nt;
      store<W>(hNext + b * Hp + j0, hv);
      if (d.seq) storeFirst<W>(d.seq + step * d.seqStride + b * H + j0, hv, std::min<int64_t>(W, H - j0));
    }
  }
}

// Every step of one direction, or this thread's share of them (split).
template <int W>
WEBNN_RNN_INLINE void gruRecurrence(const GruConfig &c, int64_t steps, const GruDirection &d,
                                    rnn::StepSplit *split) {
  const int64_t blocks = (c.hidden + W - 1) / W;
  if (!c.resetAfter) {
    for (int64_t t = 0; t < steps; ++t) gruStepResetBefore<W>(c, steps, d, t);
    return;
  }
  rnn::runSteps(steps, blocks, split, [&](int64_t t, int64_t b0, int64_t b1) __attribute__((always_inline)) {
    gruStepResetAfter<W>(c, steps, d, t, b0, b1);
  });
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) void gruRecurrence512(const GruConfig &c,
                                                                                    int64_t steps,
                                                                                    const GruDirection &d,
                                                                                    rnn::StepSplit *split) {
  gruRecurrence<16>(c, steps, d, split);
}
__attribute__((target("avx2,fma"))) void gruRecurrence256(const GruConfig &c, int64_t steps, const GruDirection &d,
                                                          rnn::StepSplit *split) {
  gruRecurrence<8>(c, steps, d, split);
}

class GruLayerKernel final : public rnn::LayerKernel {
 public:
  GruLayerKernel(const NodeDesc &node, const GruConfig &c, const SequenceConfig &s)
      : LayerKernel(node, s, c.batch, c.inputSize, c.hidden, kSlots, std::array<int, kSlots>{c.z, c.r, c.n}.data()),
        c_(c) {
    allocated_ = rbn_.resize(size_t(s.dirs * hp_)) && allocated_;
    // Per direction: h[0], h[1] (initial), z, rh, each [B][hp_].
    allocated_ = state_.resize(size_t(s.dirs * 4 * c.batch * hp_)) && allocated_;
  }

  Status run(const KernelContext &ctx) override {
    if (!buffersAllocated())
      return Status(StatusCode::kOutOfMemory, "gru: cannot allocate the layer's packed weights and buffers");
    const int64_t D = s_.dirs, B = c_.batch, H = c_.hidden, BH = B * H;
    packWeights(ctx);
    const float *bias = rnn::optionalInput(ctx, 3), *rbias = rnn::optionalInput(ctx, 4);
    const float *h0 = rnn::optionalInput(ctx, 5);
    std::fill(bias_.data(), bias_.data() + bias_.size(), 0.f);
    std::fill(rbn_.data(), rbn_.data() + rbn_.size(), 0.f);
    for (int64_t d = 0; d < D; ++d)
      for (int s = 0; s < kSlots; ++s)
        for (int64_t j = 0; j < H; ++j) {
          const int64_t src = d * kSlots * H + gateRow_[s] * H + j;
          const float rb = rbias ? rbias[src] : 0.f;
          float v = bias ? bias[src] : 0.f;
          if (s == 2 && c_.resetAfter) rbn_[size_t(d * hp_ + j)] = rb;
          else v += rb;
          bias_[size_t((d * kSlots + s) * hp_ + j)] = v;
        }
    std::fill(state_.data(), state_.data() + state_.size(), 0.f);
    if (h0)
      for (int64_t d = 0; d < D; ++d)
        rnn::copyToPaddedRows(h0 + d * BH, B, H, hp_, state_.data() + (d * 4 + 1) * B * hp_);
    proj_.run(in<float>(ctx, 0), bias_.data(), gx_.data(), ctx);
    float *seq = s_.returnSequence ? outp<float>(ctx, 1) : nullptr;
    float *last = outp<float>(ctx, 0);
    auto direction = [&](int64_t d) {
      float *st = state_.data() + d * 4 * B * hp_;
      GruDirection dir;
      fillDirection(d, st, seq, &dir);
      dir.rbn = rbn_.data() + d * hp_;
      dir.z = st + 2 * B * hp_;
      dir.rh = st + 3 * B * hp_;
      return dir;
    };
    auto recur = [&](const GruDirection &dir, rnn::StepSplit *split) {
      if (width_ == 16) gruRecurrence512(c_, s_.steps, dir, split);
      else gruRecurrence256(c_, s_.steps, dir, split);
    };
    rnn::runDirections(ctx, D, D == 1 && c_.resetAfter ? rnn::stepParts(ctx, hp_ / width_) : 1, direction, recur);
    for (int64_t d = 0; d < D; ++d) {
      const float *hLast = state_.data() + d * 4 * B * hp_ + ((s_.steps - 1) & 1) * B * hp_;
      rnn::copyFromPaddedRows(hLast, B, H, hp_, last + d * BH);
    }
    return Status::ok();
  }

 private:
  void packRecurrent(const float *rd, float *dst) override {
    const int64_t H = c_.hidden;
    if (c_.resetAfter) {
      rnn::packRecurrentPanels(rd, H, H, gateRow_, kSlots, width_, dst);
    } else {
      rnn::packRecurrentPanels(rd, H, H, gateRow_, 2, width_, dst);
      rnn::packRecurrentPanels(rd, H, H, gateRow_ + 2, 1, width_, dst + hp_ * H * 2);
    }
  }

  GruConfig c_;
  AlignedFloats rbn_, state_;
};

}  // namespace

std::unique_ptr<Kernel> makeGruLayerKernel(const NodeDesc &node, const GruConfig &c, const SequenceConfig &s) {
  return std::make_unique<GruLayerKernel>(node, c, s);
}

}  // namespace webnn::cpu::kernels
