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
#version 450
#include "common.glsl"

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

// An integer tensor element as a 64-bit (high, low) pair.
ivec2 wide(int v, int dt) {
  bool signedType = dt == DT_I32 || dt == DT_I8;
  return ivec2(signedType && v < 0 ? -1 : 0, v);
}
bool lessThan64(ivec2 a, ivec2 b) { return a.x < b.x || (a.x == b.x && uint(a.y) < uint(b.y)); }

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint s = 0, rest = i;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % p.dims[d];
    rest /= p.dims[d];
    s += (c / p.block[d]) * p.scaleStride[d];
  }
  float scale = S_loadf(s);
  ivec2 zp = wide(Z_loadi(s), DT_Z);
  if (QUANTIZE) {
    float q = ieeeDivide(X_loadf(i), scale);
    if (isnan(q)) {
      Y_storei(i, zp.y);
      return;
    }
    q = roundEven(q);
    ivec2 lo, hi;
    if (DT_Y == DT_I8) { lo = ivec2(-1, -128); hi = ivec2(0, 127); }
    else if (DT_Y == DT_U8) { lo = ivec2(0, 0); hi = ivec2(0, 255); }
    else if (DT_Y == DT_I32) { lo = ivec2(-1, int(0x80000000u)); hi = ivec2(0, 0x7fffffff); }
    else { lo = ivec2(0, 0); hi = ivec2(0, int(0xffffffffu)); }
    // Past 2^32 in magnitude every output type saturates whatever the zero
    // point; below it |q| is exact as a uint.
    ivec2 v;
    if (q >= 4294967296.0) v = hi;
    else if (q <= -4294967296.0) v = lo;
    else {
      uint m = uint(abs(q));
      ivec2 qw = q < 0.0 ? ivec2(m == 0u ? 0 : -1, int(0u - m)) : ivec2(0, int(m));
      uint carry;
      uint vl = uaddCarry(uint(qw.y), uint(zp.y), carry);
      v = ivec2(qw.x + zp.x + int(carry), int(vl));
      if (lessThan64(v, lo)) v = lo;
      if (lessThan64(hi, v)) v = hi;
    }
    Y_storei(i, v.y);
  } else {
    ivec2 x = wide(X_loadi(i), DT_X);
    uint borrow;
    uint dl = usubBorrow(uint(x.y), uint(zp.y), borrow);
    int dh = x.x - zp.x - int(borrow);
    // |x - zp| < 2^32: the magnitude fits the low word.
    float diff = dh < 0 ? -float(0u - dl) : float(dl);
    Y_storef(i, diff * scale);
  }
}
