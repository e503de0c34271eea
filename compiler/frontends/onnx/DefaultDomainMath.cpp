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
  if (ShapedType::isDynamic(n))
    return c.fail("TopK along dynamic dimension " + Twine(*axis) + " is not supported (fix it with --shape)");
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
  // Only the axis: `where` broadcasts it to the input's shape (which may have
  // dynamic dimensions) in the first round that masks.
  SmallVector<int64_t> axisOnly(rank, 1);
  axisOnly[*axis] = n;
  Value untaken = c.splat(Float32Type::get(c.context()), axisOnly, 1.0);
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

Value emitActivation(NodeConverter &c, StringRef name, Value v) {
  std::string n = name.lower();
  if (n == "tanh" || n == "relu" || n == "sigmoid" || n == "softsign" || n == "softplus")
    return c.emit(n, {v});
  return c.fail("activation '" + name + "' is not supported (Tanh, Relu, Sigmoid, Softsign, Softplus)"),
         Value();
}

// What RNN, LSTM and GRU share when unrolled over the static sequence: the
// options, X time-major, the input projection of all steps as one matmul,
// initial states, the sequence_lens step mask, and assembling Y / Y_h / Y_c.
// With sequence_lens, a step t >= len leaves the states unchanged and writes
// 0 to Y, which for the reverse direction also means starting at each
// sequence's end.
class UnrolledRecurrence {
 public:
  explicit UnrolledRecurrence(NodeConverter &c) : c(c) {}

  // `gateActs`: the default activations of one direction.
  LogicalResult init(ArrayRef<StringRef> gateActs) {
    FailureOr<Value> xIn = c.requiredInput(0), wIn = c.requiredInput(1), rIn = c.requiredInput(2);
    if (failed(xIn) || failed(wIn) || failed(rIn)) return failure();
    w = *wIn, r = *rIn;
    if (c.hasAttr("activation_alpha") || c.hasAttr("activation_beta"))
      return c.fail("activation_alpha/activation_beta are not supported");
    direction = c.stringAttr("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
      return c.fail("unknown direction '" + direction + "'");
    dirs = direction == "bidirectional" ? 2 : 1;
    if (const onnx::AttributeProto *a = c.attr("activations"))
      for (const std::string &s : a->strings()) acts.push_back(s);
    if (acts.empty())
      for (int64_t d = 0; d < dirs; ++d) acts.append(gateActs.begin(), gateActs.end());
    if (static_cast<int64_t>(acts.size()) != int64_t(gateActs.size()) * dirs)
      return c.fail("'activations' has the wrong length");
    batchMajor = c.intAttr("layout", 0) != 0;
    Value x = swap01(*xIn);
    if (!x) return failure();
    ArrayRef<int64_t> xs = NodeConverter::shapeOf(x);
    if (xs.size() != 3) return c.fail("X must have rank 3");
    steps = xs[0], batch = xs[1], inSize = xs[2], hidden = c.intAttr("hidden_size", 0);
    if (hidden <= 0) return c.fail("missing 'hidden_size'");
    elem = NodeConverter::typeOf(x).getElementType();
    if (c.hasAttr("clip")) clip = c.floatAttr("clip", 0);
    lens = c.input(4);
    flatX = c.emitReshape(x, {steps * batch, inSize});
    return success();
  }

  // [steps, batch, rows] = X W_d^T (+ the summed Wb + Rb of `biasWidth`
  // when `sumBiases`), W_d being rows [row, row + rows) of direction d.
  Value projectInput(int64_t d, int64_t rows, bool sumBiases) {
    Value proj = c.emit("matmul", {flatX, weightT(w, d, 0, rows, inSize)});
    if (sumBiases && c.hasInput(3)) {
      Value b = c.emitReshape(bias(d, 0, 2 * rows), {2, rows});
      proj = c.emit("add", {proj, c.emit("reduceSum", {b}, {c.i64ArrayAttr("axes", {0}),
                                                            c.boolAttr("keepDimensions", true)})});
    }
    return c.emitReshape(proj, {steps, batch, rows});
  }
  // Rows [row, row + rows) of v[d] ([dirs, R, cols]) transposed: [cols, rows].
  Value weightT(Value v, int64_t d, int64_t row, int64_t rows, int64_t cols) {
    Value s = c.emit("slice", {v}, {c.i64ArrayAttr("starts", {d, row, 0}), c.i64ArrayAttr("sizes", {1, rows, cols})});
    return c.emit("transpose", {c.emitReshape(s, {rows, cols})}, {c.i64ArrayAttr("permutation", {1, 0})});
  }
  // B[d, from : from + len] as [1, len], or null without B.
  Value bias(int64_t d, int64_t from, int64_t len) {
    if (!c.hasInput(3)) return Value();
    return c.emitReshape(c.emit("slice", {c.input(3)}, {c.i64ArrayAttr("starts", {d, from}),
                                                        c.i64ArrayAttr("sizes", {1, len})}),
                         {1, len});
  }
  // Input `index` (initial_h 5, initial_c 6) for direction d, or zeros.
  Value initialState(int64_t index, int64_t d) {
    Value v = swap01(c.input(index));
    return v ? c.emitReshape(c.emit("slice", {v}, {c.i64ArrayAttr("starts", {d, 0, 0}),
                                                    c.i64ArrayAttr("sizes", {1, batch, hidden})}),
                             {batch, hidden})
             : c.splat(elem, {batch, hidden}, 0);
  }
  // proj[t] as [batch, width].
  Value step(Value proj, int64_t t, int64_t width) {
    return c.emitReshape(c.emit("slice", {proj}, {c.i64ArrayAttr("starts", {t, 0, 0}),
                                                  c.i64ArrayAttr("sizes", {1, batch, width})}),
                         {batch, width});
  }
  Value clipped(Value v) {
    return clip ? c.emit("clamp", {v}, {c.f64Attr("minValue", -*clip), c.f64Attr("maxValue", *clip)}) : v;
  }
  bool reverse(int64_t d) const { return direction == "reverse" || d == 1; }
  // Step t's state updates under the sequence_lens mask: each states[k]
  // becomes fresh[k] where t < len; Y[t] is fresh[0] there, else 0.
  Value advance(int64_t t, ArrayRef<Value> fresh, MutableArrayRef<Value> states) {
    if (!lens) {
      for (size_t k = 0; k < fresh.size(); ++k) states[k] = fresh[k];
      return fresh[0];
    }
    Value l = c.emitReshape(c.emitCast(lens, IntegerType::get(c.context(), 64)), {batch, 1});
    Value m = c.emit("lesser", {c.constantI64({t}, {}), l});
    for (size_t k = 0; k < fresh.size(); ++k) states[k] = c.emit("where", {m, fresh[k], states[k]});
    return c.emit("where", {m, fresh[0], c.scalar(elem, 0)});
  }
  // One direction done: its Y steps (indexed by time) and final states.
  void finishDirection(ArrayRef<Value> ySteps, ArrayRef<Value> states) {
    finalStates.resize(states.size());
    for (size_t k = 0; k < states.size(); ++k) finalStates[k].push_back(c.emitReshape(states[k], {1, batch, hidden}));
    if (c.outputUsed(0)) {
      SmallVector<Value> parts;
      for (Value o : ySteps) parts.push_back(c.emitReshape(o, {1, 1, batch, hidden}));
      ySeq.push_back(join(parts, 0));
    }
  }
  // Y [steps, dirs, batch, hidden] (batch first with layout 1) and the
  // final states as outputs 1, 2...
  LogicalResult setOutputs() {
    if (c.emitFailed()) return failure();
    if (c.outputUsed(0)) {
      Value y = join(ySeq, 1);
      if (batchMajor) y = c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", {2, 0, 1, 3})});
      if (!y) return failure();
      c.setOutput(0, y);
    }
    for (size_t k = 0; k < finalStates.size(); ++k)
      if (c.outputUsed(int(k) + 1)) {
        Value v = swap01(join(finalStates[k], 0));
        if (!v) return failure();
        c.setOutput(int(k) + 1, v);
      }
    return success();
  }

  NodeConverter &c;
  Value w, r, flatX, lens;
  std::string direction;
  int64_t dirs = 1, steps = 0, batch = 0, inSize = 0, hidden = 0;
  bool batchMajor = false;
  SmallVector<std::string> acts;
  Type elem;
  std::optional<float> clip;

 private:
  Value swap01(Value v) {
    return v && batchMajor ? c.emit("transpose", {v}, {c.i64ArrayAttr("permutation", {1, 0, 2})}) : v;
  }
  Value join(ArrayRef<Value> parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : c.emit("concat", parts, {c.i64Attr("axis", axis)});
  }
  SmallVector<Value> ySeq;
  SmallVector<SmallVector<Value>> finalStates;  // per state, per direction
};

// RNN: H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb).
LogicalResult convertRNN(NodeConverter &c) {
  UnrolledRecurrence u(c);
  if (failed(u.init({"Tanh"}))) return failure();
  for (int64_t d = 0; d < u.dirs; ++d) {
    Value proj = u.projectInput(d, u.hidden, /*sumBiases=*/true);
    Value rt = u.weightT(u.r, d, 0, u.hidden, u.hidden);
    Value h[1] = {u.initialState(5, d)};
    SmallVector<Value> ys(u.steps);
    for (int64_t i = 0; i < u.steps; ++i) {
      int64_t t = u.reverse(d) ? u.steps - 1 - i : i;
      Value pre = c.emit("add", {u.step(proj, t, u.hidden), c.emit("matmul", {h[0], rt})});
      Value hn = emitActivation(c, u.acts[d], u.clipped(pre));
      ys[t] = u.advance(t, {hn}, h);
    }
    if (c.emitFailed()) return failure();
    u.finishDirection(ys, h);
  }
  return u.setOutputs();
}

// LSTM, for what webnn.lstm cannot express: ONNX peepholes (the output gate
// reads the new cell state, WebNN's the previous one) and sequence_lens
// shorter than the sequence. Gates in W/R/B are ordered i, o, f, c; P is
// (Pi, Po, Pf).
LogicalResult convertLSTMUnrolled(NodeConverter &c) {
  if (c.intAttr("input_forget", 0) != 0) return c.fail("input_forget=1 is not supported");
  UnrolledRecurrence u(c);
  if (failed(u.init({"Sigmoid", "Tanh", "Tanh"}))) return failure();
  int64_t H = u.hidden;
  Value peep = c.input(7);
  for (int64_t d = 0; d < u.dirs; ++d) {
    Value proj = u.projectInput(d, 4 * H, /*sumBiases=*/true);
    Value rt = u.weightT(u.r, d, 0, 4 * H, H);  // [H, 4H]
    SmallVector<Value> p(3);  // Pi, Po, Pf as [1, H]
    if (peep)
      for (int64_t g = 0; g < 3; ++g)
        p[g] = c.emitReshape(c.emit("slice", {peep}, {c.i64ArrayAttr("starts", {d, g * H}),
                                                      c.i64ArrayAttr("sizes", {1, H})}),
                             {1, H});
    Value states[2] = {u.initialState(5, d), u.initialState(6, d)};  // h, c
    SmallVector<Value> ys(u.steps);
    StringRef fAct = u.acts[3 * d], gAct = u.acts[3 * d + 1], hAct = u.acts[3 * d + 2];
    for (int64_t i = 0; i < u.steps; ++i) {
      int64_t t = u.reverse(d) ? u.steps - 1 - i : i;
      Value pre = c.emit("add", {u.step(proj, t, 4 * H), c.emit("matmul", {states[0], rt})});
      auto gate = [&](int64_t g) {
        return c.emit("slice", {pre}, {c.i64ArrayAttr("starts", {0, g * H}), c.i64ArrayAttr("sizes", {u.batch, H})});
      };
      Value cs = states[1];
      Value gi = gate(0), go = gate(1), gf = gate(2), gc = gate(3);
      if (peep) {
        gi = c.emit("add", {gi, c.emit("mul", {p[0], cs})});
        gf = c.emit("add", {gf, c.emit("mul", {p[2], cs})});
      }
      Value it = emitActivation(c, fAct, u.clipped(gi)), ft = emitActivation(c, fAct, u.clipped(gf));
      Value ct = emitActivation(c, gAct, u.clipped(gc));
      Value cn = c.emit("add", {c.emit("mul", {ft, cs}), c.emit("mul", {it, ct})});
      if (peep) go = c.emit("add", {go, c.emit("mul", {p[1], cn})});
      Value ot = emitActivation(c, fAct, u.clipped(go));
      Value hn = c.emit("mul", {ot, emitActivation(c, hAct, cn)});
      ys[t] = u.advance(t, {hn, cn}, states);
    }
    if (c.emitFailed()) return failure();
    u.finishDirection(ys, states);
  }
  return u.setOutputs();
}

// GRU, for what webnn.gru cannot express: clip and sequence_lens that are
// not all full (or not constant). Gates in W/R/B are ordered z, r, h.
LogicalResult convertGRUUnrolled(NodeConverter &c) {
  UnrolledRecurrence u(c);
  if (failed(u.init({"Sigmoid", "Tanh"}))) return failure();
  int64_t H = u.hidden;
  bool linearBeforeReset = c.intAttr("linear_before_reset", 0) != 0;
  for (int64_t d = 0; d < u.dirs; ++d) {
    Value proj = u.projectInput(d, 3 * H, /*sumBiases=*/false);
    if (Value wb = u.bias(d, 0, 3 * H)) proj = c.emit("add", {proj, wb});
    Value rzr = u.weightT(u.r, d, 0, 2 * H, H);  // [H, 2H] (z, r)
    Value rh = u.weightT(u.r, d, 2 * H, H, H);
    Value rbzr = u.bias(d, 3 * H, 2 * H), rbh = u.bias(d, 5 * H, H);
    Value h[1] = {u.initialState(5, d)};
    SmallVector<Value> ys(u.steps);
    for (int64_t i = 0; i < u.steps; ++i) {
      int64_t t = u.reverse(d) ? u.steps - 1 - i : i;
      Value xt = u.step(proj, t, 3 * H);
      auto part = [&](Value v, int64_t g, int64_t width) {
        return c.emit("slice", {v}, {c.i64ArrayAttr("starts", {0, g * H}), c.i64ArrayAttr("sizes", {u.batch, width})});
      };
      Value zr = c.emit("add", {part(xt, 0, 2 * H), c.emit("matmul", {h[0], rzr})});
      if (rbzr) zr = c.emit("add", {zr, rbzr});
      Value z = emitActivation(c, u.acts[2 * d], u.clipped(part(zr, 0, H)));
      Value r = emitActivation(c, u.acts[2 * d], u.clipped(part(zr, 1, H)));
      Value rec;
      if (linearBeforeReset) {
        rec = c.emit("matmul", {h[0], rh});
        if (rbh) rec = c.emit("add", {rec, rbh});
        rec = c.emit("mul", {r, rec});
      } else {
        rec = c.emit("matmul", {c.emit("mul", {r, h[0]}), rh});
        if (rbh) rec = c.emit("add", {rec, rbh});
      }
      Value cand = emitActivation(c, u.acts[2 * d + 1], u.clipped(c.emit("add", {part(xt, 2, H), rec})));
      // H = (1 - z) * cand + z * H = cand + z * (H - cand)
      Value hn = c.emit("add", {cand, c.emit("mul", {z, c.emit("sub", {h[0], cand})})});
      ys[t] = u.advance(t, {hn}, h);
    }
    if (c.emitFailed()) return failure();
    u.finishDirection(ys, h);
  }
  return u.setOutputs();
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
