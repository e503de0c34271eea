// scatterElements after the input was copied to the output: the output
// viewed as [outer, axisLen, inner], indices and updates as [outer,
// numIndices, inner]; out[o, idx[o, j, k], k] = upd[o, j, k]. One invocation
// per (o, k) walks j in order, so a repeated index keeps the last update (the
// CPU kernel's order) without atomics. Indices resolve as in gather.comp.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IDX = DT_I32;
layout(constant_id = 2) const int ELEM_BYTES = 4;

INDEX_IN(0, Idx, DT_IDX)
TENSOR_DECL(1, U, readonly)
TENSOR_DECL(2, Y, )

layout(push_constant) uniform Params {
  uint outer, axisLen, numIndices, inner;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.outer * p.inner) return;
  uint o = i / p.inner, k = i % p.inner;
  for (uint j = 0; j < p.numIndices; ++j) {
    uint src = (o * p.numIndices + j) * p.inner + k;
    int idx = resolveIndex(Idx_loadIndex(src), p.axisLen, isSignedIndexType(DT_IDX));
    uint dst = (o * p.axisLen + uint(idx)) * p.inner + k;
    COPY_ELEMENT(Y, dst, U, src)
  }
}
