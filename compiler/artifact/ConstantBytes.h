// The raw little-endian bytes of a constant in WebNN's memory layout.
#ifndef WEBNN_COMPILER_ARTIFACT_CONSTANTBYTES_H
#define WEBNN_COMPILER_ARTIFACT_CONSTANTBYTES_H

#include <vector>

#include "mlir/IR/BuiltinAttributeInterfaces.h"

namespace mlir::webnn {

// A view of the bytes when the attribute stores them densely already (resource
// blobs, non-splat dense data of byte-sized types), else a materialized copy
// in `storage` (splats, int4/uint4 which MLIR keeps one element per byte but
// WebNN packs two per byte, low nibble first).
FailureOr<ArrayRef<char>> getConstantBytes(ElementsAttr value, std::vector<char> &storage);

}  // namespace mlir::webnn

#endif
