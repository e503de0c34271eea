// layerNormalization, instanceNormalization and batchNormalization: one
// invocation per group of elements normalized together (outer index), the
// group's elements (inner) visited through strides. MODE 0 computes the
// group's mean and variance; MODE 1 (batch) reads them per outer index.
// Scale, bias, mean and variance are indexed by strides over the outer and
// inner indices, which covers per-channel and per-normalized-element shapes.
// GROUP_PER_ROW (MODE 0, large groups): one workgroup per group instead,
// each invocation taking every gl_WorkGroupSize.x-th element, the sums as
// shared-memory trees.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int MODE = 0;
layout(constant_id = 3) const bool HAS_SCALE = false;
layout(constant_id = 4) const bool HAS_BIAS = false;
layout(constant_id = 5) const bool GROUP_PER_ROW = false;

TENSOR_IN(0, X, DT)
TENSOR_IN(1, Scale, DT)
TENSOR_IN(2, Bias, DT)
TENSOR_IN(3, Mean, DT)
TENSOR_IN(4, Var, DT)
TENSOR_OUT(5, Y, DT)

layout(push_constant) uniform Params {
  uint outerCount, innerCount;
  uint outerDims[4];
  uint outerStride[4];
  uint innerDims[4];
  uint innerStride[4];
  uint paramOuterStride[4];
  uint paramInnerStride[4];
  float epsilon;
} p;

shared float partial[gl_WorkGroupSize.x];

// Inner element j's offset from the group's base, and its parameters'.
uint innerOffset(uint j) {
  uint off = 0;
  for (int d = 3; d >= 0; --d) { off += (j % p.innerDims[d]) * p.innerStride[d]; j /= p.innerDims[d]; }
  return off;
}
uint paramOffset(uint j) {
  uint off = 0;
  for (int d = 3; d >= 0; --d) { off += (j % p.innerDims[d]) * p.paramInnerStride[d]; j /= p.innerDims[d]; }
  return off;
}

// The workgroup's sum of `v` (every lane gets it).
float groupSum(float v) {
  uint lane = gl_LocalInvocationID.x;
  barrier();  // earlier readers of partial are done
  partial[lane] = v;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] += partial[lane + half_];
    barrier();
  }
  return partial[0];
}

void normalizeGroupPerRow() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint i = flatIndex() / gl_WorkGroupSize.x;
  if (i >= p.outerCount) return;
  uint lane = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  uint base = 0, pbase = 0, rest = i;
  for (int d = 3; d >= 0; --d) {
    uint idx = rest % p.outerDims[d];
    rest /= p.outerDims[d];
    base += idx * p.outerStride[d];
    pbase += idx * p.paramOuterStride[d];
  }
  float s = 0.0;
  for (uint j = lane; j < p.innerCount; j += step) s += X_loadf(base + innerOffset(j));
  float mean = groupSum(s) / float(p.innerCount);
  float v = 0.0;
  for (uint j = lane; j < p.innerCount; j += step) {
    float dx = X_loadf(base + innerOffset(j)) - mean;
    v += dx * dx;
  }
  float inv = 1.0 / sqrt(groupSum(v) / float(p.innerCount) + p.epsilon);
  for (uint j = lane; j < p.innerCount; j += step) {
    uint off = innerOffset(j), poff = pbase + paramOffset(j);
    float y = (X_loadf(base + off) - mean) * inv;
    if (HAS_SCALE) y *= Scale_loadf(poff);
    if (HAS_BIAS) y += Bias_loadf(poff);
    Y_storef(base + off, y);
  }
}

void main() {
  if (GROUP_PER_ROW) {
    normalizeGroupPerRow();
    return;
  }
  uint i = flatIndex();
  if (i >= p.outerCount) return;
  uint base = 0, pbase = 0, rest = i;
  for (int d = 3; d >= 0; --d) {
    uint idx = rest % p.outerDims[d];
    rest /= p.outerDims[d];
    base += idx * p.outerStride[d];
    pbase += idx * p.paramOuterStride[d];
  }
  float mean, variance;
  if (MODE == 1) {
    mean = Mean_loadf(pbase);
    variance = Var_loadf(pbase);
  } else {
    // Two passes (mean, then squared deviations): no cancellation from
    // E[x^2] - E[x]^2 on groups with a large mean.
    float s = 0.0;
    for (uint j = 0; j < p.innerCount; ++j) {
      uint off = 0, r = j;
      for (int d = 3; d >= 0; --d) { off += (r % p.innerDims[d]) * p.innerStride[d]; r /= p.innerDims[d]; }
      s += X_loadf(base + off);
    }
    mean = s / float(p.innerCount);
    float v = 0.0;
    for (uint j = 0; j < p.innerCount; ++j) {
      uint off = 0, r = j;
      for (int d = 3; d >= 0; --d) { off += (r % p.innerDims[d]) * p.innerStride[d]; r /= p.innerDims[d]; }
      float dx = X_loadf(base + off) - mean;
      v += dx * dx;
    }
    variance = v / float(p.innerCount);
  }
  float inv = 1.0 / sqrt(variance + p.epsilon);
  for (uint j = 0; j < p.innerCount; ++j) {
    uint off = 0, poff = pbase, r = j;
    for (int d = 3; d >= 0; --d) {
      uint idx = r % p.innerDims[d];
      r /= p.innerDims[d];
      off += idx * p.innerStride[d];
      poff += idx * p.paramInnerStride[d];
    }
    float y = (X_loadf(base + off) - mean) * inv;
    if (HAS_SCALE) y *= Scale_loadf(poff);
    if (HAS_BIAS) y += Bias_loadf(poff);
    Y_storef(base + off, y);
  }
}
