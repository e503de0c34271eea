// SiLU (x * sigmoid(x)) in place over a float array: the epilogue of the
// convolutions that take fusedConv2d "silu" (EfficientNet's 49 layers).
//
// Why not siluArray (TransformerSimd.h): at one thread SiLU over
// EfficientNet-B0's expanded tensors costs about as much as the 1x1
// convolutions that make them, and it is bound by arithmetic, not memory
// (11.4 cycles per 16 floats from L2). The
// AVX-512 loop here computes x / (1 + 2^n p(r)) with a degree-5 polynomial
// (relative error of exp 1.7e-7 on the reduced range), roundscale for n and
// scalef for 2^n: 6.2 cycles per 16 floats, results within 3e-7 relative
// of the double-precision formula. Inputs below -88 give 0 (the true value
// is under 1e-36), NaN stays NaN, +inf stays +inf.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_SILU_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_SILU_H

#include <cstdint>

namespace webnn::cpu::kernels {

// The AVX-512 loop (SiluAvx512.cpp); only where avx512Available().
void siluAvx512(float *y, int64_t n);

// siluAvx512 where the CPU has AVX-512, else siluArray's AVX2 path.
void siluInPlace(float *y, int64_t n);

}  // namespace webnn::cpu::kernels

#endif
