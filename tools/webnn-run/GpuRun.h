// `webnn-run ARTIFACT --device gpu[:N] ...`: the whole graph as one Vulkan
// program (runtime/backends/vulkan/VulkanGraph.h): one command buffer
// recorded at session creation, one submit and one wait per run.
#ifndef WEBNN_TOOLS_WEBNN_RUN_GPURUN_H
#define WEBNN_TOOLS_WEBNN_RUN_GPURUN_H

#include <string>
#include <vector>

namespace webnnrun {

// The device named by --device/--device= in argv, or "" when absent.
std::string deviceArgument(int argc, char **argv);
// Runs with the same exit codes as webnn-run: 0, 1 (bad input or a GPU
// error, one "webnn-run: error:" line), 2 (usage); kRunOnExecutor, having
// printed nothing, for a graph with dynamic dimensions: the whole-graph
// program takes none, the executor's Vulkan backend runs it instead (a
// command buffer per shape signature, docs/GPU.md).
constexpr int kRunOnExecutor = -1;
int runGpu(int argc, char **argv);

// Batch mode (`webnn-run batch`, tools/common/BatchJobs.h): a run keeps its device for the next run asking for
// the same device and options instead of making its own; false releases it.
void keepGpuDevicesBetweenRuns(bool keep);
// Validation messages the kept device and the executor's Vulkan backend
// collected outside a run's checks (the teardown of the run that just
// ended), taken: a batch charges them to that run.
std::vector<std::string> takeValidationMessagesBetweenRuns();

}  // namespace webnnrun

#endif
