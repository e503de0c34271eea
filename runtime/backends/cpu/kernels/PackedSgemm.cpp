// The packed-B GEMM's layout, packing and Kernel (PackedSgemm.h); the
// AVX-512 product itself is in PackedSgemmAvx512.cpp.
#include "runtime/backends/cpu/kernels/PackedSgemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::kernels {

PackedSgemmB::PackedSgemmB(int64_t K, int64_t N) : K_(K), N_(N) {
  // Up to 1024 rows the whole of K is one block (a 8 x K slice of A and the
  // 48-column panel stream from L2); beyond, equal blocks of at most 768,
  // so a chunk of A rows (256 x 768 floats) and two B blocks fit a 2 MB L2.
  int64_t blocks = K <= 1024 ? 1 : (K + 767) / 768;
  kc_ = std::max<int64_t>(1, (K + blocks - 1) / blocks);
  panels_ = (N + kPanel - 1) / kPanel;
}

std::string PackedSgemmB::layoutName() const {
  return "webnn.sgemm_b48.kc" + std::to_string(kc_) + "." + std::to_string(K_) + "x" + std::to_string(N_);
}

void PackedSgemmB::pack(const float *b, int64_t kStride, int64_t nStride, float *dst,
                        const int64_t *kOffsets) const {
  for (int64_t k0 = 0; k0 < K_; k0 += kc_) {
    int64_t kc = std::min(kc_, K_ - k0);
    for (int64_t p = 0; p < panels_; ++p) {
      int64_t n0 = p * kPanel, cols = std::min(kPanel, N_ - n0);
      for (int64_t k = k0; k < k0 + kc; ++k) {
        const float *row = b + (kOffsets ? kOffsets[k] : k * kStride) + n0 * nStride;
        for (int64_t j = 0; j < cols; ++j) dst[j] = row[j * nStride];
        std::fill(dst + cols, dst + kPanel, 0.f);
        dst += kPanel;
      }
    }
  }
}

namespace {

std::atomic<uint64_t> gRuns{0};

// How finely a product's tasks ((row chunk, panel) pairs, or 8-row tiles)
// are cut for the pool: the threads start on even shares and a thread on
// a faster core then takes units from the slower one's (parallelForUnits).
// Eight per thread left the two threads 2-13% apart instead of 7-27%
// (whole shares) on the 2-vCPU Xeon's ViT and ResNeXt-50 products; each
// unit costs a call and a claim, and a unit of tiles reads all of B again
// (from L2), hence four there.
constexpr int64_t kPanelUnitsPerThread = 8, kTileUnitsPerThread = 4;

template <typename Fn>
void runUnits(const KernelContext &ctx, int64_t tasks, int64_t unitsPerThread, Fn &&fn) {
  if (!ctx.backendState) return fn(int64_t(0), tasks);
  ThreadPool &pool = threadPool(ctx);
  pool.parallelForUnits(tasks, tasks / (int64_t(pool.numThreads()) * unitsPerThread), fn);
}

// Work is split over row chunks x panels, row-chunk-major, so with few row
// chunks (transformers: M = 128) each thread streams its own panels of B,
// and with many (convolutions: M = H * W) its own rows, but for the units
// it takes from a slower thread at the end.
class PackedSgemmKernel final : public PackedSgemmWeightsKernel {
 public:
  PackedSgemmKernel(const NodeDesc &node, const PackedProduct &p) : PackedSgemmWeightsKernel(node, p), p_(p) {}

  Status run(const KernelContext &ctx) override {
    const float *packed = b_.get();
    const PackedSgemmB &layout = b_.layout();
    const float *a = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    SgemmEpilogue ep;
    ep.alpha = p_.alpha;
    ep.act = p_.act;
    ep.lo = p_.lo;
    ep.hi = p_.hi;
    if (ctx.numInputs > 2 && ctx.inputs[2]) ep.bias = static_cast<const float *>(ctx.inputs[2]->data);
    if (ctx.numInputs > 3 && ctx.inputs[3]) ep.residual = static_cast<const float *>(ctx.inputs[3]->data);
    const int64_t chunk = PackedSgemmB::rowChunk(p_.M), panels = layout.panels();
    const int64_t chunks = (p_.M + chunk - 1) / chunk;
    if (chunks == 1 && p_.splitRows) {
      // Panels would give each thread every pixel's half of the channels;
      // the depthwise layer and activation pass after it read rows, half of
      // them then from the other core's cache (MnasNet's 14x14 expansions
      // ~1.2x faster at 2 threads cut by rows, docs/PERFORMANCE.md).
      const int64_t threads = ctx.backendState ? threadPool(ctx).numThreads() : 1;
      const int64_t tiles = (p_.M + PackedSgemmB::kTileRows - 1) / PackedSgemmB::kTileRows;
      // Each thread then streams all of B: only with at least 8 tiles (64
      // rows) per thread, and where B's extra reads stay within the A and
      // output traffic kept on each core (MnasNet's 96 x 576 B, not
      // ResNet-50's 256 x 1024 or SqueezeNet's 512 x 1000).
      const bool bRepaid = p_.K * p_.N * (threads - 1) <= p_.M * (p_.K + p_.N);
      if (threads > 1 && bRepaid && tiles >= 8 * threads && rowsSplitEvenly(tiles, threads)) {
        runUnits(ctx, tiles, kTileUnitsPerThread, [&](int64_t t0, int64_t t1) {
          packedSgemmAvx512(layout, packed, a, p_.K, y, p_.N, ep, t0 * PackedSgemmB::kTileRows,
                            std::min(p_.M, t1 * PackedSgemmB::kTileRows), 0, panels);
        });
        if (countRuns_.load(std::memory_order_relaxed)) gRuns.fetch_add(1, std::memory_order_relaxed);
        return Status::ok();
      }
    }
    runUnits(ctx, chunks * panels, kPanelUnitsPerThread, [&](int64_t t0, int64_t t1) {
      while (t0 < t1) {  // one call per row chunk the range touches
        const int64_t c = t0 / panels, p0 = t0 % panels, p1 = std::min(panels, p0 + (t1 - t0));
        // After the unit, its thread most likely takes the next one (its
        // share's): that unit's first panel is the one to prefetch.
        const int64_t nextPanel = t0 + (p1 - p0) == t1 && t1 < chunks * panels ? t1 % panels : -1;
        packedSgemmAvx512(layout, packed, a, p_.K, y, p_.N, ep, c * chunk, std::min(p_.M, (c + 1) * chunk), p0, p1,
                          nextPanel);
        t0 += p1 - p0;
      }
    });
    if (countRuns_.load(std::memory_order_relaxed)) gRuns.fetch_add(1, std::memory_order_relaxed);
    return Status::ok();
  }

  // fusedConv2d's output over its dying residual (input 3): every tile
  // reads its residual elements before storing them, each element in one
  // thread's tile.
  bool allowsInPlace(size_t output, size_t input) const override {
    return output == 0 && input == 3 && residualReadFirst(b_.layout(), p_.alpha);
  }

 private:
  PackedProduct p_;
  const std::atomic<bool> &countRuns_ = debugOptions().countRuns;  // DebugOptions.h
};

}  // namespace

// WEBNN_PACKED_SGEMM (DebugOptions.h).
bool packedSgemmEnabled() { return debugOptions().packedSgemm.load(std::memory_order_relaxed); }
void setPackedSgemmEnabled(bool enabled) { debugOptions().packedSgemm.store(enabled, std::memory_order_relaxed); }
uint64_t packedSgemmRuns() { return gRuns.load(std::memory_order_relaxed); }

bool packedSgemmApplies(const NodeDesc &node) {
  if (!packedSgemmEnabled() || !avx512Available() || node.inputs.size() < 2 || !node.inputs[0] || !node.inputs[1] ||
      node.outputs.empty() || !node.outputs[0])
    return false;
  if (relaxedRunsBf16(node)) return false;
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1];
  return a.dtype == DataType::kFloat32 && b.dtype == DataType::kFloat32 && b.constantData != nullptr;
}

std::string packedSgemmRefusal(const NodeDesc &node) {
  if (!packedSgemmEnabled()) return "off (WEBNN_PACKED_SGEMM=0)";
  if (!avx512Available()) return "no AVX-512";
  if (node.inputs.size() < 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.empty() || !node.outputs[0])
    return "missing operands";
  if (relaxedRunsBf16(node)) return "relaxed precision runs in bfloat16";
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1];
  if (a.dtype != DataType::kFloat32 || b.dtype != DataType::kFloat32) return "not float32";
  if (!b.constantData) return "B (the weights) not constant";
  return {};
}

bool packedSgemmSuits(int64_t M, int64_t K, int64_t N) { return M >= 16 && K >= 8 && N >= 8; }

PackedSgemmWeights::PackedSgemmWeights(const NodeDesc &node, const PackedProduct &p)
    : layout_(p.K, p.N),
      kStride_(p.bKStride),
      nStride_(p.bNStride),
      kOffsets_(p.bKOffsets),
      b_(static_cast<const float *>(node.inputs[1]->constantData)) {
  for (const PackedOperand &po : node.packed)
    if (po.input == 1 && po.layout == layout_.layoutName() && po.bytes == layout_.bytes())
      prepacked_ = static_cast<const float *>(po.data);
}

const float *PackedSgemmWeights::get() {
  if (prepacked_) return prepacked_;
  std::call_once(packOnce_, [&] {
    packedBuf_.reset(static_cast<float *>(allocatePacked(layout_.bytes())));
    layout_.pack(b_, kStride_, nStride_, packedBuf_.get(), kOffsets());
    releaseSource();
  });
  return packedBuf_.get();
}

void PackedSgemmWeights::pack(std::vector<PackedBytes> *out) const {
  PackedBytes pb;
  pb.input = 1;
  pb.layout = layout_.layoutName();
  pb.bytes.resize(layout_.bytes());
  layout_.pack(b_, kStride_, nStride_, reinterpret_cast<float *>(pb.bytes.data()), kOffsets());
  out->push_back(std::move(pb));
}

// The artifact's copy of B is not read again (releasePackedSource).
void PackedSgemmWeights::releaseSource() const {
  int64_t lastK = (layout_.K() - 1) * kStride_;
  for (int64_t off : kOffsets_) lastK = std::max(lastK, off);
  releasePackedSource(b_, size_t(lastK + (layout_.N() - 1) * nStride_ + 1) * sizeof(float));
}

std::unique_ptr<Kernel> makePackedSgemmKernel(const NodeDesc &node, const PackedProduct &p) {
  return std::make_unique<PackedSgemmKernel>(node, p);
}

}  // namespace webnn::cpu::kernels
