// The Vulkan backend's op support limits as data (core/OpSupport.h): which
// ops it has kernels for, in which data types and ranks. No Vulkan header:
// the compiler links this alone (WebNNVulkanOpSupport) to place nodes for a
// GPU it cannot open, and the backend answers supports() from it before its
// kernel factories check options and device limits.
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANOPSUPPORT_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANOPSUPPORT_H

#include "core/OpSupport.h"

namespace webnn::vk {

const rt::OpSupportTable &vulkanOpSupport();

}  // namespace webnn::vk

#endif
