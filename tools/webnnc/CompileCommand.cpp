// webnnc compile: import, optimize, write the artifact (webnn/compiler.h);
// with --json, one JSON object on stdout describing the result (schema:
// docs/CLI.md).
#include <iostream>

#include "CLI/CLI.hpp"
#include "Commands.h"
#include "webnn/compiler.h"

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

int reportCompileUsageError(const std::string &message) {
  std::cout << webnn::compiler::usageErrorJson(message) << "\n";
  return 2;
}

// The compile itself is the library's (compiler/api, webnn/compiler.h); this
// maps the flags onto its options and prints what it returns.
int runCompile(const CompileFlags &flags) {
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

}  // namespace webnnc
