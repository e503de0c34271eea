#include "backends/vulkan/VulkanLoader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace webnn::vk {
namespace {

struct LoaderState {
  void *library = nullptr;
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
  Status status;
};

const LoaderState &openLoaderOnce() {
  static LoaderState state;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *env = std::getenv("WEBNN_VULKAN_LOADER");
    std::string path = env && *env ? env : "libvulkan.so.1";
    // RTLD_LOCAL: the loader's symbols stay out of the global namespace, so
    // nothing else in the process binds to them by accident.
    state.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!state.library) {
      const char *why = dlerror();
      state.status = unsupported("GPU requested but the Vulkan loader '" + path + "' cannot be opened (" +
                                 (why ? why : "unknown reason") +
                                 "); install libvulkan1 and a Vulkan driver, or run on the CPU");
      return;
    }
    state.getInstanceProcAddr =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(state.library, "vkGetInstanceProcAddr"));
    if (!state.getInstanceProcAddr)
      state.status = unsupported("the Vulkan loader '" + path + "' has no vkGetInstanceProcAddr");
  });
  return state;
}

}  // namespace

Status loadVulkanLoader(VulkanFunctions *fns) {
  const LoaderState &state = openLoaderOnce();
  if (!state.status.isOk()) return state.status;
  fns->vkGetInstanceProcAddr = state.getInstanceProcAddr;
#define WEBNN_VK_LOAD(name)                                                                         \
  fns->name = reinterpret_cast<PFN_##name>(state.getInstanceProcAddr(VK_NULL_HANDLE, #name));      \
  if (!fns->name) return unsupported("the Vulkan loader lacks " #name);
  WEBNN_VK_GLOBAL_FUNCTIONS(WEBNN_VK_LOAD)
#undef WEBNN_VK_LOAD
  return Status::ok();
}

Status loadInstanceFunctions(VkInstance instance, VulkanFunctions *fns) {
#define WEBNN_VK_LOAD(name)                                                                    \
  fns->name = reinterpret_cast<PFN_##name>(fns->vkGetInstanceProcAddr(instance, #name));      \
  if (!fns->name) return unsupported("the Vulkan instance lacks " #name " (Vulkan 1.1 needed)");
  WEBNN_VK_INSTANCE_FUNCTIONS(WEBNN_VK_LOAD)
#undef WEBNN_VK_LOAD
  fns->vkCreateDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      fns->vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  fns->vkDestroyDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      fns->vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  fns->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
          fns->vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  return Status::ok();
}

Status loadDeviceFunctions(VkDevice device, VulkanFunctions *fns) {
#define WEBNN_VK_LOAD(name)                                                               \
  fns->name = reinterpret_cast<PFN_##name>(fns->vkGetDeviceProcAddr(device, #name));      \
  if (!fns->name) return unsupported("the Vulkan device lacks " #name);
  WEBNN_VK_DEVICE_FUNCTIONS(WEBNN_VK_LOAD)
#undef WEBNN_VK_LOAD
  return Status::ok();
}

const char *vkResultName(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult error";
  }
}

}  // namespace webnn::vk
