#include "estimate/DeviceProfile.h"
#include "estimate/ProfileJson.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "nlohmann/json.hpp"
#include "webnn/runtime.h"
#if WEBNN_HAVE_ONEDNN
#include "backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::est {
namespace {

#if WEBNN_HAVE_ONEDNN
// Calibration and the estimate both read a DeviceProfile: from here, both
// price a Winograd layer by the kernel oneDNN builds for it on this CPU.
[[maybe_unused]] const bool kWinogradTilesAsked = (cpu::onednn::installWinogradTilesQuery(), true);
#endif

// 2: attention's fourth parameter is the head size (was kvHeads), conv2d
// split into Winograd, im2col and direct families, piece_slowdown.
constexpr int kProfileFormat = 2;

std::string readCpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.erase(v.begin());
        return v;
      }
    }
  return "unknown";
}

std::string cacheDir() {
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/webnn";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/webnn";
  return "/tmp/webnn-cache";
}

// FNV-1a: a stable file name for the key, not a security measure.
std::string keyHash(const std::string &key) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Status mkdirs(const std::string &dir) {
  for (size_t p = 1; p <= dir.size(); ++p)
    if (p == dir.size() || dir[p] == '/') {
      std::string part = dir.substr(0, p);
      if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
        return Status(StatusCode::kIo, part + ": cannot create directory: " + std::strerror(errno));
    }
  return Status::ok();
}

nlohmann::json gridJson(const FamilyGrid &g) {
  nlohmann::json pts = nlohmann::json::array();
  for (const GridPoint &p : g.points) {
    nlohmann::json e{{"params", p.params}, {"ratio", p.ratio}, {"ms", p.ms}};
    if (p.warm) e["warm"] = true;
    if (p.hotRatio > 0) e["hot_ratio"] = p.hotRatio;
    if (p.coldRatio > 0) e["cold_ratio"] = p.coldRatio;
    if (p.bytes > 0) e["bytes"] = p.bytes;
    if (p.flops > 0) e["flops"] = p.flops;
    pts.push_back(std::move(e));
  }
  return {{"log_sigma", g.logSigma}, {"points", pts}};
}

}  // namespace

double ProfileReader::num(const nlohmann::json &j, const char *key, const std::string &where, bool required) {
  if (!status) return 0;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) {
    if (required) status = invalidArgument(file + ": " + where + key + ": missing or not a number");
    return 0;
  }
  double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) {
    status = invalidArgument(file + ": " + where + key + ": must be a finite number >= 0");
    return 0;
  }
  return v;
}

std::string ProfileReader::str(const nlohmann::json &j, const char *key, const std::string &where) {
  if (!status) return {};
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) {
    status = invalidArgument(file + ": " + where + key + ": missing or not a string");
    return {};
  }
  return it->get<std::string>();
}

Status readFamilyGrid(ProfileReader &r, const nlohmann::json &g, const std::string &fw, FamilyGrid *out) {
  const std::string &path = r.file;
  if (!g.is_object() || !g.contains("points") || !g["points"].is_array())
    return invalidArgument(path + ": " + fw + ": expected {log_sigma, points: [...]}");
  FamilyGrid grid;
  grid.logSigma = r.num(g, "log_sigma", fw + ".", false);
  for (size_t i = 0; i < g["points"].size(); ++i) {
    const nlohmann::json &pt = g["points"][i];
    std::string pw = fw + ".points[" + std::to_string(i) + "]";
    if (!pt.is_object() || !pt.contains("params") || !pt["params"].is_array() || pt["params"].empty() ||
        pt["params"].size() > 8)
      return invalidArgument(path + ": " + pw + ": expected params (1-8 numbers) and ratio");
    GridPoint gp;
    for (const auto &v : pt["params"]) {
      if (!v.is_number() || !(v.get<double>() >= 1) || !std::isfinite(v.get<double>()))
        return invalidArgument(path + ": " + pw + ".params: every entry must be a finite number >= 1");
      gp.params.push_back(v.get<double>());
    }
    gp.ratio = r.num(pt, "ratio", pw + ".");
    gp.ms = r.num(pt, "ms", pw + ".", false);
    gp.hotRatio = r.num(pt, "hot_ratio", pw + ".", false);
    gp.coldRatio = r.num(pt, "cold_ratio", pw + ".", false);
    gp.bytes = r.num(pt, "bytes", pw + ".", false);
    gp.flops = r.num(pt, "flops", pw + ".", false);
    gp.warm = pt.value("warm", false);
    if (!r.status) return r.status;
    if (gp.ratio <= 0) return invalidArgument(path + ": " + pw + ".ratio: must be > 0");
    if (!grid.points.empty() && grid.points[0].params.size() != gp.params.size())
      return invalidArgument(path + ": " + pw + ".params: not as many as the family's other points");
    grid.points.push_back(std::move(gp));
  }
  *out = std::move(grid);
  return Status::ok();
}

Status readProfileJson(const std::string &path, const std::string &what, nlohmann::json *out) {
  std::ifstream in(path);
  if (!in) return Status(StatusCode::kIo, path + ": cannot open the " + what + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  *out = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded() || !out->is_object()) return invalidArgument(path + ": not a JSON object (" + what + ")");
  return Status::ok();
}

Status writeProfileJson(const nlohmann::json &j, const std::string &path, const std::string &what) {
  size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) WEBNN_RETURN_IF_ERROR(mkdirs(path.substr(0, slash)));
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << j.dump(1) << "\n";
    if (!out) return Status(StatusCode::kIo, tmp + ": cannot write the " + what);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(StatusCode::kIo, path + ": cannot write the " + what + ": " + std::strerror(errno));
  }
  return Status::ok();
}

const ThreadProfile *DeviceProfile::forThreads(int n) const {
  const ThreadProfile *best = nullptr;
  for (const ThreadProfile &t : threads)
    if (t.threads <= n && (!best || t.threads > best->threads)) best = &t;
  return best;
}

DeviceProfile describeThisDevice(int threads) {
  DeviceProfile p;
  p.cpuModel = readCpuModel();
  p.isa = cpuInfo().isa;
  p.libraryVersion = version();
  p.maxThreads = threads < 1 ? 1 : threads;
  return p;
}

std::string defaultProfilePath(int threads) {
  DeviceProfile p = describeThisDevice(threads);
  std::string key = p.cpuModel + "|" + p.isa + "|" + std::to_string(p.maxThreads) + "|" + p.libraryVersion;
  return cacheDir() + "/device-" + keyHash(key) + ".json";
}

Status findDefaultProfile(int threads, std::string *path) {
  for (int t = threads < 1 ? 1 : threads; t <= 1024; t = t < 64 ? t + 1 : t * 2) {
    std::string p = defaultProfilePath(t);
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) {
      *path = p;
      return Status::ok();
    }
  }
  return Status(StatusCode::kIo, "no device profile for " + std::to_string(threads) +
                                           " thread(s) in " + cacheDir() +
                                           " (run `webnn-run calibrate --threads N` first, or pass --profile)");
}

Status saveProfile(const DeviceProfile &p, const std::string &path) {
  nlohmann::json j;
  j["format"] = kProfileFormat;
  j["cpu_model"] = p.cpuModel;
  j["isa"] = p.isa;
  j["library_version"] = p.libraryVersion;
  j["max_threads"] = p.maxThreads;
  j["cache_bytes"] = {{"l1", p.l1Bytes}, {"l2", p.l2Bytes}, {"l3", p.l3Bytes}, {"l3_reported", p.l3ReportedBytes}};
  j["first_touch_gbs"] = p.firstTouchGBs;
  j["jit_ms"] = p.jitMs;
  j["calibration_seconds"] = p.calibrationSeconds;
  j["complete"] = p.complete;
  if (p.calibrations > 1) j["calibrations"] = p.calibrations;
  for (const ThreadProfile &t : p.threads) {
    nlohmann::json e{{"threads", t.threads},       {"peak_gflops", t.peakGflops},   {"vnni_gops", t.vnniGops},
                     {"bf16_gflops", t.bf16Gflops}, {"l1_gbs", t.l1GBs},           {"l2_gbs", t.l2GBs},
                     {"l3_gbs", t.l3GBs},           {"dram_gbs", t.dramGBs}, {"dram_read_gbs", t.dramReadGBs},       {"fork_join_us", t.forkJoinUs},
                     {"node_overhead_us", t.nodeOverheadUs}, {"run_overhead_us", t.runOverheadUs}, {"run_spread", t.runSpread},
                     {"piece_slowdown", t.pieceSlowdown}, {"graph_node_us", t.graphNodeUs},
                     {"graph_chain_nodes", t.graphChainNodes}, {"graph_cold_factor", t.graphColdFactor}};
    if (t.speedReferenceMs > 0) e["speed_reference_ms"] = t.speedReferenceMs;
    e["families"] = nlohmann::json::object();
    for (const auto &[name, g] : t.families) e["families"][name] = gridJson(g);
    j["threads"].push_back(std::move(e));
  }
  return writeProfileJson(j, path, "device profile");
}

Status loadProfile(const std::string &path, DeviceProfile *out) {
  nlohmann::json j;
  WEBNN_RETURN_IF_ERROR(readProfileJson(path, "device profile", &j));
  ProfileReader r{path};
  if (r.num(j, "format", "") != kProfileFormat && r.status)
    return invalidArgument(path + ": format: expected " + std::to_string(kProfileFormat) +
                           " (a profile of another version: run webnn-run calibrate again)");
  DeviceProfile p;
  p.cpuModel = r.str(j, "cpu_model");
  p.isa = r.str(j, "isa");
  p.libraryVersion = r.str(j, "library_version");
  p.maxThreads = int(r.num(j, "max_threads", ""));
  if (!j.contains("cache_bytes") || !j["cache_bytes"].is_object())
    return invalidArgument(path + ": cache_bytes: missing or not an object");
  p.l1Bytes = uint64_t(r.num(j["cache_bytes"], "l1", "cache_bytes."));
  p.l2Bytes = uint64_t(r.num(j["cache_bytes"], "l2", "cache_bytes."));
  p.l3Bytes = uint64_t(r.num(j["cache_bytes"], "l3", "cache_bytes."));
  p.l3ReportedBytes = j["cache_bytes"].value("l3_reported", uint64_t(0));
  p.firstTouchGBs = r.num(j, "first_touch_gbs", "");
  p.jitMs = r.num(j, "jit_ms", "");
  p.calibrationSeconds = r.num(j, "calibration_seconds", "");
  p.complete = j.value("complete", false);
  p.calibrations = int(r.num(j, "calibrations", "", false));
  if (p.calibrations < 1) p.calibrations = 1;
  if (!r.status) return r.status;
  if (!j.contains("threads") || !j["threads"].is_array() || j["threads"].empty())
    return invalidArgument(path + ": threads: missing or empty (an unusable profile; calibrate again)");
  for (size_t k = 0; k < j["threads"].size(); ++k) {
    const nlohmann::json &e = j["threads"][k];
    std::string w = "threads[" + std::to_string(k) + "]";
    if (!e.is_object()) return invalidArgument(path + ": " + w + ": not an object");
    ThreadProfile t;
    t.threads = int(r.num(e, "threads", w + "."));
    t.peakGflops = r.num(e, "peak_gflops", w + ".");
    t.vnniGops = r.num(e, "vnni_gops", w + ".", false);
    t.bf16Gflops = r.num(e, "bf16_gflops", w + ".", false);
    t.l1GBs = r.num(e, "l1_gbs", w + ".");
    t.l2GBs = r.num(e, "l2_gbs", w + ".");
    t.l3GBs = r.num(e, "l3_gbs", w + ".");
    t.dramGBs = r.num(e, "dram_gbs", w + ".");
    t.dramReadGBs = r.num(e, "dram_read_gbs", w + ".", false);
    t.forkJoinUs = r.num(e, "fork_join_us", w + ".");
    t.nodeOverheadUs = r.num(e, "node_overhead_us", w + ".");
    t.runOverheadUs = r.num(e, "run_overhead_us", w + ".", false);  // absent from older profiles
    t.runSpread = r.num(e, "run_spread", w + ".", false);
    // Profiles written before pieces were priced: a piece runs as fast as alone.
    if (e.contains("piece_slowdown")) t.pieceSlowdown = r.num(e, "piece_slowdown", w + ".");
    if (e.contains("graph_node_us")) {
      if (!e["graph_node_us"].is_number() || !(std::fabs(e["graph_node_us"].get<double>()) <= 1e6))
        return invalidArgument(path + ": " + w + ".graph_node_us: expected a number of microseconds within +-1e6");
      t.graphNodeUs = e["graph_node_us"].get<double>();
    }
    t.graphChainNodes = int(r.num(e, "graph_chain_nodes", w + ".", false));
    t.speedReferenceMs = r.num(e, "speed_reference_ms", w + ".", false);
    if (e.contains("graph_cold_factor")) t.graphColdFactor = r.num(e, "graph_cold_factor", w + ".");
    if (!r.status) return r.status;
    if (!(t.graphColdFactor > 0 && t.graphColdFactor <= 100))
      return invalidArgument(path + ": " + w + ".graph_cold_factor: must be > 0 and <= 100");
    if (t.threads < 1 || t.peakGflops <= 0 || t.dramGBs <= 0 || t.l2GBs <= 0 || t.l3GBs <= 0)
      return invalidArgument(path + ": " + w + ": threads, peak_gflops and bandwidths must be > 0");
    if (e.contains("families")) {
      if (!e["families"].is_object()) return invalidArgument(path + ": " + w + ".families: not an object");
      for (const auto &[name, g] : e["families"].items()) {
        std::string fw = w + ".families." + name;
        FamilyGrid grid;
        WEBNN_RETURN_IF_ERROR(readFamilyGrid(r, g, fw, &grid));
        t.families[name] = std::move(grid);
      }
    }
    p.threads.push_back(std::move(t));
  }
  *out = std::move(p);
  return Status::ok();
}

}  // namespace webnn::est

namespace webnn::est {

std::string profileCacheDirectory() { return cacheDir(); }
std::string profileKeyHash(const std::string &key) { return keyHash(key); }

}  // namespace webnn::est
