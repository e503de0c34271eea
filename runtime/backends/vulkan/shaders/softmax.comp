// softmax along one axis: the tensor viewed as [outer, axis, inner]. Each
// (outer, inner) row: max, then sum of exp, then write.
// ROW_PER_GROUP off: one invocation per row (short axes). On: one workgroup
// per row, each invocation taking every gl_WorkGroupSize.x-th element and
// the max and sum reduced as shared-memory trees, so a long row is read by
// the whole workgroup at once.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool ROW_PER_GROUP = false;

TENSOR_IN(0, X, DT)
TENSOR_OUT(1, Y, DT)

layout(push_constant) uniform Params {
  uint outer, axis, inner;
} p;

shared float partial[gl_WorkGroupSize.x];

// Leaves the workgroup's reduction (max or sum) of `v` in partial[0].
void reduceGroup(float v, bool isMax) {
  uint lane = gl_LocalInvocationID.x;
  partial[lane] = v;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] = isMax ? max(partial[lane], partial[lane + half_]) : partial[lane] + partial[lane + half_];
    barrier();
  }
}

void main() {
  if (ROW_PER_GROUP) {
    // Uniform per workgroup: the early return never splits a barrier.
    uint row = flatIndex() / gl_WorkGroupSize.x;
    if (row >= p.outer * p.inner) return;
    uint lane = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
    uint base = (row / p.inner) * p.axis * p.inner + row % p.inner;
    float m = -1.0 / 0.0;
    for (uint a = lane; a < p.axis; a += step) m = max(m, X_loadf(base + a * p.inner));
    reduceGroup(m, true);
    m = partial[0];
    barrier();  // every lane has read partial[0] before it is reused
    float s = 0.0;
    for (uint a = lane; a < p.axis; a += step) s += exp(X_loadf(base + a * p.inner) - m);
    reduceGroup(s, false);
    s = partial[0];
    for (uint a = lane; a < p.axis; a += step) Y_storef(base + a * p.inner, exp(X_loadf(base + a * p.inner) - m) / s);
    return;
  }
  uint i = flatIndex();
  if (i >= p.outer * p.inner) return;
  uint base = (i / p.inner) * p.axis * p.inner + i % p.inner;
  float m = -1.0 / 0.0;
  for (uint a = 0; a < p.axis; ++a) m = max(m, X_loadf(base + a * p.inner));
  float s = 0.0;
  for (uint a = 0; a < p.axis; ++a) s += exp(X_loadf(base + a * p.inner) - m);
  for (uint a = 0; a < p.axis; ++a) Y_storef(base + a * p.inner, exp(X_loadf(base + a * p.inner) - m) / s);
}
