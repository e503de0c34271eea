// Integer GEMM of webnn.quantizedMatmul (docs/FUSED_OPS.md): Y[M, N] =
// epilogue(sum_k (A[m, k] - za) * (B[k, n] - zb[n])), A unsigned 8-bit, B
// signed 8-bit, the sum exact in 32 bits (K <= 32768, checked by the op).
//
// vpdpbusd (AVX512-VNNI) multiplies 4 consecutive unsigned bytes of A with 4
// signed bytes of B per int32 lane, so B is packed in panels of 16 columns as
// [K/4][16][4] bytes (one zmm per 4 k), and an int8 A is stored + 128 (u8)
// with its zero point moved by 128 likewise (a uint8 B: - 128). The zero
// points are compensated in the epilogue rather than subtracted in the loop:
//   sum (a - za)(b - zb) = sum a b - za colsum(b) - zb rowsum(a) + K za zb
// with colTerm[n] = K za zb[n] - za colsum[n] fixed when B is packed and
// rowsum[m] taken while A is quantized; all of it in wrapping 32-bit
// arithmetic, exact because the true sum fits.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QDQGEMM_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QDQGEMM_H

#include <cstdint>

namespace webnn::cpu::kernels {

constexpr int64_t kQdqPanel = 16;  // columns per packed panel (one zmm of int32)

// The packed layout's name in the artifact (compile-time prepacking).
constexpr const char *kQdqPackedLayout = "webnn.qdq_k4n16";

inline int64_t qdqK4(int64_t K) { return (K + 3) / 4; }
inline int64_t qdqPanels(int64_t N) { return (N + kQdqPanel - 1) / kQdqPanel; }
// Bytes of one packed B: the panels, then colTerm, zb and scale (int32,
// int32, float) for panels * 16 columns.
inline int64_t qdqPackedBytes(int64_t K, int64_t N) {
  return qdqPanels(N) * kQdqPanel * (qdqK4(K) * 4 + 12);
}

// One packed B and its per-column epilogue terms (pointers into one buffer
// laid out as qdqPackedBytes says).
struct QdqPackedB {
  const int8_t *panels = nullptr;  // [panels][K4][16][4]
  const int32_t *colTerm = nullptr;  // K za zb[n] - za colsum[n] (wrapping)
  const int32_t *zb = nullptr;       // zero point of column n (after the u8 shift)
  const float *scale = nullptr;      // sa * sb[n]
};

// What follows the integer sum of one output element:
// y = float(sum) * scale[n]; with `roundTrip`, y = (clamp(roundEven(y /
// outScale) + outZp, qmin, qmax) - outZp) * outScale; then + bias[n].
struct QdqEpilogue {
  bool roundTrip = false;
  float outScale = 1.f, outZp = 0.f, qmin = 0.f, qmax = 255.f;
  const float *bias = nullptr;  // [N] or null
};

// Packs B (already shifted to signed bytes, `b` row-major [K, N] with row
// stride ldb) into `out` (qdqPackedBytes(K, N) bytes, 64-byte aligned), with
// the epilogue terms for A zero point za (shifted) and per-column zb / scale
// (zbStride / scaleStride 0: one value for all columns).
void qdqPackB(const int8_t *b, int64_t ldb, int64_t K, int64_t N, int32_t za, const int32_t *zb,
              int64_t zbStride, const float *scale, int64_t scaleStride, uint8_t *out);
// The same bytes on AVX-512 (QdqGemmAvx512Vnni.cpp; only where
// avx512Available()): the run-time B of attention is packed on every run.
void qdqPackBAvx512(const int8_t *b, int64_t ldb, int64_t K, int64_t N, int32_t za, const int32_t *zb,
                    int64_t zbStride, const float *scale, int64_t scaleStride, uint8_t *out);
QdqPackedB qdqPackedView(const uint8_t *packed, int64_t K, int64_t N);

// Rows [m0, m1) x panels [p0, p1) of Y (row stride ldy): A rows of `lda`
// bytes (K rounded up to 4, zero padded), rowSum[m] = sum of row m's bytes.
void qdqGemmPortable(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K,
                     int64_t N, int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy,
                     const QdqEpilogue &e);
// The same on vpdpbusd; QdqGemmAvx512Vnni.cpp, only where avx512Available().
void qdqGemmAvx512Vnni(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K,
                       int64_t N, int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy,
                       const QdqEpilogue &e);
// The same on AMX tiles (TDPBUSD, 16 x 16 x 64 per instruction) over the
// same packed B; QdqGemmAmx.cpp, only where amxInt8Available(). Rows past
// the last whole 16 go to qdqGemmAvx512Vnni.
void qdqGemmAmx(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K, int64_t N,
                int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy, const QdqEpilogue &e);
// The CPU has AMX-TILE and AMX-INT8 (CPUID), AVX512-VNNI, and the OS granted
// this process the tile state (Linux: arch_prctl ARCH_REQ_XCOMP_PERM, asked
// here once per process, before any tile instruction).
bool amxInt8Supported();
// amxInt8Supported() unless WEBNN_AMX=0 (DebugOptions::amxInt8: A/B
// measurement against the VNNI loop): the one place quantizedMatmul's kernel
// choice asks. Tests flip the switch with setAmxInt8Enabled; kernels already
// made keep their choice.
bool amxInt8Available();
void setAmxInt8Enabled(bool enabled);

// Quantizes `rows` float rows of K (row stride K) with quantizeLinear's rule,
// saturate(roundEven(x / scale) + zp) into [qmin, qmax], and stores each value
// + `shift` as a byte (A: 128 for int8, 0 for uint8, read unsigned; a
// run-time B: 0 for int8, -128 for uint8, read signed), rows of `lda` (zero
// padded); rowSum gets the sum of each stored row.
void qdqQuantizeRowsPortable(const float *x, int64_t rows, int64_t K, float scale, float zp, float qmin,
                             float qmax, int32_t shift, uint8_t *out, int64_t lda, int32_t *rowSum);
void qdqQuantizeRowsAvx512(const float *x, int64_t rows, int64_t K, float scale, float zp, float qmin,
                           float qmax, int32_t shift, uint8_t *out, int64_t lda, int32_t *rowSum);

}  // namespace webnn::cpu::kernels

#endif
