// Shared by the decoder-LLM shaders (rotary.comp, gqa_present.comp,
// attention.comp): ONNX Runtime's rotary embedding and the KV-cache
// position rule of GroupQueryAttention, as the CPU kernels apply them.

// Rotary embedding of feature d < rot of one head: it pairs with another
// feature of the head (d ^ 1 when interleaved, d +- rot / 2 otherwise) at
// angle index i of the cos/sin row; the first of a pair gets x*c - y*s, the
// second x*c + y*s.
struct RotaryPair {
  uint partner, angle;
  bool first;
};
RotaryPair rotaryPair(uint d, uint rot, bool interleaved) {
  RotaryPair r;
  uint half_ = rot / 2u;
  r.first = interleaved ? (d & 1u) == 0u : d < half_;
  r.partner = interleaved ? d ^ 1u : (r.first ? d + half_ : d - half_);
  r.angle = interleaved ? d / 2u : (r.first ? d : d - half_);
  return r;
}
float rotaryValue(RotaryPair r, float x, float partner, float c, float s) {
  return r.first ? x * c - partner * s : x * c + partner * s;
}
// Positions outside the caches read the nearest row (the CPU kernel's rule;
// ONNX Runtime fails the run).
uint clampPosition(int pos, uint maxSeq) { return uint(clamp(pos, 0, int(maxSeq) - 1)); }

// Cached positions of batch entry b before this step's S new rows: 0 for a
// first prompt (S == totalSequenceLength), else seqlensK[b] + 1 - S, within
// what the past holds and the present has room for.
uint gqaPastLength(int seqlen, bool hasTotal, int total, uint S, uint P, uint T) {
  int past = (hasTotal && int(S) == total) ? 0 : seqlen + 1 - int(S);
  return uint(clamp(past, 0, int(min(P, T - S))));
}
