// ONNX Runtime's com.microsoft contrib ops that decoder LLMs exported by
// onnxruntime-genai / Olive use, plus their default-domain cousins
// (SimplifiedLayerNormalization, opset-23 RMSNormalization). Each becomes one
// of the LLM ops of docs/LLM.md; semantics follow docs/ContribOperators.md in
// microsoft/onnxruntime. Options ORT has but these ops do not model are
// rejected by name rather than ignored.
#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNShapeUtils.h"

namespace mlir::webnn::onnx_import {
namespace {

constexpr const char *kMs = "com.microsoft";

// All results of one webnn op (the NodeConverter helpers return the first).
FailureOr<SmallVector<Value>> buildAll(NodeConverter &c, StringRef name, ArrayRef<Value> operands,
                                       ArrayRef<NamedAttribute> attrs) {
  return c.graphImporter().graph().addOp(name, operands, attrs, c.loc());
}

LogicalResult rejectInputs(NodeConverter &c, size_t from, StringRef why) {
  for (size_t i = from; i < c.numInputs(); ++i)
    if (c.hasInput(i))
      return c.fail("input " + Twine(i) + " ('" + c.node().input(i) + "') is not supported: " + why);
  return success();
}

// ------------------------------------------------------------- MatMulNBits
// Y = A x dequant(B)^T: B (N, k_blocks, blob_size) uint8, scales (N, k_blocks)
// or flat, zero_points packed uint8 or of A's type, g_idx rejected, bias [N].
LogicalResult convertMatMulNBits(NodeConverter &c) {
  FailureOr<Value> a = c.requiredInput(0), b = c.requiredInput(1), scales = c.requiredInput(2);
  if (failed(a) || failed(b) || failed(scales)) return failure();
  if (c.hasInput(4)) return c.fail("g_idx (act-order group indices) is not supported");
  if (failed(rejectInputs(c, 6, "MatMulNBits has 6 inputs"))) return failure();
  if (c.intAttr("weight_prepacked", 0) != 0)
    return c.fail("weight_prepacked (an execution-provider layout) is not supported");
  int64_t K = c.intAttr("K", -1), N = c.intAttr("N", -1), bits = c.intAttr("bits", 4);
  int64_t blockSize = c.intAttr("block_size", -1);
  if (K < 1 || N < 1 || blockSize < 1) return c.fail("attributes K, N and block_size are required");
  int64_t kBlocks = (K + blockSize - 1) / blockSize, blob = blockSize * bits / 8;
  // Older exporters store B as (N, k_blocks * blob_size): same bytes.
  Value weight = *b;
  if (NodeConverter::shapeOf(weight) != ArrayRef<int64_t>{N, kBlocks, blob} &&
      elementCount(NodeConverter::shapeOf(weight)) == N * kBlocks * blob)
    weight = c.emitReshape(weight, {N, kBlocks, blob});
  SmallVector<NamedAttribute> attrs{c.i64Attr("K", K), c.i64Attr("N", N),
                                    c.i64Attr("blockSize", blockSize), c.i64Attr("bits", bits),
                                    c.i64Attr("accuracyLevel", c.intAttr("accuracy_level", 0))};
  Value y = c.emit("matmulNBits", {*a, weight, *scales, c.input(3), c.input(5)}, attrs);
  return c.done(y);
}

// Fits `scale` to `shape` (the normalized dimensions): same element count ->
// reshape, fewer (broadcast) -> expand.
Value fitTo(NodeConverter &c, Value v, ArrayRef<int64_t> shape) {
  if (!v || NodeConverter::shapeOf(v) == shape) return v;
  if (elementCount(NodeConverter::shapeOf(v)) == elementCount(shape)) return c.emitReshape(v, shape);
  return c.emit("expand", {v}, {c.i64ArrayAttr("newShape", shape)});
}

// --------------------------------------- SimplifiedLayerNormalization / RMSNormalization
// Y = X / sqrt(mean(X^2 over [axis, rank)) + epsilon) * scale; output 1 of
// SimplifiedLayerNormalization is inv_std_var. stash_type 1 (float32) is what
// the kernels do for every input type.
LogicalResult convertRmsNorm(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), scale = c.requiredInput(1);
  if (failed(x) || failed(scale)) return failure();
  if (failed(rejectInputs(c, 2, "the bias input of LayerNormalization has no RMS form")))
    return failure();
  if (c.intAttr("stash_type", 1) != 1) return c.fail("stash_type other than 1 (float32) is not supported");
  int64_t rank = NodeConverter::rankOf(*x);
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", -1), rank, "axis");
  if (failed(axis)) return failure();
  SmallVector<int64_t> normShape(NodeConverter::shapeOf(*x).drop_front(*axis));
  Value s = fitTo(c, *scale, normShape);
  if (c.emitFailed()) return failure();
  FailureOr<SmallVector<Value>> r = buildAll(
      c, "rmsNormalization", {*x, s},
      {c.i64Attr("axis", *axis), c.f64Attr("epsilon", c.floatAttr("epsilon", 1e-5f))});
  if (failed(r)) return failure();
  if (c.outputUsed(1)) c.setOutput(1, (*r)[1]);
  if (failed(c.rejectExtraOutputs(2, "RMS normalization has output and inv_std_var only")))
    return failure();
  return c.done((*r)[0]);
}

// -------------------------------------------- SkipSimplifiedLayerNormalization
LogicalResult convertSkipRmsNorm(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), skip = c.requiredInput(1), gamma = c.requiredInput(2);
  if (failed(x) || failed(skip) || failed(gamma)) return failure();
  if (failed(rejectInputs(c, 4, "SkipSimplifiedLayerNormalization has 4 inputs"))) return failure();
  if (c.outputUsed(1)) return c.fail("output 1 (mean) is not produced by an RMS normalization");
  int64_t hidden = NodeConverter::shapeOf(*x).back();
  Value g = fitTo(c, *gamma, {hidden}), bias = fitTo(c, c.input(3), {hidden});
  if (c.emitFailed()) return failure();
  FailureOr<SmallVector<Value>> r =
      buildAll(c, "skipRmsNormalization", {*x, *skip, g, bias},
               {c.f64Attr("epsilon", c.floatAttr("epsilon", 1e-12f))});
  if (failed(r)) return failure();
  if (c.outputUsed(2)) c.setOutput(2, (*r)[1]);
  if (c.outputUsed(3)) c.setOutput(3, (*r)[2]);
  return c.done((*r)[0]);
}

// ---------------------------------------------------------- RotaryEmbedding
LogicalResult convertRotaryEmbedding(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), pos = c.requiredInput(1), cosC = c.requiredInput(2),
                   sinC = c.requiredInput(3);
  if (failed(x) || failed(pos) || failed(cosC) || failed(sinC)) return failure();
  if (c.intAttr("is_packed_batching", 0) != 0) return c.fail("is_packed_batching is not supported");
  if (c.floatAttr("scale", 1.f) != 1.f) return c.fail("scale other than 1.0 is not supported");
  SmallVector<NamedAttribute> attrs{c.boolAttr("interleaved", c.intAttr("interleaved", 0) != 0)};
  if (int64_t n = c.intAttr("num_heads", 0)) attrs.push_back(c.i64Attr("numHeads", n));
  if (int64_t d = c.intAttr("rotary_embedding_dim", 0)) attrs.push_back(c.i64Attr("rotaryEmbeddingDim", d));
  return c.done(c.emit("rotaryEmbedding", {*x, *pos, *cosC, *sinC}, attrs));
}

// ONNX opset-23 RotaryEmbedding: (X, cos_cache, sin_cache, position_ids?),
// the contrib op's math with the inputs reordered. Without position_ids the
// caches are per token, (B, S, rotary_dim / 2): they become a (B*S, .) table
// read at the constant positions b * S + s.
LogicalResult convertRotaryEmbedding23(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), cosC = c.requiredInput(1), sinC = c.requiredInput(2);
  if (failed(x) || failed(cosC) || failed(sinC)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  if (rank != 3 && rank != 4) return c.fail("X must be 3-D (B, S, hidden) or 4-D (B, N, S, H)");
  SmallVector<NamedAttribute> attrs{c.boolAttr("interleaved", c.intAttr("interleaved", 0) != 0)};
  if (int64_t n = c.intAttr("num_heads", 0)) attrs.push_back(c.i64Attr("numHeads", n));
  if (int64_t d = c.intAttr("rotary_embedding_dim", 0)) attrs.push_back(c.i64Attr("rotaryEmbeddingDim", d));
  Value pos = c.input(3), cosV = *cosC, sinV = *sinC;
  if (!pos) {
    ArrayRef<int64_t> xs = NodeConverter::shapeOf(*x);
    int64_t B = xs[0], S = rank == 3 ? xs[1] : xs[2];
    ArrayRef<int64_t> cs = NodeConverter::shapeOf(cosV);
    if (cs.size() != 3 || cs[0] != B || cs[1] != S)
      return c.fail("without position_ids, cos_cache/sin_cache must be (batch, sequence, rotary_dim / 2)");
    SmallVector<int64_t> iota;
    for (int64_t i = 0; i < B * S; ++i) iota.push_back(i);
    pos = c.constantI64(iota, {B, S});
    cosV = c.emitReshape(cosV, {B * S, cs[2]});
    sinV = c.emitReshape(sinV, {B * S, cs[2]});
  }
  return c.done(c.emit("rotaryEmbedding", {*x, pos, cosV, sinV}, attrs));
}

// ------------------------------------------------------ GroupQueryAttention
LogicalResult convertGroupQueryAttention(NodeConverter &c) {
  FailureOr<Value> q = c.requiredInput(0), seqlens = c.requiredInput(5);
  if (failed(q) || failed(seqlens)) return failure();
  // With a dynamic sequence length total_sequence_length is a run-time shape
  // value; the op does without it (seqlens_k gives every cached length).
  Value totalV;
  if (!c.isShapeValueInput(6)) {
    FailureOr<Value> total = c.requiredInput(6);
    if (failed(total)) return failure();
    totalV = *total;
  }
  if (!c.hasInput(3) || !c.hasInput(4))
    return c.fail("past_key and past_value are required (a zero-length past is a [B, kv_num_heads, 0, D] input)");
  static const char *const kExtra[] = {"position_ids", "attention_bias", "head_sink", "k_scale",
                                       "v_scale", "q_norm_weight", "k_norm_weight"};
  for (size_t i = 9; i < c.numInputs(); ++i)
    if (c.hasInput(i))
      return c.fail(Twine("input '") + (i - 9 < 7 ? kExtra[i - 9] : "?") + "' is not supported");
  if (c.intAttr("causal", 1) != 1) return c.fail("causal = 0 (bidirectional) is not supported");
  if (c.intAttr("smooth_softmax", 0) != 0) return c.fail("smooth_softmax is not supported");
  if (c.intAttr("sliding_window_cache", 0) != 0) return c.fail("sliding_window_cache is not supported");
  if (c.intAttr("qk_output", 0) != 0 || c.outputUsed(3)) return c.fail("output_qk is not supported");
  for (const char *a : {"k_quant_type", "v_quant_type"})
    if (c.stringAttr(a, "NONE") != "NONE") return c.fail(Twine(a) + " (quantized KV cache) is not supported");
  SmallVector<NamedAttribute> attrs{
      c.i64Attr("numHeads", c.intAttr("num_heads", 0)),
      c.i64Attr("kvNumHeads", c.intAttr("kv_num_heads", 0)),
      c.i64Attr("localWindowSize", c.intAttr("local_window_size", -1)),
      c.boolAttr("doRotary", c.intAttr("do_rotary", 0) != 0),
      c.boolAttr("rotaryInterleaved", c.intAttr("rotary_interleaved", 0) != 0)};
  if (float s = c.floatAttr("scale", 0.f); s != 0.f) attrs.push_back(c.f64Attr("scale", s));
  if (float s = c.floatAttr("softcap", 0.f); s != 0.f) attrs.push_back(c.f64Attr("softcap", s));
  // total_sequence_length is a scalar int32 (genai: Gather of a Shape, Cast).
  if (totalV && NodeConverter::rankOf(totalV) != 0 && elementCount(NodeConverter::shapeOf(totalV)) == 1)
    totalV = c.emitReshape(totalV, {});
  bool rotary = c.intAttr("do_rotary", 0) != 0;
  FailureOr<SmallVector<Value>> r = buildAll(
      c, "groupQueryAttention",
      {*q, c.input(1), c.input(2), c.input(3), c.input(4), *seqlens, totalV,
       rotary ? c.input(7) : Value(), rotary ? c.input(8) : Value()},
      attrs);
  if (failed(r)) return failure();
  if (c.outputUsed(1)) c.setOutput(1, (*r)[1]);
  if (c.outputUsed(2)) c.setOutput(2, (*r)[2]);
  return c.done((*r)[0]);
}

}  // namespace

void populateComMicrosoftDomain(OpConverterTable &t) {
  t.add(kMs, "MatMulNBits", 1, convertMatMulNBits);
  t.add(kMs, "SimplifiedLayerNormalization", 1, convertRmsNorm);
  t.add("", "SimplifiedLayerNormalization", 1, convertRmsNorm);  // ORT registers it in ai.onnx
  t.add("", "RMSNormalization", 23, convertRmsNorm);
  t.add(kMs, "SkipSimplifiedLayerNormalization", 1, convertSkipRmsNorm);
  t.add(kMs, "RotaryEmbedding", 1, convertRotaryEmbedding);
  t.add("", "RotaryEmbedding", 23, convertRotaryEmbedding23);
  t.add(kMs, "GroupQueryAttention", 1, convertGroupQueryAttention);
}

}  // namespace mlir::webnn::onnx_import
