// A 2-D transpose of 4-byte elements on AVX-512: 16 x 16 blocks transposed
// in registers (unpack, then 128-bit lane shuffles), the edges with masked
// loads and stores, so no element is moved one at a time. The batched
// transpose (Shape.cpp) runs its 32 x 32 tasks on it where the CPU has
// AVX-512: ViT-B/16's K^T ([197, 12, 64] -> [12, 64, 197]) moved 5 GB/s
// element by element.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_TRANSPOSE32_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_TRANSPOSE32_H

#include <cstdint>

namespace webnn::cpu::kernels {

// y[c * ldy + r] = x[r * ldx + c] for r < rows, c < cols (4-byte elements,
// moved as bits). Only where avx512Available().
void transpose32Avx512(const uint32_t *x, int64_t ldx, uint32_t *y, int64_t ldy, int64_t rows, int64_t cols);

}  // namespace webnn::cpu::kernels

#endif
