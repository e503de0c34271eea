// softmax along one axis: the tensor viewed as [outer, axis, inner], one
// invocation per (outer, inner) row: max, then sum of exp, then write.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;

TENSOR_IN(0, X, DT)
TENSOR_OUT(1, Y, DT)

layout(push_constant) uniform Params {
  uint outer, axis, inner;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.outer * p.inner) return;
  uint base = (i / p.inner) * p.axis * p.inner + i % p.inner;
  float m = -1.0 / 0.0;
  for (uint a = 0; a < p.axis; ++a) m = max(m, X_loadf(base + a * p.inner));
  float s = 0.0;
  for (uint a = 0; a < p.axis; ++a) s += exp(X_loadf(base + a * p.inner) - m);
  for (uint a = 0; a < p.axis; ++a) Y_storef(base + a * p.inner, exp(X_loadf(base + a * p.inner) - m) / s);
}
