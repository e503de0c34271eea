// webnnc estimate: predicted latency, memory and DAOP tier of an artifact on
// this device, from its graph alone (a weightless artifact is enough) and
// the device profile `webnn-run calibrate` wrote (runtime/estimate/).
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "CLI/CLI.hpp"
#include "Commands.h"
#include "estimate/Estimate.h"
#include "estimate/GpuEstimate.h"
#include "nlohmann/json.hpp"

namespace webnnc {

void registerEstimateCommand(CLI::App &app, EstimateFlags &flags) {
  CLI::App *cmd = app.add_subcommand("estimate", "Predict an artifact's latency and performance tier on this device");
  cmd->add_option("artifact", flags.artifact, "The .wnn artifact (weightless is enough)")->required();
  cmd->add_option("--threads", flags.threads, "Threads the session would run with")->check(CLI::Range(1, 1024));
  cmd->add_option("--device", flags.device,
                  "cpu (default), or gpu / gpu:N: the Vulkan backend's plan, priced with the profile of "
                  "`webnn-run calibrate --device gpu`");
  cmd->add_option("--shape", flags.shapes, "An input's shape for this estimate (dynamic inputs): NAME=1x128");
  cmd->add_option("--profile", flags.profile,
                  "Device profile (default: this machine's, from `webnn-run calibrate`)");
  cmd->add_option("--requirement", flags.requirement,
                  "Answer whether the graph meets a tier (judged from the p90 latency): "
                  "excellent|good|fair|moderate|slow|very-slow|poor");
  cmd->add_flag("--tier-only", flags.tierOnly, "Print the tier alone (with --requirement: meets / does-not-meet)");
  cmd->add_flag("--detail", flags.detail, "Each planned node's predicted time");
  cmd->add_flag("--json", flags.json, "Print one JSON object");
}

namespace {

// "NAME=1x128" or "NAME=1,128".
bool parseShape(const std::string &spec, std::string *name, webnn::Shape *shape, std::string *why) {
  size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    *why = "expected NAME=DIMS such as x=1x3x224x224";
    return false;
  }
  *name = spec.substr(0, eq);
  std::string dims = spec.substr(eq + 1);
  for (char &c : dims)
    if (c == ',') c = 'x';
  std::stringstream ss(dims);
  std::string part;
  while (std::getline(ss, part, 'x')) {
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end || errno || v < 0 || v > (1ll << 40)) {
      *why = "dimension '" + part + "' is not an integer in [0, 2^40]";
      return false;
    }
    shape->push_back(v);
  }
  return true;
}

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / 1048576.0);
  return buf;
}

}  // namespace

int runEstimate(const EstimateFlags &flags) {
  namespace est = webnn::est;
  auto t0 = std::chrono::steady_clock::now();
  est::EstimateOptions options;
  options.threads = flags.threads;
  for (const std::string &s : flags.shapes) {
    std::string name, why;
    webnn::Shape shape;
    if (!parseShape(s, &name, &shape, &why)) {
      std::fprintf(stderr, "webnnc: error: --shape '%s': %s\n", s.c_str(), why.c_str());
      return 2;
    }
    options.shapes.emplace_back(name, shape);
  }
  est::Tier requirement = est::Tier::kPoor;
  if (!flags.requirement.empty() && !est::parseTier(flags.requirement, &requirement)) {
    std::fprintf(stderr,
                 "webnnc: error: --requirement '%s': not a tier (excellent, good, fair, moderate, slow, very-slow, "
                 "poor)\n",
                 flags.requirement.c_str());
    return 2;
  }
  const bool gpu = flags.device != "cpu";
  if (gpu && !est::isGpuDeviceName(flags.device)) {
    std::fprintf(stderr, "webnnc: error: --device '%s': expected cpu, gpu or gpu:N\n", flags.device.c_str());
    return 2;
  }
  std::string profilePath = flags.profile;
  if (profilePath.empty())
    if (webnn::Status s = gpu ? est::findDefaultGpuProfile(flags.device, &profilePath)
                              : est::findDefaultProfile(flags.threads, &profilePath);
        !s) {
      std::fprintf(stderr, "webnnc: error: %s\n", s.message().c_str());
      return 1;
    }
  est::DeviceProfile profile;
  est::GpuProfile gpuProfile;
  if (webnn::Status s = gpu ? est::loadGpuProfile(profilePath, &gpuProfile) : est::loadProfile(profilePath, &profile);
      !s) {
    std::fprintf(stderr, "webnnc: error: %s\n", s.message().c_str());
    return 1;
  }
  const std::string deviceName = gpu ? gpuProfile.device.name : profile.cpuModel;
  est::Estimate e;
  if (webnn::Status s = gpu ? est::estimateArtifactGpu(flags.artifact, gpuProfile, options, &e)
                            : est::estimateArtifact(flags.artifact, profile, options, &e);
      !s) {
    std::fprintf(stderr, "webnnc: error: %s\n", s.message().c_str());
    return 1;
  }
  double tookMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  bool meets = !flags.requirement.empty() && est::meetsRequirement(e, requirement);
  if (flags.json) {
    nlohmann::json j;
    j["artifact"] = flags.artifact;
    j["profile"] = profilePath;
    if (gpu) {
      j["device"] = flags.device;
      j["gpu"] = deviceName;
    } else {
      j["cpu_model"] = profile.cpuModel;
    }
    j["threads"] = e.threads;
    j["profile_threads"] = e.profileThreads;
    j["latency_ms"] = {{"median", e.medianMs}, {"p10", e.p10Ms}, {"p90", e.p90Ms}};
    j["cold_ms"] = e.coldMs;
    j["peak_bytes"] = e.peakBytes;
    j["memory_bytes"] = {{"arena", e.arenaBytes}, {"weights", e.weightsBytes}, {"packed", e.packedBytes}};
    j["gflop"] = e.flops / 1e9;
    j["tier"] = est::tierName(e.tier);
    if (!flags.requirement.empty()) {
      j["requirement"] = flags.requirement;
      j["meets_requirement"] = meets;
    }
    j["notes"] = e.notes;
    j["estimate_ms"] = tookMs;
    if (flags.detail) {
      j["nodes"] = nlohmann::json::array();
      for (const est::NodeEstimate &n : e.nodes)
        j["nodes"].push_back({{"index", n.index}, {"op", n.op}, {"name", n.name}, {"family", n.family},
                              {"flops", n.flops}, {"bytes", n.bytes}, {"roofline_ms", n.rooflineMs}, {"ms", n.ms}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (flags.tierOnly) {
    std::printf("%s\n", flags.requirement.empty() ? est::tierName(e.tier) : meets ? "meets" : "does-not-meet");
    return 0;
  }
  if (gpu)
    std::printf("estimate  %s, %s, on %s\n", flags.artifact.c_str(), flags.device.c_str(), deviceName.c_str());
  else
    std::printf("estimate  %s, %d thread(s), on %s\n", flags.artifact.c_str(), e.threads, deviceName.c_str());
  std::printf("latency   %.3g ms median (p10 %.3g ms, p90 %.3g ms), %.3g GFLOP\n", e.medianMs, e.p10Ms, e.p90Ms,
              e.flops / 1e9);
  if (gpu) {
    std::printf("cold      %.3g ms first run (pipelines created without a cache, constants uploaded)\n", e.coldMs);
    std::printf("memory    %s peak device memory (arena %s, constants %s, staging %s)\n", mib(e.peakBytes).c_str(),
                mib(e.arenaBytes).c_str(), mib(e.weightsBytes).c_str(),
                mib(e.peakBytes - e.arenaBytes - e.weightsBytes).c_str());
  } else {
    std::printf("cold      %.3g ms first run (first touch of weights and arena, JIT, packing)\n", e.coldMs);
    std::printf("memory    %s peak (arena %s, weights %s, packed copies %s)\n", mib(e.peakBytes).c_str(),
                mib(e.arenaBytes).c_str(), mib(e.weightsBytes).c_str(), mib(e.packedBytes).c_str());
  }
  std::printf("tier      %s\n", est::tierName(e.tier));
  if (!flags.requirement.empty())
    std::printf("requires  %s: %s (p90 %.3g ms)\n", flags.requirement.c_str(), meets ? "meets" : "does not meet",
                e.p90Ms);
  for (const std::string &n : e.notes) std::printf("note      %s\n", n.c_str());
  if (flags.detail) {
    std::printf("nodes\n");
    for (const est::NodeEstimate &n : e.nodes)
      std::printf("  %4zu %-22s %-18s %10.4f ms  (roofline %.4f ms)  %s\n", n.index, n.op.c_str(), n.family.c_str(),
                  n.ms, n.rooflineMs, n.name.c_str());
  }
  std::printf("profile   %s (estimate took %.1f ms)\n", profilePath.c_str(), tookMs);
  return 0;
}

}  // namespace webnnc
