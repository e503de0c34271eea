// webnnc compile: its flags, and the compile module that runs it
// (CompileModule.cpp, built as webnnc-compile.so): import, optimize, write
// the artifact. The module links the compiler and with it libMLIR/libLLVM,
// so only a compile pays for loading them.
#include <dlfcn.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "Commands.h"
#include "nlohmann/json.hpp"

namespace webnnc {

void registerCompileCommand(CLI::App &app, CompileFlags &flags) {
  CLI::App *cmd = app.add_subcommand("compile", "Compile a model into a .wnn artifact");
  cmd->add_option("model", flags.model, "Input: .webnn, .json (webnn-graph), .onnx or .mlir")
      ->required();
  cmd->add_option("-o,--output", flags.output, "Output artifact (.wnn), or - with --emit=mlir")
      ->required();
  cmd->add_flag("--weightless", flags.weightless,
                "Write the graph alone; weights go to --weights-out");
  cmd->add_option("--weights-out", flags.weightsOut,
                  "Weights file for --weightless (default: OUTPUT with .weights)");
  cmd->add_option("--target", flags.target,
                  "Where nodes run: cpu (default), gpu (every node the GPU's op support table takes) or auto "
                  "(as gpu, keeping groups with no conv/matmul/gemm on the CPU); docs/BACKENDS.md")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}));
  cmd->add_option("--precision", flags.precision,
                  "Dot products (conv2d, matmul, gemm): exact = float32; relaxed = bfloat16 operands with "
                  "float32 accumulation where the CPU has AVX512-BF16 (~2x faster, ~3 significant digits)")
      ->check(CLI::IsMember({"exact", "relaxed"}));
  cmd->add_option("--emit", flags.emit, "What to write")
      ->check(CLI::IsMember({"artifact", "mlir"}));
  cmd->add_option("--shape", flags.shapes,
                  "Fix an input shape: NAME=1x3x224x224 or DIM_PARAM:VALUE (ONNX)");
  cmd->add_option("--dynamic-dim", flags.dynamicDims,
                  "Keep an ONNX dim_param dynamic at run time, at most MAX: DIM_PARAM=MAX "
                  "(one artifact serves every size, e.g. prefill and decode)");
  cmd->add_option("--const-input", flags.constInputs,
                  "Freeze an ONNX graph input to a constant: NAME=TENSOR.pb (WebNN needs "
                  "shapes, axes and pads at compile time)");
  cmd->add_option("--external-data-dir", flags.externalDataDirs,
                  "Also let ONNX external data resolve (through a symlink in the model's folder) into this "
                  "folder; repeatable (docs/SECURITY.md)");
  cmd->add_flag("--no-optimize", flags.noOptimize,
                "Skip the optimization pipeline (folding, layout conversion, fusion, CSE)");
  cmd->add_flag("--prepack", flags.prepack,
                "Also store constant weights in the layouts this machine's CPU kernels use (oneDNN blocked / "
                "Winograd), so the first run maps them instead of packing; other machines pack as usual");
  cmd->add_option("--prepack-threads", flags.prepackThreads,
                  "Thread counts to prepack for (layouts can differ by thread count; default: 1 and the "
                  "number of cores), e.g. 1,2")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--report", flags.report,
                "Print which rewrites fired and how many ops each pass replaced (to stderr)");
  cmd->add_flag("--verify-each", flags.verifyEach,
                "Verify the graph after every pass, even one that reports no change, and name the pass "
                "that fails or leaves an invalid graph");
  cmd->add_flag("--json", flags.json,
                "Also print the result as one JSON object on stdout: status, errors, unsupported ops, "
                "rewrite counts, output size and SHA-256, time, versions (docs/CLI.md)");
}

namespace {

struct CompileModule {
  std::string path;
  std::string error;  // why it could not be loaded; empty once loaded
  int (*run)(const CompileFlags *) = nullptr;
  int (*usageError)(const char *) = nullptr;
};

// WEBNNC_COMPILE_MODULE_FROM_EXE: the module's path relative to webnnc's
// folder, the same in the build tree and the install (CMakeLists.txt).
std::string compileModulePath() {
  std::vector<char> buf(4096);
  ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size());
  if (n <= 0 || static_cast<size_t>(n) >= buf.size()) return "";
  std::string dir(buf.data(), static_cast<size_t>(n));
  dir.erase(dir.rfind('/'));
  // /proc/self/exe has no symbolic links left, so "../" drops a component.
  std::string rel = WEBNNC_COMPILE_MODULE_FROM_EXE;
  while (rel.compare(0, 3, "../") == 0 && !dir.empty()) {
    dir.erase(dir.rfind('/'));
    rel.erase(0, 3);
  }
  return dir + "/" + rel;
}

// Loaded once per process: `webnnc batch` runs many compiles on one load.
const CompileModule &compileModule() {
  static const CompileModule module = [] {
    CompileModule m;
    m.path = compileModulePath();
    if (m.path.empty()) {
      m.path = WEBNNC_COMPILE_MODULE_FROM_EXE;
      m.error = "cannot find webnnc's own path (/proc/self/exe)";
      return m;
    }
    // RTLD_LAZY as the executable linking libMLIR/libLLVM directly had it:
    // RTLD_NOW would bind their tens of thousands of functions up front.
    // RTLD_LOCAL: the compiler's symbols stay the module's.
    void *handle = dlopen(m.path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      m.error = why ? why : "dlopen failed";
      // dlerror() often starts with the path, which the message names already.
      if (m.error.compare(0, m.path.size() + 2, m.path + ": ") == 0) m.error.erase(0, m.path.size() + 2);
      return m;
    }
    auto abi = reinterpret_cast<const char *(*)()>(dlsym(handle, "webnnc_compile_module_abi"));
    m.run = reinterpret_cast<int (*)(const CompileFlags *)>(dlsym(handle, "webnnc_compile_run"));
    m.usageError = reinterpret_cast<int (*)(const char *)>(dlsym(handle, "webnnc_compile_usage_error"));
    if (!abi || !m.run || !m.usageError) {
      m.error = "not a webnnc compile module (an entry point is missing)";
    } else if (std::string(abi()) != compileModuleAbi()) {
      m.error = std::string("built for webnnc ") + abi() + ", not this webnnc (" + compileModuleAbi() + ")";
    }
    if (!m.error.empty()) {
      m.run = nullptr;
      m.usageError = nullptr;
      dlclose(handle);
    }
    return m;
  }();
  return module;
}

// The module could not be loaded: the error on stderr and, with --json, a
// JSON object of the same shape as a compile's, so stdout still parses
// (`usage`: the command line's own error, when that is what is reported).
int reportModuleError(const CompileModule &m, bool json, const std::string &model, int exitCode,
                      const std::string &usage = "") {
  const std::string message = "cannot load the compiler module " + m.path + ": " + m.error;
  std::cerr << "webnnc: error: " << message << "\n";
  if (json) {
    nlohmann::json errors = nlohmann::json::array();
    if (!usage.empty()) errors.push_back({{"severity", "error"}, {"message", usage}});
    errors.push_back({{"severity", "error"}, {"message", message}});
    nlohmann::json j;
    j["tool"] = "webnnc";
    j["version"] = WEBNN_VERSION_STRING;
    j["model"] = model;
    j["status"] = "error";
    j["exit_code"] = exitCode;
    j["errors"] = errors;
    j["warnings"] = nlohmann::json::array();
    std::cout << j.dump() << "\n";
  }
  return exitCode;
}

}  // namespace

int runCompile(const CompileFlags &flags) {
  const CompileModule &m = compileModule();
  if (!m.run) return reportModuleError(m, flags.json, flags.model, 1);
  return m.run(&flags);
}

int reportCompileUsageError(const std::string &message) {
  const CompileModule &m = compileModule();
  if (!m.usageError) return reportModuleError(m, true, "", 2, message);
  return m.usageError(message.c_str());
}

}  // namespace webnnc
