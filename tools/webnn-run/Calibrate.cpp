// `webnn-run calibrate`: writes the device profile the cost model reads
// (runtime/estimate/Calibrate.h), folds real runs into it (--add), or
// merges calibrations taken at different times (--merge). A calibration
// into the default profile keeps the newest few beside it and writes their
// median: one 30-second calibration catches the host in one moment, and on
// a shared VM the score of the same held-out timings moved 10-30 points
// from one calibration to the next, less for their merge (docs/ESTIMATE.md).
#include "Calibrate.h"
#include "Profile.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "estimate/Calibrate.h"
#include "estimate/DeviceProfile.h"

namespace webnnrun {
namespace {

// One error line for a failed step; true when it failed.
bool failed(const webnn::Status &s, const char *what = nullptr) {
  if (s) return false;
  std::fprintf(stderr, "webnn-run: error: %s%s\n", what ? what : "", s.message().c_str());
  return true;
}

size_t gridPoints(const webnn::est::DeviceProfile &profile) {
  size_t points = 0;
  for (const auto &t : profile.threads)
    for (const auto &[name, g] : t.families) points += g.points.size();
  return points;
}

// Saves `latest` as the newest calibration in `dir` (created), drops all but
// the newest `keep`, and sets *merged to the median of those kept (or to
// `latest` alone where fewer than two load). A kept file that no longer
// loads is skipped with a warning: the new calibration still stands.
bool mergeWithHistory(const webnn::est::DeviceProfile &latest, const std::string &dir, int keep, bool quiet,
                      webnn::est::DeviceProfile *merged, int *count) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "webnn-run: error: %s: cannot create the calibrations' folder: %s\n", dir.c_str(),
                 ec.message().c_str());
    return false;
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  char name[32];
  std::snprintf(name, sizeof name, "%016lld.json", static_cast<long long>(ms));
  const std::string latestPath = (fs::path(dir) / name).string();
  if (failed(webnn::est::saveProfile(latest, latestPath))) return false;
  std::vector<std::string> files;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());  // zero-padded times: oldest first
  while (files.size() > size_t(keep)) {
    fs::remove(files.front(), ec);
    files.erase(files.begin());
  }
  std::vector<webnn::est::DeviceProfile> profiles;
  std::vector<std::string> names;
  for (const std::string &f : files) {
    webnn::est::DeviceProfile p;
    if (f == latestPath) {
      p = latest;  // just written: not read back
    } else if (webnn::Status s = webnn::est::loadProfile(f, &p); !s) {
      if (!quiet)
        std::fprintf(stderr, "webnn-run: warning: skipping an earlier calibration: %s\n", s.message().c_str());
      continue;
    }
    profiles.push_back(std::move(p));
    names.push_back(f);
  }
  *count = 1;
  *merged = latest;
  if (profiles.size() < 2) return true;
  webnn::est::DeviceProfile m;
  webnn::Status s = webnn::est::mergeProfiles(profiles, names, &m, false);
  if (!s) {
    if (!quiet) std::fprintf(stderr, "webnn-run: warning: this calibration alone: %s\n", s.message().c_str());
    return true;
  }
  *merged = std::move(m);
  *count = int(profiles.size());
  return true;
}

}  // namespace

int runCalibrate(int argc, char **argv) {
  CLI::App app{"Measure this device for `webnnc estimate` (at most --deadline seconds), or fold "
               "`webnn-run --bench N --profile --json` results into its profile (--add)."};
  int threads = int(std::thread::hardware_concurrency());
  if (threads < 1) threads = 1;
  double deadline = 30;
  std::string output;
  std::vector<std::string> add, merge;
  bool json = false, quiet = false, restateSpeed = false;
  int history = 0;
  std::string device = "cpu";
  app.add_option("--threads", threads, "Measure 1 .. N threads (default: this machine's cores)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--deadline", deadline, "Wall-time limit in seconds (default and at most 30)")
      ->check(CLI::Range(1.0, 30.0));
  app.add_option("-o,--output", output, "Profile file (default: the user's cache directory, keyed by CPU, "
                                        "ISA, thread count and library version)");
  app.add_option("--add", add, "Fold a webnn-run --profile --json result into the existing profile (repeatable)");
  app.add_option("--merge", merge,
                 "Write the median of these profiles (calibrations of this CPU and thread count taken at "
                 "different times) to -o, instead of calibrating")
      ->expected(1, -1);
  app.add_option("--history", history,
                 "Keep the newest N calibrations (this one included) in PROFILE.calibrations/ and write their "
                 "median as the profile (default: 5 for the default profile, 1 (this one alone) with -o)")
      ->check(CLI::Range(1, 100));
  app.add_flag("--restate-speed", restateSpeed,
               "With --merge: scale each calibration's times to the median of their speed references first");
  app.add_option("--device", device, "cpu (default), or gpu / gpu:N: a Vulkan device's profile (its kernels' grid)");
  app.add_flag("--json", json, "Print the profile's path and summary as one JSON object");
  app.add_flag("-q,--quiet", quiet, "No progress lines on stderr");
  app.set_version_flag("--version", "webnn-run " WEBNN_VERSION_STRING);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (restateSpeed && merge.empty()) {
    std::fprintf(stderr, "webnn-run: error: --restate-speed goes with --merge\n");
    return 2;
  }
  if (!merge.empty() && !add.empty()) {
    std::fprintf(stderr, "webnn-run: error: --merge and --add are separate steps (merge first, then --add)\n");
    return 2;
  }
  if (device != "cpu") {
    if (!add.empty() || !merge.empty()) {
      std::fprintf(stderr, "webnn-run: error: --add and --merge take CPU profiles only\n");
      return 2;
    }
    return runCalibrateGpu(device, deadline, output, json, quiet);
  }
  std::string path = output.empty() ? webnn::est::defaultProfilePath(threads) : output;
  webnn::est::DeviceProfile profile;
  if (!merge.empty()) {
    if (output.empty()) {
      std::fprintf(stderr, "webnn-run: error: --merge needs -o: the merged profile's file\n");
      return 2;
    }
    std::vector<webnn::est::DeviceProfile> profiles(merge.size());
    for (size_t i = 0; i < merge.size(); ++i)
      if (failed(webnn::est::loadProfile(merge[i], &profiles[i]))) return 1;
    if (failed(webnn::est::mergeProfiles(profiles, merge, &profile, restateSpeed))) return 1;
    if (failed(webnn::est::saveProfile(profile, output))) return 1;
    size_t points = gridPoints(profile);
    if (json) {
      nlohmann::json j{{"profile", output}, {"calibrations", profile.calibrations}, {"grid_points", points}};
      addBuildInfo(j);
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s: the median of %d calibration(s), %zu grid point(s)\n", output.c_str(), profile.calibrations,
                  points);
    }
    return 0;
  }
  if (!add.empty()) {
    if (failed(webnn::est::loadProfile(path, &profile))) return 1;
    int total = 0;
    for (const std::string &a : add) {
      int n = 0;
      if (failed(webnn::est::addRunResult(a, &profile, &n))) return 1;
      if (!quiet) std::fprintf(stderr, "%s: %d node measurement(s) added\n", a.c_str(), n);
      total += n;
    }
    if (failed(webnn::est::saveProfile(profile, path))) return 1;
    if (json) {
      nlohmann::json j{{"profile", path}, {"added_points", total}};
      addBuildInfo(j);
      std::printf("%s\n", j.dump(2).c_str());
    } else
      std::printf("%s: %d point(s) added\n", path.c_str(), total);
    return 0;
  }
  webnn::est::CalibrateOptions options;
  options.maxThreads = threads;
  options.deadlineSeconds = deadline;
  if (!quiet) options.progress = [](const std::string &line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  if (failed(webnn::est::calibrate(options, &profile), "calibration failed: ")) return 1;
  const int keep = history > 0 ? history : (output.empty() ? 5 : 1);
  webnn::est::DeviceProfile written = profile;
  int calibrations = 1;
  if (keep > 1 && !mergeWithHistory(profile, path + ".calibrations", keep, quiet, &written, &calibrations)) return 1;
  if (failed(webnn::est::saveProfile(written, path))) return 1;
  size_t points = gridPoints(profile);
  if (json) {
    nlohmann::json j{{"profile", path},          {"cpu_model", profile.cpuModel},
                     {"max_threads", profile.maxThreads}, {"seconds", profile.calibrationSeconds},
                     {"complete", profile.complete}, {"grid_points", points},
                     {"calibrations", calibrations}};
    addBuildInfo(j);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s: %zu grid point(s) in %.1f s%s%s\n", path.c_str(), points, profile.calibrationSeconds,
                profile.complete ? "" : " (stopped at the deadline; the grid is partial but usable)",
                calibrations > 1 ? ("; the median of the last " + std::to_string(calibrations) + " calibrations")
                                       .c_str()
                                 : "");
  }
  return 0;
}

}  // namespace webnnrun
