// gather and gatherElements along one axis: the input viewed as [outer, axisLen, inner], the
// output as [outer, numIndices, inner]. Indices (int32/int64/uint32...) in
// [-axisLen, axisLen) count from the end when negative; others are clamped,
// as the CPU kernel does, so no read leaves the tensor.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IDX = DT_I32;
layout(constant_id = 2) const int ELEM_BYTES = 4;
// gatherElements: indices have the output's shape (one per element) instead
// of one per [outer, inner] slice.
layout(constant_id = 3) const bool ELEMENTS = false;

TENSOR_DECL(0, X, readonly)
TENSOR_IN(1, Idx, DT_IDX)
TENSOR_DECL(2, Y, )

layout(push_constant) uniform Params {
  uint count, axisLen, numIndices, inner;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint in_ = i % p.inner, t = i / p.inner;
  uint k = t % p.numIndices, o = t / p.numIndices;
  int idx = Idx_loadi(ELEMENTS ? i : k);
  if (idx < 0) idx += int(p.axisLen);
  idx = clamp(idx, 0, int(p.axisLen) - 1);
  uint src = (o * p.axisLen + uint(idx)) * p.inner + in_;
  if (ELEM_BYTES == 4) Y_u32[i] = X_u32[src];
  else if (ELEM_BYTES == 2) Y_f16[i] = X_f16[src];
  else if (ELEM_BYTES == 1) Y_u8[i] = X_u8[src];
  else { Y_u32[2 * i] = X_u32[2 * src]; Y_u32[2 * i + 1] = X_u32[2 * src + 1]; }
}
