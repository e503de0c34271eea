// A GPU device profile: what `webnn-run calibrate --device gpu` measured on
// one Vulkan device, the input of the GPU cost model (GpuEstimate.h). JSON
// in the user's cache directory beside the CPU profiles, one file per
// (device name, vendor/device id, driver version, Vulkan version, library
// version). It also keeps the device limits the kernel factories plan with,
// so an estimate needs the profile alone, never the device.
#ifndef WEBNN_RUNTIME_ESTIMATE_GPUPROFILE_H
#define WEBNN_RUNTIME_ESTIMATE_GPUPROFILE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "estimate/DeviceProfile.h"
#include "webnn/status.h"

namespace webnn::est {

// The fields of vk::DeviceInfo the kernel factories and the key use.
struct GpuLimits {
  std::string name, type;
  uint32_t apiVersion = 0, vendorId = 0, deviceId = 0, driverVersion = 0;
  uint64_t maxStorageBufferRange = 0, minStorageBufferOffsetAlignment = 0;
  uint32_t maxSharedMemory = 0, maxWorkGroupInvocations = 0;
  uint32_t maxWorkGroupCount[3] = {0, 0, 0};
  uint32_t maxPushConstantsSize = 0, subgroupSize = 0;
  uint64_t deviceLocalBytes = 0;
  bool unifiedMemory = false, float64 = false;
  // Cooperative matrices (matmul_coopmat.comp for relaxed-precision
  // matmuls): the estimate plans them as the device would.
  bool coopmat = false;
};

// One probe calibration grew until the device was full (GpuLadder.h): its
// steps, why it stopped, the parameters of its most efficient step.
struct GpuProbe {
  std::string name, family, stop;
  int steps = 0;
  std::vector<double> bestParams;
  double seconds = 0;
};

struct GpuProfile {
  GpuLimits device;
  std::string libraryVersion;
  double dispatchUs = 0;    // one dispatch and its barrier in a recorded command buffer
  double submitUs = 0;      // one submit and wait of a recorded command buffer
  double transferGBs = 0;   // inputs into and outputs out of the arena (staging copies)
  double bandwidthGBs = 0;  // a storage-buffer copy dispatch, read + write
  double peakGflops = 0;    // the best float32 rate of the matmul / conv2d_gemm shaders
  double uploadGBs = 0;     // constants to the device at program creation
  double pipelineMs = 0;    // one pipeline created without a pipeline cache, mean
  std::map<std::string, double> shaderPipelineMs;  // per shader, where measured
  double runSpread = 0;     // log(p90 / p10) / 2.56 of repeated runs
  double calibrationSeconds = 0;
  bool complete = false;    // false: the deadline cut the grid short
  // Per kernel family: ratio = (dispatch time - dispatchUs) / roofline.
  std::map<std::string, FamilyGrid> families;
  std::vector<GpuProbe> probes;
};

// "<cache>/webnn/gpu-<hash of the key>.json".
std::string defaultGpuProfilePath(const GpuLimits &device);
// The key: device name, ids, driver and Vulkan versions, library version;
// for a device on the CPU (lavapipe) also $LP_NUM_THREADS.
std::string gpuProfileKey(const GpuLimits &device);

Status saveGpuProfile(const GpuProfile &p, const std::string &path);
// Checks the JSON's shape and values; the message names the file and field.
// A profile of format 1 (fixed, small probes that leave a large GPU mostly
// idle) is refused: calibrate again.
Status loadGpuProfile(const std::string &path, GpuProfile *out);
// Recomputes each family's leave-one-out logSigma.
void updateGpuSigmas(GpuProfile *p);

}  // namespace webnn::est

#endif
