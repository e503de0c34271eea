// rmsNormalization and skipRmsNormalization: one workgroup per row of N
// elements (the tensor viewed as [rows, N]). SKIP first forms the residual
// sum x + skip (+ bias), written out and normalized in its place; the skip
// repeats every skipRows rows (a [.., N] skip broadcast over the leading
// dims). The workgroup's sum of squares is a shared-memory tree, so a long
// row is read by every invocation at once rather than by one.
// Every tensor has its own data type constant (float16 or float32 each, as
// the CPU kernel takes them); arithmetic is float32.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_X = DT_F32;
layout(constant_id = 2) const int DT_SKIP = DT_F32;
layout(constant_id = 3) const int DT_GAMMA = DT_F32;
layout(constant_id = 4) const int DT_BIAS = DT_F32;
layout(constant_id = 5) const int DT_Y = DT_F32;
layout(constant_id = 6) const int DT_STAT = DT_F32;
layout(constant_id = 7) const int DT_SUM = DT_F32;
layout(constant_id = 8) const bool SKIP = false;
layout(constant_id = 9) const bool HAS_BIAS = false;
layout(constant_id = 10) const bool HAS_STAT = false;

TENSOR_IN(0, X, DT_X)
TENSOR_IN(1, Skip, DT_SKIP)
TENSOR_IN(2, Gamma, DT_GAMMA)
TENSOR_IN(3, Bias, DT_BIAS)
TENSOR_OUT(4, Y, DT_Y)
TENSOR_OUT(5, Stat, DT_STAT)
TENSOR_OUT(6, Sum, DT_SUM)

layout(push_constant) uniform Params {
  uint rows, n, skipRows;
  float epsilon;
} p;

shared float partial[gl_WorkGroupSize.x];

// The row's element i before normalization.
float rowValue(uint base, uint skipBase, uint i) {
  float v = X_loadf(base + i);
  if (SKIP) {
    v += Skip_loadf(skipBase + i);
    if (HAS_BIAS) v += Bias_loadf(i);
  }
  return v;
}

void main() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint row = flatIndex() / gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  uint lane = gl_LocalInvocationID.x;
  uint base = row * p.n, skipBase = (row % p.skipRows) * p.n;
  float ss = 0.0;
  for (uint i = lane; i < p.n; i += gl_WorkGroupSize.x) {
    float v = rowValue(base, skipBase, i);
    if (SKIP) Sum_storef(base + i, v);
    ss += v * v;
  }
  partial[lane] = ss;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] += partial[lane + half_];
    barrier();
  }
  float inv = 1.0 / sqrt(partial[0] / float(p.n) + p.epsilon);
  if (HAS_STAT && lane == 0) Stat_storef(row, inv);
  // The residual sum is recomputed in float32 rather than read back, as the
  // CPU kernel normalizes its float32 value whatever the sum's output type.
  for (uint i = lane; i < p.n; i += gl_WorkGroupSize.x)
    Y_storef(base + i, rowValue(base, skipBase, i) * inv * Gamma_loadf(i));
}
