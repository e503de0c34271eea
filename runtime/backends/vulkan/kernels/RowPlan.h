// Which variant reduces rows (softmax, layer/instance normalization, global
// pooling): one invocation per row, or one workgroup per row with a
// shared-memory tree.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_KERNELS_ROWPLAN_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_KERNELS_ROWPLAN_H

#include <cstdint>

#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {

// Invocations per row in the workgroup variants.
inline constexpr uint32_t kRowGroup = 64;

// A workgroup per row needs a row of at least kRowGroup elements (and a
// flat invocation index within 32 bits). On a GPU it is taken for every
// such row: one invocation per row leaves most lanes idle and reads rows
// with strided loads. On a CPU device (lavapipe) it is taken only when there
// are fewer rows than one workgroup's invocations: there the per-row
// invocations fill the SIMD lanes and the tree's barriers cost more than
// they save (on lavapipe a workgroup per row made softmax over 1536 rows
// and layerNormalization over 128 rows slower, and 4 rows of 4096 faster;
// docs/GPU.md's op table).
inline bool workgroupPerRow(const DeviceInfo &device, uint64_t rows, uint64_t length) {
  if (length < kRowGroup || rows * kRowGroup > UINT32_MAX) return false;
  return device.type != "cpu" || rows < kRowGroup;
}

}  // namespace webnn::vk

#endif
