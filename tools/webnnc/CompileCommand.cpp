// webnnc compile: import, optimize, write the artifact; with --json, one
// JSON object on stdout describing the result (schema: docs/CLI.md).
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "CLI/CLI.hpp"
#include "Commands.h"
#include "compiler/artifact/ArtifactWriter.h"
#include "compiler/frontends/common/GraphBuilder.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "core/Prepack.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "nlohmann/json.hpp"
#include "webnn/runtime.h"
#include "webnn/version.h"
#ifdef HAVE_WEBNNFRONTENDDSL
#include "compiler/frontends/dsl/DslImporter.h"
#endif
#ifdef HAVE_WEBNNFRONTENDONNX
#include "compiler/frontends/onnx/OnnxImporter.h"
#endif

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
  cmd->add_option("--target", flags.target, "Target device")
      ->check(CLI::IsMember({"cpu"}));
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

// What a compile found, for --json. Messages are printed to stderr as they
// happen either way; this keeps them, with their location, for the JSON.
struct CompileReport {
  struct Message {
    std::string severity;  // "error", "warning", "note"
    std::string file;      // empty: not about a file (a flag)
    int64_t line = 0, column = 0;  // 0: no line (binary models locate by node in the message)
    std::string message;
  };
  std::vector<Message> messages;
  std::vector<mlir::webnn::RewriteCount> rewrites;
  std::map<std::string, int64_t> opsBefore, opsAfter;
  bool optimized = false;
#ifdef HAVE_WEBNNFRONTENDONNX
  // The ONNX operators the importer refused (it fails on any), subgraphs' included.
  std::vector<mlir::webnn::UnsupportedOnnxOp> unsupportedOps;
#endif

  // Prints `webnnc: error: FILE: MESSAGE` (the tool's one-line form) and keeps it.
  void error(const std::string &file, const std::string &message) {
    llvm::errs() << "webnnc: error: " << (file.empty() ? "" : file + ": ") << message << "\n";
    messages.push_back({"error", file, 0, 0, message});
  }
  bool hasErrors() const {
    for (const Message &m : messages)
      if (m.severity == "error") return true;
    return false;
  }
};

// The first file:line:col inside `loc` (a name or fused location wraps one).
bool fileLocation(mlir::Location loc, std::string *file, int64_t *line, int64_t *column) {
  bool found = false;
  loc->walk([&](mlir::Location l) {
    if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(l)) {
      *file = f.getFilename().str();
      *line = f.getLine();
      *column = f.getColumn();
      found = true;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return found;
}

bool endsWith(llvm::StringRef s, llvm::StringRef suffix) { return s.ends_with_insensitive(suffix); }

mlir::OwningOpRef<mlir::ModuleOp> importModel(mlir::MLIRContext &ctx, const CompileFlags &flags,
                                              llvm::SourceMgr &sourceMgr, CompileReport &report) {
  llvm::StringRef path = flags.model;
  if (endsWith(path, ".mlir")) {
    if (!flags.shapes.empty() || !flags.constInputs.empty() || !flags.dynamicDims.empty()) {
      report.error("", "--shape, --dynamic-dim and --const-input apply to ONNX models only");
      return nullptr;
    }
    return mlir::parseSourceFile<mlir::ModuleOp>(path, sourceMgr, &ctx);
  }
#ifdef HAVE_WEBNNFRONTENDONNX
  if (endsWith(path, ".onnx")) {
    mlir::webnn::OnnxImportOptions options;
    for (const std::string &s : flags.shapes) {
      std::string error;
      if (!mlir::webnn::parseShapeFlag(s, options, &error)) {
        report.error("", "--shape " + s + ": " + error);
        return nullptr;
      }
    }
    for (const std::string &s : flags.dynamicDims) {
      std::string error;
      if (!mlir::webnn::parseDynamicDimFlag(s, options, &error)) {
        report.error("", "--dynamic-dim " + s + ": " + error);
        return nullptr;
      }
    }
    for (const std::string &s : flags.constInputs) {
      std::string error;
      if (!mlir::webnn::parseConstInputFlag(s, options, &error)) {
        report.error("", "--const-input " + s + ": " + error);
        return nullptr;
      }
    }
    return mlir::webnn::importOnnxFile(ctx, path, options, &report.unsupportedOps);
  }
#endif
#ifdef HAVE_WEBNNFRONTENDDSL
  if (endsWith(path, ".webnn") || endsWith(path, ".json")) {
    if (!flags.shapes.empty() || !flags.constInputs.empty() || !flags.dynamicDims.empty()) {
      report.error("", "--shape, --dynamic-dim and --const-input apply to ONNX models only");
      return nullptr;
    }
    return mlir::webnn::importWebNNGraphFile(ctx, path);
  }
#endif
  report.error(flags.model, "unknown model format (expected .webnn, .json, .onnx or .mlir)");
  return nullptr;
}

// The optimization pipeline for --target cpu: fold shape arithmetic first so
// layouts and fusions see constants, run channels-last (oneDNN's direct
// convolutions reach 97-100% of peak on nhwc, shared/notes/cpu-kernels.md),
// fuse conv chains into oneDNN post-ops, then fold the constants the
// rewrites created (permuted bias adds) and CSE.
void buildCpuPipeline(mlir::PassManager &pm) {
  mlir::OpPassManager &graph = pm.nest<mlir::func::FuncOp>();
  graph.addPass(mlir::webnn::createWebNNFoldConstants());
  // Decoder LLMs (docs/LLM.md), on the graph as exported: before layout
  // conversion sinks the head-split transposes through the rotary multiplies,
  // and before the transformer fusions take the scales and residual adds.
  // Norms and rotary first, so attention finds rotaryEmbeddings to absorb.
  // int8 QDQ graphs: the quantize/dequantize pairs around each matmul into
  // one integer op, before any other fusion takes the matmul or its bias.
  graph.addPass(mlir::webnn::createWebNNFuseQdq());
  graph.addPass(mlir::webnn::createWebNNFuseMatmulNBits());
  graph.addPass(mlir::webnn::createWebNNFuseRmsNorm());
  graph.addPass(mlir::webnn::createWebNNFuseRotary());
  graph.addPass(mlir::webnn::createWebNNFuseGroupQueryAttention());
  graph.addPass(mlir::webnn::createWebNNMergeMatmulNBits());  // q/k/v, gate/up: one GEMV each
  graph.addPass(mlir::webnn::createWebNNConvertLayout());
  graph.addPass(mlir::webnn::createWebNNFuseConv());
  graph.addPass(mlir::webnn::createWebNNFuseAttention());  // transformer encoders: heads read in place
  graph.addPass(mlir::webnn::createWebNNFuseMatmul());     // matmul + scale/bias/residual/gelu epilogues
  graph.addPass(mlir::webnn::createWebNNFoldConstants());
  pm.addPass(mlir::createCSEPass());
}

// --verify-each: the pass manager verifies after a pass only when the pass
// may have changed the IR; this verifies after every one, and names the
// pass that failed or broke the graph (the verifier's own message names
// only the op).
class VerifyEachPass : public mlir::PassInstrumentation {
 public:
  VerifyEachPass(CompileReport &report, std::string model) : report_(report), model_(std::move(model)) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (succeeded(mlir::verify(op))) return;
    std::lock_guard<std::mutex> lock(mutex_);
    report_.error(model_, "the graph does not verify after pass '" + passName(pass).str() + "'");
    broken = true;
  }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex_);
    report_.error(model_, "pass '" + passName(pass).str() +
                              "' failed (an error above, or the graph does not verify after it)");
  }

  std::atomic<bool> broken = false;  // function passes may run in parallel

 private:
  CompileReport &report_;
  std::string model_;
  std::mutex mutex_;

  static llvm::StringRef passName(mlir::Pass *pass) {
    return pass->getArgument().empty() ? pass->getName() : pass->getArgument();
  }
};

// Ops per name in the graph, for --report's before/after line.
std::map<std::string, int64_t> countOps(mlir::ModuleOp module) {
  std::map<std::string, int64_t> counts;
  module.walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "webnn")
      ++counts[op->getName().stripDialect().str()];
  });
  return counts;
}

// --report: one row per rewrite that fired, then the op counts that changed.
void printReport(const std::vector<mlir::webnn::RewriteCount> &rewrites, const std::map<std::string, int64_t> &before,
                 const std::map<std::string, int64_t> &after) {
  llvm::errs() << "webnnc: optimization report\n";
  llvm::errs() << llvm::format("  %-24s %-22s %8s\n", "pass", "rewrite", "count");
  bool any = false;
  for (const mlir::webnn::RewriteCount &c : rewrites) {
    if (c.count == 0) continue;
    any = true;
    llvm::errs() << llvm::format("  %-24s %-22s %8lld\n", c.pass.c_str(), c.rewrite.c_str(), (long long)c.count);
  }
  if (!any) llvm::errs() << "  (no rewrite fired)\n";
  std::set<std::string> names;
  for (const auto &[name, n] : before) names.insert(name);
  for (const auto &[name, n] : after) names.insert(name);
  llvm::errs() << llvm::format("  %-24s %8s %8s\n", "op", "before", "after");
  for (const std::string &name : names) {
    int64_t b = before.count(name) ? before.at(name) : 0, a = after.count(name) ? after.at(name) : 0;
    if (a != b) llvm::errs() << llvm::format("  %-24s %8lld %8lld\n", name.c_str(), (long long)b, (long long)a);
  }
}

// --prepack: the artifact is written once without packed constants, loaded
// by the runtime, whose kernels pack what they would pack at their first
// run, and written again with those bytes appended. Only the final file
// ever appears under the output name.
int writePrepacked(mlir::ModuleOp module, const CompileFlags &flags, mlir::webnn::ArtifactOptions options,
                   CompileReport &report) {
  if (flags.weightless) {
    report.error("", "--prepack needs the weights in the artifact (not --weightless)");
    return 2;
  }
  std::vector<int> threads = flags.prepackThreads;
  if (threads.empty()) {
    threads.push_back(1);
    if (unsigned n = std::thread::hardware_concurrency(); n > 1) threads.push_back(int(n));
  }
  llvm::SmallString<256> unpacked;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(flags.output + ".unpacked-%%%%%%", unpacked)) {
    report.error(flags.output, "cannot create a temporary file: " + ec.message());
    return 1;
  }
  llvm::scope_exit cleanup([&] { llvm::sys::fs::remove(unpacked); });
  if (failed(mlir::webnn::writeArtifact(module, unpacked, options))) return 1;
  std::vector<webnn::rt::NodePackedBytes> packed;
  webnn::Status s = webnn::rt::packArtifactConstants(std::string(unpacked), threads, &packed);
  if (s.code() == webnn::StatusCode::kUnsupported) {
    llvm::errs() << "webnnc: note: " << flags.output << ": nothing prepacked: " << s.message() << "\n";
  } else if (!s) {
    report.error(flags.output, "prepacking failed: " + s.message());
    return 1;
  }
  uint64_t bytes = 0;
  for (webnn::rt::NodePackedBytes &p : packed) {
    bytes += p.packed.bytes.size();
    options.packedConstants.push_back({p.node, uint32_t(p.packed.input), std::move(p.packed.layout),
                                       std::move(p.packed.bytes)});
  }
  if (flags.report)
    llvm::errs() << "webnnc: prepacked " << options.packedConstants.size() << " constant(s), "
                 << llvm::format("%.1f", double(bytes) / (1 << 20)) << " MiB\n";
  return failed(mlir::webnn::writeArtifact(module, flags.output, options)) ? 1 : 0;
}

// Size and SHA-256 (hex) of a written file, or false if it cannot be read.
bool hashFile(const std::string &path, uint64_t *bytes, std::string *sha256) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return false;
  llvm::SHA256 hash;
  hash.update(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
  std::array<uint8_t, 32> digest = hash.final();
  *bytes = (*buffer)->getBufferSize();
  *sha256 = llvm::toHex(digest, /*LowerCase=*/true);
  return true;
}

int compile(const CompileFlags &flags, CompileReport &report, std::string *weightsPath) {
  if (flags.json && flags.output == "-") {
    report.error("", "--json prints to stdout; write the output to a file, not -");
    return 2;
  }
  if (access(flags.model.c_str(), R_OK) != 0) {
    report.error(flags.model, "cannot read file");
    return 1;
  }
  mlir::MLIRContext ctx;
  mlir::webnn::loadFrontendDialects(ctx);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  // Binary inputs (ONNX) locate errors by file and node, not line: print
  // `model.onnx: error: node 'x' (Conv): ...` rather than `model.onnx:0:0:`.
  mlir::ScopedDiagnosticHandler wholeFile(&ctx, [](mlir::Diagnostic &d) {
    auto file = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation());
    if (!file || file.getLine() != 0) return mlir::failure();
    const char *kind = d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
                       : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
                                                                              : "note";
    llvm::errs() << file.getFilename().getValue() << ": " << kind << ": " << d.str() << "\n";
    for (const mlir::Diagnostic &note : d.getNotes())
      llvm::errs() << file.getFilename().getValue() << ": note: " << note.str() << "\n";
    return mlir::success();
  });
  // Registered last, so it sees each diagnostic first: keeps it for --json
  // and lets the handlers above print it.
  mlir::ScopedDiagnosticHandler keep(&ctx, [&](mlir::Diagnostic &d) {
    CompileReport::Message m;
    m.severity = d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
                 : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
                                                                        : "note";
    if (!fileLocation(d.getLocation(), &m.file, &m.line, &m.column)) m.file = flags.model;
    m.message = d.str();
    report.messages.push_back(std::move(m));
    for (const mlir::Diagnostic &note : d.getNotes()) {
      CompileReport::Message n{"note", "", 0, 0, note.str()};
      if (!fileLocation(note.getLocation(), &n.file, &n.line, &n.column)) n.file = flags.model;
      report.messages.push_back(std::move(n));
    }
    return mlir::failure();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module = importModel(ctx, flags, sourceMgr, report);
  if (!module || failed(mlir::verify(*module))) return 1;

  if (!flags.noOptimize) {
    mlir::PassManager pm(&ctx);
    buildCpuPipeline(pm);
    VerifyEachPass *verifyEach = nullptr;
    if (flags.verifyEach) {
      auto instrumentation = std::make_unique<VerifyEachPass>(report, flags.model);
      verifyEach = instrumentation.get();
      pm.addInstrumentation(std::move(instrumentation));
    }
    const bool counting = flags.report || flags.json;
    if (counting) report.opsBefore = countOps(*module);
    if (failed(pm.run(*module)) || (verifyEach && verifyEach->broken)) return 1;
    report.optimized = true;
    if (counting) {
      report.rewrites = mlir::webnn::takeRewriteCounts(&ctx);
      report.opsAfter = countOps(*module);
    }
    if (flags.report) printReport(report.rewrites, report.opsBefore, report.opsAfter);
  } else if (flags.report) {
    llvm::errs() << "webnnc: optimization report: --no-optimize, no pass ran\n";
  }

  if (flags.emit == "mlir") {
    std::error_code ec;
    llvm::raw_fd_ostream os(flags.output, ec);
    if (ec) {
      report.error(flags.output, ec.message());
      return 1;
    }
    module->print(os);
    return 0;
  }

  mlir::webnn::ArtifactOptions options;
  options.target = flags.target;
  options.weightless = flags.weightless;
  options.relaxedPrecision = flags.precision == "relaxed";
  if (flags.weightless) {
    if (!flags.weightsOut.empty()) {
      options.weightsPath = flags.weightsOut;
    } else {
      llvm::SmallString<256> w(flags.output);
      llvm::sys::path::replace_extension(w, ".weights");
      options.weightsPath = std::string(w);
    }
    *weightsPath = options.weightsPath;
  } else if (!flags.weightsOut.empty()) {
    report.error("", "--weights-out needs --weightless");
    return 2;
  }
  if (flags.prepack) return writePrepacked(*module, flags, std::move(options), report);
  return failed(mlir::webnn::writeArtifact(*module, flags.output, options)) ? 1 : 0;
}

nlohmann::json fileJson(const std::string &path, CompileReport &report) {
  nlohmann::json j;
  j["path"] = path;
  uint64_t bytes = 0;
  std::string sha;
  if (!hashFile(path, &bytes, &sha)) {
    report.error(path, "cannot read the written file back to hash it");
    return j;
  }
  j["bytes"] = bytes;
  j["sha256"] = sha;
  return j;
}

// The --json object (docs/CLI.md, "webnnc compile --json").
nlohmann::json resultJson(const CompileFlags &flags, int exitCode, CompileReport &report,
                          const std::string &weightsPath, double ms) {
  nlohmann::json j;
  j["tool"] = "webnnc";
  j["version"] = WEBNN_VERSION_STRING;
  // The writer and the runtime share schema/webnn_artifact_format.h.
  j["artifact_schema_version"] = webnn::artifactSchemaVersion();
  j["runtime_version"] = webnn::version();
  j["model"] = flags.model;
  if (exitCode == 0) {
    j["output"] = fileJson(flags.output, report);
    if (!weightsPath.empty()) j["weights"] = fileJson(weightsPath, report);
    if (report.hasErrors()) exitCode = 1;
  }
  j["status"] = exitCode == 0 ? "ok" : "error";
  j["exit_code"] = exitCode;
  nlohmann::json errors = nlohmann::json::array(), warnings = nlohmann::json::array();
  for (const CompileReport::Message &m : report.messages) {
    nlohmann::json e;
    e["severity"] = m.severity;
    if (!m.file.empty()) e["file"] = m.file;
    if (m.line > 0) {
      e["line"] = m.line;
      e["column"] = m.column;
    }
    e["message"] = m.message;
    (m.severity == "warning" ? warnings : errors).push_back(std::move(e));
  }
  j["errors"] = errors;
  j["warnings"] = warnings;
  nlohmann::json unsupported = nlohmann::json::array();
#ifdef HAVE_WEBNNFRONTENDONNX
  for (const mlir::webnn::UnsupportedOnnxOp &op : report.unsupportedOps)
    unsupported.push_back({{"domain", op.domain}, {"op_type", op.opType},
                           {"opset", op.opset >= 0 ? nlohmann::json(op.opset) : nlohmann::json()},
                           {"nodes", op.nodes}});
#endif
  j["unsupported_ops"] = unsupported;
  nlohmann::json rewrites = nlohmann::json::array();
  for (const mlir::webnn::RewriteCount &c : report.rewrites)
    if (c.count) rewrites.push_back({{"pass", c.pass}, {"rewrite", c.rewrite}, {"count", c.count}});
  j["optimized"] = report.optimized;
  j["rewrites"] = rewrites;
  nlohmann::json ops = nlohmann::json::object();
  std::set<std::string> names;
  for (const auto &[name, n] : report.opsBefore) names.insert(name);
  for (const auto &[name, n] : report.opsAfter) names.insert(name);
  for (const std::string &name : names) {
    auto count = [&](const std::map<std::string, int64_t> &m) { return m.count(name) ? m.at(name) : 0; };
    ops[name] = {{"before", count(report.opsBefore)}, {"after", count(report.opsAfter)}};
  }
  j["ops"] = ops;
  j["compile_ms"] = ms;
  return j;
}

}  // namespace

int reportCompileUsageError(const std::string &message) {
  CompileReport report;
  report.messages.push_back({"error", "", 0, 0, message});
  CompileFlags flags;
  std::cout << resultJson(flags, 2, report, "", 0).dump() << "\n";
  return 2;
}

int runCompile(const CompileFlags &flags) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileReport report;
  std::string weightsPath;
  int code = compile(flags, report, &weightsPath);
  if (!flags.json) return code;
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json j = resultJson(flags, code, report, weightsPath, ms);
  std::cout << j.dump() << "\n";
  return j["exit_code"].get<int>();
}

}  // namespace webnnc
