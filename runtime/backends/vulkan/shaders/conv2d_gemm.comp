// conv2d (groups = 1) as an implicit GEMM: rows are output pixels (n, oh,
// ow), columns output channels, the reduction runs over (c, kh, kw). Input
// patches (the im2col matrix, never stored) and filter tiles are staged in
// shared memory TILE x TILE at a time, as in matmul.comp. Epilogue: bias,
// residual (fusedConv2d) and activation in registers.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int TILE = 16;
layout(constant_id = 3) const bool HAS_BIAS = false;
layout(constant_id = 4) const bool HAS_RESIDUAL = false;
layout(constant_id = 5) const int ACT = 0;  // 0 none, 1 relu, 2 clamp, 3 sigmoid, 4 silu

TENSOR_IN(0, X, DT)
TENSOR_IN(1, F, DT)
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

shared float tileA[TILE * TILE];
shared float tileB[TILE * TILE];

float activate(float v) {
  if (ACT == 1) return max(v, 0.0);
  if (ACT == 2) return min(max(v, p.actMin), p.actMax);
  if (ACT == 3) return 1.0 / (1.0 + exp(-v));
  if (ACT == 4) return v / (1.0 + exp(-v));
  return v;
}

void main() {
  uint lx = gl_LocalInvocationIndex % TILE, ly = gl_LocalInvocationIndex / TILE;
  uint M = p.N * p.OH * p.OW, K = p.C * p.KH * p.KW, KHW = p.KH * p.KW;
  uint col = gl_WorkGroupID.x * TILE + lx;  // output channel
  uint row = gl_WorkGroupID.y * TILE + ly;  // output pixel
  // The pixel this invocation loads A rows for (row ly of the tile).
  uint am = gl_WorkGroupID.y * TILE + ly;
  uint an = am / (p.OH * p.OW), ar = am % (p.OH * p.OW);
  int ih0 = int((ar / p.OW) * p.strideH) - p.padTop, iw0 = int((ar % p.OW) * p.strideW) - p.padLeft;
  uint bo = gl_WorkGroupID.x * TILE + lx;
  float acc = 0.0;
  for (uint k0 = 0; k0 < K; k0 += TILE) {
    uint ak = k0 + lx;
    float av = 0.0;
    if (am < M && ak < K) {
      uint c = ak / KHW, r = ak % KHW;
      int ih = ih0 + int((r / p.KW) * p.dilationH), iw = iw0 + int((r % p.KW) * p.dilationW);
      if (ih >= 0 && ih < int(p.H) && iw >= 0 && iw < int(p.W))
        av = X_loadf(an * p.xs[0] + c * p.xs[1] + uint(ih) * p.xs[2] + uint(iw) * p.xs[3]);
    }
    tileA[ly * TILE + lx] = av;
    uint bk = k0 + ly;
    float bv = 0.0;
    if (bk < K && bo < p.O) {
      uint c = bk / KHW, r = bk % KHW;
      bv = F_loadf(bo * p.fs[0] + c * p.fs[1] + (r / p.KW) * p.fs[2] + (r % p.KW) * p.fs[3]);
    }
    tileB[ly * TILE + lx] = bv;
    barrier();
    for (uint k = 0; k < TILE; ++k) acc += tileA[ly * TILE + k] * tileB[k * TILE + lx];
    barrier();
  }
  if (row >= M || col >= p.O) return;
  uint n = row / (p.OH * p.OW), rr = row % (p.OH * p.OW);
  uint dst = n * p.ys[0] + col * p.ys[1] + (rr / p.OW) * p.ys[2] + (rr % p.OW) * p.ys[3];
  if (HAS_BIAS) acc += Bias_loadf(col);
  if (HAS_RESIDUAL) acc += Residual_loadf(dst);
  Y_storef(dst, activate(acc));
}
