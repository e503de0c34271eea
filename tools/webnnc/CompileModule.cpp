// webnnc-compile.so, the module behind `webnnc compile`: the only part of
// webnnc that needs the compiler library (webnn/compiler.h) and through it
// libMLIR/libLLVM, whose dynamic linking costs more than a whole inspect or
// estimate. webnnc loads it on the first compile (CompileCommand.cpp); with
// --json, one JSON object on stdout describes the result (schema:
// docs/CLI.md).
#include <iostream>
#include <string>

#include "Commands.h"
#include "webnn/compiler.h"

namespace {

// The compile itself is the library's (compiler/api, webnn/compiler.h); this
// maps the flags onto its options and prints what it returns.
int compile(const webnnc::CompileFlags &flags) {
  if (flags.json && flags.output == "-") {
    const std::string message = "--json prints to stdout; write the output to a file, not -";
    std::cerr << "webnnc: error: " << message << "\n";
    std::cout << webnn::compiler::usageErrorJson(message, flags.model) << "\n";
    return 2;
  }
  webnn::compiler::CompileOptions options;
  // `--emit mlir -o -`: the text comes back in memory and goes to stdout.
  const bool toStdout = flags.emit == "mlir" && flags.output == "-";
  options.output = toStdout ? "" : flags.output;
  options.weightsOut = flags.weightsOut;
  options.target = flags.target;
  options.precision = flags.precision;
  options.emit = flags.emit;
  options.shapes = flags.shapes;
  options.dynamicDims = flags.dynamicDims;
  options.constInputs = flags.constInputs;
  options.externalDataDirs = flags.externalDataDirs;
  options.prepackThreads = flags.prepackThreads;
  options.prepack = flags.prepack;
  options.weightless = flags.weightless;
  options.optimize = !flags.noOptimize;
  options.verifyEach = flags.verifyEach;
  options.report = flags.report;
  webnn::compiler::CompileResult result = webnn::compiler::compileFile(flags.model, options);
  std::cerr << result.diagnostics << std::flush;
  if (toStdout && result.ok()) std::cout << result.artifact;
  if (flags.json) std::cout << result.json() << "\n";
  return result.exitCode;
}

}  // namespace

// The module's entry points (webnnc::CompileModuleEntry); the only symbols
// it exports (-fvisibility=hidden).
extern "C" __attribute__((visibility("default"))) const char *webnnc_compile_module_abi() {
  static const std::string abi = webnnc::compileModuleAbi();
  return abi.c_str();
}

extern "C" __attribute__((visibility("default"))) int webnnc_compile_run(const webnnc::CompileFlags *flags) {
  return compile(*flags);
}

extern "C" __attribute__((visibility("default"))) int webnnc_compile_usage_error(const char *message) {
  std::cout << webnn::compiler::usageErrorJson(message) << "\n";
  return 2;
}
