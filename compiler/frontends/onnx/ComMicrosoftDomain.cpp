// ONNX Runtime's com.microsoft contrib ops that decoder LLMs exported by
// onnxruntime-genai / Olive use, plus their default-domain cousins
// (SimplifiedLayerNormalization, opset-23 RMSNormalization, RotaryEmbedding
// and Attention). Each becomes one
// of the LLM ops of docs/LLM.md; semantics follow docs/ContribOperators.md in
// microsoft/onnxruntime. Options ORT has but these ops do not model are
// rejected by name rather than ignored.
#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNShapeUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <limits>

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

// --------------------------------------------------- GatherBlockQuantized
// Slices of a block-quantized table (genai's int4 embeddings), dequantized
// after the gather so only the selected slices are touched:
//   y = (q - zero_point) * scale, with one scale (and zero point) per block of
//   block_size values along quantize_axis (the last block may be partial).
// uint8 data follows MatMulNBits' conventions (ONNX Runtime allows it only
// with gather_axis 0 and quantize_axis last): bits 4 packs two values per
// byte along the last axis, low nibble first, with packed zero points, and the
// default zero point is 2^(bits-1). int4/uint4 data (any axes) has the same
// type of zero points and defaults to zero.
//
// No reshape is involved, so the indices may have dynamic dimensions
// (`--dynamic-dim`): nibbles are split with float arithmetic (WebNN has no
// bitwise ops; 0..255 is exact), hi = floor(x / 16), lo = x - 16 hi, the two
// halves are concatenated and interleaved by a gather with constant indices,
// and per-block scales/zero points are spread to every value by a gather
// with the block index of each position.

// [.., P] packed bytes -> [.., 2P] float: lo halves then hi halves.
Value splitNibbles(NodeConverter &c, Value bytes) {
  Type f32 = c.builder().getF32Type();
  Value x = c.emitCast(bytes, f32);
  Value hi = c.emit("floor", {c.emit("div", {x, c.scalar(f32, 16.0)})});
  Value lo = c.emit("sub", {x, c.emit("mul", {hi, c.scalar(f32, 16.0)})});
  if (c.emitFailed()) return Value();
  return c.emit("concat", {lo, hi}, {c.i64Attr("axis", NodeConverter::rankOf(lo) - 1)});
}

Value gatherAlong(NodeConverter &c, Value x, Value indices, int64_t axis) {
  return c.emit("gather", {x, indices}, {c.i64Attr("axis", axis)});
}

// An int4/uint4 table as one int8/uint8 per value: WebNN's gather moves whole
// bytes. A constant is unpacked here (twice its packed size, still a quarter
// of float32); a computed one is cast in the graph.
Value widenInt4(NodeConverter &c, Value v) {
  RankedTensorType t = NodeConverter::typeOf(v);
  const bool isSigned = !t.getElementType().isUnsignedInteger();
  Type byte = isSigned ? IntegerType::get(c.context(), 8)
                       : IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  std::optional<ConstantData> d = getConstantData(v);
  if (!d) return c.emitCast(v, byte);
  const int64_t n = d->numElements();
  // Small constants hold one value per byte (DenseElementsAttr), resources
  // keep ONNX's packing, two per byte, low nibble first.
  const bool packed = !d->splat && int64_t(d->raw.size()) != n;
  std::vector<char> out(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t b = uint8_t(d->raw[d->splat ? 0 : size_t(packed ? i / 2 : i)]);
    uint8_t nib = (packed ? b >> (4 * (i % 2)) : b) & 0xF;
    out[size_t(i)] = char(isSigned && (nib & 0x8) ? nib | 0xF0 : nib);
  }
  auto type = RankedTensorType::get(t.getShape(), byte);
  if (size_t(n) >= c.graphImporter().tensorSource().resourceThresholdBytes && n > 0) {
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(out), alignof(uint64_t));
    return c.constant(DenseResourceElementsAttr::get(type, "gather_block_quantized_table", std::move(blob)));
  }
  return c.constant(DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(out)));
}

LogicalResult convertGatherBlockQuantized(NodeConverter &c) {
  FailureOr<Value> data = c.requiredInput(0), indices = c.requiredInput(1), scales = c.requiredInput(2);
  if (failed(data) || failed(indices) || failed(scales)) return failure();
  if (failed(rejectInputs(c, 4, "GatherBlockQuantized has 4 inputs"))) return failure();
  ArrayRef<int64_t> ds = NodeConverter::shapeOf(*data);
  const int64_t rank = int64_t(ds.size());
  const int64_t bits = c.intAttr("bits", 4), block = c.intAttr("block_size", 128);
  FailureOr<int64_t> gatherAxis = c.normalizeAxis(c.intAttr("gather_axis", 0), rank, "gather_axis");
  FailureOr<int64_t> quantizeAxis = c.normalizeAxis(c.intAttr("quantize_axis", 1), rank, "quantize_axis");
  if (failed(gatherAxis) || failed(quantizeAxis)) return failure();
  const int64_t ga = *gatherAxis, qa = *quantizeAxis;
  Type elem = NodeConverter::typeOf(*data).getElementType();
  const bool packedBytes = elem.isUnsignedInteger(8) && bits == 4;
  if (elem.isUnsignedInteger(8)) {
    if (bits != 4 && bits != 8) return c.fail("bits must be 4 or 8 for uint8 data, got " + Twine(bits));
    if (ga != 0 || qa != rank - 1)
      return c.fail("uint8 data (MatMulNBits packing) needs gather_axis 0 and quantize_axis the last axis, as "
                    "ONNX Runtime does; got gather_axis " + Twine(ga) + ", quantize_axis " + Twine(qa));
  } else if (elem.isInteger(4)) {
    if (bits != 4) return c.fail("bits must be 4 for int4/uint4 data, got " + Twine(bits));
  } else {
    std::string got;
    llvm::raw_string_ostream(got) << elem;
    return c.fail("data must be uint8, int4 or uint4, got " + got);
  }
  if (rank < 1) return c.fail("data must have rank >= 1");
  if (block < 1) return c.fail("block_size must be positive, got " + Twine(block));
  for (int64_t d : ds)
    if (ShapedType::isDynamic(d)) return c.fail("data must have a static shape (it is the quantized table)");
  // Values along the quantize axis, and blocks of them.
  const int64_t values = packedBytes ? 2 * ds[qa] : ds[qa], blocks = (values + block - 1) / block;
  ArrayRef<int64_t> ss = NodeConverter::shapeOf(*scales);
  SmallVector<int64_t> wantScales(ds);
  wantScales[qa] = blocks;
  if (ss != ArrayRef<int64_t>(wantScales))
    return c.fail("scales must have shape " + formatList(wantScales) + " (data's, with ceil(" + Twine(values) +
                  " / block_size " + Twine(block) + ") blocks along quantize_axis), got " + formatList(ss));
  Value zpIn = c.input(3);
  if (zpIn) {
    SmallVector<int64_t> wantZp(wantScales);
    if (packedBytes) wantZp[qa] = (blocks + 1) / 2;
    if (NodeConverter::typeOf(zpIn).getElementType() != elem)
      return c.fail("zero_points must have the data's element type");
    if (NodeConverter::shapeOf(zpIn) != ArrayRef<int64_t>(wantZp))
      return c.fail("zero_points must have shape " + formatList(wantZp) + ", got " +
                    formatList(NodeConverter::shapeOf(zpIn)));
  }
  Type f32 = c.builder().getF32Type(), outType = NodeConverter::typeOf(*scales).getElementType();
  const int64_t indexRank = NodeConverter::rankOf(*indices);
  // The quantize axis in the gathered result.
  const int64_t qOut = qa < ga ? qa : qa + indexRank - 1;

  // Block index of every position along the quantize axis.
  SmallVector<int64_t> blockOf(values);
  for (int64_t v = 0; v < values; ++v) blockOf[size_t(v)] = v / block;
  Value blockIndex = c.constantI64(blockOf, {values});
  // Per-block operand (scales, or unpacked zero points) spread to every value
  // of the gathered result.
  auto perValue = [&](Value table) -> Value {
    if (ga == qa)  // the gathered positions pick their own blocks
      return gatherAlong(c, table, gatherAlong(c, blockIndex, *indices, 0), ga);
    return gatherAlong(c, gatherAlong(c, table, *indices, ga), blockIndex, qOut);
  };

  Value q;
  if (packedBytes) {
    // lo/hi halves [.., P | P] -> values interleaved: v -> (v % 2) * P + v / 2.
    const int64_t P = ds[qa];
    SmallVector<int64_t> order(values);
    for (int64_t v = 0; v < values; ++v) order[size_t(v)] = (v % 2) * P + v / 2;
    q = gatherAlong(c, splitNibbles(c, gatherAlong(c, *data, *indices, 0)), c.constantI64(order, {values}), qOut);
  } else {
    Value table = elem.isInteger(4) ? widenInt4(c, *data) : *data;
    q = c.emitCast(gatherAlong(c, table, *indices, ga), f32);
  }
  Value s = c.emitCast(perValue(*scales), f32);
  Value zp = c.scalar(f32, elem.isUnsignedInteger(8) ? double(1 << (bits - 1)) : 0.0);
  if (zpIn && packedBytes) {
    // Packed zero points [.., ceil(blocks / 2)]: value v reads block b = v /
    // block_size, at (b % 2) * half + b / 2 of the split halves.
    const int64_t half = NodeConverter::shapeOf(zpIn)[qa];
    SmallVector<int64_t> order(values);
    for (int64_t v = 0; v < values; ++v) order[size_t(v)] = (v / block % 2) * half + v / block / 2;
    zp = gatherAlong(c, splitNibbles(c, gatherAlong(c, zpIn, *indices, 0)), c.constantI64(order, {values}), qOut);
  } else if (zpIn) {
    zp = c.emitCast(perValue(elem.isInteger(4) ? widenInt4(c, zpIn) : zpIn), f32);
  }
  Value y = c.emit("mul", {c.emit("sub", {q, zp}), s});
  if (!c.emitFailed() && outType != f32) y = c.emitCast(y, outType);
  return c.done(y);
}

// ------------------------------------------------------- Attention (opset 23)
// softmax(softcap(Q K^T * scale) + mask) V over BNSH heads, written in spec
// ops: 3-D inputs [B, S, heads * D] are split into heads, past_key/value are
// concatenated in front (present_key/value), KV heads are repeated for
// grouped queries (query head h reads KV head h / (q_num_heads /
// kv_num_heads)), a bool mask selects (true = attend), a float mask adds, and
// is_causal hides key j from query i when j > i + past length. The softcap
// before the mask and the causal triangle's alignment with a past follow ONNX
// Runtime (test/llm/check_attention23.py). With static shapes the causal
// mask is a constant; with dynamic sequence lengths (`--dynamic-dim`) it is
// computed from position ramps (causalMask).
Value toHeads(NodeConverter &c, Value v, int64_t heads) {
  ArrayRef<int64_t> s = NodeConverter::shapeOf(v);
  if (s.size() == 4) return v;
  v = c.emitReshape(v, {s[0], s[1], heads, s[2] / heads});
  return c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3})});
}

// The causal bias [S, T] (0, or -inf where key j > query i + T - S) when S or
// T is known only at run time. WebNN has no iota: a ramp over a dynamic
// axis is the running sum of ones shaped like that axis (`where` with equal
// branches yields ones of its condition's shape whatever the values), and
// T - S is the difference of the ramps' lengths.
Value causalMask(NodeConverter &c, Value Q, Value K, Type f) {
  Type f32 = c.builder().getF32Type();
  auto ones = [&](Value x) {  // [1, 1, L, 1] ones over x's axis 2 (the sequence)
    ArrayRef<int64_t> s = NodeConverter::shapeOf(x);
    Value row = c.emit("slice", {x}, {c.i64ArrayAttr("starts", {0, 0, 0, 0}),
                                      c.i64ArrayAttr("sizes", {1, 1, s[2], 1})});
    if (!NodeConverter::typeOf(x).getElementType().isF32()) row = c.emitCast(row, f32);
    Value any = c.emit("equal", {row, row});
    return c.emit("where", {any, c.scalar(f32, 1.0), c.scalar(f32, 1.0)});
  };
  Value onesS = ones(Q), onesT = ones(K);
  Value one = c.scalar(f32, 1.0);
  Value rampS = c.emit("sub", {c.emit("cumulativeSum", {onesS}, {c.i64Attr("axis", 2)}), one});
  Value rampT = c.emit("sub", {c.emit("cumulativeSum", {onesT}, {c.i64Attr("axis", 2)}), one});
  auto total = [&](Value v) { return c.emit("reduceSum", {v}, {c.i64ArrayAttr("axes", {0, 1, 2, 3})}); };
  Value offset = c.emit("sub", {total(onesT), total(onesS)});  // T - S
  // [1, 1, S, 1] query positions against [1, 1, 1, T] key positions.
  Value keys = c.emit("transpose", {rampT}, {c.i64ArrayAttr("permutation", {0, 1, 3, 2})});
  Value hidden = c.emit("greater", {c.emit("sub", {keys, rampS}), offset});
  Value mask = c.emit("where", {hidden, c.scalar(f32, -std::numeric_limits<double>::infinity()),
                                c.scalar(f32, 0.0)});
  return c.emitCast(mask, f);
}

LogicalResult convertAttention23(NodeConverter &c) {
  FailureOr<Value> q = c.requiredInput(0), k = c.requiredInput(1), v = c.requiredInput(2);
  if (failed(q) || failed(k) || failed(v)) return failure();
  if (failed(rejectInputs(c, 6, "nonpad_kv_seqlen is not supported"))) return failure();
  if (c.outputUsed(3) || c.intAttr("qk_matmul_output_mode", 0) != 0)
    return c.fail("qk_matmul_output is not supported");
  if (c.hasInput(4) != c.hasInput(5)) return c.fail("past_key and past_value go together");
  int64_t rank = NodeConverter::rankOf(*q);
  if (rank != 3 && rank != 4) return c.fail("Q must be 3-D [B, S, hidden] or 4-D [B, heads, S, D]");
  if (NodeConverter::rankOf(*k) != rank || NodeConverter::rankOf(*v) != rank)
    return c.fail("Q, K and V must have the same rank");
  int64_t qHeads = rank == 4 ? NodeConverter::shapeOf(*q)[1] : c.intAttr("q_num_heads", 0);
  int64_t kvHeads = rank == 4 ? NodeConverter::shapeOf(*k)[1] : c.intAttr("kv_num_heads", 0);
  if (qHeads < 1 || kvHeads < 1 || qHeads % kvHeads)
    return c.fail("q_num_heads must be a positive multiple of kv_num_heads (both required for 3-D inputs)");
  if (rank == 3 && (NodeConverter::shapeOf(*q)[2] % qHeads || NodeConverter::shapeOf(*k)[2] % kvHeads ||
                    NodeConverter::shapeOf(*v)[2] % kvHeads))
    return c.fail("hidden sizes must split into q_num_heads / kv_num_heads heads");
  Value Q = toHeads(c, *q, qHeads), K = toHeads(c, *k, kvHeads), V = toHeads(c, *v, kvHeads);
  if (c.hasInput(4)) {
    K = c.emit("concat", {c.input(4), K}, {c.i64Attr("axis", 2)});
    V = c.emit("concat", {c.input(5), V}, {c.i64Attr("axis", 2)});
  }
  if (c.emitFailed()) return failure();
  if (c.outputUsed(1)) c.setOutput(1, K);
  if (c.outputUsed(2)) c.setOutput(2, V);
  ArrayRef<int64_t> qs = NodeConverter::shapeOf(Q), ks = NodeConverter::shapeOf(K);
  const int64_t B = qs[0], S = qs[2], D = qs[3], T = ks[2], Dv = NodeConverter::shapeOf(V)[3];
  if (int64_t group = qHeads / kvHeads; group > 1) {
    // Query head h reads KV head h / group: a gather over the head axis,
    // which (unlike a reshape and expand) also holds for a dynamic T.
    SmallVector<int64_t> kvOf;
    for (int64_t h = 0; h < qHeads; ++h) kvOf.push_back(h / group);
    Value heads = c.constantI64(kvOf, {qHeads});
    K = c.emit("gather", {K, heads}, {c.i64Attr("axis", 1)});
    V = c.emit("gather", {V, heads}, {c.i64Attr("axis", 1)});
  }
  Type f = NodeConverter::typeOf(Q).getElementType();
  float scale = c.floatAttr("scale", 0.f);
  if (scale == 0.f) scale = 1.f / std::sqrt(float(D));
  Value scores = c.emit("matmul", {Q, c.emit("transpose", {K}, {c.i64ArrayAttr("permutation", {0, 1, 3, 2})})});
  scores = c.emit("mul", {scores, c.scalar(f, scale)});
  const double negInf = -std::numeric_limits<double>::infinity();
  float softcap = c.floatAttr("softcap", 0.f);
  if (softcap > 0.f)
    scores = c.emit("mul", {c.emit("tanh", {c.emit("div", {scores, c.scalar(f, softcap)})}), c.scalar(f, softcap)});
  if (Value mask = c.input(3)) {
    if (NodeConverter::typeOf(mask).getElementType().isInteger(8) ||
        NodeConverter::typeOf(mask).getElementType().isUnsignedInteger(8))
      mask = c.emit("where", {mask, c.scalar(f, 0.0), c.scalar(f, negInf)});  // bool: true attends
    scores = c.emit("add", {scores, mask});
  }
  if (c.intAttr("is_causal", 0) != 0 && (ShapedType::isDynamic(S) || ShapedType::isDynamic(T))) {
    scores = c.emit("add", {scores, causalMask(c, Q, K, f)});
  } else if (c.intAttr("is_causal", 0) != 0) {
    std::vector<float> bias(size_t(S * T));
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = 0; j < T; ++j) bias[size_t(i * T + j)] = j > i + (T - S) ? -INFINITY : 0.f;
    auto type = RankedTensorType::get({S, T}, c.builder().getF32Type());
    Value causal = c.constant(DenseElementsAttr::get(type, ArrayRef<float>(bias)));
    if (!f.isF32()) causal = c.emitCast(causal, f);
    scores = c.emit("add", {scores, causal});
  }
  Value y = c.emit("matmul", {c.emit("softmax", {scores}, {c.i64Attr("axis", 3)}), V});
  if (rank == 3) {
    y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3})});
    y = c.emitReshape(y, {B, S, qHeads * Dv});
  }
  return c.done(y);
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
  t.add(kMs, "GatherBlockQuantized", 1, convertGatherBlockQuantized);
  t.add("", "Attention", 23, convertAttention23);
}

}  // namespace mlir::webnn::onnx_import
