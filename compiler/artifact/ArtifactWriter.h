// Serializes a WebNN graph (func.func @main of webnn ops) into a .wnn artifact.
#ifndef WEBNN_COMPILER_ARTIFACT_ARTIFACTWRITER_H
#define WEBNN_COMPILER_ARTIFACT_ARTIFACTWRITER_H

#include <cstdint>
#include <string>
#include <vector>

#include "mlir/IR/BuiltinOps.h"

namespace mlir::webnn {

// A node's constant operand in a kernel library's layout (schema
// PackedConstant), as produced by the runtime's packConstants().
struct PackedConstantBytes {
  uint32_t node = 0, input = 0;
  std::string layout;
  std::vector<uint8_t> bytes;
};

struct ArtifactOptions {
  std::string target = "cpu";
  // Write the graph alone; constants go to `weightsPath` instead.
  bool weightless = false;
  std::string weightsPath;
  // Graph.precision: false "exact" (float32 dot products), true "relaxed"
  // (the runtime may compute conv/matmul dot products in bfloat16).
  bool relaxedPrecision = false;
  // Appended to the weight segment after the constants (embedded weights
  // only). Node indices refer to the artifact this same module and options
  // produce without them: serialization is deterministic.
  std::vector<PackedConstantBytes> packedConstants;
  // Node.backend per main-graph node, in the order the artifact this same
  // module and options produce without them lists its nodes (empty string
  // or past the end: none, the runtime's default backend).
  std::vector<std::string> nodeBackends;
};

// Writes `module` to `path` (and the weights file when weightless). Files are
// written to a temporary name and renamed, so a failure leaves no partial
// output. The bytes depend only on the module and options (no timestamps,
// no pointer-ordered iteration), so identical input gives identical output.
LogicalResult writeArtifact(ModuleOp module, StringRef path, const ArtifactOptions &options);

}  // namespace mlir::webnn

#endif
