// gru as one kernel per node (RecurrentLayer.h). Gates are kept in slot
// order z, r, n whatever the weight layout.
//
// resetAfter (the default): n = act(x Wn + bn + r * (h Rn + rbn)), so one
// pass over panels of all three gates gives everything a block needs.
// Otherwise n = act(x Wn + bn + (r * h) Rn + rbn) needs all of r before the
// candidate's product: a step is a pass over z/r panels, then one over the
// candidate's panels.
#include <algorithm>
#include <cstring>
#include <mutex>

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

struct GruDirection {
  // resetAfter: [blocks][hidden][3][W]. Otherwise z/r panels
  // [blocks][hidden][2][W] followed by candidate panels [blocks][hidden][W].
  const float *panels;
  const float *gx;    // [steps][batch][kSlots][paddedHidden]; biases included but rbn under resetAfter
  const float *rbn;   // [paddedHidden]: the candidate's recurrent bias (resetAfter)
  float *h[2];        // [batch][paddedHidden] each; h[1] holds the initial state
  float *z, *rh;      // [batch][paddedHidden] scratch (not resetAfter)
  float *seq;         // this direction's slice of [steps][dirs][batch][hidden], or null
  int64_t seqStride;  // dirs * batch * hidden
  bool backward;
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

class GruLayerKernel final : public Kernel {
 public:
  GruLayerKernel(const NodeDesc &node, const GruConfig &c, const SequenceConfig &s)
      : c_(c), s_(s), width_(useAvx512() ? 16 : 8), hp_((c.hidden + width_ - 1) / width_ * width_),
        proj_(s.dirs, s.steps * c.batch, c.inputSize, kSlots * hp_), gateRow_{c.z, c.r, c.n} {
    w_ = static_cast<const float *>(node.inputs[1]->constantData);
    r_ = static_cast<const float *>(node.inputs[2]->constantData);
    const int64_t D = s.dirs, B = c.batch, H = c.hidden;
    allocated_ = panels_.resize(size_t(D * hp_ * H * kSlots)) && allocated_;
    allocated_ = gx_.resize(size_t(D * s.steps * B * kSlots * hp_)) && allocated_;
    allocated_ = bias_.resize(size_t(D * kSlots * hp_)) && allocated_;
    allocated_ = rbn_.resize(size_t(D * hp_)) && allocated_;
    // Per direction: h[0], h[1] (initial), z, rh, each [B][hp_].
    allocated_ = state_.resize(size_t(D * 4 * B * hp_)) && allocated_;
  }

  Status run(const KernelContext &ctx) override {
    if (!allocated_ || !proj_.allocated())
      return Status(StatusCode::kOutOfMemory, "gru: cannot allocate the layer's packed weights and buffers");
    const int64_t D = s_.dirs, B = c_.batch, H = c_.hidden, BH = B * H;
    if (w_ && r_) {
      std::call_once(packOnce_, [&] { pack(w_, r_, true); });
    } else {
      pack(in<float>(ctx, 1), in<float>(ctx, 2), false);
    }
    const float *bias = optionalInput(ctx, 3), *rbias = optionalInput(ctx, 4), *h0 = optionalInput(ctx, 5);
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
        for (int64_t b = 0; b < B; ++b)
          std::memcpy(state_.data() + (d * 4 * B + B + b) * hp_, h0 + d * BH + b * H, size_t(H) * sizeof(float));
    proj_.run(in<float>(ctx, 0), bias_.data(), gx_.data(), ctx);
    float *seq = s_.returnSequence ? outp<float>(ctx, 1) : nullptr;
    float *last = outp<float>(ctx, 0);
    auto direction = [&](int64_t d) {
      float *st = state_.data() + d * 4 * B * hp_;
      GruDirection dir;
      dir.panels = panels_.data() + d * hp_ * H * kSlots;
      dir.gx = gx_.data() + d * s_.steps * B * kSlots * hp_;
      dir.rbn = rbn_.data() + d * hp_;
      dir.h[0] = st;
      dir.h[1] = st + B * hp_;
      dir.z = st + 2 * B * hp_;
      dir.rh = st + 3 * B * hp_;
      dir.seq = seq ? seq + d * BH : nullptr;
      dir.seqStride = D * BH;
      dir.backward = s_.backwardOnly || d == 1;
      return dir;
    };
    auto recur = [&](const GruDirection &dir, rnn::StepSplit *split) {
      if (width_ == 16) gruRecurrence512(c_, s_.steps, dir, split);
      else gruRecurrence256(c_, s_.steps, dir, split);
    };
    const int64_t parts = D == 1 && c_.resetAfter ? rnn::stepParts(ctx, hp_ / width_) : 1;
    if (parts > 1) {
      const GruDirection dir = direction(0);
      rnn::StepSplit split;
      split.parts = parts;
      parallelFor(ctx, parts, 1, [&](int64_t, int64_t) { recur(dir, &split); });
    } else {
      parallelFor(ctx, D, 1, [&](int64_t d0, int64_t d1) {
        for (int64_t d = d0; d < d1; ++d) recur(direction(d), nullptr);
      });
    }
    for (int64_t d = 0; d < D; ++d) {
      const float *hLast = state_.data() + d * 4 * B * hp_ + ((s_.steps - 1) & 1) * B * hp_;
      for (int64_t b = 0; b < B; ++b)
        std::memcpy(last + d * BH + b * H, hLast + b * hp_, size_t(H) * sizeof(float));
    }
    return Status::ok();
  }

  void warmUp(int numThreads) override {
    (void)numThreads;
    if (w_ && r_ && allocated_ && proj_.allocated()) std::call_once(packOnce_, [&] { pack(w_, r_, true); });
  }

 private:
  static const float *optionalInput(const KernelContext &ctx, size_t i) {
    return i < ctx.numInputs && ctx.inputs[i] ? static_cast<const float *>(ctx.inputs[i]->data) : nullptr;
  }

  void pack(const float *w, const float *r, bool constant) {
    const int64_t D = s_.dirs, H = c_.hidden, I = c_.inputSize;
    for (int64_t d = 0; d < D; ++d) {
      rnn::padGateRows(w + d * kSlots * H * I, H, hp_, I, gateRow_, kSlots, proj_.staged(d));
      const float *rd = r + d * kSlots * H * H;
      float *dst = panels_.data() + d * hp_ * H * kSlots;
      if (c_.resetAfter) {
        rnn::packRecurrentPanels(rd, H, H, gateRow_, kSlots, width_, dst);
      } else {
        rnn::packRecurrentPanels(rd, H, H, gateRow_, 2, width_, dst);
        rnn::packRecurrentPanels(rd, H, H, gateRow_ + 2, 1, width_, dst + hp_ * H * 2);
      }
    }
    proj_.pack(constant);
    if (constant) {
      releasePackedSource(w, size_t(D * kSlots * H * I) * sizeof(float));
      releasePackedSource(r, size_t(D * kSlots * H * H) * sizeof(float));
    }
  }

  GruConfig c_;
  SequenceConfig s_;
  int width_;
  int64_t hp_;
  rnn::InputProjection proj_;
  int gateRow_[kSlots];
  const float *w_ = nullptr, *r_ = nullptr;  // constant weights, else null
  bool allocated_ = true;  // every buffer below was allocated
  std::once_flag packOnce_;
  AlignedFloats panels_, gx_, bias_, rbn_, state_;
};

}  // namespace

std::unique_ptr<Kernel> makeGruLayerKernel(const NodeDesc &node, const GruConfig &c, const SequenceConfig &s) {
  return std::make_unique<GruLayerKernel>(node, c, s);
}

}  // namespace webnn::cpu::kernels
