// Lowers a webnn-graph AST to the webnn dialect through GraphBuilder, by op
// name. The only per-op knowledge is in OpTable (operand-valued options,
// positional parameters) plus split's `splits` count normalization.
#include "compiler/frontends/dsl/DslImporter.h"

#include <cmath>

#include "compiler/frontends/common/GraphBuilder.h"
#include "compiler/frontends/dsl/Ast.h"
#include "compiler/frontends/dsl/OpTable.h"
#include "compiler/frontends/dsl/Weights.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::webnn {

namespace {

using dsl::DType;
using dsl::SourcePos;

class GraphLowering {
 public:
  GraphLowering(MLIRContext &ctx, const dsl::Graph &graph, StringRef path)
      : ctx_(ctx), graph_(graph), path_(path.str()) {}

  OwningOpRef<ModuleOp> run(std::string *weightsNote);

 private:
  Location loc(SourcePos p) const {
    // Whole-file problems have no position; point at the start.
    return FileLineColLoc::get(&ctx_, path_, std::max(p.line, 1u), std::max(p.col, 1u));
  }
  InFlightDiagnostic error(SourcePos p) { return emitError(loc(p)); }

  LogicalResult define(const std::string &name, SourcePos pos, mlir::Value v);
  FailureOr<mlir::Value> lookup(const std::string &name, SourcePos pos);

  Type elementType(DType t);
  FailureOr<RankedTensorType> tensorType(const dsl::TensorDecl &t, SourcePos pos);

  LogicalResult lowerInput(const dsl::InputDecl &in);
  LogicalResult lowerConst(const dsl::ConstDecl &c);
  FailureOr<ElementsAttr> scalarConstant(const dsl::ConstDecl &c, RankedTensorType type);
  FailureOr<ElementsAttr> bytesConstant(const dsl::ConstDecl &c, RankedTensorType type);
  FailureOr<ElementsAttr> weightsConstant(const dsl::ConstDecl &c, RankedTensorType type);
  LogicalResult lowerNode(const dsl::Node &n);
  FailureOr<Attribute> convertOption(const std::string &name, const dsl::Value &v);
  FailureOr<Attribute> convertGeneric(const dsl::Value &v);
  LogicalResult normalizeSplit(const dsl::Arg &splitsArg, mlir::Value input,
                               NamedAttrList &attrs);
  LogicalResult checkOpExists(const dsl::Node &n);
  LogicalResult checkOptionName(const dsl::Node &n, const std::string &option,
                                const dsl::Value &v, SourcePos pos);
  LogicalResult checkOperandCount(const dsl::Node &n, size_t count);

  MLIRContext &ctx_;
  const dsl::Graph &graph_;
  std::string path_;
  std::optional<GraphBuilder> builder_;
  llvm::StringMap<std::pair<mlir::Value, SourcePos>> env_;
  bool weightsOpened_ = false;
  std::unique_ptr<dsl::WeightsSidecar> weights_;
};

std::string posText(SourcePos p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

LogicalResult GraphLowering::define(const std::string &name, SourcePos pos, mlir::Value v) {
  auto [it, inserted] = env_.try_emplace(name, v, pos);
  if (!inserted)
    return error(pos) << "duplicate name '" << name << "' (first defined at "
                      << posText(it->second.second) << ")";
  return success();
}

FailureOr<mlir::Value> GraphLowering::lookup(const std::string &name, SourcePos pos) {
  auto it = env_.find(name);
  if (it == env_.end()) return error(pos) << "unknown identifier '" << name << "'", failure();
  return it->second.first;
}

Type GraphLowering::elementType(DType t) {
  Builder b(&ctx_);
  auto uint = [&](unsigned w) { return IntegerType::get(&ctx_, w, IntegerType::Unsigned); };
  switch (t) {
    case DType::F32: return b.getF32Type();
    case DType::F16: return b.getF16Type();
    case DType::I4: return b.getIntegerType(4);
    case DType::U4: return uint(4);
    case DType::I32: return b.getIntegerType(32);
    case DType::U32: return uint(32);
    case DType::I64: return b.getIntegerType(64);
    case DType::U64: return uint(64);
    case DType::I8: return b.getIntegerType(8);
    case DType::U8: return uint(8);
  }
  return b.getF32Type();
}

FailureOr<RankedTensorType> GraphLowering::tensorType(const dsl::TensorDecl &t, SourcePos pos) {
  SmallVector<int64_t> shape;
  for (const dsl::Dim &d : t.dims) shape.push_back(d.dynamic ? ShapedType::kDynamic : d.size);
  bool anyDynamic = llvm::any_of(t.dims, [](const dsl::Dim &d) { return d.dynamic; });
  if (!anyDynamic && !t.staticNumElements())
    return error(pos) << "tensor shape " << shapeText(shape) << " has too many elements",
           failure();
  return RankedTensorType::get(shape, elementType(t.dtype));
}

LogicalResult GraphLowering::lowerInput(const dsl::InputDecl &in) {
  FailureOr<RankedTensorType> type = tensorType(in.type, in.pos);
  if (failed(type)) return failure();
  mlir::Value v = builder_->addInput(in.name, *type, loc(in.pos));
  // A dynamic dimension keeps its symbolic name and upper bound for later
  // stages: [{index, name, maxSize}, ...].
  SmallVector<Attribute> dynamicDims;
  Builder b(&ctx_);
  for (auto [i, d] : llvm::enumerate(in.type.dims)) {
    if (!d.dynamic) continue;
    dynamicDims.push_back(b.getDictionaryAttr({
        b.getNamedAttr("index", b.getI64IntegerAttr(i)),
        b.getNamedAttr("name", b.getStringAttr(d.dynamicName)),
        b.getNamedAttr("maxSize", b.getI64IntegerAttr(d.size)),
    }));
  }
  if (!dynamicDims.empty())
    v.getDefiningOp()->setAttr("webnn.dynamic_dims", b.getArrayAttr(dynamicDims));
  return define(in.name, in.pos, v);
}

FailureOr<ElementsAttr> GraphLowering::scalarConstant(const dsl::ConstDecl &c,
                                                      RankedTensorType type) {
  double value = *c.scalar.asDouble();
  Type elt = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(elt)) {
    APFloat f(value);
    bool lostInfo = false;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lostInfo);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef<APFloat>(f)));
  }
  auto it = cast<IntegerType>(elt);
  unsigned width = it.getWidth();
  bool isUnsigned = it.isUnsigned();
  if (!std::isfinite(value) || (c.scalar.kind == dsl::Value::Kind::Float &&
                                std::trunc(value) != value))
    return error(c.scalar.pos) << "@scalar value for the integer constant '" << c.name
                               << "' must be an integer",
           failure();
  // Integers are read as int64; check they fit the declared width.
  int64_t v = c.scalar.kind == dsl::Value::Kind::Int ? c.scalar.intValue
                                                      : static_cast<int64_t>(value);
  bool fits = isUnsigned ? (v >= 0 && (width >= 64 || v < (int64_t(1) << width)))
                         : (width >= 64 || (v >= -(int64_t(1) << (width - 1)) &&
                                            v < (int64_t(1) << (width - 1))));
  if (!fits)
    return error(c.scalar.pos) << "@scalar value " << v << " does not fit "
                               << dsl::dtypeShortName(c.type.dtype),
           failure();
  APInt a(width, static_cast<uint64_t>(v), /*isSigned=*/!isUnsigned, /*implicitTrunc=*/true);
  return cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef<APInt>(a)));
}

FailureOr<ElementsAttr> GraphLowering::bytesConstant(const dsl::ConstDecl &c,
                                                     RankedTensorType type) {
  uint64_t n = *c.type.staticNumElements();
  uint64_t expected = dsl::dtypeByteSize(c.type.dtype, n);
  if (c.bytes.size() != expected)
    return error(c.initPos) << "@bytes for '" << c.name << "' gives " << c.bytes.size()
                            << " bytes but " << dsl::dtypeShortName(c.type.dtype)
                            << shapeText(type.getShape()) << " needs " << expected,
           failure();
  if (c.type.dtype == DType::I4 || c.type.dtype == DType::U4) {
    // Packed two per byte, low nibble first; the attribute holds values.
    SmallVector<APInt> values;
    bool isSigned = c.type.dtype == DType::I4;
    for (uint64_t i = 0; i < n; ++i) {
      unsigned nibble = (c.bytes[i / 2] >> ((i % 2) * 4)) & 0xF;
      values.push_back(APInt(4, nibble, isSigned, /*implicitTrunc=*/true));
    }
    return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
  }
  ArrayRef<char> raw(reinterpret_cast<const char *>(c.bytes.data()), c.bytes.size());
  return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, raw));
}

FailureOr<ElementsAttr> GraphLowering::weightsConstant(const dsl::ConstDecl &c,
                                                       RankedTensorType type) {
  if (!weightsOpened_) {
    weightsOpened_ = true;
    dsl::SidecarError err;
    if (!dsl::WeightsSidecar::openFor(path_, weights_, err)) {
      emitError(FileLineColLoc::get(&ctx_, err.file, std::max(err.pos.line, 1u),
                                    std::max(err.pos.col, 1u)))
          << err.message;
      return failure();
    }
  }
  if (!weights_) {
    llvm::SmallString<256> stem(path_);
    llvm::sys::path::replace_extension(stem, "");
    return error(c.initPos) << "constant '" << c.name << "' needs weights key '" << c.weightsKey
                            << "' but no weights sidecar was found (looked for " << stem
                            << ".manifest.json with " << stem << ".weights, and " << stem
                            << ".safetensors)",
           failure();
  }
  std::string why;
  const dsl::WeightsTensor *t = weights_->find(c.weightsKey, why);
  if (!t)
    return error(c.initPos) << "missing weights key '" << c.weightsKey << "' for constant '"
                            << c.name << "': " << why,
           failure();
  if (t->dtype != c.type.dtype)
    return error(c.initPos) << "constant '" << c.name << "' is declared "
                            << dsl::dtypeShortName(c.type.dtype) << " but weights '"
                            << c.weightsKey << "' hold " << dsl::dtypeWebNNName(t->dtype),
           failure();
  if (ArrayRef<int64_t>(t->shape) != type.getShape())
    return error(c.initPos) << "constant '" << c.name << "' is declared with shape "
                            << shapeText(type.getShape()) << " but weights '" << c.weightsKey
                            << "' have shape " << shapeText(t->shape),
           failure();

  // Reference the mapped bytes in place; the deleter only drops our share of
  // the mapping. MLIR expects element-aligned blobs, so an unaligned offset
  // (allowed by the manifest format) costs a copy.
  size_t align = dsl::dtypeAlignment(c.type.dtype);
  AsmResourceBlob blob;
  if (reinterpret_cast<uintptr_t>(t->data.data()) % align == 0) {
    blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        t->data, align, [keep = t->file](void *, size_t, size_t) {}, /*dataIsMutable=*/false);
  } else {
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(t->data, align, /*dataIsMutable=*/false);
  }
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(type, c.weightsKey, std::move(blob)));
}

LogicalResult GraphLowering::lowerConst(const dsl::ConstDecl &c) {
  FailureOr<RankedTensorType> type = tensorType(c.type, c.pos);
  if (failed(type)) return failure();
  FailureOr<ElementsAttr> value = failure();
  switch (c.init) {
    case dsl::ConstDecl::Init::Scalar: value = scalarConstant(c, *type); break;
    case dsl::ConstDecl::Init::Bytes: value = bytesConstant(c, *type); break;
    case dsl::ConstDecl::Init::Weights: value = weightsConstant(c, *type); break;
  }
  if (failed(value)) return failure();
  StringRef key = c.init == dsl::ConstDecl::Init::Weights ? StringRef(c.weightsKey) : StringRef();
  return define(c.name, c.pos, builder_->addConstant(*value, key, loc(c.pos)));
}

FailureOr<Attribute> GraphLowering::convertGeneric(const dsl::Value &v) {
  Builder b(&ctx_);
  using K = dsl::Value::Kind;
  switch (v.kind) {
    case K::Null: return Attribute();
    case K::Bool: return cast<Attribute>(b.getBoolAttr(v.boolValue));
    case K::Int: return cast<Attribute>(b.getI64IntegerAttr(v.intValue));
    case K::Float: return cast<Attribute>(b.getF64FloatAttr(v.floatValue));
    case K::String: return cast<Attribute>(b.getStringAttr(v.text));
    case K::Ident:
      return error(v.pos) << "identifier '" << v.text
                          << "' is not allowed here (option values are literals; only "
                             "operand-valued options name values)",
             failure();
    case K::Array: {
      if (llvm::all_of(v.items, [](const dsl::Value &i) { return i.kind == K::Int; })) {
        SmallVector<int64_t> ints;
        for (const dsl::Value &i : v.items) ints.push_back(i.intValue);
        return cast<Attribute>(b.getDenseI64ArrayAttr(ints));
      }
      if (llvm::all_of(v.items, [](const dsl::Value &i) { return i.isNumber(); })) {
        SmallVector<double> floats;
        for (const dsl::Value &i : v.items) floats.push_back(*i.asDouble());
        return cast<Attribute>(b.getDenseF64ArrayAttr(floats));
      }
      SmallVector<Attribute> items;
      for (const dsl::Value &i : v.items) {
        if (i.kind == K::Null) return error(i.pos) << "null is not allowed inside an array", failure();
        FailureOr<Attribute> a = convertGeneric(i);
        if (failed(a)) return failure();
        items.push_back(*a);
      }
      return cast<Attribute>(b.getArrayAttr(items));
    }
    case K::Object: {
      NamedAttrList fields;
      for (const auto &[key, item] : v.fields) {
        FailureOr<Attribute> a = convertGeneric(item);
        if (failed(a)) return failure();
        if (*a) fields.append(key, *a);
      }
      return cast<Attribute>(fields.getDictionary(&ctx_));
    }
  }
  return Attribute();
}

FailureOr<Attribute> GraphLowering::convertOption(const std::string &name, const dsl::Value &v) {
  Builder b(&ctx_);
  if (v.kind == dsl::Value::Kind::Null) return Attribute();
  if (dsl::isDataTypeOption(name)) {
    std::optional<DType> dt;
    if (v.kind == dsl::Value::Kind::String) dt = dsl::parseDType(v.text);
    if (!dt)
      return error(v.pos) << "option '" << name
                          << "' expects a data type name such as \"float16\" or \"int32\"",
             failure();
    return cast<Attribute>(TypeAttr::get(elementType(*dt)));
  }
  if (dsl::isFloatOption(name)) {
    std::optional<double> d = v.asDouble();
    if (!d)
      return error(v.pos) << "option '" << name
                          << "' expects a number (or \"Infinity\", \"-Infinity\", \"NaN\")",
             failure();
    return cast<Attribute>(b.getF64FloatAttr(*d));
  }
  if (dsl::isFloatListOption(name) && v.kind == dsl::Value::Kind::Array) {
    SmallVector<double> floats;
    for (const dsl::Value &i : v.items) {
      std::optional<double> d = i.asDouble();
      if (!d) return error(i.pos) << "option '" << name << "' expects a list of numbers", failure();
      floats.push_back(*d);
    }
    return cast<Attribute>(b.getDenseF64ArrayAttr(floats));
  }
  if (dsl::isStringListOption(name) && v.kind == dsl::Value::Kind::Array) {
    std::string joined;
    for (const dsl::Value &i : v.items) {
      if (i.kind != dsl::Value::Kind::String)
        return error(i.pos) << "option '" << name << "' expects a list of names such as "
                            << "[\"sigmoid\", \"tanh\"]",
               failure();
      joined += (joined.empty() ? "" : ",") + i.text;
    }
    return cast<Attribute>(b.getStringAttr(joined));
  }
  return convertGeneric(v);
}

// split(input, splits=n): n equal parts along `axis`; WebNN itself takes the
// sizes, so the count becomes a size list here.
LogicalResult GraphLowering::normalizeSplit(const dsl::Arg &splitsArg, mlir::Value input,
                                            NamedAttrList &attrs) {
  const dsl::Value &v = splitsArg.value;
  if (v.kind != dsl::Value::Kind::Int) return success();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t axis = 0;
  if (auto a = dyn_cast_or_null<IntegerAttr>(attrs.get("axis"))) axis = a.getInt();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank || rank == 0)
    return error(splitsArg.pos) << "split axis " << axis << " is out of range for rank " << rank;
  if (axis < 0) axis += rank;
  int64_t count = v.intValue, size = type.getDimSize(axis);
  if (count <= 0) return error(v.pos) << "split count must be positive, got " << count;
  if (ShapedType::isDynamic(size))
    return error(v.pos) << "cannot split dynamic dimension " << axis << " into " << count
                        << " equal parts";
  if (size % count != 0)
    return error(v.pos) << "cannot split dimension " << axis << " of size " << size << " into "
                        << count << " equal parts";
  attrs.set("splits", Builder(&ctx_).getDenseI64ArrayAttr(SmallVector<int64_t>(count, size / count)));
  return success();
}

LogicalResult GraphLowering::checkOpExists(const dsl::Node &n) {
  std::string full = "webnn." + n.op;
  if (RegisteredOperationName::lookup(full, &ctx_)) return success();
  InFlightDiagnostic diag = error(n.pos) << "unknown WebNN operation '" << n.op << "'";
  for (RegisteredOperationName name : ctx_.getRegisteredOperations()) {
    StringRef s = name.getStringRef();
    if (s.starts_with("webnn.") && s.drop_front(6).equals_insensitive(n.op)) {
      diag << "; did you mean '" << s.drop_front(6) << "'?";
      break;
    }
  }
  return failure();
}

// An option must be one the op declares: an attribute of its ODS definition
// or an operand-valued option. Anything else would otherwise reach the op as
// a discardable attribute that nothing reads, so a misspelt or newer option
// name would be dropped without a word.
LogicalResult GraphLowering::checkOptionName(const dsl::Node &n, const std::string &option,
                                             const dsl::Value &v, SourcePos pos) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup("webnn." + n.op, &ctx_);
  std::vector<std::string> operandOptions = dsl::operandOptionNames(n.op);
  if (llvm::is_contained(operandOptions, option)) {
    if (v.kind == dsl::Value::Kind::Null) return success();  // an absent operand
    return error(pos) << "option '" << option << "' of '" << n.op
                      << "' is an operand: give the name of a value (" << option
                      << "=x), not a literal";
  }
  std::vector<std::string> known(operandOptions);
  for (const auto &[alias, attr] : dsl::optionAliases(n.op)) {
    if (alias == option) return success();
    known.push_back(alias);
  }
  for (StringAttr attr : name->getAttributeNames()) {
    // Segment sizes are bookkeeping that the importer fills in itself.
    if (attr.getValue() == "operandSegmentSizes" || attr.getValue() == "resultSegmentSizes")
      continue;
    if (attr.getValue() == option) return success();
    known.push_back(attr.getValue().str());
  }
  InFlightDiagnostic diag = error(pos) << "'" << n.op << "' has no option '" << option << "'";
  if (known.empty()) {
    diag << " (it takes no options)";
    return failure();
  }
  llvm::sort(known);
  diag << "; its options are:";
  for (const std::string &k : known) diag << " " << k;
  return failure();
}

// Result-type inference runs before the verifier and may index operands
// blindly, so a fixed operand count (from the op's ODS traits) is checked first.
LogicalResult GraphLowering::checkOperandCount(const dsl::Node &n, size_t count) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup("webnn." + n.op, &ctx_);
  std::optional<size_t> expected;
  if (name->hasTrait<OpTrait::ZeroOperands>()) expected = 0;
  else if (name->hasTrait<OpTrait::OneOperand>()) expected = 1;
  else if (name->hasTrait<OpTrait::NOperands<2>::Impl>()) expected = 2;
  else if (name->hasTrait<OpTrait::NOperands<3>::Impl>()) expected = 3;
  else if (name->hasTrait<OpTrait::NOperands<4>::Impl>()) expected = 4;
  else if (name->hasTrait<OpTrait::NOperands<5>::Impl>()) expected = 5;
  if (name->hasTrait<OpTrait::VariadicOperands>() && count == 0)
    return error(n.pos) << "'" << n.op << "' needs at least one operand";
  if (expected && *expected != count)
    return error(n.pos) << "'" << n.op << "' takes " << *expected << " operand"
                        << (*expected == 1 ? "" : "s") << ", got " << count;
  return success();
}

LogicalResult GraphLowering::lowerNode(const dsl::Node &n) {
  if (n.op.empty()) {  // alias: `y = x;`
    FailureOr<mlir::Value> v = lookup(n.args[0].value.text, n.args[0].pos);
    if (failed(v)) return failure();
    return define(n.results[0], n.resultPos[0], *v);
  }
  if (failed(checkOpExists(n))) return failure();

  SmallVector<mlir::Value> positional;
  std::vector<std::pair<unsigned, const dsl::Arg *>> slotted;  // operand-valued options
  NamedAttrList attrs;
  const dsl::Arg *splitsArg = nullptr;
  const std::vector<std::string> &params = dsl::positionalParameters(n.op);
  size_t nextParam = 0;

  // The option name each attribute was given under, to tell a repeated
  // option from one given under both of its names.
  llvm::StringMap<std::string> givenAs;
  // MLOperatorOptions.label, which every op takes: the node's name (in
  // errors, --verbose and the artifact), not an attribute.
  std::optional<std::string> label;
  auto addAttr = [&](const std::string &name, const dsl::Value &v, SourcePos pos) -> LogicalResult {
    if (name == "label") {
      if (v.kind != dsl::Value::Kind::String) return error(pos) << "option 'label' must be a string";
      if (label) return error(pos) << "option 'label' given twice";
      label = v.text;
      return success();
    }
    if (failed(checkOptionName(n, name, v, pos))) return failure();
    std::string attrName = name;
    for (const auto &[alias, attr] : dsl::optionAliases(n.op))
      if (alias == name) attrName = attr;
    auto [it, first] = givenAs.try_emplace(attrName, name);
    if (!first && it->second == name) return error(pos) << "option '" << name << "' given twice";
    if (!first) {
      std::string current = attrName == name ? it->second : name;
      return error(pos) << "'" << n.op << "' options '" << current << "' and '" << attrName
                        << "' are one option (the spec's current and older name): give one";
    }
    FailureOr<Attribute> a = convertOption(attrName, v);
    if (failed(a)) return failure();
    if (*a) attrs.set(attrName, *a);
    return success();
  };

  for (const dsl::Arg &arg : n.args) {
    const dsl::Value &v = arg.value;
    bool isOperandList = v.kind == dsl::Value::Kind::Array && !v.items.empty() &&
                         llvm::all_of(v.items, [](const dsl::Value &i) {
                           return i.kind == dsl::Value::Kind::Ident;
                         });
    if (arg.name.empty()) {
      if (v.kind == dsl::Value::Kind::Ident) {
        FailureOr<mlir::Value> operand = lookup(v.text, v.pos);
        if (failed(operand)) return failure();
        positional.push_back(*operand);
      } else if (isOperandList) {  // concat([a, b], axis): WebNN's sequence form
        for (const dsl::Value &i : v.items) {
          FailureOr<mlir::Value> operand = lookup(i.text, i.pos);
          if (failed(operand)) return failure();
          positional.push_back(*operand);
        }
      } else {
        if (nextParam >= params.size())
          return error(arg.pos) << "unexpected positional value for '" << n.op
                                << "'; write options as name=value",
                 failure();
        const std::string &name = params[nextParam++];
        if (name == "splits") splitsArg = &arg;
        if (failed(addAttr(name, v, arg.pos))) return failure();
      }
      continue;
    }
    if (v.kind == dsl::Value::Kind::Ident) {
      std::optional<unsigned> slot = dsl::operandOptionSlot(n.op, arg.name);
      if (!slot)
        return error(arg.pos) << "option '" << arg.name << "' of '" << n.op
                              << "' does not take an operand (got identifier '" << v.text
                              << "')",
               failure();
      slotted.emplace_back(*slot, &arg);
      continue;
    }
    if (arg.name == "splits") splitsArg = &arg;
    if (failed(addAttr(arg.name, v, arg.pos))) return failure();
  }

  // Operand list in docs/OPS.md order, null for an absent optional operand.
  SmallVector<mlir::Value> operands(positional);
  if (std::optional<dsl::OperandSlots> slots = dsl::operandSlots(n.op)) {
    if (positional.size() > slots->total)
      return error(n.pos) << "'" << n.op << "' takes at most " << slots->total
                          << " operands, got " << positional.size(),
             failure();
    operands.resize(slots->total);
    for (auto [slot, arg] : slotted) {
      if (operands[slot])
        return error(arg->pos) << "operand '" << arg->name << "' of '" << n.op
                               << "' is also given positionally",
               failure();
      FailureOr<mlir::Value> operand = lookup(arg->value.text, arg->value.pos);
      if (failed(operand)) return failure();
      operands[slot] = *operand;
    }
    for (unsigned i = 0; i < slots->required && i < operands.size(); ++i)
      if (!operands[i])
        return error(n.pos) << "'" << n.op << "' needs " << slots->required
                            << " operands, got " << positional.size(),
               failure();
  }

  if (failed(checkOperandCount(n, operands.size()))) return failure();
  // The required parameters are exactly the positional ones; checked here so
  // result-type inference never sees them absent.
  for (const std::string &param : params)
    if (!attrs.get(param))
      return error(n.pos) << "'" << n.op << "' requires option '" << param << "'", failure();

  if (n.op == "split" && splitsArg && !operands.empty() && operands[0])
    if (failed(normalizeSplit(*splitsArg, operands[0], attrs))) return failure();

  FailureOr<SmallVector<mlir::Value>> results =
      builder_->addOp(n.op, operands, attrs.getAttrs(),
                      label ? Location(NameLoc::get(StringAttr::get(&ctx_, *label), loc(n.pos))) : loc(n.pos));
  if (failed(results)) return failure();
  if (results->size() != n.results.size())
    return error(n.resultPos[0]) << "'" << n.op << "' produces " << results->size()
                                 << " result(s) but " << n.results.size()
                                 << " name(s) are bound",
           failure();
  for (auto [name, pos, v] : llvm::zip(n.results, n.resultPos, *results))
    if (failed(define(name, pos, v))) return failure();
  return success();
}

OwningOpRef<ModuleOp> GraphLowering::run(std::string *weightsNote) {
  std::string name = graph_.name;
  if (name.empty()) name = llvm::sys::path::stem(path_).str();
  builder_.emplace(&ctx_, name, loc({1, 1}));
  for (const dsl::InputDecl &in : graph_.inputs)
    if (failed(lowerInput(in))) return nullptr;
  for (const dsl::ConstDecl &c : graph_.consts)
    if (failed(lowerConst(c))) return nullptr;
  for (const dsl::Node &n : graph_.nodes)
    if (failed(lowerNode(n))) return nullptr;

  if (graph_.outputs.empty()) {
    error({1, 1}) << "graph '" << name << "' has no outputs";
    return nullptr;
  }
  SmallVector<mlir::Value> outputs;
  std::vector<std::string> names;
  llvm::StringMap<SourcePos> seen;
  SourcePos lastPos;
  for (const dsl::OutputDecl &o : graph_.outputs) {
    auto [it, inserted] = seen.try_emplace(o.name, o.pos);
    if (!inserted) {
      error(o.pos) << "duplicate output '" << o.name << "' (first listed at "
                   << posText(it->second) << ")";
      return nullptr;
    }
    FailureOr<mlir::Value> v = lookup(o.value, o.pos);
    if (failed(v)) return nullptr;
    outputs.push_back(*v);
    names.push_back(o.name);
    lastPos = o.pos;
  }
  if (failed(builder_->finish(outputs, names, loc(lastPos)))) return nullptr;
  OwningOpRef<ModuleOp> module = builder_->takeModule();
  if (graph_.quantized)
    if (auto func = module->lookupSymbol<func::FuncOp>("main"))
      func->setAttr("webnn.quantized", UnitAttr::get(&ctx_));
  if (weightsNote) *weightsNote = weights_ ? weights_->description() : std::string();
  return module;
}

bool looksLikeJson(StringRef path, StringRef source) {
  if (path.ends_with_insensitive(".json")) return true;
  if (path.ends_with_insensitive(".webnn")) return false;
  return source.ltrim().starts_with("{");
}

}  // namespace

OwningOpRef<ModuleOp> importWebNNGraphSource(MLIRContext &ctx, StringRef source, StringRef path,
                                             std::string *weightsNote) {
  loadFrontendDialects(ctx);
  if (weightsNote) weightsNote->clear();
  dsl::SyntaxError err;
  std::string text = source.str();
  std::optional<dsl::Graph> graph =
      looksLikeJson(path, source) ? dsl::parseGraphJson(text, err) : dsl::parseGraphText(text, err);
  if (!graph) {
    emitError(FileLineColLoc::get(&ctx, path, std::max(err.pos.line, 1u),
                                  std::max(err.pos.col, 1u)))
        << err.message;
    return nullptr;
  }
  return GraphLowering(ctx, *graph, path).run(weightsNote);
}

OwningOpRef<ModuleOp> importWebNNGraphFile(MLIRContext &ctx, StringRef path,
                                           std::string *weightsNote) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf) {
    emitError(FileLineColLoc::get(&ctx, path, 1, 1))
        << "cannot open '" << path << "': " << buf.getError().message();
    return nullptr;
  }
  return importWebNNGraphSource(ctx, (*buf)->getBuffer(), path, weightsNote);
}

}  // namespace mlir::webnn
