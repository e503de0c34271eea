// The subcommands of webnnc. Each registers its flags on a CLI11 subcommand
// and returns the process exit code: 0 success, 1 bad input, 2 usage error.
#ifndef WEBNNC_COMMANDS_H
#define WEBNNC_COMMANDS_H

#include <string>
#include <utility>
#include <vector>

#include "webnn/version.h"

namespace CLI { class App; }

namespace webnnc {

struct CompileFlags {
  std::string model;
  std::string output;
  std::string weightsOut;
  std::string target = "cpu";
  std::string precision = "exact";  // --precision exact|relaxed
  std::string emit = "artifact";
  std::vector<std::string> shapes;
  std::vector<std::string> constInputs;
  std::vector<std::string> externalDataDirs;
  std::vector<std::string> dynamicDims;
  std::vector<int> prepackThreads;  // empty: 1 and this machine's core count
  bool prepack = false;
  bool weightless = false;
  bool noOptimize = false;
  bool report = false;
  bool verifyEach = false;
  bool json = false;  // --json: the result as one JSON object on stdout
};

void registerCompileCommand(CLI::App &app, CompileFlags &flags);
// Both run in the compile module, webnnc-compile.so (CompileModule.cpp),
// loaded on first use so that the other subcommands never load
// libMLIR/libLLVM. When it cannot be loaded: one error naming its path, and
// exit status 1.
int runCompile(const CompileFlags &flags);
// `webnnc compile ... --json` whose command line does not parse: the JSON
// object with status "error" and the message, so a pipeline parsing stdout
// still gets one. Returns the usage exit status, 2.
int reportCompileUsageError(const std::string &message);

// What webnnc and its compile module must agree on, since CompileFlags
// crosses between them by pointer: a module from another build is refused.
inline std::string compileModuleAbi() {
  return std::string(WEBNN_VERSION_STRING) + " flags:" + std::to_string(sizeof(CompileFlags));
}

struct InspectFlags {
  std::string artifact;
  std::string weights;
  bool json = false;
  bool plan = false;
  std::string dot;   // --dot FILE (- for stdout): Graphviz source of the graph
  std::string html;  // --html FILE (- for stdout): one self-contained page
};

void registerInspectCommand(CLI::App &app, InspectFlags &flags);
int runInspect(const InspectFlags &flags);

struct EstimateFlags {
  std::string artifact;
  std::string profile;
  std::string requirement;
  std::vector<std::string> shapes;
  std::string device = "cpu";
  int threads = 1;
  bool tierOnly = false;
  bool detail = false;
  bool json = false;
};

void registerEstimateCommand(CLI::App &app, EstimateFlags &flags);
int runEstimate(const EstimateFlags &flags);

}  // namespace webnnc

#endif
