#ifndef WEBNN_OPS_GRAPH_TD
#define WEBNN_OPS_GRAPH_TD

include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Deliberately not Pure: an input belongs to the graph's interface even when
// folding leaves it unused (an ONNX Shape of it, say), so dead-code
// elimination must not drop it and change what callers feed.
def WebNN_InputOp : WebNN_Op<"input"> {
  let summary = "a named graph input (MLGraphBuilder.input)";
  let arguments = (ins StrAttr:$name);
  let results = (outs WebNN_TensorOrF64:$output);
  let assemblyFormat = "$name attr-dict `:` type($output)";
}

def WebNN_ConstantOp : WebNN_Op<"constant", [Pure, ConstantLike,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "a constant tensor (MLGraphBuilder.constant)";
  let arguments = (ins ElementsAttrInterface:$value, OptionalAttr<StrAttr>:$name);
  let results = (outs WebNN_TensorOrF64:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // WEBNN_OPS_GRAPH_TD
