// fusedAttention in float32 on AVX-512 for encoder shapes (every query row
// attends all T keys, no mask): one head's keys are transposed once into a
// [Dh][T] tile; per block of query rows, the scores come 8 rows x 48 keys
// per register tile, the block's whole score rows stay in L1 (197 keys x 24
// rows: 19 KB) for the softmax, and P x V runs in register tiles of rows x
// Dh that read V's rows in place. oneDNN's batched matmuls write all heads'
// S x T scores first (ViT-B/16: 1.9 MB, past a 1 MB L2) and read them back
// twice, at ~95 GFLOP/s on ViT-B/16 at 1 thread (docs/PERFORMANCE.md).
// AVX-512 code in EncoderAttentionAvx512.cpp, used only when
// avx512Available().
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_ENCODERATTENTION_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_ENCODERATTENTION_H

#include <cstdint>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

// Whether fusedAttention's factory runs `node` on these tiles (float32 or
// float16 data, not bf16 under relaxed precision, AVX-512 on, a supported
// shape); the estimate's cost function asks the same (CostFunctions.cpp).
bool encoderAttentionChosen(const NodeDesc &node);

// One head: row i of Q is q + i * qStride (Dh floats), row j of K and V is
// k / v + j * kvStride, row i of the output y + i * yStride.
struct EncoderAttentionHead {
  const float *q, *k, *v;
  float *y;
  int64_t S, T, Dh, qStride, kvStride, yStride;
  float scale;  // multiplies Q K^T before the softmax (any sign)
};

// Whether encoderAttentionAvx512 takes this shape: Dh a multiple of 16 up
// to 128, 1 <= T <= 8192 (a block's score rows stay within the L2).
bool encoderAttentionSupported(int64_t T, int64_t Dh);
// Floats of scratch one call needs (the transposed keys and a block's
// scores).
int64_t encoderAttentionScratchFloats(int64_t T, int64_t Dh);
// WEBNN_ENCODER_ATTENTION (DebugOptions.h); tests compare both paths.
bool encoderAttentionEnabled();
void setEncoderAttentionEnabled(bool enabled);

// Query rows [s0, s1) of the head; scratch: encoderAttentionScratchFloats
// floats, 64-byte aligned, the calling thread's own.
void encoderAttentionAvx512(const EncoderAttentionHead &h, int64_t s0, int64_t s1, float *scratch);

}  // namespace webnn::cpu::kernels

#endif
