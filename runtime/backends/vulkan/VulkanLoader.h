// The Vulkan loader (libvulkan.so.1), opened at run time.
//
// The runtime never links libvulkan: a machine without a Vulkan loader still
// loads and runs artifacts on the CPU, and only a GPU request fails, with one
// message saying the loader is missing. Every entry point the backend calls
// is a pointer in VulkanFunctions, resolved through vkGetInstanceProcAddr and
// vkGetDeviceProcAddr (device-level pointers skip the loader's dispatch).
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANLOADER_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANLOADER_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

#include "webnn/status.h"

namespace webnn::vk {

#define WEBNN_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                \
  X(vkEnumerateInstanceLayerProperties) \
  X(vkEnumerateInstanceExtensionProperties)

#define WEBNN_VK_INSTANCE_FUNCTIONS(X)       \
  X(vkDestroyInstance)                       \
  X(vkEnumeratePhysicalDevices)              \
  X(vkGetPhysicalDeviceProperties)           \
  X(vkGetPhysicalDeviceProperties2)          \
  X(vkGetPhysicalDeviceFeatures2)            \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)     \
  X(vkEnumerateDeviceExtensionProperties)    \
  X(vkCreateDevice)                          \
  X(vkGetDeviceProcAddr)

#define WEBNN_VK_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                 \
  X(vkGetDeviceQueue)                \
  X(vkCreateBuffer)                  \
  X(vkDestroyBuffer)                 \
  X(vkGetBufferMemoryRequirements)   \
  X(vkAllocateMemory)                \
  X(vkFreeMemory)                    \
  X(vkBindBufferMemory)              \
  X(vkMapMemory)                     \
  X(vkUnmapMemory)                   \
  X(vkFlushMappedMemoryRanges)       \
  X(vkInvalidateMappedMemoryRanges)  \
  X(vkCreateShaderModule)            \
  X(vkDestroyShaderModule)           \
  X(vkCreateDescriptorSetLayout)     \
  X(vkDestroyDescriptorSetLayout)    \
  X(vkCreatePipelineLayout)          \
  X(vkDestroyPipelineLayout)         \
  X(vkCreateComputePipelines)        \
  X(vkDestroyPipeline)               \
  X(vkCreatePipelineCache)           \
  X(vkGetPipelineCacheData)          \
  X(vkDestroyPipelineCache)          \
  X(vkCreateDescriptorPool)          \
  X(vkDestroyDescriptorPool)         \
  X(vkAllocateDescriptorSets)        \
  X(vkUpdateDescriptorSets)          \
  X(vkCreateCommandPool)             \
  X(vkDestroyCommandPool)            \
  X(vkAllocateCommandBuffers)        \
  X(vkFreeCommandBuffers)            \
  X(vkBeginCommandBuffer)            \
  X(vkEndCommandBuffer)              \
  X(vkCmdBindPipeline)               \
  X(vkCmdBindDescriptorSets)         \
  X(vkCmdPushConstants)              \
  X(vkCmdDispatch)                   \
  X(vkCmdPipelineBarrier)            \
  X(vkCmdCopyBuffer)                 \
  X(vkCmdFillBuffer)                 \
  X(vkQueueSubmit)                   \
  X(vkCreateFence)                   \
  X(vkDestroyFence)                  \
  X(vkWaitForFences)                 \
  X(vkResetFences)                   \
  X(vkDeviceWaitIdle)

struct VulkanFunctions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define WEBNN_VK_DECLARE(name) PFN_##name name = nullptr;
  WEBNN_VK_GLOBAL_FUNCTIONS(WEBNN_VK_DECLARE)
  WEBNN_VK_INSTANCE_FUNCTIONS(WEBNN_VK_DECLARE)
  WEBNN_VK_DEVICE_FUNCTIONS(WEBNN_VK_DECLARE)
#undef WEBNN_VK_DECLARE
  // VK_EXT_debug_utils, present only with validation on.
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
  // VK_NV_cooperative_matrix (a physical-device query): null where the
  // loader does not know it; only called for a device reporting the extension.
  PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV vkGetPhysicalDeviceCooperativeMatrixPropertiesNV = nullptr;
};

// Opens the loader once per process (later calls return the first result)
// and resolves the global entry points. The library is
// $WEBNN_VULKAN_LOADER when set (a test points it at a missing file to
// stand for a machine without Vulkan), else libvulkan.so.1.
Status loadVulkanLoader(VulkanFunctions *fns);
Status loadInstanceFunctions(VkInstance instance, VulkanFunctions *fns);
Status loadDeviceFunctions(VkDevice device, VulkanFunctions *fns);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.
const char *vkResultName(VkResult r);

}  // namespace webnn::vk

#endif
