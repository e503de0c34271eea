// Batched matmul, gemm and fusedMatmul: C = act(alpha * op(A) * op(B) +
// beta * bias + residual). A workgroup of TILE x TILE invocations computes a
// (TILE * TM) x (TILE * TN) block of C, each invocation TM x TN outputs in
// registers (rows ly + i * TILE, columns lx + j * TILE); both operands'
// blocks are staged in shared memory TILE deep (each element of A and B read
// from memory K / (TILE * TN) and K / (TILE * TM) times instead of K), and
// each value read from shared memory feeds TM or TN multiply-adds. Batch
// dims broadcast through per-operand batch strides.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int TILE = 16;
layout(constant_id = 3) const bool A_TRANSPOSED = false;  // A stored [K, M]
layout(constant_id = 4) const bool B_TRANSPOSED = false;  // B stored [N, K]
layout(constant_id = 5) const bool HAS_BIAS = false;
layout(constant_id = 6) const bool HAS_RESIDUAL = false;
layout(constant_id = 7) const int ACT = 0;  // fusedMatmul: 0 none, 1 relu, 2 gelu
layout(constant_id = 8) const int TM = 1;  // output rows per invocation
layout(constant_id = 9) const int TN = 1;  // output columns per invocation
// B's storage type: DT, or float16 for a relaxed-precision node's constant
// B (widened on load; the products and sums stay float32).
layout(constant_id = 10) const int B_DT = DT_F32;

TENSOR_IN(0, A, DT)
TENSOR_IN(1, B, B_DT)
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

// A block [TILE * TM][TILE] (row, k) and B block [TILE][TILE * TN] (k, column).
shared float tileA[TILE * TM * TILE];
shared float tileB[TILE * TILE * TN];

void main() {
  uint lx = gl_LocalInvocationIndex % TILE, ly = gl_LocalInvocationIndex / TILE;
  uint rowBase = gl_WorkGroupID.y * TILE * TM, colBase = gl_WorkGroupID.x * TILE * TN;
  uint batch = gl_WorkGroupID.z, rest = batch, aBase = 0, bBase = 0;
  for (int d = 3; d >= 0; --d) {
    uint idx = rest % p.batchDims[d];
    rest /= p.batchDims[d];
    aBase += idx * p.aBatchStride[d];
    bBase += idx * p.bBatchStride[d];
  }
  float acc[TM * TN];
  for (int k = 0; k < TM * TN; ++k) acc[k] = 0.0;
  for (uint k0 = 0; k0 < p.K; k0 += TILE) {
    // tileA[r][lx] = A[rowBase + r][k0 + lx] for r = ly + i * TILE;
    // tileB[ly][c] = B[k0 + ly][colBase + c] for c = lx + j * TILE.
    uint ak = k0 + lx;
    for (int i = 0; i < TM; ++i) {
      uint ar = rowBase + ly + uint(i) * TILE;
      float av = 0.0;
      if (ar < p.M && ak < p.K) av = A_loadf(aBase + (A_TRANSPOSED ? ak * p.M + ar : ar * p.K + ak));
      tileA[(ly + uint(i) * TILE) * TILE + lx] = av;
    }
    uint bk = k0 + ly;
    for (int j = 0; j < TN; ++j) {
      uint bc = colBase + lx + uint(j) * TILE;
      float bv = 0.0;
      if (bk < p.K && bc < p.N) bv = B_loadf(bBase + (B_TRANSPOSED ? bc * p.K + bk : bk * p.N + bc));
      tileB[ly * TILE * TN + lx + uint(j) * TILE] = bv;
    }
    barrier();
    for (uint k = 0; k < TILE; ++k) {
      float a[TM], b[TN];
      for (int i = 0; i < TM; ++i) a[i] = tileA[(ly + uint(i) * TILE) * TILE + k];
      for (int j = 0; j < TN; ++j) b[j] = tileB[k * TILE * TN + lx + uint(j) * TILE];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
    }
    barrier();
  }
  for (int i = 0; i < TM; ++i) {
    uint row = rowBase + ly + uint(i) * TILE;
    if (row >= p.M) break;
    for (int j = 0; j < TN; ++j) {
      uint col = colBase + lx + uint(j) * TILE;
      if (col >= p.N) break;
      float r = p.alpha * acc[i * TN + j];
      if (HAS_BIAS) r += p.beta * Bias_loadf(row * p.biasRowStride + col * p.biasColStride);
      uint dst = (batch * p.M + row) * p.N + col;
      if (HAS_RESIDUAL) r += Residual_loadf(dst);
      if (ACT == 1) r = max(r, 0.0);
      if (ACT == 2) r = 0.5 * r * (1.0 + erfApprox(r * 0.70710678118654752));
      C_storef(dst, r);
    }
  }
}
