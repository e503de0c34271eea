// lstm as one kernel per node (RecurrentLayer.h). Gates are kept in slot
// order i, f, g, o whatever the weight layout: the packed panels, the input
// projection's columns and the biases are all reordered when packed.
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
using rnn::splat;
using rnn::store;
using rnn::storeFirst;
using rnn::VF;

constexpr int kSlots = 4;  // i, f, g, o

// One direction's recurrence over its buffers.
struct LstmDirection {
  const float *panels;  // [blocks][hidden][kSlots][W]
  const float *gx;      // [steps][batch][kSlots][paddedHidden], biases included
  const float *peep;    // [3][paddedHidden] (i, o, f), or null
  float *h[2];          // [batch][paddedHidden] each; h[1] holds the initial state
  float *c;             // [batch][paddedHidden], the initial state on entry
  float *seq;           // this direction's slice of [steps][dirs][batch][hidden], or null
  int64_t seqStride;    // dirs * batch * hidden
  bool backward;
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

class LstmLayerKernel final : public Kernel {
 public:
  LstmLayerKernel(const NodeDesc &node, const LstmConfig &c, const SequenceConfig &s)
      : c_(c), s_(s), width_(useAvx512() ? 16 : 8), hp_((c.hidden + width_ - 1) / width_ * width_),
        proj_(s.dirs, s.steps * c.batch, c.inputSize, kSlots * hp_), gateRow_{c.i, c.f, c.g, c.o} {
    w_ = static_cast<const float *>(node.inputs[1]->constantData);
    r_ = static_cast<const float *>(node.inputs[2]->constantData);
    const int64_t D = s.dirs, B = c.batch, H = c.hidden;
    allocated_ = panels_.resize(size_t(D * hp_ * H * kSlots)) && allocated_;
    allocated_ = gx_.resize(size_t(D * s.steps * B * kSlots * hp_)) && allocated_;
    allocated_ = bias_.resize(size_t(D * kSlots * hp_)) && allocated_;
    if (node.inputs.size() > 5 && node.inputs[5]) allocated_ = peep_.resize(size_t(D * 3 * hp_)) && allocated_;
    allocated_ = state_.resize(size_t(D * 3 * B * hp_)) && allocated_;
  }

  Status run(const KernelContext &ctx) override {
    if (!allocated_ || !proj_.allocated())
      return Status(StatusCode::kOutOfMemory, "lstm: cannot allocate the layer's packed weights and buffers");
    const int64_t D = s_.dirs, B = c_.batch, H = c_.hidden, BH = B * H;
    if (w_ && r_) {
      std::call_once(packOnce_, [&] { pack(w_, r_, true); });
    } else {
      pack(in<float>(ctx, 1), in<float>(ctx, 2), false);
    }
    const float *bias = optionalInput(ctx, 3), *rbias = optionalInput(ctx, 4), *peep = optionalInput(ctx, 5);
    const float *h0 = optionalInput(ctx, 6), *c0 = optionalInput(ctx, 7);
    std::fill(bias_.data(), bias_.data() + bias_.size(), 0.f);
    for (int64_t d = 0; d < D; ++d)
      for (int s = 0; s < kSlots; ++s)
        for (int64_t j = 0; j < H; ++j) {
          const int64_t src = d * kSlots * H + gateRow_[s] * H + j;
          bias_[size_t((d * kSlots + s) * hp_ + j)] = (bias ? bias[src] : 0.f) + (rbias ? rbias[src] : 0.f);
        }
    if (peep) {
      std::fill(peep_.data(), peep_.data() + peep_.size(), 0.f);
      for (int64_t q = 0; q < 3 * D; ++q) std::memcpy(peep_.data() + q * hp_, peep + q * H, size_t(H) * sizeof(float));
    }
    // States: per direction h[0], h[1] (initial), c, each [B][hp_].
    std::fill(state_.data(), state_.data() + state_.size(), 0.f);
    for (int64_t d = 0; d < D; ++d)
      for (int64_t b = 0; b < B; ++b) {
        float *st = state_.data() + d * 3 * B * hp_;
        if (h0) std::memcpy(st + (B + b) * hp_, h0 + d * BH + b * H, size_t(H) * sizeof(float));
        if (c0) std::memcpy(st + (2 * B + b) * hp_, c0 + d * BH + b * H, size_t(H) * sizeof(float));
      }
    proj_.run(in<float>(ctx, 0), bias_.data(), gx_.data(), ctx);
    float *seq = s_.returnSequence ? outp<float>(ctx, 2) : nullptr;
    float *lastH = outp<float>(ctx, 0), *lastC = outp<float>(ctx, 1);
    auto direction = [&](int64_t d) {
      float *st = state_.data() + d * 3 * B * hp_;
      LstmDirection dir;
      dir.panels = panels_.data() + d * hp_ * H * kSlots;
      dir.gx = gx_.data() + d * s_.steps * B * kSlots * hp_;
      dir.peep = peep ? peep_.data() + d * 3 * hp_ : nullptr;
      dir.h[0] = st;
      dir.h[1] = st + B * hp_;
      dir.c = st + 2 * B * hp_;
      dir.seq = seq ? seq + d * BH : nullptr;
      dir.seqStride = D * BH;
      dir.backward = s_.backwardOnly || d == 1;
      return dir;
    };
    auto recur = [&](const LstmDirection &dir, rnn::StepSplit *split) {
      if (width_ == 16) lstmRecurrence512(c_, s_.steps, dir, split);
      else lstmRecurrence256(c_, s_.steps, dir, split);
    };
    const int64_t parts = D == 1 ? rnn::stepParts(ctx, hp_ / width_) : 1;
    if (parts > 1) {
      const LstmDirection dir = direction(0);
      rnn::StepSplit split;
      split.parts = parts;
      parallelFor(ctx, parts, 1, [&](int64_t, int64_t) { recur(dir, &split); });
    } else {
      parallelFor(ctx, D, 1, [&](int64_t d0, int64_t d1) {
        for (int64_t d = d0; d < d1; ++d) recur(direction(d), nullptr);
      });
    }
    for (int64_t d = 0; d < D; ++d) {
      const float *st = state_.data() + d * 3 * B * hp_;
      const float *hLast = st + ((s_.steps - 1) & 1) * B * hp_, *cLast = st + 2 * B * hp_;
      for (int64_t b = 0; b < B; ++b) {
        std::memcpy(lastH + d * BH + b * H, hLast + b * hp_, size_t(H) * sizeof(float));
        std::memcpy(lastC + d * BH + b * H, cLast + b * hp_, size_t(H) * sizeof(float));
      }
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
      rnn::packRecurrentPanels(r + d * kSlots * H * H, H, H, gateRow_, kSlots, width_,
                               panels_.data() + d * hp_ * H * kSlots);
    }
    proj_.pack(constant);
    if (constant) {
      releasePackedSource(w, size_t(D * kSlots * H * I) * sizeof(float));
      releasePackedSource(r, size_t(D * kSlots * H * H) * sizeof(float));
    }
  }

  LstmConfig c_;
  SequenceConfig s_;
  int width_;
  int64_t hp_;
  rnn::InputProjection proj_;
  int gateRow_[kSlots];
  const float *w_ = nullptr, *r_ = nullptr;  // constant weights, else null
  bool allocated_ = true;  // every buffer below was allocated
  std::once_flag packOnce_;
  AlignedFloats panels_, gx_, bias_, peep_, state_;
};

}  // namespace

std::unique_ptr<Kernel> makeLstmLayerKernel(const NodeDesc &node, const LstmConfig &c, const SequenceConfig &s) {
  return std::make_unique<LstmLayerKernel>(node, c, s);
}

}  // namespace webnn::cpu::kernels
