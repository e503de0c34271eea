// Strided copy: element i of an iteration space of up to 6 dims is read at
// inOffset + sum(idx[d] * inStride[d]) and written at outOffset +
// sum(idx[d] * outStride[d]) (offsets and strides in elements). Transpose,
// slice, expand, reshape, concat and split are all this one dispatch with
// different strides. Elements are moved as raw bits (ELEM_BYTES).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int ELEM_BYTES = 4;

TENSOR_DECL(0, X, readonly)
TENSOR_DECL(1, Y, )

layout(push_constant) uniform Params {
  uint count;
  uint inOffset;
  uint outOffset;
  uint dims[6];
  uint inStride[6];
  uint outStride[6];
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint src = p.inOffset, dst = p.outOffset, rest = i;
  for (int d = 5; d >= 0; --d) {
    uint idx = rest % p.dims[d];
    rest /= p.dims[d];
    src += idx * p.inStride[d];
    dst += idx * p.outStride[d];
  }
  if (ELEM_BYTES == 4) Y_u32[dst] = X_u32[src];
  else if (ELEM_BYTES == 2) Y_f16[dst] = X_f16[src];
  else if (ELEM_BYTES == 1) Y_u8[dst] = X_u8[src];
  else { Y_u32[2 * dst] = X_u32[2 * src]; Y_u32[2 * dst + 1] = X_u32[2 * src + 1]; }
}
