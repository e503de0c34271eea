// webnnc: the ahead-of-time compiler driver. Subcommands live in *Command.cpp.
#include <cstring>
#include <string>
#include <vector>

#include "BatchJobs.h"
#include "CLI/CLI.hpp"
#include "Commands.h"
#include "webnn/version.h"

namespace {

// One command line: `webnnc compile|inspect|estimate ...`.
int runCommandLine(int argc, char **argv) {
  CLI::App app{"webnnc: compile W3C WebNN graphs ahead of time to .wnn artifacts\n"
               "  webnnc batch < JOBS: one compile per stdin line (a JSON array of its arguments, e.g. "
               "[\"compile\", \"m.onnx\", \"-o\", \"m.wnn\"]), one JSON answer line each"};
  app.set_version_flag("--version", "webnnc " WEBNN_VERSION_STRING);
  app.require_subcommand(1);
  webnnc::CompileFlags compile;
  webnnc::registerCompileCommand(app, compile);
  webnnc::InspectFlags inspect;
  webnnc::registerInspectCommand(app, inspect);
  webnnc::EstimateFlags estimate;
  webnnc::registerEstimateCommand(app, estimate);
  // `webnnc compile --version` answers as `webnnc --version` does.
  for (CLI::App *sub : app.get_subcommands([](CLI::App *) { return true; }))
    sub->set_version_flag("--version", "webnnc " WEBNN_VERSION_STRING);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    if (code == 0) return 0;
    bool compileJson = argc > 1 && std::strcmp(argv[1], "compile") == 0;
    bool json = false;
    for (int i = 2; i < argc; ++i) json |= std::strcmp(argv[i], "--json") == 0;
    if (compileJson && json) return webnnc::reportCompileUsageError(e.what());
    return 2;
  }
  if (app.got_subcommand("compile")) return webnnc::runCompile(compile);
  if (app.got_subcommand("inspect")) return webnnc::runInspect(inspect);
  if (app.got_subcommand("estimate")) return webnnc::runEstimate(estimate);
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "batch") == 0) {
    // Each job a fresh compile (its own MLIR context): only the process
    // start is shared (tools/common/BatchJobs.h). Compiles only: inspect and
    // estimate print through C stdio, which the batch cannot capture.
    webnntools::BatchTool tool;
    tool.name = "webnnc";
    tool.refuse = [](const std::vector<std::string> &args) -> std::string {
      if (args.front() == "compile") return "";
      return "a job is a compile command, not '" + args.front() + "'";
    };
    tool.run = runCommandLine;
    return webnntools::runBatchJobs(tool, argc - 1, argv + 1);
  }
  return runCommandLine(argc, argv);
}
