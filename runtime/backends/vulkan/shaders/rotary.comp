// rotaryEmbedding (ONNX Runtime's RotaryEmbedding): one invocation per
// element of x, [B, S, heads * D] or BNSH [B, heads, S, D]. Features below
// `rot` of each head turn with their partner by the angle of the token's
// position (positionIds [B, S], or one start position counting up along S);
// the rest are copied.
#version 450
#include "common.glsl"
#include "llm.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int DT_CACHE = DT_F32;
layout(constant_id = 3) const int DT_POS = DT_I64;
layout(constant_id = 4) const bool BNSH = false;
layout(constant_id = 5) const bool INTERLEAVED = false;
layout(constant_id = 6) const bool SCALAR_POSITION = false;

TENSOR_IN(0, X, DT)
INDEX_IN(1, Pos, DT_POS)
TENSOR_IN(2, Cos, DT_CACHE)
TENSOR_IN(3, Sin, DT_CACHE)
TENSOR_OUT(4, Y, DT)

layout(push_constant) uniform Params {
  uint count, S, H, D, rot, maxSeq;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.count) return;
  uint d = i % p.D, s, b;
  if (BNSH) {
    s = (i / p.D) % p.S;
    b = i / (p.D * p.S * p.H);
  } else {
    s = (i / (p.D * p.H)) % p.S;
    b = i / (p.D * p.H * p.S);
  }
  float x = X_loadf(i);
  if (d < p.rot) {
    int pos = SCALAR_POSITION ? Pos_loadIndex(0) + int(s) : Pos_loadIndex(b * p.S + s);
    RotaryPair r = rotaryPair(d, p.rot, INTERLEAVED);
    uint c = clampPosition(pos, p.maxSeq) * (p.rot / 2u) + r.angle;
    x = rotaryValue(r, x, X_loadf(i - d + r.partner), Cos_loadf(c), Sin_loadf(c));
  }
  Y_storef(i, x);
}
