// libFuzzer target: a weightless artifact with its weights file
// (webnnc --weightless). The input is a 4-byte little-endian length of the
// artifact, the artifact, then the weights file: the header checks, digest,
// constant ranges against the weights segment and the per-constant SHA-256.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "FuzzUtil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  uint32_t artifactSize;
  std::memcpy(&artifactSize, data, 4);
  data += 4;
  size -= 4;
  if (artifactSize > size) return 0;
  webnn::fuzz::MemFile artifact(data, artifactSize);
  webnn::fuzz::MemFile weights(data + artifactSize, size - artifactSize);
  if (!artifact.ok() || !weights.ok()) return 0;
  webnn::LoadOptions options;
  options.weightsPath = weights.path();
  std::unique_ptr<webnn::Model> model;
  if (!webnn::Model::load(artifact.path(), options, &model).isOk()) return 0;
  webnn::fuzz::runOnce(*model);
  return 0;
}
