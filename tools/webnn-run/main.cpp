// webnn-run: run a compiled .wnn artifact on .npy inputs (docs/RUNTIME.md).
//
// Exit codes: 0 success, 1 bad input (artifact, weights, .npy, names, shapes,
// I/O), 2 usage error, 3 the runs passed --timeout. Every failure is one line on stderr starting with
// "webnn-run: error:"; no output file is left half-written.
#include "BatchJobs.h"
#include "Bindings.h"
#include "Compare.h"
#include "Devices.h"
#include "Limits.h"
#include "LimitFlags.h"
#include "GpuRun.h"
#if WEBNN_HAVE_VULKAN_BACKEND
#include "backends/vulkan/VulkanBackend.h"
#endif
#include "Calibrate.h"
#include "Generate.h"
#include "Profile.h"
#include <CLI/CLI.hpp>
#include "ThreadWait.h"
#include "Watchdog.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cstdlib>
#include <unistd.h>

#include "webnn/npy.h"
#include "webnn/runtime.h"
#include "webnn/version.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A failure to report: message plus exit code.
struct Failure {
  int exitCode;
  std::string message;
};

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

using webnnrun::fileNameFor;
using webnnrun::splitBinding;

// The dtype a tensor has in a .npy file: int4/uint4 travel unpacked, and
// bfloat16 (which numpy lacks) as float32, exactly widened.
webnn::DataType npyType(webnn::DataType t) {
  if (t == webnn::DataType::kInt4) return webnn::DataType::kInt8;
  if (t == webnn::DataType::kUint4) return webnn::DataType::kUint8;
  if (t == webnn::DataType::kBfloat16) return webnn::DataType::kFloat32;
  return t;
}

// `count` elements of type `t` as their .npy bytes: `data` itself, or
// unpacked/widened into `buf`.
const uint8_t *toNpy(webnn::DataType t, const uint8_t *data, int64_t count, std::vector<uint8_t> *buf) {
  if (npyType(t) == t) return data;
  uint64_t bytes = 0;
  webnn::tensorByteSize(npyType(t), {count}, &bytes);
  buf->resize(bytes);
  if (t == webnn::DataType::kBfloat16)
    webnn::convertElements(t, data, webnn::DataType::kFloat32, buf->data(), count);
  else
    webnn::npy::unpackInt4(t, data, count, buf->data());
  return buf->data();
}

// An input's .npy bytes (already checked to be npyType(t)) as `t`: int4
// packed, float32 rounded to bfloat16.
webnn::Status fromNpy(webnn::DataType t, std::vector<uint8_t> *data, const webnn::Shape &shape) {
  if (npyType(t) == t) return webnn::Status::ok();
  uint64_t bytes = 0;
  int64_t count = 0;
  webnn::tensorByteSize(t, shape, &bytes);
  webnn::elementCount(shape, &count);
  std::vector<uint8_t> out(bytes);
  if (t == webnn::DataType::kBfloat16) {
    webnn::convertElements(webnn::DataType::kFloat32, data->data(), t, out.data(), count);
  } else {
    WEBNN_RETURN_IF_ERROR(webnn::npy::packInt4(t, data->data(), count, out.data()));
  }
  *data = std::move(out);
  return webnn::Status::ok();
}

std::string describe(webnn::DataType t, const webnn::Shape &s) {
  return std::string(webnn::dataTypeName(t)) + " " + webnn::shapeToString(s);
}


float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);
  else if (exp != 0) bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0) bits = sign;
  else {
    float f = std::ldexp(float(man), -24);
    return sign ? -f : f;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// The first `limit` values of an output as text, for the summary.
std::string firstValues(webnn::DataType t, const uint8_t *data, int64_t count, int64_t limit) {
  std::ostringstream os;
  os.precision(6);
  int64_t n = std::min(count, limit);
  std::vector<uint8_t> buf;
  data = toNpy(t, data, n, &buf);
  t = npyType(t);
  for (int64_t i = 0; i < n; ++i) {
    if (i) os << ", ";
    switch (t) {
      case webnn::DataType::kFloat32: { float v; std::memcpy(&v, data + 4 * i, 4); os << v; break; }
      case webnn::DataType::kFloat16: { uint16_t v; std::memcpy(&v, data + 2 * i, 2); os << halfToFloat(v); break; }
      case webnn::DataType::kInt32: { int32_t v; std::memcpy(&v, data + 4 * i, 4); os << v; break; }
      case webnn::DataType::kUint32: { uint32_t v; std::memcpy(&v, data + 4 * i, 4); os << v; break; }
      case webnn::DataType::kInt64: { int64_t v; std::memcpy(&v, data + 8 * i, 8); os << v; break; }
      case webnn::DataType::kUint64: { uint64_t v; std::memcpy(&v, data + 8 * i, 8); os << v; break; }
      case webnn::DataType::kInt8: os << int(int8_t(data[i])); break;
      case webnn::DataType::kUint8: os << int(data[i]); break;
      case webnn::DataType::kBool: os << (data[i] ? "true" : "false"); break;
      case webnn::DataType::kFloat64: { double v; std::memcpy(&v, data + 8 * i, 8); os << v; break; }
      case webnn::DataType::kInt16: { int16_t v; std::memcpy(&v, data + 2 * i, 2); os << v; break; }
      case webnn::DataType::kUint16: { uint16_t v; std::memcpy(&v, data + 2 * i, 2); os << v; break; }
      case webnn::DataType::kInt4:
      case webnn::DataType::kUint4:
      case webnn::DataType::kBfloat16: break;  // converted by toNpy above
    }
  }
  if (count > n) os << ", ...";
  return os.str();
}

struct Options {
  std::string artifact;
  std::string weights;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> expected;
  double rtol = 1e-4;
  double atol = 1e-6;
  std::string outputDir;
  int threads = 1;
  int bench = 0;
  bool paced = false;
  webnn::ThreadWait wait = webnn::ThreadWait::kDefault;
  int warmup = 1;
  double timeout = 0;  // seconds for all the runs together; 0 = none
  bool json = false;
  bool printPlan = false;
  bool verifyWeights = false;
  bool profile = false;
  std::string device;  // SessionOptions::device: empty keeps the artifact's placement
  bool verbose = false;
  webnn::Limits limits;
};

// --verbose: the runtime's info messages (what was loaded, the session, each
// node that runs elsewhere than its placement asked and why) on stderr.
void printLog(webnn::LogLevel level, const char *message, void *) {
  const char *kind = level == webnn::LogLevel::kError ? "error" : level == webnn::LogLevel::kWarning ? "warning" : "info";
  std::fprintf(stderr, "webnn-run: %s: %s\n", kind, message);
}


// The executor's Vulkan backend's process totals (VulkanBackend.h); all
// zero in a build without it.
struct GpuCounters {
  bool deviceCreated = false;
  uint64_t submits = 0, copySubmits = 0, recordings = 0, dispatchesRecorded = 0;
  double recordMs = 0, pipelineMs = 0;
  uint64_t constantBytes = 0, fp16WeightBytes = 0, fp16Nodes = 0, relaxedFloat32Nodes = 0;
  std::string relaxedFloat32Note;
  uint64_t coopmatNodes = 0;
};
GpuCounters gpuCounters() {
  GpuCounters g;
#if WEBNN_HAVE_VULKAN_BACKEND
  webnn::vk::BackendCounters c = webnn::vk::backendCounters();
  g = {c.deviceCreated, c.submits,         c.copySubmits,     c.recordings, c.dispatchesRecorded, c.recordMs,
       c.pipelineMs,    c.constantBytes,   c.fp16WeightBytes, c.fp16Nodes,  c.relaxedFloat32Nodes,
       c.relaxedFloat32Note, c.coopmatNodes};
#endif
  return g;
}

// One .npy file to produce: staged as a temporary file, renamed at the end.
struct PendingFile {
  size_t output;
  std::string path;
  std::string tmp;
};

void removeTemps(const std::vector<PendingFile> &files) {
  for (const auto &f : files)
    if (!f.tmp.empty()) std::remove(f.tmp.c_str());
}

// Writes every output to a temporary file beside its destination, then
// renames them all: a failure leaves no new or half-written .npy behind.
void writeOutputs(const webnn::Session &session, std::vector<PendingFile> &files) {
  const auto &outs = session.outputs();
  for (auto &f : files) {
    const webnn::TensorInfo &info = outs[f.output];
    const webnn::Shape &shape = session.outputShape(f.output);
    std::vector<uint8_t> buf;
    int64_t count = 0;
    webnn::elementCount(shape, &count);
    const uint8_t *data = toNpy(info.dtype, static_cast<const uint8_t *>(session.outputData(f.output)), count, &buf);
    uint64_t bytes = 0;
    webnn::tensorByteSize(npyType(info.dtype), shape, &bytes);
    fs::path dest(f.path);
    fs::path dir = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
    std::string tmp = (dir / ("." + dest.filename().string() + ".tmp-XXXXXX")).string();
    int fd = mkstemp(tmp.data());
    if (fd < 0) {
      removeTemps(files);
      throw Failure{1, "cannot create '" + f.path + "': " + std::strerror(errno)};
    }
    ::close(fd);
    f.tmp = tmp;
    webnn::Status s = webnn::npy::write(tmp, npyType(info.dtype), shape, data, bytes);
    if (!s.isOk()) {
      removeTemps(files);
      throw Failure{1, "cannot write '" + f.path + "': " + s.message()};
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(files[i].tmp.c_str(), files[i].path.c_str()) != 0) {
      std::string err = std::strerror(errno);
      std::vector<PendingFile> rest(files.begin() + i, files.end());
      removeTemps(rest);
      throw Failure{1, "cannot write '" + files[i].path + "': " + err};
    }
  }
}

// --paced: the largest run count one stdin line may ask for.
constexpr long kMaxPacedRuns = 1000000;

// One --paced request line: a run count in [1, kMaxPacedRuns], surrounding
// spaces (and a "\r" from a CRLF writer) allowed. False for anything else.
bool parsePacedLine(const std::string &line, long *runs) {
  size_t b = line.find_first_not_of(" \t\r");
  size_t e = line.find_last_not_of(" \t\r");
  if (b == std::string::npos) return false;
  std::string digits = line.substr(b, e - b + 1);
  if (digits.size() > 7 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  *runs = std::stol(digits);
  return *runs >= 1 && *runs <= kMaxPacedRuns;
}

int run(const Options &opt) {
  // Bindings are parsed before loading anything: a typo is a usage error.
  std::vector<std::pair<std::string, std::string>> inputFiles, outputFiles;
  for (const auto &b : opt.inputs) {
    std::string name, file;
    if (!splitBinding(b, &name, &file)) throw Failure{2, "--input expects NAME=FILE.npy, got '" + b + "'"};
    inputFiles.emplace_back(name, file);
  }
  for (const auto &b : opt.outputs) {
    std::string name, file;
    if (!splitBinding(b, &name, &file)) throw Failure{2, "--output expects NAME=FILE.npy, got '" + b + "'"};
    outputFiles.emplace_back(name, file);
  }

  std::vector<std::pair<std::string, std::string>> expectedFiles;
  for (const auto &b : opt.expected) {
    std::string name, file;
    if (!splitBinding(b, &name, &file))
      throw Failure{2, "--expected expects NAME=FILE.npy, got '" + b + "'"};
    expectedFiles.emplace_back(name, file);
  }

  auto t0 = Clock::now();
  std::unique_ptr<webnn::Model> model;
  webnn::LoadOptions lo;
  lo.weightsPath = opt.weights;
  lo.verifyEmbeddedWeights = opt.verifyWeights;
  webnn::Status s = webnn::Model::load(opt.artifact, lo, &model);
  if (!s.isOk()) throw Failure{1, s.message()};
  double loadMs = msSince(t0);

  // A relaxed artifact on a CPU without bf16 runs in float32: say so once,
  // so a user expecting the speed-up learns why it is missing.
  std::string whyFloat32;
  std::string dotPrecision = model->dotProductPrecision(&whyFloat32);
  if (model->relaxedPrecision() && dotPrecision != "bf16")
    std::cerr << "webnn-run: note: " << opt.artifact << " was compiled with --precision relaxed, but "
              << whyFloat32 << ": its dot products run in float32\n";
  if (opt.printPlan)
    (opt.json ? std::cerr : std::cout) << "precision " << (model->relaxedPrecision() ? "relaxed" : "exact")
                                       << ": conv2d/matmul/gemm dot products in " << dotPrecision
                                       << (dotPrecision == "bf16" ? " with float32 accumulation" : "") << "\n"
                                       << model->planText();
  if (opt.printPlan && opt.inputs.empty() && !model->inputs().empty()) return 0;

  // Inputs: every model input exactly once, dtype and shape as compiled.
  const auto &ins = model->inputs();
  std::vector<webnn::npy::Array> arrays(ins.size());
  std::vector<bool> given(ins.size(), false);
  for (const auto &[name, file] : inputFiles) {
    int i = model->findInput(name);
    if (i < 0) throw Failure{1, "model has no input '" + name + "' (inputs: " + webnn::tensorNameList(ins) + ")"};
    if (given[i]) throw Failure{1, "input '" + name + "' given twice"};
    given[i] = true;
    s = webnn::npy::read(file, &arrays[i]);
    if (!s.isOk()) throw Failure{1, s.message()};
    const webnn::TensorInfo &info = ins[i];
    // A bool input also takes a uint8 array (what older webnn-run asked
    // for); the session maps its nonzero bytes to 1 either way.
    bool uint8ForBool = info.dtype == webnn::DataType::kBool && arrays[i].dtype == webnn::DataType::kUint8;
    if ((arrays[i].dtype != npyType(info.dtype) && !uint8ForBool) || !info.fits(arrays[i].shape)) {
      std::string want = info.describe();
      if (npyType(info.dtype) != info.dtype)
        want += " (as " + std::string(webnn::dataTypeName(npyType(info.dtype))) + " .npy)";
      if (info.dtype == webnn::DataType::kBool) want += " (bool or uint8 .npy)";
      throw Failure{1, "input '" + name + "': expected " + want + ", got " +
                           describe(arrays[i].dtype, arrays[i].shape) + " from " + file};
    }
    s = fromNpy(info.dtype, &arrays[i].data, arrays[i].shape);
    if (!s.isOk()) throw Failure{1, "input '" + name + "' from " + file + ": " + s.message()};
  }
  for (size_t i = 0; i < ins.size(); ++i)
    if (!given[i])
      throw Failure{1, "input '" + ins[i].name + "' not given (use --input " + ins[i].name + "=FILE.npy)"};

  // Output destinations, all checked before running.
  const auto &outs = model->outputs();
  std::vector<PendingFile> files;
  std::map<std::string, std::string> claimed;  // path -> output name
  auto claim = [&](size_t output, const std::string &path) {
    auto [it, inserted] = claimed.emplace(path, outs[output].name);
    if (!inserted)
      throw Failure{1, "outputs '" + it->second + "' and '" + outs[output].name + "' would both be written to " + path};
    files.push_back({output, path, ""});
  };
  for (const auto &[name, file] : outputFiles) {
    int i = model->findOutput(name);
    if (i < 0) throw Failure{1, "model has no output '" + name + "' (outputs: " + webnn::tensorNameList(outs) + ")"};
    claim(static_cast<size_t>(i), file);
  }
  if (!opt.outputDir.empty()) {
    std::error_code ec;
    fs::create_directories(opt.outputDir, ec);
    if (ec || !fs::is_directory(opt.outputDir))
      throw Failure{1, "cannot create output directory '" + opt.outputDir + "'" + (ec ? ": " + ec.message() : "")};
    for (size_t i = 0; i < outs.size(); ++i) claim(i, (fs::path(opt.outputDir) / fileNameFor(outs[i].name)).string());
  }

  // Reference arrays for --expected, read before running.
  std::vector<std::pair<size_t, webnn::npy::Array>> references;
  for (const auto &[name, file] : expectedFiles) {
    int i = model->findOutput(name);
    if (i < 0) throw Failure{1, "model has no output '" + name + "' (outputs: " + webnn::tensorNameList(outs) + ")"};
    webnn::npy::Array want;
    s = webnn::npy::read(file, &want);
    if (!s.isOk()) throw Failure{1, s.message()};
    references.emplace_back(static_cast<size_t>(i), std::move(want));
  }

  t0 = Clock::now();
  std::unique_ptr<webnn::Session> session;
  webnn::SessionOptions so;
  so.threads = opt.threads;
  so.threadWait = opt.wait;
  so.device = opt.device;
  // gpu:N (a dynamic graph from --device gpu:N): the Vulkan backend's device N.
  if (opt.device.rfind("gpu:", 0) == 0) {
    so.device = "gpu";
    setenv("WEBNN_VULKAN_DEVICE", opt.device.c_str() + 4, 1);
  }
  so.limits = opt.limits;
  GpuCounters gpuBeforeSession = gpuCounters();  // pipelines are made at session creation
  s = webnn::Session::create(*model, so, &session);
  if (!s.isOk()) throw Failure{1, s.message()};
  double sessionMs = msSince(t0);
  for (size_t i = 0; i < ins.size(); ++i) {
    s = ins[i].isDynamic() ? session->setInput(i, arrays[i].data.data(), arrays[i].data.size(), arrays[i].shape)
                           : session->setInput(i, arrays[i].data.data(), arrays[i].data.size());
    if (!s.isOk()) throw Failure{1, s.message()};
  }

  webnnrun::Watchdog watchdog(session.get(), opt.timeout);
  auto runFailed = [&](const webnn::Status &st) {
    bool timedOut = st.code() == webnn::StatusCode::kCancelled && watchdog.fired();
    return Failure{timedOut ? webnnrun::kTimedOutExitCode : 1, watchdog.message(st)};
  };
  if (opt.profile && opt.bench == 0) session->enableProfiling(true);
  GpuCounters gpuAtStart = gpuCounters(), gpuBeforeTimed;
  t0 = Clock::now();
  s = session->run();
  if (!s.isOk()) throw runFailed(s);
  double firstRunMs = msSince(t0);
  // A relaxed artifact whose GPU-placed dot products keep float32 weights
  // (their kernels are made by now, a dynamic graph's at its first run):
  // say so once, as for --device gpu and the CPU's bf16.
  if (GpuCounters made = gpuCounters(); made.relaxedFloat32Nodes > gpuBeforeSession.relaxedFloat32Nodes)
    std::cerr << "webnn-run: note: " << opt.artifact << " was compiled with --precision relaxed, but "
              << made.relaxedFloat32Nodes - gpuBeforeSession.relaxedFloat32Nodes
              << " of its dot products on the GPU keep float32 weights (first: " << made.relaxedFloat32Note << ")\n";
  gpuBeforeTimed = gpuCounters();

  // The session's facts, for the --paced header and the --json report.
  auto sessionFacts = [&] {
    nlohmann::json j;
    webnnrun::addBuildInfo(j);
    j["artifact"] = opt.artifact;
    j["threads"] = session->threads();
    j["thread_wait"] = webnnrun::waitName(session->threadWait());
    j["precision"] = model->relaxedPrecision() ? "relaxed" : "exact";
    j["dot_products"] = dotPrecision;
    j["arena_bytes"] = session->arenaBytes();
    j["load_ms"] = loadMs;
    j["session_ms"] = sessionMs;
    j["first_run_ms"] = firstRunMs;
    return j;
  };
  auto warmUp = [&] {
    for (int i = 0; i < opt.warmup; ++i) {
      s = session->run();
      if (!s.isOk()) throw runFailed(s);
    }
  };
  auto timedRun = [&](std::vector<double> &into) {
    t0 = Clock::now();
    s = session->run();
    into.push_back(msSince(t0));
    if (!s.isOk()) throw runFailed(s);
  };

  std::vector<double> latencies;
  if (opt.paced) {
    // Driven over a pipe (bench/run.py --paced): the process stays loaded
    // and warm while another runtime runs its bursts in between, so both
    // are timed in the same seconds rather than in processes minutes apart.
    warmUp();
    nlohmann::json ready = sessionFacts();
    ready["paced"] = true;
    ready["warmup"] = opt.warmup;
    std::cout << ready.dump() << std::endl;
    std::string line;
    for (long lineNo = 1; std::getline(std::cin, line); ++lineNo) {
      long runs = 0;
      if (!parsePacedLine(line, &runs))
        throw Failure{1, "--paced: stdin line " + std::to_string(lineNo) + ": expected a run count in [1, " +
                             std::to_string(kMaxPacedRuns) + "], got '" + line.substr(0, 40) + "'"};
      std::vector<double> burst;
      burst.reserve(runs);
      for (long i = 0; i < runs; ++i) timedRun(burst);
      std::cout << nlohmann::json{{"runs", burst}}.dump() << std::endl;
    }
    writeOutputs(*session, files);
    return 0;
  }
  if (opt.bench > 0) {
    warmUp();
    if (opt.profile) session->enableProfiling(true);  // the timed runs only
    gpuBeforeTimed = gpuCounters();
    for (int i = 0; i < opt.bench; ++i) timedRun(latencies);
  } else {
    latencies.push_back(firstRunMs);
  }

  writeOutputs(*session, files);

  // --expected: every check is reported; any mismatch fails the run.
  nlohmann::json checks = nlohmann::json::array();
  std::string firstMismatch;
  for (const auto &[index, want] : references) {
    const webnn::TensorInfo &info = outs[index];
    const webnn::Shape &shape = session->outputShape(index);
    std::vector<uint8_t> buf;
    int64_t count = 0;
    webnn::elementCount(shape, &count);
    const uint8_t *data = toNpy(info.dtype, static_cast<const uint8_t *>(session->outputData(index)), count, &buf);
    webnnrun::Comparison c = webnnrun::compareOutput(info.dtype, shape, data, want, opt.rtol, opt.atol);
    const std::string &file = expectedFiles[checks.size()].second;
    checks.push_back({{"output", info.name}, {"expected", file}, {"ok", c.ok},
                      {"max_abs_error", c.maxAbsError}, {"max_rel_error", c.maxRelError},
                      {"mismatches", c.mismatches}});
    if (!c.ok && firstMismatch.empty())
      firstMismatch = "output '" + info.name + "' does not match " + file + ": " + c.problem;
    if (!opt.json)
      std::printf("%s: %s %s (max abs error %.3g, max rel error %.3g)\n", info.name.c_str(),
                  c.ok ? "matches" : "DIFFERS from", file.c_str(), c.maxAbsError, c.maxRelError);
  }

  std::vector<double> sorted = latencies;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double mean = 0;
  for (double v : sorted) mean += v;
  mean /= n;

  if (opt.json) {
    nlohmann::json j = sessionFacts();
    j["graph"] = model->name();
    j["nodes"] = model->numNodes();
    j["iterations"] = opt.bench > 0 ? opt.bench : 1;
    j["warmup"] = opt.bench > 0 ? opt.warmup : 0;
    j["latency_ms"] = {{"median", median}, {"min", sorted.front()}, {"mean", mean}, {"max", sorted.back()},
                       {"p90", sorted[std::min(n - 1, static_cast<size_t>(std::ceil(0.9 * n)) - 1)]},
                       {"runs", latencies}};
    nlohmann::json outputs = nlohmann::json::array();
    for (size_t i = 0; i < outs.size(); ++i)
      outputs.push_back({{"name", outs[i].name},
                         {"dtype", std::string(webnn::dataTypeName(outs[i].dtype))},
                         {"shape", session->outputShape(i)}});
    j["outputs"] = outputs;
    if (!references.empty()) j["checks"] = checks;
    if (opt.profile) j["profile"] = webnnrun::profileJson(*session);
    // Nodes placed on the GPU (the executor's Vulkan backend): its queue
    // submissions per run over the timed runs (the first run's without
    // --bench) and the command recording this session did.
    GpuCounters gpuEnd = gpuCounters();
    if (gpuEnd.deviceCreated) {
      uint64_t runs = opt.bench > 0 ? uint64_t(opt.bench) : 1;
      GpuCounters from = opt.bench > 0 ? gpuBeforeTimed : gpuAtStart, to = opt.bench > 0 ? gpuEnd : gpuBeforeTimed;
      j["gpu"] = {{"submits_per_run", double(to.submits - from.submits) / double(runs)},
                  {"copy_submits_per_run", double(to.copySubmits - from.copySubmits) / double(runs)},
                  {"record_ms", gpuEnd.recordMs - gpuBeforeSession.recordMs},
                  {"pipeline_ms", gpuEnd.pipelineMs - gpuBeforeSession.pipelineMs},
                  {"command_buffers_recorded", gpuEnd.recordings - gpuBeforeSession.recordings},
                  {"dispatches_recorded", gpuEnd.dispatchesRecorded - gpuBeforeSession.dispatchesRecorded},
                  {"constant_bytes", gpuEnd.constantBytes - gpuBeforeSession.constantBytes},
                  {"fp16_nodes", gpuEnd.fp16Nodes - gpuBeforeSession.fp16Nodes},
                  {"fp16_weight_bytes", gpuEnd.fp16WeightBytes - gpuBeforeSession.fp16WeightBytes},
                  {"relaxed_float32_nodes", gpuEnd.relaxedFloat32Nodes - gpuBeforeSession.relaxedFloat32Nodes},
                  {"coopmat_nodes", gpuEnd.coopmatNodes - gpuBeforeSession.coopmatNodes}};
    }
    std::cout << j.dump() << "\n";
    if (!firstMismatch.empty()) throw Failure{1, firstMismatch};
    return 0;
  }
  if (opt.bench > 0) {
    std::printf("load %.4g ms, session %.4g ms, first run %.4g ms\n", loadMs, sessionMs, firstRunMs);
    std::printf("%d runs on %d thread(s): median %.4g ms, min %.4g, mean %.4g, max %.4g; arena %llu bytes\n",
                opt.bench, session->threads(), median, sorted.front(), mean, sorted.back(),
                static_cast<unsigned long long>(session->arenaBytes()));
  }
  if (opt.profile) webnnrun::printProfile(webnnrun::profileJson(*session));
  if (!firstMismatch.empty()) throw Failure{1, firstMismatch};
  if (opt.outputs.empty() && opt.outputDir.empty() && references.empty()) {
    for (size_t i = 0; i < outs.size(); ++i) {
      int64_t count = 0;
      webnn::elementCount(session->outputShape(i), &count);
      std::cout << outs[i].name << ": " << describe(outs[i].dtype, session->outputShape(i)) << " = ["
                << firstValues(outs[i].dtype, static_cast<const uint8_t *>(session->outputData(i)), count, 8)
                << "]\n";
    }
  }
  return 0;
}

// One artifact's run (the command line without a subcommand).
int runCommandLine(int argc, char **argv);

// `webnn-run batch`: one artifact's run per stdin line (tools/common/BatchJobs.h),
// each with --json. The jobs share the process's Vulkan devices: the
// executor's is process-wide already, and --device gpu runs keep theirs.
int runBatch(int argc, char **argv) {
  webnntools::BatchTool tool;
  tool.name = "webnn-run";
  tool.refuse = [](const std::vector<std::string> &args) -> std::string {
    const std::string &a = args.front();
    if (a == "batch" || a == "generate" || a == "calibrate" || a == "limits" || a == "--list-devices")
      return "'" + a + "' is not run in a batch: a job is one artifact's run";
    return "";
  };
  tool.always = {"--json"};
  tool.run = runCommandLine;
  tool.afterJob = []() -> std::string {
    std::vector<std::string> late = webnnrun::takeValidationMessagesBetweenRuns();
    return late.empty() ? "" : "Vulkan validation after the run: " + late.front();
  };
  webnnrun::keepGpuDevicesBetweenRuns(true);
  int code = webnntools::runBatchJobs(tool, argc, argv);
  webnnrun::keepGpuDevicesBetweenRuns(false);
  return code;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "generate") == 0) return webnnrun::runGenerate(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "--list-devices") == 0) return webnnrun::runListDevices();
  if (argc > 1 && std::strcmp(argv[1], "limits") == 0) return webnnrun::runLimits(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "calibrate") == 0) return webnnrun::runCalibrate(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "batch") == 0) return runBatch(argc - 1, argv + 1);
  return runCommandLine(argc, argv);
}

namespace {

int runCommandLine(int argc, char **argv) {
  // --device gpu[:N]: the whole graph as one Vulkan program (GpuRun.cpp),
  // except a graph with dynamic dimensions, which continues below with
  // every node placed on the GPU; "cpu" (the default) continues below.
  std::string device = webnnrun::deviceArgument(argc, argv);
  if (!device.empty() && device != "cpu") {
    int rc = webnnrun::runGpu(argc, argv);
    if (rc != webnnrun::kRunOnExecutor) return rc;
  }
  Options opt;
  CLI::App app{"Run a compiled WebNN artifact (.wnn) on CPU with .npy inputs.\n"
               "  webnn-run generate ARTIFACT --prompt-ids 1,2,3 --max-new-tokens N: greedy LLM decoding\n"
               "  webnn-run calibrate [--threads N] [--device gpu[:N]]: measure this device for webnnc estimate\n"
               "  webnn-run batch < JOBS: one run per stdin line (a JSON array of these arguments), one JSON "
               "answer line each\n"
               "  webnn-run limits [DEVICE] [--json]: each backend's op support limits"};
  app.set_version_flag("--version", "webnn-run " WEBNN_VERSION_STRING);
  app.add_option("artifact", opt.artifact, "Compiled artifact (.wnn)")->required();
  app.add_option("--weights", opt.weights, "Weights file of a weightless artifact");
  app.add_option("--input,-i", opt.inputs, "NAME=FILE.npy, once per graph input")->take_all();
  app.add_option("--output,-o", opt.outputs, "NAME=FILE.npy: write that output")->take_all();
  app.add_option("--expected,-e", opt.expected,
                 "NAME=FILE.npy: check that output against a reference (exit 1 if it differs)")
      ->take_all();
  app.add_option("--rtol", opt.rtol, "Relative tolerance for --expected (floats)");
  app.add_option("--atol", opt.atol, "Absolute tolerance for --expected (floats)");
  app.add_option("--output-dir", opt.outputDir, "Write every output as DIR/<name>.npy");
  app.add_option("--threads,-t", opt.threads, "Threads for kernels (>= 1)");
  // gpu[:N] was dispatched above. Empty: each node where the artifact placed
  // it (webnnc compile --target); "cpu": every node on the CPU.
  app.add_option("--device", opt.device,
                 "cpu, gpu or gpu:N: a Vulkan device (--list-devices lists them); default: where the artifact "
                 "placed each node (webnnc compile --target), the CPU for an artifact without placements");
  app.add_option("--bench", opt.bench, "Timed runs after the first (>= 0)");
  app.add_option("--warmup", opt.warmup, "Untimed runs before --bench timing (>= 0)");
  app.add_flag("--paced", opt.paced,
               "Runs paced over stdin (bench/run.py --paced): after the first run and --warmup runs, print one "
               "JSON line (load_ms, session_ms, first_run_ms, threads, ...); then for each stdin line N (a run "
               "count, 1 to 1000000) run N timed runs and print {\"runs\": [ms, ...]}; at EOF write --output / "
               "--output-dir and exit 0. Any other line: one error line, exit 1. Not with --bench, --profile, "
               "--expected or --timeout");
  app.add_flag("--json", opt.json, "Print timings and outputs as one JSON object");
  app.add_option("--timeout", opt.timeout,
                 "Cancel the runs (all of them together) after this many seconds: one error line, exit 3");
  webnnrun::addWaitOption(app, &opt.wait);
  webnnrun::addLimitFlags(app, &opt.limits);
  app.add_flag("--print-plan", opt.printPlan, "Print the arena plan");
  app.add_flag("--verbose,-v", opt.verbose,
               "Print the runtime's info messages on stderr (among them each node that runs elsewhere than "
               "the artifact placed it, and why)");
  app.add_flag("--verify-weights", opt.verifyWeights, "Also SHA-256-check embedded weights");
  app.add_flag("--profile", opt.profile,
               "Time every node (the --bench runs, else the first run): per op kind and the slowest "
               "nodes, on stderr (in the JSON with --json)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "webnn-run: error: " << e.what() << "\n";
    return 2;
  }
  if (opt.threads < 1 || opt.threads > webnn::kMaxThreads || opt.bench < 0 || opt.warmup < 0 ||
      !(opt.timeout >= 0)) {
    std::cerr << "webnn-run: error: --threads must be in [1, " << webnn::kMaxThreads
              << "], --bench, --warmup and --timeout >= 0\n";
    return 2;
  }
  if (opt.paced && (opt.bench > 0 || opt.profile || !opt.expected.empty() || opt.timeout > 0)) {
    std::cerr << "webnn-run: error: --paced takes its run counts from stdin: not with --bench, --profile, "
                 "--expected or --timeout\n";
    return 2;
  }
  if (opt.verbose) webnn::setLogCallback(printLog, webnn::LogLevel::kInfo, nullptr);
  try {
    return run(opt);
  } catch (const Failure &f) {
    std::cerr << "webnn-run: error: " << f.message << "\n";
    return f.exitCode;
  } catch (const std::bad_alloc &) {
    std::cerr << "webnn-run: error: out of memory\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "webnn-run: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace
