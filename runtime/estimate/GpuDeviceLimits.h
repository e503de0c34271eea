// The device limits a GPU profile keeps (GpuProfile.h) and the Vulkan
// backend's DeviceInfo they come from: calibration records them, and the
// estimate hands them back to the kernel factories, which plan dispatches
// from them without a device. Only in builds with the Vulkan backend.
#ifndef WEBNN_RUNTIME_ESTIMATE_GPUDEVICELIMITS_H
#define WEBNN_RUNTIME_ESTIMATE_GPUDEVICELIMITS_H

#include "backends/vulkan/VulkanDevice.h"
#include "estimate/GpuProfile.h"

namespace webnn::est {

GpuLimits limitsOf(const vk::DeviceInfo &d);
vk::DeviceInfo deviceInfoOf(const GpuLimits &l);

}  // namespace webnn::est

#endif
