// gatherND: indices [..., K] name coordinates in the first K input dims;
// output element (t, e) is element e of the slice of prod(input.shape[K:])
// elements at tuple t's coordinate. Indices resolve as in gather.comp
// (negative from the end, the rest clamped: common.glsl resolveIndex).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IDX = DT_I32;
layout(constant_id = 2) const int ELEM_BYTES = 4;

TENSOR_DECL(0, X, readonly)
INDEX_IN(1, Idx, DT_IDX)
TENSOR_DECL(2, Y, )

layout(push_constant) uniform Params {
  uint count, sliceElems, coordinateSize;
  uint dims[6];     // of the first coordinateSize input dims
  uint strides[6];  // elements
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint t = i / p.sliceElems, e = i % p.sliceElems;
  uint src = e;
  for (uint d = 0; d < p.coordinateSize; ++d) {
    int idx = resolveIndex(Idx_loadIndex(t * p.coordinateSize + d), p.dims[d], isSignedIndexType(DT_IDX));
    src += uint(idx) * p.strides[d];
  }
  COPY_ELEMENT(Y, i, X, src)
}
