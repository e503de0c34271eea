// The lstm and gru sequence ops as one kernel per node (LstmLayer.cpp,
// GruLayer.cpp); Recurrent.cpp checks the node and builds them.
//
// Per direction: the input projection of every time step is one GEMM
// (x[steps * batch, inputSize] * W^T, biases in its epilogue), then each step
// is one pass over the recurrent weights, packed once into panels of
// `width` hidden units x all gates x hiddenSize (a GEMV with batch 1), with
// the gate math applied to each panel's accumulators while they are still in
// registers. Consecutive steps walk the panels in opposite orders, so the
// panels the last step read most recently (still in L2) are read first: a
// 1 MB LSTM direction does not fit a 1 MB L2 beside everything else. The two
// directions of a bidirectional layer run on two threads when there are two;
// a one-direction layer on several threads splits each step's panels
// between them (StepSplit).
//
// Shared here: the checked configuration, the vector helpers both layers
// use (GCC vector extensions, instantiated for AVX2 and, when the CPU has it,
// AVX-512), and their common kernel plumbing (LayerKernel: weight packing,
// the input projection, running the directions).
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_RECURRENTLAYER_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_RECURRENTLAYER_H

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {

enum class RnnActivation { kRelu, kSigmoid, kTanh };

struct GruConfig {
  int64_t batch = 0, inputSize = 0, hidden = 0;
  bool resetAfter = true;
  int z = 0, r = 1, n = 2;  // gate positions per layout
  RnnActivation gate = RnnActivation::kSigmoid, candidate = RnnActivation::kTanh;
};

struct LstmConfig {
  int64_t batch = 0, inputSize = 0, hidden = 0;
  int i = 0, o = 1, f = 2, g = 3;  // gate positions per layout
  RnnActivation gate = RnnActivation::kSigmoid, cellGate = RnnActivation::kTanh, output = RnnActivation::kTanh;
};

struct SequenceConfig {
  int64_t steps = 0, dirs = 1;
  bool backwardOnly = false, returnSequence = false;
};

// Operands as Recurrent.cpp checked them: gru (input, weight,
// recurrentWeight, bias?, recurrentBias?, initialHiddenState?) and lstm (...,
// peepholeWeight?, initialHiddenState?, initialCellState?), float32.
std::unique_ptr<Kernel> makeGruLayerKernel(const NodeDesc &node, const GruConfig &c, const SequenceConfig &s);
std::unique_ptr<Kernel> makeLstmLayerKernel(const NodeDesc &node, const LstmConfig &c, const SequenceConfig &s);

namespace rnn {

// The helpers pass 64-byte vectors by value; they are always inlined into
// AVX-512 functions, so GCC's ABI note about such arguments does not apply.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// Vectors of W floats (and int32s): AVX2's 8 or AVX-512's 16. Everything
// below is always_inline, so it compiles for the ISA of the target-attributed
// function that instantiates it.
template <int W>
using VF = std::conditional_t<W == 16, avx512::simd::VF, avx2::simd::VF>;
template <int W>
using VI = std::conditional_t<W == 16, avx512::simd::VI, avx2::simd::VI>;

#define WEBNN_RNN_INLINE __attribute__((always_inline)) inline

template <int W>
WEBNN_RNN_INLINE VF<W> splat(float v) {
  return VF<W>{} + v;
}
template <int W>
WEBNN_RNN_INLINE VF<W> load(const float *p) {
  VF<W> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <int W>
WEBNN_RNN_INLINE void store(float *p, VF<W> v) {
  std::memcpy(p, &v, sizeof(v));
}
// The first n <= W lanes.
template <int W>
WEBNN_RNN_INLINE void storeFirst(float *p, VF<W> v, int64_t n) {
  if (n == W) return store<W>(p, v);
  float t[W];
  store<W>(t, v);
  for (int64_t i = 0; i < n; ++i) p[i] = t[i];
}

// exp as TransformerSimdImpl.inc computes it (x = n ln2 + r, degree-6
// polynomial, argument clamped to [-87.3, 88.7]), here always_inline.
template <int W>
WEBNN_RNN_INLINE VF<W> vexp(VF<W> x) {
  using V = VF<W>;
  using I = VI<W>;
  x = x < -87.33654f ? V{} - 87.33654f : x;
  x = x > 88.72283f ? V{} + 88.72283f : x;
  const V magic = V{} + 12582912.f;
  V t = x * 1.44269504088896341f + magic;
  V n = t - magic;
  I ni = (I)t - (I)magic;
  V r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  V p = V{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.f;
  return p * (V)((ni + 127) << 23);
}

// sigmoid = 1 / (1 + e^-x); tanh = 1 - 2 / (e^2x + 1) (exp clamps its
// argument, so both saturate to their limits rather than to NaN; absolute
// error ~1e-7 near 0).
template <int W>
WEBNN_RNN_INLINE VF<W> activate(RnnActivation a, VF<W> x) {
  switch (a) {
    case RnnActivation::kRelu: return x > 0.f ? x : VF<W>{};
    case RnnActivation::kSigmoid: return 1.f / (1.f + vexp<W>(-x));
    default: return 1.f - 2.f / (vexp<W>(x + x) + 1.f);
  }
}

// acc[s] = sum over kk < k of h[kk] * panel[kk][s][lane] for S slots (one
// packed panel: [k][S][W]). Even and odd kk go to separate accumulators, so
// there are 2 S independent FMA chains.
template <int W, int S>
WEBNN_RNN_INLINE void gemvPanel(const float *panel, const float *h, int64_t k, VF<W> *acc) {
  VF<W> a[S], e[S];
#pragma GCC unroll 8
  for (int s = 0; s < S; ++s) a[s] = e[s] = VF<W>{};
  const float *p = panel;
  int64_t kk = 0;
  for (; kk + 2 <= k; kk += 2, p += 2 * S * W) {
    const VF<W> x0 = splat<W>(h[kk]), x1 = splat<W>(h[kk + 1]);
#pragma GCC unroll 8
    for (int s = 0; s < S; ++s) {
      a[s] += x0 * load<W>(p + s * W);
      e[s] += x1 * load<W>(p + (S + s) * W);
    }
  }
  if (kk < k) {
    const VF<W> x0 = splat<W>(h[kk]);
#pragma GCC unroll 8
    for (int s = 0; s < S; ++s) a[s] += x0 * load<W>(p + s * W);
  }
#pragma GCC unroll 8
  for (int s = 0; s < S; ++s) acc[s] = a[s] + e[s];
}

#pragma GCC diagnostic pop

// A one-direction recurrence on several threads: step t is `parts` units
// (t, p), part p owning blocks [p * blocks / parts, (p + 1) * blocks / parts).
// Units are claimed in order, and a thread claims the next one only once
// every unit of the step before it is done (its hidden state complete), so
// no thread ever holds a claim while it waits: one that is descheduled
// between units (a loaded machine) or never arrives (a busy pool hands every
// chunk to one thread) leaves the rest to the others. Waits are only for
// units being computed.
struct StepSplit {
  int64_t parts = 1;
  std::atomic<int64_t> next{0}, done{0};
};

// How many parts a one-direction recurrence of `blocks` panels is split into
// on ctx's pool: one per thread while each keeps at least 4 panels (fewer
// make the per-step hand-off cost more than the panels save).
int64_t stepParts(const KernelContext &ctx, int64_t blocks);

// Calls step(t, block0, block1) for every step: alone over all blocks when
// split is null, else for the units this thread claims.
template <typename StepFn>
WEBNN_RNN_INLINE void runSteps(int64_t steps, int64_t blocks, StepSplit *split, StepFn &&step) {
  if (!split) {
    for (int64_t t = 0; t < steps; ++t) step(t, int64_t(0), blocks);
    return;
  }
  const int64_t parts = split->parts, units = steps * parts;
  int spins = 0;
  for (;;) {
    int64_t u = split->next.load(std::memory_order_relaxed);
    if (u >= units) return;
    const int64_t t = u / parts, p = u % parts;
    if (split->done.load(std::memory_order_acquire) < t * parts) {
      // A step takes microseconds: spin briefly, then let a descheduled
      // partner have the core.
      if (++spins < 2000) __builtin_ia32_pause();
      else std::this_thread::yield();
      continue;
    }
    if (!split->next.compare_exchange_weak(u, u + 1, std::memory_order_relaxed)) continue;
    spins = 0;
    step(t, p * blocks / parts, (p + 1) * blocks / parts);
    split->done.fetch_add(1, std::memory_order_release);
  }
}

// Packs rows of a [gates * hidden, k] weight (one direction) into panels:
// dst[block][kk][slot][W] = w[(gateRow[slot] * hidden + block * W + lane) * k
// + kk], zero past hidden. `gateRow[slot]` is the weight's gate position for
// each of `slots` gates, in the order the kernel's gate math wants them.
void packRecurrentPanels(const float *w, int64_t hidden, int64_t k, const int *gateRow, int slots, int width,
                         float *dst);
// The input weight with each gate's rows padded to `paddedHidden` and gates
// in `gateRow` order: dst[slot * paddedHidden + j][k], zero rows past hidden.
void padGateRows(const float *w, int64_t hidden, int64_t paddedHidden, int64_t k, const int *gateRow, int slots,
                 float *dst);

// gx[d][rows][n] = x[rows][k] * w_d^T + bias_d for each direction d, w_d the
// [n][k] rows staged by the caller (padGateRows). With AVX-512 the weights
// are packed once for PackedSgemm's product (bias in its epilogue), otherwise
// the portable sgemm runs on the staged rows.
class InputProjection {
 public:
  InputProjection(int64_t dirs, int64_t rows, int64_t k, int64_t n);
  // Whether its buffers were allocated (run() must not be called otherwise).
  bool allocated() const { return allocated_; }
  // Where to stage direction d's [n][k] rows before pack().
  float *staged(int64_t d) const { return staged_.data() + d * n_ * k_; }
  // After staging: builds the packed copy (a no-op for the portable path).
  // With `final` (constant weights, staged once) the packed path frees the
  // staged rows.
  void pack(bool final);
  void run(const float *x, const float *bias, float *gx, const KernelContext &ctx) const;

 private:
  int64_t dirs_, rows_, k_, n_;
  bool packed_, allocated_;
  AlignedFloats staged_, packedB_;
  PackedSgemmB layout_;
};

// Runs every direction's recurrence, recur(direction(d), split): with
// parts > 1, the one direction split over `parts` threads (StepSplit), else
// each direction on a thread of its own when there are two.
template <typename DirectionFn, typename RecurFn>
void runDirections(const KernelContext &ctx, int64_t dirs, int64_t parts, DirectionFn &&direction,
                   RecurFn &&recur) {
  if (parts > 1) {
    const auto dir = direction(int64_t(0));
    StepSplit split;
    split.parts = parts;
    parallelFor(ctx, parts, 1, [&](int64_t, int64_t) { recur(dir, &split); });
    return;
  }
  parallelFor(ctx, dirs, 1, [&](int64_t d0, int64_t d1) {
    for (int64_t d = d0; d < d1; ++d) recur(direction(d), nullptr);
  });
}

// The optional float32 input i, or null when the node leaves it out.
inline const float *optionalInput(const KernelContext &ctx, size_t i) {
  return i < ctx.numInputs && ctx.inputs[i] ? static_cast<const float *>(ctx.inputs[i]->data) : nullptr;
}

// Copies `rows` rows of n floats from src (rows n apart) to dst (rows
// `paddedN` apart), and back: states live in rows padded to the vector width.
void copyToPaddedRows(const float *src, int64_t rows, int64_t n, int64_t paddedN, float *dst);
void copyFromPaddedRows(const float *src, int64_t rows, int64_t n, int64_t paddedN, float *dst);

// One direction's buffers as both layers' steps read them; each layer's
// direction adds its own.
struct DirectionBuffers {
  const float *panels;  // packed recurrent weights (packRecurrent)
  const float *gx;      // [steps][batch][slots][paddedHidden]: the input projection
  float *h[2];          // [batch][paddedHidden] each; h[1] holds the initial state
  float *seq;           // this direction's slice of [steps][dirs][batch][hidden], or null
  int64_t seqStride;    // dirs * batch * hidden
  bool backward;
};

// What the gru and lstm layer kernels share: the hidden size padded to the
// vector width, the input projection, and the weights (input 1, [dirs][slots
// * hidden][inputSize]; recurrent input 2, [dirs][slots * hidden][hidden])
// packed once when they are constants, else on every run. Each layer packs
// its own recurrent panels (packRecurrent) and owns its state buffers.
class LayerKernel : public Kernel {
 public:
  void warmUp(int numThreads) override;

 protected:
  // `gateRow[slot]`: the weights' gate position of each of `slots` (<= 4)
  // gates, in the order the layer's gate math wants them.
  LayerKernel(const NodeDesc &node, const SequenceConfig &s, int64_t batch, int64_t inputSize, int64_t hidden,
              int slots, const int *gateRow);

  // Whether every buffer, the layer's own included (allocated_), was
  // allocated.
  bool buffersAllocated() const { return allocated_ && proj_.allocated(); }
  // The constant weights packed once, or ctx's inputs 1 and 2 packed now.
  void packWeights(const KernelContext &ctx);
  // Packs one direction's recurrent weight rd ([slots * hidden][hidden])
  // into its panels at dst (hp_ * hidden * slots floats).
  virtual void packRecurrent(const float *rd, float *dst) = 0;

  // Fills direction d's buffers: its panels and input projection, its hidden
  // states at `state` (two [batch][hp_] rows), its slice of the sequence
  // output `seq` (or null).
  void fillDirection(int64_t d, float *state, float *seq, DirectionBuffers *dir) const;

  SequenceConfig s_;
  int width_;
  int64_t batch_, inputSize_, hidden_, hp_;
  int slots_;
  int gateRow_[4];
  InputProjection proj_;
  bool allocated_ = true;  // every buffer was allocated
  // bias_: [dirs][slots][hp_], the projection's epilogue, filled per run.
  AlignedFloats panels_, gx_, bias_;

 private:
  void pack(const float *w, const float *r, bool constant);

  const float *w_ = nullptr, *r_ = nullptr;  // constant weights, else null
  std::once_flag packOnce_;
};

}  // namespace rnn
}  // namespace webnn::cpu::kernels

#endif
