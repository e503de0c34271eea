#ifndef WEBNN_OPS_ELEMENTWISE_TD
#define WEBNN_OPS_ELEMENTWISE_TD

include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class WebNN_UnaryOp<string mnemonic, string spec> : WebNN_Op<mnemonic,
    [Pure, SameOperandsAndResultType]> {
  let summary = spec;
  let arguments = (ins WebNN_Tensor:$input);
  let results = (outs WebNN_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def WebNN_ReluOp : WebNN_UnaryOp<"relu", "max(0, x) element-wise">;

class WebNN_BinaryOp<string mnemonic, string spec> : WebNN_Op<mnemonic,
    [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = spec;
  let arguments = (ins WebNN_Tensor:$a, WebNN_Tensor:$b);
  let results = (outs WebNN_Tensor:$output);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def WebNN_AddOp : WebNN_BinaryOp<"add", "a + b element-wise, with broadcasting">;

#endif // WEBNN_OPS_ELEMENTWISE_TD
