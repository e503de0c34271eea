#ifndef WEBNN_DIALECT_H
#define WEBNN_DIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/webnn/WebNNDialect.h.inc"

#endif
