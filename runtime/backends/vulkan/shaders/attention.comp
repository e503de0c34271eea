// Attention, one workgroup per (batch, head, query row): softmax(scale *
// q . k) over a range of keys, times the values, with an online softmax in
// tiles of one key per invocation: the tile's scores, its max and sum as
// shared-memory trees, then each invocation rescales and accumulates the
// output features it owns (d = lane + k * workgroup size). The query row
// sits in shared memory.
//   groupQueryAttention (CAUSAL): the present cache [B, kvHeads, T, D]
//   written by gqa_present.comp; query head h reads KV head
//   h / (numHeads / kvHeads); the row's keys end at its position
//   (pastLength + s) and start after a local window; the query row is
//   rotated on its way into shared memory (ROTARY).
//   fusedAttention: every key of K and V [B, T, heads * D], read in place
//   by strides (no transposes).
#version 450
#include "common.glsl"
#include "llm.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool PACKED = false;
layout(constant_id = 3) const bool ROTARY = false;
layout(constant_id = 4) const bool INTERLEAVED = false;
layout(constant_id = 5) const bool HAS_TOTAL = false;
layout(constant_id = 6) const bool SOFTCAP = false;
layout(constant_id = 7) const bool CAUSAL = true;

TENSOR_IN(0, Query, DT)
TENSOR_IN(1, Keys, DT)
TENSOR_IN(2, Values, DT)
TENSOR_IN(3, SeqLens, DT_I32)
TENSOR_IN(4, Total, DT_I32)
TENSOR_IN(5, Cos, DT)
TENSOR_IN(6, Sin, DT)
TENSOR_OUT(7, Y, DT)

layout(push_constant) uniform Params {
  uint B, S, P, T, numHeads, kvHeads, D, rot, maxSeq;
  float scale, softcap;
  int window;  // < 0: no local window
  // Key j of KV head kvh in batch b: b * kvBatchStride + kvh * kvHeadStride
  // + j * kvRowStride (elements).
  uint kvBatchStride, kvHeadStride, kvRowStride;
} p;

// Head sizes up to MAX_D: each invocation owns MAX_D / workgroup size
// output features (the kernel asks for 64 invocations).
const uint MAX_D = 256;
const uint OWNED = 4;
shared float q[MAX_D];
shared float tile[gl_WorkGroupSize.x];
shared float partial[gl_WorkGroupSize.x];

// The workgroup's max (IS_MAX) or sum of v; every invocation gets it.
float workgroupReduce(float v, bool isMax) {
  uint lane = gl_LocalInvocationID.x;
  partial[lane] = v;
  barrier();
  for (uint half_ = gl_WorkGroupSize.x / 2; half_ > 0; half_ >>= 1) {
    if (lane < half_) partial[lane] = isMax ? max(partial[lane], partial[lane + half_]) : partial[lane] + partial[lane + half_];
    barrier();
  }
  float r = partial[0];
  barrier();  // before partial is written again
  return r;
}

void main() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint row = flatIndex() / gl_WorkGroupSize.x;
  if (row >= p.B * p.numHeads * p.S) return;
  uint lane = gl_LocalInvocationID.x, n = gl_WorkGroupSize.x;
  uint s = row % p.S, h = (row / p.S) % p.numHeads, b = row / (p.S * p.numHeads);
  uint past = CAUSAL ? gqaPastLength(SeqLens_loadi(b), HAS_TOTAL, HAS_TOTAL ? Total_loadi(0) : 0, p.S, p.P, p.T) : 0;
  int pos = int(past + s);
  uint qStride = PACKED ? (p.numHeads + 2u * p.kvHeads) * p.D : p.numHeads * p.D;
  uint qRow = (b * p.S + s) * qStride + h * p.D;
  for (uint d = lane; d < p.D; d += n) {
    float x = Query_loadf(qRow + d);
    if (ROTARY && d < p.rot) {
      RotaryPair r = rotaryPair(d, p.rot, INTERLEAVED);
      uint c = clampPosition(pos, p.maxSeq) * (p.rot / 2u) + r.angle;
      x = rotaryValue(r, x, Query_loadf(qRow + r.partner), Cos_loadf(c), Sin_loadf(c));
    }
    q[d] = x;
  }
  barrier();
  uint kvBase = b * p.kvBatchStride + (h / (p.numHeads / p.kvHeads)) * p.kvHeadStride;
  // ONNX Runtime keeps the last window + 1 keys.
  int first = CAUSAL && p.window >= 0 ? max(0, pos - p.window) : 0;
  int last = CAUSAL ? min(pos, int(p.T) - 1) : int(p.T) - 1;
  float o[OWNED];
  for (uint r = 0; r < OWNED; ++r) o[r] = 0.0;
  float runMax = -1.0 / 0.0, runSum = 0.0;
  for (int j0 = first; j0 <= last; j0 += int(n)) {
    int j = j0 + int(lane);
    float score = -1.0 / 0.0;
    if (j <= last) {
      uint k = kvBase + uint(j) * p.kvRowStride;
      float dot_ = 0.0;
      for (uint d = 0; d < p.D; ++d) dot_ += q[d] * Keys_loadf(k + d);
      score = dot_ * p.scale;
      if (SOFTCAP) score = p.softcap * tanh(score / p.softcap);
    }
    float newMax = max(runMax, workgroupReduce(score, true));
    float correction = exp(runMax - newMax);
    float prob = j <= last ? exp(score - newMax) : 0.0;
    tile[lane] = prob;
    runSum = runSum * correction + workgroupReduce(prob, false);
    uint count = uint(min(int(n), last + 1 - j0));
    for (uint r = 0; r < OWNED; ++r) {
      uint d = lane + r * n;
      if (d >= p.D) break;
      float acc = o[r] * correction;
      for (uint jj = 0; jj < count; ++jj) acc += tile[jj] * Values_loadf(kvBase + (uint(j0) + jj) * p.kvRowStride + d);
      o[r] = acc;
    }
    runMax = newMax;
    barrier();  // every invocation has read `tile` before the next tile writes it
  }
  float inv = runSum > 0.0 ? 1.0 / runSum : 0.0;
  uint yRow = (b * p.S + s) * p.numHeads * p.D + h * p.D;
  for (uint r = 0; r < OWNED; ++r) {
    uint d = lane + r * n;
    if (d < p.D) Y_storef(yRow + d, o[r] * inv);
  }
}
