// The machinery every ONNX op conversion shares: the graph being built
// (values by ONNX name), a per-node view (inputs, attributes, outputs,
// diagnostics) and the dispatch table keyed by (domain, op_type) and opset.
//
// Adding an op: write `static LogicalResult convertFoo(NodeConverter &c)` in
// the table file for its letter range (DefaultDomainAtoF/GtoP/QtoZ.cpp; vendor
// domains in their own file) and register it with the ONNX opset version
// ("since version") from which that conversion is right. Register one entry
// per semantic change of the ONNX op; lookup picks the newest entry whose
// since-version is <= the model's opset for the node's domain.
#ifndef WEBNN_FRONTENDS_ONNX_ONNXCONVERTER_H
#define WEBNN_FRONTENDS_ONNX_ONNXCONVERTER_H

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/frontends/common/GraphBuilder.h"
#include "compiler/frontends/onnx/OnnxImporter.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "onnx/onnx_pb.h"

namespace mlir::webnn::onnx_import {

// ---------------------------------------------------------------- tensors
// ONNX TensorProto.DataType -> the WebNN element type the graph computes in;
// null if there is none. Types WebNN lacks map to the nearest one that holds
// every value: BFLOAT16 -> f32, INT16 and UINT16 -> i32 (bool -> ui8 as
// WebNN's logical ops use it), DOUBLE -> f64 (the dialect's float64
// extension) when `keepFloat64`, else f32 (docs/ONNX.md, "float64").
Type convertElementType(MLIRContext *ctx, int32_t onnxType, bool keepFloat64);
// The element type the model declares (f64, bf16, i16, ui16, i1 for bool, the
// widened types above; else convertElementType). A graph input or output whose
// declared type differs from its computed one keeps it as its interface type
// (kInterfaceTypeAttr), which the runtime converts at the boundary.
Type interfaceElementType(MLIRContext *ctx, int32_t onnxType);
std::string onnxTypeName(int32_t onnxType);

// Where a TensorProto's bytes may live and how to hold them.
struct TensorSource {
  std::string modelDir;          // external_data locations are relative to it
  std::vector<std::string> extraDataDirs;  // they may also resolve into these (--external-data-dir)
  size_t resourceThresholdBytes;
  bool keepFloat64 = false;      // DOUBLE stays f64 (convertElementType)
};

// Converts an initializer or a Constant node's tensor. Errors go to `loc`.
FailureOr<ElementsAttr> convertTensor(const onnx::TensorProto &tensor, const TensorSource &src,
                                      MLIRContext *ctx, Location loc);

// A constant operand's bytes, whichever ElementsAttr holds them.
struct ConstantData {
  RankedTensorType type;
  ArrayRef<char> raw;  // a single element when `splat`
  bool splat = false;

  int64_t numElements() const { return type.getNumElements(); }
  int64_t intAt(int64_t i) const;   // integer element types, and floats truncated
  double floatAt(int64_t i) const;  // any element type
  SmallVector<int64_t> ints() const;
  std::vector<char> expandedBytes() const;  // splat made explicit
};

// Non-null when `v` is produced by webnn.constant.
std::optional<ConstantData> getConstantData(Value v);
// The value of `op` when every operand is a small constant and the op is one
// the importer evaluates beyond the dialect's folders (element-wise math and
// comparisons, where, clamp, gather, reductions; ConstantEvaluation.cpp).
std::optional<ElementsAttr> evaluateConstantOp(Operation *op);
// The ONNX nodes that compute `v` at run time, for errors: "Cast 'c1' <-
// Add 'a0' <- input 'x'" (empty when `v` is a graph input itself).
std::string describeRuntimeChain(Value v);

// ------------------------------------------------------------------ graph
class NodeConverter;
class GraphImporter;

// A size known only at run time as an affine function of the graph's named
// dynamic dimensions (--dynamic-dim): offset + sum(coefficient * name), the
// form the artifact gives every dynamic dimension (docs/ARTIFACT.md). In a
// shape value a coefficient may be negative (`seq - past`); a tensor
// dimension built from one needs them >= 1.
struct SymExpr {
  int64_t offset = 0;
  std::map<std::string, int64_t> terms;  // name -> coefficient, never 0
  static SymExpr constant(int64_t v) {
    SymExpr e;
    e.offset = v;
    return e;
  }
  bool isStatic() const { return terms.empty(); }
  // this + sign * other
  SymExpr plus(const SymExpr &other, int64_t sign = 1) const;
  SymExpr times(int64_t k) const;
  // this / k when every coefficient and the offset divide exactly.
  std::optional<SymExpr> dividedBy(int64_t k) const;
  bool operator==(const SymExpr &o) const { return offset == o.offset && terms == o.terms; }
  bool operator!=(const SymExpr &o) const { return !(*this == o); }
  // "seq", "2*seq - 1", "past + seq"
  std::string spell() const;
};

// The entries of a shape value (a scalar or 1-D integer tensor computed from
// Shape of a tensor with dynamic dimensions), where the importer follows
// them: a known value, or nullopt for a dimension known only at run time,
// whose expression `exprs[k]` holds when the importer could follow it
// (products of two names have none). An entry divided by a constant that
// does not divide it exactly (seq / 2) is its expression's integer quotient
// by `divisors[k]`: a value that may be computed, not a size a dimension can
// have (sizes are affine).
struct ShapeValueDims {
  SmallVector<std::optional<int64_t>> dims;
  SmallVector<std::optional<SymExpr>> exprs;  // empty, or one per entry
  SmallVector<int64_t> divisors;              // empty, or one per entry (1: none)
  bool scalar = false;
  int32_t onnxType = onnx::TensorProto::INT64;
  struct Entry {
    std::optional<int64_t> value;
    std::optional<SymExpr> expr;
    int64_t divisor = 1;
  };
  Entry entry(size_t k) const {
    Entry e{dims[k], k < exprs.size() ? exprs[k] : std::nullopt, k < divisors.size() ? divisors[k] : 1};
    if (e.value) e.expr = SymExpr::constant(*e.value), e.divisor = 1;
    return e;
  }
  // Entry k as an expression (a constant for a known entry), if it is one.
  std::optional<SymExpr> exprAt(size_t k) const {
    Entry e = entry(k);
    return e.divisor == 1 ? e.expr : std::nullopt;
  }
  void push(const Entry &e) {
    std::optional<int64_t> v = e.value;
    if (!v && e.expr && e.expr->isStatic() && e.divisor == 1) v = e.expr->offset;
    exprs.resize(dims.size());
    divisors.resize(dims.size(), 1);
    dims.push_back(v);
    exprs.push_back(v ? std::nullopt : e.expr);
    divisors.push_back(v ? 1 : e.divisor);
  }
  // Appends an entry; an expression without names is a known value.
  void push(std::optional<int64_t> v, std::optional<SymExpr> e) { push(Entry{v, std::move(e), 1}); }
  // Whether every entry can be computed at run time (materialized).
  bool allExprsKnown() const {
    for (size_t k = 0; k < dims.size(); ++k)
      if (!entry(k).expr) return false;
    return true;
  }
  bool anyDivided() const {
    for (size_t k = 0; k < dims.size(); ++k)
      if (entry(k).divisor != 1) return true;
    return false;
  }
};

// Follows a shape value with known entries through a node that only moves
// them (Identity, Cast to an integer, Gather, Slice, Squeeze, Unsqueeze,
// Reshape, Concat with constants) or keeps a dynamic entry positive (Add,
// Mul with positive constants; ConstantEvaluation.cpp): defines the
// outputs as constants when every entry is known, else as shape values with
// entries. False when it cannot (the caller keeps the plain shape value).
bool forwardShapeValueDims(GraphImporter &g, const onnx::NodeProto &node, Location loc, StringRef origin);
// A node that reads a run-time shape value other than as a carrier above
// (DynamicShapeValues.cpp): Range, ConstantOfShape, Expand and Slice whose
// sizes follow the value's expressions are built on tensors that carry
// those sizes; any other op reads the value as a tensor computed from the
// input dimensions (when every entry has an expression), then converts as
// usual with `fn`. Fails naming the value otherwise.
class NodeConverter;
using ConvertFn = LogicalResult (*)(NodeConverter &);
LogicalResult convertWithShapeValues(GraphImporter &g, const onnx::NodeProto &node, int64_t opset,
                                     Location loc, ConvertFn fn);

// Owns the graph under construction: ONNX value names -> MLIR values.
class GraphImporter {
 public:
  GraphImporter(MLIRContext *ctx, StringRef path, const OnnxImportOptions &opts,
                StringRef graphName, bool keepFloat64);

  GraphBuilder &graph() { return graph_; }
  MLIRContext *context() { return graph_.context(); }
  Location fileLoc() const { return fileLoc_; }
  // The location of a node: fused<"OpType">[NameLoc(displayName), fileLoc].
  Location nodeLoc(StringRef displayName, StringRef opType);
  const TensorSource &tensorSource() const { return tensorSource_; }
  // The element type ONNX type `onnxType` computes in for this import.
  Type elementType(int32_t onnxType) {
    return convertElementType(context(), onnxType, tensorSource_.keepFloat64);
  }

  Value lookup(StringRef name) const { return values_.lookup(name); }
  bool isDefined(StringRef name) const {
    return values_.count(name) != 0 || shapeValueOrigins_.count(name) != 0;
  }
  // ONNX values computed from a dynamic dimension (Shape of a tensor whose
  // size is known only at run time, then Gather, Cast, ...). WebNN has no
  // shape values at run time: no MLIR value stands for them, and only an op
  // that can do without one (GroupQueryAttention's total_sequence_length) may
  // consume them. `origin` says where they come from, for errors.
  // `dims`, when given, are its entries (what Reshape can still use).
  void defineShapeValue(StringRef name, StringRef origin, std::optional<ShapeValueDims> dims = std::nullopt) {
    shapeValueOrigins_[name] = origin.str();
    if (dims) shapeValueDims_[name] = std::move(*dims);
    else shapeValueDims_.erase(name);
  }
  std::optional<StringRef> shapeValueOrigin(StringRef name) const {
    if (suspended_.count(name)) return std::nullopt;
    auto it = shapeValueOrigins_.find(name);
    if (it == shapeValueOrigins_.end()) return std::nullopt;
    return StringRef(it->second);
  }
  const ShapeValueDims *shapeValueDims(StringRef name) const {
    auto it = shapeValueDims_.find(name);
    return it == shapeValueDims_.end() ? nullptr : &it->second;
  }
  // A node that takes a shape value as data (Equal, Where, Range's start,
  // ...) reads the tensor built for it (materializeShapeValue): while
  // suspended, the name is an ordinary value.
  void suspendShapeValue(StringRef name, bool suspend) {
    if (suspend) suspended_.insert(name);
    else suspended_.erase(name);
  }
  // Each dimension of `v` as an expression of the named dynamic dimensions,
  // from the dialect's type inference over the graph built so far
  // (DynamicDimsAnalysis); nullopt where that fails.
  std::optional<SmallVector<SymExpr>> symbolicDims(Value v);
  // uint8 ones of shape [size of dynamic dimension `name`], read off a graph
  // input that has it (so its length is that size at run time).
  FailureOr<Value> nameOnes(StringRef name, Location loc);
  // The largest size of dynamic dimension `name` (--dynamic-dim), or -1.
  int64_t nameMax(StringRef name);
  FailureOr<Value> addOp(StringRef opName, ArrayRef<Value> operands, ArrayRef<NamedAttribute> attrs,
                         Location loc) {
    FailureOr<SmallVector<Value>> r = graph_.addOp(opName, operands, attrs, loc);
    if (failed(r)) return failure();
    return (*r)[0];
  }
  void define(StringRef name, Value v) { values_[name] = v; }
  // Every name's value, to restore after converting a region: what a branch
  // or loop body defines is out of scope once it ends (ONNX scoping), and a
  // value inside a region must not be named from outside it.
  llvm::StringMap<Value> saveScope() const { return values_; }
  void restoreScope(llvm::StringMap<Value> saved) { values_ = std::move(saved); }

  // Converts a subgraph's nodes into this graph (they see every value
  // defined so far): how an If with a constant condition is inlined.
  using SubgraphConverter = std::function<LogicalResult(const onnx::GraphProto &)>;
  void setSubgraphConverter(SubgraphConverter fn) { subgraphConverter_ = std::move(fn); }
  LogicalResult convertSubgraph(const onnx::GraphProto &sub) { return subgraphConverter_(sub); }

 private:
  GraphBuilder graph_;
  Location fileLoc_;
  TensorSource tensorSource_;
  llvm::StringMap<Value> values_;
  llvm::StringMap<std::string> shapeValueOrigins_;
  llvm::StringMap<ShapeValueDims> shapeValueDims_;
  llvm::StringSet<> suspended_;
  llvm::StringMap<std::pair<Block *, Value>> nameOnes_;
  llvm::DenseMap<Value, std::pair<Type, SmallVector<SymExpr>>> symbolicCache_;
  SubgraphConverter subgraphConverter_;
};

// ---------------------------------------------------------------- one node
class NodeConverter {
 public:
  NodeConverter(GraphImporter &graph, const onnx::NodeProto &node, int64_t opset, Location loc)
      : graph_(graph), node_(node), opset_(opset), loc_(loc) {}

  const onnx::NodeProto &node() const { return node_; }
  StringRef opType() const { return node_.op_type(); }
  int64_t opset() const { return opset_; }
  Location loc() const { return loc_; }
  MLIRContext *context() { return graph_.context(); }
  OpBuilder &builder() { return graph_.graph().builder(); }

  // Inputs. An optional ONNX input is absent when missing or named "".
  size_t numInputs() const { return node_.input_size(); }
  bool hasInput(size_t i) const { return i < numInputs() && !node_.input(i).empty(); }
  Value input(size_t i) const { return hasInput(i) ? graph_.lookup(node_.input(i)) : Value(); }
  FailureOr<Value> requiredInput(size_t i);
  std::optional<ConstantData> constantInput(size_t i) const;
  // The integer contents of input `i`, which must be a constant (`what` names
  // it in the error).
  FailureOr<SmallVector<int64_t>> constantIntsInput(size_t i, StringRef what);
  // Input `i` as a constant (any element type); fails naming it otherwise.
  FailureOr<ConstantData> requireConstantInput(size_t i, StringRef what);

  // Outputs. An output named "" is not wanted by the model.
  size_t numOutputs() const { return node_.output_size(); }
  bool outputUsed(size_t i) const { return i < numOutputs() && !node_.output(i).empty(); }
  void setOutput(size_t i, Value v);
  // Output `i` is a run-time shape value (see GraphImporter::defineShapeValue).
  void setShapeValueOutput(size_t i, StringRef origin, std::optional<ShapeValueDims> dims = std::nullopt);
  // Whether input `i` is such a value.
  bool isShapeValueInput(size_t i) const {
    return hasInput(i) && graph_.shapeValueOrigin(node_.input(i)).has_value();
  }
  bool outputSet(size_t i) const {
    return (i < outputs_.size() && outputs_[i]) || (i < shapeValueOutputs_.size() && shapeValueOutputs_[i]);
  }
  // Fails naming the first used output in [from, numOutputs()) (they have no
  // WebNN equivalent in this conversion).
  LogicalResult rejectExtraOutputs(size_t from, StringRef why);

  // Attributes.
  const onnx::AttributeProto *attr(StringRef name) const;
  bool hasAttr(StringRef name) const { return attr(name) != nullptr; }
  int64_t intAttr(StringRef name, int64_t dflt) const;
  float floatAttr(StringRef name, float dflt) const;
  std::string stringAttr(StringRef name, StringRef dflt) const;
  std::optional<SmallVector<int64_t>> intsAttr(StringRef name) const;
  std::optional<SmallVector<float>> floatsAttr(StringRef name) const;

  // Building webnn ops (result types are inferred by the dialect).
  FailureOr<Value> op(StringRef name, ArrayRef<Value> operands,
                      ArrayRef<NamedAttribute> attrs = {});
  // Reshape, folded when `v` is a small constant; `v` itself if already shaped.
  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> shape);

  // Decompositions (an ONNX op written as several webnn ops) chain `emit`
  // calls and check once: after the first failure (diagnosed at the node)
  // every call builds nothing and returns a null Value. `done` sets output 0.
  Value emit(StringRef name, ArrayRef<Value> operands, ArrayRef<NamedAttribute> attrs = {});
  Value emitReshape(Value v, ArrayRef<int64_t> shape);
  Value emitCast(Value v, Type elem);
  bool emitFailed() const { return emitFailed_; }
  LogicalResult done(Value v) {
    if (emitFailed_ || !v) return failure();
    setOutput(0, v);
    return success();
  }
  // A rank-0 constant of element type `elem` (float or integer).
  Value scalar(Type elem, double v);
  // A constant of `elem` with `shape`, all `v`.
  Value splat(Type elem, ArrayRef<int64_t> shape, double v);
  Value constant(ElementsAttr value);
  Value constantI64(ArrayRef<int64_t> values, ArrayRef<int64_t> shape);

  NamedAttribute i64Attr(StringRef name, int64_t v) {
    return builder().getNamedAttr(name, builder().getI64IntegerAttr(v));
  }
  NamedAttribute f64Attr(StringRef name, double v) {
    return builder().getNamedAttr(name, builder().getF64FloatAttr(v));
  }
  NamedAttribute boolAttr(StringRef name, bool v) {
    return builder().getNamedAttr(name, builder().getBoolAttr(v));
  }
  NamedAttribute strAttr(StringRef name, StringRef v) {
    return builder().getNamedAttr(name, builder().getStringAttr(v));
  }
  NamedAttribute i64ArrayAttr(StringRef name, ArrayRef<int64_t> v) {
    return builder().getNamedAttr(name, builder().getDenseI64ArrayAttr(v));
  }

  static RankedTensorType typeOf(Value v) { return mlir::cast<RankedTensorType>(v.getType()); }
  static ArrayRef<int64_t> shapeOf(Value v) { return typeOf(v).getShape(); }
  static int64_t rankOf(Value v) { return typeOf(v).getRank(); }

  // Maps an ONNX axis in [-rank, rank) to [0, rank); fails with a message
  // naming `what` otherwise.
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, StringRef what);

  // Diagnostics at the node; the importer prefixes "node 'NAME' (OpType): ".
  InFlightDiagnostic emitError() { return mlir::emitError(loc_); }
  // A failure that converts to LogicalResult or FailureOr<T>; unlike
  // LogicalResult it may be discarded, as in `return c.fail(...), Value();`.
  struct Failure {
    operator LogicalResult() const { return failure(); }
    template <typename T>
    operator FailureOr<T>() const { return failure(); }
  };
  Failure fail(const Twine &message) {
    emitFailed_ = true;  // a decomposition in progress stops here too
    (void)(emitError() << message);
    return {};
  }

  GraphImporter &graphImporter() { return graph_; }

 private:
  GraphImporter &graph_;
  const onnx::NodeProto &node_;
  int64_t opset_;
  Location loc_;
  SmallVector<Value> outputs_;
  SmallVector<bool> shapeValueOutputs_;
  bool emitFailed_ = false;
};

// ONNX spatial padding, shared by Conv and the pools: explicit `pads`, or
// derived from auto_pad (needs static input sizes). Returns ONNX order
// [x1_begin, x2_begin, ..., x1_end, x2_end].
FailureOr<SmallVector<int64_t>> resolveOnnxPads(NodeConverter &c, ArrayRef<int64_t> inputSpatial,
                                                ArrayRef<int64_t> kernel,
                                                ArrayRef<int64_t> strides,
                                                ArrayRef<int64_t> dilations);
// ONNX [hBegin, wBegin, hEnd, wEnd] -> WebNN [beginH, endH, beginW, endW].
SmallVector<int64_t, 4> toWebNNPadding2d(ArrayRef<int64_t> onnxPads);

// ---------------------------------------------------------- dispatch table

class OpConverterTable {
 public:
  // `domain` "" is the default ONNX domain (also spelled "ai.onnx").
  void add(StringRef domain, StringRef opType, int64_t sinceVersion, ConvertFn fn);
  // The newest conversion with sinceVersion <= opset, or null.
  ConvertFn lookup(StringRef domain, StringRef opType, int64_t opset) const;

 private:
  // (domain, op_type) -> (sinceVersion, fn), sorted by sinceVersion.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, ConvertFn>>>
      entries_;
};

// The default-domain tables, by op_type letter range.
void populateDefaultDomainAtoF(OpConverterTable &table);
void populateDefaultDomainGtoP(OpConverterTable &table);
void populateDefaultDomainQtoZ(OpConverterTable &table);
void populateDefaultDomainSignal(OpConverterTable &table);      // DFT, STFT, windows
void populateDefaultDomainQuantized(OpConverterTable &table);   // ConvInteger, QLinear*, ...
void populateDefaultDomainIndexing(OpConverterTable &table);    // GridSample, ReverseSequence
void populateDefaultDomainTraining(OpConverterTable &table);    // preview.training optimizers
void populateDefaultDomainControlFlow(OpConverterTable &table); // If, Loop, Scan
void populateDefaultDomainFolded(OpConverterTable &table);      // Unique, NMS on constants
void populateDefaultDomainMath(OpConverterTable &table);        // Acos/Asin/Atan, TopK, BitShift, RNN
void populateComMicrosoftDomain(OpConverterTable &table);  // ComMicrosoftDomain.cpp
void populateComMicrosoftTransformer(OpConverterTable &table);  // ComMicrosoftTransformer.cpp

// Every table above, built once.
const OpConverterTable &onnxOpConverters();

}  // namespace mlir::webnn::onnx_import

#endif

// ------------------------------------------------ lowerings several ops share
namespace mlir::webnn::onnx_import {
// ONNX element-wise op with numpy broadcasting -> webnn.<webnnOp>(a, b). Before
// opset 7 ONNX broadcast only with `broadcast=1`, aligning B at `axis`.
LogicalResult convertBinary(NodeConverter &c, StringRef webnnOp);
// One input, one output, same type.
LogicalResult convertUnary(NodeConverter &c, StringRef webnnOp);
// MaxPool / AveragePool (1-D lifted to 2-D), and their Global forms.
LogicalResult convertPool(NodeConverter &c, StringRef webnnOp);
LogicalResult convertGlobalPool(NodeConverter &c, StringRef webnnOp);
// A per-spatial-dimension list attribute (strides, dilations): `n` positive
// values, all `dflt` when absent.
FailureOr<SmallVector<int64_t>> spatialListAttr(NodeConverter &c, StringRef name, size_t n,
                                                int64_t dflt);
// 3-D (rank-5) Conv and MaxPool/AveragePool on 2-D WebNN ops (DefaultDomainVolumetric.cpp).
LogicalResult convertConv3d(NodeConverter &c, Value x, Value w, Value bias);
LogicalResult convertPool3d(NodeConverter &c, StringRef webnnOp, Value x);
LogicalResult emitConvTranspose3d(NodeConverter &c, Value x, Value w, Value bias,
                                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                  ArrayRef<int64_t> pads, ArrayRef<int64_t> outPad, int64_t group);
// Resize by a constant interpolation matrix per resized axis
// (DefaultDomainResize.cpp): every ONNX sampling mode resample2d lacks.
struct ResizeParams {
  std::string mode = "nearest", transform = "half_pixel", nearestMode = "round_prefer_floor";
  double cubicA = -0.75, extrapolation = 0.0;
  bool excludeOutside = false;
  SmallVector<double> roi;  // [starts..., ends...] for tf_crop_and_resize, one per dim
};
LogicalResult emitResizeByMatrices(NodeConverter &c, Value x, ArrayRef<double> scales,
                                   ArrayRef<int64_t> outShape, const ResizeParams &p);
// MaxPool with its Indices output (DefaultDomainIndexing.cpp).
LogicalResult convertMaxPoolWithIndices(NodeConverter &c, Value x);
// GatherND with batch_dims (DefaultDomainIndexing.cpp).
Value emitGatherNDBatched(NodeConverter &c, Value x, Value idx, int64_t batchDims);
// ScatterND / ScatterElements with reduction add, mul, max or min.
Value emitScatterNDReduce(NodeConverter &c, Value x, Value idx, Value upd, StringRef reduction);
Value emitScatterElementsReduce(NodeConverter &c, Value x, Value idx, Value upd, int64_t axis,
                                StringRef reduction);
// BatchNormalization with training_mode=1 on its 5 inputs (DefaultDomainTraining.cpp).
LogicalResult emitBatchNormTraining(NodeConverter &c, ArrayRef<Value> in);
// LSTM unrolled into matmuls and element-wise ops (peepholes, short
// sequence_lens; DefaultDomainMath.cpp).
LogicalResult emitUnrolledLSTM(NodeConverter &c);
// GRU likewise (clip, short sequence_lens).
LogicalResult emitUnrolledGRU(NodeConverter &c);
// Sinh, Cosh, Asinh, Acosh, Atanh from exp, log and sqrt (by the node's op type).
LogicalResult convertHyperbolic(NodeConverter &c);
// QuantizeLinear (quantize) / DequantizeLinear.
LogicalResult convertQuantizeLike(NodeConverter &c, bool quantize);
// log(softmax(x)) along `axis`, as x - max - log(sum(exp(x - max))).
Value emitLogSoftmax(NodeConverter &c, Value x, int64_t axis);
// ONNX NegativeLogLikelihoodLoss on log-probabilities [N, C, d...] and integer
// targets [N, d...], honouring the node's `reduction` and `ignore_index`.
Value emitNegativeLogLikelihood(NodeConverter &c, Value logProb, Value target, Value weight);
// Constant [0, 1, ..., n-1] of `elem`, shaped to lie along `axis` of a rank-`rank` tensor.
Value iotaAlong(NodeConverter &c, Type elem, int64_t n, int64_t axis, int64_t rank);
// Coerces x to 2-D [prod(d[:axis]), prod(d[axis:])] (Softmax/LogSoftmax/Hardmax < 13),
// applies `body` along axis 1, and reshapes back.
Value emitCoerced2d(NodeConverter &c, Value x, int64_t axis,
                    llvm::function_ref<Value(Value, int64_t)> body);
}  // namespace mlir::webnn::onnx_import
