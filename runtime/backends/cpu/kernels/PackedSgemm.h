// float32 GEMM against a constant B prepacked for an AVX-512 register tile,
// with fusedMatmul's epilogue (alpha, bias, residual, activation) applied to
// each tile while it is still in L1.
//
// Why our own: in a graph, a transformer's weights come cold from DRAM on
// every inference (BERT-base streams ~340 MB), and oneDNN 2.6's brgemm
// matmul loses ~15% to that (on the Intel AVX-512 VM: 180 GFLOP/s with B hot
// in cache, 155 cold, 128x768x3072 at 1 thread). Here each B column panel is
// read from memory once per inference and the next block is prefetched into
// L2 while the current one is in use, spread over the row tiles, so the loads
// arrive ahead of the FMAs (docs/PERFORMANCE.md).
//
// Packed layout: K is cut in blocks of kc rows; within a block, column panels
// of kPanel (48) columns, each kc x 48 floats row-major, zero-padded past N:
//   [kBlock][panel][k in block][48].
// Threads start on contiguous ranges of (chunk of rowChunk(M) rows, panel)
// tasks and end on units of a slower thread's range (runUnits,
// PackedSgemm.cpp); within a chunk a thread walks k-blocks outer, its
// panels, then 8-row tiles, visiting B's blocks in memory order, so the
// prefetch of the next one is sequential.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_PACKEDSGEMM_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_PACKEDSGEMM_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {

class PackedSgemmB {
 public:
  static constexpr int64_t kPanel = 48;     // columns per panel: 3 zmm
  static constexpr int64_t kTileRows = 8;   // rows per register tile: 24 accumulators
  static constexpr int64_t kRowChunk = 256; // rows of A per pass over B (A chunk stays in L2)

  // Rows per chunk for an M-row product: as few chunks as kRowChunk allows,
  // of equal size (whole tiles), so that threads given equal numbers of
  // (chunk, panel) tasks get equal work (784 rows: 4 x 200, not 3 x 256 + 16).
  static int64_t rowChunk(int64_t M) {
    const int64_t chunks = (M + kRowChunk - 1) / kRowChunk;
    const int64_t rows = (M + chunks - 1) / chunks;
    return std::min(kRowChunk, (rows + kTileRows - 1) / kTileRows * kTileRows);
  }

  PackedSgemmB(int64_t K, int64_t N);
  int64_t K() const { return K_; }
  int64_t N() const { return N_; }
  int64_t kc() const { return kc_; }
  int64_t panels() const { return panels_; }
  size_t bytes() const { return size_t(K_) * size_t(panels_ * kPanel) * sizeof(float); }
  // The artifact's name for this layout (`webnnc compile --prepack`); it
  // depends on K and N only, not on the thread count.
  std::string layoutName() const;
  // b(k, n) = b[k * kStride + n * nStride], or with kOffsets (K entries)
  // b[kOffsets[k] + n * nStride]; writes bytes() to dst.
  void pack(const float *b, int64_t kStride, int64_t nStride, float *dst, const int64_t *kOffsets = nullptr) const;

 private:
  int64_t K_, N_, kc_, panels_;
};

struct SgemmEpilogue {
  float alpha = 1.f;
  const float *bias = nullptr;      // [N]
  const float *residual = nullptr;  // [M][N], row stride N
  Activation act = Activation::kNone;
  float lo = -__builtin_inff(), hi = __builtin_inff();  // clamp after the activation
};

// y[m][n] (row stride ldy) = epilogue(sum_k a[m * lda + k] * b(k, n)) for
// rows [row0, row1) and the columns of panels [panel0, panel1). AVX-512 only.
// nextPanel (>= 0): the panel whose first k-block the caller multiplies
// next (its next unit of work), prefetched during the last block as the
// walk prefetches its own. y may be ep.residual's own bytes (row stride
// ldy) where residualReadFirst says so.
void packedSgemmAvx512(const PackedSgemmB &b, const float *packedB, const float *a, int64_t lda, float *y,
                       int64_t ldy, const SgemmEpilogue &ep, int64_t row0, int64_t row1, int64_t panel0,
                       int64_t panel1, int64_t nextPanel = -1);

// Whether each tile reads its residual elements before it stores into
// them: with one k-block (the epilogue adds it), or with alpha 1 (the sums
// start from it at the first block; later blocks accumulate in y).
inline bool residualReadFirst(const PackedSgemmB &b, float alpha) { return b.K() <= b.kc() || alpha == 1.f; }

// Whether matmul / fusedMatmul / conv2d factories use this kernel for a
// float32 product with a constant B: on unless WEBNN_PACKED_SGEMM=0; tests
// and A/B runs switch it (kernels already made keep their choice).
bool packedSgemmEnabled();
void setPackedSgemmEnabled(bool enabled);
// Runs so far while DebugOptions::countRuns is on (tests check which path
// ran; ScopedRunCounting in the kernel tests).
uint64_t packedSgemmRuns();

// The checks every user shares: enabled, AVX-512, float32 input and a
// constant float32 input 1 (B), exact precision (or relaxed where bf16 is
// unavailable, so such an artifact runs exactly as an exact one).
bool packedSgemmApplies(const NodeDesc &node);
// Which of those checks `node` fails, in words; empty when it applies.
std::string packedSgemmRefusal(const NodeDesc &node);
// Shapes it is built for: enough rows to reuse each panel (M >= 16; one-row
// products are GEMVs, memory-bound, left to oneDNN).
bool packedSgemmSuits(int64_t M, int64_t K, int64_t N);

// A node's product: y[M][N] = epilogue(a[M][K] * b), a = input 0 row-major,
// b(k, n) = input1[k * bKStride + n * bNStride] (bKOffsets[k] instead of
// k * bKStride when given); input 2 (if present) is the bias, input 3 the
// residual ([M][N]).
struct PackedProduct {
  int64_t M = 0, K = 0, N = 0, bKStride = 0, bNStride = 1;
  std::vector<int64_t> bKOffsets;
  float alpha = 1.f;
  Activation act = Activation::kNone;
  float lo = -__builtin_inff(), hi = __builtin_inff();
  // Rows of A are pixels whose output rows the next kernels split by rows
  // (a pointwise convolution's): one row chunk is then cut into 8-row
  // tiles per thread where they split evenly (rowsSplitEvenly), give each
  // thread 64 rows or more and B is small beside A and the output (every
  // thread then reads all of B), not into panels, so each thread writes
  // whole pixels, the ones it will read next.
  bool splitRows = false;
};
std::unique_ptr<Kernel> makePackedSgemmKernel(const NodeDesc &node, const PackedProduct &p);

// B of a node's product (its constant input 1, read as PackedProduct says)
// in the packed layout: the artifact's prepacked copy when it has one, else
// packed once, before the first run needs it. The packed SGEMM kernel holds
// one; so do kernels that run packedSgemmAvx512 over rows of A of their own
// (conv/RowWindowPackedConv.cpp: rows read in place from a conv's input).
class PackedSgemmWeights {
 public:
  PackedSgemmWeights(const NodeDesc &node, const PackedProduct &p);
  const PackedSgemmB &layout() const { return layout_; }
  const float *get();  // packs on the first call
  void pack(std::vector<PackedBytes> *out) const;  // Kernel::packConstants's entry

 private:
  const int64_t *kOffsets() const { return kOffsets_.empty() ? nullptr : kOffsets_.data(); }
  void releaseSource() const;

  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  PackedSgemmB layout_;
  int64_t kStride_, nStride_;
  std::vector<int64_t> kOffsets_;
  const float *b_;
  const float *prepacked_ = nullptr;
  std::once_flag packOnce_;
  std::unique_ptr<float, Free> packedBuf_;
};

// A kernel over one PackedSgemmWeights (the matmul and the conv1d kernels):
// prepacking and warm-up are the weights' alone, one layout for every thread
// count.
class PackedSgemmWeightsKernel : public Kernel {
 public:
  Status packConstants(int, std::vector<PackedBytes> *out) override {
    b_.pack(out);
    return Status::ok();
  }
  void warmUp(int) override { b_.get(); }

 protected:
  PackedSgemmWeightsKernel(const NodeDesc &node, const PackedProduct &p) : b_(node, p) {}
  PackedSgemmWeights b_;
};

// matmul and fusedMatmul (MatMul.cpp): the kernel when it takes the node (b
// constant without a batch, a's batch folded into M), else null with *why
// saying which condition failed; the bool form sets *out the same way.
std::unique_ptr<Kernel> makePackedMatMul(const NodeDesc &node, float alpha, Activation act, std::string *why);
bool makePackedMatMul(const NodeDesc &node, float alpha, Activation act, std::unique_ptr<Kernel> *out);

// matmul's factory checks (arity, types, shapes, output) without building a
// kernel: fusedMatmul runs them on its product before choosing one (MatMul.cpp).
Status checkMatMul(const NodeDesc &node);

}  // namespace webnn::cpu::kernels

#endif
