// If, Loop and Scan. What is known at compile time is resolved here: an If
// with a constant condition is inlined, a Loop whose trip count and
// conditions fold is unrolled (the body converted once per iteration with its
// inputs bound to that iteration's values), Scan lengths are static. What
// depends on run-time values becomes webnn.if / webnn.loop (control flow
// beyond the WebNN spec, run by the runtime's executor): the branches and the
// body are converted once into the op's regions, where ONNX's outer-scope
// references are plain captured values.
#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/Diagnostics.h"

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

// Converts `body` once into a new block of `region` whose arguments (typed
// `argTypes`) are its inputs, ending with webnn.yield of its outputs. Outer
// values the body names are captured as they are.
FailureOr<SmallVector<Value>> convertRegion(NodeConverter &c, Region &region,
                                            const onnx::GraphProto &body, TypeRange argTypes) {
  OpBuilder &b = c.builder();
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(argTypes.size(), c.loc());
  Block *block = b.createBlock(&region, region.end(), argTypes, locs);
  GraphImporter &g = c.graphImporter();
  llvm::StringMap<Value> scope = g.saveScope();
  FailureOr<SmallVector<Value>> outs = runBody(c, body, SmallVector<Value>(block->getArguments()));
  g.restoreScope(std::move(scope));
  if (failed(outs)) return failure();
  YieldOp::create(b, c.loc(), *outs);
  return outs;
}

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

// A one-element tensor of `elem` (ONNX scalars may also come as [1]).
bool isOneElementOf(Value v, Type elem) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getNumElements() == 1 && t.getElementType() == elem;
}

// If(cond) with then_branch / else_branch: inlined when cond is a constant,
// else a webnn.if whose regions are the two branches.
LogicalResult convertIf(NodeConverter &c) {
  const onnx::AttributeProto *thenAttr = c.attr("then_branch"), *elseAttr = c.attr("else_branch");
  if (!thenAttr || !thenAttr->has_g()) return c.fail("missing 'then_branch' subgraph");
  if (!elseAttr || !elseAttr->has_g()) return c.fail("missing 'else_branch' subgraph");
  for (const onnx::GraphProto *g : {&thenAttr->g(), &elseAttr->g()})
    if (g->output_size() != static_cast<int>(c.numOutputs()))
      return c.fail("the " + Twine(g == &thenAttr->g() ? "then" : "else") + " branch has " +
                    Twine(g->output_size()) + " outputs, the node " + Twine(c.numOutputs()));
  if (std::optional<ConstantData> cond = c.constantInput(0)) {
    if (cond->numElements() != 1) return c.fail("'cond' must hold one element");
    const onnx::GraphProto &g = cond->intAt(0) ? thenAttr->g() : elseAttr->g();
    if (failed(c.graphImporter().convertSubgraph(g))) return failure();
    for (int i = 0; i < g.output_size(); ++i) {
      Value v = c.graphImporter().lookup(g.output(i).name());
      if (!v) return c.fail("branch output '" + g.output(i).name() + "' is not produced");
      c.setOutput(i, v);
    }
    return success();
  }
  FailureOr<Value> cond = c.requiredInput(0);
  if (failed(cond)) return failure();
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  if (!isOneElementOf(*cond, u8))
    return c.fail("'cond' must be one bool, got " + typeText(cond->getType()));
  // Result types are known only once the branches are converted: they are
  // built in a holder, then moved into the real op.
  OpBuilder &b = c.builder();
  auto holder = IfOp::create(b, c.loc(), TypeRange{}, *cond);
  auto fail = [&]() {
    holder->dropAllReferences();
    holder.erase();
    return failure();
  };
  // A branch that only converts for the inputs the other one is meant for
  // (Silero VAD's 8 kHz branch given 16 kHz frames) fails here; say that a
  // condition known at compile time converts the taken branch alone.
  auto branchFailed = [&](StringRef which) {
    std::string chain = describeRuntimeChain(*cond);
    // A note, not a second error: the error above is the one to fix.
    (void)(c.context()->getDiagEngine().emit(c.loc(), DiagnosticSeverity::Note)
           << "the " << which << " branch cannot be converted (above); the condition ('"
                         << c.node().input(0) << "') is computed at run time"
                         << (chain.empty() ? "" : " by " + chain)
                         << ", so both branches are compiled; freeze the inputs it depends on "
                            "with --const-input to compile only the branch taken");
    return fail();
  };
  FailureOr<SmallVector<Value>> thenOuts = convertRegion(c, holder.getThenRegion(), thenAttr->g(), {});
  if (failed(thenOuts)) return branchFailed("then");
  FailureOr<SmallVector<Value>> elseOuts = convertRegion(c, holder.getElseRegion(), elseAttr->g(), {});
  if (failed(elseOuts)) return branchFailed("else");
  SmallVector<Type> types;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(*thenOuts, *elseOuts))) {
    auto [t, e] = pair;
    if (t.getType() != e.getType()) {
      c.fail("output #" + Twine(i) + " is " + typeText(t.getType()) + " in the then branch but " +
             typeText(e.getType()) + " in the else branch; a condition known only at run time "
             "needs both branches to produce the same static type");
      return fail();
    }
    types.push_back(t.getType());
  }
  auto ifOp = IfOp::create(b, c.loc(), types, *cond);
  ifOp.getThenRegion().takeBody(holder.getThenRegion());
  ifOp.getElseRegion().takeBody(holder.getElseRegion());
  holder.erase();
  for (size_t i = 0; i < types.size(); ++i) c.setOutput(i, ifOp.getResult(i));
  return success();
}

enum class Unrolled { kDone, kFailed, kNeedsRuntime };

// Unrolls Loop when every iteration's condition folds and the count stays
// under kMaxUnrolledIterations; kNeedsRuntime (nothing diagnosed) otherwise
// (scan outputs then have the constant trip count as their bound).
Unrolled unrollLoop(NodeConverter &c, const onnx::GraphProto &body, int64_t trip, bool cond,
                    SmallVector<Value> state, int64_t scans) {
  int64_t carried = state.size();
  SmallVector<SmallVector<Value>> scanParts(scans);
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  for (int64_t it = 0; cond && (trip < 0 || it < trip); ++it) {
    if (it >= kMaxUnrolledIterations) return Unrolled::kNeedsRuntime;
    SmallVector<Value> ins = {c.constantI64({it}, {}), c.splat(u8, {}, 1)};
    ins.append(state);
    FailureOr<SmallVector<Value>> outs = runBody(c, body, ins);
    if (failed(outs)) return Unrolled::kFailed;
    std::optional<ConstantData> condOut = getConstantData((*outs)[0]);
    if (!condOut || condOut->numElements() != 1) return Unrolled::kNeedsRuntime;
    cond = condOut->intAt(0) != 0;
    for (int64_t i = 0; i < carried; ++i) state[i] = (*outs)[1 + i];
    for (int64_t k = 0; k < scans; ++k) scanParts[k].push_back((*outs)[1 + carried + k]);
  }
  for (int64_t i = 0; i < carried; ++i) c.setOutput(i, state[i]);
  for (int64_t k = 0; k < scans; ++k) {
    Value v = stack(c, scanParts[k], 0, false);
    if (!v) return Unrolled::kFailed;
    c.setOutput(carried + k, v);
  }
  return Unrolled::kDone;
}

// The loop as a webnn.loop: the body converted once into its region. Scan
// outputs get `scanBound` rows (the constant trip count); their run-time
// length is the number of iterations that ran.
LogicalResult emitRuntimeLoop(NodeConverter &c, const onnx::GraphProto &body, ArrayRef<Value> init,
                              int64_t scans, int64_t scanBound) {
  MLIRContext *ctx = c.context();
  Type i64 = IntegerType::get(ctx, 64), u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  Value trip = c.input(0), cond = c.input(1);
  if (trip && !isOneElementOf(trip, i64))
    return c.fail("'M' must be one int64, got " + typeText(trip.getType()));
  if (cond && !isOneElementOf(cond, u8))
    return c.fail("'cond' must be one bool, got " + typeText(cond.getType()));
  if (!trip && !cond) return c.fail("a Loop with neither 'M' nor 'cond' never ends");
  SmallVector<Type> types;
  for (Value v : init) types.push_back(v.getType());
  SmallVector<Type> argTypes = {RankedTensorType::get({}, i64), RankedTensorType::get({}, u8)};
  argTypes.append(types);
  // Scan result types are known once the body is converted: it is built in
  // a holder, then moved into the real op.
  auto loop = LoopOp::create(c.builder(), c.loc(), types, trip, cond, init);
  FailureOr<SmallVector<Value>> outs = convertRegion(c, loop.getBody(), body, argTypes);
  auto fail = [&](const Twine &m) {
    if (!m.isTriviallyEmpty()) c.fail(m);
    loop->dropAllReferences();
    loop.erase();
    return failure();
  };
  if (succeeded(outs) && static_cast<int64_t>(outs->size()) != 1 + static_cast<int64_t>(types.size()) + scans)
    return fail("the body has " + Twine(outs->size()) + " outputs, expected " + Twine(1 + types.size() + scans));
  if (failed(outs)) return fail("");
  if (!isOneElementOf((*outs)[0], u8))
    return fail("the body's condition output is " + typeText((*outs)[0].getType()) + ", expected one bool");
  for (size_t i = 0; i < types.size(); ++i)
    if ((*outs)[1 + i].getType() != types[i])
      return fail("loop-carried value #" + Twine(i) + " ('" + body.output(1 + i).name() + "') enters as " +
                  typeText(types[i]) + " and the body makes it " + typeText((*outs)[1 + i].getType()) +
                  "; a loop run at run time needs each carried value's type fixed across iterations");
  if (scans > 0) {
    SmallVector<Type> all(types);
    for (int64_t k = 0; k < scans; ++k) {
      auto t = NodeConverter::typeOf((*outs)[1 + types.size() + k]);
      SmallVector<int64_t> shape = {scanBound};
      llvm::append_range(shape, t.getShape());
      all.push_back(RankedTensorType::get(shape, t.getElementType()));
    }
    auto full = LoopOp::create(c.builder(), c.loc(), all, trip, cond, init);
    full.getBody().takeBody(loop.getBody());
    loop.erase();
    loop = full;
  }
  for (size_t i = 0; i < loop.getNumResults(); ++i) c.setOutput(i, loop.getResult(i));
  return success();
}

// Loop(M?, cond?, v_initial...): body(iteration_num, cond_in, v...) ->
// (cond_out, v..., scan...).
LogicalResult convertLoop(NodeConverter &c) {
  FailureOr<const onnx::GraphProto *> bodyOr = bodyAttr(c);
  if (failed(bodyOr)) return failure();
  const onnx::GraphProto &body = **bodyOr;
  int64_t carried = static_cast<int64_t>(c.numInputs()) - 2;
  if (carried < 0) carried = 0;
  if (body.input_size() != carried + 2 || body.output_size() < carried + 1)
    return c.fail("the body's inputs/outputs do not match the loop-carried values");
  int64_t scans = body.output_size() - 1 - carried;
  SmallVector<Value> init;
  for (int64_t i = 0; i < carried; ++i) {
    FailureOr<Value> v = c.requiredInput(2 + i);
    if (failed(v)) return failure();
    init.push_back(*v);
  }
  std::optional<ConstantData> tripData = c.hasInput(0) ? c.constantInput(0) : std::nullopt;
  std::optional<ConstantData> condData = c.hasInput(1) ? c.constantInput(1) : std::nullopt;
  bool constantBounds = (!c.hasInput(0) || tripData) && (!c.hasInput(1) || condData);
  if (scans > 0 && !tripData) {
    // Scan outputs have one entry per iteration, so their buffers need a
    // bound known at compile time: a constant trip count (the condition may
    // still end the loop early; the outputs then hold the rows that ran).
    if (!c.hasInput(0))
      return c.fail("scan outputs need a constant trip count 'M' to bound their length; this Loop has none");
    (void)c.requireConstantInput(0, "M (scan outputs need a compile-time bound on the iteration count)");
    return failure();
  }
  if (constantBounds) {
    int64_t trip = -1;
    if (tripData) {
      if (tripData->numElements() != 1) return c.fail("'M' must be a scalar");
      trip = tripData->intAt(0);
    }
    bool cond = !condData || condData->intAt(0) != 0;
    if (condData && condData->numElements() != 1) return c.fail("'cond' must be a scalar");
    // Unrolled into a scratch block first: if a condition turns out not to
    // fold, that attempt is dropped and the loop runs at run time.
    OpBuilder &b = c.builder();
    Block *outer = b.getInsertionBlock();
    Block::iterator at = b.getInsertionPoint();
    Region scratch(outer->getParentOp());
    Block *block = new Block();
    scratch.push_back(block);
    Unrolled result;
    llvm::StringMap<Value> scope = c.graphImporter().saveScope();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(block);
      ScopedNames names(c.graphImporter(), body);
      result = unrollLoop(c, body, trip, cond, init, scans);
    }
    if (result == Unrolled::kFailed) return failure();
    if (result == Unrolled::kDone) {
      outer->getOperations().splice(at, block->getOperations());
      return success();
    }
    // Names the attempt defined point into the dropped block.
    c.graphImporter().restoreScope(std::move(scope));
    block->dropAllDefinedValueUses();
    for (Operation &op : llvm::reverse(block->getOperations())) op.dropAllReferences();
  }
  int64_t bound = tripData && tripData->numElements() == 1 ? std::max<int64_t>(tripData->intAt(0), 0) : 0;
  if (constantBounds) return emitRuntimeLoop(c, body, init, scans, bound);
  // A run-time M or cond forced the run-time form. A body that only converts
  // with a constant iteration number (a Slice at it, say) fails there: say
  // which input to freeze so the loop unrolls instead.
  std::string inner;
  LogicalResult converted = failure();
  {
    ScopedDiagnosticHandler capture(c.context(), [&](Diagnostic &d) {
      if (!inner.empty() || d.getSeverity() != DiagnosticSeverity::Error) return success();
      // Name the body node the error is about, as the importer's prefix does.
      if (auto fused = mlir::dyn_cast<FusedLoc>(d.getLocation()))
        if (auto opType = mlir::dyn_cast_or_null<StringAttr>(fused.getMetadata()))
          for (Location l : fused.getLocations())
            if (auto name = mlir::dyn_cast<NameLoc>(l))
              inner = ("node '" + name.getName().getValue() + "' (" + opType.getValue() + "): ").str();
      inner += d.str();
      return success();
    });
    converted = emitRuntimeLoop(c, body, init, scans, bound);
  }
  if (succeeded(converted)) return success();
  size_t which = c.hasInput(0) && !tripData ? 0 : 1;
  (void)c.requireConstantInput(which, (which == 0 ? "M" : "cond") + std::string(" (the body cannot run at run ") +
                                          "time: " + inner + "; with it constant the loop unrolls)");
  return failure();
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
  t.add("", "If", 1, convertIf);
  t.add("", "Loop", 1, convertLoop);
  t.add("", "Scan", 8, convertScan);
}

}  // namespace mlir::webnn::onnx_import
