// Loading an ONNX model: read and parse the ModelProto, bind graph inputs
// (fixing symbolic dimensions), initializers, then convert node by node
// through the op tables (OnnxConverter.h) and return the graph outputs.
#include "compiler/frontends/onnx/OnnxImporter.h"

#include <climits>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNOps.h"
#include "google/protobuf/io/coded_stream.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace mlir::webnn {
namespace {

using namespace onnx_import;

// Re-reports every diagnostic raised during the import at the file location,
// with "node 'NAME' (OpType): " in front when it concerns a node, so that a
// driver's ordinary handler prints `model.onnx: error: node 'conv1' (Conv): ...`.
class NodeDiagnosticRewriter {
 public:
  NodeDiagnosticRewriter(MLIRContext &ctx, Location fileLoc)
      : handler_(&ctx, [this, &ctx, fileLoc](Diagnostic &diag) -> LogicalResult {
          if (reentered_) return failure();  // our own re-emission: pass it on
          std::string prefix;
          if (auto fused = mlir::dyn_cast<FusedLoc>(diag.getLocation()))
            if (auto opType = mlir::dyn_cast_or_null<StringAttr>(fused.getMetadata()))
              for (Location l : fused.getLocations())
                if (auto name = mlir::dyn_cast<NameLoc>(l))
                  prefix = ("node '" + name.getName().getValue() + "' (" + opType.getValue() +
                            "): ")
                               .str();
          reentered_ = true;
          {
            InFlightDiagnostic out = ctx.getDiagEngine().emit(fileLoc, diag.getSeverity());
            out << prefix << diag.str();
            for (Diagnostic &note : diag.getNotes()) out.attachNote(fileLoc) << note.str();
          }
          reentered_ = false;
          return success();
        }) {}

 private:
  bool reentered_ = false;
  ScopedDiagnosticHandler handler_;
};

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

class ModelImporter {
 public:
  ModelImporter(MLIRContext &ctx, StringRef path, const OnnxImportOptions &opts, bool keepFloat64,
                std::vector<UnsupportedOnnxOp> *unsupported)
      : ctx_(ctx), path_(path.str()), opts_(opts), fileLoc_(FileLineColLoc::get(&ctx, path, 0, 0)),
        keepFloat64_(keepFloat64), unsupported_(unsupported) {}

  OwningOpRef<ModuleOp> run(StringRef bytes);

 private:
  LogicalResult readOpsets();
  LogicalResult checkAllSupported();
  void findUnsupported(const onnx::GraphProto &graph, std::vector<UnsupportedOnnxOp> &out,
                       std::map<std::string, size_t> &index) const;
  LogicalResult bindInputs(GraphImporter &g);
  LogicalResult bindInitializers(GraphImporter &g);
  LogicalResult bindConstantInput(GraphImporter &g, const onnx::ValueInfoProto &vi,
                                  StringRef file);
  LogicalResult convertNodes(GraphImporter &g);
  // `dynamic` receives {index, name, maxSize} per dimension kept dynamic.
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &vi,
                                        SmallVectorImpl<Attribute> &dynamic);
  std::string nodeDisplayName(int index) const;
  int64_t opsetFor(StringRef domain) const;
  LogicalResult convertGraphNodes(GraphImporter &g, const onnx::GraphProto &graph);
  InFlightDiagnostic error() { return emitError(fileLoc_); }

  MLIRContext &ctx_;
  std::string path_;
  const OnnxImportOptions &opts_;
  Location fileLoc_;
  onnx::ModelProto model_;
  std::map<std::string, int64_t> opsets_;  // domain ("" = ai.onnx) -> version
  std::set<std::string> initializerNames_;
  bool keepFloat64_;  // DOUBLE computes in f64, else in f32
  std::vector<UnsupportedOnnxOp> *unsupported_;  // the caller's copy of checkAllSupported's list
};

int64_t ModelImporter::opsetFor(StringRef domain) const {
  auto it = opsets_.find(domain == "ai.onnx" ? std::string() : domain.str());
  return it == opsets_.end() ? -1 : it->second;
}

std::string ModelImporter::nodeDisplayName(int index) const {
  const onnx::NodeProto &node = model_.graph().node(index);
  if (!node.name().empty()) return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

LogicalResult ModelImporter::readOpsets() {
  for (const onnx::OperatorSetIdProto &id : model_.opset_import()) {
    std::string domain = id.domain() == "ai.onnx" ? std::string() : id.domain();
    opsets_[domain] = id.version();
  }
  // IR version 1/2 models predate opset_import and mean ai.onnx opset 1.
  if (model_.opset_import_size() == 0 && model_.ir_version() < 3) opsets_[""] = 1;
  return success();
}

// Every (domain, op_type, opset) the conversion table lacks, by first use;
// a node's subgraphs (If branches, Loop and Scan bodies) before the node.
void ModelImporter::findUnsupported(const onnx::GraphProto &graph, std::vector<UnsupportedOnnxOp> &out,
                                    std::map<std::string, size_t> &index) const {
  const OpConverterTable &table = onnxOpConverters();
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g()) findUnsupported(a.g(), out, index);
      for (const onnx::GraphProto &g : a.graphs()) findUnsupported(g, out, index);
    }
    std::string domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
    int64_t opset = opsetFor(domain);
    if (opset >= 0 && table.lookup(domain, node.op_type(), opset)) continue;
    std::string shown = domain.empty() ? "ai.onnx" : domain;
    auto [slot, inserted] = index.try_emplace(shown + "\n" + node.op_type() + "\n" + std::to_string(opset), out.size());
    if (inserted) out.push_back({shown, node.op_type(), opset, {}});
    // The names convertGraphNodes gives nodes in diagnostics.
    out[slot->second].nodes.push_back(node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name());
  }
}

LogicalResult ModelImporter::checkAllSupported() {
  // Reported together, so a user sees the full list of missing ops at once.
  std::vector<UnsupportedOnnxOp> unsupported;
  std::map<std::string, size_t> index;
  findUnsupported(model_.graph(), unsupported, index);
  if (unsupported_) *unsupported_ = unsupported;
  if (unsupported.empty()) return success();
  InFlightDiagnostic d = error();
  d << "unsupported ONNX operator" << (unsupported.size() > 1 ? "s" : "") << ": ";
  for (size_t i = 0; i < unsupported.size(); ++i) {
    const UnsupportedOnnxOp &op = unsupported[i];
    d << (i ? ", " : "") << op.domain << "::" << op.opType;
    if (op.opset < 0)
      d << " (domain '" << op.domain << "' not in opset_import)";
    else
      d << " (opset " << op.opset << ")";
  }
  return failure();
}

FailureOr<RankedTensorType> ModelImporter::inputType(const onnx::ValueInfoProto &vi,
                                                     SmallVectorImpl<Attribute> &dynamic) {
  const std::string &name = vi.name();
  if (!vi.type().has_tensor_type())
    return error() << "graph input '" << name << "' is not a tensor (sequences, maps and "
                   << "optionals are not supported)",
           failure();
  const onnx::TypeProto_Tensor &tt = vi.type().tensor_type();
  Type elem = convertElementType(&ctx_, tt.elem_type(), keepFloat64_);
  if (!elem)
    return error() << "graph input '" << name << "' has element type "
                   << onnxTypeName(tt.elem_type()) << ", which WebNN does not support",
           failure();

  // A shape whose byte size overflows would pass here and fail only when the
  // artifact is loaded; refuse it where the user can see which input it is.
  auto checkElementCount = [&](ArrayRef<int64_t> dims) -> LogicalResult {
    constexpr uint64_t kMaxElements = uint64_t(std::numeric_limits<int64_t>::max()) / 8;
    uint64_t count = 1;
    for (int64_t d : dims) {
      uint64_t v = d == ShapedType::kDynamic ? 1 : static_cast<uint64_t>(d);
      if (v != 0 && count > kMaxElements / v)
        return error() << "graph input '" << name << "' of shape " << shapeString(dims)
                       << " has too many elements (more than 2^60)",
               failure();
      count *= v;
    }
    return success();
  };

  const std::vector<int64_t> *override = nullptr;
  for (const auto &[n, shape] : opts_.shapes)
    if (n == name) override = &shape;

  if (!tt.has_shape()) {
    if (!override)
      return error() << "graph input '" << name << "' has no shape; give one with --shape "
                     << name << "=D0xD1x...",
             failure();
    return RankedTensorType::get(*override, elem);
  }
  const onnx::TensorShapeProto &shape = tt.shape();
  if (override) {
    if (static_cast<int>(override->size()) != shape.dim_size())
      return error() << "--shape " << name << "=" << shapeString(*override) << " has rank "
                     << override->size() << ", the model's input has rank " << shape.dim_size(),
             failure();
    for (int i = 0; i < shape.dim_size(); ++i)
      if (shape.dim(i).has_dim_value() && shape.dim(i).dim_value() != (*override)[i])
        return error() << "--shape " << name << "=" << shapeString(*override)
                       << " conflicts with the model's dimension " << i << " = "
                       << shape.dim(i).dim_value(),
               failure();
    if (failed(checkElementCount(*override))) return failure();
    return RankedTensorType::get(*override, elem);
  }
  SmallVector<int64_t> dims;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const onnx::TensorShapeProto_Dimension &d = shape.dim(i);
    if (d.has_dim_value()) {
      if (d.dim_value() < 0)
        return error() << "graph input '" << name << "' has negative dimension "
                       << d.dim_value(),
               failure();
      dims.push_back(d.dim_value());
      continue;
    }
    if (d.has_dim_param() && !d.dim_param().empty()) {
      std::optional<int64_t> value;
      for (const auto &[param, v] : opts_.dimParams)
        if (param == d.dim_param()) value = v;
      if (!value) {
        for (const auto &[param, max] : opts_.dynamicDims) {
          if (param != d.dim_param()) continue;
          Builder b(&ctx_);
          dynamic.push_back(b.getDictionaryAttr({
              b.getNamedAttr("index", b.getI64IntegerAttr(i)),
              b.getNamedAttr("name", b.getStringAttr(param)),
              b.getNamedAttr("maxSize", b.getI64IntegerAttr(max)),
          }));
          value = ShapedType::kDynamic;
        }
      }
      if (!value)
        return error() << "graph input '" << name << "' dimension " << i << " is symbolic ('"
                       << d.dim_param() << "'); fix it with --shape " << d.dim_param()
                       << ":VALUE or --shape " << name << "=D0xD1x..., or keep it dynamic with "
                       << "--dynamic-dim " << d.dim_param() << "=MAX",
               failure();
      dims.push_back(*value);
      continue;
    }
    return error() << "graph input '" << name << "' dimension " << i
                   << " is unknown; give the shape with --shape " << name << "=D0xD1x...",
           failure();
  }
  if (failed(checkElementCount(dims))) return failure();
  return RankedTensorType::get(dims, elem);
}

LogicalResult ModelImporter::bindInitializers(GraphImporter &g) {
  for (const onnx::TensorProto &t : model_.graph().initializer()) {
    if (t.name().empty()) return error() << "an initializer has no name", failure();
    if (!initializerNames_.insert(t.name()).second)
      return error() << "initializer '" << t.name() << "' is defined twice", failure();
    FailureOr<ElementsAttr> value = convertTensor(t, g.tensorSource(), &ctx_, fileLoc_);
    if (failed(value)) return failure();
    g.define(t.name(), g.graph().addConstant(*value, t.name(), fileLoc_));
  }
  if (model_.graph().sparse_initializer_size() > 0)
    return error() << "sparse initializers are not supported", failure();
  return success();
}

LogicalResult ModelImporter::bindConstantInput(GraphImporter &g, const onnx::ValueInfoProto &vi,
                                               StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return error() << "--const-input " << vi.name() << ": cannot read '" << file
                   << "': " << buffer.getError().message(),
           failure();
  onnx::TensorProto tensor;
  if ((*buffer)->getBufferSize() > static_cast<size_t>(INT_MAX) ||
      !tensor.ParseFromArray((*buffer)->getBufferStart(),
                             static_cast<int>((*buffer)->getBufferSize())))
    return error() << "--const-input " << vi.name() << ": '" << file
                   << "' is not a serialized ONNX TensorProto",
           failure();
  tensor.set_name(vi.name());
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return error() << "--const-input " << vi.name() << ": external data is not supported here",
           failure();
  FailureOr<ElementsAttr> value = convertTensor(tensor, g.tensorSource(), &ctx_, fileLoc_);
  if (failed(value)) return failure();
  // It must be a value the model could have been given for this input.
  auto type = mlir::cast<RankedTensorType>(value->getType());
  if (vi.type().has_tensor_type()) {
    const onnx::TypeProto_Tensor &tt = vi.type().tensor_type();
    bool ok = convertElementType(&ctx_, tt.elem_type(), keepFloat64_) == type.getElementType();
    if (ok && tt.has_shape()) {
      ok = tt.shape().dim_size() == type.getRank();
      for (int i = 0; ok && i < tt.shape().dim_size(); ++i)
        if (tt.shape().dim(i).has_dim_value())
          ok = tt.shape().dim(i).dim_value() == type.getDimSize(i);
    }
    if (!ok)
      return error() << "--const-input " << vi.name() << ": the tensor in '" << file << "' ("
                     << type << ") does not match the input's declared type",
             failure();
  }
  g.define(vi.name(), g.graph().addConstant(*value, vi.name(), fileLoc_));
  return success();
}

LogicalResult ModelImporter::bindInputs(GraphImporter &g) {
  std::set<std::string> inputNames;
  for (const onnx::ValueInfoProto &vi : model_.graph().input()) {
    // Before IR version 4 every initializer was also listed as an input; it
    // stays the constant it was declared with.
    if (initializerNames_.count(vi.name())) continue;
    if (vi.name().empty()) return error() << "a graph input has no name", failure();
    if (!inputNames.insert(vi.name()).second)
      return error() << "graph input '" << vi.name() << "' is declared twice", failure();
    auto frozen = llvm::find_if(opts_.constantInputs,
                                [&](const auto &kv) { return kv.first == vi.name(); });
    if (frozen != opts_.constantInputs.end()) {
      if (failed(bindConstantInput(g, vi, frozen->second))) return failure();
      continue;
    }
    SmallVector<Attribute> dynamic;
    FailureOr<RankedTensorType> type = inputType(vi, dynamic);
    if (failed(type)) return failure();
    Value input = g.graph().addInput(vi.name(), *type, fileLoc_);
    if (!dynamic.empty())
      input.getDefiningOp()->setAttr("webnn.dynamic_dims", ArrayAttr::get(&ctx_, dynamic));
    g.graph().setInterfaceType(input,
                               interfaceElementType(&ctx_, vi.type().tensor_type().elem_type()));
    g.define(vi.name(), input);
  }
  for (const auto &[name, shape] : opts_.shapes)
    if (!inputNames.count(name))
      return error() << "--shape names '" << name << "', which is not a graph input", failure();
  for (const auto &[name, file] : opts_.constantInputs)
    if (!inputNames.count(name))
      return error() << "--const-input names '" << name << "', which is not a graph input",
             failure();
  return success();
}

LogicalResult ModelImporter::convertNodes(GraphImporter &g) {
  // Subgraphs (an If whose condition is constant) convert the same way.
  g.setSubgraphConverter([this, &g](const onnx::GraphProto &sub) -> LogicalResult {
    // A branch's own initializers (PyTorch exports them for the constants
    // of each branch) are constants like the model's.
    for (const onnx::TensorProto &t : sub.initializer()) {
      if (t.name().empty()) return error() << "a subgraph initializer has no name", failure();
      FailureOr<ElementsAttr> value = convertTensor(t, g.tensorSource(), &ctx_, fileLoc_);
      if (failed(value)) return failure();
      g.define(t.name(), g.graph().addConstant(*value, t.name(), fileLoc_));
    }
    if (sub.sparse_initializer_size() > 0)
      return error() << "sparse initializers are not supported", failure();
    return convertGraphNodes(g, sub);
  });
  return convertGraphNodes(g, model_.graph());
}

// Run-time shape values (GraphImporter::defineShapeValue) pass through the
// ops that only select or retype them (`handled`: the node is done; its
// known entries may fold to constants); Reshape's target and
// GroupQueryAttention's total_sequence_length are left to their converters;
// any other consumer goes through convertWithShapeValues (`handled` too).
static LogicalResult forwardShapeValues(GraphImporter &g, const onnx::NodeProto &node, Location loc,
                                        int64_t opset, ConvertFn fn, bool &handled) {
  handled = false;
  std::optional<StringRef> origin;
  int firstInput = -1;
  for (int i = 0; i < node.input_size(); ++i)
    if (auto o = g.shapeValueOrigin(node.input(i)); o && !origin) origin = *o, firstInput = i;
  if (!origin) return success();
  static const char *const kCarriers[] = {"Gather", "Cast", "Squeeze", "Unsqueeze", "Reshape",
                                          "Slice", "Concat", "Identity"};
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  // The shape value must be what the op moves (its data input, or any part
  // of a Concat), not e.g. Reshape's target shape.
  bool carried = node.op_type() == "Concat" || firstInput == 0;
  if (defaultDomain && carried && llvm::is_contained(kCarriers, node.op_type())) {
    handled = true;
    if (forwardShapeValueDims(g, node, loc, *origin)) return success();
    // Not a move of entries (a Cast to float, a Gather of data at them, ...):
    // the values themselves, when they can be computed.
    bool computable = true;
    for (const std::string &in : node.input())
      if (!in.empty() && g.shapeValueOrigin(in))
        computable &= g.shapeValueDims(in) && g.shapeValueDims(in)->allExprsKnown();
    if (computable) return convertWithShapeValues(g, node, opset, loc, fn);
    std::string o = origin->str();
    for (const std::string &out : node.output())
      if (!out.empty()) g.defineShapeValue(out, o);
    return success();
  }
  // Sums and products of dimensions and positive constants stay positive,
  // so a Reshape may still infer them; differences and exact quotients of
  // entries with expressions stay expressions.
  if (defaultDomain &&
      (node.op_type() == "Add" || node.op_type() == "Mul" || node.op_type() == "Sub" || node.op_type() == "Div") &&
      forwardShapeValueDims(g, node, loc, *origin)) {
    handled = true;
    return success();
  }
  if (defaultDomain && node.op_type() == "Reshape" && firstInput == 1 && g.shapeValueDims(node.input(1)))
    return success();  // convertReshapeInput takes it when one entry is dynamic
  bool gqaTotal = node.domain() == "com.microsoft" && node.op_type() == "GroupQueryAttention" &&
                  firstInput == 6;
  for (int i = firstInput + 1; gqaTotal && i < node.input_size(); ++i)
    if (g.shapeValueOrigin(node.input(i))) gqaTotal = false;
  if (gqaTotal) return success();
  handled = true;
  return convertWithShapeValues(g, node, opset, loc, fn);
}

LogicalResult ModelImporter::convertGraphNodes(GraphImporter &g, const onnx::GraphProto &graph) {
  const OpConverterTable &table = onnxOpConverters();
  bool top = &graph == &model_.graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string name = top ? nodeDisplayName(i)
                           : (node.name().empty() ? node.op_type() + "_" + std::to_string(i)
                                                  : node.name());
    Location loc = g.nodeLoc(name, node.op_type());
    for (const std::string &in : node.input())
      if (!in.empty() && !g.isDefined(in))
        return emitError(loc) << "input '" << in
                              << "' is not produced by any earlier node, input or initializer",
               failure();
    // Every ONNX operator has at least one output; conversions name output 0.
    if (node.output_size() == 0) return emitError(loc) << "node has no outputs", failure();
    int64_t opset = opsetFor(node.domain());
    ConvertFn fn = table.lookup(node.domain(), node.op_type(), opset);
    // Every node was checked up front (checkAllSupported); this guards a
    // subgraph that a conversion builds itself.
    if (!fn)
      return emitError(loc) << "unsupported ONNX operator: "
                            << (node.domain().empty() ? "ai.onnx" : node.domain())
                            << "::" << node.op_type() << " (opset " << opset << ")",
             failure();
    bool forwarded = false;
    if (failed(forwardShapeValues(g, node, loc, opset, fn, forwarded))) return failure();
    if (forwarded ||
        llvm::any_of(node.output(), [&](const std::string &o) { return g.shapeValueOrigin(o).has_value(); }))
      continue;
    NodeConverter c(g, node, opset, loc);
    if (failed(fn(c))) return failure();
    for (int o = 0; o < node.output_size(); ++o)
      if (c.outputUsed(o) && !c.outputSet(o))
        return emitError(loc) << "output #" << o << " ('" << node.output(o)
                              << "') is not supported",
               failure();
  }
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run(StringRef bytes) {
  if (!llvm::sys::IsLittleEndianHost)
    return error() << "ONNX tensors are little-endian; this host is not", nullptr;
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return error() << "model is " << bytes.size() << " bytes, over protobuf's 2 GiB limit; "
                   << "store the weights as external data",
           nullptr;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t *>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!model_.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return error() << "not a valid ONNX model (protobuf parse failed)", nullptr;
  // A byte string cut at a field boundary still parses: insist on the parts
  // every model has.
  if (!model_.has_graph() || model_.ir_version() <= 0)
    return error() << "not a valid ONNX model (no " << (model_.has_graph() ? "ir_version" : "graph")
                   << ")",
           nullptr;
  if (model_.graph().output_size() == 0)
    return error() << "not a valid ONNX model (the graph has no outputs)", nullptr;

  if (failed(readOpsets()) || failed(checkAllSupported())) return nullptr;

  std::string graphName = model_.graph().name();
  if (graphName.empty()) graphName = llvm::sys::path::stem(path_).str();
  GraphImporter g(&ctx_, path_, opts_, graphName, keepFloat64_);
  if (failed(bindInitializers(g)) || failed(bindInputs(g)) || failed(convertNodes(g)))
    return nullptr;

  SmallVector<Value> outputs;
  std::vector<std::string> names;
  SmallVector<Type> interfaceTypes;
  for (const onnx::ValueInfoProto &vi : model_.graph().output()) {
    Value v = g.lookup(vi.name());
    if (!v)
      return error() << "graph output '" << vi.name() << "' is not produced by the graph",
             nullptr;
    outputs.push_back(v);
    names.push_back(vi.name());
    // An output declared float64 (int16, ...) that the graph computes as f32
    // (i32) is handed back in the declared type.
    Type computed = mlir::cast<RankedTensorType>(v.getType()).getElementType();
    Type declared;
    if (vi.type().has_tensor_type()) {
      int32_t onnxType = vi.type().tensor_type().elem_type();
      if (convertElementType(&ctx_, onnxType, keepFloat64_) == computed)
        declared = interfaceElementType(&ctx_, onnxType);
    }
    interfaceTypes.push_back(declared ? declared : computed);
  }
  if (failed(g.graph().finish(outputs, names, fileLoc_, interfaceTypes))) return nullptr;
  OwningOpRef<ModuleOp> module = g.graph().takeModule();

  // Initializers and folded intermediates nothing reads.
  SmallVector<Operation *> dead;
  module->walk([&](ConstantOp op) {
    if (op->use_empty()) dead.push_back(op);
  });
  for (Operation *op : llvm::reverse(dead)) op->erase();
  return module;
}

}  // namespace

OwningOpRef<ModuleOp> importOnnxBuffer(MLIRContext &ctx, llvm::StringRef bytes,
                                       llvm::StringRef path, const OnnxImportOptions &opts,
                                       std::vector<UnsupportedOnnxOp> *unsupported) {
  if (unsupported) unsupported->clear();
  loadFrontendDialects(ctx);
  Location fileLoc = FileLineColLoc::get(&ctx, path, 0, 0);
  // float64 (docs/ONNX.md, "float64"): first import with DOUBLE kept as f64.
  // When every op the graph builds on f64 values takes f64 (the dialect's
  // float64 extension, each with a float64 CPU kernel), that graph is the
  // result. Otherwise some op refused f64 (its type constraint, or a
  // conversion that only knows f32), and the whole graph is imported again
  // with float64 narrowed to float32, as WebNN's types require; a note names
  // the op that forced it. A model without DOUBLE builds the same graph
  // either way, so it is imported once unless it fails.
  std::string firstError;
  // Warnings and remarks of the kept import, shown if it is the one returned.
  std::vector<std::tuple<Location, DiagnosticSeverity, std::string>> heldBack;
  {
    OwningOpRef<ModuleOp> module;
    {
      ScopedDiagnosticHandler quiet(&ctx, [&](Diagnostic &d) {
        if (d.getSeverity() != DiagnosticSeverity::Error)
          heldBack.emplace_back(d.getLocation(), d.getSeverity(), d.str());
        else if (firstError.empty())
          firstError = d.str();
        return success();
      });
      NodeDiagnosticRewriter rewriter(ctx, fileLoc);
      ModelImporter importer(ctx, path, opts, /*keepFloat64=*/true, unsupported);
      module = importer.run(bytes);
      if (module && failed(verify(*module))) module = nullptr;
    }
    if (module) {
      for (auto &[loc, severity, message] : heldBack) ctx.getDiagEngine().emit(loc, severity) << message;
      return module;
    }
  }
  NodeDiagnosticRewriter rewriter(ctx, fileLoc);
  ModelImporter importer(ctx, path, opts, /*keepFloat64=*/false, unsupported);
  OwningOpRef<ModuleOp> module = importer.run(bytes);
  // Only DOUBLE imports differently, so a graph that imports narrowed but not
  // kept has float64 values.
  if (module)
    emitRemark(fileLoc) << "float64 is computed as float32 in this graph: " << firstError;
  return module;
}

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &ctx, llvm::StringRef path,
                                     const OnnxImportOptions &opts,
                                     std::vector<UnsupportedOnnxOp> *unsupported) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(&ctx, path, 0, 0))
        << "cannot read the model: " << buffer.getError().message();
    return nullptr;
  }
  return importOnnxBuffer(ctx, (*buffer)->getBuffer(), path, opts, unsupported);
}

}  // namespace mlir::webnn
