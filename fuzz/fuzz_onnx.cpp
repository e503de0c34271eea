// libFuzzer target: a serialized ONNX ModelProto through the ONNX importer
// (compiler/frontends/onnx: protobuf parse, the unsupported-op scan,
// initializers, shape inference, every op conversion the model names, If/Loop
// bodies) into the webnn dialect, then the MLIR verifier over the result.
// External data resolves against a folder that does not exist, so a model
// naming side files is refused without touching the disk.
#include <cstddef>
#include <cstdint>

#include "compiler/frontends/onnx/OnnxImporter.h"
#include "compiler/frontends/common/GraphBuilder.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: uniqued types and attributes would otherwise
  // pile up over a campaign and read as a leak.
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  mlir::webnn::loadFrontendDialects(ctx);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::webnn::OnnxImportOptions options;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::webnn::importOnnxBuffer(ctx, bytes, "/nonexistent-fuzz-dir/model.onnx", options);
  if (module) (void)mlir::verify(*module);
  return 0;
}
