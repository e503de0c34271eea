#include "Devices.h"

#include <cstdio>
#include <string>
#include <vector>

#if WEBNN_HAVE_VULKAN_BACKEND
#include "backends/vulkan/VulkanDevice.h"
#endif

namespace webnnrun {

int runListDevices() {
  std::printf("cpu      the CPU backend\n");
#if WEBNN_HAVE_VULKAN_BACKEND
  std::vector<webnn::vk::DeviceInfo> devices;
  webnn::Status s = webnn::vk::listDevices(&devices);
  if (!s.isOk()) {
    std::printf("gpu      none: %s\n", s.message().c_str());
    return 0;
  }
  for (const auto &d : devices) {
    std::printf("gpu:%-4u %s (%s, Vulkan %u.%u.%u)%s%s\n", d.index, d.name.c_str(), d.type.c_str(),
                VK_API_VERSION_MAJOR(d.apiVersion), VK_API_VERSION_MINOR(d.apiVersion),
                VK_API_VERSION_PATCH(d.apiVersion), d.usable ? "" : ": cannot run webnn: ",
                d.usable ? "" : d.whyUnusable.c_str());
    std::printf("         maxStorageBufferRange %llu MiB, shared memory %u KiB, subgroup %u, "
                "device-local heap %llu MiB%s\n",
                static_cast<unsigned long long>(d.maxStorageBufferRange >> 20), d.maxSharedMemory >> 10,
                d.subgroupSize, static_cast<unsigned long long>(d.deviceLocalBytes >> 20),
                d.unifiedMemory ? " (host-visible)" : "");
    if (!d.coopmatNote.empty()) std::printf("         coopmat %s\n", d.coopmatNote.c_str());
  }
#else
  std::printf("gpu      none: this webnn-run was built without the Vulkan backend\n");
#endif
  return 0;
}

}  // namespace webnnrun
