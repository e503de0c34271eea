#include "compiler/frontends/onnx/OnnxConverter.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "dialects/webnn/WebNNOps.h"
#include "llvm/Support/Path.h"

namespace mlir::webnn::onnx_import {

// ------------------------------------------------------------ GraphImporter
GraphImporter::GraphImporter(MLIRContext *ctx, StringRef path, const OnnxImportOptions &opts,
                             StringRef graphName, bool keepFloat64)
    : graph_(ctx, graphName, FileLineColLoc::get(ctx, path, 0, 0)),
      fileLoc_(FileLineColLoc::get(ctx, path, 0, 0)) {
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty()) dir = ".";
  tensorSource_.modelDir = std::string(dir);
  tensorSource_.resourceThresholdBytes = opts.resourceThresholdBytes;
  tensorSource_.keepFloat64 = keepFloat64;
}

Location GraphImporter::nodeLoc(StringRef displayName, StringRef opType) {
  MLIRContext *ctx = context();
  return FusedLoc::get(ctx, {NameLoc::get(StringAttr::get(ctx, displayName)), fileLoc_},
                       StringAttr::get(ctx, opType));
}

// ------------------------------------------------------------ NodeConverter
FailureOr<Value> NodeConverter::requiredInput(size_t i) {
  if (!hasInput(i)) return fail("missing required input #" + Twine(i)), failure();
  if (std::optional<StringRef> origin = graph_.shapeValueOrigin(node_.input(i)))
    return fail("input '" + node_.input(i) + "' is computed from " + *origin +
                ", whose size is only known at run time; WebNN graphs have no shape values, so " +
                opType() + " cannot use it (fix the dimension with --shape)"),
           failure();
  return input(i);
}

void NodeConverter::setShapeValueOutput(size_t i, StringRef origin) {
  if (outputUsed(i)) graph_.defineShapeValue(node_.output(i), origin);
  if (outputs_.size() <= i) outputs_.resize(i + 1);
  outputs_[i] = Value();
  shapeValueOutputs_.resize(std::max(shapeValueOutputs_.size(), i + 1));
  shapeValueOutputs_[i] = true;
}

std::optional<ConstantData> NodeConverter::constantInput(size_t i) const {
  return getConstantData(input(i));
}

// The graph inputs (webnn.input names) `v` is computed from, when it is not
// one itself: what a user would freeze with --const-input.
static SmallVector<std::string> graphInputsFeeding(Value v) {
  SmallVector<std::string> names;
  if (!v || !v.getDefiningOp() || isa<InputOp>(v.getDefiningOp())) return names;
  SmallVector<Operation *> work = {v.getDefiningOp()};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (!work.empty() && seen.size() < 4096) {
    Operation *op = work.pop_back_val();
    if (!op || !seen.insert(op).second) continue;
    if (auto in = dyn_cast<InputOp>(op)) {
      names.push_back(in.getName().str());
      continue;
    }
    for (Value operand : op->getOperands()) work.push_back(operand.getDefiningOp());
  }
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

FailureOr<ConstantData> NodeConverter::requireConstantInput(size_t i, StringRef what) {
  if (!hasInput(i)) return fail("missing input '" + what + "'"), failure();
  std::optional<ConstantData> d = constantInput(i);
  if (!d) {
    std::string from;
    for (const std::string &n : graphInputsFeeding(input(i))) from += (from.empty() ? "'" : ", '") + n + "'";
    if (!from.empty()) from = "; it is computed from graph inputs " + from + " (freeze them with --const-input)";
    return fail("input '" + what + "' ('" + node_.input(i) +
                "') must be a constant (an initializer or computable from constants)" + from),
           failure();
  }
  return *d;
}

FailureOr<SmallVector<int64_t>> NodeConverter::constantIntsInput(size_t i, StringRef what) {
  FailureOr<ConstantData> d = requireConstantInput(i, what);
  if (failed(d)) return failure();
  if (!d->type.getElementType().isIntOrIndex())
    return fail("input '" + what + "' must hold integers"), failure();
  return d->ints();
}

void NodeConverter::setOutput(size_t i, Value v) {
  if (outputs_.size() <= i) outputs_.resize(i + 1);
  outputs_[i] = v;
  if (outputUsed(i)) graph_.define(node_.output(i), v);
}

LogicalResult NodeConverter::rejectExtraOutputs(size_t from, StringRef why) {
  for (size_t i = from; i < numOutputs(); ++i)
    if (outputUsed(i))
      return fail("output #" + Twine(i) + " ('" + node_.output(i) + "') is not supported: " + why);
  return success();
}

const onnx::AttributeProto *NodeConverter::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t NodeConverter::intAttr(StringRef name, int64_t dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : dflt;
}

float NodeConverter::floatAttr(StringRef name, float dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : dflt;
}

std::string NodeConverter::stringAttr(StringRef name, StringRef dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : dflt.str();
}

std::optional<SmallVector<int64_t>> NodeConverter::intsAttr(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a) return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<SmallVector<float>> NodeConverter::floatsAttr(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a) return std::nullopt;
  return SmallVector<float>(a->floats().begin(), a->floats().end());
}


// Element-wise ops of small constants the dialect does not fold (neg,
// comparisons, where, ...), evaluated here so shape arithmetic written with
// them (as exporters and ONNX function bodies do) stays constant.
static std::optional<ElementsAttr> evaluateElementwise(Operation *op) {
  constexpr int64_t kMaxElements = 1 << 16;
  StringRef name = op->getName().stripDialect();
  if (op->getNumResults() != 1) return std::nullopt;
  auto outType = mlir::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!outType || outType.getNumElements() > kMaxElements || outType.getNumElements() == 0)
    return std::nullopt;
  SmallVector<ConstantData> in;
  for (Value v : op->getOperands()) {
    std::optional<ConstantData> d = getConstantData(v);
    if (!d || d->numElements() > kMaxElements) return std::nullopt;
    in.push_back(*d);
  }
  if (in.empty() || in.size() > 3) return std::nullopt;
  // Integer operands compute in int64 (exact for shape values), floats in double.
  bool intMath = !mlir::isa<FloatType>(in.back().type.getElementType());
  using F = std::function<double(double, double, double)>;
  using I = std::function<int64_t(int64_t, int64_t, int64_t)>;
  F f;
  I i;
  auto both = [&](auto fn) { f = fn; i = fn; };
  if (name == "neg") both([](auto a, auto, auto) { return -a; });
  else if (name == "abs") both([](auto a, auto, auto) { return a < 0 ? -a : a; });
  else if (name == "sign") both([](auto a, auto, auto) { return decltype(a)((a > 0) - (a < 0)); });
  else if (name == "relu") both([](auto a, auto, auto) { return a > 0 ? a : decltype(a)(0); });
  else if (name == "logicalNot") both([](auto a, auto, auto) { return decltype(a)(a == 0); });
  else if (name == "floor" && !intMath) f = [](double a, double, double) { return std::floor(a); };
  else if (name == "ceil" && !intMath) f = [](double a, double, double) { return std::ceil(a); };
  else if (name == "sqrt" && !intMath) f = [](double a, double, double) { return std::sqrt(a); };
  else if (name == "max") both([](auto a, auto b, auto) { return a > b ? a : b; });
  else if (name == "min") both([](auto a, auto b, auto) { return a < b ? a : b; });
  else if (name == "equal") both([](auto a, auto b, auto) { return decltype(a)(a == b); });
  else if (name == "notEqual") both([](auto a, auto b, auto) { return decltype(a)(a != b); });
  else if (name == "greater") both([](auto a, auto b, auto) { return decltype(a)(a > b); });
  else if (name == "greaterOrEqual") both([](auto a, auto b, auto) { return decltype(a)(a >= b); });
  else if (name == "lesser") both([](auto a, auto b, auto) { return decltype(a)(a < b); });
  else if (name == "lesserOrEqual") both([](auto a, auto b, auto) { return decltype(a)(a <= b); });
  else if (name == "logicalAnd") both([](auto a, auto b, auto) { return decltype(a)(a && b); });
  else if (name == "logicalOr") both([](auto a, auto b, auto) { return decltype(a)(a || b); });
  else if (name == "logicalXor") both([](auto a, auto b, auto) { return decltype(a)((a != 0) != (b != 0)); });
  else if (name == "where") both([](auto c, auto t, auto e) { return c != 0 ? t : e; });
  else return std::nullopt;
  // Comparisons read their operands' type; where reads the branches'.
  Type elem = outType.getElementType();
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t n = outType.getNumElements(), rank = outShape.size();
  SmallVector<int64_t> idx(rank, 0);
  SmallVector<APInt> ints;
  SmallVector<APFloat> floats;
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (int64_t d = rank - 1; d >= 0; --d) idx[d] = rest % outShape[d], rest /= outShape[d];
    SmallVector<int64_t> at;
    for (const ConstantData &d : in) {
      ArrayRef<int64_t> s = d.type.getShape();
      int64_t lin = 0, off = rank - static_cast<int64_t>(s.size());
      for (size_t j = 0; j < s.size(); ++j) lin = lin * s[j] + (s[j] == 1 ? 0 : idx[off + j]);
      at.push_back(d.splat ? 0 : lin);
    }
    auto argI = [&](size_t j) { return j < in.size() ? in[j].intAt(at[j]) : 0; };
    auto argF = [&](size_t j) { return j < in.size() ? in[j].floatAt(at[j]) : 0.0; };
    double fv;
    int64_t iv;
    if (name == "where") {
      // The condition is uint8; the branches decide int vs float.
      if (intMath) iv = i(argI(0), argI(1), argI(2));
      else fv = f(argF(0), argF(1), argF(2));
    } else if (intMath) {
      if (!i) return std::nullopt;
      iv = i(argI(0), argI(1), argI(2));
    } else {
      fv = f(argF(0), argF(1), argF(2));
    }
    if (auto ft = mlir::dyn_cast<FloatType>(elem)) {
      APFloat a(intMath ? static_cast<double>(iv) : fv);
      bool lost;
      a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      floats.push_back(a);
    } else {
      int64_t v = intMath ? iv : static_cast<int64_t>(fv);
      ints.push_back(APInt(elem.getIntOrFloatBitWidth(), static_cast<uint64_t>(v), true));
    }
  }
  if (mlir::isa<FloatType>(elem)) return ElementsAttr(DenseElementsAttr::get(outType, floats));
  return ElementsAttr(DenseElementsAttr::get(outType, ints));
}

FailureOr<Value> NodeConverter::op(StringRef name, ArrayRef<Value> operands,
                                   ArrayRef<NamedAttribute> attrs) {
  FailureOr<SmallVector<Value>> results = graph_.graph().addOp(name, operands, attrs, loc_);
  if (failed(results)) return failure();
  Value result = (*results)[0];
  // Shape arithmetic must reach the ops that need it as attributes (Reshape's
  // shape, Slice's starts, ...) as constants, so an op of constants is
  // folded now with the dialect's own folders.
  Operation *def = result.getDefiningOp();
  if (def && results->size() == 1 && def->getNumOperands() > 0 &&
      llvm::all_of(def->getOperands(), [](Value v) { return v && v.getDefiningOp<ConstantOp>(); })) {
    SmallVector<OpFoldResult> folded;
    if (succeeded(def->fold(folded)) && folded.size() == 1) {
      if (auto attr = mlir::dyn_cast_if_present<Attribute>(folded[0])) {
        if (auto elements = mlir::dyn_cast<ElementsAttr>(attr);
            elements && elements.getType() == result.getType()) {
          Value cst = constant(elements);
          def->erase();
          return cst;
        }
      } else if (auto v = mlir::dyn_cast_if_present<Value>(folded[0]); v && v != result) {
        def->erase();
        return v;
      }
    }
    if (std::optional<ElementsAttr> value = evaluateElementwise(def)) {
      Value cst = constant(*value);
      def->erase();
      return cst;
    }
  }
  return result;
}

Value NodeConverter::emit(StringRef name, ArrayRef<Value> operands,
                          ArrayRef<NamedAttribute> attrs) {
  if (emitFailed_) return Value();
  FailureOr<Value> v = op(name, operands, attrs);
  if (failed(v)) {
    emitFailed_ = true;
    return Value();
  }
  return *v;
}

Value NodeConverter::emitReshape(Value v, ArrayRef<int64_t> shape) {
  if (emitFailed_ || !v) return Value();
  FailureOr<Value> r = reshape(v, shape);
  if (failed(r)) {
    emitFailed_ = true;
    return Value();
  }
  return *r;
}

Value NodeConverter::emitCast(Value v, Type elem) {
  if (emitFailed_ || !v) return Value();
  if (typeOf(v).getElementType() == elem) return v;
  return emit("cast", {v}, {builder().getNamedAttr("type", TypeAttr::get(elem))});
}

Value NodeConverter::splat(Type elem, ArrayRef<int64_t> shape, double v) {
  auto type = RankedTensorType::get(shape, elem);
  if (auto f = mlir::dyn_cast<FloatType>(elem)) {
    APFloat a(v);
    bool lost;
    a.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return constant(DenseElementsAttr::get(type, a));
  }
  auto i = mlir::cast<IntegerType>(elem);
  APInt a(i.getWidth(), static_cast<uint64_t>(static_cast<int64_t>(v)), !i.isUnsigned());
  return constant(DenseElementsAttr::get(type, a));
}

Value NodeConverter::scalar(Type elem, double v) { return splat(elem, {}, v); }

FailureOr<Value> NodeConverter::reshape(Value v, ArrayRef<int64_t> shape) {
  RankedTensorType t = typeOf(v);
  if (t.getShape() == shape) return v;
  auto newType = RankedTensorType::get(shape, t.getElementType());
  // Shape arithmetic (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) must
  // stay constant for later ops to read it, so fold small dense constants.
  if (auto cst = v.getDefiningOp<ConstantOp>())
    if (auto dense = mlir::dyn_cast<DenseElementsAttr>(cst.getValue()))
      if (newType.getNumElements() == t.getNumElements()) return constant(dense.reshape(newType));
  return op("reshape", {v}, {i64ArrayAttr("newShape", shape)});
}

Value NodeConverter::constant(ElementsAttr value) {
  return graph_.graph().addConstant(value, "", loc_);
}

Value NodeConverter::constantI64(ArrayRef<int64_t> values, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, builder().getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

FailureOr<int64_t> NodeConverter::normalizeAxis(int64_t axis, int64_t rank, StringRef what) {
  if (axis < -rank || axis >= rank)
    return fail(what + " " + Twine(axis) + " is out of range for rank " + Twine(rank)),
           failure();
  return axis < 0 ? axis + rank : axis;
}

// ------------------------------------------------------------------ padding
FailureOr<SmallVector<int64_t>> resolveOnnxPads(NodeConverter &c, ArrayRef<int64_t> in,
                                                ArrayRef<int64_t> kernel,
                                                ArrayRef<int64_t> strides,
                                                ArrayRef<int64_t> dilations) {
  size_t n = in.size();
  std::string autoPad = c.stringAttr("auto_pad", "NOTSET");
  SmallVector<int64_t> pads(2 * n, 0);
  if (autoPad == "NOTSET") {
    if (auto explicitPads = c.intsAttr("pads")) {
      if (explicitPads->size() != 2 * n)
        return c.fail("'pads' has " + Twine(explicitPads->size()) + " values, expected " +
                      Twine(2 * n)),
               failure();
      for (int64_t p : *explicitPads)
        if (p < 0) return c.fail("negative 'pads' are not supported"), failure();
      pads = *explicitPads;
    }
    return pads;
  }
  if (autoPad == "VALID") return pads;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return c.fail("unknown auto_pad '" + autoPad + "'"), failure();
  // ONNX: output = ceil(in / stride); the padding that makes it so is split
  // evenly, the odd unit going at the end (SAME_UPPER) or beginning (SAME_LOWER).
  for (size_t i = 0; i < n; ++i) {
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t effKernel = (kernel[i] - 1) * dilations[i] + 1;
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + effKernel - in[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + n] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

SmallVector<int64_t, 4> toWebNNPadding2d(ArrayRef<int64_t> p) {
  return {p[0], p[2], p[1], p[3]};
}

// ------------------------------------------------------------ the table
void OpConverterTable::add(StringRef domain, StringRef opType, int64_t sinceVersion,
                           ConvertFn fn) {
  auto &list = entries_[{domain.str(), opType.str()}];
  list.emplace_back(sinceVersion, fn);
  std::sort(list.begin(), list.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
}

ConvertFn OpConverterTable::lookup(StringRef domain, StringRef opType, int64_t opset) const {
  if (domain == "ai.onnx") domain = "";
  auto it = entries_.find({domain.str(), opType.str()});
  if (it == entries_.end()) return nullptr;
  ConvertFn best = nullptr;
  for (const auto &[since, fn] : it->second)
    if (since <= opset) best = fn;
  return best;
}

const OpConverterTable &onnxOpConverters() {
  static const OpConverterTable table = [] {
    OpConverterTable t;
    populateDefaultDomainAtoF(t);
    populateDefaultDomainGtoP(t);
    populateDefaultDomainQtoZ(t);
    populateDefaultDomainSignal(t);
    populateDefaultDomainMath(t);
    populateDefaultDomainFolded(t);
    populateDefaultDomainControlFlow(t);
    populateDefaultDomainTraining(t);
    populateDefaultDomainIndexing(t);
    populateDefaultDomainQuantized(t);
    populateComMicrosoftDomain(t);
    populateComMicrosoftTransformer(t);
    return t;
  }();
  return table;
}

}  // namespace mlir::webnn::onnx_import
