// Vectorized row kernels for transformer encoders: layerNormalization over
// the last axis, softmax over the last axis, exp, erf, gelu, and the
// bias + residual + activation epilogue of webnn.fusedMatmul.
//
// The kernels are written once (TransformerSimdImpl.inc, GCC vector
// extensions) and compiled twice: for AVX2, which the library's
// -march=x86-64-v3 guarantees, and for AVX-512 under `#pragma GCC target`,
// chosen at run time when the CPU has it (Zen 4/5, Skylake-SP and later).
// AVX-512 halves the instruction count of these memory-light, FMA- and
// exp-heavy loops (16 lanes instead of 8, same one-per-cycle issue on Zen 5).
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_TRANSFORMERSIMD_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_TRANSFORMERSIMD_H

#include <immintrin.h>

#include <cstdint>

namespace webnn::cpu::kernels {

enum class Activation { kNone, kRelu, kGelu };

// Both under explicit targets, so a translation unit built without
// -march=x86-64-v3 (tests) still gets the same code as the library.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
#define WEBNN_SIMD_BYTES 32
#include "runtime/backends/cpu/kernels/TransformerSimdImpl.inc"
#undef WEBNN_SIMD_BYTES
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl")
namespace avx512 {
#define WEBNN_SIMD_BYTES 64
#include "runtime/backends/cpu/kernels/TransformerSimdImpl.inc"
#undef WEBNN_SIMD_BYTES
}  // namespace avx512
#pragma GCC pop_options

// True when the running CPU has AVX-512F/DQ/BW/VL and it is not switched off
// (WEBNN_NO_AVX512=1 in the environment, or setUseAvx512(false)).
bool useAvx512();
// Tests run both paths; returns the previous setting. Never enables AVX-512
// on a CPU without it.
bool setUseAvx512(bool enable);

struct KernelTable;
// fusedMatmul, fusedAttention (Transformer.cpp); called by registerMatMulKernels.
void registerTransformerKernels(KernelTable &t);

// Dispatchers: same arguments as simd:: in TransformerSimdImpl.inc.
void epilogueRows(float *y, int64_t rows, int64_t n, const float *bias, const float *residual, Activation act,
                  float alpha);
void layerNormRows(const float *x, float *y, int64_t rows, int64_t n, const float *scale, const float *bias,
                   float eps);
void softmaxRows(const float *x, float *y, int64_t rows, int64_t n, float alpha);
void erfArray(const float *x, float *y, int64_t n);
void geluArray(const float *x, float *y, int64_t n);
void sigmoidArray(const float *x, float *y, int64_t n);
// SiLU in place: y[i] = y[i] * sigmoid(y[i]).
void siluArray(float *y, int64_t n);

}  // namespace webnn::cpu::kernels

#endif
