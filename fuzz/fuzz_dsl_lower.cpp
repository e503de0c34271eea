// libFuzzer target: webnn-graph text through the whole DSL front end: lexer,
// parser, then the lowering to the webnn dialect (DslImporter: operand
// checks, attribute conversion, shape inference through the ops' verifiers)
// and the MLIR verifier over the result. The path names a folder that does
// not exist, so no weights sidecar is found.
#include <cstddef>
#include <cstdint>

#include "compiler/frontends/dsl/DslImporter.h"
#include "compiler/frontends/common/GraphBuilder.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  mlir::webnn::loadFrontendDialects(ctx);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::webnn::importWebNNGraphSource(ctx, source, "/nonexistent-fuzz-dir/model.webnn");
  if (module) (void)mlir::verify(*module);
  return 0;
}
