// `webnn-run calibrate --device gpu[:N]`: the GPU profile for `webnnc
// estimate --device gpu` (runtime/estimate/GpuEstimate.h).
#include "Calibrate.h"
#include "Profile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "estimate/GpuEstimate.h"
#include "estimate/GpuProfile.h"

namespace webnnrun {

int runCalibrateGpu(const std::string &device, double deadline, const std::string &output, bool json, bool quiet) {
  namespace est = webnn::est;
  if (!est::isGpuDeviceName(device)) {
    std::fprintf(stderr, "webnn-run: error: --device '%s': expected cpu, gpu or gpu:N\n", device.c_str());
    return 2;
  }
  est::GpuCalibrateOptions options;
  options.device = device;
  options.deadlineSeconds = deadline;
  if (!quiet) options.progress = [](const std::string &line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  est::GpuProfile profile;
  if (webnn::Status s = est::calibrateGpu(options, &profile); !s) {
    std::fprintf(stderr, "webnn-run: error: GPU calibration failed: %s\n", s.message().c_str());
    return 1;
  }
  std::string path = output.empty() ? est::defaultGpuProfilePath(profile.device) : output;
  if (webnn::Status s = est::saveGpuProfile(profile, path); !s) {
    std::fprintf(stderr, "webnn-run: error: %s\n", s.message().c_str());
    return 1;
  }
  size_t points = 0;
  for (const auto &[name, g] : profile.families) points += g.points.size();
  if (json) {
    nlohmann::json j{{"profile", path},
                     {"device", profile.device.name},
                     {"seconds", profile.calibrationSeconds},
                     {"complete", profile.complete},
                     {"grid_points", points},
                     {"dispatch_us", profile.dispatchUs},
                     {"submit_us", profile.submitUs},
                     {"bandwidth_gbs", profile.bandwidthGBs},
                     {"peak_gflops", profile.peakGflops}};
    // How far each probe grew and why it stopped (GpuLadder.h).
    j["probes"] = nlohmann::json::array();
    for (const est::GpuProbe &r : profile.probes)
      j["probes"].push_back({{"name", r.name}, {"steps", r.steps}, {"stop", r.stop}, {"best_params", r.bestParams}});
    addBuildInfo(j);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s: %s, %zu grid point(s) in %.1f s%s\n", path.c_str(), profile.device.name.c_str(), points,
                profile.calibrationSeconds,
                profile.complete ? "" : " (stopped at the deadline; the grid is partial but usable)");
  }
  return 0;
}

}  // namespace webnnrun
