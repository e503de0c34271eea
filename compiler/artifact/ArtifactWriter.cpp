#include "compiler/artifact/ArtifactWriter.h"


#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "compiler/artifact/ConstantBytes.h"
#include "compiler/artifact/DynamicDims.h"
#include "dialects/webnn/WebNNOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "runtime/core/Sha256.h"
#include "webnn_artifact_format.h"
#include "webnn_artifact_generated.h"

namespace mlir::webnn {
namespace fb = ::webnn::artifact;
namespace {

constexpr const char *kProducer = "webnnc 0.1.0";

FailureOr<fb::DataType> toArtifactType(Type t) {
  if (t.isF32()) return fb::DataType::float32;
  if (t.isF16()) return fb::DataType::float16;
  // The float64 extension: a graph that computes in float64 (WebNNBase.td).
  if (t.isF64()) return fb::DataType::float64;
  auto i = dyn_cast<IntegerType>(t);
  if (!i) return failure();
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
    case 4: return u ? fb::DataType::uint4 : fb::DataType::int4;
    case 8: return u ? fb::DataType::uint8 : fb::DataType::int8;
    case 32: return u ? fb::DataType::uint32 : fb::DataType::int32;
    case 64: return u ? fb::DataType::uint64 : fb::DataType::int64;
    default: return failure();
  }
}

// A graph input's or output's interface type (Tensor.interface_type): a type
// WebNN lacks, exchanged by callers and computed as `computed`. Only the
// widenings the runtime converts are accepted.
FailureOr<fb::DataType> toInterfaceType(Type t, Type computed) {
  if (t.isF64() && computed.isF32()) return fb::DataType::float64;
  if (t.isBF16() && computed.isF32()) return fb::DataType::bfloat16;
  // ONNX's bool: one byte 0/1, computed as WebNN's uint8 (its logical ops'
  // output type).
  if (t.isInteger(1) && computed.isUnsignedInteger(8)) return fb::DataType::boolean;
  if (t.isInteger(16) && computed.isSignlessInteger(32))
    return t.isUnsignedInteger() ? fb::DataType::uint16 : fb::DataType::int16;
  return failure();
}

using Sha256 = ::webnn::rt::Sha256Digest;

Sha256 sha256(ArrayRef<char> bytes) { return ::webnn::rt::sha256(bytes.data(), bytes.size()); }

struct PendingConstant {
  uint32_t tensor;
  uint64_t offset;
  ArrayRef<char> bytes;
  std::vector<char> storage;  // owns `bytes` when they had to be materialized
  Sha256 hash;
  std::string key;
};

using PackedVector = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::PackedConstant>>>;

struct PendingPacked {
  const PackedConstantBytes *source;
  uint64_t offset;
  Sha256 hash;
};

// Builds the FlatBuffer graph and lays out the weight segment.
class GraphSerializer {
 public:
  explicit GraphSerializer(func::FuncOp func) : func_(func) {}

  LogicalResult run(const ArtifactOptions &options);

  ArrayRef<uint8_t> graphBytes() const {
    return {fbb_.GetBufferPointer(), fbb_.GetSize()};
  }
  const std::vector<std::unique_ptr<PendingConstant>> &constants() const { return constants_; }
  const std::vector<PendingPacked> &packed() const { return packed_; }
  uint64_t weightsSize() const { return weightsSize_; }
  const Sha256 &weightsDigest() const { return digest_; }

 private:
  // `shapeOf` gives the dynamic dimensions' expressions (the value itself, or
  // the value an output copies). `interfaceType`: for graph inputs and
  // outputs, the element type callers exchange when it is not the tensor's
  // own (null otherwise).
  FailureOr<int32_t> addTensor(Value v, StringRef name, Location loc, Type interfaceType = {});
  FailureOr<int32_t> addTensorOfType(Type t, StringRef name, Location loc, Value shapeOf,
                                     Type interfaceType = {});
  LogicalResult addNode(Operation *op, std::vector<flatbuffers::Offset<fb::Node>> &into);
  // A webnn.if branch or webnn.loop body as a Subgraph; its index.
  FailureOr<uint32_t> addSubgraph(Region &region, Operation *owner);
  LogicalResult addConstant(ConstantOp op);
  FailureOr<PackedVector> addPackedConstants(const ArtifactOptions &options);
  FailureOr<flatbuffers::Offset<fb::Attribute>> serializeAttribute(StringRef name, Attribute a,
                                                                   Location loc);

  func::FuncOp func_;
  DynamicDimsAnalysis dynamicDims_;
  flatbuffers::FlatBufferBuilder fbb_{1 << 16};
  llvm::DenseMap<Value, int32_t> tensorIndex_;
  llvm::DenseMap<Value, StringRef> outputName_;  // results named by a graph output
  llvm::DenseMap<Value, Type> outputInterface_;  // their interface types, where set
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors_;
  std::vector<flatbuffers::Offset<fb::Node>> nodes_;
  std::vector<std::string> nodeBackends_;  // ArtifactOptions::nodeBackends
  // Node.backend of the next main-graph node: absent when empty, so an
  // artifact placed all on the default backend keeps its bytes.
  flatbuffers::Offset<flatbuffers::String> nextNodeBackend() {
    if (nodes_.size() >= nodeBackends_.size() || nodeBackends_[nodes_.size()].empty()) return {};
    return fbb_.CreateString(nodeBackends_[nodes_.size()]);
  }
  std::vector<flatbuffers::Offset<fb::Subgraph>> subgraphs_;
  std::vector<uint32_t> inputs_, outputs_;
  std::vector<std::unique_ptr<PendingConstant>> constants_;
  std::vector<PendingPacked> packed_;
  uint64_t weightsSize_ = 0;
  Sha256 digest_{};
};

std::string locationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) return name.getName().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn())).str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string n = locationName(inner); !n.empty()) return n;
  return "";
}

FailureOr<int32_t> GraphSerializer::addTensor(Value v, StringRef name, Location loc,
                                              Type interfaceType) {
  FailureOr<int32_t> index = addTensorOfType(v.getType(), name, loc, v, interfaceType);
  if (succeeded(index)) tensorIndex_[v] = *index;
  return index;
}

FailureOr<int32_t> GraphSerializer::addTensorOfType(Type t, StringRef name, Location loc,
                                                    Value shapeOf, Type interfaceType) {
  auto type = dyn_cast<RankedTensorType>(t);
  if (!type) return emitError(loc) << "graph values must be ranked tensors, got " << t;
  FailureOr<fb::DataType> dtype = toArtifactType(type.getElementType());
  if (failed(dtype))
    return emitError(loc) << "element type " << type.getElementType()
                          << " is not a WebNN data type (nor float64)";
  std::vector<flatbuffers::Offset<fb::Dimension>> dims;
  const SmallVector<DimExpr> *exprs = dynamicDims_.lookup(shapeOf);
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    if (!exprs) {
      if (ShapedType::isDynamic(d))
        return emitError(loc) << "dimension " << i << " is dynamic but no input names it";
      dims.push_back(fb::CreateDimension(fbb_, d));
      continue;
    }
    const DimExpr &e = (*exprs)[i];
    if (e.isStatic()) {
      dims.push_back(fb::CreateDimension(fbb_, e.offset));
      continue;
    }
    std::vector<fb::DimensionTerm> terms;
    for (auto [symbol, coefficient] : e.terms) terms.emplace_back(symbol, coefficient);
    dims.push_back(fb::CreateDimension(fbb_, dynamicDims_.maxValue(e),
                                       fbb_.CreateString(dynamicDims_.spell(e)), e.offset,
                                       fbb_.CreateVectorOfStructs(terms)));
  }
  flatbuffers::Optional<fb::DataType> interface;
  if (interfaceType && interfaceType != type.getElementType()) {
    FailureOr<fb::DataType> it = toInterfaceType(interfaceType, type.getElementType());
    if (failed(it))
      return emitError(loc) << "'" << name << "' cannot be exchanged as " << interfaceType
                            << " while computed as " << type.getElementType();
    interface = *it;
  }
  int32_t index = static_cast<int32_t>(tensors_.size());
  tensors_.push_back(fb::CreateTensor(fbb_, fbb_.CreateString(name.str()), *dtype,
                                      fbb_.CreateVector(dims), interface));
  return index;
}

LogicalResult GraphSerializer::addConstant(ConstantOp op) {
  StringRef key = op.getName() ? *op.getName() : StringRef();
  FailureOr<int32_t> index = addTensor(op.getResult(), key, op.getLoc());
  if (failed(index)) return failure();
  auto pending = std::make_unique<PendingConstant>();
  FailureOr<ArrayRef<char>> bytes = getConstantBytes(op.getValue(), pending->storage);
  if (failed(bytes))
    return op.emitOpError() << "cannot serialize constant value of type "
                            << op.getValue().getType();
  pending->tensor = static_cast<uint32_t>(*index);
  pending->bytes = *bytes;
  pending->offset = weightsSize_;
  pending->hash = sha256(*bytes);
  pending->key = key.str();
  weightsSize_ = ::webnn::artifact::alignUp(weightsSize_ + bytes->size(),
                                            ::webnn::artifact::kWeightAlignment);
  constants_.push_back(std::move(pending));
  return success();
}

FailureOr<flatbuffers::Offset<fb::Attribute>> GraphSerializer::serializeAttribute(
    StringRef name, Attribute a, Location loc) {
  auto nameOff = fbb_.CreateString(name.str());
  auto make = [&](fb::AttributeKind kind, int64_t i, double f,
                  flatbuffers::Offset<flatbuffers::String> s,
                  flatbuffers::Offset<flatbuffers::Vector<int64_t>> ints,
                  flatbuffers::Offset<flatbuffers::Vector<double>> floats) {
    return fb::CreateAttribute(fbb_, nameOff, kind, i, f, s, ints, floats);
  };
  if (auto b = dyn_cast<BoolAttr>(a)) return make(fb::AttributeKind::Bool, b.getValue(), 0, 0, 0, 0);
  if (auto i = dyn_cast<IntegerAttr>(a)) return make(fb::AttributeKind::Int, i.getInt(), 0, 0, 0, 0);
  if (auto f = dyn_cast<FloatAttr>(a))
    return make(fb::AttributeKind::Float, 0, f.getValueAsDouble(), 0, 0, 0);
  if (auto s = dyn_cast<StringAttr>(a))
    return make(fb::AttributeKind::String, 0, 0, fbb_.CreateString(s.str()), 0, 0);
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(a)) {
    // A dynamic size in an option (reshape's newShape in a graph with dynamic
    // dimensions) is -1: the runtime resolves it from each run's shapes.
    std::vector<int64_t> values = ints.asArrayRef().vec();
    for (int64_t &v : values)
      if (ShapedType::isDynamic(v)) v = -1;
    return make(fb::AttributeKind::Ints, 0, 0, 0, fbb_.CreateVector(values), 0);
  }
  if (auto floats = dyn_cast<DenseF64ArrayAttr>(a))
    return make(fb::AttributeKind::Floats, 0, 0, 0, 0,
                fbb_.CreateVector(floats.asArrayRef().vec()));
  if (auto t = dyn_cast<TypeAttr>(a)) {
    FailureOr<fb::DataType> dtype = toArtifactType(t.getValue());
    if (failed(dtype)) return emitError(loc) << "option '" << name << "' names a non-WebNN type";
    return make(fb::AttributeKind::String, 0, 0,
                fbb_.CreateString(fb::EnumNameDataType(*dtype)), 0, 0);
  }
  if (auto arr = dyn_cast<ArrayAttr>(a)) {
    std::vector<int64_t> ints;
    for (Attribute e : arr) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i) return emitError(loc) << "option '" << name << "' has an unsupported list value";
      ints.push_back(i.getInt());
    }
    return make(fb::AttributeKind::Ints, 0, 0, 0, fbb_.CreateVector(ints), 0);
  }
  return emitError(loc) << "option '" << name << "' has an unsupported value " << a;
}

FailureOr<uint32_t> GraphSerializer::addSubgraph(Region &region, Operation *owner) {
  if (!dynamicDims_.dims().empty())
    return owner->emitOpError("in a graph with dynamic dimensions is not supported (control flow "
                              "runs on static shapes only)");
  Block &block = region.front();
  std::vector<uint32_t> inputs, outputs;
  for (BlockArgument arg : block.getArguments()) {
    FailureOr<int32_t> index = addTensor(arg, "", owner->getLoc());
    if (failed(index)) return failure();
    inputs.push_back(*index);
  }
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (Operation &op : block.without_terminator()) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (failed(addConstant(constant))) return failure();
    } else if (isa<InputOp>(op)) {
      return op.emitOpError("must be at the graph's top level, not inside a control-flow region");
    } else if (op.getDialect() && op.getDialect()->getNamespace() == "webnn") {
      if (failed(addNode(&op, nodes))) return failure();
    } else {
      return op.emitOpError("is not a WebNN operation and cannot be written to an artifact");
    }
  }
  for (Value v : block.getTerminator()->getOperands()) {
    auto it = tensorIndex_.find(v);
    if (it == tensorIndex_.end()) return owner->emitOpError("yields a value defined outside the graph");
    outputs.push_back(static_cast<uint32_t>(it->second));
  }
  subgraphs_.push_back(fb::CreateSubgraph(fbb_, fbb_.CreateVector(nodes), fbb_.CreateVector(inputs),
                                          fbb_.CreateVector(outputs)));
  return static_cast<uint32_t>(subgraphs_.size() - 1);
}

LogicalResult GraphSerializer::addNode(Operation *op,
                                       std::vector<flatbuffers::Offset<fb::Node>> &into) {
  // A scan result's length is known only once the loop has run, so nothing
  // in the graph may read it: it can only be a graph output (once).
  if (auto loop = dyn_cast<LoopOp>(op)) {
    for (Value r : loop.getResults().drop_front(loop.getInitialValues().size())) {
      unsigned uses = 0;
      for (OpOperand &use : r.getUses()) {
        ++uses;
        if (!isa<func::ReturnOp>(use.getOwner()))
          return use.getOwner()->emitOpError()
                 << "reads the scan result of a webnn.loop, whose length is known only at run time; "
                    "a scan result can only be a graph output";
      }
      if (uses > 1) return op->emitOpError("returns a scan result as more than one graph output");
    }
  }
  // Regions first: their tensors must exist before this node's results (a
  // loop's body reads values defined before it, never the loop's results).
  std::vector<uint32_t> subgraphs;
  for (Region &region : op->getRegions()) {
    FailureOr<uint32_t> index = addSubgraph(region, op);
    if (failed(index)) return failure();
    subgraphs.push_back(*index);
  }
  std::vector<int32_t> inputs;
  auto pushOperand = [&](Value v) -> LogicalResult {
    auto it = tensorIndex_.find(v);
    if (it == tensorIndex_.end()) return op->emitOpError("uses a value defined outside the graph");
    inputs.push_back(it->second);
    return success();
  };
  // Optional operands keep their position (-1 when absent) so the runtime
  // reads operand i of an op without knowing which options were given.
  if (auto segments = dyn_cast_or_null<DenseI32ArrayAttr>(
          op->getInherentAttr("operandSegmentSizes").value_or(Attribute()))) {
    unsigned next = 0;
    // webnn.loop's last group (the carried values) is variadic: empty is no operand.
    size_t variadicGroup = isa<LoopOp>(op) ? segments.size() - 1 : segments.size();
    for (auto [group, size] : llvm::enumerate(segments.asArrayRef())) {
      if (size == 0 && group != variadicGroup) inputs.push_back(-1);
      for (int32_t k = 0; k < size; ++k)
        if (failed(pushOperand(op->getOperand(next++)))) return failure();
    }
  } else {
    for (Value v : op->getOperands())
      if (failed(pushOperand(v))) return failure();
  }

  std::vector<int32_t> outputs;
  for (Value r : op->getResults()) {
    FailureOr<int32_t> index =
        addTensor(r, outputName_.lookup(r), op->getLoc(), outputInterface_.lookup(r));
    if (failed(index)) return failure();
    outputs.push_back(*index);
  }

  // Inherent options live in properties; discardable ones are ours ("webnn.*"
  // bookkeeping) and stay out of the artifact.
  std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
  if (auto props = dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute())) {
    for (NamedAttribute na : props) {  // DictionaryAttr is sorted by name
      if (na.getName() == "operandSegmentSizes" || na.getName() == "resultSegmentSizes") continue;
      auto attr = serializeAttribute(na.getName(), na.getValue(), op->getLoc());
      if (failed(attr)) return failure();
      attrs.push_back(*attr);
    }
  }
  StringRef opName = op->getName().stripDialect();
  // Absent when empty, so graphs without control flow keep their bytes.
  flatbuffers::Offset<flatbuffers::Vector<uint32_t>> subgraphVector;
  if (!subgraphs.empty()) subgraphVector = fbb_.CreateVector(subgraphs);
  // Node.backend: main-graph nodes only.
  flatbuffers::Offset<flatbuffers::String> backend;
  if (&into == &nodes_) backend = nextNodeBackend();
  into.push_back(fb::CreateNode(fbb_, fbb_.CreateString(opName.str()),
                                fbb_.CreateVector(inputs), fbb_.CreateVector(outputs),
                                fbb_.CreateVectorOfSortedTables(&attrs),
                                fbb_.CreateString(locationName(op->getLoc())), subgraphVector, backend));
  return success();
}

LogicalResult GraphSerializer::run(const ArtifactOptions &options) {
  nodeBackends_ = options.nodeBackends;
  Block &body = func_.getBody().front();
  auto outputNames = func_->getAttrOfType<ArrayAttr>("webnn.output_names");
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  FailureOr<DynamicDimsAnalysis> dynamicDims = DynamicDimsAnalysis::run(func_);
  if (failed(dynamicDims)) return failure();
  dynamicDims_ = std::move(*dynamicDims);
  if (!outputNames || outputNames.size() != ret.getNumOperands())
    return func_.emitError("graph function needs one 'webnn.output_names' entry per result");

  // An output produced by a node names that node's result tensor. A value that
  // is already named (a graph input, a constant, or an earlier output) gets an
  // identity node, so every output owns a distinct, named tensor.
  SmallVector<Type> outputInterfaces(ret.getNumOperands());
  if (auto types = func_->getAttrOfType<ArrayAttr>("webnn.output_interface_types")) {
    if (types.size() != ret.getNumOperands())
      return func_.emitError("'webnn.output_interface_types' needs one entry per result");
    for (auto [i, a] : llvm::enumerate(types)) {
      auto t = dyn_cast<TypeAttr>(a);
      if (!t) return func_.emitError("'webnn.output_interface_types' holds a non-type");
      outputInterfaces[i] = t.getValue();
    }
  }
  SmallVector<bool> needsIdentity;
  for (auto [value, nameAttr, interface] :
       llvm::zip(ret.getOperands(), outputNames, outputInterfaces)) {
    Operation *def = value.getDefiningOp();
    bool alias = !def || isa<InputOp, ConstantOp>(def) || outputName_.contains(value);
    if (!alias) {
      outputName_[value] = cast<StringAttr>(nameAttr).getValue();
      if (interface) outputInterface_[value] = interface;
    }
    needsIdentity.push_back(alias);
  }

  for (Operation &op : body.without_terminator()) {
    if (auto input = dyn_cast<InputOp>(op)) {
      Type interface;
      if (Attribute a = input->getAttr("webnn.interface_type")) {
        auto t = dyn_cast<TypeAttr>(a);
        if (!t) return input.emitOpError("'webnn.interface_type' must be a type");
        interface = t.getValue();
      }
      FailureOr<int32_t> index =
          addTensor(input.getResult(), input.getName(), input.getLoc(), interface);
      if (failed(index)) return failure();
      inputs_.push_back(*index);
    } else if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (failed(addConstant(constant))) return failure();
    } else if (op.getDialect() && op.getDialect()->getNamespace() == "webnn") {
      if (failed(addNode(&op, nodes_))) return failure();
    } else {
      return op.emitOpError("is not a WebNN operation and cannot be written to an artifact");
    }
  }

  for (auto [value, nameAttr, alias, interface] :
       llvm::zip(ret.getOperands(), outputNames, needsIdentity, outputInterfaces)) {
    if (!alias) {
      outputs_.push_back(tensorIndex_.lookup(value));
      continue;
    }
    StringRef name = cast<StringAttr>(nameAttr).getValue();
    FailureOr<int32_t> index =
        addTensorOfType(value.getType(), name, ret.getLoc(), value, interface);
    if (failed(index)) return failure();
    std::vector<int32_t> in{tensorIndex_.lookup(value)}, out{*index};
    // The placement pass saw these identities too (it places the unplaced
    // artifact), so they take their backend like any other node.
    flatbuffers::Offset<flatbuffers::String> backend = nextNodeBackend();
    nodes_.push_back(fb::CreateNode(fbb_, fbb_.CreateString("identity"), fbb_.CreateVector(in),
                                    fbb_.CreateVector(out), 0, fbb_.CreateString(name.str()), 0, backend));
    outputs_.push_back(*index);
  }

  std::vector<flatbuffers::Offset<fb::Constant>> constantOffsets;
  std::vector<uint8_t> allHashes;
  for (const auto &c : constants_) {
    constantOffsets.push_back(fb::CreateConstant(
        fbb_, c->tensor, c->offset, c->bytes.size(), fbb_.CreateVector(c->hash.data(), c->hash.size()),
        fbb_.CreateString(c->key)));
    allHashes.insert(allHashes.end(), c->hash.begin(), c->hash.end());
  }
  digest_ = ::webnn::rt::sha256(allHashes.data(), allHashes.size());
  auto packed = addPackedConstants(options);
  if (failed(packed)) return failure();

  std::string graphName;
  if (auto n = func_->getAttrOfType<StringAttr>("webnn.graph_name")) graphName = n.str();
  std::vector<flatbuffers::Offset<fb::DynamicDimension>> dynamic;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::DynamicDimension>>> dynamicVector;
  for (const NamedDynamicDim &d : dynamicDims_.dims())
    dynamic.push_back(fb::CreateDynamicDimension(fbb_, fbb_.CreateString(d.name), d.maxSize));
  if (!dynamic.empty()) dynamicVector = fbb_.CreateVector(dynamic);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Subgraph>>> subgraphVector;
  if (!subgraphs_.empty()) subgraphVector = fbb_.CreateVector(subgraphs_);
  auto graph = fb::CreateGraph(fbb_, fbb_.CreateString(graphName), fbb_.CreateVector(tensors_),
                               fbb_.CreateVector(constantOffsets), fbb_.CreateVector(nodes_),
                               fbb_.CreateVector(inputs_), fbb_.CreateVector(outputs_),
                               options.relaxedPrecision ? fb::Precision::relaxed : fb::Precision::exact,
                               dynamicVector, *packed, subgraphVector);
  auto model = fb::CreateModel(fbb_, ::webnn::artifact::kSchemaVersion,
                               fbb_.CreateString(kProducer), fbb_.CreateString(options.target),
                               graph, weightsSize_,
                               fbb_.CreateVector(digest_.data(), digest_.size()),
                               options.weightless);
  fb::FinishModelBuffer(fbb_, model);
  return success();
}

// After the constants, so the graph's own constants keep their offsets (and
// the weights digest) whether or not it was prepacked.
FailureOr<PackedVector> GraphSerializer::addPackedConstants(const ArtifactOptions &options) {
  if (options.packedConstants.empty()) return PackedVector();
  if (options.weightless)
    return func_.emitError("packed constants need embedded weights (not --weightless)"), failure();
  std::vector<const PackedConstantBytes *> order;
  for (const PackedConstantBytes &p : options.packedConstants) {
    if (p.node >= nodes_.size())
      return func_.emitError() << "packed constant for node " << p.node << " of " << nodes_.size(), failure();
    order.push_back(&p);
  }
  std::sort(order.begin(), order.end(), [](const PackedConstantBytes *a, const PackedConstantBytes *b) {
    return std::tie(a->node, a->input, a->layout) < std::tie(b->node, b->input, b->layout);
  });
  std::vector<flatbuffers::Offset<fb::PackedConstant>> entries;
  for (const PackedConstantBytes *p : order) {
    PendingPacked pending{p, weightsSize_, {}};
    pending.hash = ::webnn::rt::sha256(p->bytes.data(), p->bytes.size());
    weightsSize_ = ::webnn::artifact::alignUp(weightsSize_ + p->bytes.size(), ::webnn::artifact::kWeightAlignment);
    entries.push_back(fb::CreatePackedConstant(fbb_, p->node, p->input, fbb_.CreateString(p->layout),
                                               pending.offset, p->bytes.size(),
                                               fbb_.CreateVector(pending.hash.data(), pending.hash.size())));
    packed_.push_back(pending);
  }
  return fbb_.CreateVector(entries);
}

// Streams the weight segment: constants at their offsets, zero padding between.
bool writeSegment(llvm::raw_fd_ostream &os, const GraphSerializer &s) {
  static const char zeros[::webnn::artifact::kWeightAlignment] = {};
  uint64_t pos = 0;
  for (const auto &c : s.constants()) {
    os.write(zeros, c->offset - pos);
    os.write(c->bytes.data(), c->bytes.size());
    pos = c->offset + c->bytes.size();
  }
  for (const PendingPacked &p : s.packed()) {
    os.write(zeros, p.offset - pos);
    os.write(reinterpret_cast<const char *>(p.source->bytes.data()), p.source->bytes.size());
    pos = p.offset + p.source->bytes.size();
  }
  os.write(zeros, s.weightsSize() - pos);
  return !os.has_error();
}

// Writes through a temporary file renamed into place, so readers and build
// systems never see a partial artifact.
LogicalResult writeAtomically(StringRef path, Location loc,
                              llvm::function_ref<bool(llvm::raw_fd_ostream &)> body) {
  llvm::SmallString<256> tmp;
  int fd;
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tmp))
    return emitError(loc) << "cannot create '" << path << "': " << ec.message();
  bool ok;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    // Every write() 2 MiB long at a 2 MiB offset (the last one shorter): the
    // page cache then holds the file in 2 MiB folios, which the runtime's
    // mapping maps whole, so the run right after compiling streams its
    // weights without a TLB miss per 4 KiB (unaligned writes leave small
    // folios behind, mapped 4 KiB at a time until evicted).
    os.SetBufferSize(size_t(2) << 20);
    ok = body(os);
    os.close();
    ok = ok && !os.has_error();
    os.clear_error();
  }
  if (!ok) {
    llvm::sys::fs::remove(tmp);
    return emitError(loc) << "cannot write '" << path << "'";
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  }
  return success();
}

}  // namespace

LogicalResult writeArtifact(ModuleOp module, StringRef path, const ArtifactOptions &options) {
  auto funcs = module.getOps<func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return module.emitError("expected exactly one graph function");
  func::FuncOp func = *funcs.begin();
  if (options.weightless && options.weightsPath.empty())
    return module.emitError("--weightless needs a weights output path");

  GraphSerializer serializer(func);
  if (failed(serializer.run(options))) return failure();

  namespace af = ::webnn::artifact;
  ArrayRef<uint8_t> graph = serializer.graphBytes();
  af::ArtifactHeader header{};
  std::memcpy(header.magic, af::kArtifactMagic, sizeof(header.magic));
  header.version = af::kSchemaVersion;
  header.flags = options.weightless ? af::kFlagWeightless : 0;
  header.graph_offset = af::kHeaderSize;
  header.graph_size = graph.size();
  if (!options.weightless) {
    header.weights_offset = af::alignUp(af::kHeaderSize + graph.size(), af::kWeightAlignment);
    header.weights_size = serializer.weightsSize();
  }

  if (options.weightless) {
    af::WeightsHeader wh{};
    std::memcpy(wh.magic, af::kWeightsMagic, sizeof(wh.magic));
    wh.version = af::kSchemaVersion;
    wh.weights_offset = af::kHeaderSize;
    wh.weights_size = serializer.weightsSize();
    std::memcpy(wh.digest, serializer.weightsDigest().data(), sizeof(wh.digest));
    if (failed(writeAtomically(options.weightsPath, func.getLoc(), [&](llvm::raw_fd_ostream &os) {
          os.write(reinterpret_cast<const char *>(&wh), sizeof(wh));
          return writeSegment(os, serializer);
        })))
      return failure();
  }

  return writeAtomically(path, func.getLoc(), [&](llvm::raw_fd_ostream &os) {
    os.write(reinterpret_cast<const char *>(&header), sizeof(header));
    os.write(reinterpret_cast<const char *>(graph.data()), graph.size());
    if (options.weightless) return !os.has_error();
    static const char zeros[af::kWeightAlignment] = {};
    os.write(zeros, header.weights_offset - (af::kHeaderSize + graph.size()));
    return writeSegment(os, serializer);
  });
}

}  // namespace mlir::webnn
