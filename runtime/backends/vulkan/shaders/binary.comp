// Elementwise binary ops with WebNN (numpy) broadcasting: output element i
// is decomposed over the output dims, each input indexed through its own
// strides (0 on broadcast dims). Ranks up to 6 (smaller ranks are padded
// with leading 1s by the host).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT_IN = DT_F32;
layout(constant_id = 2) const int DT_OUT = DT_F32;
layout(constant_id = 3) const int OP = 0;
// Set when neither operand needs the output index decomposed over the dims:
// each is the output's shape (read at i) or one element (read at 0).
layout(constant_id = 4) const bool FLAT = false;

#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_MAX 4
#define OP_MIN 5
#define OP_POW 6
#define OP_EQUAL 7
#define OP_GREATER 8
#define OP_GREATER_OR_EQUAL 9
#define OP_LESSER 10
#define OP_LESSER_OR_EQUAL 11
#define OP_NOT_EQUAL 12
#define OP_LOGICAL_AND 13
#define OP_LOGICAL_OR 14
#define OP_LOGICAL_XOR 15
#define OP_PRELU 16

TENSOR_IN(0, A, DT_IN)
TENSOR_IN(1, B, DT_IN)
TENSOR_OUT(2, C, DT_OUT)

layout(push_constant) uniform Params {
  uint count;
  uint dims[6];
  uint aStride[6];
  uint bStride[6];
} p;

bool compare(REAL a, REAL b) {
  if (OP == OP_EQUAL) return a == b;
  if (OP == OP_GREATER) return a > b;
  if (OP == OP_GREATER_OR_EQUAL) return a >= b;
  if (OP == OP_LESSER) return a < b;
  if (OP == OP_LESSER_OR_EQUAL) return a <= b;
  if (OP == OP_NOT_EQUAL) return a != b;
  if (OP == OP_LOGICAL_AND) return a != 0.0 && b != 0.0;
  if (OP == OP_LOGICAL_OR) return a != 0.0 || b != 0.0;
  return (a != 0.0) != (b != 0.0);
}

bool comparei(int a, int b) {
  if (OP == OP_EQUAL) return a == b;
  if (OP == OP_GREATER) return a > b;
  if (OP == OP_GREATER_OR_EQUAL) return a >= b;
  if (OP == OP_LESSER) return a < b;
  if (OP == OP_LESSER_OR_EQUAL) return a <= b;
  if (OP == OP_NOT_EQUAL) return a != b;
  if (OP == OP_LOGICAL_AND) return a != 0 && b != 0;
  if (OP == OP_LOGICAL_OR) return a != 0 || b != 0;
  return (a != 0) != (b != 0);
}

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint ia = 0, ib = 0;
  if (FLAT) {
    // aStride[5] / bStride[5]: 1 for an operand of the output's shape, 0
    // for a single element.
    ia = i * p.aStride[5];
    ib = i * p.bStride[5];
  } else {
    uint rest = i;
    for (int d = 5; d >= 0; --d) {
      uint idx = rest % p.dims[d];
      rest /= p.dims[d];
      ia += idx * p.aStride[d];
      ib += idx * p.bStride[d];
    }
  }
  if (isFloatType(DT_IN)) {
    REAL a = LOAD_REAL(A, DT_IN, ia), b = LOAD_REAL(B, DT_IN, ib);
    if (OP >= OP_EQUAL && OP <= OP_LOGICAL_XOR) { C_storei(i, compare(a, b) ? 1 : 0); return; }
    REAL r;
    if (OP == OP_ADD) r = a + b;
    else if (OP == OP_SUB) r = a - b;
    else if (OP == OP_MUL) r = a * b;
    else if (OP == OP_DIV) r = a / b;
    else if (OP == OP_MAX) r = max(a, b);
    else if (OP == OP_MIN) r = min(a, b);
    else if (OP == OP_PRELU) r = a >= 0.0 ? a : a * b;
    else {
      // pow: GLSL's pow is undefined for a < 0; WebNN follows C's pow,
      // which is defined there for integral exponents. GLSL has no double
      // pow: the float64 variant's factory refuses pow.
      float fa = float(a), fb = float(b);
      if (fa < 0.0 && fb == floor(fb)) {
        float m = pow(-fa, fb);
        r = mod(abs(fb), 2.0) == 1.0 ? -m : m;
      } else if (fa == 0.0 && fb == 0.0) {
        r = 1.0;
      } else {
        r = pow(fa, fb);
      }
    }
    STORE_REAL(C, DT_OUT, i, r)
  } else {
    int a = A_loadi(ia), b = B_loadi(ib);
    if (OP >= OP_EQUAL && OP <= OP_LOGICAL_XOR) { C_storei(i, comparei(a, b) ? 1 : 0); return; }
    bool u = DT_IN == DT_U32 || DT_IN == DT_U64 || DT_IN == DT_U8;
    int r;
    if (OP == OP_ADD) r = a + b;
    else if (OP == OP_SUB) r = a - b;
    else if (OP == OP_MUL) r = a * b;
    else if (OP == OP_DIV) r = b == 0 ? 0 : (u ? int(uint(a) / uint(b)) : a / b);
    else if (OP == OP_MAX) r = u ? int(max(uint(a), uint(b))) : max(a, b);
    else if (OP == OP_MIN) r = u ? int(min(uint(a), uint(b))) : min(a, b);
    else if (OP == OP_PRELU) r = a >= 0 ? a : a * b;
    else {
      r = 1;
      for (int k = 0; k < b && k < 64; ++k) r *= a;
    }
    C_storei(i, r);
  }
}
