// The com.microsoft ops ONNX Runtime's transformer optimizer
// (onnxruntime.transformers.optimizer) writes into BERT, GPT-2, T5, ViT, CLIP
// and Whisper graphs: fused attention, the skip / embedding layer norms and
// the GELU family, plus the Stable Diffusion UNet ops (BiasAdd,
// BiasSplitGelu, GroupNorm). Semantics follow docs/ContribOperators.md and
// the CPU / CUDA kernels of microsoft/onnxruntime; test/onnx/
// check_com_microsoft_transformer.py compares each form with ONNX Runtime.
// Options ORT has but these lowerings do not model are rejected by name.
#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNShapeUtils.h"

#include <cmath>

namespace mlir::webnn::onnx_import {
namespace {

constexpr const char *kMs = "com.microsoft";

using NC = NodeConverter;

LogicalResult requireStatic(NodeConverter &c, ArrayRef<Value> values) {
  for (Value v : values)
    if (v && !NC::typeOf(v).hasStaticShape())
      return c.fail("dynamic dimensions are not supported by this lowering (fix them with --shape)");
  return success();
}

LogicalResult rejectInputsFrom(NodeConverter &c, size_t from, ArrayRef<const char *> names) {
  for (size_t i = from; i < c.numInputs(); ++i)
    if (c.hasInput(i))
      return c.fail(Twine("input ") + Twine(i) + " ('" +
                    (i - from < names.size() ? names[i - from] : "unknown") + "') is not supported");
  return success();
}

// x + bias (bias absent -> x).
Value addBias(NodeConverter &c, Value x, Value bias) { return bias ? c.emit("add", {x, bias}) : x; }

// The tanh approximation of GELU that FastGelu computes:
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Value tanhGelu(NodeConverter &c, Value x) {
  Type f = NC::typeOf(x).getElementType();
  Value x3 = c.emit("mul", {c.emit("mul", {x, x}), x});
  Value inner = c.emit("add", {x, c.emit("mul", {x3, c.scalar(f, 0.044715)})});
  Value t = c.emit("tanh", {c.emit("mul", {inner, c.scalar(f, std::sqrt(2.0 / M_PI))})});
  Value half = c.emit("mul", {x, c.scalar(f, 0.5)});
  return c.emit("add", {half, c.emit("mul", {half, t})});
}

// ------------------------------------------------------ the GELU family
// Gelu: the erf form. BiasGelu: gelu(X + bias).
LogicalResult convertGelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  if (c.opType() == "BiasGelu" && !c.hasInput(1)) return c.fail("input 1 (bias) is required");
  if (failed(rejectInputsFrom(c, c.opType() == "BiasGelu" ? 2 : 1, {}))) return failure();
  return c.done(c.emit("gelu", {addBias(c, *x, c.input(1))}));
}

// FastGelu: the tanh approximation of gelu(X + bias), bias optional.
LogicalResult convertFastGelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x) || failed(rejectInputsFrom(c, 2, {}))) return failure();
  return c.done(tanhGelu(c, addBias(c, *x, c.input(1))));
}

// QuickGelu: X * sigmoid(alpha X), alpha 1.702 by default (CLIP).
LogicalResult convertQuickGelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x) || failed(rejectInputsFrom(c, 1, {}))) return failure();
  Type f = NC::typeOf(*x).getElementType();
  double alpha = c.floatAttr("alpha", 1.702f);
  Value s = c.emit("sigmoid", {alpha == 1.0 ? *x : c.emit("mul", {*x, c.scalar(f, alpha)})});
  return c.done(c.emit("mul", {*x, s}));
}

// BiasAdd (UNet): X + bias + skip, X and skip (N, S, C), bias (C).
LogicalResult convertBiasAdd(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), bias = c.requiredInput(1), skip = c.requiredInput(2);
  if (failed(x) || failed(bias) || failed(skip)) return failure();
  return c.done(c.emit("add", {c.emit("add", {*x, *bias}), *skip}));
}

// BiasSplitGelu (UNet): with Y = X + bias split in halves along the last
// axis, left * gelu(right) (the erf form).
LogicalResult convertBiasSplitGelu(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), bias = c.requiredInput(1);
  if (failed(x) || failed(bias) || failed(requireStatic(c, {*x}))) return failure();
  int64_t rank = NC::rankOf(*x);
  if (rank < 1) return c.fail("X must have at least one dimension");
  int64_t d = NC::shapeOf(*x).back();
  if (d % 2) return c.fail("the last dimension of X (" + Twine(d) + ") must be even to split in halves");
  FailureOr<SmallVector<Value>> halves =
      c.graphImporter().graph().addOp("split", {c.emit("add", {*x, *bias})},
                                      {c.i64ArrayAttr("splits", {d / 2, d / 2}), c.i64Attr("axis", rank - 1)},
                                      c.loc());
  if (failed(halves) || c.emitFailed()) return failure();
  return c.done(c.emit("mul", {(*halves)[0], c.emit("gelu", {(*halves)[1]})}));
}

// --------------------------------------------------------------- GroupNorm
// GroupNorm (UNet): per sample, the channels fall into `groups` groups; each
// group is normalized over its channels and every spatial position, then
// scaled and shifted per channel; activation 1 appends swish (x sigmoid(x)).
// channels_last (default 1) says the input is NHWC. The statistics are one
// layerNormalization over the group's axes of a (N, HW, G, C/G) (NHWC) or
// (N, G, C/G * HW) (NCHW) view.
LogicalResult convertGroupNorm(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), gamma = c.requiredInput(1), beta = c.requiredInput(2);
  if (failed(x) || failed(gamma) || failed(beta) || failed(requireStatic(c, {*x}))) return failure();
  int64_t groups = c.intAttr("groups", 0), activation = c.intAttr("activation", 0);
  bool channelsLast = c.intAttr("channels_last", 1) != 0;
  if (activation != 0 && activation != 1) return c.fail("activation must be 0 (none) or 1 (swish)");
  ArrayRef<int64_t> xs = NC::shapeOf(*x);
  if (xs.size() != 4) return c.fail("input must be 4-D (NHWC, or NCHW with channels_last = 0)");
  int64_t N = xs[0], C = channelsLast ? xs[3] : xs[1], HW = channelsLast ? xs[1] * xs[2] : xs[2] * xs[3];
  if (groups < 1 || C % groups)
    return c.fail("groups (" + Twine(groups) + ") must be positive and divide the " + Twine(C) + " channels");
  double eps = c.floatAttr("epsilon", 1e-5f);
  Value y;
  if (channelsLast) {
    Value v = c.emitReshape(*x, {N, HW, groups, C / groups});
    y = c.emit("layerNormalization", {v, Value(), Value()},
               {c.i64ArrayAttr("axes", {1, 3}), c.f64Attr("epsilon", eps)});
    y = c.emitReshape(y, xs);
    y = c.emit("add", {c.emit("mul", {y, c.emitReshape(*gamma, {C})}), c.emitReshape(*beta, {C})});
  } else {
    Value v = c.emitReshape(*x, {N, groups, C / groups * HW});
    y = c.emit("layerNormalization", {v, Value(), Value()},
               {c.i64ArrayAttr("axes", {2}), c.f64Attr("epsilon", eps)});
    y = c.emitReshape(y, xs);
    y = c.emit("add", {c.emit("mul", {y, c.emitReshape(*gamma, {C, 1, 1})}), c.emitReshape(*beta, {C, 1, 1})});
  }
  if (activation == 1) y = c.emit("mul", {y, c.emit("sigmoid", {y})});
  return c.done(y);
}

// ------------------------------------------------- SkipLayerNormalization
// output = LayerNorm(input + skip + bias) over the last axis with gamma and
// (optional) beta; outputs 1 and 2 are the mean and 1 / sqrt(var + epsilon)
// per row (shape: input's with the last dimension 1), output 3 the sum
// input + skip + bias. skip may be of input's shape or broadcast to it
// ((1, S, H) or (S, H)).
LogicalResult convertSkipLayerNorm(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), skip = c.requiredInput(1), gamma = c.requiredInput(2);
  if (failed(x) || failed(skip) || failed(gamma) || failed(requireStatic(c, {*x, *skip}))) return failure();
  if (failed(rejectInputsFrom(c, 5, {}))) return failure();
  int64_t rank = NC::rankOf(*x);
  if (rank != 2 && rank != 3) return c.fail("input must be 2-D or 3-D");
  int64_t H = NC::shapeOf(*x).back();
  auto vec = [&](Value v) { return v ? c.emitReshape(v, {H}) : v; };
  Value sum = addBias(c, c.emit("add", {*x, *skip}), vec(c.input(4)));
  double eps = c.floatAttr("epsilon", 1e-12f);
  Value y = c.emit("layerNormalization", {sum, vec(*gamma), vec(c.input(3))},
                   {c.i64ArrayAttr("axes", {rank - 1}), c.f64Attr("epsilon", eps)});
  if (c.outputUsed(1) || c.outputUsed(2)) {
    Type f = NC::typeOf(sum).getElementType();
    SmallVector<NamedAttribute> lastAxis{c.i64ArrayAttr("axes", {rank - 1}), c.boolAttr("keepDimensions", true)};
    Value mean = c.emit("reduceMean", {sum}, lastAxis);
    Value centered = c.emit("sub", {sum, mean});
    Value var = c.emit("reduceMean", {c.emit("mul", {centered, centered})}, lastAxis);
    if (c.outputUsed(1)) c.setOutput(1, mean);
    if (c.outputUsed(2))
      c.setOutput(2, c.emit("reciprocal", {c.emit("sqrt", {c.emit("add", {var, c.scalar(f, eps)})})}));
  }
  if (c.outputUsed(3)) c.setOutput(3, sum);
  return c.done(y);
}

// ------------------------------------------------ EmbedLayerNormalization
// output = LayerNorm(word[input_ids] + position[position_ids] +
// segment[segment_ids]) over the hidden axis; position_ids default to
// 0..S-1 and may be (B, S) or (1, S); segment_ids / segment_embedding are
// optional together. Output 1 (mask_index) counts the mask's ones per batch
// row (zeros without a mask); output 2 is the sum before normalization.
LogicalResult convertEmbedLayerNorm(NodeConverter &c) {
  FailureOr<Value> ids = c.requiredInput(0), word = c.requiredInput(2), pos = c.requiredInput(3),
                   gamma = c.requiredInput(5), beta = c.requiredInput(6);
  if (failed(ids) || failed(word) || failed(pos) || failed(gamma) || failed(beta)) return failure();
  if (failed(requireStatic(c, {*ids, *word, *pos, c.input(7), c.input(8)}))) return failure();
  if (failed(rejectInputsFrom(c, 9, {}))) return failure();
  if (c.hasInput(1) != c.hasInput(4)) return c.fail("segment_ids and segment_embedding go together");
  ArrayRef<int64_t> is = NC::shapeOf(*ids);
  if (is.size() != 2) return c.fail("input_ids must be 2-D (batch, sequence)");
  if (NC::rankOf(*word) != 2 || NC::rankOf(*pos) != 2 || NC::shapeOf(*pos)[1] != NC::shapeOf(*word)[1])
    return c.fail("word_embedding and position_embedding must be 2-D (rows, hidden) of the same hidden size");
  const int64_t B = is[0], S = is[1], H = NC::shapeOf(*word).back(), P = NC::shapeOf(*pos)[0];
  Value sum = c.emit("gather", {*word, *ids}, {c.i64Attr("axis", 0)});
  if (Value pids = c.input(8)) {
    sum = c.emit("add", {sum, c.emit("gather", {*pos, pids}, {c.i64Attr("axis", 0)})});
  } else {
    if (S > P) return c.fail("sequence length " + Twine(S) + " exceeds the " + Twine(P) + " position embeddings");
    Value rows = c.emit("slice", {*pos}, {c.i64ArrayAttr("starts", {0, 0}), c.i64ArrayAttr("sizes", {S, H})});
    sum = c.emit("add", {sum, rows});
  }
  if (c.hasInput(1))
    sum = c.emit("add", {sum, c.emit("gather", {c.input(4), c.input(1)}, {c.i64Attr("axis", 0)})});
  double eps = c.floatAttr("epsilon", 1e-12f);
  Value y = c.emit("layerNormalization", {sum, c.emitReshape(*gamma, {H}), c.emitReshape(*beta, {H})},
                   {c.i64ArrayAttr("axes", {2}), c.f64Attr("epsilon", eps)});
  if (c.outputUsed(1)) {
    Type i32 = c.builder().getIntegerType(32);
    Value count;
    if (Value mask = c.input(7)) {
      Type mt = NC::typeOf(mask).getElementType();
      Value ones = c.emitCast(c.emit("equal", {mask, c.scalar(mt, 1)}), i32);
      count = c.emit("reduceSum", {ones}, {c.i64ArrayAttr("axes", {1})});
    } else {
      count = c.splat(i32, {B}, 0);
    }
    c.setOutput(1, count);
  }
  if (c.outputUsed(2)) c.setOutput(2, sum);
  return c.done(y);
}

// --------------------------------------------------------------- attention
// Both attention ops reduce to softmax(scale Q K^T + mask + attention_bias) V
// per head. ORT's masks are additive: a masked key gets mask_filter_value
// (default -10000, not -inf), and `unidirectional` adds it once more to keys
// after the query's position (offset by the past length). With no mask, bias,
// causality or cache the heads map onto webnn.fusedAttention.
struct AttentionParts {
  Value q, k, v;       // (B, N, S, Dh), (B, N, T, Dh), (B, N, T, Dv)
  Value keyMask;       // additive, broadcastable to (B, N, S, T); may be null
  Value bias;          // attention_bias (B or 1, N or 1, S, T); may be null
  bool causal = false;
  int64_t past = 0;    // keys before the first query position
  double filter = -10000.0, scale = 0.0;
};

// (B, L, heads * d) -> (B, heads, L, d)
Value splitHeads(NodeConverter &c, Value x, int64_t heads) {
  ArrayRef<int64_t> s = NC::shapeOf(x);
  x = c.emitReshape(x, {s[0], s[1], heads, s[2] / heads});
  return c.emit("transpose", {x}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3})});
}

// The key mask as an additive (B, 1, S or 1, T) tensor of element type `f`.
// Forms (ORT's mask_index / key_padding_mask): (B) end positions (keys at or
// after them are masked), (2B) end positions then start positions (keys
// before the start are masked too; Attention only), (B, T) and (B, S, T)
// 0/1 masks, (B, 1, M, M) 0/1 masks of which rows past..past+S-1 and
// columns 0..T-1 apply (Attention only).
FailureOr<Value> keyMaskBias(NodeConverter &c, Value mask, StringRef what, bool attentionForms, int64_t B,
                             int64_t S, int64_t T, int64_t past, double filter, Type f) {
  ArrayRef<int64_t> ms = NC::shapeOf(mask);
  Value m = c.emitCast(mask, f);
  Value zero = c.scalar(f, 0.0), fill = c.scalar(f, filter);
  auto fromBinary = [&](Value m01, ArrayRef<int64_t> shape) {
    return c.emitReshape(c.emit("where", {c.emit("greater", {m01, zero}), zero, fill}), shape);
  };
  if (ms.size() == 1 && (ms[0] == B || (attentionForms && ms[0] == 2 * B))) {
    std::vector<float> iota(static_cast<size_t>(T));
    for (int64_t j = 0; j < T; ++j) iota[size_t(j)] = float(j);
    Value keys = c.emitCast(
        c.constant(DenseElementsAttr::get(RankedTensorType::get({1, T}, c.builder().getF32Type()),
                                          ArrayRef<float>(iota))),
        f);
    Value ends = m, starts;
    if (ms[0] == 2 * B) {
      ends = c.emit("slice", {m}, {c.i64ArrayAttr("starts", {0}), c.i64ArrayAttr("sizes", {B})});
      starts = c.emit("slice", {m}, {c.i64ArrayAttr("starts", {B}), c.i64ArrayAttr("sizes", {B})});
    }
    Value masked = c.emit("greaterOrEqual", {keys, c.emitReshape(ends, {B, 1})});
    if (starts) masked = c.emit("logicalOr", {masked, c.emit("lesser", {keys, c.emitReshape(starts, {B, 1})})});
    return c.emitReshape(c.emit("where", {masked, fill, zero}), {B, 1, 1, T});
  }
  if (ms.size() == 1 && ms[0] == 3 * B + 2)
    return c.fail(Twine(what) + " of shape (3 * batch + 2) (the CUDA flash-attention layout) is not supported");
  if (ms.size() == 2 && ms[0] == B && ms[1] == T) return fromBinary(m, {B, 1, 1, T});
  if (ms.size() == 3 && ms[0] == B && ms[1] == S && ms[2] == T) return fromBinary(m, {B, 1, S, T});
  if (attentionForms && ms.size() == 4 && ms[0] == B && ms[1] == 1 && ms[2] == ms[3] && ms[2] >= past + S &&
      ms[3] >= T) {
    Value rows = c.emit("slice", {m}, {c.i64ArrayAttr("starts", {0, 0, past, 0}),
                                       c.i64ArrayAttr("sizes", {B, 1, S, T})});
    return fromBinary(rows, {B, 1, S, T});
  }
  std::string got;
  llvm::raw_string_ostream os(got);
  llvm::interleave(ms, os, ", ");
  return c.fail(Twine(what) + " of shape (" + got + ") is none of (batch)" + (attentionForms ? ", (2 * batch)" : "") +
                ", (batch, " + Twine(T) + "), (batch, " + Twine(S) + ", " + Twine(T) + ")" +
                (attentionForms ? ", (batch, 1, max_sequence, max_sequence)" : ""));
}

// (B, S, N * Dv) from the parts.
Value emitAttention(NodeConverter &c, const AttentionParts &p) {
  ArrayRef<int64_t> qs = NC::shapeOf(p.q), ks = NC::shapeOf(p.k);
  const int64_t B = qs[0], N = qs[1], S = qs[2], Dh = qs[3], T = ks[2], Dv = NC::shapeOf(p.v)[3];
  Type f = NC::typeOf(p.q).getElementType();
  double scale = p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(double(Dh));
  Value scores = c.emit("matmul", {p.q, c.emit("transpose", {p.k}, {c.i64ArrayAttr("permutation", {0, 1, 3, 2})})});
  scores = c.emit("mul", {scores, c.scalar(f, scale)});
  Value mask = p.keyMask;
  if (p.causal && S > 1) {
    std::vector<float> tri(size_t(S * T), 0.f);
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = p.past + i + 1; j < T; ++j) tri[size_t(i * T + j)] = float(p.filter);
    Value causal = c.emitCast(
        c.constant(DenseElementsAttr::get(RankedTensorType::get({S, T}, c.builder().getF32Type()),
                                          ArrayRef<float>(tri))),
        f);
    mask = mask ? c.emit("add", {mask, causal}) : causal;
  }
  if (mask) scores = c.emit("add", {scores, mask});
  if (p.bias) scores = c.emit("add", {scores, p.bias});
  Value y = c.emit("matmul", {c.emit("softmax", {scores}, {c.i64Attr("axis", 3)}), p.v});
  y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {0, 2, 1, 3})});
  return c.emitReshape(y, {B, S, N * Dv});
}

// Q (B, S, D), K (B, T, D), V (B, T, Dv) still unsplit: the fused op when
// nothing but the heads' softmax is asked for.
bool canFuse(const AttentionParts &p) { return !p.keyMask && !p.bias && !(p.causal) && p.past == 0; }

// ----------------------------------------------------- Attention (contrib)
// input (B, S, Din) x weights (Din, D + D + Dv) + bias gives Q, K, V;
// past (2, B, N, P, Dh) is prepended to K and V, and present is
// (2, B, N, P + S, Dh). Output (B, S, Dv).
LogicalResult convertAttention(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), w = c.requiredInput(1);
  if (failed(x) || failed(w)) return failure();
  if (failed(requireStatic(c, {*x, *w, c.input(3), c.input(4), c.input(5)}))) return failure();
  if (c.hasInput(6) || c.intAttr("past_present_share_buffer", 0) != 0)
    return c.fail("past_present_share_buffer / past_sequence_length (a shared KV buffer) is not supported");
  if (failed(rejectInputsFrom(c, 7, {}))) return failure();
  if (c.intAttr("do_rotary", 0) != 0) return c.fail("do_rotary is not supported");
  const int64_t N = c.intAttr("num_heads", 0);
  ArrayRef<int64_t> xs = NC::shapeOf(*x), ws = NC::shapeOf(*w);
  if (xs.size() != 3 || ws.size() != 2 || ws[0] != xs[2])
    return c.fail("input must be (batch, sequence, input_hidden) and weights (input_hidden, D + D + Dv)");
  const int64_t B = xs[0], S = xs[1];
  SmallVector<int64_t> sizes{ws[1] / 3, ws[1] / 3, ws[1] / 3};
  if (std::optional<SmallVector<int64_t>> qkv = c.intsAttr("qkv_hidden_sizes")) {
    if (qkv->size() != 3 || (*qkv)[0] != (*qkv)[1]) return c.fail("qkv_hidden_sizes must be [D, D, Dv]");
    sizes = *qkv;
  }
  if (N < 1 || sizes[0] + sizes[1] + sizes[2] != ws[1] || sizes[0] % N || sizes[2] % N)
    return c.fail("num_heads (" + Twine(N) + ") must divide the Q/K/V hidden sizes, which must add up to " +
                  Twine(ws[1]) + " (the weights' columns)");
  Value qkv = addBias(c, c.emit("matmul", {*x, *w}), c.input(2));
  FailureOr<SmallVector<Value>> parts = c.graphImporter().graph().addOp(
      "split", {qkv}, {c.i64ArrayAttr("splits", sizes), c.i64Attr("axis", 2)}, c.loc());
  if (failed(parts) || c.emitFailed()) return failure();
  AttentionParts p;
  p.causal = c.intAttr("unidirectional", 0) != 0;
  p.filter = c.floatAttr("mask_filter_value", -10000.f);
  p.scale = c.floatAttr("scale", 0.f);
  p.bias = c.input(5);
  Value past = c.input(4);
  if (past) {
    ArrayRef<int64_t> ps = NC::shapeOf(past);
    if (sizes[0] != sizes[2]) return c.fail("past requires equal Q, K and V hidden sizes");
    if (ps.size() != 5 || ps[0] != 2 || ps[1] != B || ps[2] != N || ps[4] != sizes[0] / N)
      return c.fail("past must be (2, batch, num_heads, past_sequence, head_size)");
    p.past = ps[3];
  }
  const int64_t T = p.past + S;
  Type f = NC::typeOf(*x).getElementType();
  if (Value mask = c.input(3)) {
    FailureOr<Value> m = keyMaskBias(c, mask, "mask_index", true, B, S, T, p.past, p.filter, f);
    if (failed(m)) return failure();
    p.keyMask = *m;
  }
  if (canFuse(p) && !c.outputUsed(1) && sizes[0] == sizes[2])
    return c.done(c.emit("fusedAttention", {(*parts)[0], (*parts)[1], (*parts)[2]},
                         {c.i64Attr("heads", N),
                          c.f64Attr("scale", p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(double(sizes[0] / N)))}));
  p.q = splitHeads(c, (*parts)[0], N);
  p.k = splitHeads(c, (*parts)[1], N);
  p.v = splitHeads(c, (*parts)[2], N);
  if (past && p.past > 0) {  // a zero-length past (a decoder's first step) adds nothing
    const int64_t Dh = sizes[0] / N;
    auto half = [&](int64_t i) {
      Value h = c.emit("slice", {past}, {c.i64ArrayAttr("starts", {i, 0, 0, 0, 0}),
                                         c.i64ArrayAttr("sizes", {1, B, N, p.past, Dh})});
      return c.emitReshape(h, {B, N, p.past, Dh});
    };
    p.k = c.emit("concat", {half(0), p.k}, {c.i64Attr("axis", 2)});
    p.v = c.emit("concat", {half(1), p.v}, {c.i64Attr("axis", 2)});
  }
  if (c.outputUsed(1)) {
    if (sizes[0] != sizes[2]) return c.fail("output present requires equal Q, K and V hidden sizes");
    const int64_t Dh = sizes[0] / N;
    c.setOutput(1, c.emit("concat", {c.emitReshape(p.k, {1, B, N, T, Dh}), c.emitReshape(p.v, {1, B, N, T, Dh})},
                          {c.i64Attr("axis", 0)}));
  }
  if (c.emitFailed()) return failure();
  return c.done(emitAttention(c, p));
}

// ------------------------------------------------------ MultiHeadAttention
// query (B, S, D) with key (B, L, D) and value (B, L, Dv), or key and value
// already split into heads (B, N, L, Dh) (cross attention reusing a cache),
// or packed: query (B, S, N, 3, Dh) alone, or key (B, L, N, 2, Dh) without
// value. bias (D + D + Dv) is added to the projections that are not already
// in heads; past_key / past_value (B, N, P, Dh) are prepended, and
// present_key / present_value are the keys and values attended to.
LogicalResult convertMultiHeadAttention(NodeConverter &c) {
  FailureOr<Value> qIn = c.requiredInput(0);
  if (failed(qIn)) return failure();
  if (failed(requireStatic(c, {*qIn, c.input(1), c.input(2), c.input(4), c.input(5), c.input(6), c.input(7)})))
    return failure();
  if (failed(rejectInputsFrom(c, 8, {"past_sequence_length", "cache_indirection"}))) return failure();
  if (c.outputUsed(3)) return c.fail("output 3 (qk) is not supported");
  if (c.hasInput(6) != c.hasInput(7)) return c.fail("past_key and past_value go together");
  const int64_t N = c.intAttr("num_heads", 0);
  if (N < 1) return c.fail("num_heads must be positive");
  ArrayRef<int64_t> qs = NC::shapeOf(*qIn);
  if (qs.size() != 3 && qs.size() != 5)
    return c.fail("query must be 3-D (batch, sequence, hidden) or 5-D (packed)");
  const int64_t B = qs[0], S = qs[1];
  Value bias = c.input(3), key = c.input(1), value = c.input(2);
  int64_t D = 0;
  Value q, k, v;               // (B, N, len, Dh) once split
  Value qFlat, kFlat, vFlat;   // (B, len, hidden) when the fused op may take them
  // Adds bias[offset, offset + size) to x (..., size) (a flat projection).
  auto biasSlice = [&](Value x, int64_t offset, int64_t size) {
    if (!bias) return x;
    Value b = c.emit("slice", {bias}, {c.i64ArrayAttr("starts", {offset}), c.i64ArrayAttr("sizes", {size})});
    return c.emit("add", {x, b});
  };
  // One of the packed tensor's `count` slots: (B, len, N, count, Dh) -> (B, len, N * Dh).
  auto unpack = [&](Value packed, int64_t slot) {
    ArrayRef<int64_t> s = NC::shapeOf(packed);
    Value one = c.emit("slice", {packed}, {c.i64ArrayAttr("starts", {0, 0, 0, slot, 0}),
                                           c.i64ArrayAttr("sizes", {s[0], s[1], s[2], 1, s[4]})});
    return c.emitReshape(one, {s[0], s[1], s[2] * s[4]});
  };
  if (qs.size() == 5) {
    if (key || value) return c.fail("a packed query (batch, sequence, num_heads, 3, head_size) takes no key or value");
    if (qs[2] != N || qs[3] != 3) return c.fail("packed query must be (batch, sequence, num_heads, 3, head_size)");
    D = N * qs[4];
    qFlat = biasSlice(unpack(*qIn, 0), 0, D);
    kFlat = biasSlice(unpack(*qIn, 1), D, D);
    vFlat = biasSlice(unpack(*qIn, 2), 2 * D, D);
  } else {  // 3-D
    D = qs[2];
    if (!key) return c.fail("key is required unless the query is packed (batch, sequence, num_heads, 3, head_size)");
    qFlat = biasSlice(*qIn, 0, D);
    ArrayRef<int64_t> ks = NC::shapeOf(key);
    if (ks.size() == 5) {
      if (value) return c.fail("a packed key (batch, kv_sequence, num_heads, 2, head_size) takes no value");
      if (bias) return c.fail("bias is not allowed with a packed key/value");
      if (ks[0] != B || ks[2] != N || ks[3] != 2 || ks[4] * N != D)
        return c.fail("packed key must be (batch, kv_sequence, num_heads, 2, head_size)");
      kFlat = unpack(key, 0);
      vFlat = unpack(key, 1);
    } else if (ks.size() == 4) {
      if (!value || NC::rankOf(value) != 4) return c.fail("value must be 4-D when key is (batch, num_heads, kv_sequence, head_size)");
      if (bias) return c.fail("bias is not allowed when key and value are already split into heads");
      if (c.hasInput(6)) return c.fail("past_key/past_value are not allowed when key and value are 4-D");
      if (ks[0] != B || ks[1] != N || ks[3] * N != D || NC::shapeOf(value)[2] != ks[2])
        return c.fail("key must be (batch, num_heads, kv_sequence, head_size) matching the query");
      k = key;
      v = value;
    } else if (ks.size() == 3) {
      if (!value || NC::rankOf(value) != 3) return c.fail("value must be 3-D when key is 3-D");
      if (ks[0] != B || ks[2] != D || NC::shapeOf(value)[1] != ks[1])
        return c.fail("key must be (batch, kv_sequence, hidden) and value (batch, kv_sequence, v_hidden)");
      kFlat = biasSlice(key, D, D);
      vFlat = biasSlice(value, 2 * D, NC::shapeOf(value)[2]);
    } else {
      return c.fail("key must be 3-D, 4-D or 5-D (packed key/value)");
    }
  }
  if (D % N) return c.fail("num_heads (" + Twine(N) + ") must divide the hidden size " + Twine(D));
  if (vFlat && NC::shapeOf(vFlat)[2] % N) return c.fail("num_heads must divide the value's hidden size");
  if (c.emitFailed()) return failure();
  AttentionParts p;
  p.causal = c.intAttr("unidirectional", 0) != 0;
  p.filter = c.floatAttr("mask_filter_value", -10000.f);
  p.scale = c.floatAttr("scale", 0.f);
  p.bias = c.input(5);
  if (c.hasInput(6)) p.past = NC::shapeOf(c.input(6))[2];
  const int64_t L = k ? NC::shapeOf(k)[2] : NC::shapeOf(kFlat)[1], T = p.past + L;
  Type f = NC::typeOf(*qIn).getElementType();
  if (Value mask = c.input(4)) {
    FailureOr<Value> m = keyMaskBias(c, mask, "key_padding_mask", false, B, S, T, p.past, p.filter, f);
    if (failed(m)) return failure();
    p.keyMask = *m;
  }
  if (canFuse(p) && kFlat && !c.outputUsed(1) && !c.outputUsed(2) && NC::shapeOf(vFlat)[2] == D)
    return c.done(c.emit("fusedAttention", {qFlat, kFlat, vFlat},
                         {c.i64Attr("heads", N),
                          c.f64Attr("scale", p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(double(D / N)))}));
  p.q = splitHeads(c, qFlat, N);
  p.k = k ? k : splitHeads(c, kFlat, N);
  p.v = v ? v : splitHeads(c, vFlat, N);
  if (c.hasInput(6)) {
    Value pk = c.input(6), pv = c.input(7);
    ArrayRef<int64_t> pks = NC::shapeOf(pk);
    if (pks.size() != 4 || pks[0] != B || pks[1] != N || pks[3] != D / N || NC::shapeOf(pv).size() != 4 ||
        NC::shapeOf(pv)[2] != pks[2])
      return c.fail("past_key/past_value must be (batch, num_heads, past_sequence, head_size)");
    if (p.past > 0) {  // a zero-length past (a decoder's first step) adds nothing
      p.k = c.emit("concat", {pk, p.k}, {c.i64Attr("axis", 2)});
      p.v = c.emit("concat", {pv, p.v}, {c.i64Attr("axis", 2)});
    }
  }
  if (c.outputUsed(1)) c.setOutput(1, p.k);
  if (c.outputUsed(2)) c.setOutput(2, p.v);
  if (c.emitFailed()) return failure();
  return c.done(emitAttention(c, p));
}

}  // namespace

void populateComMicrosoftTransformer(OpConverterTable &t) {
  t.add(kMs, "Attention", 1, convertAttention);
  t.add(kMs, "MultiHeadAttention", 1, convertMultiHeadAttention);
  t.add(kMs, "SkipLayerNormalization", 1, convertSkipLayerNorm);
  t.add(kMs, "EmbedLayerNormalization", 1, convertEmbedLayerNorm);
  t.add(kMs, "Gelu", 1, convertGelu);
  t.add(kMs, "BiasGelu", 1, convertGelu);
  t.add(kMs, "FastGelu", 1, convertFastGelu);
  t.add(kMs, "QuickGelu", 1, convertQuickGelu);
  t.add(kMs, "BiasAdd", 1, convertBiasAdd);
  t.add(kMs, "BiasSplitGelu", 1, convertBiasSplitGelu);
  t.add(kMs, "GroupNorm", 1, convertGroupNorm);
}

}  // namespace mlir::webnn::onnx_import
