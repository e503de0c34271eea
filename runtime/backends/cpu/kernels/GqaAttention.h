// groupQueryAttention's attention step for many query rows at once (a
// prefill): the query rows of one KV head's query heads against that head's
// keys as register-tiled matrix products instead of one dot product and one
// axpy per (row, key). The per-row loop does ~2 FLOP per load and a scalar
// exp per score; here a 64-key tile of K is transposed once and read by
// every row of the work item, scores come 4 rows x 64 keys at a time, exp
// is vectorized, and P x V runs as 4 rows x D columns of accumulators.
// AVX-512 code in GqaAttentionAvx512.cpp, used only when avx512Available().
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_GQAATTENTION_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_GQAATTENTION_H

#include <cstdint>

namespace webnn::cpu::kernels {

// One work item: `heads` query heads (sharing one KV head) x `rows` query
// rows each. Query row r of head i is q + (i * qHeadStride + r) * D (already
// rotated) at absolute position pos0 + r; it attends keys
// [max(0, pos - window) (window < 0: 0), min(pos, T - 1)] of K / V
// ([T][D] each). Its output goes to out + r * outRowStride + i * D.
struct GqaTile {
  const float *q;
  int64_t qHeadStride;  // rows between heads in q
  int64_t heads, rows, pos0, D, T, window;
  float scale;
  const float *K, *V;
  float *out;
  int64_t outRowStride;
};

// Whether gqaAttendAvx512 handles this head size (a multiple of 16, <= 256).
bool gqaTiledSupported(int64_t D);
void gqaAttendAvx512(const GqaTile &t);
// The same for a few rows (a decode step): per row one pass over its keys
// in blocks of 16, K and V read in place (no transposed tile, which a
// handful of rows cannot amortize), q and the output in registers, exp
// vectorized. Same preconditions (gqaTiledSupported(D)).
void gqaAttendRowsAvx512(const GqaTile &t);

}  // namespace webnn::cpu::kernels

#endif
