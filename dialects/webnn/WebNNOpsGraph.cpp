#include "dialects/webnn/WebNNOps.h"

using namespace mlir;
using namespace mlir::webnn;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }
