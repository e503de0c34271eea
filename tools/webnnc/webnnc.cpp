// webnnc: the ahead-of-time compiler driver. Subcommands live in *Command.cpp.
#include <cstring>

#include "CLI/CLI.hpp"
#include "Commands.h"
#include "webnn/version.h"

int main(int argc, char **argv) {
  CLI::App app{"webnnc: compile W3C WebNN graphs ahead of time to .wnn artifacts"};
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
