// The GPU cost model (`webnnc estimate --device gpu`): the dispatches the
// Vulkan backend's whole-graph program would record for each node (its own
// kernel factories, run on the device limits kept in the profile: no
// device is created), each priced by its shader family's cost function
// (backends/vulkan/VulkanCost.h) and the efficiency `webnn-run calibrate
// --device gpu` measured (GpuProfile.h). Same report as the CPU estimate.
// In a build without the Vulkan backend every entry point says so.
#ifndef WEBNN_RUNTIME_ESTIMATE_GPUESTIMATE_H
#define WEBNN_RUNTIME_ESTIMATE_GPUESTIMATE_H

#include <functional>
#include <string>
#include <vector>

#include "estimate/Estimate.h"
#include "estimate/GpuProfile.h"

namespace webnn::est {

// Whether the device names a GPU: "gpu" or "gpu:N" (N up to 4 digits).
bool isGpuDeviceName(const std::string &device);

// The default profile path of `device` ("gpu" or "gpu:N", chosen as
// `webnn-run --device` chooses; reads the Vulkan loader's device list, no
// device is created). Errors: no Vulkan device, no profile for it yet.
Status findDefaultGpuProfile(const std::string &device, std::string *path);

// Every node's dispatches priced on `graph` (weights may be unbound).
// Graphs the GPU program refuses (dynamic dimensions, control flow, a node
// without a GPU kernel or one its factory refuses) are refused the same way.
Status estimateGraphGpu(const rt::PreparedGraph &graph, const GpuProfile &profile, const EstimateOptions &options,
                        Estimate *out);
Status estimateArtifactGpu(const std::string &path, const GpuProfile &profile, const EstimateOptions &options,
                           Estimate *out);

struct GpuCalibrateOptions {
  std::string device = "gpu";   // "gpu" or "gpu:N"
  double deadlineSeconds = 30;  // wall time; the grid stops early to meet it
  std::function<void(const std::string &)> progress;
};
// Measures the device through the Vulkan backend's own kernels and programs.
// Stopping at the deadline still gives a usable profile (the overheads, the
// copy and matmul probes grown until the device is full first, then the
// fixed grid breadth first, then each family's probes grown a step per
// round).
Status calibrateGpu(const GpuCalibrateOptions &options, GpuProfile *out);
// The kernel families calibrateGpu's grid measures (from its cases' kernel
// plans; no device needed).
std::vector<std::string> gpuGridFamilies();
// The family whose grid a family without points borrows (null: none).
const char *gpuFallbackFamily(const std::string &family);

}  // namespace webnn::est

#endif
