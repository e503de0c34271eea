// conv2d (groups = 1) as an implicit GEMM: rows are output pixels (n, oh,
// ow), columns output channels, the reduction runs over (c, kh, kw). Input
// patches (the im2col matrix, never stored) and filter tiles are staged in
// shared memory, TILE deep. A workgroup of TILE x TILE invocations computes
// a (TILE * TM) x (TILE * TN) block, each invocation TM x TN outputs held in
// registers (rows ly + i * TILE, columns lx + j * TILE), so each value read
// from shared memory feeds TM or TN multiply-adds. Epilogue: bias, residual
// (fusedConv2d) and activation in registers.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int TILE = 16;
layout(constant_id = 3) const bool HAS_BIAS = false;
layout(constant_id = 4) const bool HAS_RESIDUAL = false;
layout(constant_id = 5) const int ACT = 0;  // 0 none, 1 relu, 2 clamp, 3 sigmoid, 4 silu, 5 hardSwish
layout(constant_id = 6) const int TM = 1;  // output rows per invocation
layout(constant_id = 7) const int TN = 1;  // output columns per invocation
// The filter's storage type: DT, or float16 for a relaxed-precision node's
// constant filter (widened on load; the products and sums stay float32).
layout(constant_id = 8) const int FILTER_DT = DT_F32;

TENSOR_IN(0, X, DT)
TENSOR_IN(1, F, FILTER_DT)
TENSOR_OUT(2, Y, DT)
TENSOR_IN(3, Bias, DT)
TENSOR_IN(4, Residual, DT)

layout(push_constant) uniform Params {
  uint N, C, H, W, O, OH, OW, KH, KW;
  uint strideH, strideW, dilationH, dilationW;
  int padTop, padLeft;
  uint xs[4];  // n, c, h, w
  uint ys[4];  // n, o, h, w
  uint fs[4];  // o, i, h, w
  float actMin, actMax;
} p;

// A block [TILE * TM][TILE] (pixel, k) and B block [TILE][TILE * TN] (k, channel).
shared float tileA[TILE * TM * TILE];
shared float tileB[TILE * TILE * TN];

float activate(float v) {
  if (ACT == 1) return max(v, 0.0);
  if (ACT == 2) return min(max(v, p.actMin), p.actMax);
  if (ACT == 3) return 1.0 / (1.0 + exp(-v));
  if (ACT == 4) return v / (1.0 + exp(-v));
  if (ACT == 5) return v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
  return v;
}

void main() {
  uint lx = gl_LocalInvocationIndex % TILE, ly = gl_LocalInvocationIndex / TILE;
  uint M = p.N * p.OH * p.OW, K = p.C * p.KH * p.KW, KHW = p.KH * p.KW;
  uint rowBase = gl_WorkGroupID.y * TILE * TM, colBase = gl_WorkGroupID.x * TILE * TN;
  // The pixels this invocation loads A rows for: rows ly + i * TILE of the
  // block, columns (k) lx.
  int ih0[TM], iw0[TM];
  uint an[TM];
  for (int i = 0; i < TM; ++i) {
    uint am = rowBase + ly + uint(i) * TILE;
    uint ar = am % (p.OH * p.OW);
    an[i] = am < M ? am / (p.OH * p.OW) : 0xffffffffu;
    ih0[i] = int((ar / p.OW) * p.strideH) - p.padTop;
    iw0[i] = int((ar % p.OW) * p.strideW) - p.padLeft;
  }
  float acc[TM * TN];
  for (int k = 0; k < TM * TN; ++k) acc[k] = 0.0;
  for (uint k0 = 0; k0 < K; k0 += TILE) {
    uint ak = k0 + lx;
    uint ac = ak / KHW, ar = ak % KHW;
    int dh = int((ar / p.KW) * p.dilationH), dw = int((ar % p.KW) * p.dilationW);
    for (int i = 0; i < TM; ++i) {
      float av = 0.0;
      int ih = ih0[i] + dh, iw = iw0[i] + dw;
      if (an[i] != 0xffffffffu && ak < K && ih >= 0 && ih < int(p.H) && iw >= 0 && iw < int(p.W))
        av = X_loadf(an[i] * p.xs[0] + ac * p.xs[1] + uint(ih) * p.xs[2] + uint(iw) * p.xs[3]);
      tileA[(ly + uint(i) * TILE) * TILE + lx] = av;
    }
    uint bk = k0 + ly;
    uint bc = bk / KHW, br = bk % KHW;
    uint bOff = bc * p.fs[1] + (br / p.KW) * p.fs[2] + (br % p.KW) * p.fs[3];
    for (int j = 0; j < TN; ++j) {
      uint bo = colBase + lx + uint(j) * TILE;
      tileB[ly * TILE * TN + lx + uint(j) * TILE] = bk < K && bo < p.O ? F_loadf(bo * p.fs[0] + bOff) : 0.0;
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
    if (row >= M) break;
    uint n = row / (p.OH * p.OW), rr = row % (p.OH * p.OW);
    uint pixel = n * p.ys[0] + (rr / p.OW) * p.ys[2] + (rr % p.OW) * p.ys[3];
    for (int j = 0; j < TN; ++j) {
      uint col = colBase + lx + uint(j) * TILE;
      if (col >= p.O) break;
      float v = acc[i * TN + j];
      uint dst = pixel + col * p.ys[1];
      if (HAS_BIAS) v += Bias_loadf(col);
      if (HAS_RESIDUAL) v += Residual_loadf(dst);
      Y_storef(dst, activate(v));
    }
  }
}
