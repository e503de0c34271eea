#include "dialects/webnn/WebNNDialect.h"

#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::webnn;

#include "dialects/webnn/WebNNDialect.cpp.inc"

void WebNNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/webnn/WebNNOps.cpp.inc"
      >();
}

Operation *WebNNDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                             Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements, StringAttr());
}

#define GET_OP_CLASSES
#include "dialects/webnn/WebNNOps.cpp.inc"
