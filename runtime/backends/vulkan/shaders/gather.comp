// gather and gatherElements along one axis: the input viewed as [outer, axisLen, inner], the
// output as [outer, numIndices, inner]. Indices (int32/int64/uint32...) in
// [-axisLen, axisLen) count from the end when negative; others are clamped,
// as the CPU kernel does, so no read leaves the tensor (common.glsl
// resolveIndex).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IDX = DT_I32;
layout(constant_id = 2) const int ELEM_BYTES = 4;
// gatherElements: indices have the output's shape (one per element) instead
// of one per [outer, inner] slice.
layout(constant_id = 3) const bool ELEMENTS = false;

TENSOR_DECL(0, X, readonly)
INDEX_IN(1, Idx, DT_IDX)
TENSOR_DECL(2, Y, )

layout(push_constant) uniform Params {
  uint count, axisLen, numIndices, inner;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint in_ = i % p.inner, t = i / p.inner;
  uint k = t % p.numIndices, o = t / p.numIndices;
  int idx = resolveIndex(Idx_loadIndex(ELEMENTS ? i : k), p.axisLen, isSignedIndexType(DT_IDX));
  uint src = (o * p.axisLen + uint(idx)) * p.inner + in_;
  COPY_ELEMENT(Y, i, X, src)
}
