// libFuzzer target: a .wnn artifact (embedded weights) through load, verify,
// kernel resolution, planning and one run on generated inputs.
#include <cstddef>
#include <cstdint>

#include "FuzzUtil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  webnn::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  webnn::LoadOptions options;
  // Hash checks would reject every mutated constant before a kernel sees it.
  options.verifyEmbeddedWeights = false;
  std::unique_ptr<webnn::Model> model;
  if (!webnn::Model::load(file.path(), options, &model).isOk()) return 0;
  webnn::fuzz::runOnce(*model);
  return 0;
}
