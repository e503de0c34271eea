// A per-channel multiply-add with a clamp (a depthwise 1x1 convolution:
// DenseNet's batchNormalization + relu after --webnn-batchnorm-relu-to-depthwise)
// and the 1x1 convolution that alone reads it, as one kernel: the input is
// normalized a chunk of pixels at a time into a per-thread buffer that
// stays in L2, and register tiles of 6 pixels x 64 output channels
// (AffinePointwiseAvx512.cpp) multiply that chunk right away. The separate pass wrote the whole normalized map and the
// convolution read it back: DenseNet-121's 58 such passes read and write up
// to 56x56x224 floats each (docs/PERFORMANCE.md, issue 19).
//
// The depthwise input may be a concat slice (the concat-view plan's pitch):
// rows are read at that pitch. The 1x1's output may be one too.
//
// The arena plan knows nothing of pairs: the 1x1's output may be placed
// over x's bytes where x dies at the depthwise node. Then the two steps run
// apart, the normalized map in the intermediate's own arena bytes.
#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/conv/AffinePointwise.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/ThreadPool.h"

namespace webnn::cpu::kernels {
namespace {

// Run-time inputs: the depthwise node's (x, its filter, bias?), then the
// 1x1's (the normalized map, unused but as scratch; filter, bias?).
class AffinePointwiseKernel final : public Kernel {
 public:
  AffinePointwiseKernel(const NodeDesc &dwNode, const NodeDesc &conv, const ConvGeometry &g, const FilterIndexer &dwFi,
                        const FilterIndexer &fi, float lo, float hi, float convLo, float convHi)
      : g_(g), M_(g.N * g.H * g.W), dwInputs_(dwNode.inputs.size()), hasConvBias_(hasBiasInput(conv)),
        xPitch_(dwNode.inputs[0]->rowPitch ? dwNode.inputs[0]->rowPitch : g.C),
        yPitch_(conv.outputs[0]->rowPitch ? conv.outputs[0]->rowPitch : g.O), lo_(lo), hi_(hi),
        dwFilter_(static_cast<const float *>(dwNode.inputs[1]->constantData)),
        dwBias_(hasBiasInput(dwNode) ? static_cast<const float *>(dwNode.inputs[2]->constantData) : nullptr),
        filter_(static_cast<const float *>(conv.inputs[1]->constantData)), dwFi_(dwFi), fi_(fi) {
    f_.K = g.C, f_.O = g.O;
    f_.lo = convLo, f_.hi = convHi;
  }

  void warmUp(int) override { prepare(); }
  bool honoursRowPitch() const override { return true; }  // its factory takes no other strided operand

  Status run(const KernelContext &ctx) override {
    if (!prepare()) return Status(StatusCode::kOutOfMemory, "channel affine + 1x1 conv2d: cannot allocate the filter");
    const int64_t C = g_.C, O = g_.O;
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    AffinePointwiseFilter f = f_;
    f.bias = hasConvBias_ ? in<float>(ctx, dwInputs_ + 2) : nullptr;
    const int64_t blocks = f.blockCount();
    // Chunks of whole 6-row tiles, at most 96 rows (96 x C floats in L2),
    // and at least 4 per thread where the rows allow.
    const int64_t threads = threadPool(ctx).numThreads();
    const int64_t chunk = std::min<int64_t>(96, std::max<int64_t>(6, (M_ + 4 * threads - 1) / (4 * threads) + 5) / 6 * 6);
    const int64_t chunks = (M_ + chunk - 1) / chunk;
    const size_t xBytes = size_t((M_ - 1) * xPitch_ + C) * sizeof(float);
    const size_t yBytes = size_t((M_ - 1) * yPitch_ + O) * sizeof(float);
    if (pairOutputOverlaps(x, xBytes, y, yBytes)) {
      // The two steps apart: the whole normalized map into the
      // intermediate's bytes, then the 1x1 over it.
      float *t;
      WEBNN_RETURN_IF_ERROR(pairIntermediate(ctx, dwInputs_, "channel affine + 1x1 conv2d", &t));
      parallelFor(ctx, M_, std::max<int64_t>(1, 16384 / C), [&](int64_t b, int64_t e) {
        affineRowsAvx512(x + b * xPitch_, xPitch_, e - b, C, mul_.data(), add_.data(), lo_, hi_, t + b * C);
      });
      parallelForUnits(ctx, chunks * blocks, blocks, [&](int64_t t0, int64_t t1) {
        while (t0 < t1) {
          const int64_t ci = t0 / blocks, b0 = t0 % blocks, b1 = std::min(blocks, b0 + (t1 - t0));
          const int64_t r0 = ci * chunk, r1 = std::min(M_, r0 + chunk);
          pointwiseBlocksAvx512(f, t + r0 * C, C, r1 - r0, y + r0 * yPitch_, yPitch_, b0, b1);
          t0 += b1 - b0;
        }
      });
      return Status::ok();
    }
    // Tasks are (chunk, column block), run in the pool's units (a faster
    // vCPU takes a slower one's); a unit normalizes each chunk it touches
    // once, then runs that chunk's blocks.
    parallelForUnits(ctx, chunks * blocks, blocks, [&](int64_t t0, int64_t t1) {
      thread_local std::vector<float> normalized;
      if (normalized.size() < size_t(chunk * C)) normalized.resize(size_t(chunk * C));
      while (t0 < t1) {
        const int64_t ci = t0 / blocks, b0 = t0 % blocks, b1 = std::min(blocks, b0 + (t1 - t0));
        const int64_t r0 = ci * chunk, r1 = std::min(M_, r0 + chunk);
        affineRowsAvx512(x + r0 * xPitch_, xPitch_, r1 - r0, C, mul_.data(), add_.data(), lo_, hi_,
                         normalized.data());
        pointwiseBlocksAvx512(f, normalized.data(), C, r1 - r0, y + r0 * yPitch_, yPitch_, b0, b1);
        t0 += b1 - b0;
      }
    });
    return Status::ok();
  }

 private:
  // The per-channel multiply-add and the filter in column blocks, on the
  // first run or warm-up, not at load (loading must not touch the weights).
  // The session's warm-up helper may be here while the first run reaches
  // this node (core/WarmUp.h): the run waits at the lock.
  bool prepare() {
    std::lock_guard<std::mutex> lock(prepareMutex_);
    if (prepared_) return true;
    const int64_t C = g_.C, O = g_.O, cols = AffinePointwiseFilter::kBlockColumns;
    if (!packed_.resize(size_t(f_.blockCount() * C * cols))) return false;
    mul_.resize(size_t(C));
    add_.resize(size_t(C));
    for (int64_t c = 0; c < C; ++c) {
      mul_[size_t(c)] = dwFilter_[dwFi_.at(c, 0, 0, 0)];
      add_[size_t(c)] = dwBias_ ? dwBias_[c] : 0.f;
    }
    for (int64_t jb = 0; jb < f_.blockCount(); ++jb)
      for (int64_t k = 0; k < C; ++k)
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t o = jb * cols + j;
          packed_[size_t((jb * C + k) * cols + j)] = o < O ? filter_[fi_.at(o, k, 0, 0)] : 0.f;
        }
    f_.packed = packed_.data();
    // The artifact's copy is not read again: not resident twice.
    releasePackedSource(filter_, size_t(C * O) * sizeof(float));
    prepared_ = true;
    return true;
  }

  ConvGeometry g_;
  int64_t M_;
  size_t dwInputs_;
  bool hasConvBias_;
  int64_t xPitch_, yPitch_;
  float lo_, hi_;
  const float *dwFilter_, *dwBias_, *filter_;
  FilterIndexer dwFi_, fi_;
  std::vector<float> mul_, add_;
  AlignedFloats packed_;
  AffinePointwiseFilter f_;
  std::mutex prepareMutex_;
  bool prepared_ = false;
};

constexpr const char *kCandidate = "affine-pointwise pair";

}  // namespace

bool isChannelAffineConv(const NodeDesc &node) {
  ConvGeometry g;
  FilterIndexer fi;
  float lo, hi;
  return clampConv(node, &g, &fi, &lo, &hi) && g.groups == g.C && g.O == g.C && plainPointwise(g);
}

std::unique_ptr<Kernel> makeAffinePointwisePair(const NodeDesc &dwNode, const NodeDesc &conv, std::string *why) {
  ConvGeometry dw, g;
  FilterIndexer dwFi, fi;
  float lo, hi, convLo, convHi;
  if (!clampConv(dwNode, &dw, &dwFi, &lo, &hi) || dw.groups != dw.C || dw.O != dw.C || !plainPointwise(dw))
    return refuse(why, "the producer is not a depthwise 1x1 with a clamp epilogue");
  if (!clampConv(conv, &g, &fi, &convLo, &convHi))
    return refuse(why, "the consumer is not a float32 nhwc convolution with a clamp epilogue and constant operands");
  if (!plainPointwise(g) || g.groups != 1) return refuse(why, "the consumer is not an ungrouped plain 1x1");
  if (g.N != dw.N || g.H != dw.H || g.W != dw.W || g.C != dw.C)
    return refuse(why, "the 1x1 does not read the depthwise output");
  if (dwNode.outputs[0]->rowPitch) return refuse(why, "the intermediate is strided");
  if (!avx512Available()) return refuse(why, "no AVX-512");
  if (g.O % 16) return refuse(why, "output channels not a multiple of 16");
  return std::make_unique<AffinePointwiseKernel>(dwNode, conv, g, dwFi, fi, lo, hi, convLo, convHi);
}

Status makeAffinePointwisePairChoice(const NodeDesc &dwNode, const NodeDesc &conv, std::unique_ptr<Kernel> *out) {
  std::string why;
  *out = makeAffinePointwisePair(dwNode, conv, &why);
  reportPairChoice(dwNode, conv, kCandidate, *out != nullptr, why);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
