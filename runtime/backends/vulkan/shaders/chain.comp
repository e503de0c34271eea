// A chain of float32 elementwise ops in one pass (ChainFusion.cpp): v starts
// as input 0, and each step applies a unary op to v or a binary op to v and
// another input, read through its own broadcast; only the last value is
// stored. The steps are specialization constants, so a chain compiles to
// straight-line code with no per-element branching on the op.
#version 450
#include "common.glsl"
#include "elementwise.glsl"

#define MAX_STEPS 8
#define MAX_INPUTS 5

layout(constant_id = 1) const int NUM_STEPS = 1;
// Per step: the op code (elementwise.glsl) and its argument: the other
// input's index, plus 8 when v is the right-hand operand.
layout(constant_id = 2) const int OP0 = 0;
layout(constant_id = 3) const int OP1 = 0;
layout(constant_id = 4) const int OP2 = 0;
layout(constant_id = 5) const int OP3 = 0;
layout(constant_id = 6) const int OP4 = 0;
layout(constant_id = 7) const int OP5 = 0;
layout(constant_id = 8) const int OP6 = 0;
layout(constant_id = 9) const int OP7 = 0;
layout(constant_id = 10) const int ARG0 = 0;
layout(constant_id = 11) const int ARG1 = 0;
layout(constant_id = 12) const int ARG2 = 0;
layout(constant_id = 13) const int ARG3 = 0;
layout(constant_id = 14) const int ARG4 = 0;
layout(constant_id = 15) const int ARG5 = 0;
layout(constant_id = 16) const int ARG6 = 0;
layout(constant_id = 17) const int ARG7 = 0;

// Per input: how it is read. 0 unused, 1 one element (every invocation
// reads element 0), 2 the output's shape (element i), 3 broadcast over some
// dims (the index decomposed over the dims).
layout(constant_id = 18) const int KIND0 = 2;
layout(constant_id = 19) const int KIND1 = 0;
layout(constant_id = 20) const int KIND2 = 0;
layout(constant_id = 21) const int KIND3 = 0;
layout(constant_id = 22) const int KIND4 = 0;

layout(set = 0, binding = 0) readonly buffer In0 { float in0[]; };
layout(set = 0, binding = 1) readonly buffer In1 { float in1[]; };
layout(set = 0, binding = 2) readonly buffer In2 { float in2[]; };
layout(set = 0, binding = 3) readonly buffer In3 { float in3[]; };
layout(set = 0, binding = 4) readonly buffer In4 { float in4[]; };
layout(set = 0, binding = 5) writeonly buffer Out { float y[]; };

layout(push_constant) uniform Params {
  uint count;
  uint dims[6];
  // Bit 6 * k + d: input k walks dim d (else broadcast over it); its
  // strides are those of a dense tensor over the dims it walks.
  uint walks;
  float alpha[MAX_STEPS];
  float beta[MAX_STEPS];
} p;

float load(int k, uint off[MAX_INPUTS]) {
  if (k == 0) return in0[off[0]];
  if (k == 1) return in1[off[1]];
  if (k == 2) return in2[off[2]];
  if (k == 3) return in3[off[3]];
  return in4[off[4]];
}

float apply(int op, int arg, int step, float v, uint off[MAX_INPUTS]) {
  if (op < CHAIN_BINARY) return unaryf(op, v, p.alpha[step], p.beta[step]);
  float other = load(arg & 7, off);
  return arg >= 8 ? binaryf(op - CHAIN_BINARY, other, v) : binaryf(op - CHAIN_BINARY, v, other);
}

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  const int kinds[MAX_INPUTS] = int[](KIND0, KIND1, KIND2, KIND3, KIND4);
  uint off[MAX_INPUTS];
  for (int k = 0; k < MAX_INPUTS; ++k) off[k] = kinds[k] == 2 ? i : 0;
  if (KIND0 == 3 || KIND1 == 3 || KIND2 == 3 || KIND3 == 3 || KIND4 == 3) {
    uint stride[MAX_INPUTS] = uint[](1, 1, 1, 1, 1);
    uint rest = i;
    for (int d = 5; d >= 0; --d) {
      uint n = p.dims[d], idx = rest % n;
      rest /= n;
      for (int k = 0; k < MAX_INPUTS; ++k) {
        if (kinds[k] == 3 && (p.walks & (1u << uint(6 * k + d))) != 0u) {
          off[k] += idx * stride[k];
          stride[k] *= n;
        }
      }
    }
  }
  float v = in0[off[0]];
  if (NUM_STEPS > 0) v = apply(OP0, ARG0, 0, v, off);
  if (NUM_STEPS > 1) v = apply(OP1, ARG1, 1, v, off);
  if (NUM_STEPS > 2) v = apply(OP2, ARG2, 2, v, off);
  if (NUM_STEPS > 3) v = apply(OP3, ARG3, 3, v, off);
  if (NUM_STEPS > 4) v = apply(OP4, ARG4, 4, v, off);
  if (NUM_STEPS > 5) v = apply(OP5, ARG5, 5, v, off);
  if (NUM_STEPS > 6) v = apply(OP6, ARG6, 6, v, off);
  if (NUM_STEPS > 7) v = apply(OP7, ARG7, 7, v, off);
  y[i] = v;
}
