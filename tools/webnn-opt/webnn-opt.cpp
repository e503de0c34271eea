// webnn-opt: runs webnn passes on .mlir files (for lit tests and debugging).
#include "compiler/transforms/Passes.h"
#include "dialects/webnn/WebNNDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "webnn/version.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "webnn-opt " WEBNN_VERSION_STRING "\n  built with MLIR/LLVM " LLVM_VERSION_STRING "\n";
  });
  mlir::registerTransformsPasses();  // canonicalize, cse, ...
  mlir::webnn::registerWebNNPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::webnn::WebNNDialect, mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "webnn optimizer driver\n", registry));
}
