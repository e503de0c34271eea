// ONNX ops WebNN has no single op for, decomposed into element-wise and
// reduction ops: inverse trigonometric functions, TopK, BitShift, and the
// simple RNN unrolled over its static sequence length.
#include <algorithm>
#include <cmath>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

// atan(x) for float x: |x| is reduced to [0, tan(pi/8)] with
// atan(a) = pi/2 - atan(1/a) (a > tan(3pi/8)) and
// atan(a) = pi/4 + atan((a-1)/(a+1)) (a > tan(pi/8)), then a degree-9 odd
// minimax polynomial (Cephes' atanf coefficients, ~1 ulp in float32).
// The branches not taken may hold inf/NaN; `where` drops them.
Value emitAtan(NodeConverter &c, Value x) {
  if (c.emitFailed() || !x) return Value();
  Type elem = NodeConverter::typeOf(x).getElementType();
  auto k = [&](double v) { return c.scalar(elem, v); };
  Value a = c.emit("abs", {x});
  Value big = c.emit("greater", {a, k(2.414213562373095)});
  Value mid = c.emit("greater", {a, k(0.4142135623730950)});
  Value u = c.emit("where", {big, c.emit("neg", {c.emit("reciprocal", {a})}),
                             c.emit("where", {mid, c.emit("div", {c.emit("sub", {a, k(1)}),
                                                                   c.emit("add", {a, k(1)})}),
                                              a})});
  Value base = c.emit("where", {big, k(M_PI_2), c.emit("where", {mid, k(M_PI_4), k(0)})});
  Value z = c.emit("mul", {u, u});
  Value p = k(8.05374449538e-2);
  for (double coef : {-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1})
    p = c.emit("add", {c.emit("mul", {p, z}), k(coef)});
  p = c.emit("add", {c.emit("mul", {c.emit("mul", {p, z}), u}), u});
  Value r = c.emit("add", {base, p});
  // atan is odd; sign(0) = 0 keeps atan(+-0) = 0 and NaN stays NaN.
  return c.emit("mul", {c.emit("sign", {x}), r});
}

LogicalResult convertAtan(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  return c.done(emitAtan(c, *x));
}

// asin(x) = atan(x / sqrt((1 - x)(1 + x))); +-1 gives +-inf -> +-pi/2.
LogicalResult convertAsin(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value one = c.scalar(elem, 1);
  Value d = c.emit("sqrt", {c.emit("mul", {c.emit("sub", {one, *x}), c.emit("add", {one, *x})})});
  return c.done(emitAtan(c, c.emit("div", {*x, d})));
}

// acos(x) = 2 atan(sqrt((1 - x) / (1 + x))): no cancellation near x = 1
// (unlike pi/2 - asin); x = -1 gives atan(inf) = pi/2 -> pi.
LogicalResult convertAcos(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  Type elem = NodeConverter::typeOf(*x).getElementType();
  Value one = c.scalar(elem, 1);
  Value q = c.emit("sqrt", {c.emit("div", {c.emit("sub", {one, *x}), c.emit("add", {one, *x})})});
  return c.done(c.emit("mul", {emitAtan(c, q), c.scalar(elem, 2)}));
}

// TopK with a constant k: k rounds of argMax (argMin for largest=0) along
// the axis, each taking the first extreme element (ONNX orders ties by lower
// index) and masking it with the type's lowest (highest) value. Once only
// elements equal to that sentinel remain, argMax would find taken ones too,
// so then the first untaken index is chosen instead.
LogicalResult convertTopK(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0);
  if (failed(input)) return failure();
  int64_t kk;
  if (c.opset() < 10) {
    kk = c.intAttr("k", -1);
  } else {
    FailureOr<SmallVector<int64_t>> k = c.constantIntsInput(1, "K");
    if (failed(k)) return failure();
    if (k->size() != 1) return c.fail("'K' must hold one value");
    kk = (*k)[0];
  }
  Value x = *input;
  RankedTensorType t = NodeConverter::typeOf(x);
  int64_t rank = t.getRank();
  FailureOr<int64_t> axis = c.normalizeAxis(c.intAttr("axis", -1), rank, "axis");
  if (failed(axis)) return failure();
  int64_t n = t.getShape()[*axis];
  if (kk < 1 || kk > n) return c.fail("k = " + Twine(kk) + " is outside [1, " + Twine(n) + "]");
  bool largest = c.opset() < 11 || c.intAttr("largest", 1) != 0;
  Type elem = t.getElementType();
  double sentinel;
  if (auto f = mlir::dyn_cast<FloatType>(elem)) {
    sentinel = largest ? -INFINITY : INFINITY;
  } else {
    unsigned w = elem.getIntOrFloatBitWidth();
    bool isUnsigned = elem.isUnsignedInteger();
    if (w > 32) return c.fail("64-bit integer TopK is not supported (the sentinel is not exact)");
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, w - 1);
    double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
    sentinel = largest ? lo : hi;
  }
  StringRef arg = largest ? "argMax" : "argMin";
  Type i64 = IntegerType::get(c.context(), 64);
  Value iota = iotaAlong(c, i64, n, *axis, rank);
  Value sentinelV = c.scalar(elem, sentinel);
  Value cur = x;
  Value untaken = c.splat(Float32Type::get(c.context()), t.getShape(), 1.0);
  SmallVector<Value> values, indices;
  auto argAttrs = [&]() {
    return SmallVector<NamedAttribute>{
        c.i64Attr("axis", *axis), c.boolAttr("keepDimensions", true),
        c.builder().getNamedAttr("outputDataType", TypeAttr::get(i64))};
  };
  for (int64_t i = 0; i < kk; ++i) {
    Value idx = c.emit(arg, {cur}, argAttrs());
    if (i > 0) {
      Value best = c.emit("gatherElements", {cur, idx}, {c.i64Attr("axis", *axis)});
      Value exhausted = c.emit("equal", {best, sentinelV});
      Value firstUntaken = c.emit("argMax", {untaken}, argAttrs());
      idx = c.emit("where", {exhausted, firstUntaken, idx});
    }
    Value v = c.emit("gatherElements", {x, idx}, {c.i64Attr("axis", *axis)});
    values.push_back(v);
    indices.push_back(idx);
    if (i + 1 < kk) {
      Value hit = c.emit("equal", {iota, idx});
      cur = c.emit("where", {hit, sentinelV, cur});
      untaken = c.emit("where", {hit, c.scalar(Float32Type::get(c.context()), 0), untaken});
    }
  }
  auto join = [&](ArrayRef<Value> parts) {
    return parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", *axis)});
  };
  Value vals = join(values), idxs = join(indices);
  if (c.emitFailed() || !vals || !idxs) return failure();
  c.setOutput(0, vals);
  if (c.outputUsed(1)) c.setOutput(1, idxs);
  return success();
}

// BitShift on unsigned integers as exact integer arithmetic: x * 2^y (wraps
// like the shift) and x / 2^y (truncating = shifting for unsigned), 2^y
// gathered from a constant table; shifts >= the bit width give 0.
LogicalResult convertBitShift(NodeConverter &c) {
  FailureOr<Value> xIn = c.requiredInput(0), yIn = c.requiredInput(1);
  if (failed(xIn) || failed(yIn)) return failure();
  Type elem = NodeConverter::typeOf(*xIn).getElementType();
  std::string dir = c.stringAttr("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") return c.fail("'direction' must be LEFT or RIGHT");
  if (elem.isSignlessInteger(32)) {
    // ONNX BitShift takes unsigned types only, so a signless int32 is uint16
    // computed as int32: shifts of 16 bits, exact in int32 (2^16 fits).
    // Left: keep the low 16 - s bits first (x mod 2^(16-s)) so the product
    // stays below 2^16, as a 16-bit shift drops the high bits.
    SmallVector<APInt> pow, rest;
    for (unsigned sh = 0; sh <= 16; ++sh) {
      pow.push_back(APInt(32, 1).shl(sh));
      rest.push_back(APInt(32, 1).shl(16 - sh));
    }
    auto table = [&](ArrayRef<APInt> v) {
      return c.constant(DenseElementsAttr::get(RankedTensorType::get({17}, elem), v));
    };
    Type i64 = IntegerType::get(c.context(), 64);
    Value sh = c.emitCast(c.emit("min", {*yIn, c.scalar(elem, 16)}), i64);
    Value p = c.emit("gather", {table(pow), sh});
    if (dir == "RIGHT") return c.done(c.emit("div", {*xIn, p}));
    Value m = c.emit("gather", {table(rest), sh});
    Value low = c.emit("sub", {*xIn, c.emit("mul", {c.emit("div", {*xIn, m}), m})});
    return c.done(c.emit("mul", {low, p}));
  }
  if (!elem.isUnsignedInteger()) return c.fail("BitShift takes unsigned integers");
  unsigned w = elem.getIntOrFloatBitWidth();
  // table[s] = 2^s for s < w; table[w] = 0 (left) or 1 (right, masked below).
  SmallVector<APInt> table;
  for (unsigned s = 0; s < w; ++s) table.push_back(APInt(w, 1).shl(s));
  table.push_back(APInt(w, dir == "LEFT" ? 0 : 1));
  Value powers =
      c.constant(DenseElementsAttr::get(RankedTensorType::get({w + 1}, elem), table));
  Type i64 = IntegerType::get(c.context(), 64);
  // Clamp the shift in its own type (unsigned, so only the upper bound).
  Value y = c.emit("min", {*yIn, c.scalar(elem, w)});
  Value p = c.emit("gather", {powers, c.emitCast(y, i64)});
  if (dir == "LEFT") return c.done(c.emit("mul", {*xIn, p}));
  Value q = c.emit("div", {*xIn, p});
  Value tooFar = c.emit("equal", {y, c.scalar(elem, w)});
  return c.done(c.emit("where", {tooFar, c.scalar(elem, 0), q}));
}

// RNN: H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb), unrolled over the static
// sequence. The input projection is one matmul for all steps. With
// sequence_lens, a step t >= len leaves H unchanged and writes 0 to Y, which
// for the reverse direction also means starting at each sequence's end.
Value emitActivation(NodeConverter &c, StringRef name, Value v) {
  std::string n = name.lower();
  if (n == "tanh" || n == "relu" || n == "sigmoid" || n == "softsign" || n == "softplus")
    return c.emit(n, {v});
  return c.fail("activation '" + name + "' is not supported (Tanh, Relu, Sigmoid, Softsign, Softplus)"),
         Value();
}

LogicalResult convertRNN(NodeConverter &c) {
  FailureOr<Value> xIn = c.requiredInput(0), wIn = c.requiredInput(1), rIn = c.requiredInput(2);
  if (failed(xIn) || failed(wIn) || failed(rIn)) return failure();
  if (c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
    return c.fail("activation_alpha/activation_beta are not supported");
  std::string dir = c.stringAttr("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return c.fail("unknown direction '" + dir + "'");
  int64_t dirs = dir == "bidirectional" ? 2 : 1;
  SmallVector<std::string> acts;
  if (const onnx::AttributeProto *a = c.attr("activations"))
    for (const std::string &s : a->strings()) acts.push_back(s);
  if (acts.empty()) acts.assign(dirs, "Tanh");
  if (static_cast<int64_t>(acts.size()) != dirs) return c.fail("'activations' has the wrong length");
  bool batchMajor = c.intAttr("layout", 0) != 0;
  Value x = *xIn;
  if (batchMajor) x = c.emit("transpose", {x}, {c.i64ArrayAttr("permutation", {1, 0, 2})});
  if (!x) return failure();
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(x);
  if (xs.size() != 3) return c.fail("X must have rank 3");
  int64_t steps = xs[0], batch = xs[1], inSize = xs[2], hidden = c.intAttr("hidden_size", 0);
  if (hidden <= 0) return c.fail("missing 'hidden_size'");
  Type elem = NodeConverter::typeOf(x).getElementType();
  std::optional<float> clip;
  if (c.hasAttr("clip")) clip = c.floatAttr("clip", 0);
  Value h0 = c.input(5);
  if (h0 && batchMajor) h0 = c.emit("transpose", {h0}, {c.i64ArrayAttr("permutation", {1, 0, 2})});
  // step mask [steps][batch, 1] from sequence_lens (runtime values work too).
  Value lens = c.input(4);
  auto active = [&](int64_t t) -> Value {
    if (!lens) return Value();
    Value l = c.emitReshape(c.emitCast(lens, IntegerType::get(c.context(), 64)), {batch, 1});
    return c.emit("lesser", {c.constantI64({t}, {}), l});
  };
  Value flatX = c.emitReshape(x, {steps * batch, inSize});
  SmallVector<Value> ySeq(dirs), yLast(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    auto pick = [&](Value v, int64_t cols) {
      Value s = c.emit("slice", {v}, {c.i64ArrayAttr("starts", {d, 0, 0}),
                                      c.i64ArrayAttr("sizes", {1, hidden, cols})});
      return c.emit("transpose", {c.emitReshape(s, {hidden, cols})},
                    {c.i64ArrayAttr("permutation", {1, 0})});
    };
    Value wt = pick(*wIn, inSize), rt = pick(*rIn, hidden);
    Value proj = c.emit("matmul", {flatX, wt});
    if (c.hasInput(3)) {
      Value b = c.emit("slice", {c.input(3)}, {c.i64ArrayAttr("starts", {d, 0}),
                                               c.i64ArrayAttr("sizes", {1, 2 * hidden})});
      b = c.emitReshape(b, {2, hidden});
      b = c.emit("reduceSum", {b}, {c.i64ArrayAttr("axes", {0}), c.boolAttr("keepDimensions", true)});
      proj = c.emit("add", {proj, b});
    }
    proj = c.emitReshape(proj, {steps, batch, hidden});
    Value h = h0 ? c.emitReshape(c.emit("slice", {h0}, {c.i64ArrayAttr("starts", {d, 0, 0}),
                                                         c.i64ArrayAttr("sizes", {1, batch, hidden})}),
                                 {batch, hidden})
                 : c.splat(elem, {batch, hidden}, 0);
    bool reverse = dir == "reverse" || d == 1;
    SmallVector<Value> outs(steps);
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      Value xt = c.emitReshape(c.emit("slice", {proj}, {c.i64ArrayAttr("starts", {t, 0, 0}),
                                                        c.i64ArrayAttr("sizes", {1, batch, hidden})}),
                               {batch, hidden});
      Value pre = c.emit("add", {xt, c.emit("matmul", {h, rt})});
      if (clip) pre = c.emit("clamp", {pre}, {c.f64Attr("minValue", -*clip), c.f64Attr("maxValue", *clip)});
      Value hn = emitActivation(c, acts[d], pre);
      Value m = active(t);
      if (m) {
        h = c.emit("where", {m, hn, h});
        outs[t] = c.emit("where", {m, hn, c.scalar(elem, 0)});
      } else {
        h = hn;
        outs[t] = hn;
      }
    }
    if (c.emitFailed()) return failure();
    yLast[d] = c.emitReshape(h, {1, batch, hidden});
    if (c.outputUsed(0)) {
      SmallVector<Value> parts;
      for (Value o : outs) parts.push_back(c.emitReshape(o, {1, 1, batch, hidden}));
      ySeq[d] = parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", 0)});
    }
  }
  auto join = [&](ArrayRef<Value> parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", axis)});
  };
  Value yh = join(yLast, 0);  // [D, batch, H]
  if (batchMajor) yh = c.emit("transpose", {yh}, {c.i64ArrayAttr("permutation", {1, 0, 2})});
  Value y;
  if (c.outputUsed(0)) {
    y = join(ySeq, 1);  // [steps, D, batch, H]
    if (batchMajor) y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {2, 0, 1, 3})});
  }
  if (c.emitFailed()) return failure();
  if (y) c.setOutput(0, y);
  if (c.outputUsed(1)) c.setOutput(1, yh);
  return success();
}

// LSTM unrolled like RNN above, for what webnn.lstm cannot express: ONNX
// peepholes (the output gate reads the new cell state, WebNN's the previous
// one) and sequence_lens shorter than the sequence. Gates in W/R/B are
// ordered i, o, f, c; P is (Pi, Po, Pf).
LogicalResult convertLSTMUnrolled(NodeConverter &c) {
  FailureOr<Value> xIn = c.requiredInput(0), wIn = c.requiredInput(1), rIn = c.requiredInput(2);
  if (failed(xIn) || failed(wIn) || failed(rIn)) return failure();
  if (c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
    return c.fail("activation_alpha/activation_beta are not supported");
  if (c.intAttr("input_forget", 0) != 0) return c.fail("input_forget=1 is not supported");
  std::string dir = c.stringAttr("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return c.fail("unknown direction '" + dir + "'");
  int64_t dirs = dir == "bidirectional" ? 2 : 1;
  SmallVector<std::string> acts;
  if (const onnx::AttributeProto *a = c.attr("activations"))
    for (const std::string &s : a->strings()) acts.push_back(s);
  if (acts.empty())
    for (int64_t d = 0; d < dirs; ++d) acts.append({"Sigmoid", "Tanh", "Tanh"});
  if (static_cast<int64_t>(acts.size()) != 3 * dirs) return c.fail("'activations' has the wrong length");
  bool batchMajor = c.intAttr("layout", 0) != 0;
  auto swap01 = [&](Value v) {
    return v && batchMajor ? c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {1, 0, 2})}) : v;
  };
  Value x = swap01(*xIn);
  if (!x) return failure();
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(x);
  if (xs.size() != 3) return c.fail("X must have rank 3");
  int64_t steps = xs[0], batch = xs[1], inSize = xs[2], hidden = c.intAttr("hidden_size", 0);
  if (hidden <= 0) return c.fail("missing 'hidden_size'");
  Type elem = NodeConverter::typeOf(x).getElementType();
  std::optional<float> clip;
  if (c.hasAttr("clip")) clip = c.floatAttr("clip", 0);
  Value h0 = swap01(c.input(5)), c0 = swap01(c.input(6)), lens = c.input(4), peep = c.input(7);
  auto active = [&](int64_t t) -> Value {
    if (!lens) return Value();
    Value l = c.emitReshape(c.emitCast(lens, IntegerType::get(c.context(), 64)), {batch, 1});
    return c.emit("lesser", {c.constantI64({t}, {}), l});
  };
  auto sliceRows = [&](Value v, int64_t d, int64_t row, int64_t rows, int64_t cols) {
    Value s = c.emit("slice", {v}, {c.i64ArrayAttr("starts", {d, row, 0}),
                                    c.i64ArrayAttr("sizes", {1, rows, cols})});
    return c.emitReshape(s, {rows, cols});
  };
  auto stateOf = [&](Value v, int64_t d) {
    return v ? c.emitReshape(c.emit("slice", {v}, {c.i64ArrayAttr("starts", {d, 0, 0}),
                                                    c.i64ArrayAttr("sizes", {1, batch, hidden})}),
                             {batch, hidden})
             : c.splat(elem, {batch, hidden}, 0);
  };
  Value flatX = c.emitReshape(x, {steps * batch, inSize});
  SmallVector<Value> ySeq(dirs), yLast(dirs), cLast(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    auto tr = [&](Value v) { return c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {1, 0})}); };
    Value wt = tr(sliceRows(*wIn, d, 0, 4 * hidden, inSize));   // [in, 4H]
    Value rt = tr(sliceRows(*rIn, d, 0, 4 * hidden, hidden));   // [H, 4H]
    Value proj = c.emit("matmul", {flatX, wt});
    if (c.hasInput(3)) {
      Value b = c.emit("slice", {c.input(3)}, {c.i64ArrayAttr("starts", {d, 0}),
                                               c.i64ArrayAttr("sizes", {1, 8 * hidden})});
      b = c.emit("reduceSum", {c.emitReshape(b, {2, 4 * hidden})},
                 {c.i64ArrayAttr("axes", {0}), c.boolAttr("keepDimensions", true)});
      proj = c.emit("add", {proj, b});
    }
    proj = c.emitReshape(proj, {steps, batch, 4 * hidden});
    SmallVector<Value> p(3);  // Pi, Po, Pf as [1, H]
    if (peep)
      for (int64_t g = 0; g < 3; ++g)
        p[g] = c.emitReshape(c.emit("slice", {peep}, {c.i64ArrayAttr("starts", {d, g * hidden}),
                                                      c.i64ArrayAttr("sizes", {1, hidden})}),
                             {1, hidden});
    Value h = stateOf(h0, d), cs = stateOf(c0, d);
    bool reverse = dir == "reverse" || d == 1;
    SmallVector<Value> outs(steps);
    StringRef fAct = acts[3 * d], gAct = acts[3 * d + 1], hAct = acts[3 * d + 2];
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      Value pre = c.emitReshape(c.emit("slice", {proj}, {c.i64ArrayAttr("starts", {t, 0, 0}),
                                                         c.i64ArrayAttr("sizes", {1, batch, 4 * hidden})}),
                                {batch, 4 * hidden});
      pre = c.emit("add", {pre, c.emit("matmul", {h, rt})});
      auto gate = [&](int64_t g) {
        return c.emit("slice", {pre}, {c.i64ArrayAttr("starts", {0, g * hidden}),
                                       c.i64ArrayAttr("sizes", {batch, hidden})});
      };
      auto clipped = [&](Value v) {
        return clip ? c.emit("clamp", {v}, {c.f64Attr("minValue", -*clip), c.f64Attr("maxValue", *clip)}) : v;
      };
      Value gi = gate(0), go = gate(1), gf = gate(2), gc = gate(3);
      if (peep) {
        gi = c.emit("add", {gi, c.emit("mul", {p[0], cs})});
        gf = c.emit("add", {gf, c.emit("mul", {p[2], cs})});
      }
      Value it = emitActivation(c, fAct, clipped(gi)), ft = emitActivation(c, fAct, clipped(gf));
      Value ct = emitActivation(c, gAct, clipped(gc));
      Value cn = c.emit("add", {c.emit("mul", {ft, cs}), c.emit("mul", {it, ct})});
      if (peep) go = c.emit("add", {go, c.emit("mul", {p[1], cn})});
      Value ot = emitActivation(c, fAct, clipped(go));
      Value hn = c.emit("mul", {ot, emitActivation(c, hAct, cn)});
      if (Value m = active(t)) {
        h = c.emit("where", {m, hn, h});
        cs = c.emit("where", {m, cn, cs});
        outs[t] = c.emit("where", {m, hn, c.scalar(elem, 0)});
      } else {
        h = hn;
        cs = cn;
        outs[t] = hn;
      }
    }
    if (c.emitFailed()) return failure();
    yLast[d] = c.emitReshape(h, {1, batch, hidden});
    cLast[d] = c.emitReshape(cs, {1, batch, hidden});
    if (c.outputUsed(0)) {
      SmallVector<Value> parts;
      for (Value o : outs) parts.push_back(c.emitReshape(o, {1, 1, batch, hidden}));
      ySeq[d] = parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", 0)});
    }
  }
  auto join = [&](ArrayRef<Value> parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", axis)});
  };
  Value yh = swap01(join(yLast, 0)), yc = swap01(join(cLast, 0)), y;
  if (c.outputUsed(0)) {
    y = join(ySeq, 1);
    if (batchMajor) y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {2, 0, 1, 3})});
  }
  if (c.emitFailed()) return failure();
  if (y) c.setOutput(0, y);
  if (c.outputUsed(1)) c.setOutput(1, yh);
  if (c.outputUsed(2)) c.setOutput(2, yc);
  return success();
}

// GRU unrolled, for what webnn.gru cannot express: clip and sequence_lens
// that are not all full (or not constant). Gates in W/R/B are ordered z, r, h.
LogicalResult convertGRUUnrolled(NodeConverter &c) {
  FailureOr<Value> xIn = c.requiredInput(0), wIn = c.requiredInput(1), rIn = c.requiredInput(2);
  if (failed(xIn) || failed(wIn) || failed(rIn)) return failure();
  if (c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
    return c.fail("activation_alpha/activation_beta are not supported");
  std::string dir = c.stringAttr("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return c.fail("unknown direction '" + dir + "'");
  int64_t dirs = dir == "bidirectional" ? 2 : 1;
  SmallVector<std::string> acts;
  if (const onnx::AttributeProto *a = c.attr("activations"))
    for (const std::string &s : a->strings()) acts.push_back(s);
  if (acts.empty())
    for (int64_t d = 0; d < dirs; ++d) acts.append({"Sigmoid", "Tanh"});
  if (static_cast<int64_t>(acts.size()) != 2 * dirs) return c.fail("'activations' has the wrong length");
  bool batchMajor = c.intAttr("layout", 0) != 0, linearBeforeReset = c.intAttr("linear_before_reset", 0) != 0;
  auto swap01 = [&](Value v) {
    return v && batchMajor ? c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {1, 0, 2})}) : v;
  };
  Value x = swap01(*xIn);
  if (!x) return failure();
  ArrayRef<int64_t> xs = NodeConverter::shapeOf(x);
  if (xs.size() != 3) return c.fail("X must have rank 3");
  int64_t steps = xs[0], batch = xs[1], inSize = xs[2], hidden = c.intAttr("hidden_size", 0);
  if (hidden <= 0) return c.fail("missing 'hidden_size'");
  Type elem = NodeConverter::typeOf(x).getElementType();
  std::optional<float> clip;
  if (c.hasAttr("clip")) clip = c.floatAttr("clip", 0);
  Value h0 = swap01(c.input(5)), lens = c.input(4);
  auto active = [&](int64_t t) -> Value {
    if (!lens) return Value();
    Value l = c.emitReshape(c.emitCast(lens, IntegerType::get(c.context(), 64)), {batch, 1});
    return c.emit("lesser", {c.constantI64({t}, {}), l});
  };
  auto sliceRows = [&](Value v, int64_t d, int64_t row, int64_t rows, int64_t cols) {
    Value s = c.emit("slice", {v}, {c.i64ArrayAttr("starts", {d, row, 0}), c.i64ArrayAttr("sizes", {1, rows, cols})});
    return c.emit("transpose", {c.emitReshape(s, {rows, cols})}, {c.i64ArrayAttr("permutation", {1, 0})});
  };
  auto biasPart = [&](int64_t d, int64_t from, int64_t len) -> Value {
    if (!c.hasInput(3)) return Value();
    return c.emitReshape(c.emit("slice", {c.input(3)}, {c.i64ArrayAttr("starts", {d, from}),
                                                        c.i64ArrayAttr("sizes", {1, len})}),
                         {1, len});
  };
  auto clipped = [&](Value v) {
    return clip ? c.emit("clamp", {v}, {c.f64Attr("minValue", -*clip), c.f64Attr("maxValue", *clip)}) : v;
  };
  Value flatX = c.emitReshape(x, {steps * batch, inSize});
  SmallVector<Value> ySeq(dirs), yLast(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    Value wt = sliceRows(*wIn, d, 0, 3 * hidden, inSize);   // [in, 3H]
    Value rzr = sliceRows(*rIn, d, 0, 2 * hidden, hidden);  // [H, 2H] (z, r)
    Value rh = sliceRows(*rIn, d, 2 * hidden, hidden, hidden);
    Value proj = c.emit("matmul", {flatX, wt});
    if (Value wb = biasPart(d, 0, 3 * hidden)) proj = c.emit("add", {proj, wb});
    proj = c.emitReshape(proj, {steps, batch, 3 * hidden});
    Value rbzr = biasPart(d, 3 * hidden, 2 * hidden), rbh = biasPart(d, 5 * hidden, hidden);
    Value h = h0 ? c.emitReshape(c.emit("slice", {h0}, {c.i64ArrayAttr("starts", {d, 0, 0}),
                                                         c.i64ArrayAttr("sizes", {1, batch, hidden})}),
                                 {batch, hidden})
                 : c.splat(elem, {batch, hidden}, 0);
    bool reverse = dir == "reverse" || d == 1;
    SmallVector<Value> outs(steps);
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      Value xt = c.emitReshape(c.emit("slice", {proj}, {c.i64ArrayAttr("starts", {t, 0, 0}),
                                                        c.i64ArrayAttr("sizes", {1, batch, 3 * hidden})}),
                               {batch, 3 * hidden});
      auto part = [&](Value v, int64_t g, int64_t width) {
        return c.emit("slice", {v}, {c.i64ArrayAttr("starts", {0, g * hidden}), c.i64ArrayAttr("sizes", {batch, width})});
      };
      Value zr = c.emit("add", {part(xt, 0, 2 * hidden), c.emit("matmul", {h, rzr})});
      if (rbzr) zr = c.emit("add", {zr, rbzr});
      Value z = emitActivation(c, acts[2 * d], clipped(part(zr, 0, hidden)));
      Value r = emitActivation(c, acts[2 * d], clipped(part(zr, 1, hidden)));
      Value rec;
      if (linearBeforeReset) {
        rec = c.emit("matmul", {h, rh});
        if (rbh) rec = c.emit("add", {rec, rbh});
        rec = c.emit("mul", {r, rec});
      } else {
        rec = c.emit("matmul", {c.emit("mul", {r, h}), rh});
        if (rbh) rec = c.emit("add", {rec, rbh});
      }
      Value cand = emitActivation(c, acts[2 * d + 1], clipped(c.emit("add", {part(xt, 2, hidden), rec})));
      // H = (1 - z) * cand + z * H = cand + z * (H - cand)
      Value hn = c.emit("add", {cand, c.emit("mul", {z, c.emit("sub", {h, cand})})});
      if (Value m = active(t)) {
        h = c.emit("where", {m, hn, h});
        outs[t] = c.emit("where", {m, hn, c.scalar(elem, 0)});
      } else {
        h = hn;
        outs[t] = hn;
      }
    }
    if (c.emitFailed()) return failure();
    yLast[d] = c.emitReshape(h, {1, batch, hidden});
    if (c.outputUsed(0)) {
      SmallVector<Value> parts;
      for (Value o : outs) parts.push_back(c.emitReshape(o, {1, 1, batch, hidden}));
      ySeq[d] = parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", 0)});
    }
  }
  auto join = [&](ArrayRef<Value> parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", axis)});
  };
  Value yh = swap01(join(yLast, 0)), y;
  if (c.outputUsed(0)) {
    y = join(ySeq, 1);
    if (batchMajor) y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {2, 0, 1, 3})});
  }
  if (c.emitFailed()) return failure();
  if (y) c.setOutput(0, y);
  if (c.outputUsed(1)) c.setOutput(1, yh);
  return success();
}

// Det of [..., n, n] for n <= 4 by the Leibniz formula: the sum over the
// n! permutations of signed products of slices (a few dozen ops at most;
// larger matrices would need pivoting, which is data-dependent).
LogicalResult convertDet(NodeConverter &c) {
  FailureOr<Value> input = c.requiredInput(0);
  if (failed(input)) return failure();
  SmallVector<int64_t> shape(NodeConverter::shapeOf(*input));
  int64_t rank = shape.size();
  if (rank < 2 || shape[rank - 1] != shape[rank - 2]) return c.fail("input must be [..., n, n]");
  int64_t n = shape.back();
  if (n > 4) return c.fail("Det of " + Twine(n) + "x" + Twine(n) + " matrices is not supported (n <= 4)");
  SmallVector<int64_t> outShape(shape.begin(), shape.end() - 2);
  int64_t batch = 1;
  for (int64_t d : outShape) batch *= d;
  Value flat = c.emitReshape(*input, {batch, n * n});
  SmallVector<Value> e(n * n);
  for (int64_t i = 0; i < n * n; ++i)
    e[i] = c.emit("slice", {flat}, {c.i64ArrayAttr("starts", {0, i}), c.i64ArrayAttr("sizes", {batch, 1})});
  SmallVector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  Value plus, minus;
  do {
    int64_t inversions = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) inversions += perm[i] > perm[j];
    Value term = e[perm[0]];
    for (int64_t i = 1; i < n; ++i) term = c.emit("mul", {term, e[i * n + perm[i]]});
    Value &acc = inversions % 2 ? minus : plus;
    acc = acc ? c.emit("add", {acc, term}) : term;
  } while (std::next_permutation(perm.begin(), perm.end()));
  Value det = minus ? c.emit("sub", {plus, minus}) : plus;
  return c.done(c.emitReshape(det, outShape));
}

}  // namespace

LogicalResult emitUnrolledLSTM(NodeConverter &c) { return convertLSTMUnrolled(c); }
LogicalResult emitUnrolledGRU(NodeConverter &c) { return convertGRUUnrolled(c); }

void populateDefaultDomainMath(OpConverterTable &t) {
  t.add("", "Det", 11, convertDet);
  t.add("", "Acos", 7, convertAcos);
  t.add("", "Asin", 7, convertAsin);
  t.add("", "Atan", 7, convertAtan);
  t.add("", "BitShift", 11, convertBitShift);
  t.add("", "RNN", 7, convertRNN);
  t.add("", "TopK", 1, convertTopK);
}

}  // namespace mlir::webnn::onnx_import
