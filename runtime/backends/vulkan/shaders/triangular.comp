// triangular: keeps the upper (j - i >= diagonal) or lower (j - i <=
// diagonal) triangle of the last two dims and zeroes the rest (zero is the
// all-zero bit pattern in every type).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int ELEM_BYTES = 4;
layout(constant_id = 2) const bool UPPER = true;

TENSOR_DECL(0, X, readonly)
TENSOR_DECL(1, Y, )

layout(push_constant) uniform Params {
  uint count, rows, cols;
  int diagonal;
  // 0.0 as a run-time value: a float16 literal would need the Float16
  // capability, which storage access alone does not give.
  float zero;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  int col = int(i % p.cols), row = int((i / p.cols) % p.rows);
  bool keep = UPPER ? col - row >= p.diagonal : col - row <= p.diagonal;
  if (ELEM_BYTES == 4) {
    Y_u32[i] = keep ? X_u32[i] : 0u;
  } else if (ELEM_BYTES == 8) {
    Y_u32[2 * i] = keep ? X_u32[2 * i] : 0u;
    Y_u32[2 * i + 1] = keep ? X_u32[2 * i + 1] : 0u;
  } else if (ELEM_BYTES == 2) {
    if (keep) Y_f16[i] = X_f16[i];
    else Y_f16[i] = float16_t(p.zero);
  } else {
    if (keep) Y_u8[i] = X_u8[i];
    else Y_u8[i] = uint8_t(0u);
  }
}
