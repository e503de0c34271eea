// libFuzzer target: the DSL's weights sidecars as they are opened (every
// entry is checked then: types, sizes, ranges against the file). The first
// byte picks the form: odd, a .safetensors file (the rest of the input);
// even, a 4-byte little-endian manifest length, the .manifest.json, then the
// .weights file.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "MemFile.h"
#include "compiler/frontends/dsl/Weights.h"

using mlir::webnn::dsl::SidecarError;
using mlir::webnn::dsl::WeightsSidecar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const bool safetensors = data[0] & 1;
  ++data;
  --size;
  std::unique_ptr<WeightsSidecar> sidecar;
  SidecarError error;
  if (safetensors) {
    webnn::fuzz::MemFile file(data, size);
    if (file.ok()) (void)WeightsSidecar::openSafetensors(file.path(), sidecar, error);
    return 0;
  }
  if (size < 4) return 0;
  uint32_t manifestSize;
  std::memcpy(&manifestSize, data, 4);
  data += 4;
  size -= 4;
  if (manifestSize > size) return 0;
  webnn::fuzz::MemFile manifest(data, manifestSize);
  webnn::fuzz::MemFile weights(data + manifestSize, size - manifestSize);
  if (manifest.ok() && weights.ok())
    (void)WeightsSidecar::openManifest(manifest.path(), weights.path(), sidecar, error);
  return 0;
}
