// The epilogue of quantizedMatmul's integer GEMM (QdqGemm.h) on AVX-512, one
// 16-column panel at a time, shared by the VNNI and AMX loops: the zero-point
// terms, the scale, the optional quantize round trip and the bias. Included
// only by files compiled for AVX-512 (their target pragma precedes it).
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QDQEPILOGUEAVX512_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QDQEPILOGUEAVX512_H

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "runtime/backends/cpu/kernels/QdqGemm.h"

namespace webnn::cpu::kernels {

class QdqPanelEpilogueAvx512 {
 public:
  // Panel starting at column n0 of an N-column Y.
  QdqPanelEpilogueAvx512(const QdqPackedB &B, int64_t N, int64_t n0, const QdqEpilogue &e)
      : roundTrip_(e.roundTrip), hasBias_(e.bias != nullptr) {
    const int64_t cols = std::min<int64_t>(kQdqPanel, N - n0);
    mask_ = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
    colTerm_ = _mm512_load_si512(B.colTerm + n0);
    zb_ = _mm512_load_si512(B.zb + n0);
    scale_ = _mm512_load_ps(B.scale + n0);
    bias_ = hasBias_ ? _mm512_maskz_loadu_ps(mask_, e.bias + n0) : _mm512_setzero_ps();
    outScale_ = _mm512_set1_ps(e.outScale);
    outZp_ = _mm512_set1_ps(e.outZp);
    qmin_ = _mm512_set1_ps(e.qmin);
    qmax_ = _mm512_set1_ps(e.qmax);
  }

  // One row: `sum` its 16 integer sums of a x b, `rowSum` the sum of its A
  // bytes; writes the panel's columns of the row at y.
  void store(__m512i sum, int32_t rowSum, float *y) const {
    sum = _mm512_add_epi32(sum, colTerm_);
    sum = _mm512_sub_epi32(sum, _mm512_mullo_epi32(zb_, _mm512_set1_epi32(rowSum)));
    // Products with explicit rounding stay instructions of their own: GCC
    // would otherwise contract one with the bias add below into an FMA, one
    // rounding fewer than the graph's separate multiply and add.
    __m512 v = _mm512_mul_round_ps(_mm512_cvtepi32_ps(sum), scale_, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    if (roundTrip_) {
      __m512 q = _mm512_roundscale_ps(_mm512_div_ps(v, outScale_), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      q = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(q, outZp_), qmin_), qmax_);
      v = _mm512_mul_round_ps(_mm512_sub_ps(q, outZp_), outScale_, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    if (hasBias_) v = _mm512_add_ps(v, bias_);
    _mm512_mask_storeu_ps(y, mask_, v);
  }

 private:
  bool roundTrip_, hasBias_;
  __mmask16 mask_;
  __m512i colTerm_, zb_;
  __m512 scale_, bias_, outScale_, outZp_, qmin_, qmax_;
};

}  // namespace webnn::cpu::kernels

#endif  // WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_QDQEPILOGUEAVX512_H
