#include "backends/vulkan/VulkanDevice.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <algorithm>

namespace webnn::vk {
namespace {

Status vkError(const char *what, VkResult r) {
  StatusCode code = (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
                        ? StatusCode::kOutOfMemory
                        : StatusCode::kInternal;
  return Status(code, std::string("Vulkan: ") + what + " failed: " + vkResultName(r));
}
#define WEBNN_VK_CHECK(call, what)         \
  do {                                     \
    VkResult _r = (call);                  \
    if (_r != VK_SUCCESS) return vkError(what, _r); \
  } while (0)

bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

const char *typeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

bool hasLayer(const VulkanFunctions &fn, const char *name) {
  uint32_t n = 0;
  if (fn.vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(n);
  if (fn.vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
  for (const auto &l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

Status createInstance(VulkanFunctions *fn, bool validation, VkInstance *out) {
  WEBNN_RETURN_IF_ERROR(loadVulkanLoader(fn));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "webnn";
  app.pEngineName = "webnn";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  const char *layer = "VK_LAYER_KHRONOS_validation";
  const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  if (validation) {
    if (!hasLayer(*fn, layer))
      return unsupported("Vulkan validation requested but VK_LAYER_KHRONOS_validation is not installed "
                         "(Debian: vulkan-validationlayers)");
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = &layer;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = &ext;
  }
  VkResult r = fn->vkCreateInstance(&ci, nullptr, out);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return unsupported("GPU requested but no Vulkan 1.1 driver is installed (vkCreateInstance: "
                       "VK_ERROR_INCOMPATIBLE_DRIVER)");
  WEBNN_VK_CHECK(r, "vkCreateInstance");
  Status s = loadInstanceFunctions(*out, fn);
  if (!s.isOk()) {
    if (fn->vkDestroyInstance) fn->vkDestroyInstance(*out, nullptr);
    *out = VK_NULL_HANDLE;
  }
  return s;
}

// Whether matmul_coopmat.comp can run (DeviceInfo::coopmat) and the note
// --list-devices prints.
void describeCoopmat(const VulkanFunctions &fn, VkPhysicalDevice pd, const VkPhysicalDeviceSubgroupProperties &subgroup,
                     bool cooperativeMatrix, bool float16, bool memoryModel, DeviceInfo *info) {
  info->coopmat = false;
  if (!cooperativeMatrix || !fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) {
    info->coopmatNote = "";  // no VK_NV_cooperative_matrix: nothing to say
    return;
  }
  uint32_t n = 0;
  std::vector<VkCooperativeMatrixPropertiesNV> shapes;
  if (fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(pd, &n, nullptr) == VK_SUCCESS) {
    shapes.assign(n, VkCooperativeMatrixPropertiesNV{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
    if (fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(pd, &n, shapes.data()) != VK_SUCCESS) n = 0;
    shapes.resize(n);
  }
  bool shape = false;
  for (const auto &s : shapes)
    if (s.MSize == 16 && s.NSize == 16 && s.KSize == 16 && s.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        s.BType == VK_COMPONENT_TYPE_FLOAT16_NV && s.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        s.DType == VK_COMPONENT_TYPE_FLOAT32_NV && s.scope == VK_SCOPE_SUBGROUP_NV)
      shape = true;
  const bool subgroupIds = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                           (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) && subgroup.subgroupSize > 0;
  if (!shape)
    info->coopmatNote = "nv, without the 16x16x16 f16->f32 subgroup shape (unused)";
  else if (!float16)
    info->coopmatNote = "nv 16x16x16 f16->f32, unused: no shaderFloat16";
  else if (!memoryModel)
    info->coopmatNote = "nv 16x16x16 f16->f32, unused: no vulkanMemoryModel";
  else if (!subgroupIds)
    info->coopmatNote = "nv 16x16x16 f16->f32, unused: no basic subgroup operations in compute shaders";
  else if (const char *env = std::getenv("WEBNN_VULKAN_COOPMAT"); env && std::strcmp(env, "0") == 0)
    info->coopmatNote = "nv 16x16x16 f16->f32, off: WEBNN_VULKAN_COOPMAT=0";
  else {
    info->coopmat = true;
    info->coopmatNote = "nv 16x16x16 f16->f32";
  }
}

// Fills `info` and says whether the device is usable; *family = its compute queue family.
DeviceInfo describe(const VulkanFunctions &fn, VkPhysicalDevice pd, uint32_t index, uint32_t *family) {
  DeviceInfo info;
  info.index = index;
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  fn.vkGetPhysicalDeviceProperties2(pd, &props);
  const VkPhysicalDeviceProperties &p = props.properties;
  info.name = p.deviceName;
  info.type = typeName(p.deviceType);
  info.apiVersion = p.apiVersion;
  info.vendorId = p.vendorID;
  info.deviceId = p.deviceID;
  info.driverVersion = p.driverVersion;
  info.maxStorageBufferRange = p.limits.maxStorageBufferRange;
  info.minStorageBufferOffsetAlignment = p.limits.minStorageBufferOffsetAlignment;
  info.maxSharedMemory = p.limits.maxComputeSharedMemorySize;
  info.maxWorkGroupInvocations = p.limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) info.maxWorkGroupCount[i] = p.limits.maxComputeWorkGroupCount[i];
  info.maxPushConstantsSize = p.limits.maxPushConstantsSize;
  info.subgroupSize = subgroup.subgroupSize;

  VkPhysicalDeviceMemoryProperties mem;
  fn.vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.deviceLocalBytes = std::max<uint64_t>(info.deviceLocalBytes, mem.memoryHeaps[h].size);
  const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  for (uint32_t t = 0; t < mem.memoryTypeCount; ++t)
    if ((mem.memoryTypes[t].propertyFlags & unified) == unified) info.unifiedMemory = true;

  uint32_t nq = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> queues(nq);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, queues.data());
  int compute = -1;
  // A compute-only family first: on discrete GPUs it is the async compute
  // engine, which graphics work does not hold up.
  for (uint32_t q = 0; q < nq && compute < 0; ++q)
    if ((queues[q].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(queues[q].queueFlags & VK_QUEUE_GRAPHICS_BIT))
      compute = int(q);
  for (uint32_t q = 0; q < nq && compute < 0; ++q)
    if (queues[q].queueFlags & VK_QUEUE_COMPUTE_BIT) compute = int(q);

  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkanMemoryModelFeatures mm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &s16;
  bool has8bit = false, hasInt8 = false, hasCoopmat = false, hasMemoryModel = false;
  {
    uint32_t ne = 0;
    fn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &ne, nullptr);
    std::vector<VkExtensionProperties> exts(ne);
    fn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &ne, exts.data());
    for (const auto &e : exts) {
      if (std::strcmp(e.extensionName, VK_KHR_8BIT_STORAGE_EXTENSION_NAME) == 0) has8bit = true;
      if (std::strcmp(e.extensionName, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) == 0) hasInt8 = true;
      if (std::strcmp(e.extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) hasCoopmat = true;
      if (std::strcmp(e.extensionName, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME) == 0) hasMemoryModel = true;
    }
  }
  // Only chain the structures of extensions the device has.
  void **next = &s16.pNext;
  if (has8bit) *next = &s8, next = &s8.pNext;
  if (hasInt8) *next = &i8, next = &i8.pNext;
  if (hasCoopmat) *next = &cm, next = &cm.pNext;
  if (hasMemoryModel) *next = &mm, next = &mm.pNext;
  fn.vkGetPhysicalDeviceFeatures2(pd, &features);
  info.float64 = features.features.shaderFloat64 == VK_TRUE;
  describeCoopmat(fn, pd, subgroup, hasCoopmat && cm.cooperativeMatrix, hasInt8 && i8.shaderFloat16,
                  hasMemoryModel && mm.vulkanMemoryModel, &info);

  if (compute < 0)
    info.whyUnusable = "no compute queue";
  else if (VK_API_VERSION_MINOR(p.apiVersion) < 1 && VK_API_VERSION_MAJOR(p.apiVersion) == 1)
    info.whyUnusable = "Vulkan 1.0 only";
  else if (!s16.storageBuffer16BitAccess)
    info.whyUnusable = "no 16-bit storage buffer access";
  else if (!has8bit || !s8.storageBuffer8BitAccess)
    info.whyUnusable = "no 8-bit storage buffer access";
  else if (!hasInt8 || !i8.shaderInt8)
    // glslang declares the Int8 capability for every conversion to or
    // from an 8-bit type, storage access alone does not cover them.
    info.whyUnusable = "no shaderInt8";
  else if (info.maxPushConstantsSize < kPushConstantBytes)
    info.whyUnusable = "push constants under 128 bytes";
  info.usable = info.whyUnusable.empty();
  if (family) *family = compute < 0 ? 0 : uint32_t(compute);
  return info;
}

std::vector<VkPhysicalDevice> physicalDevices(const VulkanFunctions &fn, VkInstance instance) {
  uint32_t n = 0;
  if (fn.vkEnumeratePhysicalDevices(instance, &n, nullptr) != VK_SUCCESS) return {};
  std::vector<VkPhysicalDevice> devices(n);
  if (fn.vkEnumeratePhysicalDevices(instance, &n, devices.data()) != VK_SUCCESS) return {};
  devices.resize(n);
  return devices;
}

uint64_t fnv1a(const uint32_t *code, size_t words) {
  uint64_t h = 1469598103934665603ull;
  const uint8_t *b = reinterpret_cast<const uint8_t *>(code);
  for (size_t i = 0; i < words * 4; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

}  // namespace

Status listDevices(std::vector<DeviceInfo> *out) {
  VulkanFunctions fn;
  VkInstance instance = VK_NULL_HANDLE;
  WEBNN_RETURN_IF_ERROR(createInstance(&fn, false, &instance));
  out->clear();
  std::vector<VkPhysicalDevice> devices = physicalDevices(fn, instance);
  for (uint32_t i = 0; i < devices.size(); ++i) out->push_back(describe(fn, devices[i], i, nullptr));
  fn.vkDestroyInstance(instance, nullptr);
  if (out->empty()) return unsupported("GPU requested but the Vulkan loader reports no device");
  return Status::ok();
}

bool parseGpuDeviceName(const std::string &name, int *index) {
  if (name == "gpu") {
    *index = -1;
    return true;
  }
  if (name.rfind("gpu:", 0) != 0 || name.size() == 4 || name.size() > 8) return false;
  int v = 0;
  for (size_t i = 4; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + (name[i] - '0');
  }
  *index = v;
  return true;
}

Device::Options Device::defaultOptions() {
  Options o;
  o.validation = envFlag("WEBNN_VULKAN_VALIDATION");
  o.forceStaging = envFlag("WEBNN_VULKAN_FORCE_STAGING");
  return o;
}

Status Device::create(const Options &options, std::shared_ptr<Device> *out) {
  std::shared_ptr<Device> d(new Device());
  WEBNN_RETURN_IF_ERROR(d->init(options));
  *out = std::move(d);
  return Status::ok();
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                          VkDebugUtilsMessageTypeFlagsEXT types,
                                                          const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                          void *user) {
  (void)severity;
  (void)types;
  Device *d = static_cast<Device *>(user);
  std::lock_guard<std::mutex> lock(d->messageMutex_);
  d->messages_.push_back(data && data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

Status Device::init(const Options &options) {
  options_ = options;
  if (!options.driverShaderCache) {
    setenv("__GL_SHADER_DISK_CACHE", "0", /*overwrite=*/0);
    setenv("MESA_SHADER_CACHE_DISABLE", "true", /*overwrite=*/0);
  }
  WEBNN_RETURN_IF_ERROR(createInstance(&fn_, options.validation, &instance_));
  if (options.validation && fn_.vkCreateDebugUtilsMessengerEXT) {
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = &Device::onValidationMessage;
    mi.pUserData = this;
    WEBNN_VK_CHECK(fn_.vkCreateDebugUtilsMessengerEXT(instance_, &mi, nullptr, &messenger_),
                   "vkCreateDebugUtilsMessengerEXT");
  }
  std::vector<VkPhysicalDevice> devices = physicalDevices(fn_, instance_);
  if (devices.empty()) return unsupported("GPU requested but the Vulkan loader reports no device");
  int chosen = -1;
  std::vector<DeviceInfo> infos;
  std::vector<uint32_t> families(devices.size());
  for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(describe(fn_, devices[i], i, &families[i]));
  if (options.index >= 0) {
    if (size_t(options.index) >= devices.size())
      return invalidArgument("gpu:" + std::to_string(options.index) + " requested but there are " +
                             std::to_string(devices.size()) + " Vulkan device(s) (webnn-run --list-devices)");
    if (!infos[options.index].usable)
      return unsupported("gpu:" + std::to_string(options.index) + " (" + infos[options.index].name +
                         ") cannot run webnn: " + infos[options.index].whyUnusable);
    chosen = options.index;
  } else {
    for (uint32_t i = 0; i < infos.size() && chosen < 0; ++i)
      if (infos[i].usable && infos[i].type == std::string("discrete")) chosen = int(i);
    for (uint32_t i = 0; i < infos.size() && chosen < 0; ++i)
      if (infos[i].usable) chosen = int(i);
    if (chosen < 0)
      return unsupported("GPU requested but no Vulkan device can run webnn (" + infos[0].name + ": " +
                         infos[0].whyUnusable + ")");
  }
  physical_ = devices[chosen];
  info_ = infos[chosen];
  queueFamily_ = families[chosen];
  fn_.vkGetPhysicalDeviceMemoryProperties(physical_, &memoryProperties_);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = queueFamily_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  s16.storageBuffer16BitAccess = VK_TRUE;
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  s8.storageBuffer8BitAccess = VK_TRUE;
  s16.pNext = &s8;
  VkPhysicalDeviceShaderFloat16Int8Features i8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  i8.shaderInt8 = VK_TRUE;
  s8.pNext = &i8;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &s16;
  features.features.shaderFloat64 = info_.float64 ? VK_TRUE : VK_FALSE;
  std::vector<const char *> exts = {VK_KHR_8BIT_STORAGE_EXTENSION_NAME, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME};
  // matmul_coopmat.comp declares CooperativeMatrixNV, Float16 and the
  // Vulkan memory model: enabled only where describe() found all three.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkanMemoryModelFeatures mm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  if (info_.coopmat) {
    i8.shaderFloat16 = VK_TRUE;
    cm.cooperativeMatrix = VK_TRUE;
    mm.vulkanMemoryModel = VK_TRUE;
    i8.pNext = &cm;
    cm.pNext = &mm;
    exts.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    exts.push_back(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  }
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = &features;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  di.enabledExtensionCount = uint32_t(exts.size());
  di.ppEnabledExtensionNames = exts.data();
  WEBNN_VK_CHECK(fn_.vkCreateDevice(physical_, &di, nullptr, &device_), "vkCreateDevice");
  WEBNN_RETURN_IF_ERROR(loadDeviceFunctions(device_, &fn_));
  fn_.vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);

  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = queueFamily_;
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  WEBNN_VK_CHECK(fn_.vkCreateCommandPool(device_, &pi, nullptr, &commandPool_), "vkCreateCommandPool");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  WEBNN_VK_CHECK(fn_.vkCreateFence(device_, &fi, nullptr, &fence_), "vkCreateFence");

  // The pipeline cache: the driver checks its own header (vendor, device,
  // cache UUID) and ignores a cache of another driver; we check the header's
  // length field first so a truncated file is never handed over.
  std::string dir = options.cacheDir;
  if (dir.empty()) {
    const char *env = std::getenv("WEBNN_VULKAN_CACHE_DIR");
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    if (env && *env) dir = env;
    else if (xdg && *xdg) dir = std::string(xdg) + "/webnn";
    else if (home && *home) dir = std::string(home) + "/.cache/webnn";
  }
  std::vector<char> initial;
  if (!dir.empty() && dir != "none") {
    char name[96];
    std::snprintf(name, sizeof name, "/vulkan-pipelines-%04x-%04x-%08x.bin", info_.vendorId, info_.deviceId,
                  info_.driverVersion);
    cachePath_ = dir + name;
    std::ifstream in(cachePath_, std::ios::binary);
    if (in) initial.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    uint32_t headerBytes = 0;
    if (initial.size() >= 32) std::memcpy(&headerBytes, initial.data(), 4);
    if (initial.size() < 32 || headerBytes < 32 || headerBytes > initial.size()) initial.clear();
  }
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = initial.size();
  ci.pInitialData = initial.empty() ? nullptr : initial.data();
  if (fn_.vkCreatePipelineCache(device_, &ci, nullptr, &cache_) != VK_SUCCESS) {
    ci.initialDataSize = 0;
    ci.pInitialData = nullptr;
    WEBNN_VK_CHECK(fn_.vkCreatePipelineCache(device_, &ci, nullptr, &cache_), "vkCreatePipelineCache");
  }
  return Status::ok();
}

void Device::savePipelineCache() {
  if (cachePath_.empty() || !cache_) return;
  size_t n = 0;
  if (fn_.vkGetPipelineCacheData(device_, cache_, &n, nullptr) != VK_SUCCESS || n == 0) return;
  std::vector<char> data(n);
  if (fn_.vkGetPipelineCacheData(device_, cache_, &n, data.data()) != VK_SUCCESS) return;
  std::error_code ec;
  std::filesystem::path path(cachePath_);
  std::filesystem::create_directories(path.parent_path(), ec);
  // Written beside, then renamed: two processes never leave a torn file.
  std::string tmp = cachePath_ + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(data.data(), std::streamsize(n));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

Device::~Device() {
  if (device_) {
    fn_.vkDeviceWaitIdle(device_);
    savePipelineCache();
    for (auto &[key, p] : pipelines_) fn_.vkDestroyPipeline(device_, p->pipeline, nullptr);
    for (auto &[n, l] : layouts_) {
      fn_.vkDestroyPipelineLayout(device_, l.second, nullptr);
      fn_.vkDestroyDescriptorSetLayout(device_, l.first, nullptr);
    }
    for (auto &[code, m] : modules_) fn_.vkDestroyShaderModule(device_, m, nullptr);
    if (cache_) fn_.vkDestroyPipelineCache(device_, cache_, nullptr);
    if (fence_) fn_.vkDestroyFence(device_, fence_, nullptr);
    if (commandPool_) fn_.vkDestroyCommandPool(device_, commandPool_, nullptr);
    fn_.vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) fn_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_) fn_.vkDestroyInstance(instance_, nullptr);
}

uint64_t Device::bindingAlignment() const {
  return std::max<uint64_t>(64, info_.minStorageBufferOffsetAlignment);
}

Status Device::createBuffer(uint64_t bytes, Memory memory, DeviceBuffer *out) {
  *out = DeviceBuffer{};
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = std::max<uint64_t>(bytes, 4);
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  WEBNN_VK_CHECK(fn_.vkCreateBuffer(device_, &bi, nullptr, &out->buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  fn_.vkGetBufferMemoryRequirements(device_, out->buffer, &req);
  // Candidate property sets, best first.
  std::vector<VkMemoryPropertyFlags> wanted;
  const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (memory == Memory::kDeviceLocal) {
    if (!options_.forceStaging) wanted.push_back(dl | hv);
    wanted.push_back(dl);
  } else {
    wanted.push_back(hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    wanted.push_back(hv);
    wanted.push_back(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  }
  int type = -1;
  for (VkMemoryPropertyFlags w : wanted) {
    for (uint32_t t = 0; t < memoryProperties_.memoryTypeCount && type < 0; ++t)
      if ((req.memoryTypeBits & (1u << t)) && (memoryProperties_.memoryTypes[t].propertyFlags & w) == w) type = int(t);
    if (type >= 0) break;
  }
  if (type < 0) {
    destroyBuffer(out);
    return Status(StatusCode::kInternal, "Vulkan: no memory type for a buffer");
  }
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = uint32_t(type);
  VkResult r = fn_.vkAllocateMemory(device_, &ai, nullptr, &out->memory);
  if (r != VK_SUCCESS) {
    destroyBuffer(out);
    return Status(StatusCode::kOutOfMemory, "Vulkan: cannot allocate " + std::to_string(bytes) +
                                                " bytes of GPU memory (" + vkResultName(r) + ")");
  }
  WEBNN_VK_CHECK(fn_.vkBindBufferMemory(device_, out->buffer, out->memory, 0), "vkBindBufferMemory");
  out->bytes = bytes;
  VkMemoryPropertyFlags flags = memoryProperties_.memoryTypes[type].propertyFlags;
  out->hostCoherent = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    WEBNN_VK_CHECK(fn_.vkMapMemory(device_, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped), "vkMapMemory");
  return Status::ok();
}

void Device::destroyBuffer(DeviceBuffer *b) {
  if (b->mapped) fn_.vkUnmapMemory(device_, b->memory);
  if (b->buffer) fn_.vkDestroyBuffer(device_, b->buffer, nullptr);
  if (b->memory) fn_.vkFreeMemory(device_, b->memory, nullptr);
  *b = DeviceBuffer{};
}

void Device::flush(const DeviceBuffer &b) {
  if (!b.mapped || b.hostCoherent) return;
  VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  r.memory = b.memory;
  r.size = VK_WHOLE_SIZE;
  fn_.vkFlushMappedMemoryRanges(device_, 1, &r);
}

void Device::invalidate(const DeviceBuffer &b) {
  if (!b.mapped || b.hostCoherent) return;
  VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  r.memory = b.memory;
  r.size = VK_WHOLE_SIZE;
  fn_.vkInvalidateMappedMemoryRanges(device_, 1, &r);
}

Status Device::pipeline(const uint32_t *code, size_t codeWords, const std::vector<uint32_t> &spec,
                        uint32_t numBindings, const Pipeline **out) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t h = fnv1a(code, codeWords);
  std::vector<uint32_t> key = {uint32_t(h), uint32_t(h >> 32), uint32_t(codeWords), numBindings};
  key.insert(key.end(), spec.begin(), spec.end());
  auto found = pipelines_.find(key);
  if (found != pipelines_.end()) {
    *out = found->second.get();
    return Status::ok();
  }
  auto start = std::chrono::steady_clock::now();
  auto &layout = layouts_[numBindings];
  if (!layout.first) {
    std::vector<VkDescriptorSetLayoutBinding> b(numBindings);
    for (uint32_t i = 0; i < numBindings; ++i) {
      b[i].binding = i;
      b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      b[i].descriptorCount = 1;
      b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = numBindings;
    li.pBindings = b.data();
    WEBNN_VK_CHECK(fn_.vkCreateDescriptorSetLayout(device_, &li, nullptr, &layout.first),
                   "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &layout.first;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &range;
    WEBNN_VK_CHECK(fn_.vkCreatePipelineLayout(device_, &pli, nullptr, &layout.second), "vkCreatePipelineLayout");
  }
  VkShaderModule &module = modules_[code];
  if (!module) {
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = codeWords * 4;
    mi.pCode = code;
    WEBNN_VK_CHECK(fn_.vkCreateShaderModule(device_, &mi, nullptr, &module), "vkCreateShaderModule");
  }
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (uint32_t i = 0; i < spec.size(); ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo si{};
  si.mapEntryCount = uint32_t(entries.size());
  si.pMapEntries = entries.data();
  si.dataSize = spec.size() * 4;
  si.pData = spec.data();
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
  ci.layout = layout.second;
  auto p = std::make_unique<Pipeline>();
  WEBNN_VK_CHECK(fn_.vkCreateComputePipelines(device_, cache_, 1, &ci, nullptr, &p->pipeline),
                 "vkCreateComputePipelines");
  p->layout = layout.second;
  p->setLayout = layout.first;
  p->numBindings = numBindings;
  pipelineMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++pipelinesCreated_;
  *out = p.get();
  pipelines_.emplace(std::move(key), std::move(p));
  return Status::ok();
}

// Waits for fence_ until the deadline, in slices so a deadline far off (or
// none) needs no huge nanosecond count.
Status Device::waitForFence() {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline_) {
      submissionPending_ = true;
      return Status(StatusCode::kCancelled,
                    "the GPU had not finished its work by the deadline (the submission cannot be stopped; it "
                    "runs on)");
    }
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline_ - now).count();
    const uint64_t slice = uint64_t(std::min<int64_t>(left, 100'000'000));
    VkResult r = fn_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, slice);
    if (r == VK_SUCCESS) {
      submissionPending_ = false;
      return Status::ok();
    }
    if (r != VK_TIMEOUT) return vkError("vkWaitForFences", r);
  }
}

Status Device::submitAndWait(VkCommandBuffer cmd) {
  // The fence of a submission abandoned at an earlier deadline is still in use.
  if (submissionPending_) WEBNN_RETURN_IF_ERROR(waitForFence());
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  WEBNN_VK_CHECK(fn_.vkResetFences(device_, 1, &fence_), "vkResetFences");
  WEBNN_VK_CHECK(fn_.vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
  return waitForFence();
}

std::vector<std::string> Device::takeValidationMessages() {
  std::lock_guard<std::mutex> lock(messageMutex_);
  std::vector<std::string> m;
  m.swap(messages_);
  return m;
}

}  // namespace webnn::vk
