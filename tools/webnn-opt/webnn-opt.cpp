// webnn-opt: runs webnn passes on .mlir files (for lit tests and debugging).
#include "compiler/transforms/Passes.h"
#include "dialects/webnn/WebNNDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();  // canonicalize, cse, ...
  mlir::webnn::registerWebNNPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::webnn::WebNNDialect, mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "webnn optimizer driver\n", registry));
}
