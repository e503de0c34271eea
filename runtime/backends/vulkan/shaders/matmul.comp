// Batched matmul, gemm and fusedMatmul: C = act(alpha * op(A) * op(B) +
// beta * bias + residual), with
// TILE x TILE output tiles per workgroup and both operand tiles staged in
// shared memory (each element of A and B read from memory K/TILE times
// instead of K). Batch dims broadcast through per-operand batch strides.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int TILE = 16;
layout(constant_id = 3) const bool A_TRANSPOSED = false;  // A stored [K, M]
layout(constant_id = 4) const bool B_TRANSPOSED = false;  // B stored [N, K]
layout(constant_id = 5) const bool HAS_BIAS = false;
layout(constant_id = 6) const bool HAS_RESIDUAL = false;
layout(constant_id = 7) const int ACT = 0;  // fusedMatmul: 0 none, 1 relu, 2 gelu

TENSOR_IN(0, A, DT)
TENSOR_IN(1, B, DT)
TENSOR_OUT(2, C, DT)
TENSOR_IN(3, Bias, DT)
TENSOR_IN(4, Residual, DT)

layout(push_constant) uniform Params {
  uint M, N, K;
  uint batchDims[4];
  uint aBatchStride[4];
  uint bBatchStride[4];
  float alpha, beta;
  uint biasRowStride, biasColStride;
} p;

shared float tileA[TILE * TILE];
shared float tileB[TILE * TILE];

void main() {
  uint lx = gl_LocalInvocationIndex % TILE, ly = gl_LocalInvocationIndex / TILE;
  uint col = gl_WorkGroupID.x * TILE + lx, row = gl_WorkGroupID.y * TILE + ly;
  uint batch = gl_WorkGroupID.z, rest = batch, aBase = 0, bBase = 0;
  for (int d = 3; d >= 0; --d) {
    uint idx = rest % p.batchDims[d];
    rest /= p.batchDims[d];
    aBase += idx * p.aBatchStride[d];
    bBase += idx * p.bBatchStride[d];
  }
  float acc = 0.0;
  for (uint k0 = 0; k0 < p.K; k0 += TILE) {
    // tileA[ly][lx] = A[row][k0 + lx]; tileB[ly][lx] = B[k0 + ly][col].
    uint ar = gl_WorkGroupID.y * TILE + ly, ak = k0 + lx;
    float av = 0.0;
    if (ar < p.M && ak < p.K) av = A_loadf(aBase + (A_TRANSPOSED ? ak * p.M + ar : ar * p.K + ak));
    tileA[ly * TILE + lx] = av;
    uint bk = k0 + ly, bc = gl_WorkGroupID.x * TILE + lx;
    float bv = 0.0;
    if (bk < p.K && bc < p.N) bv = B_loadf(bBase + (B_TRANSPOSED ? bc * p.K + bk : bk * p.N + bc));
    tileB[ly * TILE + lx] = bv;
    barrier();
    for (uint k = 0; k < TILE; ++k) acc += tileA[ly * TILE + k] * tileB[k * TILE + lx];
    barrier();
  }
  if (row >= p.M || col >= p.N) return;
  float r = p.alpha * acc;
  if (HAS_BIAS) r += p.beta * Bias_loadf(row * p.biasRowStride + col * p.biasColStride);
  uint dst = (batch * p.M + row) * p.N + col;
  if (HAS_RESIDUAL) r += Residual_loadf(dst);
  if (ACT == 1) r = max(r, 0.0);
  if (ACT == 2) r = 0.5 * r * (1.0 + erfApprox(r * 0.70710678118654752));
  C_storef(dst, r);
}
