#include "estimate/GpuProfile.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "estimate/Estimate.h"
#include "estimate/ProfileJson.h"
#include "nlohmann/json.hpp"
#include "webnn/runtime.h"

namespace webnn::est {
namespace {

// 3: probes grown until the device is full (GpuLadder.h), `probes`. Not 2:
// that is the CPU profiles' format, and a GPU profile handed to the CPU
// loader stops at its format. 4: conv2d.gemm keyed by (outputs, work per
// output, channels).
constexpr int kGpuProfileFormat = 4;

}  // namespace

std::string gpuProfileKey(const GpuLimits &d) {
  std::string key = "gpu|" + d.name + "|" + std::to_string(d.vendorId) + ":" + std::to_string(d.deviceId) +
                    "|driver " + std::to_string(d.driverVersion) + "|vulkan " + std::to_string(d.apiVersion) + "|" +
                    version();
  // A Vulkan device on the CPU (lavapipe) runs at the thread count its
  // driver is given: a different device for the cost model.
  if (d.type == "cpu") {
    const char *lp = std::getenv("LP_NUM_THREADS");
    key += std::string("|LP_NUM_THREADS=") + (lp ? lp : "");
  }
  return key;
}

std::string defaultGpuProfilePath(const GpuLimits &device) {
  return profileCacheDirectory() + "/gpu-" + profileKeyHash(gpuProfileKey(device)) + ".json";
}

void updateGpuSigmas(GpuProfile *p) {
  // A point whose time is mostly the dispatch cost it is priced with says
  // little about its ratio (the difference of two near-equal times, floored
  // at 1e-3): it still prices nodes as small as itself (dispatch + ~0), but
  // is not counted in its family's leave-one-out error, where its tiny ratio
  // against its neighbours' would widen every interval of the family.
  const double mostlyDispatchMs = 1.5 * p->dispatchUs * 1e-3;
  for (auto &[name, g] : p->families) {
    double sum = 0;
    int n = 0;
    if (g.points.size() >= 2)
      for (size_t i = 0; i < g.points.size(); ++i) {
        if (g.points[i].ms > 0 && g.points[i].ms < mostlyDispatchMs) continue;
        const double e = std::log(interpolateRatio(g, g.points[i].params, long(i))) - std::log(g.points[i].ratio);
        sum += e * e;
        ++n;
      }
    g.logSigma = n ? std::sqrt(sum / n) : 0.5;
  }
}

Status saveGpuProfile(const GpuProfile &p, const std::string &path) {
  const GpuLimits &d = p.device;
  nlohmann::json j;
  j["format"] = kGpuProfileFormat;
  j["kind"] = "gpu";
  j["library_version"] = p.libraryVersion;
  j["device"] = {{"name", d.name},
                 {"type", d.type},
                 {"api_version", d.apiVersion},
                 {"vendor_id", d.vendorId},
                 {"device_id", d.deviceId},
                 {"driver_version", d.driverVersion},
                 {"max_storage_buffer_range", d.maxStorageBufferRange},
                 {"min_storage_buffer_offset_alignment", d.minStorageBufferOffsetAlignment},
                 {"max_shared_memory", d.maxSharedMemory},
                 {"max_workgroup_invocations", d.maxWorkGroupInvocations},
                 {"max_workgroup_count", {d.maxWorkGroupCount[0], d.maxWorkGroupCount[1], d.maxWorkGroupCount[2]}},
                 {"max_push_constants_size", d.maxPushConstantsSize},
                 {"subgroup_size", d.subgroupSize},
                 {"device_local_bytes", d.deviceLocalBytes},
                 {"unified_memory", d.unifiedMemory},
                 {"float64", d.float64},
                 {"coopmat", d.coopmat}};
  j["dispatch_us"] = p.dispatchUs;
  j["submit_us"] = p.submitUs;
  j["transfer_gbs"] = p.transferGBs;
  j["bandwidth_gbs"] = p.bandwidthGBs;
  j["peak_gflops"] = p.peakGflops;
  j["upload_gbs"] = p.uploadGBs;
  j["pipeline_ms"] = p.pipelineMs;
  j["shader_pipeline_ms"] = p.shaderPipelineMs;
  j["run_spread"] = p.runSpread;
  j["calibration_seconds"] = p.calibrationSeconds;
  j["complete"] = p.complete;
  j["families"] = nlohmann::json::object();
  for (const auto &[name, g] : p.families) {
    nlohmann::json pts = nlohmann::json::array();
    for (const GridPoint &gp : g.points) pts.push_back({{"params", gp.params}, {"ratio", gp.ratio}, {"ms", gp.ms}});
    j["families"][name] = {{"log_sigma", g.logSigma}, {"points", pts}};
  }
  j["probes"] = nlohmann::json::array();
  for (const GpuProbe &r : p.probes)
    j["probes"].push_back({{"name", r.name},
                           {"family", r.family},
                           {"steps", r.steps},
                           {"stop", r.stop},
                           {"best_params", r.bestParams},
                           {"seconds", r.seconds}});
  return writeProfileJson(j, path, "GPU profile");
}

Status loadGpuProfile(const std::string &path, GpuProfile *out) {
  nlohmann::json j;
  WEBNN_RETURN_IF_ERROR(readProfileJson(path, "GPU profile", &j));
  if (j.value("kind", std::string()) != "gpu")
    return invalidArgument(path + ": kind: not a GPU profile (a CPU profile? estimate --device cpu reads those)");
  ProfileReader r{path};
  const double format = r.num(j, "format", "");
  if (r.status && format == 1)
    return invalidArgument(path + ": format: 1, a calibration whose fixed, small probes leave a large GPU mostly "
                                  "idle (its prices are too high there); format " +
                           std::to_string(kGpuProfileFormat) +
                           " grows each probe until the device is full: run webnn-run calibrate --device gpu again");
  if (r.status && format == 3)
    return invalidArgument(path + ": format: 3, whose conv2d.gemm grid is keyed by output rows; format " +
                           std::to_string(kGpuProfileFormat) +
                           " keys it by outputs: run webnn-run calibrate --device gpu again");
  if (format != kGpuProfileFormat && r.status)
    return invalidArgument(path + ": format: expected " + std::to_string(kGpuProfileFormat) +
                           " (a profile of another version: run webnn-run calibrate --device gpu again)");
  GpuProfile p;
  p.libraryVersion = r.str(j, "library_version", "");
  if (!j.contains("device") || !j["device"].is_object()) return invalidArgument(path + ": device: missing or not an object");
  const nlohmann::json &dj = j["device"];
  GpuLimits &d = p.device;
  d.name = r.str(dj, "name", "device.");
  d.type = r.str(dj, "type", "device.");
  d.apiVersion = uint32_t(r.num(dj, "api_version", "device."));
  d.vendorId = uint32_t(r.num(dj, "vendor_id", "device."));
  d.deviceId = uint32_t(r.num(dj, "device_id", "device."));
  d.driverVersion = uint32_t(r.num(dj, "driver_version", "device."));
  d.maxStorageBufferRange = uint64_t(r.num(dj, "max_storage_buffer_range", "device."));
  d.minStorageBufferOffsetAlignment = uint64_t(r.num(dj, "min_storage_buffer_offset_alignment", "device."));
  d.maxSharedMemory = uint32_t(r.num(dj, "max_shared_memory", "device."));
  d.maxWorkGroupInvocations = uint32_t(r.num(dj, "max_workgroup_invocations", "device."));
  d.maxPushConstantsSize = uint32_t(r.num(dj, "max_push_constants_size", "device."));
  d.subgroupSize = uint32_t(r.num(dj, "subgroup_size", "device."));
  d.deviceLocalBytes = uint64_t(r.num(dj, "device_local_bytes", "device."));
  d.unifiedMemory = dj.value("unified_memory", false);
  d.float64 = dj.value("float64", false);
  d.coopmat = dj.value("coopmat", false);
  if (!r.status) return r.status;
  auto wc = dj.find("max_workgroup_count");
  if (wc == dj.end() || !wc->is_array() || wc->size() != 3)
    return invalidArgument(path + ": device.max_workgroup_count: expected 3 numbers");
  for (size_t k = 0; k < 3; ++k) {
    if (!(*wc)[k].is_number_unsigned()) return invalidArgument(path + ": device.max_workgroup_count: expected 3 numbers");
    d.maxWorkGroupCount[k] = (*wc)[k].get<uint32_t>();
  }
  p.dispatchUs = r.num(j, "dispatch_us", "");
  p.submitUs = r.num(j, "submit_us", "");
  p.transferGBs = r.num(j, "transfer_gbs", "");
  p.bandwidthGBs = r.num(j, "bandwidth_gbs", "");
  p.peakGflops = r.num(j, "peak_gflops", "");
  p.uploadGBs = r.num(j, "upload_gbs", "");
  p.pipelineMs = r.num(j, "pipeline_ms", "");
  p.runSpread = r.num(j, "run_spread", "", false);
  p.calibrationSeconds = r.num(j, "calibration_seconds", "");
  p.complete = j.value("complete", false);
  if (!r.status) return r.status;
  if (p.bandwidthGBs <= 0 || p.peakGflops <= 0 || p.transferGBs <= 0 || p.uploadGBs <= 0 ||
      d.maxStorageBufferRange == 0 || d.maxWorkGroupCount[0] == 0)
    return invalidArgument(path + ": bandwidth_gbs, peak_gflops, transfer_gbs, upload_gbs and the device limits "
                                  "must be > 0 (an unusable profile; calibrate again)");
  if (auto sp = j.find("shader_pipeline_ms"); sp != j.end() && sp->is_object())
    for (const auto &[name, v] : sp->items()) {
      if (!v.is_number() || !(v.get<double>() >= 0))
        return invalidArgument(path + ": shader_pipeline_ms." + name + ": must be a number >= 0");
      p.shaderPipelineMs[name] = v.get<double>();
    }
  if (!j.contains("families") || !j["families"].is_object())
    return invalidArgument(path + ": families: missing or not an object");
  for (const auto &[name, g] : j["families"].items()) {
    std::string fw = "families." + name;
    FamilyGrid grid;
    WEBNN_RETURN_IF_ERROR(readFamilyGrid(r, g, fw, &grid));
    p.families[name] = std::move(grid);
  }
  // What the probes did: reported, not needed to price.
  if (auto pr = j.find("probes"); pr != j.end()) {
    if (!pr->is_array()) return invalidArgument(path + ": probes: expected an array");
    for (size_t i = 0; i < pr->size(); ++i) {
      const nlohmann::json &e = (*pr)[i];
      const std::string where = "probes[" + std::to_string(i) + "].";
      if (!e.is_object()) return invalidArgument(path + ": " + where.substr(0, where.size() - 1) + ": expected an object");
      GpuProbe g;
      g.name = r.str(e, "name", where);
      g.family = e.value("family", std::string());
      g.stop = r.str(e, "stop", where);
      g.steps = int(r.num(e, "steps", where));
      g.seconds = r.num(e, "seconds", where, false);
      if (!r.status) return r.status;
      if (auto bp = e.find("best_params"); bp != e.end()) {
        if (!bp->is_array()) return invalidArgument(path + ": " + where + "best_params: expected numbers");
        for (const auto &v : *bp) {
          if (!v.is_number()) return invalidArgument(path + ": " + where + "best_params: expected numbers");
          g.bestParams.push_back(v.get<double>());
        }
      }
      p.probes.push_back(std::move(g));
    }
  }
  *out = std::move(p);
  return Status::ok();
}

}  // namespace webnn::est
