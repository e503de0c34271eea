// reduce* ops: one invocation per output element, looping over the reduced
// elements. Kept dims (outer) and reduced dims (inner) are each up to 6 dims
// with their input strides, so any set of axes reduces without a transpose.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IN = DT_F32;
layout(constant_id = 2) const int DT_OUT = DT_F32;
layout(constant_id = 3) const int OP = 0;

#define OP_SUM 0
#define OP_MEAN 1
#define OP_MAX 2
#define OP_MIN 3
#define OP_PRODUCT 4
#define OP_L1 5
#define OP_L2 6
#define OP_LOG_SUM 7
#define OP_LOG_SUM_EXP 8
#define OP_SUM_SQUARE 9
#define OP_ARG_MAX 10  // index along the one reduced axis, first on ties
#define OP_ARG_MIN 11

TENSOR_IN(0, X, DT_IN)
TENSOR_OUT(1, Y, DT_OUT)

layout(push_constant) uniform Params {
  uint count, innerCount;
  uint outerDims[6];
  uint outerStride[6];
  uint innerDims[6];
  uint innerStride[6];
} p;

uint innerOffset(uint j) {
  uint off = 0;
  for (int d = 5; d >= 0; --d) {
    off += (j % p.innerDims[d]) * p.innerStride[d];
    j /= p.innerDims[d];
  }
  return off;
}

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint base = 0, rest = i;
  for (int d = 5; d >= 0; --d) {
    base += (rest % p.outerDims[d]) * p.outerStride[d];
    rest /= p.outerDims[d];
  }
  if (OP == OP_ARG_MAX || OP == OP_ARG_MIN) {
    int best = 0;
    if (isFloatType(DT_IN)) {
      REAL b = LOAD_REAL(X, DT_IN, base + innerOffset(0));
      for (uint j = 1; j < p.innerCount; ++j) {
        REAL v = LOAD_REAL(X, DT_IN, base + innerOffset(j));
        if (OP == OP_ARG_MAX ? v > b : v < b) { b = v; best = int(j); }
      }
    } else {
      int b = X_loadi(base + innerOffset(0));
      for (uint j = 1; j < p.innerCount; ++j) {
        int v = X_loadi(base + innerOffset(j));
        if (OP == OP_ARG_MAX ? v > b : v < b) { b = v; best = int(j); }
      }
    }
    Y_storei(i, best);
    return;
  }
  if (!isFloatType(DT_IN)) {
    int acc = OP == OP_PRODUCT ? 1 : (OP == OP_MAX ? -2147483647 - 1 : (OP == OP_MIN ? 2147483647 : 0));
    for (uint j = 0; j < p.innerCount; ++j) {
      int v = X_loadi(base + innerOffset(j));
      if (OP == OP_MAX) acc = max(acc, v);
      else if (OP == OP_MIN) acc = min(acc, v);
      else if (OP == OP_PRODUCT) acc *= v;
      else if (OP == OP_L1) acc += abs(v);
      else if (OP == OP_SUM_SQUARE || OP == OP_L2) acc += v * v;
      else acc += v;
    }
    if (OP == OP_MEAN) acc = p.innerCount > 0 ? acc / int(p.innerCount) : 0;
    if (OP == OP_L2) acc = int(sqrt(float(acc)));
    Y_storei(i, acc);
    return;
  }
  // GLSL has no double exp/log: the float64 variant's factory refuses
  // reduceLogSum and reduceLogSumExp.
  float m = -1.0 / 0.0;
  if (OP == OP_LOG_SUM_EXP)
    for (uint j = 0; j < p.innerCount; ++j) m = max(m, float(LOAD_REAL(X, DT_IN, base + innerOffset(j))));
  REAL acc = OP == OP_PRODUCT ? 1.0 : (OP == OP_MAX ? -1.0 / 0.0 : (OP == OP_MIN ? 1.0 / 0.0 : 0.0));
  for (uint j = 0; j < p.innerCount; ++j) {
    REAL v = LOAD_REAL(X, DT_IN, base + innerOffset(j));
    if (OP == OP_MAX) acc = max(acc, v);
    else if (OP == OP_MIN) acc = min(acc, v);
    else if (OP == OP_PRODUCT) acc *= v;
    else if (OP == OP_L1) acc += abs(v);
    else if (OP == OP_L2 || OP == OP_SUM_SQUARE) acc += v * v;
    else if (OP == OP_LOG_SUM_EXP) acc += exp(float(v) - m);
    else acc += v;
  }
  if (OP == OP_MEAN) acc = acc / REAL(p.innerCount);
  else if (OP == OP_L2) acc = sqrt(acc);
  else if (OP == OP_LOG_SUM) acc = log(float(acc));
  else if (OP == OP_LOG_SUM_EXP) acc = isinf(m) ? m : m + log(float(acc));
  STORE_REAL(Y, DT_OUT, i, acc)
}
