#ifndef WEBNN_PASSES_TD
#define WEBNN_PASSES_TD

include "mlir/Pass/PassBase.td"

def WebNNFoldConstants : Pass<"webnn-fold-constants", "func::FuncOp"> {
  let summary = "Evaluate operations whose operands are all constants";
  let description = [{
    Runs every webnn op's folder and canonicalization pattern to a fixed
    point, so shape arithmetic and constant subgraphs become single
    `webnn.constant`s before the artifact is written.
  }];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

#endif
