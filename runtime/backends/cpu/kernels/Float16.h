// IEEE 754 binary16 <-> binary32 conversion. WebNN float16 kernels compute in
// float32 and round the result back once (round to nearest, ties to even), the
// way browser implementations on CPUs without native fp16 arithmetic do.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_FLOAT16_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_FLOAT16_H

#include <cstdint>
#include <cstring>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace webnn::cpu::kernels {

// A float16 element as stored in a tensor (distinct from uint16_t so that
// dtype-dispatched templates can tell them apart).
struct Half {
  uint16_t bits;
};

inline float halfToFloat(uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: value = mant * 2^-24, exact in float
    float f = float(mant) * (1.0f / 16777216.0f);
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
#endif
}

inline uint16_t floatToHalf(float f) {
#if defined(__F16C__)
  return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: infinity
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 makes the float's ulp 2^-24,
    // the half subnormal step, so the FPU performs the RNE rounding for us.
    float a;
    std::memcpy(&a, &x, 4);
    a += 0.5f;
    uint32_t r;
    std::memcpy(&r, &a, 4);
    return sign | uint16_t(r - 0x3f000000u);
  }
  uint32_t odd = (x >> 13) & 1;
  x = x - 0x38000000u + 0xfffu + odd;  // rebias exponent 127 -> 15, round to nearest even
  return sign | uint16_t(x >> 13);
#endif
}

// Bulk conversions (vectorized with F16C where the library is built for it).
void halfToFloatN(const uint16_t *in, float *out, int64_t n);
void floatToHalfN(const float *in, uint16_t *out, int64_t n);

}  // namespace webnn::cpu::kernels

#endif
