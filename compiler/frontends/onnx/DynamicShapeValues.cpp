// Run-time shape values in graphs with dynamic dimensions (--dynamic-dim).
//
// WebNN has no shape values: a Shape of a tensor whose size is known only at
// run time has no MLIR value. The importer follows its entries instead
// (forwardShapeValueDims), each one either known or an affine expression of
// the named dynamic dimensions (SymExpr), the form the artifact gives every
// dynamic dimension. This file turns those expressions back into tensors:
// - sizes: a uint8 vector of ones as long as a name (read off a graph input
//   that has that dimension) is concatenated and sliced into a vector as
//   long as an expression; masks of such vectors give ConstantOfShape and
//   Expand their dynamic dimensions (where(mask, x, x) broadcasts x exactly),
//   a cumulative sum of one gives Range, and a gather at such positions
//   gives a Slice whose end follows a name;
// - values: a reduceSum of that vector is the size as a scalar, so any other
//   op (Equal, Where, a position offset, ...) reads the shape value as an
//   ordinary tensor computed from the input dimensions.
// The artifact's dimensions stay affine, so a size that is not (a quotient
// that does not divide, a product of two names) is refused by name.
#include <algorithm>

#include "compiler/artifact/DynamicDims.h"
#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::webnn::onnx_import {

// ------------------------------------------------------------ SymExpr
SymExpr SymExpr::plus(const SymExpr &other, int64_t sign) const {
  SymExpr r = *this;
  r.offset += sign * other.offset;
  for (const auto &[name, coef] : other.terms) {
    int64_t &c = r.terms[name];
    c += sign * coef;
    if (c == 0) r.terms.erase(name);
  }
  return r;
}

SymExpr SymExpr::times(int64_t k) const {
  if (k == 0) return constant(0);
  SymExpr r = *this;
  r.offset *= k;
  for (auto &[name, coef] : r.terms) coef *= k;
  return r;
}

std::optional<SymExpr> SymExpr::dividedBy(int64_t k) const {
  if (k <= 0 || offset % k != 0) return std::nullopt;
  SymExpr r = *this;
  r.offset /= k;
  for (auto &[name, coef] : r.terms) {
    if (coef % k != 0) return std::nullopt;
    coef /= k;
  }
  return r;
}

std::string SymExpr::spell() const {
  std::string s;
  for (const auto &[name, coef] : terms) {
    if (s.empty()) s += coef < 0 ? "-" : "";
    else s += coef < 0 ? " - " : " + ";
    if (std::abs(coef) != 1) s += std::to_string(std::abs(coef)) + "*";
    s += name;
  }
  if (s.empty()) return std::to_string(offset);
  if (offset > 0) s += " + " + std::to_string(offset);
  if (offset < 0) s += " - " + std::to_string(-offset);
  return s;
}

// ------------------------------------------------------ GraphImporter
std::optional<SmallVector<SymExpr>> GraphImporter::symbolicDims(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type) return std::nullopt;
  SmallVector<SymExpr> out;
  if (type.hasStaticShape()) {
    for (int64_t d : type.getShape()) out.push_back(SymExpr::constant(d));
    return out;
  }
  Block *block = v.getParentBlock();
  auto func = dyn_cast_or_null<func::FuncOp>(block ? block->getParentOp() : nullptr);
  if (!func) return std::nullopt;
  // One analysis answers for every value built so far. The importer erases
  // only ops it folded (all operands constant, so static types), so a cached
  // dynamic value with the same type is the value it was.
  if (auto it = symbolicCache_.find(v); it != symbolicCache_.end() && it->second.first == v.getType())
    return it->second.second;
  // A graph the analysis cannot resolve yet only means the entries stay
  // unknown (the later error names what needs them), so its diagnostics
  // are dropped.
  ScopedDiagnosticHandler quiet(context(), [](Diagnostic &) { return success(); });
  FailureOr<DynamicDimsAnalysis> a = DynamicDimsAnalysis::run(func, /*partial=*/true);
  if (failed(a)) return std::nullopt;
  auto toSym = [&](const SmallVector<DimExpr> &exprs) {
    SmallVector<SymExpr> r;
    for (const DimExpr &d : exprs) {
      SymExpr e = SymExpr::constant(d.offset);
      for (auto [sym, coef] : d.terms) e.terms[a->dims()[sym].name] = coef;
      r.push_back(std::move(e));
    }
    return r;
  };
  symbolicCache_.clear();
  for (Operation &op : func.getBody().front())
    for (Value r : op.getResults())
      if (const SmallVector<DimExpr> *exprs = a->lookup(r))
        symbolicCache_[r] = {r.getType(), toSym(*exprs)};
  auto it = symbolicCache_.find(v);
  if (it == symbolicCache_.end()) return std::nullopt;
  return it->second.second;
}

// The graph inputs' {index, name, maxSize} entries (docs/ARTIFACT.md).
static void forEachNamedInputDim(Block &body, function_ref<void(InputOp, int64_t, StringRef, int64_t)> fn) {
  for (Operation &op : body) {
    auto input = dyn_cast<InputOp>(op);
    auto entries = input ? input->getAttrOfType<ArrayAttr>("webnn.dynamic_dims") : nullptr;
    for (Attribute e : entries ? entries.getValue() : ArrayRef<Attribute>()) {
      auto dict = dyn_cast<DictionaryAttr>(e);
      auto index = dict ? dict.getAs<IntegerAttr>("index") : nullptr;
      auto name = dict ? dict.getAs<StringAttr>("name") : nullptr;
      auto maxSize = dict ? dict.getAs<IntegerAttr>("maxSize") : nullptr;
      if (index && name && maxSize) fn(input, index.getInt(), name.getValue(), maxSize.getInt());
    }
  }
}

static func::FuncOp topFunc(GraphBuilder &g) {
  Block *block = g.builder().getInsertionBlock();
  return dyn_cast_or_null<func::FuncOp>(block ? block->getParentOp() : nullptr);
}

int64_t GraphImporter::nameMax(StringRef name) {
  int64_t max = -1;
  if (func::FuncOp f = topFunc(graph_))
    forEachNamedInputDim(f.getBody().front(), [&](InputOp, int64_t, StringRef n, int64_t m) {
      if (n == name) max = m;
    });
  return max;
}

FailureOr<Value> GraphImporter::nameOnes(StringRef name, Location loc) {
  Block *block = graph_.builder().getInsertionBlock();
  if (auto it = nameOnes_.find(name); it != nameOnes_.end() && it->second.first == block) return it->second.second;
  func::FuncOp f = topFunc(graph_);
  if (!f) return emitError(loc) << "dynamic dimension '" << name << "' is used inside a subgraph", failure();
  // The input with the fewest other dynamic dimensions: slicing the others
  // to size 1 needs them to be at least 1.
  InputOp best;
  int64_t bestIndex = -1, bestOthers = 0;
  forEachNamedInputDim(f.getBody().front(), [&](InputOp input, int64_t index, StringRef n, int64_t) {
    if (n != name) return;
    auto type = cast<RankedTensorType>(input.getType());
    int64_t others = type.getNumDynamicDims() - 1;
    if (!best || others < bestOthers) best = input, bestIndex = index, bestOthers = others;
  });
  if (!best) return emitError(loc) << "no graph input has dynamic dimension '" << name << "'", failure();
  OpBuilder &b = graph_.builder();
  Value v = best.getResult();
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() > 1) {
    SmallVector<int64_t> starts(type.getRank(), 0), sizes(type.getRank(), 1);
    sizes[bestIndex] = ShapedType::kDynamic;
    FailureOr<Value> s = addOp("slice", {v}, {b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)),
                                              b.getNamedAttr("sizes", b.getDenseI64ArrayAttr(sizes))}, loc);
    if (failed(s)) return failure();
    s = addOp("reshape", {*s}, {b.getNamedAttr("newShape", b.getDenseI64ArrayAttr({ShapedType::kDynamic}))}, loc);
    if (failed(s)) return failure();
    v = *s;
  }
  // Ones whatever the values: x == x for integers; a float may be NaN, so
  // its isNaN flags are compared instead.
  if (isa<FloatType>(type.getElementType())) {
    FailureOr<Value> n = addOp("isNaN", {v}, {}, loc);
    if (failed(n)) return failure();
    v = *n;
  }
  FailureOr<Value> ones = addOp("equal", {v, v}, {}, loc);
  if (failed(ones)) return failure();
  nameOnes_[name] = {block, *ones};
  return *ones;
}

// ------------------------------------------------------- building blocks
namespace {

// uint8 ones of shape [e] (coefficients >= 1 where a name appears).
FailureOr<Value> onesOfLength(NodeConverter &c, const SymExpr &e, StringRef what) {
  GraphImporter &g = c.graphImporter();
  SmallVector<Value> pieces;
  for (const auto &[name, coef] : e.terms) {
    if (coef < 0 || coef > 64)
      return c.fail(what + " has size " + e.spell() + ", which a tensor dimension cannot have"), failure();
    FailureOr<Value> ones = g.nameOnes(name, c.loc());
    if (failed(ones)) return failure();
    pieces.append(coef, *ones);
  }
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  if (e.offset > 0) pieces.push_back(c.splat(u8, {e.offset}, 1));
  Value v = pieces.size() == 1 ? pieces[0] : c.emit("concat", pieces, {c.i64Attr("axis", 0)});
  if (e.offset < 0)
    v = c.emit("slice", {v}, {c.i64ArrayAttr("starts", {-e.offset}), c.i64ArrayAttr("sizes", {ShapedType::kDynamic})});
  if (c.emitFailed() || !v) return failure();
  return v;
}

// uint8 ones of shape [1, ..., e, ..., 1] (e at `axis` of `rank`).
FailureOr<Value> onesAlong(NodeConverter &c, const SymExpr &e, int64_t axis, int64_t rank, StringRef what) {
  FailureOr<Value> v = onesOfLength(c, e, what);
  if (failed(v) || rank == 1) return v;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = ShapedType::kDynamic;
  Value r = c.emit("reshape", {*v}, {c.i64ArrayAttr("newShape", shape)});
  if (!r) return failure();
  return r;
}

// The value of `e` as a rank-0 int64 tensor: the size of each name counted
// at run time (reduceSum of its ones).
FailureOr<Value> scalarOf(NodeConverter &c, const SymExpr &e) {
  Type i64 = IntegerType::get(c.context(), 64);
  Value acc = c.scalar(i64, double(e.offset));
  for (const auto &[name, coef] : e.terms) {
    FailureOr<Value> ones = c.graphImporter().nameOnes(name, c.loc());
    if (failed(ones)) return failure();
    Value n = c.emit("reduceSum", {c.emitCast(*ones, i64)},
                     {c.i64ArrayAttr("axes", {0}), c.boolAttr("keepDimensions", false)});
    if (coef != 1) n = c.emit("mul", {n, c.scalar(i64, double(coef))});
    acc = c.emit("add", {acc, n});
  }
  if (c.emitFailed() || !acc) return failure();
  return acc;
}

// The shape value `name` as a tensor of its ONNX type.
FailureOr<Value> materialize(NodeConverter &c, StringRef name) {
  GraphImporter &g = c.graphImporter();
  const ShapeValueDims *d = g.shapeValueDims(name);
  if (!d || !d->allExprsKnown()) return failure();
  Type i64 = IntegerType::get(c.context(), 64);
  SmallVector<Value> entries;
  for (size_t k = 0; k < d->dims.size(); ++k) {
    ShapeValueDims::Entry e = d->entry(k);
    FailureOr<Value> s = scalarOf(c, *e.expr);
    if (failed(s)) return failure();
    if (e.divisor != 1) s = c.emit("div", {*s, c.scalar(i64, double(e.divisor))});  // ONNX's integer Div
    if (!*s) return failure();
    entries.push_back(d->scalar ? *s : c.emit("reshape", {*s}, {c.i64ArrayAttr("newShape", {1})}));
  }
  Value v = entries.size() == 1 ? entries[0] : c.emit("concat", entries, {c.i64Attr("axis", 0)});
  Type elem = g.elementType(d->onnxType);
  if (v && elem != i64) v = c.emitCast(v, elem);
  if (c.emitFailed() || !v) return failure();
  return v;
}

// Input i's entries: a shape value's (with expressions) or a small integer
// constant's; nullopt otherwise.
std::optional<ShapeValueDims> entriesOf(NodeConverter &c, size_t i) {
  if (!c.hasInput(i)) return std::nullopt;
  GraphImporter &g = c.graphImporter();
  if (g.shapeValueOrigin(c.node().input(i))) {
    const ShapeValueDims *d = g.shapeValueDims(c.node().input(i));
    if (!d || !d->allExprsKnown() || d->anyDivided()) return std::nullopt;
    return *d;
  }
  std::optional<ConstantData> k = c.constantInput(i);
  if (!k || !k->type.getElementType().isIntOrIndex() || k->type.getRank() > 1) return std::nullopt;
  ShapeValueDims r;
  r.scalar = k->type.getRank() == 0;
  for (int64_t j = 0; j < k->numElements(); ++j) r.push(k->intAt(j), std::nullopt);
  return r;
}

std::string entryName(NodeConverter &c, size_t i) {
  return "input '" + c.node().input(i) + "'";
}

int64_t maxOf(GraphImporter &g, const SymExpr &e) {
  int64_t v = e.offset;
  for (const auto &[name, coef] : e.terms) v += coef * std::max<int64_t>(g.nameMax(name), 0);
  return v;
}

// 0, 1, ..., len - 1 as a 1-D tensor of `elem`.
FailureOr<Value> iota(NodeConverter &c, const SymExpr &len, Type elem, StringRef what) {
  if (len.isStatic()) {
    SmallVector<int64_t> v;
    for (int64_t i = 0; i < len.offset; ++i) v.push_back(i);
    Value k = c.constantI64(v, {len.offset});
    return elem.isInteger(64) ? k : c.emitCast(k, elem);
  }
  FailureOr<Value> ones = onesOfLength(c, len, what);
  if (failed(ones)) return failure();
  Value r = c.emit("cumulativeSum", {c.emitCast(*ones, elem)}, {c.i64Attr("axis", 0), c.boolAttr("exclusive", true)});
  if (!r) return failure();
  return r;
}

// Range(start, limit, delta): length ceil((limit - start) / delta), affine
// when delta divides it exactly.
LogicalResult convertRange(NodeConverter &c) {
  std::optional<ShapeValueDims> s = entriesOf(c, 0), l = entriesOf(c, 1), d = entriesOf(c, 2);
  if (!s || !l || !d || s->dims.size() != 1 || l->dims.size() != 1 || d->dims.size() != 1)
    return c.fail("start, limit and delta must be scalars that are constants or follow the dynamic dimensions");
  if (!d->dims[0] || *d->dims[0] == 0)
    return c.fail("delta (" + entryName(c, 2) + ") must be a non-zero constant when the bounds are dynamic");
  SymExpr start = *s->exprAt(0), limit = *l->exprAt(0);
  int64_t delta = *d->dims[0];
  std::optional<SymExpr> len = limit.plus(start, -1).dividedBy(std::abs(delta));
  if (delta < 0 && len) len = len->times(-1);
  if (!len)
    return c.fail("its length ceil((" + limit.spell() + " - (" + start.spell() + ")) / " + std::to_string(delta) +
                  ") is not an affine function of the dynamic dimensions");
  // The output's type is the inputs' (a shape value's is its ONNX type).
  Type elem = c.graphImporter().shapeValueOrigin(c.node().input(0))
                  ? c.graphImporter().elementType(s->onnxType)
                  : NodeConverter::typeOf(c.input(0)).getElementType();
  FailureOr<Value> r = iota(c, *len, elem, "Range's output");
  if (failed(r)) return failure();
  Value v = *r;
  if (delta != 1) v = c.emit("mul", {v, c.scalar(elem, double(delta))});
  if (!start.isStatic()) {
    FailureOr<Value> s0 = scalarOf(c, start);
    if (failed(s0)) return failure();
    v = c.emit("add", {v, elem.isInteger(64) ? *s0 : c.emitCast(*s0, elem)});
  } else if (start.offset != 0) {
    v = c.emit("add", {v, c.scalar(elem, double(start.offset))});
  }
  return c.done(v);
}

// A uint8 mask of ones whose shape is `dims` where `broadcast[i]` (static or
// an expression), 1 elsewhere.
FailureOr<Value> maskOf(NodeConverter &c, ArrayRef<std::optional<SymExpr>> dims, StringRef what) {
  int64_t rank = dims.size();
  Type u8 = IntegerType::get(c.context(), 8, IntegerType::Unsigned);
  SmallVector<int64_t> staticShape(rank, 1);
  Value mask;
  for (int64_t i = 0; i < rank; ++i) {
    if (!dims[i]) continue;
    if (dims[i]->isStatic()) {
      staticShape[i] = dims[i]->offset;
      continue;
    }
    FailureOr<Value> m = onesAlong(c, *dims[i], i, rank, what);
    if (failed(m)) return failure();
    mask = mask ? c.emit("logicalAnd", {mask, *m}) : *m;
  }
  if (llvm::any_of(staticShape, [](int64_t d) { return d != 1; }) || !mask) {
    Value k = c.splat(u8, staticShape, 1);
    mask = mask ? c.emit("logicalAnd", {mask, k}) : k;
  }
  if (c.emitFailed() || !mask) return failure();
  return mask;
}

LogicalResult convertConstantOfShape(NodeConverter &c) {
  std::optional<ShapeValueDims> shape = entriesOf(c, 0);
  if (!shape || shape->scalar) return c.fail("input 'input' must be a 1-D shape whose entries follow the dynamic dimensions");
  Type elem = Float32Type::get(c.context());
  Value value;
  if (const onnx::AttributeProto *a = c.attr("value")) {
    FailureOr<ElementsAttr> t = convertTensor(a->t(), c.graphImporter().tensorSource(), c.context(), c.loc());
    if (failed(t)) return failure();
    if (mlir::cast<RankedTensorType>(t->getType()).getNumElements() != 1)
      return c.fail("'value' must hold one element");
    value = c.constant(*t);
  } else {
    value = c.scalar(elem, 0);
  }
  value = c.emitReshape(value, {});
  SmallVector<std::optional<SymExpr>> dims;
  for (size_t k = 0; k < shape->dims.size(); ++k) {
    SymExpr e = *shape->exprAt(k);
    if (e.isStatic() && e.offset <= 0) return c.fail("empty tensors are not supported");
    if (!e.isStatic() && maxOf(c.graphImporter(), e) <= 0)
      return c.fail("dimension " + std::to_string(k) + " (" + e.spell() + ") is never positive");
    dims.push_back(e);
  }
  FailureOr<Value> mask = maskOf(c, dims, "ConstantOfShape's output");
  if (failed(mask)) return failure();
  return c.done(c.emit("where", {*mask, value, value}));
}

// Expand(x, shape): x's dimensions that the shape broadcasts to a size that
// follows the dynamic dimensions (or to a static size over a dynamic x) come
// from a mask, where(mask, x, x) copying x exactly.
LogicalResult convertExpand(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  std::optional<ShapeValueDims> shape = entriesOf(c, 1);
  if (failed(x) || !shape || shape->scalar)
    return c.fail("input 'shape' must be a 1-D shape whose entries follow the dynamic dimensions");
  std::optional<SmallVector<SymExpr>> xd = c.graphImporter().symbolicDims(*x);
  if (!xd) return c.fail("the input's dynamic dimensions cannot be followed");
  int64_t n = shape->dims.size(), xr = xd->size(), rank = std::max(n, xr);
  SmallVector<std::optional<SymExpr>> broadcast(rank);
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<SymExpr> t = i >= rank - n ? shape->exprAt(i - (rank - n)) : std::nullopt;
    std::optional<SymExpr> have = i >= rank - xr ? std::optional<SymExpr>((*xd)[i - (rank - xr)]) : std::nullopt;
    if (!t || (t->isStatic() && t->offset == 1)) continue;  // x's dimension
    if (have && *have == *t) continue;
    if (!have || (have->isStatic() && have->offset == 1)) {
      broadcast[i] = *t;
      continue;
    }
    return c.fail("Expand of dimension " + std::to_string(i) + " (" + have->spell() + ") to " + t->spell() +
                  " is not supported (sizes that differ unless one is 1 at run time)");
  }
  FailureOr<Value> mask = maskOf(c, broadcast, "Expand's output");
  if (failed(mask)) return failure();
  return c.done(c.emit("where", {*mask, *x, *x}));
}

// Slice with starts/ends that follow the dynamic dimensions (steps 1): on a
// static axis a gather at start + iota(end - start), where the end stays
// inside the axis at every size; on a dynamic axis, a static start to an
// end equal to its size.
LogicalResult convertSlice(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  std::optional<ShapeValueDims> starts = entriesOf(c, 1), ends = entriesOf(c, 2);
  if (!starts || !ends || starts->scalar || ends->scalar || starts->dims.size() != ends->dims.size())
    return c.fail("starts and ends must be 1-D and follow the dynamic dimensions");
  int64_t rank = NodeConverter::rankOf(*x), n = starts->dims.size();
  SmallVector<int64_t> axes;
  if (c.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(3, "axes");
    if (failed(a)) return failure();
    axes = *a;
  } else {
    for (int64_t i = 0; i < n; ++i) axes.push_back(i);
  }
  if (c.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> s = c.constantIntsInput(4, "steps");
    if (failed(s)) return failure();
    if (llvm::any_of(*s, [](int64_t v) { return v != 1; }))
      return c.fail("steps other than 1 with starts or ends that follow the dynamic dimensions are not supported");
  }
  if (int64_t(axes.size()) != n) return c.fail("starts, ends and axes must have the same length");
  std::optional<SmallVector<SymExpr>> xd = c.graphImporter().symbolicDims(*x);
  if (!xd) return c.fail("the input's dynamic dimensions cannot be followed");
  Value v = *x;
  GraphImporter &g = c.graphImporter();
  for (int64_t k = 0; k < n; ++k) {
    FailureOr<int64_t> axis = c.normalizeAxis(axes[k], rank, "axes");
    if (failed(axis)) return failure();
    SymExpr dim = (*xd)[*axis], s = *starts->exprAt(k), e = *ends->exprAt(k);
    // ONNX's negative and clamped static bounds.
    auto norm = [&](SymExpr b) {
      if (!b.isStatic()) return b;
      if (b.offset < 0) b = dim.plus(b);
      if (dim.isStatic()) b.offset = std::clamp<int64_t>(b.offset, 0, dim.offset);
      else if (b.offset > maxOf(g, dim)) b = dim;
      return b;
    };
    s = norm(s), e = norm(e);
    std::string where = "axis " + std::to_string(*axis) + " [" + s.spell() + ", " + e.spell() + ")";
    if (dim.isStatic()) {
      if (maxOf(g, e) > dim.offset || maxOf(g, s) > dim.offset)
        return c.fail("Slice of " + where + " of size " + dim.spell() +
                      ": a bound can pass the end, so the length is not an affine function of the dynamic "
                      "dimensions");
      SymExpr len = e.plus(s, -1);
      if (len.isStatic() && len.offset <= 0) return c.fail("empty tensors are not supported");
      Type i64 = IntegerType::get(c.context(), 64);
      FailureOr<Value> idx = iota(c, len, i64, "Slice's output");
      if (failed(idx)) return failure();
      Value indices = *idx;
      if (!s.isStatic()) {
        FailureOr<Value> s0 = scalarOf(c, s);
        if (failed(s0)) return failure();
        indices = c.emit("add", {indices, *s0});
      } else if (s.offset != 0) {
        indices = c.emit("add", {indices, c.scalar(i64, double(s.offset))});
      }
      v = c.emit("gather", {v, indices}, {c.i64Attr("axis", *axis)});
      continue;
    }
    if (s.isStatic() && s.offset >= 0 && e == dim) {
      SmallVector<int64_t> st(rank, 0), sz(rank, ShapedType::kDynamic);
      st[*axis] = s.offset;
      v = c.emit("slice", {v}, {c.i64ArrayAttr("starts", st), c.i64ArrayAttr("sizes", sz)});
      continue;
    }
    return c.fail("Slice of " + where + " along dynamic dimension " + std::to_string(*axis) + " (" + dim.spell() +
                  ") is not supported (a window from a static start to the end of the axis is)");
  }
  return c.done(v);
}

// Fails naming the first of inputs `sizes` that is a shape value whose
// entries are not all affine (a quotient, a product of names): they would
// decide an output size.
LogicalResult checkSizeInputs(NodeConverter &c, std::initializer_list<size_t> sizes) {
  GraphImporter &g = c.graphImporter();
  for (size_t i : sizes) {
    if (!c.isShapeValueInput(i)) continue;
    const ShapeValueDims *d = g.shapeValueDims(c.node().input(i));
    for (size_t k = 0; d && k < d->dims.size(); ++k) {
      ShapeValueDims::Entry e = d->entry(k);
      if (e.expr && e.divisor == 1) continue;
      return c.fail("input '" + c.node().input(i) + "' (computed from " + *g.shapeValueOrigin(c.node().input(i)) +
                    ") decides a size and " +
                    (e.expr ? "is (" + e.expr->spell() + ") / " + std::to_string(e.divisor)
                            : std::string("has an entry that is a product of dynamic sizes")) +
                    ", which is not an affine function of the dynamic dimensions (fix them with --shape)");
    }
    if (!d)
      return c.fail("input '" + c.node().input(i) + "' is computed from " + *g.shapeValueOrigin(c.node().input(i)) +
                    " in a way the importer does not follow (fix the dimension with --shape)");
  }
  return success();
}

}  // namespace

LogicalResult convertWithShapeValues(GraphImporter &g, const onnx::NodeProto &node, int64_t opset, Location loc,
                                     ConvertFn fn) {
  NodeConverter c(g, node, opset, loc);
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  StringRef op = node.op_type();
  auto isShapeValue = [&](int i) { return c.isShapeValueInput(i); };
  LogicalResult r = failure();
  bool special = true;
  if (defaultDomain && op == "Range")
    r = failed(checkSizeInputs(c, {0, 1, 2})) ? failure() : convertRange(c);
  else if (defaultDomain && op == "ConstantOfShape")
    r = failed(checkSizeInputs(c, {0})) ? failure() : convertConstantOfShape(c);
  else if (defaultDomain && op == "Expand" && isShapeValue(1))
    r = failed(checkSizeInputs(c, {1})) ? failure() : convertExpand(c);
  else if (defaultDomain && op == "Slice" && opset >= 10 && !isShapeValue(0) && (isShapeValue(1) || isShapeValue(2)) &&
           !isShapeValue(3) && !isShapeValue(4))
    r = failed(checkSizeInputs(c, {1, 2})) ? failure() : convertSlice(c);
  else special = false;
  if (special) {
    if (failed(r)) return failure();
  } else {
    // Any other op reads each shape value as the tensor of its entries.
    SmallVector<std::string> names;
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string &name = node.input(i);
      if (!c.isShapeValueInput(i) || llvm::is_contained(names, name)) continue;
      const ShapeValueDims *d = g.shapeValueDims(name);
      if (!d || !d->allExprsKnown())
        return emitError(loc) << "input '" << name << "' is computed from " << *g.shapeValueOrigin(name)
                              << ", whose size is only known at run time"
                              << (d ? " and is not an affine function of the dynamic dimensions" : "")
                              << "; WebNN graphs have no shape values, so " << op
                              << " cannot use it (fix the dimension with --shape)",
               failure();
      FailureOr<Value> v = materialize(c, name);
      if (failed(v)) return failure();
      g.define(name, *v);
      names.push_back(name);
    }
    for (const std::string &name : names) g.suspendShapeValue(name, true);
    r = fn(c);
    for (const std::string &name : names) g.suspendShapeValue(name, false);
    if (failed(r)) return failure();
  }
  for (int o = 0; o < node.output_size(); ++o)
    if (c.outputUsed(o) && !c.outputSet(o))
      return emitError(loc) << "output #" << o << " ('" << node.output(o) << "') is not supported", failure();
  return success();
}

}  // namespace mlir::webnn::onnx_import
