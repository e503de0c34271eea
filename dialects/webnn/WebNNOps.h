#ifndef WEBNN_OPS_H
#define WEBNN_OPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/webnn/WebNNDialect.h"

#define GET_OP_CLASSES
#include "dialects/webnn/WebNNOps.h.inc"

#endif
