// The webnn compiler as a library: import a model (.onnx, .webnn, .json or
// .mlir), optimize it for the CPU and write a .wnn artifact, in process.
// `webnnc compile` and the Python package's webnn.compile() are both this
// call; CompileResult carries what `webnnc compile --json` prints.
//
//   webnn::compiler::CompileOptions options;
//   options.output = "net.wnn";
//   webnn::compiler::CompileResult r = webnn::compiler::compileFile("net.onnx", options);
//   if (!r.ok()) std::cerr << r.diagnostics;   // the lines webnnc prints on stderr
//
// No MLIR or LLVM type appears here; the library links MLIR/LLVM's shared
// libraries. Each call owns its MLIR context: calls on several threads at
// once are independent. See docs/EMBEDDING.md.
#ifndef WEBNN_COMPILER_H
#define WEBNN_COMPILER_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace webnn::compiler {

// The flags of `webnnc compile` (docs/CLI.md), one field each.
struct CompileOptions {
  // Where the artifact goes. Empty: nowhere on disk; its bytes are returned
  // in CompileResult::artifact (and a weightless compile's weights in
  // CompileResult::weightsBytes unless weightsOut names a file).
  std::string output;
  std::string weightsOut;           // --weights-out (needs weightless)
  std::string target = "cpu";       // --target
  std::string precision = "exact";  // --precision exact|relaxed
  std::string emit = "artifact";    // --emit artifact|mlir (mlir: the optimized module as text)
  std::vector<std::string> shapes;       // --shape NAME=1x3x224x224 or DIM_PARAM:VALUE (ONNX)
  std::vector<std::string> dynamicDims;  // --dynamic-dim DIM_PARAM=MAX (ONNX)
  std::vector<std::string> constInputs;  // --const-input NAME=TENSOR.pb (ONNX)
  std::vector<std::string> externalDataDirs;  // --external-data-dir DIR (ONNX)
  std::vector<int> prepackThreads;       // --prepack-threads; empty: 1 and the core count
  bool prepack = false;                  // --prepack
  bool weightless = false;               // --weightless
  bool optimize = true;                  // false: --no-optimize
  bool verifyEach = false;               // --verify-each
  bool report = false;  // --report: the optimization report, into CompileResult::diagnostics
};

struct CompileMessage {
  std::string severity;  // "error", "warning", "note"
  std::string file;      // empty: not about a file (an option)
  int64_t line = 0, column = 0;  // 0: no line (binary models name the node in the message)
  std::string message;
};

// An ONNX operator that no conversion handles.
struct UnsupportedOp {
  std::string domain;  // "ai.onnx" for the default domain
  std::string opType;
  int64_t opset = -1;  // -1: the domain is not in the model's opset_import
  std::vector<std::string> nodes;  // subgraphs' nodes included
};

struct RewriteCount {
  std::string pass, rewrite;
  int64_t count = 0;
};

struct OpCount {
  int64_t before = 0, after = 0;
};

// A node `--target gpu` or `auto` left on the CPU, and why.
struct PlacementFallback {
  uint32_t node = 0;
  std::string name, op, reason;
};

struct WrittenFile {
  std::string path;  // empty when returned in memory
  uint64_t bytes = 0;
  std::string sha256;  // lower-case hex
};

struct CompileResult {
  // 0 success, 1 bad input or failed compile, 2 bad options: webnnc's exit status.
  int exitCode = 0;
  bool ok() const { return exitCode == 0; }
  std::string model;  // the path, or the name given with the bytes
  std::vector<CompileMessage> messages;  // errors, warnings, notes, in order
  std::vector<UnsupportedOp> unsupportedOps;
  bool optimized = false;
  std::vector<RewriteCount> rewrites;  // those that fired
  std::map<std::string, OpCount> ops;  // webnn ops by name, before and after optimization
  WrittenFile output;                  // set when ok and emit is "artifact"
  WrittenFile weights;                 // a weightless compile's weights file
  std::string artifact;      // the artifact (or --emit mlir text) when options.output is empty
  std::string weightsBytes;  // the weights when weightless and neither path was given
  double compileMs = 0;
  // --target gpu/auto (empty for cpu): nodes per device ("cpu", "gpu"), the
  // nodes left on the CPU and whole-graph notes (docs/BACKENDS.md).
  std::string target;
  std::map<std::string, uint64_t> placement;
  std::vector<PlacementFallback> placementFallbacks;
  std::vector<std::string> placementNotes;
  // Exactly what `webnnc compile` prints on stderr for this compile: MLIR
  // diagnostics with their source lines, `webnnc: error: ...` lines, notes
  // and the --report table.
  std::string diagnostics;
  // The `webnnc compile --json` object (docs/CLI.md), one line.
  std::string json() const;
};

// Compiles the model file at `path`; its extension picks the front end.
CompileResult compileFile(const std::string &path, const CompileOptions &options);

// Compiles a model held in memory. `name` stands for its path: its extension
// picks the front end, messages name it, and a .webnn's weights sidecar and
// an ONNX model's external data are looked for beside it.
CompileResult compileBuffer(std::string_view bytes, const std::string &name, const CompileOptions &options);

// The --json object of a command line that was refused before compiling:
// status "error", exit code 2, `message`, and `model` when known.
std::string usageErrorJson(const std::string &message, const std::string &model = "");

}  // namespace webnn::compiler

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
