// pad: each output element reads the input at its coordinates less the
// leading padding, mapped back inside per MODE (edge: clamped; reflection:
// mirrored without the edge; symmetric: mirrored with it) or, for constant
// padding outside the input, the value (its bits, made by the host).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int ELEM_BYTES = 4;
layout(constant_id = 2) const int MODE = 0;  // 0 constant, 1 edge, 2 reflection, 3 symmetric

TENSOR_DECL(0, X, readonly)
TENSOR_DECL(1, Y, )

layout(push_constant) uniform Params {
  uint count;
  uint outDims[6];
  uint inDims[6];
  uint inStride[6];
  uint begin[6];
  uint valueLo, valueHi;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint src = 0, rest = i;
  bool outside = false;
  for (int d = 5; d >= 0; --d) {
    int o = int(rest % p.outDims[d]);
    rest /= p.outDims[d];
    int n = int(p.inDims[d]);
    int q = o - int(p.begin[d]);
    if (q < 0 || q >= n) {
      if (MODE == 0) { outside = true; continue; }
      if (MODE == 1) q = q < 0 ? 0 : n - 1;
      else if (MODE == 2) q = q < 0 ? -q : 2 * (n - 1) - q;
      else q = q < 0 ? -q - 1 : 2 * n - 1 - q;
    }
    src += uint(q) * p.inStride[d];
  }
  if (ELEM_BYTES == 4) {
    Y_u32[i] = outside ? p.valueLo : X_u32[src];
  } else if (ELEM_BYTES == 8) {
    Y_u32[2 * i] = outside ? p.valueLo : X_u32[2 * src];
    Y_u32[2 * i + 1] = outside ? p.valueHi : X_u32[2 * src + 1];
  } else if (ELEM_BYTES == 2) {
    // float16 padding: the value travels as float32 bits, rounded here.
    if (outside) Y_f16[i] = float16_t(uintBitsToFloat(p.valueLo));
    else Y_f16[i] = X_f16[src];
  } else {
    if (outside) Y_u8[i] = uint8_t(p.valueLo & 255u);
    else Y_u8[i] = X_u8[src];
  }
}
