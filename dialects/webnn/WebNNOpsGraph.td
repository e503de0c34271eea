#ifndef WEBNN_OPS_GRAPH_TD
#define WEBNN_OPS_GRAPH_TD

include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def WebNN_InputOp : WebNN_Op<"input", [Pure]> {
  let summary = "a named graph input (MLGraphBuilder.input)";
  let arguments = (ins StrAttr:$name);
  let results = (outs WebNN_Tensor:$output);
  let assemblyFormat = "$name attr-dict `:` type($output)";
}

def WebNN_ConstantOp : WebNN_Op<"constant", [Pure, ConstantLike,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "a constant tensor (MLGraphBuilder.constant)";
  let arguments = (ins ElementsAttrInterface:$value, OptionalAttr<StrAttr>:$name);
  let results = (outs WebNN_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // WEBNN_OPS_GRAPH_TD
