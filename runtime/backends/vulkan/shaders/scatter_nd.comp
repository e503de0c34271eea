// scatterND after the input was copied to the output: tuple t's slice of
// updates goes to the slice at its coordinate. One invocation per slice
// element walks the tuples in order, so a coordinate named twice keeps the
// last update (the CPU kernel's order) without atomics; parallelism is the
// slice size. Indices resolve as in gather.comp (common.glsl resolveIndex).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IDX = DT_I32;
layout(constant_id = 2) const int ELEM_BYTES = 4;

INDEX_IN(0, Idx, DT_IDX)
TENSOR_DECL(1, U, readonly)
TENSOR_DECL(2, Y, )

layout(push_constant) uniform Params {
  uint tuples, sliceElems, coordinateSize;
  uint dims[6];     // of the first coordinateSize output dims
  uint strides[6];  // elements
} p;

void main() {
  uint e = flatIndex();
  if (e >= p.sliceElems) return;
  for (uint t = 0; t < p.tuples; ++t) {
    uint dst = e;
    for (uint d = 0; d < p.coordinateSize; ++d) {
      int idx = resolveIndex(Idx_loadIndex(t * p.coordinateSize + d), p.dims[d], isSignedIndexType(DT_IDX));
      dst += uint(idx) * p.strides[d];
    }
    uint src = t * p.sliceElems + e;
    COPY_ELEMENT(Y, dst, U, src)
  }
}
