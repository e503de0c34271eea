// One Vulkan device for compute: instance, physical device choice, a compute
// queue, memory, the pipeline cache, and one-shot submission.
//
// Choice: "gpu" takes the first discrete GPU, else the first usable device
// of any type (lavapipe, an integrated GPU); "gpu:N" takes device N in the
// order --list-devices prints. A device is usable when it has a compute
// queue, Vulkan 1.1, and 8- and 16-bit storage-buffer access (the shaders
// read float16 and uint8 tensors through them; every desktop GPU and
// lavapipe have both), and shaderInt8 (glslang emits the Int8 capability
// for any conversion to or from an 8-bit type).
#ifndef WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANDEVICE_H
#define WEBNN_RUNTIME_BACKENDS_VULKAN_VULKANDEVICE_H

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/VulkanLoader.h"
#include "webnn/status.h"

namespace webnn::vk {

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  uint32_t apiVersion = 0;
  uint32_t vendorId = 0, deviceId = 0, driverVersion = 0;
  uint64_t maxStorageBufferRange = 0;
  uint64_t minStorageBufferOffsetAlignment = 0;
  uint32_t maxSharedMemory = 0;  // maxComputeSharedMemorySize
  uint32_t maxWorkGroupInvocations = 0;
  uint32_t maxWorkGroupCount[3] = {0, 0, 0};
  uint32_t maxPushConstantsSize = 0;
  uint32_t subgroupSize = 0;
  uint64_t deviceLocalBytes = 0;  // the largest device-local heap
  bool unifiedMemory = false;     // a device-local memory type is also host-visible
  bool float64 = false;           // shaderFloat64: the *_f64 shader variants can run
  // Tensor cores for relaxed-precision matmul/gemm (matmul_coopmat.comp,
  // docs/GPU.md "Cooperative matrices"): VK_NV_cooperative_matrix with the
  // 16x16x16 float16 x float16 -> float32 subgroup shape, shaderFloat16, the
  // Vulkan memory model and subgroup ids in compute shaders. False as well
  // under WEBNN_VULKAN_COOPMAT=0. coopmatNote says what the device reports
  // ("nv 16x16x16 f16->f32", "off: WEBNN_VULKAN_COOPMAT=0", or what it lacks).
  bool coopmat = false;
  std::string coopmatNote;
  bool usable = false;
  std::string whyUnusable;
};

// Every physical device the loader reports (an error when there is no loader
// or no device).
Status listDevices(std::vector<DeviceInfo> *out);
// "gpu" -> -1 (automatic), "gpu:N" -> N; false for anything else.
bool parseGpuDeviceName(const std::string &name, int *index);

// A buffer and its memory. Host-visible buffers stay mapped.
struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t bytes = 0;
  void *mapped = nullptr;
  bool hostCoherent = false;
};

// A compute pipeline and what binding it needs.
struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  uint32_t numBindings = 0;
};

// Push constants every pipeline declares: the 128 bytes Vulkan guarantees.
constexpr uint32_t kPushConstantBytes = 128;

class Device {
 public:
  struct Options {
    int index = -1;  // -1: automatic choice
    // Validation layer + debug messenger; any message makes the next
    // takeValidationMessages() non-empty. Default: $WEBNN_VULKAN_VALIDATION=1.
    bool validation = false;
    // Use the staging path even where device memory is host-visible (tests
    // keep the discrete-GPU path exercised on lavapipe).
    // Default: $WEBNN_VULKAN_FORCE_STAGING=1.
    bool forceStaging = false;
    // Folder of the pipeline cache; empty: $WEBNN_VULKAN_CACHE_DIR, else
    // $XDG_CACHE_HOME/webnn, else ~/.cache/webnn; "none" disables it.
    std::string cacheDir;
    // false: ask the drivers not to use their own shader disk caches
    // (NVIDIA's __GL_SHADER_DISK_CACHE, Mesa's MESA_SHADER_CACHE_DISABLE),
    // so that pipeline creation is measured as on a fresh machine. These are
    // process-wide environment variables read when the driver loads: set
    // before this device's instance unless the user set them, and meant for
    // a process whose first device this is (`webnn-run calibrate`).
    bool driverShaderCache = true;
  };
  static Options defaultOptions();
  static Status create(const Options &options, std::shared_ptr<Device> *out);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const VulkanFunctions &fn() const { return fn_; }
  VkDevice device() const { return device_; }
  const DeviceInfo &info() const { return info_; }
  bool forceStaging() const { return options_.forceStaging; }
  // Offsets of bindings are multiples of this (and of 64 bytes).
  uint64_t bindingAlignment() const;

  enum class Memory { kDeviceLocal, kHostVisible };
  // kDeviceLocal prefers memory that is also host-visible when the device
  // has it and staging is not forced (then `mapped` is set).
  Status createBuffer(uint64_t bytes, Memory memory, DeviceBuffer *out);
  void destroyBuffer(DeviceBuffer *buffer);
  void flush(const DeviceBuffer &buffer);       // host writes -> device
  void invalidate(const DeviceBuffer &buffer);  // device writes -> host

  // The pipeline of SPIR-V `code` (from Shaders.h) with these specialization
  // constants (ids 0..n-1, uint32 each); created once per key, kept for the
  // device's life. Thread-safe.
  Status pipeline(const uint32_t *code, size_t codeWords, const std::vector<uint32_t> &spec,
                  uint32_t numBindings, const Pipeline **out);
  // Pipelines created and pipeline-creation milliseconds so far.
  uint64_t pipelinesCreated() const { return pipelinesCreated_; }
  double pipelineMilliseconds() const { return pipelineMs_; }

  VkCommandPool commandPool() const { return commandPool_; }
  // Submits `cmd` and waits for it: the one submit and one wait of a run.
  // Past the deadline (setDeadline) the wait gives up with kCancelled; the
  // device cannot stop the submission, so the next submit (and the
  // destructor) first waits for it to finish.
  Status submitAndWait(VkCommandBuffer cmd);
  // Bounds every later submitAndWait's wait (webnn-run --device gpu
  // --timeout); the default, time_point::max(), waits as long as it takes.
  void setDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  // Validation messages since the last call (empty without validation).
  std::vector<std::string> takeValidationMessages();
  // Writes the pipeline cache (also done by the destructor).
  void savePipelineCache();
  std::string pipelineCachePath() const { return cachePath_; }

 private:
  Device() = default;
  Status init(const Options &options);
  static VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                           VkDebugUtilsMessageTypeFlagsEXT types,
                                                           const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                           void *user);

  Options options_;
  VulkanFunctions fn_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memoryProperties_{};
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t queueFamily_ = 0;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  bool submissionPending_ = false;  // a submit whose wait gave up at the deadline
  Status waitForFence();
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string cachePath_;
  DeviceInfo info_;

  std::mutex mutex_;  // pipelines_, layouts_, modules_
  // Apart from mutex_: the validation layer calls back from inside calls
  // made under it.
  std::mutex messageMutex_;
  std::map<std::vector<uint32_t>, std::unique_ptr<Pipeline>> pipelines_;  // key: code hash, bindings, spec
  std::map<uint32_t, std::pair<VkDescriptorSetLayout, VkPipelineLayout>> layouts_;  // per binding count
  std::map<const uint32_t *, VkShaderModule> modules_;
  std::vector<std::string> messages_;
  uint64_t pipelinesCreated_ = 0;
  double pipelineMs_ = 0;
};

}  // namespace webnn::vk

#endif
