#include "compiler/frontends/onnx/OnnxConverter.h"

#include <algorithm>

#include "dialects/webnn/WebNNOps.h"
#include "llvm/Support/Path.h"

namespace mlir::webnn::onnx_import {

// ------------------------------------------------------------ GraphImporter
GraphImporter::GraphImporter(MLIRContext *ctx, StringRef path, const OnnxImportOptions &opts,
                             StringRef graphName)
    : graph_(ctx, graphName, FileLineColLoc::get(ctx, path, 0, 0)),
      fileLoc_(FileLineColLoc::get(ctx, path, 0, 0)) {
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty()) dir = ".";
  tensorSource_.modelDir = std::string(dir);
  tensorSource_.resourceThresholdBytes = opts.resourceThresholdBytes;
}

Location GraphImporter::nodeLoc(StringRef displayName, StringRef opType) {
  MLIRContext *ctx = context();
  return FusedLoc::get(ctx, {NameLoc::get(StringAttr::get(ctx, displayName)), fileLoc_},
                       StringAttr::get(ctx, opType));
}

// ------------------------------------------------------------ NodeConverter
FailureOr<Value> NodeConverter::requiredInput(size_t i) {
  if (!hasInput(i)) return fail("missing required input #" + Twine(i)), failure();
  return input(i);
}

std::optional<ConstantData> NodeConverter::constantInput(size_t i) const {
  return getConstantData(input(i));
}

FailureOr<SmallVector<int64_t>> NodeConverter::constantIntsInput(size_t i, StringRef what) {
  if (!hasInput(i)) return fail("missing input '" + what + "'"), failure();
  std::optional<ConstantData> d = constantInput(i);
  if (!d)
    return fail("input '" + what + "' ('" + node_.input(i) +
                "') must be a constant (an initializer or computable from constants)"),
           failure();
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
  return (*results)[0];
}

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
    populateComMicrosoftDomain(t);
    return t;
  }();
  return table;
}

}  // namespace mlir::webnn::onnx_import
