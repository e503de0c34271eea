#include "compiler/artifact/DynamicDims.h"

#include "dialects/webnn/WebNNOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::webnn {
namespace {

// Shapes of every op result of a specialized graph, in block order.
using ShapeList = std::vector<SmallVector<int64_t>>;

std::string sizesText(ArrayRef<NamedDynamicDim> dims, ArrayRef<int64_t> sizes) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + dims[i].name + "=" + std::to_string(sizes[i]);
  return s;
}

// " in 'webnn.maxPool2d' (node 'pool1')": which op an error is about. The
// diagnostic's location prints only the file (an ONNX node's location fuses
// its name with the file), and these errors come after import, so the
// importer's node prefix is not there.
std::string opLabel(Operation *op) {
  std::string s = " in '" + op->getName().getStringRef().str() + "'";
  op->getLoc()->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l)) {
      s += " (node '" + name.getName().str() + "')";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return s;
}

// Where each `?` of an input's type takes its size from: symbol per dim, or
// -1 for a static dim.
using InputSymbols = llvm::DenseMap<Operation *, SmallVector<int64_t>>;

// Re-infers every type of a copy of `graph` with the named dimensions at
// `sizes`, and verifies the copy.
FailureOr<ShapeList> specialize(func::FuncOp graph, const InputSymbols &symbols,
                                ArrayRef<NamedDynamicDim> dims, ArrayRef<int64_t> sizes, bool partial) {
  auto copy = cast<func::FuncOp>(graph->clone());
  llvm::scope_exit erase([&] { copy->erase(); });
  MLIRContext *ctx = graph.getContext();
  ShapeList shapes;
  auto fail = [&](Operation *op) {
    op->emitError() << "shapes do not resolve with dynamic dimensions " << sizesText(dims, sizes)
                    << (isa<func::FuncOp>(op) ? std::string() : opLabel(op));
    return failure();
  };
  Block &body = copy.getBody().front();
  for (auto [original, op] : llvm::zip(graph.getBody().front(), body)) {
    if (auto input = dyn_cast<InputOp>(op)) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> shape(type.getShape());
      if (auto it = symbols.find(&original); it != symbols.end())
        for (auto [d, sym] : llvm::enumerate(it->second))
          if (sym >= 0) shape[d] = sizes[sym];
      input.getResult().setType(type.clone(shape));
    } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      SmallVector<Type> types;
      if (failed(infer.inferReturnTypes(ctx, op.getLoc(), op.getOperands(), op.getAttrDictionary(),
                                        op.getPropertiesStorage(), op.getRegions(), types)))
        return fail(&original);
      for (auto [result, type] : llvm::zip(op.getResults(), types)) result.setType(type);
    }
    for (Value r : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(r.getType());
      if (!type || !type.hasStaticShape()) return fail(&original);
      shapes.emplace_back(type.getShape());
    }
  }
  if (partial) return shapes;
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  copy.setFunctionType(FunctionType::get(ctx, copy.getArgumentTypes(), ret.getOperandTypes()));
  if (failed(verify(copy))) return fail(graph);
  return shapes;
}

}  // namespace

const SmallVector<DimExpr> *DynamicDimsAnalysis::lookup(Value v) const {
  auto it = exprs_.find(v);
  return it == exprs_.end() ? nullptr : &it->second;
}

int64_t DynamicDimsAnalysis::maxValue(const DimExpr &e) const {
  int64_t v = e.offset;
  for (auto [sym, coef] : e.terms) v += coef * dims_[sym].maxSize;
  return v;
}

std::string DynamicDimsAnalysis::spell(const DimExpr &e) const {
  std::string s;
  for (auto [sym, coef] : e.terms) {
    if (!s.empty()) s += " + ";
    if (coef != 1) s += std::to_string(coef) + "*";
    s += dims_[sym].name;
  }
  if (e.offset > 0) s += " + " + std::to_string(e.offset);
  if (e.offset < 0) s += " - " + std::to_string(-e.offset);
  return s;
}

FailureOr<DynamicDimsAnalysis> DynamicDimsAnalysis::run(func::FuncOp graph, bool partial) {
  DynamicDimsAnalysis a;
  InputSymbols symbols;
  llvm::StringMap<unsigned> byName;
  bool anyDynamicType = false;
  for (Operation &op : graph.getBody().front()) {
    for (Type t : op.getResultTypes())
      if (auto rt = dyn_cast<RankedTensorType>(t); rt && !rt.hasStaticShape()) anyDynamicType = true;
    auto input = dyn_cast<InputOp>(op);
    if (!input) continue;
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> perDim(type.getRank(), -1);
    auto entries = input->getAttrOfType<ArrayAttr>("webnn.dynamic_dims");
    for (Attribute e : entries ? entries.getValue() : ArrayRef<Attribute>()) {
      auto dict = dyn_cast<DictionaryAttr>(e);
      auto index = dict ? dict.getAs<IntegerAttr>("index") : nullptr;
      auto name = dict ? dict.getAs<StringAttr>("name") : nullptr;
      auto maxSize = dict ? dict.getAs<IntegerAttr>("maxSize") : nullptr;
      if (!index || !name || !maxSize || index.getInt() < 0 || index.getInt() >= type.getRank() ||
          !ShapedType::isDynamic(type.getDimSize(index.getInt())))
        return input.emitError() << "malformed webnn.dynamic_dims entry " << e, failure();
      if (maxSize.getInt() < 2)
        return input.emitError() << "dynamic dimension '" << name.getValue()
                                 << "' needs a maximum size of at least 2, got " << maxSize.getInt(),
               failure();
      auto [it, inserted] = byName.try_emplace(name.getValue(), a.dims_.size());
      if (inserted) a.dims_.push_back({name.str(), maxSize.getInt()});
      else if (a.dims_[it->second].maxSize != maxSize.getInt())
        return input.emitError() << "dynamic dimension '" << name.getValue() << "' has maximum "
                                 << maxSize.getInt() << " here but "
                                 << a.dims_[it->second].maxSize << " on another input",
               failure();
      perDim[index.getInt()] = it->second;
    }
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) && perDim[d] < 0)
        return input.emitError() << "input '" << input.getName() << "' dimension " << d
                                 << " is dynamic but has no name and maximum size",
               failure();
    symbols[&op] = std::move(perDim);
  }
  if (a.dims_.empty()) {
    if (anyDynamicType)
      return graph.emitError() << "graph has dynamic dimensions but no input names them", failure();
    return a;
  }

  // Base point: every name at its maximum; probe k: name k one below.
  const size_t n = a.dims_.size();
  SmallVector<int64_t> base;
  for (const NamedDynamicDim &d : a.dims_) base.push_back(d.maxSize);
  FailureOr<ShapeList> atBase = specialize(graph, symbols, a.dims_, base, partial);
  if (failed(atBase)) return failure();
  std::vector<ShapeList> probes;
  for (size_t k = 0; k < n; ++k) {
    SmallVector<int64_t> p = base;
    --p[k];
    FailureOr<ShapeList> s = specialize(graph, symbols, a.dims_, p, partial);
    if (failed(s)) return failure();
    probes.push_back(std::move(*s));
  }
  // Two checks in the upper half of the range (a graph may need a minimum
  // size, e.g. a pooling window), distinct per name so that names cannot
  // stand in for each other.
  SmallVector<SmallVector<int64_t>> checks(2);
  for (size_t k = 0; k < n; ++k) {
    int64_t m = a.dims_[k].maxSize;
    checks[0].push_back(std::clamp<int64_t>(m / 2 + int64_t(k % 3), 1, m));
    checks[1].push_back(std::clamp<int64_t>(m - m / 4 - int64_t(k % 5), 1, m));
  }
  std::vector<ShapeList> checked;
  for (const SmallVector<int64_t> &c : checks) {
    FailureOr<ShapeList> s = specialize(graph, symbols, a.dims_, c, partial);
    if (failed(s)) return failure();
    checked.push_back(std::move(*s));
  }

  size_t index = 0;
  for (Operation &op : graph.getBody().front()) {
    for (Value r : op.getResults()) {
      auto type = cast<RankedTensorType>(r.getType());
      const SmallVector<int64_t> &top = (*atBase)[index];
      SmallVector<DimExpr> exprs(type.getRank());
      bool dynamic = false;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        DimExpr &e = exprs[d];
        int64_t offset = top[d];
        for (size_t k = 0; k < n; ++k) {
          int64_t coef = top[d] - probes[k][index][d];
          if (coef < 0)
            return op.emitError() << "result dimension " << d << " shrinks as dynamic dimension '"
                                  << a.dims_[k].name << "' grows" << opLabel(&op),
                   failure();
          if (coef > 0) e.terms.push_back({unsigned(k), coef});
          offset -= coef * base[k];
        }
        e.offset = offset;
        for (size_t c = 0; c < checks.size(); ++c) {
          int64_t expect = offset;
          for (auto [k, coef] : e.terms) expect += coef * checks[c][k];
          if (checked[c][index][d] != expect)
            return op.emitError() << "result dimension " << d
                                  << " is not an affine function of the dynamic dimensions ("
                                  << checked[c][index][d] << " with " << sizesText(a.dims_, checks[c])
                                  << ", expected " << expect << ")" << opLabel(&op),
                   failure();
        }
        if (!type.isDynamicDim(d) && (!e.isStatic() || e.offset != type.getDimSize(d)))
          return op.emitError() << "result dimension " << d << " is typed static ("
                                << type.getDimSize(d) << ") but depends on the dynamic dimensions"
                                << opLabel(&op),
                 failure();
        dynamic |= !e.isStatic();
      }
      if (dynamic || !type.hasStaticShape()) a.exprs_[r] = std::move(exprs);
      ++index;
    }
  }
  return a;
}

}  // namespace mlir::webnn
