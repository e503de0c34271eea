#ifndef WEBNN_TRANSFORMS_PASSES_H
#define WEBNN_TRANSFORMS_PASSES_H

#include "dialects/webnn/WebNNDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::webnn {

#define GEN_PASS_DECL
#include "compiler/transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"

}  // namespace mlir::webnn

#endif
