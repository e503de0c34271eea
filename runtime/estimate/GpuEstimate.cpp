#include "estimate/GpuEstimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sys/stat.h>

#include "core/ArtifactLoader.h"
#include "core/Executor.h"
#include "core/MemoryPlanner.h"

#if defined(WEBNN_HAVE_VULKAN_BACKEND)
#include "backends/vulkan/ChainFusion.h"
#include "backends/vulkan/VulkanCost.h"
#include "backends/vulkan/VulkanDevice.h"
#include "backends/vulkan/VulkanKernel.h"
#include "estimate/GpuDeviceLimits.h"
#endif

namespace webnn::est {

bool isGpuDeviceName(const std::string &device) {
  if (device == "gpu") return true;
  if (device.rfind("gpu:", 0) != 0 || device.size() == 4 || device.size() > 8) return false;
  for (size_t i = 4; i < device.size(); ++i)
    if (device[i] < '0' || device[i] > '9') return false;
  return true;
}

#if !defined(WEBNN_HAVE_VULKAN_BACKEND)

namespace {
Status noBackend() { return unsupported("this build has no GPU (Vulkan) backend: estimate --device cpu only"); }
}  // namespace

Status findDefaultGpuProfile(const std::string &, std::string *) { return noBackend(); }
const char *gpuFallbackFamily(const std::string &) { return nullptr; }
Status estimateGraphGpu(const rt::PreparedGraph &, const GpuProfile &, const EstimateOptions &, Estimate *) {
  return noBackend();
}
Status estimateArtifactGpu(const std::string &, const GpuProfile &, const EstimateOptions &, Estimate *) {
  return noBackend();
}

#else

namespace {

// Where a family without grid points borrows its efficiency: the nearest
// kernel shape calibration measures.
const char *fallbackFamily(const std::string &f) {
  if (f == "where" || f == "rotary" || f == "resample") return "binary";
  if (f == "pad" || f == "gather" || f == "scatter" || f == "kvCache" || f == "binary") return "copy";
  if (f == "quantize" || f == "unary.transcendental") return "unary";
  if (f == "unary") return "binary";
  if (f == "cumsum" || f == "normalization") return "reduce";
  if (f == "softmax" || f == "rmsNorm") return "normalization";
  if (f == "quantizedMatmul" || f == "recurrent") return "matmulNBits";
  if (f == "matmulNBits" || f == "attention") return "matmul";
  if (f == "conv2d.gemm") return "matmul";
  if (f == "matmul") return "conv2d.gemm";
  if (f == "matmul.coopmat") return "matmul";
  if (f == "chain.transcendental") return "unary.transcendental";
  if (f == "chain") return "binary";
  if (f == "conv2d.direct") return "conv2d.depthwise";
  if (f == "conv2d.depthwise" || f == "pool") return "conv2d.direct";
  return nullptr;
}


struct Model {
  const GpuProfile &profile;
  std::set<std::string> borrowed;
  std::map<std::string, double> familyMs;

  const FamilyGrid *grid(const std::string &family) {
    std::string f = family;
    for (int hops = 0; hops < 4; ++hops) {
      auto it = profile.families.find(f);
      if (it != profile.families.end() && !it->second.points.empty()) {
        if (f != family) borrowed.insert(family + " (as " + f + ")");
        return &it->second;
      }
      const char *next = fallbackFamily(f);
      if (!next) break;
      f = next;
    }
    borrowed.insert(family + " (no calibrated family: the roofline alone)");
    return nullptr;
  }

  double roofline(double flops, double bytes) const {
    return std::max(flops / (profile.peakGflops * 1e6), bytes / (profile.bandwidthGBs * 1e6));
  }

  // dispatch + barrier, then ratio x roofline of its work.
  double price(const vk::DispatchWork &w, double *roof) {
    *roof = roofline(w.flops, w.bytes);
    const FamilyGrid *g = grid(w.family);
    double ratio = 1;
    if (g && g->points[0].params.size() == w.params.size()) ratio = interpolateRatio(*g, w.params);
    double ms = profile.dispatchUs * 1e-3 + ratio * *roof;
    familyMs[w.family] += ms;
    return ms;
  }
};

// The arena the whole-graph program lays out (VulkanProgram.cpp's rule over
// the program's node list: intermediates by lifetime, inputs from before the
// first node, outputs past the last; constants in a buffer of their own).
Status planBytes(const std::vector<vk::ProgramTensor> &tensors, const std::vector<vk::ProgramNode> &nodes,
                 uint64_t align, uint64_t *arena, uint64_t *constants, uint64_t *staging) {
  using Role = vk::ProgramTensor::Role;
  const size_t n = tensors.size();
  std::vector<int64_t> first(n, INT64_MAX), last(n, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int32_t t : nodes[i].outputs)
      if (t >= 0) first[size_t(t)] = std::min<int64_t>(first[size_t(t)], int64_t(i));
    for (int32_t t : nodes[i].inputs)
      if (t >= 0) last[size_t(t)] = std::max<int64_t>(last[size_t(t)], int64_t(i));
  }
  auto alignUp = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };
  uint64_t c = 0, s = 0;
  std::vector<rt::BufferRequest> requests;
  const int64_t count = int64_t(nodes.size());
  for (size_t t = 0; t < n; ++t) {
    uint64_t bytes = 0;
    if (!tensorByteSize(tensors[t].dtype, tensors[t].shape, &bytes)) return invalidArgument("a tensor is too large");
    if (tensors[t].role == Role::kConstant) {
      c = alignUp(c + bytes, align);
      continue;
    }
    // Fused away (neither written nor read by the program): no memory.
    if (tensors[t].role == Role::kIntermediate && first[t] == INT64_MAX && last[t] < 0) continue;
    rt::BufferRequest r;
    r.bytes = bytes;
    r.firstUse = tensors[t].role == Role::kInput ? -1 : std::min<int64_t>(first[t], count);
    r.lastUse = tensors[t].role == Role::kOutput ? count : std::max<int64_t>(last[t], r.firstUse);
    requests.push_back(r);
    if (tensors[t].role == Role::kInput || tensors[t].role == Role::kOutput) s = alignUp(s + bytes, align);
  }
  rt::ArenaPlan plan;
  WEBNN_RETURN_IF_ERROR(rt::planArena(requests, align, &plan));
  *arena = plan.arenaBytes + align;
  *constants = c + align;
  *staging = s + align;
  return Status::ok();
}

}  // namespace

vk::DeviceInfo deviceInfoOf(const GpuLimits &l) {
  vk::DeviceInfo d;
  d.name = l.name;
  d.type = l.type;
  d.apiVersion = l.apiVersion;
  d.vendorId = l.vendorId;
  d.deviceId = l.deviceId;
  d.driverVersion = l.driverVersion;
  d.maxStorageBufferRange = l.maxStorageBufferRange;
  d.minStorageBufferOffsetAlignment = l.minStorageBufferOffsetAlignment;
  d.maxSharedMemory = l.maxSharedMemory;
  d.maxWorkGroupInvocations = l.maxWorkGroupInvocations;
  for (int k = 0; k < 3; ++k) d.maxWorkGroupCount[k] = l.maxWorkGroupCount[k];
  d.maxPushConstantsSize = l.maxPushConstantsSize;
  d.subgroupSize = l.subgroupSize;
  d.deviceLocalBytes = l.deviceLocalBytes;
  d.unifiedMemory = l.unifiedMemory;
  d.float64 = l.float64;
  d.coopmat = l.coopmat;
  d.usable = true;
  return d;
}

GpuLimits limitsOf(const vk::DeviceInfo &d) {
  GpuLimits l;
  l.name = d.name;
  l.type = d.type;
  l.apiVersion = d.apiVersion;
  l.vendorId = d.vendorId;
  l.deviceId = d.deviceId;
  l.driverVersion = d.driverVersion;
  l.maxStorageBufferRange = d.maxStorageBufferRange;
  l.minStorageBufferOffsetAlignment = d.minStorageBufferOffsetAlignment;
  l.maxSharedMemory = d.maxSharedMemory;
  l.maxWorkGroupInvocations = d.maxWorkGroupInvocations;
  for (int k = 0; k < 3; ++k) l.maxWorkGroupCount[k] = d.maxWorkGroupCount[k];
  l.maxPushConstantsSize = d.maxPushConstantsSize;
  l.subgroupSize = d.subgroupSize;
  l.deviceLocalBytes = d.deviceLocalBytes;
  l.unifiedMemory = d.unifiedMemory;
  l.float64 = d.float64;
  l.coopmat = d.coopmat;
  return l;
}

const char *gpuFallbackFamily(const std::string &family) { return fallbackFamily(family); }

Status findDefaultGpuProfile(const std::string &device, std::string *path) {
  int index = -1;
  if (!vk::parseGpuDeviceName(device, &index)) return invalidArgument("--device '" + device + "': expected gpu or gpu:N");
  std::vector<vk::DeviceInfo> devices;
  if (Status s = vk::listDevices(&devices); !s)
    return Status(s.code(), s.message() + " (pass --profile FILE to estimate for a GPU this machine lacks)");
  int chosen = -1;
  if (index >= 0) {
    if (size_t(index) >= devices.size())
      return invalidArgument(device + " requested but there are " + std::to_string(devices.size()) +
                             " Vulkan device(s) (webnn-run --list-devices)");
    chosen = index;
  } else {
    for (size_t i = 0; i < devices.size() && chosen < 0; ++i)
      if (devices[i].usable && devices[i].type == "discrete") chosen = int(i);
    for (size_t i = 0; i < devices.size() && chosen < 0; ++i)
      if (devices[i].usable) chosen = int(i);
    if (chosen < 0) return unsupported("no Vulkan device can run webnn (webnn-run --list-devices)");
  }
  std::string p = defaultGpuProfilePath(limitsOf(devices[size_t(chosen)]));
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0)
    return Status(StatusCode::kIo, "no GPU profile for " + device + " (" + devices[size_t(chosen)].name + ") at " + p +
                                       ": run `webnn-run calibrate --device " + device + "` first, or pass --profile");
  *path = p;
  return Status::ok();
}

Status estimateGraphGpu(const rt::PreparedGraph &graph, const GpuProfile &profile, const EstimateOptions &options,
                        Estimate *out) {
  const rt::LoadedGraph &lg = graph.graph;
  if (!lg.dynamicDims.empty()) return unsupported("the GPU backend does not run graphs with dynamic dimensions yet");
  if (!lg.subgraphs.empty()) return unsupported("the GPU backend does not run control flow (if/loop) yet");
  if (!options.shapes.empty()) return invalidArgument("--shape: the graph's inputs are static on the GPU");
  // A tensor larger than the device's memory cannot be allocated by the
  // program; refused before any factory plans it (a kernel splitting a huge
  // tensor over binding-sized slices would plan one dispatch per slice).
  const uint64_t deviceBytes = profile.device.deviceLocalBytes ? profile.device.deviceLocalBytes : uint64_t(1) << 40;
  for (const rt::LoadedTensor &t : lg.tensors)
    if (t.byteSize > deviceBytes)
      return unsupported("tensor '" + t.name + "' (" + std::to_string(t.byteSize) +
                         " bytes) exceeds the GPU's largest device-local heap (" + std::to_string(deviceBytes) +
                         " bytes): the GPU program could not allocate it");
  const vk::DeviceInfo info = deviceInfoOf(profile.device);
  Model m{profile, {}, {}};
  Estimate e;
  e.threads = 1;
  e.profileThreads = 1;
  e.profileComplete = profile.complete;
  double total = 0;
  size_t dispatches = 0;
  // Pipelines are created once per (shader, specialization constants).
  std::set<std::pair<std::string, std::vector<uint32_t>>> pipelines;
  double pipelineMs = 0;
  // The program's node list as GraphProgram makes it: the graph's nodes,
  // elementwise chains fused into one node each.
  std::vector<vk::ProgramTensor> tensors(lg.tensors.size());
  for (size_t t = 0; t < lg.tensors.size(); ++t) {
    tensors[t].dtype = lg.tensors[t].dtype;
    tensors[t].shape = lg.tensors[t].shape;
    if (lg.tensors[t].role == rt::TensorRole::kConstant) tensors[t].role = vk::ProgramTensor::Role::kConstant;
  }
  for (uint32_t t : lg.inputs) tensors[t].role = vk::ProgramTensor::Role::kInput;
  for (uint32_t t : lg.outputs) tensors[t].role = vk::ProgramTensor::Role::kOutput;
  std::vector<vk::ProgramNode> nodes(lg.nodes.size());
  for (size_t i = 0; i < lg.nodes.size(); ++i) {
    nodes[i].desc = &graph.nodes[i];
    nodes[i].inputs = lg.nodes[i].inputs;
    nodes[i].outputs = lg.nodes[i].outputs;
  }
  vk::FusedChains fused;
  vk::fuseElementwiseChains(info, tensors, &nodes, &fused);
  if (fused.nodesFused)
    e.notes.push_back(std::to_string(fused.nodesFused) + " elementwise nodes fused into " +
                      std::to_string(fused.descs.size()) + " chain dispatch(es), as the GPU program runs them");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const rt::NodeDesc &d = *nodes[i].desc;
    vk::VulkanKernelFactory factory = vk::findVulkanKernel(d.op);
    if (!factory) return unsupported(d.op + " '" + d.name + "': no GPU kernel for this op");
    vk::KernelPlan plan;
    WEBNN_RETURN_IF_ERROR(factory(d, info, &plan));
    dispatches += plan.dispatches.size();
    NodeEstimate n;
    n.index = i;
    n.op = d.op;
    n.name = d.name;
    std::map<std::string, double> byFamily;
    std::vector<vk::DispatchWork> works;
    WEBNN_RETURN_IF_ERROR(vk::planWork(d, plan, &works));
    for (size_t k = 0; k < works.size(); ++k) {
      const vk::Dispatch &dispatch = plan.dispatches[k];
      const vk::DispatchWork &w = works[k];
      double roof = 0;
      double ms = m.price(w, &roof);
      n.ms += ms;
      n.flops += w.flops;
      n.bytes += w.bytes;
      n.rooflineMs += roof;
      byFamily[w.family] += ms;
      std::vector<uint32_t> key = dispatch.spec;
      key.push_back(dispatch.localSize);
      if (pipelines.insert({w.shader, key}).second) {
        auto it = profile.shaderPipelineMs.find(w.shader);
        pipelineMs += it != profile.shaderPipelineMs.end() ? it->second : profile.pipelineMs;
      }
    }
    // The family that takes most of the node's time names it.
    for (const auto &[f, ms] : byFamily)
      if (n.family.empty() || ms > byFamily[n.family]) n.family = f;
    if (plan.dispatches.empty()) n.family = "none";
    total += n.ms;
    e.flops += n.flops;
    e.nodes.push_back(std::move(n));
  }
  // A run: one submit and wait, the inputs into the arena and the outputs out.
  uint64_t ioBytes = 0, inputBytes = 0;
  for (uint32_t t : lg.inputs) inputBytes += lg.tensors[t].byteSize;
  ioBytes = inputBytes;
  for (uint32_t t : lg.outputs) ioBytes += lg.tensors[t].byteSize;
  double runMs = profile.submitUs * 1e-3 + double(ioBytes) / (profile.transferGBs * 1e6);
  total += runMs;
  e.notes.push_back(std::to_string(dispatches) + " dispatches of " + std::to_string(nodes.size()) +
                    " program nodes, each with its barrier, in one submit");
  if (options.threads != 1)
    e.notes.push_back("--threads does not apply to the GPU: the device's own parallelism is in its profile");
  if (!profile.complete) e.notes.push_back("the calibration stopped at its deadline before the grid was complete");
  for (const std::string &f : m.borrowed) e.notes.push_back("uncalibrated family " + f);
  double var = profile.runSpread * profile.runSpread;
  for (const auto &[family, ms] : m.familyMs) {
    auto it = profile.families.find(family);
    double sigma = it != profile.families.end() && !it->second.points.empty() ? it->second.logSigma : 0.35;
    double share = total > 0 ? ms / total : 0;
    var += share * share * sigma * sigma;
  }
  double sigma = std::max(0.03, std::sqrt(var));
  e.medianMs = total;
  e.p10Ms = total * std::exp(-1.2816 * sigma);
  e.p90Ms = total * std::exp(1.2816 * sigma);
  e.tier = tierOf(total);
  uint64_t align = std::max<uint64_t>(64, profile.device.minStorageBufferOffsetAlignment);
  uint64_t arena = 0, constants = 0, staging = 0;
  WEBNN_RETURN_IF_ERROR(planBytes(tensors, nodes, align, &arena, &constants, &staging));
  // Device memory: the arena, the constants and the host-visible staging
  // buffer for inputs and outputs (weightsBytes: the constant buffer).
  e.arenaBytes = arena;
  e.weightsBytes = constants;
  e.packedBytes = 0;
  e.peakBytes = arena + constants + staging;
  // Cold: every pipeline created without a pipeline cache, the constants
  // uploaded once, then a steady run.
  e.coldMs = total + pipelineMs + double(constants) / (profile.uploadGBs * 1e6);
  *out = std::move(e);
  return Status::ok();
}

Status estimateArtifactGpu(const std::string &path, const GpuProfile &profile, const EstimateOptions &options,
                           Estimate *out) {
  rt::LoaderOptions lo;
  lo.allowUnboundWeights = true;
  rt::LoadedGraph loaded;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, lo, &loaded));
  std::shared_ptr<rt::PreparedGraph> prepared;
  if (Status s = rt::prepareGraph(std::move(loaded), &prepared); !s) return Status(s.code(), path + ": " + s.message());
  if (Status s = estimateGraphGpu(*prepared, profile, options, out); !s)
    return Status(s.code(), path + ": " + s.message());
  return Status::ok();
}

#endif

}  // namespace webnn::est
