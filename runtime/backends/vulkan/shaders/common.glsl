// Shared by every compute shader: tensor bindings readable and writable in
// any WebNN data type, chosen by a specialization constant so one SPIR-V
// module serves every type (webnn::DataType values). Each binding is
// declared once per storage type (aliases of one buffer range); only the
// alias the constant picks is touched, and the driver drops the others.
// Arithmetic is in float32 for float types (float16 is widened on load and
// rounded once on store) and in int32 for integer types; int64/uint64 use
// their low 32 bits (WebNN's int64 tensors on the GPU are indices and
// shapes), written back sign- or zero-extended.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#define DT_F32 0
#define DT_F16 1
#define DT_I32 2
#define DT_U32 3
#define DT_I64 4
#define DT_U64 5
#define DT_I8 6
#define DT_U8 7
#define DT_F64 10

layout(local_size_x_id = 0) in;

// float64 as two uint words (low, high), converted with integer arithmetic
// so no shader needs the Float64 capability: f64ToF32 rounds to nearest
// even (overflow to infinity, underflow through float subnormals to zero),
// f32ToF64 is exact. Only cast reads or writes float64 this way.
// RNE((hi, lo) >> s) for a significand below 2^53 and s >= 29.
uint roundShift64(uint hi, uint lo, uint s) {
  if (s >= 64u) return 0u;
  uint q;
  bool above, tie;
  if (s < 32u) {
    q = (hi << (32u - s)) | (lo >> s);
    uint rem = lo & ((1u << s) - 1u), halfway = 1u << (s - 1u);
    above = rem > halfway;
    tie = rem == halfway;
  } else if (s == 32u) {
    q = hi;
    above = lo > 0x80000000u;
    tie = lo == 0x80000000u;
  } else {
    uint t = s - 32u;
    q = hi >> t;
    uint remHi = hi & ((1u << t) - 1u), halfHi = 1u << (t - 1u);
    above = remHi > halfHi || (remHi == halfHi && lo > 0u);
    tie = remHi == halfHi && lo == 0u;
  }
  if (above || (tie && (q & 1u) != 0u)) ++q;
  return q;
}
float f64ToF32(uint lo, uint hi) {
  uint sign = hi & 0x80000000u;
  int e = int((hi >> 20) & 0x7ffu);
  uint mhi = hi & 0xfffffu;
  if (e == 0x7ff) return uintBitsToFloat(sign | ((mhi | lo) != 0u ? 0x7fc00000u : 0x7f800000u));
  if (e == 0) return uintBitsToFloat(sign);  // below every float subnormal
  int fe = e - 1023 + 127;
  if (fe >= 255) return uintBitsToFloat(sign | 0x7f800000u);
  uint sigHi = mhi | 0x100000u;  // the implicit bit: a 53-bit significand
  uint bits = fe >= 1 ? (uint(fe - 1) << 23) + roundShift64(sigHi, lo, 29u) : roundShift64(sigHi, lo, uint(30 - fe));
  return uintBitsToFloat(sign | bits);
}
uvec2 f32ToF64(float v) {  // (low, high)
  uint f = floatBitsToUint(v);
  uint sign = f & 0x80000000u, e = (f >> 23) & 0xffu, m = f & 0x7fffffu;
  if (e == 255u) return uvec2(m << 29, sign | 0x7ff00000u | (m >> 3));
  if (e == 0u) {
    if (m == 0u) return uvec2(0u, sign);
    // A float subnormal is a normal double: move its leading bit to the
    // implicit position.
    int p = findMSB(m);
    m = (m << uint(23 - p)) & 0x7fffffu;
    e = uint(p - 22);  // as a float exponent field: 1 - (23 - p)
    return uvec2(m << 29, sign | (uint(int(e) - 127 + 1023) << 20) | (m >> 3));
  }
  return uvec2(m << 29, sign | ((e - 127u + 1023u) << 20) | (m >> 3));
}

bool isFloatType(int dt) { return dt == DT_F32 || dt == DT_F16 || dt == DT_F64; }

#define TENSOR_DECL(B, NAME, Q)                                                   \
  layout(set = 0, binding = B) Q buffer NAME##F32 { float NAME##_f32[]; };        \
  layout(set = 0, binding = B) Q buffer NAME##F16 { float16_t NAME##_f16[]; };    \
  layout(set = 0, binding = B) Q buffer NAME##U32 { uint NAME##_u32[]; };         \
  layout(set = 0, binding = B) Q buffer NAME##I8 { int8_t NAME##_i8[]; };         \
  layout(set = 0, binding = B) Q buffer NAME##U8 { uint8_t NAME##_u8[]; };

// NAME##_loadf / NAME##_loadi: element i as float / int.
#define TENSOR_IN(B, NAME, DT)                                                    \
  TENSOR_DECL(B, NAME, readonly)                                                  \
  float NAME##_loadf(uint i) {                                                    \
    if (DT == DT_F32) return NAME##_f32[i];                                       \
    if (DT == DT_F16) return float(NAME##_f16[i]);                                \
    if (DT == DT_F64) return f64ToF32(NAME##_u32[2 * i], NAME##_u32[2 * i + 1]);  \
    if (DT == DT_I32) return float(int(NAME##_u32[i]));                           \
    if (DT == DT_U32) return float(NAME##_u32[i]);                                \
    if (DT == DT_I64) return float(int(NAME##_u32[2 * i]));                       \
    if (DT == DT_U64) return float(NAME##_u32[2 * i]);                            \
    if (DT == DT_I8) return float(int(NAME##_i8[i]));                             \
    return float(uint(NAME##_u8[i]));                                             \
  }                                                                               \
  int NAME##_loadi(uint i) {                                                      \
    if (DT == DT_F32) return int(NAME##_f32[i]);                                  \
    if (DT == DT_F16) return int(float(NAME##_f16[i]));                           \
    if (DT == DT_F64) return int(f64ToF32(NAME##_u32[2 * i], NAME##_u32[2 * i + 1])); \
    if (DT == DT_I32 || DT == DT_U32) return int(NAME##_u32[i]);                  \
    if (DT == DT_I64 || DT == DT_U64) return int(NAME##_u32[2 * i]);              \
    if (DT == DT_I8) return int(NAME##_i8[i]);                                    \
    return int(uint(NAME##_u8[i]));                                               \
  }

#define TENSOR_OUT(B, NAME, DT)                                                   \
  TENSOR_DECL(B, NAME, )                                                          \
  void NAME##_storef(uint i, float v) {                                           \
    if (DT == DT_F32) NAME##_f32[i] = v;                                          \
    else if (DT == DT_F16) NAME##_f16[i] = float16_t(v);                          \
    else if (DT == DT_F64) { uvec2 w = f32ToF64(v); NAME##_u32[2 * i] = w.x; NAME##_u32[2 * i + 1] = w.y; } \
    else if (DT == DT_I32) NAME##_u32[i] = uint(int(v));                          \
    else if (DT == DT_U32) NAME##_u32[i] = uint(v);                               \
    else if (DT == DT_I64) { NAME##_u32[2 * i] = uint(int(v)); NAME##_u32[2 * i + 1] = v < 0.0 ? 0xffffffffu : 0u; } \
    else if (DT == DT_U64) { NAME##_u32[2 * i] = uint(v); NAME##_u32[2 * i + 1] = 0u; } \
    else if (DT == DT_I8) NAME##_i8[i] = int8_t(int(v));                          \
    else NAME##_u8[i] = uint8_t(uint(v));                                         \
  }                                                                               \
  void NAME##_storei(uint i, int v) {                                             \
    if (DT == DT_F32) NAME##_f32[i] = float(v);                                   \
    else if (DT == DT_F16) NAME##_f16[i] = float16_t(float(v));                   \
    else if (DT == DT_F64) { uvec2 w = f32ToF64(float(v)); NAME##_u32[2 * i] = w.x; NAME##_u32[2 * i + 1] = w.y; } \
    else if (DT == DT_I32 || DT == DT_U32) NAME##_u32[i] = uint(v);               \
    else if (DT == DT_I64) { NAME##_u32[2 * i] = uint(v); NAME##_u32[2 * i + 1] = v < 0 ? 0xffffffffu : 0u; } \
    else if (DT == DT_U64) { NAME##_u32[2 * i] = uint(v); NAME##_u32[2 * i + 1] = 0u; } \
    else if (DT == DT_I8) NAME##_i8[i] = int8_t(v);                               \
    else NAME##_u8[i] = uint8_t(v);                                               \
  }

// Flat invocation index over a 2-D grid: counts above 65535 groups in x
// spill into y (maxComputeWorkGroupCount[0] may be 65535).
uint flatIndex() {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
}

// erf through the Chebyshev-fitted erfc of Press et al., Numerical Recipes
// 6.2 (fractional error below 1.2e-7): GLSL has no erf, and the short
// Abramowitz-Stegun forms miss WPT's tolerance.
float erfApprox(float x) {
  float ax = abs(x);
  float t = 1.0 / (1.0 + 0.5 * ax);
  float y = 1.0 - t * exp(-ax * ax - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
            t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
            t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0.0 ? y : -y;
}

// x / y as IEEE division rounds it, whatever precision the device's division
// has: the quotient corrected by its fma residual (quantizing rounds the
// quotient to an integer, so one ulp decides ties). An infinite or NaN
// quotient comes back as the division gave it (it has no residual to add).
float ieeeDivide(float x, float y) {
  precise float q0 = x / y;
  precise float r = fma(-q0, y, x);
  precise float q = q0 + r / y;
  return isinf(q0) || isnan(q0) || isnan(q) ? q0 : q;
}

// REAL is the arithmetic type of the shaders built twice (CMakeLists.txt):
// float, or double in their WEBNN_FLOAT64 variants, which read and write
// float64 tensors as doubles (needs shaderFloat64). LOAD_REAL / STORE_REAL
// move element i of a TENSOR_IN / TENSOR_OUT in that type.
#ifdef WEBNN_FLOAT64
#define REAL double
#define LOAD_REAL(NAME, DT, i)                                                    \
  (DT == DT_F64 ? packDouble2x32(uvec2(NAME##_u32[2 * (i)], NAME##_u32[2 * (i) + 1])) : double(NAME##_loadf(i)))
#define STORE_REAL(NAME, DT, i, v)                                                \
  if (DT == DT_F64) {                                                             \
    uvec2 w_ = unpackDouble2x32(v);                                               \
    NAME##_u32[2 * (i)] = w_.x;                                                   \
    NAME##_u32[2 * (i) + 1] = w_.y;                                               \
  } else NAME##_storef(i, float(v));
#else
#define REAL float
#define LOAD_REAL(NAME, DT, i) NAME##_loadf(i)
#define STORE_REAL(NAME, DT, i, v) NAME##_storef(i, v);
#endif

// An index tensor (int32/uint32/int64/uint64/int8/uint8): NAME##_loadIndex
// gives element i saturated to int32, so a 64-bit or uint32 index beyond the
// int32 range stays on its side of the range instead of wrapping (uint64
// keeps its int64 bit pattern, as the CPU kernels read it).
#define INDEX_IN(B, NAME, DT)                                                     \
  TENSOR_IN(B, NAME, DT)                                                          \
  int NAME##_loadIndex(uint i) {                                                  \
    if (DT == DT_U32) return int(min(NAME##_u32[i], 0x7fffffffu));                \
    if (DT == DT_I64 || DT == DT_U64) {                                           \
      uint lo = NAME##_u32[2 * i];                                                \
      int hi = int(NAME##_u32[2 * i + 1]);                                        \
      if (hi > 0 || (hi == 0 && lo > 0x7fffffffu)) return 0x7fffffff;             \
      if (hi < -1 || (hi == -1 && lo < 0x80000000u)) return int(0x80000000u);     \
      return int(lo);                                                             \
    }                                                                             \
    return NAME##_loadi(i);                                                       \
  }

// An index into a dimension of `dim` elements: negative ones count from the
// end when the index type is signed; the rest is clamped to [0, dim - 1], the
// CPU kernels' rule for indices the spec leaves to the implementation.
int resolveIndex(int idx, uint dim, bool signedType) {
  if (signedType && idx < 0) idx += int(dim);
  return clamp(idx, 0, int(dim) - 1);
}
bool isSignedIndexType(int dt) { return dt == DT_I32 || dt == DT_I64 || dt == DT_I8; }

// Moves element `src` of X to element `dst` of Y as raw bits of ELEM_BYTES
// (X and Y declared with TENSOR_DECL).
#define COPY_ELEMENT(Y, dst, X, src)                                              \
  if (ELEM_BYTES == 4) Y##_u32[dst] = X##_u32[src];                               \
  else if (ELEM_BYTES == 2) Y##_f16[dst] = X##_f16[src];                          \
  else if (ELEM_BYTES == 1) Y##_u8[dst] = X##_u8[src];                            \
  else { Y##_u32[2 * (dst)] = X##_u32[2 * (src)]; Y##_u32[2 * (dst) + 1] = X##_u32[2 * (src) + 1]; }
