// The com.microsoft ops ONNX Runtime's transformer optimizer
// (onnxruntime.transformers.optimizer) writes into BERT, GPT-2, T5, ViT, CLIP
// and Whisper graphs: fused attention (and its one-step decoder form), the
// skip / embedding layer norms and the GELU family, T5's relative position
// biases, plus the Stable Diffusion UNet ops (BiasAdd, BiasSplitGelu,
// GroupNorm, SkipGroupNorm, NhwcConv). Semantics follow docs/ContribOperators.md and
// the CPU / CUDA kernels of microsoft/onnxruntime; test/onnx/
// check_com_microsoft_transformer.py compares each form with ONNX Runtime.
// Options ORT has but these lowerings do not model are rejected by name.
#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNShapeUtils.h"

#include <cmath>
#include <limits>

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
// (N, G, C/G * HW) (NCHW) view. Shared with SkipGroupNorm, which normalizes
// x + skip + bias.
FailureOr<Value> groupNorm(NodeConverter &c, Value x, Value gamma, Value beta) {
  int64_t groups = c.intAttr("groups", 0), activation = c.intAttr("activation", 0);
  bool channelsLast = c.intAttr("channels_last", 1) != 0;
  if (activation != 0 && activation != 1) return c.fail("activation must be 0 (none) or 1 (swish)");
  ArrayRef<int64_t> xs = NC::shapeOf(x);
  if (xs.size() != 4) return c.fail("input must be 4-D (NHWC, or NCHW with channels_last = 0)");
  int64_t N = xs[0], C = channelsLast ? xs[3] : xs[1], HW = channelsLast ? xs[1] * xs[2] : xs[2] * xs[3];
  if (groups < 1 || C % groups)
    return c.fail("groups (" + Twine(groups) + ") must be positive and divide the " + Twine(C) + " channels");
  double eps = c.floatAttr("epsilon", 1e-5f);
  Value y;
  if (channelsLast) {
    Value v = c.emitReshape(x, {N, HW, groups, C / groups});
    y = c.emit("layerNormalization", {v, Value(), Value()},
               {c.i64ArrayAttr("axes", {1, 3}), c.f64Attr("epsilon", eps)});
    y = c.emitReshape(y, xs);
    y = c.emit("add", {c.emit("mul", {y, c.emitReshape(gamma, {C})}), c.emitReshape(beta, {C})});
  } else {
    Value v = c.emitReshape(x, {N, groups, C / groups * HW});
    y = c.emit("layerNormalization", {v, Value(), Value()},
               {c.i64ArrayAttr("axes", {2}), c.f64Attr("epsilon", eps)});
    y = c.emitReshape(y, xs);
    y = c.emit("add", {c.emit("mul", {y, c.emitReshape(gamma, {C, 1, 1})}), c.emitReshape(beta, {C, 1, 1})});
  }
  if (activation == 1) y = c.emit("mul", {y, c.emit("sigmoid", {y})});
  if (c.emitFailed()) return failure();
  return y;
}

LogicalResult convertGroupNorm(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), gamma = c.requiredInput(1), beta = c.requiredInput(2);
  if (failed(x) || failed(gamma) || failed(beta) || failed(requireStatic(c, {*x}))) return failure();
  FailureOr<Value> y = groupNorm(c, *x, *gamma, *beta);
  return failed(y) ? failure() : c.done(*y);
}

// SkipGroupNorm (UNet): S = X + skip + bias, Y = GroupNorm(S); output 1 is S.
// skip is X's shape, or one value per sample and channel: (N, 1, 1, C) or
// (N, C) for NHWC ((N, C, 1, 1) or (N, C) for NCHW); bias is (C).
LogicalResult convertSkipGroupNorm(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), gamma = c.requiredInput(1), beta = c.requiredInput(2),
                   skip = c.requiredInput(3);
  if (failed(x) || failed(gamma) || failed(beta) || failed(skip)) return failure();
  if (failed(requireStatic(c, {*x, *skip, c.input(4)})) || failed(rejectInputsFrom(c, 5, {}))) return failure();
  ArrayRef<int64_t> xs = NC::shapeOf(*x), ss = NC::shapeOf(*skip);
  if (xs.size() != 4) return c.fail("input must be 4-D (NHWC, or NCHW with channels_last = 0)");
  bool channelsLast = c.intAttr("channels_last", 1) != 0;
  const int64_t N = xs[0], C = channelsLast ? xs[3] : xs[1];
  SmallVector<int64_t> perSample = channelsLast ? SmallVector<int64_t>{N, 1, 1, C} : SmallVector<int64_t>{N, C, 1, 1};
  Value s = *skip;
  if (ss.size() == 2 && ss[0] == N && ss[1] == C)
    s = c.emitReshape(s, perSample);
  else if (ArrayRef<int64_t>(ss) != xs && ArrayRef<int64_t>(ss) != ArrayRef<int64_t>(perSample))
    return c.fail(Twine("skip must have the input's shape, ") + (channelsLast ? "(N, 1, 1, C)" : "(N, C, 1, 1)") +
                  " or (N, C)");
  Value sum = c.emit("add", {*x, s});
  if (Value bias = c.input(4))
    sum = c.emit("add", {sum, channelsLast ? c.emitReshape(bias, {C}) : c.emitReshape(bias, {C, 1, 1})});
  if (c.emitFailed()) return failure();
  FailureOr<Value> y = groupNorm(c, sum, *gamma, *beta);
  if (failed(y)) return failure();
  if (c.outputUsed(1)) c.setOutput(1, sum);
  return c.done(*y);
}

// ---------------------------------------------------------------- NhwcConv
// NhwcConv (ORT's NHWC fusion for the UNet): Conv with X, Y in NHWC and the
// filter transposed to OHWI (M, kH, kW, C / group), i.e. conv2d with
// inputLayout nhwc and filterLayout ohwi. 2-D only.
LogicalResult convertNhwcConv(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0), w = c.requiredInput(1);
  if (failed(x) || failed(w) || failed(rejectInputsFrom(c, 3, {})) || failed(requireStatic(c, {*x, *w})))
    return failure();
  if (NC::rankOf(*x) != 4 || NC::rankOf(*w) != 4)
    return c.fail("only 2-D convolution is supported: X must be (N, H, W, C) and W (M, kH, kW, C / group)");
  ArrayRef<int64_t> xs = NC::shapeOf(*x), ws = NC::shapeOf(*w);
  SmallVector<int64_t> kernel{ws[1], ws[2]};
  if (auto k = c.intsAttr("kernel_shape"); k && ArrayRef<int64_t>(*k) != ArrayRef<int64_t>(kernel))
    return c.fail("'kernel_shape' does not match the weights' (M, kH, kW, C / group) spatial dimensions");
  SmallVector<int64_t> strides = c.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations = c.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1});
  if (strides.size() != 2 || dilations.size() != 2) return c.fail("'strides' and 'dilations' must have 2 values");
  const int64_t group = c.intAttr("group", 1);
  if (group < 1 || xs[3] != ws[3] * group || ws[0] % group)
    return c.fail("group (" + Twine(group) + ") must divide the " + Twine(ws[0]) +
                  " filters, and C / group must be the filter's last dimension (" + Twine(ws[3]) + ")");
  FailureOr<SmallVector<int64_t>> pads = resolveOnnxPads(c, xs.slice(1, 2), kernel, strides, dilations);
  if (failed(pads)) return failure();
  return c.done(c.emit("conv2d", {*x, *w, c.input(2)},
                       {c.i64ArrayAttr("padding", toWebNNPadding2d(*pads)), c.i64ArrayAttr("strides", strides),
                        c.i64ArrayAttr("dilations", dilations), c.i64Attr("groups", group),
                        c.strAttr("inputLayout", "nhwc"), c.strAttr("filterLayout", "ohwi")}));
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

// ----------------------------------------------------- position biases (T5)
// RelativePositionBias: the (1, N, S, S) bias T5 adds to attention scores,
// bias_table[bucket(key - query), head] with T5's bucketing of the relative
// position: half the buckets (or all, unidirectional) of which the first
// half are exact distances and the rest logarithmic bins up to
// max_distance; bidirectional puts keys after the query in the upper half,
// unidirectional clamps them to distance 0. ONNX Runtime reads the
// (num_buckets, N) table column-major (element [h, b] at h * num_buckets +
// b), which a reshape to (N, num_buckets) reproduces. The lengths must be
// constants: the buckets are computed here, in float as the kernel does.
LogicalResult convertRelativePositionBias(NodeConverter &c) {
  FailureOr<Value> table = c.requiredInput(0);
  if (failed(table) || failed(requireStatic(c, {*table}))) return failure();
  FailureOr<SmallVector<int64_t>> ql = c.constantIntsInput(1, "query_length");
  if (failed(ql)) return failure();
  FailureOr<SmallVector<int64_t>> kl = c.constantIntsInput(2, "key_length");
  if (failed(kl)) return failure();
  if (ql->size() != 1 || kl->size() != 1) return c.fail("query_length and key_length must hold one value each");
  const int64_t S = (*ql)[0], T = (*kl)[0];
  if (S < 1 || S != T)
    return c.fail("query_length (" + Twine(S) + ") must be positive and equal key_length (" + Twine(T) +
                  "): the bias is defined for self attention only");
  const int64_t maxDistance = c.intAttr("max_distance", 0);
  const bool bidirectional = c.intAttr("is_bidirectional", 0) != 0;
  if (maxDistance < 1) return c.fail("max_distance must be positive");
  ArrayRef<int64_t> ts = NC::shapeOf(*table);
  if (ts.size() != 2) return c.fail("bias_table must be 2-D (num_buckets, num_heads)");
  const int64_t buckets = ts[0], N = ts[1];
  const int64_t half = bidirectional ? buckets / 2 : buckets, maxExact = half / 2;
  if (maxExact < 1)
    return c.fail("num_buckets (" + Twine(buckets) + ") is too small: it must be at least " +
                  (bidirectional ? "4 with is_bidirectional" : "2"));
  std::vector<int32_t> index(size_t(S * T));
  for (int64_t i = 0; i < S; ++i)
    for (int64_t j = 0; j < T; ++j) {
      int64_t rel = j - i, bucket = 0;
      if (bidirectional) {
        if (rel > 0) bucket += half;
        else rel = -rel;
      } else {
        rel = rel > 0 ? 0 : -rel;
      }
      int64_t large = maxExact + int64_t(std::log(float(rel) / float(maxExact)) /
                                         std::log(float(maxDistance) / float(maxExact)) * float(half - maxExact));
      bucket += rel < maxExact ? rel : std::min(large, half - 1);
      index[size_t(i * T + j)] = int32_t(bucket);
    }
  Value idx = c.constant(DenseElementsAttr::get(RankedTensorType::get({S, T}, c.builder().getIntegerType(32)),
                                                ArrayRef<int32_t>(index)));
  Value y = c.emit("gather", {c.emitReshape(*table, {N, buckets}), idx}, {c.i64Attr("axis", 1)});
  return c.done(c.emitReshape(y, {1, N, S, T}));
}

// GatedRelativePositionBias: rel_pos (1, N, S, S) scaled per batch, head and
// query by a gate from the query itself: with q = (query_layer +
// query_bias) split into heads (B, N, S, H), g = q weight + bias (D values)
// summed in halves to (u, r), the gate is sigmoid(u) (sigmoid(r) eco_a - 1)
// + 2. The packed form (token_count rows with token_offset) is refused.
LogicalResult convertGatedRelativePositionBias(NodeConverter &c) {
  FailureOr<Value> q = c.requiredInput(0), qBias = c.requiredInput(1), relPos = c.requiredInput(2),
                   w = c.requiredInput(3), bias = c.requiredInput(4), ecoA = c.requiredInput(5);
  if (failed(q) || failed(qBias) || failed(relPos) || failed(w) || failed(bias) || failed(ecoA)) return failure();
  if (failed(rejectInputsFrom(c, 6, {"token_offset"}))) return failure();
  if (failed(requireStatic(c, {*q, *qBias, *relPos, *w, *bias, *ecoA}))) return failure();
  const int64_t N = c.intAttr("num_heads", 0);
  ArrayRef<int64_t> qs = NC::shapeOf(*q), ws = NC::shapeOf(*w), rs = NC::shapeOf(*relPos);
  if (qs.size() != 3) return c.fail("query_layer must be 3-D (batch, sequence, num_heads * head_size)");
  const int64_t B = qs[0], S = qs[1];
  if (N < 1 || qs[2] % N) return c.fail("num_heads (" + Twine(N) + ") must divide the query's " + Twine(qs[2]));
  const int64_t H = qs[2] / N;
  if (ws.size() != 2 || ws[0] != H || ws[1] % 2 || ws[1] < 2)
    return c.fail("weight must be (head_size = " + Twine(H) + ", D) with D even");
  const int64_t D = ws[1];
  if (NC::shapeOf(*bias) != ArrayRef<int64_t>{D}) return c.fail("bias must be (D) = (" + Twine(D) + ")");
  if (NC::shapeOf(*qBias) != ArrayRef<int64_t>{qs[2]}) return c.fail("query_bias must be (num_heads * head_size)");
  if (rs.size() != 4 || (rs[0] != 1 && rs[0] != B) || rs[1] != N || rs[2] != S || rs[3] != S)
    return c.fail("rel_pos must be (1, num_heads, sequence, sequence)");
  if (NC::shapeOf(*ecoA) != ArrayRef<int64_t>{1, N, 1, 1}) return c.fail("eco_a must be (1, num_heads, 1, 1)");
  Type f = NC::typeOf(*q).getElementType();
  Value heads = splitHeads(c, c.emit("add", {*q, *qBias}), N);                    // (B, N, S, H)
  Value g = c.emit("add", {c.emit("matmul", {heads, *w}), *bias});               // (B, N, S, D)
  g = c.emit("reduceSum", {c.emitReshape(g, {B, N, S, 2, D / 2})},
             {c.i64ArrayAttr("axes", {4}), c.boolAttr("keepDimensions", false)});  // (B, N, S, 2)
  g = c.emit("sigmoid", {g});
  auto half = [&](int64_t i) {
    return c.emit("slice", {g}, {c.i64ArrayAttr("starts", {0, 0, 0, i}), c.i64ArrayAttr("sizes", {B, N, S, 1})});
  };
  Value gate = c.emit("sub", {c.emit("mul", {half(1), *ecoA}), c.scalar(f, 1.0)});
  gate = c.emit("add", {c.emit("mul", {half(0), gate}), c.scalar(f, 2.0)});
  return c.done(c.emit("mul", {gate, *relPos}));
}

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


// ------------------------------------------ DecoderMaskedMultiHeadAttention
// One decoding step (query length 1) of MultiHeadAttention. Cross attention:
// key and value are the encoder's (B, N, L, H) cache, bias applies to the
// query only. Self attention: key and value are (B, 1, D) (or packed into a
// (B, 1, 3 D) query), bias applies to all three; past_key / past_value
// (B, N, P, H) are prepended, or, with past_present_share_buffer, are a
// (B, N, M, H) buffer whose first past_sequence_length rows are valid: the
// new key and value are written at that row (a run-time value: where() over
// a position iota), the rows after it take no part, and present_key /
// present_value are the updated buffers. mask_index is a 0/1 (B, keys) mask.
LogicalResult convertDecoderMaskedMHA(NodeConverter &c) {
  FailureOr<Value> qIn = c.requiredInput(0);
  if (failed(qIn)) return failure();
  if (failed(requireStatic(c, {*qIn, c.input(1), c.input(2), c.input(3), c.input(4), c.input(5), c.input(6),
                               c.input(10)})))
    return failure();
  if (c.hasInput(9)) return c.fail("input 9 ('cache_indirection', beam search) is not supported");
  if (c.hasInput(8)) {
    FailureOr<SmallVector<int64_t>> beams = c.constantIntsInput(8, "beam_width");
    if (failed(beams)) return failure();
    if (beams->size() != 1 || (*beams)[0] != 1) return c.fail("beam_width other than 1 (beam search) is not supported");
  }
  if (c.outputUsed(3) || c.intAttr("output_qk", 0) != 0) return c.fail("output 3 (qk) / output_qk is not supported");
  if (c.hasInput(5) != c.hasInput(6)) return c.fail("past_key and past_value go together");
  const bool shared = c.intAttr("past_present_share_buffer", 0) != 0;
  const int64_t N = c.intAttr("num_heads", 0);
  if (N < 1) return c.fail("num_heads must be positive");
  ArrayRef<int64_t> qs = NC::shapeOf(*qIn);
  if (qs.size() != 3 || qs[1] != 1)
    return c.fail("query must be (batch, 1, hidden) or packed (batch, 1, 3 * hidden): one decoding step");
  const int64_t B = qs[0];
  Value key = c.input(1), value = c.input(2), bias = c.input(10);
  if (!key != !value) return c.fail("key and value go together");
  const bool cross = key && NC::rankOf(key) == 4;
  const int64_t D = key ? qs[2] : qs[2] / 3;
  if (!key && qs[2] % 3) return c.fail("a packed query (batch, 1, 3 * hidden) must have a width divisible by 3");
  if (D % N) return c.fail("num_heads (" + Twine(N) + ") must divide the hidden size " + Twine(D));
  const int64_t Dh = D / N;
  if (bias && NC::shapeOf(bias) != ArrayRef<int64_t>{3 * D}) return c.fail("bias must be (3 * hidden)");
  auto slice3 = [&](Value x, int64_t offset, int64_t size) {
    return c.emit("slice", {x}, {c.i64ArrayAttr("starts", {0, 0, offset}), c.i64ArrayAttr("sizes", {B, 1, size})});
  };
  auto withBias = [&](Value x, int64_t offset) {
    if (!bias) return x;
    return c.emit("add", {x, c.emit("slice", {bias}, {c.i64ArrayAttr("starts", {offset}),
                                                      c.i64ArrayAttr("sizes", {D})})});
  };
  AttentionParts p;
  p.filter = c.floatAttr("mask_filter_value", -10000.f);
  p.scale = c.floatAttr("scale", 0.f);
  p.bias = c.input(4);
  Type f = NC::typeOf(*qIn).getElementType();
  p.q = splitHeads(c, withBias(key ? *qIn : slice3(*qIn, 0, D), 0), N);
  Value extra;  // an additive mask hiding the shared buffer's rows after the new one
  if (cross) {
    ArrayRef<int64_t> ks = NC::shapeOf(key), vs = NC::shapeOf(value);
    if (ks.size() != 4 || vs.size() != 4 || ks[0] != B || ks[1] != N || ks[3] != Dh || ArrayRef<int64_t>(vs) != ks)
      return c.fail("cross attention key and value must be (batch, num_heads, kv_sequence, head_size)");
    if (c.hasInput(5)) return c.fail("past_key/past_value are not allowed in cross attention (4-D key and value)");
    if (c.outputUsed(1) || c.outputUsed(2))
      return c.fail("present_key/present_value are not produced in cross attention (4-D key and value)");
    p.k = key;
    p.v = value;
  } else {
    if (key && (NC::shapeOf(key) != ArrayRef<int64_t>{B, 1, D} || NC::shapeOf(value) != ArrayRef<int64_t>{B, 1, D}))
      return c.fail("self attention key and value must be (batch, 1, hidden)");
    Value k = splitHeads(c, withBias(key ? key : slice3(*qIn, D, D), D), N);        // (B, N, 1, Dh)
    Value v = splitHeads(c, withBias(value ? value : slice3(*qIn, 2 * D, D), 2 * D), N);
    Value pk = c.input(5), pv = c.input(6);
    if (pk && (NC::rankOf(pk) != 4 || NC::shapeOf(pk)[0] != B || NC::shapeOf(pk)[1] != N ||
               NC::shapeOf(pk)[3] != Dh || NC::shapeOf(pv) != NC::shapeOf(pk)))
      return c.fail("past_key/past_value must be (batch, num_heads, past_or_max_sequence, head_size)");
    if (shared) {
      if (!pk) return c.fail("past_present_share_buffer needs past_key and past_value");
      if (!c.hasInput(7)) return c.fail("past_present_share_buffer needs input 7 (past_sequence_length)");
      Value len = c.input(7);
      if (NC::typeOf(len).getNumElements() != 1) return c.fail("past_sequence_length must hold one value");
      const int64_t M = NC::shapeOf(pk)[2];
      Type i32 = c.builder().getIntegerType(32);
      std::vector<int32_t> iota(static_cast<size_t>(M));
      for (int64_t j = 0; j < M; ++j) iota[size_t(j)] = int32_t(j);
      Value rows = c.constant(DenseElementsAttr::get(RankedTensorType::get({1, 1, M, 1}, i32), ArrayRef<int32_t>(iota)));
      Value at = c.emitReshape(c.emitCast(len, i32), {1, 1, 1, 1});
      Value here = c.emit("equal", {rows, at});
      p.k = c.emit("where", {here, k, pk});
      p.v = c.emit("where", {here, v, pv});
      Value later = c.emit("greater", {c.emitReshape(rows, {1, 1, 1, M}), at});
      extra = c.emit("where", {later, c.scalar(f, -std::numeric_limits<double>::infinity()), c.scalar(f, 0.0)});
    } else {
      if (c.hasInput(7)) return c.fail("past_sequence_length is only used with past_present_share_buffer = 1");
      p.k = k;
      p.v = v;
      if (pk && NC::shapeOf(pk)[2] > 0) {
        p.k = c.emit("concat", {pk, k}, {c.i64Attr("axis", 2)});
        p.v = c.emit("concat", {pv, v}, {c.i64Attr("axis", 2)});
      }
    }
  }
  if (c.emitFailed()) return failure();
  const int64_t T = NC::shapeOf(p.k)[2];
  // With a shared buffer the mask and attention_bias cover the valid rows
  // (past_sequence_length + 1 of them): zeros pad them to the buffer, whose
  // later rows `extra` hides.
  auto padKeys = [&](Value x) {
    ArrayRef<int64_t> xs = NC::shapeOf(x);
    if (!extra || xs.back() >= T) return x;
    SmallVector<int64_t> zs(xs);
    zs.back() = T - xs.back();
    return c.emit("concat", {x, c.splat(f, zs, 0.0)}, {c.i64Attr("axis", int64_t(xs.size()) - 1)});
  };
  if (Value mask = c.input(3)) {
    ArrayRef<int64_t> ms = NC::shapeOf(mask);
    const int64_t W = extra && ms.size() == 2 ? ms[1] : T;
    if (ms.size() != 2 || ms[0] != B || W > T || W < 1)
      return c.fail("mask_index must be a 0/1 (batch, " + Twine(extra ? "past_sequence_length + 1" : Twine(T).str()) +
                    ") key mask");
    FailureOr<Value> m = keyMaskBias(c, mask, "mask_index", false, B, 1, W, 0, p.filter, f);
    if (failed(m)) return failure();
    p.keyMask = padKeys(*m);
  }
  if (p.bias) {
    ArrayRef<int64_t> bs = NC::shapeOf(p.bias);
    if (bs.size() != 4 || bs[2] != 1 || bs.back() > T || (!extra && bs.back() != T))
      return c.fail("attention_bias must be (batch or 1, num_heads or 1, 1, keys)");
    p.bias = padKeys(p.bias);
  }
  if (extra) p.keyMask = p.keyMask ? c.emit("add", {p.keyMask, extra}) : extra;
  if (c.outputUsed(1)) c.setOutput(1, p.k);
  if (c.outputUsed(2)) c.setOutput(2, p.v);
  if (c.emitFailed()) return failure();
  return c.done(emitAttention(c, p));
}

}  // namespace

void populateComMicrosoftTransformer(OpConverterTable &t) {
  t.add(kMs, "Attention", 1, convertAttention);
  t.add(kMs, "DecoderMaskedMultiHeadAttention", 1, convertDecoderMaskedMHA);
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
  t.add(kMs, "SkipGroupNorm", 1, convertSkipGroupNorm);
  t.add(kMs, "NhwcConv", 1, convertNhwcConv);
  t.add(kMs, "RelativePositionBias", 1, convertRelativePositionBias);
  t.add(kMs, "GatedRelativePositionBias", 1, convertGatedRelativePositionBias);
}

}  // namespace mlir::webnn::onnx_import
