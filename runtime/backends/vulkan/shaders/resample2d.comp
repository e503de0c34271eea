// resample2d: nearest-neighbor or linear along two axes of a 4-D tensor,
// half-pixel centres (the only coordinate mapping the spec defines):
// source c = (o + 0.5) * inSize / outSize - 0.5, clamped to [0, inSize - 1].
// c is kept as the exact fraction N / D with N = (2o + 1) * inSize - outSize
// and D = 2 * outSize, so nearest-neighbor ties (c - 0.5 an integer) fall
// the same way on every device. Linear blends along axisB first, then axisA,
// in float32; int8/uint8 round half to even and saturate.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool LINEAR = false;

TENSOR_IN(0, X, DT)
TENSOR_OUT(1, Y, DT)

layout(push_constant) uniform Params {
  uint count;
  uint inShape[4];
  uint outShape[4];
  uint axisA, axisB;
} p;

// Source indices (lo, hi) and the weight of hi for output coordinate o.
void sourceOf(uint o, uint inSize, uint outSize, out uint lo, out uint hi, out float t) {
  int D = int(2 * outSize);
  int N = int((2 * o + 1) * inSize) - int(outSize);
  N = clamp(N, 0, int(inSize - 1) * D);
  if (LINEAR) {
    lo = uint(N / D);
    hi = uint((N + D - 1) / D);
    t = float(N - int(lo) * D) / float(D);
  } else {
    // ceil(c - 0.5) = ceil((N - outSize) / D), with N - outSize > -D.
    int n = N - int(outSize);
    lo = hi = n <= 0 ? 0u : uint((n + D - 1) / D);
    t = 0.0;
  }
}

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint coord[4], rest = i;
  for (int d = 3; d >= 0; --d) {
    coord[d] = rest % p.outShape[d];
    rest /= p.outShape[d];
  }
  uint stride[4];
  stride[3] = 1;
  for (int d = 2; d >= 0; --d) stride[d] = stride[d + 1] * p.inShape[d + 1];
  uint base = 0;
  for (uint d = 0; d < 4; ++d)
    if (d != p.axisA && d != p.axisB) base += coord[d] * stride[d];
  uint y0, y1, x0, x1;
  float wy, wx;
  sourceOf(coord[p.axisA], p.inShape[p.axisA], p.outShape[p.axisA], y0, y1, wy);
  sourceOf(coord[p.axisB], p.inShape[p.axisB], p.outShape[p.axisB], x0, x1, wx);
  uint sy = stride[p.axisA], sx = stride[p.axisB];
  if (wy == 0.0 && wx == 0.0) {
    // One source element: copied, never rounded.
    Y_storef(i, X_loadf(base + y0 * sy + x0 * sx));
    return;
  }
  float v00 = X_loadf(base + y0 * sy + x0 * sx), v01 = X_loadf(base + y0 * sy + x1 * sx);
  float v10 = X_loadf(base + y1 * sy + x0 * sx), v11 = X_loadf(base + y1 * sy + x1 * sx);
  float top = v00 * (1.0 - wx) + v01 * wx;
  float bottom = v10 * (1.0 - wx) + v11 * wx;
  float v = top * (1.0 - wy) + bottom * wy;
  if (DT == DT_I8) v = clamp(roundEven(v), -128.0, 127.0);
  else if (DT == DT_U8) v = clamp(roundEven(v), 0.0, 255.0);
  Y_storef(i, v);
}
