// Front end for webnn-graph files: the `.webnn` text form and the
// webnn-graph-json form (docs/DSL.md), with their weights sidecars.
#ifndef WEBNN_FRONTENDS_DSL_DSLIMPORTER_H
#define WEBNN_FRONTENDS_DSL_DSLIMPORTER_H

#include <string>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::webnn {

// Loads `path` (text or JSON, chosen by extension, else by a leading `{`) and
// its weights sidecar (`<stem>.manifest.json` + `<stem>.weights`, or
// `<stem>.safetensors`). Errors go to `ctx`'s diagnostic handler as
// `file:line:col: error: ...`; the result is then null. `weightsNote`, if
// given, receives which weights files were used (empty when none).
// Weights are memory-mapped and referenced, not copied: the mapping lives as
// long as `ctx` holds the constants' resources.
OwningOpRef<ModuleOp> importWebNNGraphFile(MLIRContext &ctx, llvm::StringRef path,
                                           std::string *weightsNote = nullptr);

// The same for text already in memory; `path` names it in diagnostics and
// decides where the weights sidecar is looked for.
OwningOpRef<ModuleOp> importWebNNGraphSource(MLIRContext &ctx, llvm::StringRef source,
                                             llvm::StringRef path,
                                             std::string *weightsNote = nullptr);

}  // namespace mlir::webnn

#endif
