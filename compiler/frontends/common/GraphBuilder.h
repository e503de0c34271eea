// Builds a WebNN graph (a func.func of webnn ops) by op name, the way every
// front end needs it: operands and options in, inferred result types out.
// Front ends never spell result types; the dialect's shape rules decide them.
#ifndef WEBNN_FRONTENDS_COMMON_GRAPHBUILDER_H
#define WEBNN_FRONTENDS_COMMON_GRAPHBUILDER_H

#include <string>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::webnn {

class GraphBuilder {
 public:
  // Creates `module` (if null) holding one `func.func @main` for graph `graphName`.
  GraphBuilder(MLIRContext *ctx, StringRef graphName, Location loc);

  Value addInput(StringRef name, RankedTensorType type, Location loc);
  // Records that callers exchange graph input `input` (a value addInput
  // returned) as `elementType` although the graph computes it as its own
  // element type: the source model declared a type WebNN lacks (float64 for
  // an f32 input). Kept as the input op's `webnn.interface_type` attribute;
  // the artifact stores it and the runtime converts at the boundary.
  void setInterfaceType(Value input, Type elementType);
  Value addConstant(ElementsAttr value, StringRef name, Location loc);

  // Builds `webnn.<opName>`. `operands` lists the op's operands in the order
  // of docs/OPS.md; a null Value is an absent optional operand. A variadic
  // operand group (concat's inputs) is passed as `variadic` and must be the
  // op's only operand group. `numVariadicResults` > 0 for split.
  // On failure the dialect's diagnostic has been emitted at `loc`.
  FailureOr<SmallVector<Value>> addOp(StringRef opName, ArrayRef<Value> operands,
                                      ArrayRef<NamedAttribute> attributes, Location loc,
                                      unsigned numVariadicResults = 0);

  // Finishes the graph: `func.return` of `outputs`, named `names`.
  // `interfaceTypes` (empty, or one element type per output) gives the type
  // callers receive each output in, as setInterfaceType does for inputs; kept
  // as the function's `webnn.output_interface_types` when any differs.
  LogicalResult finish(ArrayRef<Value> outputs, ArrayRef<std::string> names, Location loc,
                       ArrayRef<Type> interfaceTypes = {});

  OwningOpRef<ModuleOp> takeModule() { return std::move(module_); }
  OpBuilder &builder() { return builder_; }
  MLIRContext *context() { return builder_.getContext(); }

 private:
  OpBuilder builder_;
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
};

// Registers every dialect a front end produces into `ctx`.
void loadFrontendDialects(MLIRContext &ctx);

}  // namespace mlir::webnn

#endif
