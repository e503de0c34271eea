// matmulNBits (ONNX Runtime's MatMulNBits): Y[m, n] = sum_k A[m, k] *
// (q[n, k] - zeroPoint[n, b]) * scale[n, b] (+ bias[n]), b = k / blockSize,
// the weights q packed BITS (2, 4 or 8) to a byte, low bits first, in
// [N, kBlocks, blockSize * BITS / 8]. One workgroup per output element: its
// invocations split K and dequantize as they go (nothing dequantized is
// stored), then a shared-memory tree adds their partial sums. Decode (one
// row) is where this op's time goes, and there a workgroup per output keeps
// every invocation busy on the weight stream.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_A = DT_F32;
layout(constant_id = 2) const int DT_SCALE = DT_F32;
layout(constant_id = 3) const int DT_ZP = DT_U8;
layout(constant_id = 4) const int DT_BIAS = DT_F32;
layout(constant_id = 5) const int DT_Y = DT_F32;
layout(constant_id = 6) const uint BITS = 4;
// 0: no zero points (2^(BITS-1)), 1: packed uint8 like the weights (per row
// of N, kBlocks entries), 2: one float per block.
layout(constant_id = 7) const int ZP_MODE = 0;
layout(constant_id = 8) const bool HAS_BIAS = false;

TENSOR_IN(0, A, DT_A)
TENSOR_IN(1, W, DT_U8)
TENSOR_IN(2, Scale, DT_SCALE)
TENSOR_IN(3, ZeroPoint, DT_ZP)
TENSOR_IN(4, Bias, DT_BIAS)
TENSOR_OUT(5, Y, DT_Y)

layout(push_constant) uniform Params {
  uint M, N, K, blockSize, kBlocks, blobBytes, zpRowBytes;
} p;

shared float partial[gl_WorkGroupSize.x];

// Element `i` of a run of BITS-wide fields starting at byte `base`.
uint unpackField(uint base, uint i) {
  uint bit = i * BITS;
  return (uint(W_loadi(base + (bit >> 3))) >> (bit & 7u)) & ((1u << BITS) - 1u);
}

float zeroPointOf(uint n, uint b) {
  if (ZP_MODE == 2) return ZeroPoint_loadf(n * p.kBlocks + b);
  if (ZP_MODE == 1) {
    uint bit = b * BITS;
    return float((uint(ZeroPoint_loadi(n * p.zpRowBytes + (bit >> 3))) >> (bit & 7u)) & ((1u << BITS) - 1u));
  }
  return float(1u << (BITS - 1u));
}

void main() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint out_ = flatIndex() / gl_WorkGroupSize.x;
  if (out_ >= p.M * p.N) return;
  uint m = out_ / p.N, n = out_ % p.N, lane = gl_LocalInvocationID.x;
  float acc = 0.0;
  // Invocations walk K in consecutive runs so that neighbours read
  // neighbouring weight bytes; a block's scale and zero point are read once
  // per block an invocation enters.
  for (uint b = 0; b < p.kBlocks; ++b) {
    uint k0 = b * p.blockSize, len = min(p.blockSize, p.K - k0);
    if (lane >= len) continue;
    float s = Scale_loadf(n * p.kBlocks + b), z = zeroPointOf(n, b);
    uint blob = (n * p.kBlocks + b) * p.blobBytes, row = m * p.K + k0;
    float blockAcc = 0.0;
    for (uint i = lane; i < len; i += gl_WorkGroupSize.x)
      blockAcc += A_loadf(row + i) * (float(unpackField(blob, i)) - z);
    acc += blockAcc * s;
  }
  partial[lane] = acc;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] += partial[lane + half_];
    barrier();
  }
  if (lane == 0) Y_storef(out_, partial[0] + (HAS_BIAS ? Bias_loadf(n) : 0.0));
}
