// Weights sidecars of a webnn-graph: `<stem>.manifest.json` + `<stem>.weights`,
// or `<stem>.safetensors`. Files are memory-mapped; each tensor is a view into
// the mapping plus a shared reference that keeps the mapping alive.
#ifndef WEBNN_FRONTENDS_DSL_WEIGHTS_H
#define WEBNN_FRONTENDS_DSL_WEIGHTS_H

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontends/dsl/Ast.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlir::webnn::dsl {

struct WeightsTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  llvm::ArrayRef<char> data;                  // little-endian, int4 packed
  std::shared_ptr<llvm::MemoryBuffer> file;   // owns the mapping `data` points into
};

// An error inside a sidecar file, positioned in that file.
struct SidecarError {
  std::string file;
  SourcePos pos;
  std::string message;
};

class WeightsSidecar {
 public:
  // Opens the sidecar next to `graphPath` (same stem). Returns false on a broken
  // sidecar; otherwise `out` is the sidecar, or null when none exists.
  static bool openFor(const std::string &graphPath, std::unique_ptr<WeightsSidecar> &out,
                      SidecarError &error);
  // The same with explicit files (either manifest+weights or safetensors).
  static bool openManifest(const std::string &manifestPath, const std::string &weightsPath,
                           std::unique_ptr<WeightsSidecar> &out, SidecarError &error);
  static bool openSafetensors(const std::string &path, std::unique_ptr<WeightsSidecar> &out,
                              SidecarError &error);

  // The tensor stored under `key`, or null (then `whyMissing` says why).
  const WeightsTensor *find(const std::string &key, std::string &whyMissing) const;
  // Human-readable list of the files in use.
  const std::string &description() const { return description_; }

 private:
  std::map<std::string, WeightsTensor> tensors_;
  std::map<std::string, std::string> unsupported_;  // key -> reason
  std::string description_;
};

}  // namespace mlir::webnn::dsl

#endif
