// cumulativeSum along one axis: the tensor viewed as [outer, axis, inner],
// one invocation per (outer, inner) line, running the sum forwards or
// backwards (REVERSED), each output with (inclusive) or without (EXCLUSIVE)
// its own element. Float types sum in float32, integers in int32.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool EXCLUSIVE = false;
layout(constant_id = 3) const bool REVERSED = false;

TENSOR_IN(0, X, DT)
TENSOR_OUT(1, Y, DT)

layout(push_constant) uniform Params {
  uint outer, axis, inner;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.outer * p.inner) return;
  uint base = (i / p.inner) * p.axis * p.inner + i % p.inner;
  REAL sf = 0.0;
  int si = 0;
  for (uint k = 0; k < p.axis; ++k) {
    uint a = REVERSED ? p.axis - 1 - k : k;
    uint at = base + a * p.inner;
    if (isFloatType(DT)) {
      REAL v = LOAD_REAL(X, DT, at);
      if (!EXCLUSIVE) sf += v;
      STORE_REAL(Y, DT, at, sf)
      if (EXCLUSIVE) sf += v;
    } else {
      int v = X_loadi(at);
      if (!EXCLUSIVE) si += v;
      Y_storei(at, si);
      if (EXCLUSIVE) si += v;
    }
  }
}
