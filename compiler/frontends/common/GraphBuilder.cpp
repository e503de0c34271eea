#include "compiler/frontends/common/GraphBuilder.h"

#include "dialects/webnn/WebNNDialect.h"
#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::webnn {

void loadFrontendDialects(MLIRContext &ctx) {
  ctx.loadDialect<WebNNDialect, func::FuncDialect>();
}

GraphBuilder::GraphBuilder(MLIRContext *ctx, StringRef graphName, Location loc)
    : builder_(ctx) {
  loadFrontendDialects(*ctx);
  module_ = ModuleOp::create(loc);
  builder_.setInsertionPointToEnd(module_->getBody());
  func_ = func::FuncOp::create(builder_, loc, "main", builder_.getFunctionType({}, {}));
  func_->setAttr("webnn.graph_name", builder_.getStringAttr(graphName));
  builder_.setInsertionPointToStart(func_.addEntryBlock());
}

Value GraphBuilder::addInput(StringRef name, RankedTensorType type, Location loc) {
  return InputOp::create(builder_, loc, type, builder_.getStringAttr(name));
}

void GraphBuilder::setInterfaceType(Value input, Type elementType) {
  auto op = input.getDefiningOp<InputOp>();
  assert(op && "setInterfaceType takes a value addInput returned");
  if (elementType == mlir::cast<RankedTensorType>(input.getType()).getElementType())
    op->removeAttr("webnn.interface_type");
  else
    op->setAttr("webnn.interface_type", TypeAttr::get(elementType));
}

Value GraphBuilder::addConstant(ElementsAttr value, StringRef name, Location loc) {
  return ConstantOp::create(builder_, loc, value.getType(), value,
                                     name.empty() ? StringAttr() : builder_.getStringAttr(name));
}

// The operand count an op's ODS declaration fixes, if it fixes one. Checked
// before inference, which indexes operands by position.
static std::optional<std::pair<unsigned, bool>> declaredOperandCount(RegisteredOperationName n) {
  if (n.hasTrait<OpTrait::ZeroOperands>()) return std::make_pair(0u, true);
  if (n.hasTrait<OpTrait::OneOperand>()) return std::make_pair(1u, true);
  if (n.hasTrait<OpTrait::NOperands<2>::Impl>()) return std::make_pair(2u, true);
  if (n.hasTrait<OpTrait::NOperands<3>::Impl>()) return std::make_pair(3u, true);
  if (n.hasTrait<OpTrait::AtLeastNOperands<1>::Impl>()) return std::make_pair(1u, false);
  if (n.hasTrait<OpTrait::AtLeastNOperands<2>::Impl>()) return std::make_pair(2u, false);
  if (n.hasTrait<OpTrait::AtLeastNOperands<3>::Impl>()) return std::make_pair(3u, false);
  return std::nullopt;
}

FailureOr<SmallVector<Value>> GraphBuilder::addOp(StringRef opName, ArrayRef<Value> operands,
                                                  ArrayRef<NamedAttribute> attributes,
                                                  Location loc, unsigned numVariadicResults) {
  MLIRContext *ctx = context();
  std::string fullName = ("webnn." + opName).str();
  std::optional<RegisteredOperationName> name = RegisteredOperationName::lookup(fullName, ctx);
  if (!name)
    return emitError(loc) << "unknown WebNN operation '" << opName << "'", failure();

  unsigned given = llvm::count_if(operands, [](Value v) { return static_cast<bool>(v); });
  if (auto expected = declaredOperandCount(*name)) {
    auto [count, exact] = *expected;
    if (exact ? given != count : given < count)
      return emitError(loc) << "'" << opName << "' takes " << (exact ? "" : "at least ") << count
                            << " operand" << (count == 1 ? "" : "s") << " but got " << given,
             failure();
  }

  OperationState state(loc, *name);
  SmallVector<int32_t> segments;
  for (Value v : operands) {
    segments.push_back(v ? 1 : 0);
    if (v) state.addOperands(v);
  }
  state.addAttributes(attributes);
  if (name->hasTrait<OpTrait::AttrSizedOperandSegments>())
    state.addAttribute("operandSegmentSizes", DenseI32ArrayAttr::get(ctx, segments));

  // Inference reads options from the op's properties, so materialize them
  // from the attribute dictionary first, exactly as Operation::create will.
  DictionaryAttr dict = state.attributes.getDictionary(ctx);
  SmallVector<Type> resultTypes;
  auto *inferType = name->getInterface<InferTypeOpInterface>();
  if (!inferType)
    return emitError(loc) << "'" << fullName << "' does not infer its result types", failure();
  int propSize = name->getOpPropertyByteSize();
  SmallVector<char, 64> storage(std::max(propSize, 1));
  OpaqueProperties props(propSize ? storage.data() : nullptr);
  LogicalResult inferred = success();
  if (propSize) {
    name->initOpProperties(props, OpaqueProperties(nullptr));
    inferred = name->setOpPropertiesFromAttribute(*name, props, dict,
                                                  [&] { return emitError(loc); });
  }
  if (succeeded(inferred))
    inferred = inferType->inferReturnTypes(ctx, loc, state.operands, dict, props,
                                           state.regions, resultTypes);
  if (propSize) name->destroyOpProperties(props);
  if (failed(inferred)) return failure();
  (void)numVariadicResults;  // split's result count comes from its `splits` option
  state.addTypes(resultTypes);

  Operation *op = builder_.create(state);
  if (failed(verify(op))) {
    op->erase();
    return failure();
  }
  return SmallVector<Value>(op->getResults());
}

LogicalResult GraphBuilder::finish(ArrayRef<Value> outputs, ArrayRef<std::string> names,
                                   Location loc, ArrayRef<Type> interfaceTypes) {
  func::ReturnOp::create(builder_, loc, outputs);
  SmallVector<Type> types;
  for (Value v : outputs) types.push_back(v.getType());
  func_.setType(builder_.getFunctionType({}, types));
  SmallVector<Attribute> nameAttrs;
  for (const std::string &n : names) nameAttrs.push_back(builder_.getStringAttr(n));
  func_->setAttr("webnn.output_names", builder_.getArrayAttr(nameAttrs));
  if (!interfaceTypes.empty()) {
    if (interfaceTypes.size() != outputs.size())
      return emitError(loc) << "one interface type per graph output expected";
    SmallVector<Attribute> typeAttrs;
    bool differs = false;
    for (auto [v, t] : llvm::zip(outputs, interfaceTypes)) {
      differs |= t != mlir::cast<RankedTensorType>(v.getType()).getElementType();
      typeAttrs.push_back(TypeAttr::get(t));
    }
    if (differs) func_->setAttr("webnn.output_interface_types", builder_.getArrayAttr(typeAttrs));
  }
  return verify(*module_);
}

}  // namespace mlir::webnn
