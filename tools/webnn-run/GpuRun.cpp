#include "GpuRun.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "Bindings.h"
#include "Compare.h"
#include "Profile.h"
#include "Watchdog.h"
#include "webnn/npy.h"
#include "webnn/version.h"

#if WEBNN_HAVE_VULKAN_BACKEND
#include "backends/vulkan/VulkanBackend.h"
#include "backends/vulkan/VulkanDevice.h"
#include "backends/vulkan/VulkanGraph.h"
#include "backends/vulkan/VulkanKernel.h"
#include "core/ArtifactLoader.h"
#endif

namespace webnnrun {

std::string deviceArgument(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) return argv[i + 1];
    if (std::strncmp(argv[i], "--device=", 9) == 0) return argv[i] + 9;
  }
  return "";
}

#if !WEBNN_HAVE_VULKAN_BACKEND

int runGpu(int argc, char **argv) {
  std::cerr << "webnn-run: error: --device " << deviceArgument(argc, argv)
            << ": this webnn-run was built without the Vulkan backend\n";
  return 1;
}
void keepGpuDevicesBetweenRuns(bool) {}
std::vector<std::string> takeValidationMessagesBetweenRuns() { return {}; }

#else

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Failure {
  int code;
  std::string message;
};

// The device batch mode keeps between runs, and the options it was made with.
bool gKeepDevices = false;
std::shared_ptr<webnn::vk::Device> gKeptDevice;
webnn::vk::Device::Options gKeptOptions;

bool sameDevice(const webnn::vk::Device::Options &a, const webnn::vk::Device::Options &b) {
  return a.index == b.index && a.validation == b.validation && a.forceStaging == b.forceStaging &&
         a.cacheDir == b.cacheDir && a.driverShaderCache == b.driverShaderCache;
}

struct GpuOptions {
  std::string artifact, weights, device;
  std::vector<std::string> inputs, outputs, expected;
  std::string outputDir;
  double rtol = 1e-4, atol = 1e-6;
  int bench = 0, warmup = 1;
  double timeout = 0;  // seconds for all the runs together; 0 = none
  bool json = false;
};

// --timeout ran out while the GPU was still at work. The submission cannot be
// stopped and the device may not be destroyed under it (its destructor would
// wait for it to finish), so the process ends here, after the one error line.
[[noreturn]] void exitTimedOut(double seconds, const std::string &message) {
  std::cout.flush();
  std::fflush(stdout);
  std::ostringstream line;
  line << "webnn-run: error: timed out after " << seconds << " s: " << message << "\n";
  std::fputs(line.str().c_str(), stderr);
  std::fflush(stderr);
  std::_Exit(kTimedOutExitCode);
}

int run(const GpuOptions &opt) {
  namespace rt = webnn::rt;
  namespace vk = webnn::vk;
  int index = -1;
  if (!vk::parseGpuDeviceName(opt.device, &index)) throw Failure{2, "--device expects cpu, gpu or gpu:N, got '" + opt.device + "'"};

  auto t0 = Clock::now();
  rt::LoaderOptions lo;
  lo.weightsPath = opt.weights;
  rt::LoadedGraph g;
  webnn::Status s = rt::loadArtifact(opt.artifact, lo, &g);
  if (!s.isOk()) throw Failure{1, s.message()};
  std::shared_ptr<rt::PreparedGraph> prepared;
  s = rt::prepareGraph(std::move(g), &prepared);
  if (!s.isOk()) throw Failure{1, s.message()};
  double loadMs = msSince(t0);
  const rt::LoadedGraph &graph = prepared->graph;
  if (!graph.dynamicDims.empty()) return kRunOnExecutor;

  t0 = Clock::now();
  vk::Device::Options dopt = vk::Device::defaultOptions();
  dopt.index = index;
  std::shared_ptr<vk::Device> device;
  if (gKeepDevices && gKeptDevice && sameDevice(gKeptOptions, dopt)) {
    device = gKeptDevice;
  } else {
    s = vk::Device::create(dopt, &device);
    if (!s.isOk()) throw Failure{1, s.message()};
    if (gKeepDevices) {
      gKeptDevice = device;
      gKeptOptions = dopt;
    }
  }
  double deviceMs = msSince(t0);
  t0 = Clock::now();
  std::unique_ptr<vk::GraphProgram> program;
  s = vk::GraphProgram::create(device, prepared, &program);
  if (!s.isOk()) throw Failure{1, opt.artifact + ": " + s.message()};
  double sessionMs = msSince(t0);
  // A relaxed artifact whose dot products keep float32 weights here: say so
  // once, as the CPU path does for bf16.
  const vk::ProgramStats &created = program->program().stats();
  if (created.relaxedFloat32Nodes)
    std::cerr << "webnn-run: note: " << opt.artifact << " was compiled with --precision relaxed, but "
              << created.relaxedFloat32Nodes << " of its dot products keep float32 weights on the GPU (first: "
              << created.relaxedFloat32Note << ")\n";

  // Inputs: every graph input once, dtype and shape as compiled.
  std::vector<bool> given(graph.inputs.size(), false);
  for (const std::string &b : opt.inputs) {
    std::string name, file;
    if (!splitBinding(b, &name, &file)) throw Failure{2, "--input expects NAME=FILE.npy, got '" + b + "'"};
    size_t i = 0;
    while (i < graph.inputs.size() && graph.tensors[graph.inputs[i]].name != name) ++i;
    if (i == graph.inputs.size()) throw Failure{1, "model has no input '" + name + "'"};
    if (given[i]) throw Failure{1, "input '" + name + "' given twice"};
    given[i] = true;
    webnn::npy::Array a;
    s = webnn::npy::read(file, &a);
    if (!s.isOk()) throw Failure{1, s.message()};
    const rt::LoadedTensor &t = graph.tensors[graph.inputs[i]];
    // A bool input also takes a uint8 array, as on the CPU path.
    bool uint8ForBool = t.interfaceType == webnn::DataType::kBool && a.dtype == webnn::DataType::kUint8;
    bool float32ForBf16 = t.interfaceType == webnn::DataType::kBfloat16 && a.dtype == webnn::DataType::kFloat32;
    // int4/uint4 travel as int8/uint8 .npy, one element a byte (as on the CPU path).
    bool bytesFor4Bit = (t.interfaceType == webnn::DataType::kInt4 && a.dtype == webnn::DataType::kInt8) ||
                        (t.interfaceType == webnn::DataType::kUint4 && a.dtype == webnn::DataType::kUint8);
    if ((a.dtype != t.interfaceType && !uint8ForBool && !float32ForBf16 && !bytesFor4Bit) || a.shape != t.shape)
      throw Failure{1, "input '" + name + "': expected " + std::string(webnn::dataTypeName(t.interfaceType)) + " " +
                           webnn::shapeToString(t.shape) + ", got " + std::string(webnn::dataTypeName(a.dtype)) +
                           " " + webnn::shapeToString(a.shape) + " from " + file};
    // bfloat16 travels as float32 .npy (numpy has no bfloat16): rounded to
    // it here, as the CPU path does.
    if (t.interfaceType == webnn::DataType::kBfloat16 && a.dtype == webnn::DataType::kFloat32) {
      std::vector<uint8_t> bf(t.interfaceByteSize);
      webnn::convertElements(webnn::DataType::kFloat32, a.data.data(), webnn::DataType::kBfloat16, bf.data(),
                             int64_t(a.data.size() / 4));
      a.data.swap(bf);
    }
    if (bytesFor4Bit) {
      std::vector<uint8_t> packed(t.interfaceByteSize);
      s = webnn::npy::packInt4(t.interfaceType, a.data.data(), int64_t(a.data.size()), packed.data());
      if (!s.isOk()) throw Failure{1, "input '" + name + "' from " + file + ": " + s.message()};
      a.data.swap(packed);
    }
    s = program->setInput(i, a.data.data(), a.data.size());
    if (!s.isOk()) throw Failure{1, s.message()};
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    if (!given[i]) throw Failure{1, "input '" + graph.tensors[graph.inputs[i]].name + "' not given"};

  auto findOutput = [&](const std::string &name) -> size_t {
    for (size_t i = 0; i < graph.outputs.size(); ++i)
      if (graph.tensors[graph.outputs[i]].name == name) return i;
    throw Failure{1, "model has no output '" + name + "'"};
  };
  std::vector<std::pair<size_t, std::string>> files;
  for (const std::string &b : opt.outputs) {
    std::string name, file;
    if (!splitBinding(b, &name, &file)) throw Failure{2, "--output expects NAME=FILE.npy, got '" + b + "'"};
    files.emplace_back(findOutput(name), file);
  }
  if (!opt.outputDir.empty()) {
    std::error_code ec;
    fs::create_directories(opt.outputDir, ec);
    if (ec || !fs::is_directory(opt.outputDir)) throw Failure{1, "cannot create output directory '" + opt.outputDir + "'"};
    for (size_t i = 0; i < graph.outputs.size(); ++i)
      files.emplace_back(i, (fs::path(opt.outputDir) / fileNameFor(graph.tensors[graph.outputs[i]].name)).string());
  }
  std::vector<std::pair<size_t, webnn::npy::Array>> references;
  std::vector<std::string> referenceFiles;
  for (const std::string &b : opt.expected) {
    std::string name, file;
    if (!splitBinding(b, &name, &file)) throw Failure{2, "--expected expects NAME=FILE.npy, got '" + b + "'"};
    webnn::npy::Array want;
    s = webnn::npy::read(file, &want);
    if (!s.isOk()) throw Failure{1, s.message()};
    references.emplace_back(findOutput(name), std::move(want));
    referenceFiles.push_back(file);
  }

  t0 = Clock::now();
  // --timeout bounds every wait for the GPU from here on, the runs together.
  if (opt.timeout > 0)
    device->setDeadline(t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.timeout)));
  auto check = [&](const webnn::Status &st) {
    if (st.code() == webnn::StatusCode::kCancelled && opt.timeout > 0) exitTimedOut(opt.timeout, st.message());
    if (!st.isOk()) throw Failure{1, st.message()};
  };
  check(program->run());
  double firstRunMs = msSince(t0);
  std::vector<double> latencies;
  for (int i = 0; i < (opt.bench > 0 ? opt.warmup : 0); ++i) check(program->run());
  for (int i = 0; i < opt.bench; ++i) {
    t0 = Clock::now();
    s = program->run();
    latencies.push_back(msSince(t0));
    check(s);
  }
  if (latencies.empty()) latencies.push_back(firstRunMs);
  device->savePipelineCache();

  // Output i as .npy holds it: bfloat16 widened exactly to float32, int4/uint4
  // unpacked to int8/uint8.
  auto npyData = [&](size_t i, webnn::DataType *type, std::vector<uint8_t> *widened) -> const void * {
    const rt::LoadedTensor &t = graph.tensors[graph.outputs[i]];
    *type = t.interfaceType;
    int64_t count = 0;
    webnn::elementCount(t.shape, &count);
    if (*type == webnn::DataType::kInt4 || *type == webnn::DataType::kUint4) {
      widened->resize(size_t(count));
      webnn::npy::unpackInt4(*type, static_cast<const uint8_t *>(program->outputData(i)), count, widened->data());
      *type = *type == webnn::DataType::kInt4 ? webnn::DataType::kInt8 : webnn::DataType::kUint8;
      return widened->data();
    }
    if (*type != webnn::DataType::kBfloat16) return program->outputData(i);
    widened->resize(size_t(count) * 4);
    webnn::convertElements(*type, program->outputData(i), webnn::DataType::kFloat32, widened->data(), count);
    *type = webnn::DataType::kFloat32;
    return widened->data();
  };
  for (const auto &[i, path] : files) {
    const rt::LoadedTensor &t = graph.tensors[graph.outputs[i]];
    webnn::DataType type;
    std::vector<uint8_t> widened;
    const void *data = npyData(i, &type, &widened);
    uint64_t bytes = 0;
    webnn::tensorByteSize(type, t.shape, &bytes);
    s = webnn::npy::write(path, type, t.shape, data, bytes);
    if (!s.isOk()) throw Failure{1, "cannot write '" + path + "': " + s.message()};
  }
  std::string firstMismatch;
  nlohmann::json checks = nlohmann::json::array();
  for (size_t r = 0; r < references.size(); ++r) {
    const auto &[i, want] = references[r];
    const rt::LoadedTensor &t = graph.tensors[graph.outputs[i]];
    webnn::DataType type;
    std::vector<uint8_t> widened;
    const void *data = npyData(i, &type, &widened);
    Comparison c = compareOutput(t.interfaceType, t.shape, static_cast<const uint8_t *>(data), want, opt.rtol, opt.atol);
    checks.push_back({{"output", t.name}, {"expected", referenceFiles[r]}, {"ok", c.ok},
                      {"max_abs_error", c.maxAbsError}, {"max_rel_error", c.maxRelError}});
    if (!c.ok && firstMismatch.empty())
      firstMismatch = "output '" + t.name + "' does not match " + referenceFiles[r] + ": " + c.problem;
    if (!opt.json)
      std::printf("%s: %s %s (max abs error %.3g, max rel error %.3g)\n", t.name.c_str(),
                  c.ok ? "matches" : "DIFFERS from", referenceFiles[r].c_str(), c.maxAbsError, c.maxRelError);
  }
  std::sort(latencies.begin(), latencies.end());
  size_t n = latencies.size();
  double median = n % 2 ? latencies[n / 2] : (latencies[n / 2 - 1] + latencies[n / 2]) / 2;
  const vk::ProgramStats &st = program->program().stats();
  if (opt.json) {
    nlohmann::json j;
    addBuildInfo(j);
    j["artifact"] = opt.artifact;
    j["device"] = device->info().name;
    j["nodes"] = graph.nodes.size();
    j["precision"] = graph.relaxedPrecision ? "relaxed" : "exact";
    j["load_ms"] = loadMs;
    j["device_ms"] = deviceMs;
    j["session_ms"] = sessionMs;
    j["first_run_ms"] = firstRunMs;
    j["latency_ms"] = {{"median", median}, {"min", latencies.front()}, {"max", latencies.back()}};
    j["iterations"] = opt.bench > 0 ? opt.bench : 1;
    j["gpu"] = {{"dispatches", st.dispatches},
                {"pipelines_created", st.pipelinesCreated},
                {"pipeline_ms", st.pipelineMs},
                {"record_ms", st.recordMs},
                {"upload_ms", st.uploadMs},
                {"submits_per_run", st.submitsPerRun},
                {"arena_bytes", st.arenaBytes},
                {"constant_bytes", st.constantBytes},
                {"fp16_nodes", st.fp16Nodes},
                {"fp16_weight_bytes", st.fp16WeightBytes},
                {"relaxed_float32_nodes", st.relaxedFloat32Nodes},
                {"coopmat_nodes", st.coopmatNodes},
                {"pipeline_cache", device->pipelineCachePath()}};
    if (!references.empty()) j["checks"] = checks;
    std::cout << j.dump() << "\n";
  } else if (opt.bench > 0) {
    std::printf("%s: session %.4g ms (pipelines %.4g ms for %u, recording %.4g ms, %u dispatches), first run %.4g ms\n",
                device->info().name.c_str(), sessionMs, st.pipelineMs, st.pipelinesCreated, st.recordMs,
                st.dispatches, firstRunMs);
    std::printf("%d runs, %u submit each: median %.4g ms, min %.4g, max %.4g\n", opt.bench, st.submitsPerRun, median,
                latencies.front(), latencies.back());
  }
  if (!firstMismatch.empty()) throw Failure{1, firstMismatch};
  return 0;
}

}  // namespace

void keepGpuDevicesBetweenRuns(bool keep) {
  gKeepDevices = keep;
  if (!keep) gKeptDevice.reset();
}

std::vector<std::string> takeValidationMessagesBetweenRuns() {
  std::vector<std::string> messages;
  if (gKeptDevice) messages = gKeptDevice->takeValidationMessages();
  for (std::string &m : webnn::vk::takeBackendValidationMessages()) messages.push_back(std::move(m));
  return messages;
}

int runGpu(int argc, char **argv) {
  GpuOptions opt;
  CLI::App app{"Run a compiled WebNN artifact (.wnn) on a Vulkan GPU with .npy inputs"};
  app.add_option("artifact", opt.artifact, "Compiled artifact (.wnn)")->required();
  app.add_option("--device", opt.device, "gpu (first discrete GPU, else any) or gpu:N (webnn-run --list-devices)")
      ->required();
  app.add_option("--weights", opt.weights, "Weights file of a weightless artifact");
  app.add_option("--input,-i", opt.inputs, "NAME=FILE.npy, once per graph input")->take_all();
  app.add_option("--output,-o", opt.outputs, "NAME=FILE.npy: write that output")->take_all();
  app.add_option("--expected,-e", opt.expected, "NAME=FILE.npy: check that output")->take_all();
  app.add_option("--rtol", opt.rtol, "Relative tolerance for --expected");
  app.add_option("--atol", opt.atol, "Absolute tolerance for --expected");
  app.add_option("--output-dir", opt.outputDir, "Write every output as DIR/<name>.npy");
  app.add_option("--bench", opt.bench, "Timed runs after the first (>= 0)");
  app.add_option("--warmup", opt.warmup, "Untimed runs before --bench timing (>= 0)");
  app.add_flag("--json", opt.json, "Print timings (GPU: pipelines, recording, submits) as one JSON object");
  app.add_option("--timeout", opt.timeout,
                 "Give up waiting for the GPU after this many seconds, the runs together: one error line, exit 3");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "webnn-run: error: " << e.what() << " (options with --device gpu: --input --output --output-dir "
              << "--expected --rtol --atol --bench --warmup --json --weights --timeout)\n";
    return 2;
  }
  if (opt.bench < 0 || opt.warmup < 0 || !(opt.timeout >= 0)) {
    std::cerr << "webnn-run: error: --bench, --warmup and --timeout must be >= 0\n";
    return 2;
  }
  try {
    return run(opt);
  } catch (const Failure &f) {
    std::cerr << "webnn-run: error: " << f.message << "\n";
    return f.code;
  } catch (const std::exception &e) {
    std::cerr << "webnn-run: error: " << e.what() << "\n";
    return 1;
  }
}

#endif

}  // namespace webnnrun
