// Loop and Scan with a trip count known at compile time, unrolled: the body
// subgraph is converted once per iteration with its inputs bound to that
// iteration's values (WebNN graphs have no runtime control flow). A Loop's
// condition must stay a compile-time constant; Scan lengths are static.
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

constexpr int64_t kMaxUnrolledIterations = 4096;

// Binds body inputs for one iteration and converts the body; restores any
// outer value a body name shadowed once the node is done (ScopedNames).
class ScopedNames {
 public:
  ScopedNames(GraphImporter &g, const onnx::GraphProto &body) : g_(g) {
    auto save = [&](const std::string &n) {
      if (!n.empty() && g.isDefined(n) && !saved_.count(n)) saved_[n] = g.lookup(n);
    };
    for (const onnx::ValueInfoProto &in : body.input()) save(in.name());
    for (const onnx::NodeProto &node : body.node())
      for (const std::string &o : node.output()) save(o);
  }
  ~ScopedNames() {
    for (auto &entry : saved_) g_.define(entry.getKey(), entry.getValue());
  }

 private:
  GraphImporter &g_;
  llvm::StringMap<Value> saved_;
};

FailureOr<SmallVector<Value>> runBody(NodeConverter &c, const onnx::GraphProto &body,
                                      ArrayRef<Value> inputs) {
  GraphImporter &g = c.graphImporter();
  for (int i = 0; i < body.input_size(); ++i) g.define(body.input(i).name(), inputs[i]);
  if (failed(g.convertSubgraph(body))) return failure();
  SmallVector<Value> outs;
  for (const onnx::ValueInfoProto &o : body.output()) {
    Value v = g.lookup(o.name());
    if (!v) return c.fail("body output '" + o.name() + "' is not produced"), failure();
    outs.push_back(v);
  }
  return outs;
}

FailureOr<const onnx::GraphProto *> bodyAttr(NodeConverter &c) {
  const onnx::AttributeProto *a = c.attr("body");
  if (!a || !a->has_g()) return c.fail("missing 'body' subgraph"), failure();
  if (a->g().initializer_size() > 0) return c.fail("body initializers are not supported"), failure();
  return &a->g();
}

// Stacks per-iteration values along a new axis `axis` (reversed if asked).
Value stack(NodeConverter &c, SmallVector<Value> parts, int64_t axis, bool reverse) {
  if (parts.empty()) return c.fail("zero iterations give an empty scan output"), Value();
  if (reverse) std::reverse(parts.begin(), parts.end());
  SmallVector<Value> lifted;
  for (Value p : parts) {
    if (!p) return Value();
    SmallVector<int64_t> s(NodeConverter::shapeOf(p));
    if (axis < 0) axis += s.size() + 1;
    s.insert(s.begin() + axis, 1);
    lifted.push_back(c.emitReshape(p, s));
  }
  return lifted.size() == 1 ? lifted[0] : c.emit("concat", lifted, {c.i64Attr("axis", axis)});
}

// Loop(M?, cond?, v_initial...): body(iteration_num, cond_in, v...) ->
// (cond_out, v..., scan...).
LogicalResult convertLoop(NodeConverter &c) {
  FailureOr<const onnx::GraphProto *> bodyOr = bodyAttr(c);
  if (failed(bodyOr)) return failure();
  const onnx::GraphProto &body = **bodyOr;
  int64_t trip = -1;
  if (c.hasInput(0)) {
    FailureOr<SmallVector<int64_t>> m = c.constantIntsInput(0, "M");
    if (failed(m)) return failure();
    if (m->size() != 1) return c.fail("'M' must be a scalar");
    trip = (*m)[0];
  }
  bool cond = true;
  if (c.hasInput(1)) {
    FailureOr<ConstantData> cd = c.requireConstantInput(1, "cond");
    if (failed(cd)) return failure();
    if (cd->numElements() != 1) return c.fail("'cond' must be a scalar");
    cond = cd->intAt(0) != 0;
  }
  int64_t carried = static_cast<int64_t>(c.numInputs()) - 2;
  if (carried < 0) carried = 0;
  if (body.input_size() != carried + 2 || body.output_size() < carried + 1)
    return c.fail("the body's inputs/outputs do not match the loop-carried values");
  int64_t scans = body.output_size() - 1 - carried;
  SmallVector<Value> state;
  for (int64_t i = 0; i < carried; ++i) {
    FailureOr<Value> v = c.requiredInput(2 + i);
    if (failed(v)) return failure();
    state.push_back(*v);
  }
  ScopedNames scope(c.graphImporter(), body);
  SmallVector<SmallVector<Value>> scanParts(scans);
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  for (int64_t it = 0; cond && (trip < 0 || it < trip); ++it) {
    if (it >= kMaxUnrolledIterations)
      return c.fail("more than " + Twine(kMaxUnrolledIterations) + " iterations to unroll");
    SmallVector<Value> ins = {c.constantI64({it}, {}), c.splat(u8, {}, 1)};
    ins.append(state);
    FailureOr<SmallVector<Value>> outs = runBody(c, body, ins);
    if (failed(outs)) return failure();
    std::optional<ConstantData> condOut = getConstantData((*outs)[0]);
    if (!condOut || condOut->numElements() != 1)
      return c.fail("the loop condition computed by the body is not a compile-time constant");
    cond = condOut->intAt(0) != 0;
    for (int64_t i = 0; i < carried; ++i) state[i] = (*outs)[1 + i];
    for (int64_t k = 0; k < scans; ++k) scanParts[k].push_back((*outs)[1 + carried + k]);
  }
  for (int64_t i = 0; i < carried; ++i) c.setOutput(i, state[i]);
  for (int64_t k = 0; k < scans; ++k) {
    Value v = stack(c, scanParts[k], 0, false);
    if (!v) return failure();
    c.setOutput(carried + k, v);
  }
  return success();
}

// Scan-9+: (state..., scan inputs...) with per-input axes and directions.
// Scan-8: an optional sequence_lens first and a leading batch axis on every
// operand, run per batch entry.
LogicalResult convertScan(NodeConverter &c) {
  FailureOr<const onnx::GraphProto *> bodyOr = bodyAttr(c);
  if (failed(bodyOr)) return failure();
  const onnx::GraphProto &body = **bodyOr;
  bool v8 = c.opset() < 9;
  int64_t first = v8 ? 1 : 0;
  if (v8 && c.hasInput(0)) return c.fail("sequence_lens is not supported");
  int64_t numScanIn = c.intAttr("num_scan_inputs", 0);
  int64_t total = static_cast<int64_t>(c.numInputs()) - first;
  int64_t states = total - numScanIn;
  if (numScanIn < 1 || states < 0) return c.fail("bad 'num_scan_inputs'");
  int64_t scanOut = body.output_size() - states;
  if (body.input_size() != total || scanOut < 0)
    return c.fail("the body's inputs/outputs do not match the node");
  auto listAttr = [&](StringRef name, int64_t n) {
    SmallVector<int64_t> v = c.intsAttr(name).value_or(SmallVector<int64_t>(n, 0));
    v.resize(n, 0);
    return v;
  };
  SmallVector<int64_t> inAxes = listAttr("scan_input_axes", numScanIn),
                       inDirs = listAttr(v8 ? "directions" : "scan_input_directions", numScanIn),
                       outAxes = listAttr("scan_output_axes", scanOut),
                       outDirs = listAttr("scan_output_directions", scanOut);
  if (v8 && (c.hasAttr("scan_input_axes") || c.hasAttr("scan_output_axes")))
    return c.fail("Scan-8 has no axis attributes");
  SmallVector<Value> operands;
  for (int64_t i = 0; i < total; ++i) {
    FailureOr<Value> v = c.requiredInput(first + i);
    if (failed(v)) return failure();
    operands.push_back(*v);
  }
  int64_t batches = v8 ? NodeConverter::shapeOf(operands[0])[0] : 1;
  ScopedNames scope(c.graphImporter(), body);
  // Drops dimension `axis` of a slice of width 1.
  auto take = [&](Value v, int64_t axis, int64_t at) {
    SmallVector<int64_t> s(NodeConverter::shapeOf(v)), start(s.size(), 0), size(s);
    start[axis] = at;
    size[axis] = 1;
    Value sl = c.emit("slice", {v}, {c.i64ArrayAttr("starts", start), c.i64ArrayAttr("sizes", size)});
    s.erase(s.begin() + axis);
    return c.emitReshape(sl, s);
  };
  SmallVector<SmallVector<Value>> finalStates(states), scanResults(scanOut);
  for (int64_t b = 0; b < batches; ++b) {
    SmallVector<Value> state;
    for (int64_t i = 0; i < states; ++i) state.push_back(v8 ? take(operands[i], 0, b) : operands[i]);
    SmallVector<Value> seqs;
    for (int64_t k = 0; k < numScanIn; ++k) seqs.push_back(v8 ? take(operands[states + k], 0, b) : operands[states + k]);
    int64_t steps = -1;
    for (int64_t k = 0; k < numScanIn; ++k) {
      if (!seqs[k]) return failure();
      int64_t r = NodeConverter::rankOf(seqs[k]);
      if (inAxes[k] < 0) inAxes[k] += r;
      if (inAxes[k] < 0 || inAxes[k] >= r) return c.fail("scan input axis out of range");
      int64_t len = NodeConverter::shapeOf(seqs[k])[inAxes[k]];
      if (steps >= 0 && len != steps) return c.fail("scan inputs have different lengths");
      steps = len;
    }
    if (steps > kMaxUnrolledIterations)
      return c.fail("more than " + Twine(kMaxUnrolledIterations) + " iterations to unroll");
    SmallVector<SmallVector<Value>> parts(scanOut);
    for (int64_t t = 0; t < steps; ++t) {
      SmallVector<Value> ins(state);
      for (int64_t k = 0; k < numScanIn; ++k)
        ins.push_back(take(seqs[k], inAxes[k], inDirs[k] ? steps - 1 - t : t));
      if (c.emitFailed()) return failure();
      FailureOr<SmallVector<Value>> outs = runBody(c, body, ins);
      if (failed(outs)) return failure();
      for (int64_t i = 0; i < states; ++i) state[i] = (*outs)[i];
      for (int64_t k = 0; k < scanOut; ++k) parts[k].push_back((*outs)[states + k]);
    }
    for (int64_t i = 0; i < states; ++i) finalStates[i].push_back(state[i]);
    for (int64_t k = 0; k < scanOut; ++k) {
      Value v = stack(c, parts[k], outAxes[k], outDirs[k] != 0);
      if (!v) return failure();
      scanResults[k].push_back(v);
    }
  }
  for (int64_t i = 0; i < states; ++i) {
    Value v = v8 ? stack(c, finalStates[i], 0, false) : finalStates[i][0];
    if (!v) return failure();
    c.setOutput(i, v);
  }
  for (int64_t k = 0; k < scanOut; ++k) {
    Value v = v8 ? stack(c, scanResults[k], 0, false) : scanResults[k][0];
    if (!v) return failure();
    c.setOutput(states + k, v);
  }
  return success();
}

}  // namespace

void populateDefaultDomainControlFlow(OpConverterTable &t) {
  t.add("", "Loop", 1, convertLoop);
  t.add("", "Scan", 8, convertScan);
}

}  // namespace mlir::webnn::onnx_import
