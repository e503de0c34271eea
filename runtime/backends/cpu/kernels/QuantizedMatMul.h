// Block-quantized weight matmul (ONNX Runtime's MatMulNBits): Y[M, N] =
// A[M, K] x dequant(B)^T, with B [N, kBlocks, blockSize * bits / 8] packed
// low bits first and one scale (and zero point) per block of K.
//
// Decode is a GEMV that must stream the packed weight at DRAM bandwidth
// (~35 GB/s on the Zen 5 machine class, /work/shared/notes/cpu-kernels.md),
// so the weight is read where it lies (the mmapped artifact), never unpacked
// to float in memory: each 16-byte group of 4-bit weights is widened,
// dequantized and multiplied in AVX-512 registers. For accuracyLevel 4 the
// activations are quantized to int8 per block (as ORT's CompInt8 does) and the
// products run on VNNI (vpdpbusd, 64 multiply-adds per instruction). AVX-512
// code lives in QuantizedMatMulAvx512.cpp and runs only when the CPU has it;
// everything else has a portable path.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QUANTIZEDMATMUL_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QUANTIZEDMATMUL_H

#include <cstdint>
#include <vector>

namespace webnn::cpu {
class ThreadPool;
}

namespace webnn::cpu::kernels {

// The weight as the inner loops read it. `packed` points at the caller's
// bytes; scales and zero points are float32, one per (n, block).
struct NBitsWeightView {
  int64_t N = 0, K = 0, blockSize = 0, bits = 4, kBlocks = 0, blobSize = 0;
  const uint8_t *packed = nullptr;
  const float *scales = nullptr;  // [N * kBlocks]
  // Zero points, one per (n, block): integer ones as bytes (a quarter of the
  // side traffic of floats next to the 16 weight bytes of a 32-block), float
  // ones (models with float zero_points) as floats. Exactly one is set.
  const uint8_t *zeroPointsU8 = nullptr;
  const float *zeroPointsF = nullptr;
  float zeroPoint(int64_t i) const { return zeroPointsU8 ? float(zeroPointsU8[i]) : zeroPointsF[i]; }
};

// Which inner loop runs (chosen once at construction).
// kAvx512DequantGemm is the float prefill path (M >= kDequantGemmMinRows):
// columns are dequantized to float once per call and fed to a
// register-blocked fp32 GEMM over all rows. With several rows the
// multiply-adds, not the weight bytes, bound a call, so accuracyLevel 4 (int8
// activations allowed) takes kAvx512VnniGemm from kVnniGemmMinRows rows: int8
// activations times int8 weights on vpdpbusd, ~4x the fp32 FMA rate per
// instruction. 8 rows: there it already beats the VNNI GEMV tiles 1.5x (at 4
// they tie; DISABLED_MatMulNBitsSmallM).
enum class NBitsPath { kPortable, kAvx512Fp32, kAvx512Vnni, kAvx512DequantGemm, kAvx512VnniGemm };
constexpr int64_t kDequantGemmMinRows = 16;
constexpr int64_t kVnniGemmMinRows = 8;
const char *nbitsPathName(NBitsPath p);

// One MatMulNBits node's prepared state and scratch. Construction sizes every
// buffer (run() does not allocate); setWeights() converts scales/zero points.
class NBitsMatMul {
 public:
  // `M` rows of A per run. accuracyLevel 4 selects the int8 path where the
  // CPU and the shape allow it. `forcePath` (tests, benchmarks) overrides the
  // choice when that path can run this shape; otherwise it is ignored.
  // `floatZeroPoints`: setWeights will get float zero points (the int8 GEMM
  // needs integer ones).
  NBitsMatMul(int64_t M, int64_t N, int64_t K, int64_t blockSize, int64_t bits,
              int64_t accuracyLevel, const NBitsPath *forcePath = nullptr,
              bool floatZeroPoints = false);

  // scales: N * kBlocks floats. Zero points: exactly one of `packedZp` (uint8,
  // N rows of ceil(kBlocks * bits / 8) bytes, `bits`-wide, low bits first) or
  // `floatZp` (N * kBlocks floats); neither = 2^(bits-1).
  void setWeights(const uint8_t *packed, const float *scales, const uint8_t *packedZp,
                  const float *floatZp);

  // Points at another copy of the same packed weight (benchmarks rotate
  // copies to measure DRAM rather than cache bandwidth).
  void setWeightsPackedOnly(const uint8_t *packed) { w_.packed = packed; }

  // Y[M, N] = A[M, K] x W^T (+ bias[N]).
  void run(const float *A, float *Y, const float *bias, ThreadPool *pool);

  NBitsPath path() const { return path_; }
  const NBitsWeightView &weights() const { return w_; }

 private:
  void prepareActivations(const float *A);

  int64_t M_;
  NBitsPath path_;
  NBitsWeightView w_;
  int64_t kPadded_;                  // kBlocks * blockSize
  std::vector<float> scales_, zeroPointsF_;
  std::vector<uint8_t> zeroPointsU8_;
  // Activation scratch: permuted float rows (fp32 path), or int8 rows with
  // per-block scales, per-lane scales and scale * sum(q) (int8 path).
  std::vector<float> aFloat_;
  std::vector<int8_t> aInt8_;
  std::vector<float> aBlockScale_, aLaneScale_, aScaledSum_;
  std::vector<float> aBlockSum_;  // fp32 path: sum of each block of A
  std::vector<float> aTransposed_;  // dequant-GEMM path: A in 32-row k-major tiles
  std::vector<uint8_t> aBiased_;    // int8-GEMM path: q + 128 per k, see nbitsQuantizeRowsAvx512
};

// Inner loops (columns [n0, n1) of Y for all M rows); defined in
// QuantizedMatMulAvx512.cpp, to be called only when avx512Available().
bool avx512Available();
void nbitsGemmAvx512Fp32(const NBitsWeightView &w, const float *aPermuted, const float *aBlockSums,
                         int64_t M, int64_t n0, int64_t n1, float *Y, const float *bias);
void nbitsGemmAvx512Vnni(const NBitsWeightView &w, const int8_t *aQuant, const float *aLaneScale,
                         const float *aScaledSum, int64_t M, int64_t n0, int64_t n1, float *Y,
                         const float *bias);
// `aTiles`: A (permuted like the fp32 path's rows) as ceil(M / 32) tiles of
// [kPadded][32] floats, rows past M zero.
void nbitsGemmAvx512Dequant(const NBitsWeightView &w, const float *aTiles, int64_t M, int64_t n0,
                            int64_t n1, float *Y, const float *bias);
constexpr int64_t kDequantGemmTileRows = 32;

// int8 GEMM (accuracyLevel 4, 4-bit weights with integer zero points).
// Activations: each row quantized per block of blockSize (scale max|a|/127,
// q = round-to-nearest-even(a * 127/max|a|) in [-127, 127], ONNX Runtime's
// CompInt8 rule), stored as q + 128 (unsigned, vpdpbusd's first operand) with
// every 8 k reordered as 4 even then 4 odd ones: `x` [M][kPadded] bytes,
// `scales` [M][kBlocks]. Padding past K is q = 0.
void nbitsQuantizeRowsAvx512(const float *A, int64_t M, int64_t K, int64_t blockSize,
                             int64_t kBlocks, uint8_t *x, float *scales);
// The same quantization for the VNNI GEMV tiles (blockSize >= 32, kPadded a
// multiple of 128): q itself (signed), every 128 k stored as the 64 even then
// the 64 odd ones, `scaledSums` [M][kBlocks] = scale * sum(q) for the zero
// points.
void nbitsQuantizeRowsGemvAvx512(const float *A, int64_t M, int64_t K, int64_t blockSize,
                                 int64_t kBlocks, int8_t *q, float *scales, float *scaledSums);
// Columns of panels [p0, p1) (kVnniGemmPanel columns each) of Y for all M rows.
void nbitsGemmAvx512VnniGemm(const NBitsWeightView &w, const uint8_t *x, const float *xScales,
                             int64_t M, int64_t p0, int64_t p1, float *Y, const float *bias);
constexpr int64_t kVnniGemmPanel = 32;

}  // namespace webnn::cpu::kernels

#endif
