// batchNormalization's per-channel fold and its pass, shared by the kernel
// (Normalization.cpp) and the batchNormalization + relu pair
// (BatchNormReluPair.cpp), so the pair gives the two kernels' bits.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_BATCHNORM_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_BATCHNORM_H

#include <cstdint>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

// mul[c] = scale[c] / sqrt(var[c] + eps), add[c] = bias[c] - mean[c] * mul[c];
// scale and bias may be null (1 and 0).
void foldBatchNorm(const float *mean, const float *var, const float *scale, const float *bias, float eps, int64_t C,
                   float *mul, float *add);

// y = x * mul[c] + add[c] (then max(., 0) with `relu`: NaN and -0 give 0, as
// the relu kernel), x of shape [outer, C, inner]; threaded on ctx's pool.
// With inner 1, x's rows may be `xPitch` elements apart (a strided operand,
// OperandDesc::rowPitch; 0: C).
void applyBatchNorm(const KernelContext &ctx, const float *x, float *y, const float *mul, const float *add,
                    int64_t outer, int64_t C, int64_t inner, bool relu, int64_t xPitch = 0);

}  // namespace webnn::cpu::kernels

#endif
