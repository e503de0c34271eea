// Elementwise unary ops and cast: one invocation per element. `cast` is the
// identity op with DT_OUT != DT_IN (float -> int truncates toward zero).
#version 450
#include "common.glsl"
#include "elementwise.glsl"

layout(constant_id = 1) const int DT_IN = DT_F32;
layout(constant_id = 2) const int DT_OUT = DT_F32;
layout(constant_id = 3) const int OP = 0;

#define OP_IDENTITY 0
#define OP_ABS 1
#define OP_CEIL 2
#define OP_FLOOR 3
#define OP_EXP 4
#define OP_LOG 5
#define OP_NEG 6
#define OP_RELU 7
#define OP_SIGMOID 8
#define OP_SQRT 9
#define OP_TANH 10
#define OP_ERF 11
#define OP_GELU 12
#define OP_ELU 13
#define OP_HARD_SIGMOID 14
#define OP_HARD_SWISH 15
#define OP_LEAKY_RELU 16
#define OP_LINEAR 17
#define OP_CLAMP 18
#define OP_LOGICAL_NOT 19
#define OP_RECIPROCAL 20
#define OP_SIN 21
#define OP_COS 22
#define OP_SOFTPLUS 23
#define OP_SOFTSIGN 24
#define OP_SIGN 25
#define OP_ROUND_EVEN 26
#define OP_TAN 27
#define OP_IS_NAN 28       // uint8 out
#define OP_IS_INFINITE 29  // uint8 out

TENSOR_IN(0, X, DT_IN)
TENSOR_OUT(1, Y, DT_OUT)

layout(push_constant) uniform Params {
  uint count;
  float alpha;  // elu, hardSigmoid, leakyRelu, linear; clamp's min
  float beta;   // hardSigmoid, linear; clamp's max
  // Integer clamp bounds, saturated to the type by the host, as (low, high)
  // 32-bit words: float bounds cannot hold every int32 or int64.
  uint minLo, minHi, maxLo, maxHi;
} p;

// 64-bit integers as (low, high) words: WebNN's int64 tensors need their
// full range here (abs/neg/relu/clamp), without requiring shaderInt64.
uvec2 neg64(uvec2 v) { return uvec2(~v.x + 1u, ~v.y + (v.x == 0u ? 1u : 0u)); }
bool less64(uvec2 a, uvec2 b, bool signed64) {
  if (a.y != b.y) return signed64 ? int(a.y) < int(b.y) : a.y < b.y;
  return a.x < b.x;
}

// The float ops are elementwise.glsl's, shared with chain.comp.
float applyf(float x) { return unaryf(OP, x, p.alpha, p.beta); }

int applyi(int x) {
  if (OP == OP_ABS) return abs(x);
  if (OP == OP_NEG) return -x;
  if (OP == OP_RELU) return max(x, 0);
  if (OP == OP_CLAMP) {
    if (DT_IN == DT_U32 || DT_IN == DT_U8) return int(clamp(uint(x), p.minLo, p.maxLo));
    return clamp(x, int(p.minLo), int(p.maxLo));
  }
  if (OP == OP_LOGICAL_NOT) return x == 0 ? 1 : 0;
  if (OP == OP_SIGN) return sign(x);
  return x;
}

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  if ((DT_IN == DT_I64 || DT_IN == DT_U64) && DT_OUT == DT_IN &&
      (OP == OP_IDENTITY || OP == OP_ABS || OP == OP_NEG || OP == OP_RELU || OP == OP_CLAMP)) {
    bool signed64 = DT_IN == DT_I64;
    uvec2 v = uvec2(X_u32[2 * i], X_u32[2 * i + 1]);
    bool negative = signed64 && int(v.y) < 0;
    if (OP == OP_ABS && negative) v = neg64(v);
    else if (OP == OP_NEG) v = neg64(v);
    else if (OP == OP_RELU && negative) v = uvec2(0u);
    else if (OP == OP_CLAMP) {
      uvec2 lo = uvec2(p.minLo, p.minHi), hi = uvec2(p.maxLo, p.maxHi);
      if (less64(v, lo, signed64)) v = lo;
      if (less64(hi, v, signed64)) v = hi;
    }
    Y_u32[2 * i] = v.x;
    Y_u32[2 * i + 1] = v.y;
    return;
  }
  if (OP == OP_IS_NAN || OP == OP_IS_INFINITE) {
    float v = X_loadf(i);
    Y_storei(i, (OP == OP_IS_NAN ? isnan(v) : isinf(v)) ? 1 : 0);
    return;
  }
  if (isFloatType(DT_IN)) {
    float v = applyf(X_loadf(i));
    // float -> integer cast truncates toward zero, clamped into the type's
    // range (what the CPU kernel does).
    if (!isFloatType(DT_OUT)) {
      float lo = DT_OUT == DT_I8 ? -128.0 : (DT_OUT == DT_U8 || DT_OUT == DT_U32 || DT_OUT == DT_U64) ? 0.0 : -2147483648.0;
      float hi = DT_OUT == DT_I8 ? 127.0 : DT_OUT == DT_U8 ? 255.0 : (DT_OUT == DT_U32 || DT_OUT == DT_U64) ? 4294967040.0 : 2147483520.0;
      v = isnan(v) ? 0.0 : clamp(trunc(v), lo, hi);
    }
    Y_storef(i, v);
  } else if (OP == OP_IDENTITY || !isFloatType(DT_OUT) || OP == OP_ABS || OP == OP_NEG || OP == OP_RELU ||
             OP == OP_LOGICAL_NOT || OP == OP_SIGN) {
    int v = applyi(X_loadi(i));
    if (isFloatType(DT_OUT) && (DT_IN == DT_U32 || DT_IN == DT_U64)) Y_storef(i, float(uint(v)));
    else Y_storei(i, v);
  } else {
    Y_storef(i, applyf(X_loadf(i)));
  }
}
