#include "compiler/frontends/onnx/OnnxConverter.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"
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
  tensorSource_.extraDataDirs = opts.externalDataDirs;
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

void NodeConverter::setShapeValueOutput(size_t i, StringRef origin, std::optional<ShapeValueDims> dims) {
  if (outputUsed(i)) graph_.defineShapeValue(node_.output(i), origin, std::move(dims));
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

// The ONNX node an op was built for: (op type, display name) from the
// location GraphImporter::nodeLoc gives it.
static std::optional<std::pair<std::string, std::string>> onnxNodeOf(Operation *op) {
  auto fused = mlir::dyn_cast<FusedLoc>(op->getLoc());
  if (!fused) return std::nullopt;
  auto opType = mlir::dyn_cast_or_null<StringAttr>(fused.getMetadata());
  if (!opType) return std::nullopt;
  for (Location l : fused.getLocations())
    if (auto name = mlir::dyn_cast<NameLoc>(l))
      return std::make_pair(opType.getValue().str(), name.getName().getValue().str());
  return std::nullopt;
}

// "Cast 'c1' <- Shape 's0' <- input 'x'": the ONNX nodes that compute `v` at
// run time, following the first operand that is not a constant back to a
// graph input or a Loop body argument. Empty when `v` is a graph input.
std::string describeRuntimeChain(Value v) {
  constexpr int kMaxLinks = 8;
  SmallVector<std::string> links;
  std::optional<std::pair<std::string, std::string>> last;
  while (v && static_cast<int>(links.size()) <= kMaxLinks) {
    if (auto arg = mlir::dyn_cast<BlockArgument>(v)) {
      // webnn.loop's body arguments: iteration number, condition, carried values.
      unsigned n = arg.getArgNumber();
      std::string what = n == 0   ? std::string("the iteration number")
                         : n == 1 ? std::string("the condition")
                                  : "loop-carried value #" + std::to_string(n - 2);
      Operation *parent = arg.getOwner()->getParentOp();
      if (auto node = parent ? onnxNodeOf(parent) : std::nullopt)
        what += " of " + node->first + " '" + node->second + "'";
      links.push_back(what);
      break;
    }
    Operation *op = v.getDefiningOp();
    if (auto in = dyn_cast<InputOp>(op)) {
      if (links.empty()) return "";
      links.push_back("input '" + in.getName().str() + "'");
      break;
    }
    std::optional<std::pair<std::string, std::string>> node = onnxNodeOf(op);
    // The ops one ONNX node was decomposed into are one link.
    if (node && node != last) links.push_back(node->first + " '" + node->second + "'");
    if (node) last = node;
    Value next;
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp<ConstantOp>()) {
        next = operand;
        break;
      }
    v = next;
  }
  std::string out;
  for (size_t i = 0; i < links.size() && static_cast<int>(i) < kMaxLinks; ++i)
    out += (i ? " <- " : "") + links[i];
  if (static_cast<int>(links.size()) > kMaxLinks) out += " <- ...";
  return out;
}

FailureOr<ConstantData> NodeConverter::requireConstantInput(size_t i, StringRef what) {
  if (!hasInput(i)) return fail("missing input '" + what + "'"), failure();
  if (std::optional<StringRef> origin = graph_.shapeValueOrigin(node_.input(i)))
    return fail("input '" + what + "' ('" + node_.input(i) + "') must be a constant; it is computed from " +
                *origin + ", whose size is only known at run time (fix the dimension with --shape)"),
           failure();
  std::optional<ConstantData> d = constantInput(i);
  if (!d) {
    std::string from;
    std::string chain = describeRuntimeChain(input(i));
    if (!chain.empty()) from = "; it is computed at run time by " + chain;
    std::string inputs;
    for (const std::string &n : graphInputsFeeding(input(i))) inputs += (inputs.empty() ? "'" : ", '") + n + "'";
    if (!inputs.empty()) from += "; it is computed from graph inputs " + inputs + " (freeze them with --const-input)";
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
    if (std::optional<ElementsAttr> value = evaluateConstantOp(def)) {
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
  // A constant has a static shape; a lowering that would size one from a
  // dynamic dimension (`--dynamic-dim`) stops here with one error.
  if (llvm::any_of(shape, ShapedType::isDynamic)) {
    std::string dims;
    for (int64_t d : shape) dims += (dims.empty() ? "" : ", ") + (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
    return fail("this lowering needs a constant of shape [" + dims +
                "], which depends on a dynamic dimension (fix it with --shape)"),
           Value();
  }
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

// A reshape keeping several dynamic dimensions (in order): webnn.reshape
// copies each `?` from the input's dimension at the same index, so where
// only static 1s move them (Unsqueeze, Squeeze) the 1s are moved out of the
// way by transposes, which keep the elements' order.
static FailureOr<Value> reshapeKeepingDynamicDims(NodeConverter &c, Value v, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> in = NodeConverter::shapeOf(v);
  auto dynamicAt = [](ArrayRef<int64_t> s) {
    SmallVector<int64_t> p;
    for (auto [i, d] : llvm::enumerate(s))
      if (ShapedType::isDynamic(d)) p.push_back(int64_t(i));
    return p;
  };
  auto reshapeOp = [&](Value x, ArrayRef<int64_t> s) {
    return c.op("reshape", {x}, {c.i64ArrayAttr("newShape", s)});
  };
  if (dynamicAt(in) == dynamicAt(shape)) return reshapeOp(v, shape);
  auto notOne = [](ArrayRef<int64_t> s) {
    SmallVector<int64_t> axes;
    for (auto [i, d] : llvm::enumerate(s))
      if (d != 1) axes.push_back(int64_t(i));
    return axes;
  };
  SmallVector<int64_t> inAxes = notOne(in), outAxes = notOne(shape);
  bool sameDims = inAxes.size() == outAxes.size() && dynamicAt(in).size() == dynamicAt(shape).size();
  for (size_t k = 0; sameDims && k < inAxes.size(); ++k) sameDims = in[inAxes[k]] == shape[outAxes[k]];
  if (!sameDims)
    return c.fail("reshape of " + formatList(in) + " to " + formatList(shape) +
                  " moves dynamic dimensions to other indices while changing static ones"),
           failure();
  // The input's other dimensions first, its 1s after them.
  SmallVector<int64_t> perm1(inAxes), mid;
  for (int64_t i = 0; i < int64_t(in.size()); ++i)
    if (in[i] == 1) perm1.push_back(i);
  for (int64_t a : inAxes) mid.push_back(in[a]);
  mid.resize(shape.size(), 1);
  Value x = v;
  if (!llvm::equal(perm1, llvm::seq<int64_t>(0, in.size()))) {
    FailureOr<Value> t = c.op("transpose", {x}, {c.i64ArrayAttr("permutation", perm1)});
    if (failed(t)) return failure();
    x = *t;
  }
  if (NodeConverter::shapeOf(x) != ArrayRef<int64_t>(mid)) {
    FailureOr<Value> r = reshapeOp(x, mid);
    if (failed(r)) return failure();
    x = *r;
  }
  // Then each output index takes its dimension: the k-th other one, or a 1.
  SmallVector<int64_t> perm2(shape.size());
  int64_t k = 0, ones = int64_t(outAxes.size());
  for (int64_t j = 0; j < int64_t(shape.size()); ++j) perm2[j] = shape[j] == 1 ? ones++ : k++;
  if (llvm::equal(perm2, llvm::seq<int64_t>(0, shape.size()))) return x;
  return c.op("transpose", {x}, {c.i64ArrayAttr("permutation", perm2)});
}

FailureOr<Value> NodeConverter::reshape(Value v, ArrayRef<int64_t> shape) {
  RankedTensorType t = typeOf(v);
  if (t.getShape() == shape) return v;
  if (llvm::count_if(shape, ShapedType::isDynamic) >= 2) return reshapeKeepingDynamicDims(*this, v, shape);
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
