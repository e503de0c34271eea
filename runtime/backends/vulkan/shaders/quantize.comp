// quantizeLinear and dequantizeLinear with block-wise broadcast scale and
// zeroPoint (per-tensor and per-axis are the cases whose blocks span whole
// dims): the scale, aligned to the input's trailing dims, has per dim
// block[d] = input[d] / scale[d], and input coordinate c reads scale element
// sum(c[d] / block[d] * scaleStride[d]).
//   quantize:   saturate(roundEven(x / scale) + zeroPoint), NaN -> zeroPoint
//   dequantize: (x - zeroPoint) * scale
// The sum and the difference are taken in 64 bits as (int high, uint low)
// word pairs, so int32/uint32 zero points stay exact and saturate right
// (shaderInt64 is not required of the device).
//
// int4/uint4 tensors are packed two to a byte, element 2k in the low nibble
// (WebNN's layout): they are read through the byte view, and a 4-bit output
// is written a whole byte per invocation (its two elements), so no two
// invocations write the same byte.
#version 450
#include "common.glsl"

// WebNN's DataType codes of the 4-bit types (webnn/types.h).
#define DT_I4 8
#define DT_U4 9

layout(constant_id = 1) const bool QUANTIZE = true;
layout(constant_id = 2) const int DT_X = DT_F32;
layout(constant_id = 3) const int DT_S = DT_F32;
layout(constant_id = 4) const int DT_Z = DT_U8;
layout(constant_id = 5) const int DT_Y = DT_U8;

TENSOR_IN(0, X, DT_X)
TENSOR_IN(1, S, DT_S)
TENSOR_IN(2, Z, DT_Z)
TENSOR_OUT(3, Y, DT_Y)

layout(push_constant) uniform Params {
  uint count;
  uint dims[6];
  uint block[6];
  uint scaleStride[6];
} p;

bool is4Bit(int dt) { return dt == DT_I4 || dt == DT_U4; }
// Nibble i of a packed 4-bit tensor, sign-extended for int4.
int nibble(uint packedByte, uint i, int dt) {
  int v = int((packedByte >> ((i & 1u) * 4u)) & 15u);
  return dt == DT_I4 && v >= 8 ? v - 16 : v;
}
int X_loadq(uint i) { return is4Bit(DT_X) ? nibble(uint(X_u8[i >> 1]), i, DT_X) : X_loadi(i); }
int Z_loadq(uint i) { return is4Bit(DT_Z) ? nibble(uint(Z_u8[i >> 1]), i, DT_Z) : Z_loadi(i); }

// An integer tensor element as a 64-bit (high, low) pair.
ivec2 wide(int v, int dt) {
  bool signedType = dt == DT_I32 || dt == DT_I8 || dt == DT_I4;
  return ivec2(signedType && v < 0 ? -1 : 0, v);
}
bool lessThan64(ivec2 a, ivec2 b) { return a.x < b.x || (a.x == b.x && uint(a.y) < uint(b.y)); }

// Element i's scale index (block-wise broadcast over 6 padded dims).
uint scaleIndex(uint i) {
  uint s = 0, rest = i;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % p.dims[d];
    rest /= p.dims[d];
    s += (c / p.block[d]) * p.scaleStride[d];
  }
  return s;
}

// quantizeLinear of element i: the output type's value as an int (its low
// 32 bits for uint32).
int quantizeAt(uint i) {
  uint s = scaleIndex(i);
  float scale = S_loadf(s);
  ivec2 zp = wide(Z_loadq(s), DT_Z);
  float q = ieeeDivide(X_loadf(i), scale);
  if (isnan(q)) return zp.y;
  q = roundEven(q);
  ivec2 lo, hi;
  if (DT_Y == DT_I8) { lo = ivec2(-1, -128); hi = ivec2(0, 127); }
  else if (DT_Y == DT_U8) { lo = ivec2(0, 0); hi = ivec2(0, 255); }
  else if (DT_Y == DT_I4) { lo = ivec2(-1, -8); hi = ivec2(0, 7); }
  else if (DT_Y == DT_U4) { lo = ivec2(0, 0); hi = ivec2(0, 15); }
  else if (DT_Y == DT_I32) { lo = ivec2(-1, int(0x80000000u)); hi = ivec2(0, 0x7fffffff); }
  else { lo = ivec2(0, 0); hi = ivec2(0, int(0xffffffffu)); }
  // Past 2^32 in magnitude every output type saturates whatever the zero
  // point; below it |q| is exact as a uint.
  if (q >= 4294967296.0) return hi.y;
  if (q <= -4294967296.0) return lo.y;
  uint m = uint(abs(q));
  ivec2 qw = q < 0.0 ? ivec2(m == 0u ? 0 : -1, int(0u - m)) : ivec2(0, int(m));
  uint carry;
  uint vl = uaddCarry(uint(qw.y), uint(zp.y), carry);
  ivec2 v = ivec2(qw.x + zp.x + int(carry), int(vl));
  if (lessThan64(v, lo)) v = lo;
  if (lessThan64(hi, v)) v = hi;
  return v.y;
}

void main() {
  uint i = flatIndex();
  if (QUANTIZE && is4Bit(DT_Y)) {
    // Invocation i writes byte i: elements 2i and 2i + 1 (0 past the end).
    uint e = 2u * i;
    if (e >= p.count) return;
    uint packedByte = uint(quantizeAt(e)) & 15u;
    if (e + 1u < p.count) packedByte |= (uint(quantizeAt(e + 1u)) & 15u) << 4;
    Y_u8[i] = uint8_t(packedByte);
    return;
  }
  if (i >= p.count) return;
  if (QUANTIZE) {
    Y_storei(i, quantizeAt(i));
  } else {
    uint s = scaleIndex(i);
    float scale = S_loadf(s);
    ivec2 zp = wide(Z_loadq(s), DT_Z);
    ivec2 x = wide(X_loadq(i), DT_X);
    uint borrow;
    uint dl = usubBorrow(uint(x.y), uint(zp.y), borrow);
    int dh = x.x - zp.x - int(borrow);
    // |x - zp| < 2^32: the magnitude fits the low word.
    float diff = dh < 0 ? -float(0u - dl) : float(dl);
    Y_storef(i, diff * scale);
  }
}
