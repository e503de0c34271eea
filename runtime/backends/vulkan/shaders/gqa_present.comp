// groupQueryAttention, step 1: the present KV cache [B, kvHeads, T, D]: the
// first pastLength rows of the past, the S new keys (rotated when ROTARY)
// and values after them, zeros beyond. One invocation per (key, value)
// element pair.
#version 450
#include "common.glsl"
#include "llm.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool PACKED = false;
layout(constant_id = 3) const bool ROTARY = false;
layout(constant_id = 4) const bool INTERLEAVED = false;
layout(constant_id = 5) const bool HAS_TOTAL = false;

TENSOR_IN(0, Query, DT)
TENSOR_IN(1, Key, DT)
TENSOR_IN(2, Value, DT)
TENSOR_IN(3, PastK, DT)
TENSOR_IN(4, PastV, DT)
TENSOR_IN(5, SeqLens, DT_I32)
TENSOR_IN(6, Total, DT_I32)
TENSOR_IN(7, Cos, DT)
TENSOR_IN(8, Sin, DT)
TENSOR_OUT(9, PresentK, DT)
TENSOR_OUT(10, PresentV, DT)

layout(push_constant) uniform Params {
  uint B, S, P, T, numHeads, kvHeads, D, rot, maxSeq;
} p;

void main() {
  uint i = flatIndex();
  if (i >= p.B * p.kvHeads * p.T * p.D) return;
  uint d = i % p.D, t = (i / p.D) % p.T, bh = i / (p.D * p.T), h = bh % p.kvHeads, b = bh / p.kvHeads;
  uint past = gqaPastLength(SeqLens_loadi(b), HAS_TOTAL, HAS_TOTAL ? Total_loadi(0) : 0, p.S, p.P, p.T);
  if (t < past) {
    uint src = (bh * p.P + t) * p.D + d;
    PresentK_storef(i, PastK_loadf(src));
    PresentV_storef(i, PastV_loadf(src));
    return;
  }
  if (t >= past + p.S) {
    PresentK_storef(i, 0.0);
    PresentV_storef(i, 0.0);
    return;
  }
  uint s = t - past;
  // Row starts of the new key and value in their [B, S, hidden] tensors (one
  // packed QKV tensor when PACKED).
  uint packedRow = (b * p.S + s) * (p.numHeads + 2u * p.kvHeads) * p.D;
  uint kRow = PACKED ? packedRow + (p.numHeads + h) * p.D : ((b * p.S + s) * p.kvHeads + h) * p.D;
  uint vRow = PACKED ? packedRow + (p.numHeads + p.kvHeads + h) * p.D : kRow;
  float k = PACKED ? Query_loadf(kRow + d) : Key_loadf(kRow + d);
  if (ROTARY && d < p.rot) {
    RotaryPair r = rotaryPair(d, p.rot, INTERLEAVED);
    float partner = PACKED ? Query_loadf(kRow + r.partner) : Key_loadf(kRow + r.partner);
    uint c = clampPosition(int(past + s), p.maxSeq) * (p.rot / 2u) + r.angle;
    k = rotaryValue(r, k, partner, Cos_loadf(c), Sin_loadf(c));
  }
  PresentK_storef(i, k);
  PresentV_storef(i, PACKED ? Query_loadf(vRow + d) : Value_loadf(vRow + d));
}
