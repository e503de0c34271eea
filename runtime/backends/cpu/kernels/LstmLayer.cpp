// lstm as one kernel per node (RecurrentLayer.h). Gates are kept in slot
// order i, f, g, o whatever the weight layout: the packed panels, the input
// projection's columns and the biases are all reordered when packed.
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
using rnn::splat;
using rnn::store;
using rnn::storeFirst;
using rnn::VF;

constexpr int kSlots = 4;  // i, f, g, o

// One direction's recurrence over its buffers: panels [blocks][hidden]
// [kSlots][W], gx with the biases included.
struct LstmDirection : rnn::DirectionBuffers {
  const float *peep;  // [3][paddedHidden] (i, o, f), or null
  float *c;           // [batch][paddedHidden], the initial state on entry
};

// Step t over blocks [block0, block1).
template <int W>
WEBNN_RNN_INLINE void lstmStep(const LstmConfig &c, int64_t steps, const LstmDirection &d, int64_t t,
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
      V pi = acc[0] + load<W>(g), pf = acc[1] + load<W>(g + Hp);
      V pg = acc[2] + load<W>(g + 2 * Hp), po = acc[3] + load<W>(g + 3 * Hp);
      float *cr = d.c + b * Hp + j0;
      const V cPrev = load<W>(cr);
      if (d.peep) {
        pi += load<W>(d.peep + j0) * cPrev;
        po += load<W>(d.peep + Hp + j0) * cPrev;
        pf += load<W>(d.peep + 2 * Hp + j0) * cPrev;
      }
      const V it = activate<W>(c.gate, pi), ft = activate<W>(c.gate, pf);
      const V gt = activate<W>(c.cellGate, pg), ot = activate<W>(c.gate, po);
      const V cNext = ft * cPrev + it * gt;
      const V hv = ot * activate<W>(c.output, cNext);
      store<W>(cr, cNext);
      store<W>(hNext + b * Hp + j0, hv);
      if (d.seq) storeFirst<W>(d.seq + step * d.seqStride + b * H + j0, hv, std::min<int64_t>(W, H - j0));
    }
  }
}

// Every step of one direction, or this thread's share of them (split).
template <int W>
WEBNN_RNN_INLINE void lstmRecurrence(const LstmConfig &c, int64_t steps, const LstmDirection &d,
                                     rnn::StepSplit *split) {
  rnn::runSteps(steps, (c.hidden + W - 1) / W, split,
                [&](int64_t t, int64_t b0, int64_t b1) __attribute__((always_inline)) {
                  lstmStep<W>(c, steps, d, t, b0, b1);
                });
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) void lstmRecurrence512(const LstmConfig &c,
                                                                                     int64_t steps,
                                                                                     const LstmDirection &d,
                                                                                     rnn::StepSplit *split) {
  lstmRecurrence<16>(c, steps, d, split);
}
__attribute__((target("avx2,fma"))) void lstmRecurrence256(const LstmConfig &c, int64_t steps,
                                                           const LstmDirection &d, rnn::StepSplit *split) {
  lstmRecurrence<8>(c, steps, d, split);
}

class LstmLayerKernel final : public rnn::LayerKernel {
 public:
  LstmLayerKernel(const NodeDesc &node, const LstmConfig &c, const SequenceConfig &s)
      : LayerKernel(node, s, c.batch, c.inputSize, c.hidden, kSlots,
                    std::array<int, kSlots>{c.i, c.f, c.g, c.o}.data()),
        c_(c) {
    const int64_t D = s.dirs;
    if (node.inputs.size() > 5 && node.inputs[5]) allocated_ = peep_.resize(size_t(D * 3 * hp_)) && allocated_;
    allocated_ = state_.resize(size_t(D * 3 * c.batch * hp_)) && allocated_;
  }

  Status run(const KernelContext &ctx) override {
    if (!buffersAllocated())
      return Status(StatusCode::kOutOfMemory, "lstm: cannot allocate the layer's packed weights and buffers");
    const int64_t D = s_.dirs, B = c_.batch, H = c_.hidden, BH = B * H;
    packWeights(ctx);
    const float *bias = rnn::optionalInput(ctx, 3), *rbias = rnn::optionalInput(ctx, 4);
    const float *peep = rnn::optionalInput(ctx, 5);
    const float *h0 = rnn::optionalInput(ctx, 6), *c0 = rnn::optionalInput(ctx, 7);
    std::fill(bias_.data(), bias_.data() + bias_.size(), 0.f);
    for (int64_t d = 0; d < D; ++d)
      for (int s = 0; s < kSlots; ++s)
        for (int64_t j = 0; j < H; ++j) {
          const int64_t src = d * kSlots * H + gateRow_[s] * H + j;
          bias_[size_t((d * kSlots + s) * hp_ + j)] = (bias ? bias[src] : 0.f) + (rbias ? rbias[src] : 0.f);
        }
    if (peep) {
      std::fill(peep_.data(), peep_.data() + peep_.size(), 0.f);
      rnn::copyToPaddedRows(peep, 3 * D, H, hp_, peep_.data());
    }
    // States: per direction h[0], h[1] (initial), c, each [B][hp_].
    std::fill(state_.data(), state_.data() + state_.size(), 0.f);
    for (int64_t d = 0; d < D; ++d) {
      float *st = state_.data() + d * 3 * B * hp_;
      if (h0) rnn::copyToPaddedRows(h0 + d * BH, B, H, hp_, st + B * hp_);
      if (c0) rnn::copyToPaddedRows(c0 + d * BH, B, H, hp_, st + 2 * B * hp_);
    }
    proj_.run(in<float>(ctx, 0), bias_.data(), gx_.data(), ctx);
    float *seq = s_.returnSequence ? outp<float>(ctx, 2) : nullptr;
    float *lastH = outp<float>(ctx, 0), *lastC = outp<float>(ctx, 1);
    auto direction = [&](int64_t d) {
      float *st = state_.data() + d * 3 * B * hp_;
      LstmDirection dir;
      fillDirection(d, st, seq, &dir);
      dir.peep = peep ? peep_.data() + d * 3 * hp_ : nullptr;
      dir.c = st + 2 * B * hp_;
      return dir;
    };
    auto recur = [&](const LstmDirection &dir, rnn::StepSplit *split) {
      if (width_ == 16) lstmRecurrence512(c_, s_.steps, dir, split);
      else lstmRecurrence256(c_, s_.steps, dir, split);
    };
    rnn::runDirections(ctx, D, D == 1 ? rnn::stepParts(ctx, hp_ / width_) : 1, direction, recur);
    for (int64_t d = 0; d < D; ++d) {
      const float *st = state_.data() + d * 3 * B * hp_;
      rnn::copyFromPaddedRows(st + ((s_.steps - 1) & 1) * B * hp_, B, H, hp_, lastH + d * BH);
      rnn::copyFromPaddedRows(st + 2 * B * hp_, B, H, hp_, lastC + d * BH);
    }
    return Status::ok();
  }

 private:
  void packRecurrent(const float *rd, float *dst) override {
    rnn::packRecurrentPanels(rd, c_.hidden, c_.hidden, gateRow_, kSlots, width_, dst);
  }

  LstmConfig c_;
  AlignedFloats peep_, state_;
};

}  // namespace

std::unique_ptr<Kernel> makeLstmLayerKernel(const NodeDesc &node, const LstmConfig &c, const SequenceConfig &s) {
  return std::make_unique<LstmLayerKernel>(node, c, s);
}

}  // namespace webnn::cpu::kernels
