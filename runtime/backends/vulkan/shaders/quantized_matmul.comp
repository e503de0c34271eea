// quantizedMatmul (docs/FUSED_OPS.md, the matmul of an int8 QDQ graph):
// y[m, n] = sa * sb[n] * sum_k (qa[m, k] - za) * (qb[k, n] - zb[n]), the sum
// exact in int32 (K <= 32768), then optionally quantized with (so, zo) and
// dequantized again, then + bias[n]. A float a (or b) is quantized here as
// quantizeLinear does: saturate(roundEven(x / s) + z), NaN -> z. One
// workgroup per output element: its invocations split K, and an integer
// shared-memory tree adds their sums (exact, so any order gives the CPU's).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_A = DT_F32;   // float32, or int8/uint8 already quantized
layout(constant_id = 2) const int DT_AZ = DT_U8;
layout(constant_id = 3) const int DT_B = DT_I8;
layout(constant_id = 4) const int DT_BZ = DT_I8;
layout(constant_id = 5) const int DT_OZ = DT_U8;
layout(constant_id = 6) const bool ROUND_TRIP = false;
layout(constant_id = 7) const bool HAS_BIAS = false;
layout(constant_id = 8) const bool B_BATCHED = false;

TENSOR_IN(0, A, DT_A)
TENSOR_IN(1, AScale, DT_F32)
TENSOR_IN(2, AZero, DT_AZ)
TENSOR_IN(3, B, DT_B)
TENSOR_IN(4, BScale, DT_F32)
TENSOR_IN(5, BZero, DT_BZ)
TENSOR_IN(6, OutScale, DT_F32)
TENSOR_IN(7, OutZero, DT_OZ)
TENSOR_IN(8, Bias, DT_F32)
TENSOR_OUT(9, Y, DT_F32)

layout(push_constant) uniform Params {
  uint batches, M, N, K;
  uint bScaleCount, bZeroCount;  // 1 or N
} p;

shared int partial[gl_WorkGroupSize.x];

// quantizeLinear of x into the range of zero-point type `zdt`.
int quantize(float x, float scale, int zero, int zdt) {
  float v = ieeeDivide(x, scale);
  if (isnan(v)) return zero;
  float lo = zdt == DT_I8 ? -128.0 : 0.0, hi = zdt == DT_I8 ? 127.0 : 255.0;
  return int(clamp(roundEven(v) + float(zero), lo, hi));
}

void main() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint out_ = flatIndex() / gl_WorkGroupSize.x;
  if (out_ >= p.batches * p.M * p.N) return;
  uint n = out_ % p.N, row = out_ / p.N, batch = row / p.M, lane = gl_LocalInvocationID.x;
  float sa = AScale_loadf(0);
  int za = AZero_loadi(0);
  float sb = BScale_loadf(p.bScaleCount == 1u ? 0u : n);
  int zb = BZero_loadi(p.bZeroCount == 1u ? 0u : n);
  uint aRow = row * p.K, bBase = (B_BATCHED ? batch * p.K * p.N : 0u) + n;
  int acc = 0;
  for (uint k = lane; k < p.K; k += gl_WorkGroupSize.x) {
    int qa = DT_A == DT_F32 ? quantize(A_loadf(aRow + k), sa, za, DT_AZ) : A_loadi(aRow + k);
    uint bi = bBase + k * p.N;
    int qb = DT_B == DT_F32 ? quantize(B_loadf(bi), sb, zb, DT_BZ) : B_loadi(bi);
    acc += (qa - za) * (qb - zb);
  }
  partial[lane] = acc;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] += partial[lane + half_];
    barrier();
  }
  if (lane != 0) return;
  float y = float(partial[0]) * (sa * sb);
  if (ROUND_TRIP) {
    float so = OutScale_loadf(0);
    int zo = OutZero_loadi(0);
    y = float(quantize(y, so, zo, DT_OZ) - zo) * so;
  }
  if (HAS_BIAS) y += Bias_loadf(n);
  Y_storef(out_, y);
}
