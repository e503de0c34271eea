// where(condition, trueValue, falseValue) with broadcasting of all three:
// each operand indexed through its own strides (0 on broadcast dims), the
// chosen value moved as raw bits (ELEM_BYTES).
#version 450
#include "common.glsl"

layout(constant_id = 1) const int ELEM_BYTES = 4;
layout(constant_id = 2) const int DT_COND = DT_U8;

TENSOR_IN(0, Cond, DT_COND)
TENSOR_DECL(1, T, readonly)
TENSOR_DECL(2, F, readonly)
TENSOR_DECL(3, Y, )

layout(push_constant) uniform Params {
  uint count;
  uint dims[6];
  uint cStride[6];
  uint tStride[6];
  uint fStride[6];
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint ic = 0, it = 0, iff = 0, rest = i;
  for (int d = 5; d >= 0; --d) {
    uint idx = rest % p.dims[d];
    rest /= p.dims[d];
    ic += idx * p.cStride[d];
    it += idx * p.tStride[d];
    iff += idx * p.fStride[d];
  }
  // The chosen index, not the chosen value: a select on float16 values
  // would need the Float16 capability, which storage access does not give.
  bool c = Cond_loadi(ic) != 0;
  if (ELEM_BYTES == 4) {
    Y_u32[i] = c ? T_u32[it] : F_u32[iff];
  } else if (ELEM_BYTES == 2) {
    if (c) Y_f16[i] = T_f16[it];
    else Y_f16[i] = F_f16[iff];
  } else if (ELEM_BYTES == 1) {
    if (c) Y_u8[i] = T_u8[it];
    else Y_u8[i] = F_u8[iff];
  } else {
    Y_u32[2 * i] = c ? T_u32[2 * it] : F_u32[2 * iff];
    Y_u32[2 * i + 1] = c ? T_u32[2 * it + 1] : F_u32[2 * iff + 1];
  }
}
