// What the Vulkan backend behind the executor (VulkanBackend.cpp) did in
// this process: webnn-run's `--json` reports it for artifacts placed on the
// GPU, and tests check one submit per partition with it.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANBACKEND_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANBACKEND_H

#include <cstdint>
#include <string>
#include <vector>

namespace webnn::vk {

struct BackendCounters {
  bool deviceCreated = false;      // the backend opened its device
  uint64_t submits = 0;            // queue submissions: kernels' and staged copies'
  uint64_t copySubmits = 0;        // of which staged copies (memory the host cannot map)
  uint64_t recordings = 0;         // command buffers recorded (once per kernel and binding signature)
  uint64_t dispatchesRecorded = 0; // dispatches in them
  double recordMs = 0;             // time spent recording them (descriptor sets and commands)
  double pipelineMs = 0;           // time kernels spent getting their pipelines (created or cached)
  // Constants uploaded for kernels (Backend::mapConstants/mapConstantAs):
  // their device bytes, of which float16 copies of relaxed float32 weights.
  uint64_t constantBytes = 0, fp16WeightBytes = 0;
  // Kernels made for relaxed-precision dot products (docs/GPU.md "Relaxed
  // precision"): reading float16 weights, or float32 ones, the first of
  // those named with why ("matmul 'mm': its weight is not a constant").
  uint64_t fp16Nodes = 0, relaxedFloat32Nodes = 0;
  std::string relaxedFloat32Note;
  // Kernels running matmul_coopmat.comp (tensor cores; docs/GPU.md).
  uint64_t coopmatNodes = 0;
};

// Totals since the process started (all sessions).
BackendCounters backendCounters();

// Validation messages the backend's device collected since a kernel last
// checked (a session's teardown), taken; none before the device exists. A
// process running sessions one after another charges them to the one that
// ended (webnn-run batch).
std::vector<std::string> takeBackendValidationMessages();

}  // namespace webnn::vk

#endif
