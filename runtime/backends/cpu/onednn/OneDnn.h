// conv2d and matmul/gemm on oneDNN, behind an interface in webnn's own terms.
//
// This folder is the only code that includes dnnl.hpp: Debian ships oneDNN 2.x,
// whose operation-descriptor API was removed in 3.0, so a port touches these
// files only. Kernels (kernels/conv/OneDnnConv2d.cpp, kernels/MatMul.cpp) ask
// Conv2d::create / MatMul::create at load time; a null result (oneDNN missing,
// disabled, too small to pay off, or no optimized implementation for the
// shape) means "use the portable kernel".
//
// Load-time work is limited to descriptor checks (no JIT, no weight access):
// constant weights are mmapped and a 1 GB artifact must load in milliseconds.
// The primitive is JIT-compiled, and constant weights are reordered into the
// primitive's blocked layout, on the first run() (once, under a lock); the
// packed copy lives in the kernel. packFilter()/packB() are the same step as a
// standalone function: `webnnc compile --prepack` stores their output in the
// artifact, and a first run that finds its layout there maps it instead.
//
// Threads: run() takes the session's thread pool. Primitives are built for one
// thread; with several, a convolution runs as pieces on the pool's threads
// (Conv2d.cpp), so OpenMP (Debian's oneDNN's threading) does not run beside
// the pool. Only a problem that cannot be cut runs on OpenMP's team.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_ONEDNN_ONEDNN_H
#define WEBNN_RUNTIME_BACKENDS_CPU_ONEDNN_ONEDNN_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::cpu {
class ThreadPool;
}

namespace webnn::cpu::onednn {

// When oneDNN is used. Process-wide; tests and benchmarks switch it. `enabled`
// and `bf16` are the debug options WEBNN_ONEDNN and WEBNN_BF16
// (DebugOptions.h): policy() reads them there and setPolicy writes them.
struct Policy {
  bool enabled = true;      // false: always the portable kernels (env WEBNN_ONEDNN=0)
  // Below this many FLOPs the portable kernels are as fast: an OpenMP region
  // and oneDNN's argument plumbing cost a few microseconds per call.
  double minFlops = 1 << 20;
  bool winograd = true;     // Winograd for 3x3 stride-1 convolutions
  // Honour relaxed precision (bf16 dot products) when the CPU has it; false
  // (env WEBNN_BF16=0) runs relaxed artifacts in float32, as on a CPU without.
  bool bf16 = true;
};
// True when this build links oneDNN.
bool compiledIn();
Policy policy();
void setPolicy(const Policy &p);
// Convolutions and matmuls executed by oneDNN while DebugOptions::countRuns
// is on (tests check the path).
uint64_t executionCount();
// Primitives JIT-compiled so far (tests check when that happens).
uint64_t primitivesBuilt();
// Whether bf16 primitives (bf16 operands, float32 accumulation and
// destination) run natively: the CPU has AVX512-BF16, oneDNN may use it
// (DNNL_MAX_CPU_ISA), and the policy allows it. Otherwise *why says why.
// oneDNN would emulate bf16 on plain AVX-512 at a fraction of float32's
// speed, so without native support relaxed precision means float32.
bool bf16Available(std::string *why);

// Makes winogradRunsFourByFourTiles (PieceSplit.h) ask oneDNN which
// Winograd kernel it builds for a layer, as Conv2d::create would; answers
// are cached per shape. For the estimate and calibration, which price
// 2x2- and 4x4-tile layers as different families.
void installWinogradTilesQuery();

// A constant operand packed at compile time (cpu::PackedOperand): used in
// place of packing when `layout` is exactly the primitive's (see
// packedLayoutName in Context.h), zero-copy from the artifact's mapping.
struct PackedOperandRef {
  std::string layout;
  const void *data = nullptr;
  uint64_t bytes = 0;
};

// ------------------------------------------------------------------ conv2d
struct Conv2dParams {
  DataType dtype = DataType::kFloat32;  // float32 or float16 (computed in float32)
  bool nhwc = false;                    // activation layout of input and output
  int64_t N = 0, C = 0, H = 0, W = 0, O = 0, OH = 0, OW = 0, KH = 0, KW = 0, groups = 1;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  // Element strides of the filter as stored, for (output channel, input
  // channel within its group, kh, kw): any WebNN filterLayout.
  int64_t filterStrideO = 0, filterStrideI = 0, filterStrideH = 0, filterStrideW = 0;
  bool hasBias = false;
  bool constantFilter = false;
  // Relaxed precision: bf16 input and filter, float32 accumulation, bias,
  // post-ops and output. Honoured for float32 when bf16Available().
  bool bf16 = false;
  // Post-ops (webnn.fusedConv2d, docs/FUSED_OPS.md): y = activation(conv +
  // bias + residual), the residual having y's shape and layout. float32 only.
  // kSilu: x * sigmoid(x); kHardSwish: x * min(6, max(0, x + 3)) / 6.
  enum class Activation { kNone, kRelu, kClamp, kSigmoid, kSilu, kHardSwish };
  Activation activation = Activation::kNone;
  float clampMin = 0.f, clampMax = 0.f;  // kClamp's bounds (may be infinite)
  bool hasResidual = false;
  std::vector<PackedOperandRef> packedFilter;  // candidates for a constant filter
  // Element strides (n, c, h, w) of x and y when they are not dense in their
  // layout: rows of a larger nchw tensor (a piece, Conv2d.cpp). Empty: dense.
  std::vector<int64_t> srcStrides, dstStrides;
  // nhwc float32 without a residual: elements between y's pixels when y is
  // a column slice of a concat's rows (OperandDesc::rowPitch); 0: O. The
  // primitive still writes a dense y (oneDNN's optimized convolutions take
  // no other), so y reaches the slice through the destination reorder the
  // Winograd layout needs anyway, or through one after the others.
  int64_t dstPixelPitch = 0;
};

class Conv2d {
 public:
  // Null (with *why) when the portable kernel should run this convolution.
  static std::unique_ptr<Conv2d> create(const Conv2dParams &p, std::string *why);
  ~Conv2d();

  // y = activation(conv(x, filter) + bias + residual) in the caller's
  // layouts and data type (residual and activation as in Conv2dParams;
  // `residual` may be null otherwise). A constant filter is packed on the
  // first call and `filter` is ignored after. Never throws: an error only if
  // oneDNN fails to build or run the primitive (out of memory for JIT code or
  // buffers), with oneDNN's reason; the caller then falls back. Runs on
  // `pool`'s threads.
  Status run(const void *x, const void *filter, const void *bias, void *y, ThreadPool &pool,
             const void *residual = nullptr);
  // JIT-compiles the primitive for `numThreads` ahead of the first run
  // (Kernel::warmUp); thread-safe. A failure is left for run() to meet
  // (and its caller to fall back from).
  void buildPrimitive(int numThreads) noexcept;

  // The primitive's filter layout for `numThreads`: its name (empty when it
  // cannot be stored), size, and the filter packed into it.
  std::string packedFilterLayout(int numThreads);
  size_t packedFilterBytes(int numThreads);
  void packFilter(const void *filter, void *packed, int numThreads);
  // Whether the filter in use came prepacked from the artifact.
  bool usesPrepackedFilter() const;

  // "brgconv:avx512_core", "jit_wino_4x3:avx512_core", ... plus the layout path.
  std::string implementation() const;

  struct Impl;

 private:
  explicit Conv2d(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// --------------------------------------------------------- matmul / gemm
// y[batch.., M, N] = alpha * a[batch.., M, K] x b[batch.., K, N] (+ beta * c)
struct MatMulParams {
  DataType dtype = DataType::kFloat32;
  // Same rank (2..12) for a, b and y; batch dims of a and b are 1 or y's.
  Shape aDims, bDims, yDims;
  std::vector<int64_t> aStrides, bStrides;  // in elements: transposes are strides
  // y's strides, empty for row-major. Others (float32 only, no c) are written
  // through a reorder from the primitive's row-major y.
  std::vector<int64_t> yStrides;
  bool constantB = false;
  float alpha = 1.f;
  // gemm's addend, rank 2 only: c(m, n) at m * cRowStride + n * cColStride
  // (0 = broadcast), scaled by beta.
  bool hasC = false;
  float beta = 0.f;
  int64_t cRowStride = 0, cColStride = 0;
  // Relaxed precision: bf16 a and b, float32 accumulation and y (as Conv2dParams::bf16).
  bool bf16 = false;
  std::vector<PackedOperandRef> packedB;  // candidates for a constant b
};

class MatMul {
 public:
  static std::unique_ptr<MatMul> create(const MatMulParams &p, std::string *why);
  ~MatMul();
  // Errors and threads like Conv2d::run.
  Status run(const void *a, const void *b, const void *c, void *y, ThreadPool &pool);
  // As Conv2d::buildPrimitive.
  void buildPrimitive(int numThreads) noexcept;
  // As Conv2d's filter: b's layout name (empty when b is used as stored or
  // the layout cannot be stored), size, and b packed into it.
  std::string packedBLayout(int numThreads);
  size_t packedBBytes(int numThreads);
  void packB(const void *b, void *packed, int numThreads);
  bool usesPrepackedB() const;
  std::string implementation() const;

  struct Impl;

 private:
  explicit MatMul(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------ int8 convolution (QDQ)
// quantizedConv2d (docs/FUSED_OPS.md) on oneDNN's int8 convolution: u8 or
// s8 nhwc activations, s8 filter, s32 sums. v[o] = scales[o] * (sum + bias[o])
// per output channel; with a residual, v = convToOut * (saturate(round(v) +
// convZero) - convZero) + residualScale * (residual - residualZero); then
// max(v, 0) with relu; then + dstZero and saturated for an 8-bit output
// (round to nearest even), else float32.
struct QuantizedConv2dParams {
  int64_t N = 0, C = 0, H = 0, W = 0, O = 0, OH = 0, OW = 0, KH = 0, KW = 0, groups = 1;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  bool srcSigned = false;  // int8 (else uint8) input
  int32_t srcZero = 0;
  enum class Output { kFloat32, kUint8, kInt8 } output = Output::kFloat32;
  int32_t dstZero = 0;
  std::vector<float> scales;  // O entries
  std::vector<float> bias;    // O entries in sum units, or empty
  bool relu = false;
  bool hasResidual = false;   // of the output's type and layout
  int32_t convZero = 0;
  float convMin = 0.f, convMax = 255.f, convToOut = 1.f, residualScale = 1.f;
  int32_t residualZero = 0;
  // Element strides (n, c, h, w) of y when it is not dense nhwc (a piece of
  // output channels). Empty: dense.
  std::vector<int64_t> dstStrides;
};

class QuantizedConv2d {
 public:
  // Null (with *why) when oneDNN has no optimized implementation here.
  static std::unique_ptr<QuantizedConv2d> create(const QuantizedConv2dParams &p, std::string *why);
  ~QuantizedConv2d();
  // `filter`: the constant ohwi int8 filter, packed on the first call.
  // Runs on `pool`'s threads (single-threaded pieces, as Conv2d). Never
  // throws; an error carries oneDNN's reason.
  Status run(const void *x, const void *filter, const void *residual, void *y, ThreadPool &pool);
  void buildPrimitive(int numThreads) noexcept;
  std::string implementation() const;

  struct Impl;

 private:
  explicit QuantizedConv2d(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace webnn::cpu::onednn

#endif
