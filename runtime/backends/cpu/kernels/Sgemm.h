// Single-precision GEMM used by matmul, gemm, conv2d and convTranspose2d:
//   C[m, n] = sum_k A(m, k) * B(k, n)   (+ C[m, n] when accumulate)
// A and B are strided views (any row/column stride, so transposes are free);
// C is row-major with leading dimension ldc.
//
// B is packed into 16-column panels per 256-deep K block (16 KB: stays in L1
// while every row of A streams past), and a 6x16 register-blocked micro-kernel
// (12 AVX2 accumulators) does the FMAs. Work is split over column blocks, then
// row blocks, so threads never write the same C element.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_SGEMM_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_SGEMM_H

#include <cstdint>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

struct MatrixView {
  const float *data;
  int64_t rowStride, colStride;
  float at(int64_t r, int64_t c) const { return data[r * rowStride + c * colStride]; }
};

void sgemm(int64_t M, int64_t N, int64_t K, MatrixView A, MatrixView B, float *C, int64_t ldc, bool accumulate,
           const KernelContext &ctx);

}  // namespace webnn::cpu::kernels

#endif
