// webnn::compiler::compileFile / compileBuffer (webnn/compiler.h): import,
// optimize, write the artifact, and describe the result as `webnnc compile
// --json` does. Diagnostics are written to CompileResult::diagnostics in the
// form webnnc prints them; webnnc copies that text to stderr.
#include "webnn/compiler.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "compiler/artifact/ArtifactWriter.h"
#include "compiler/artifact/Placement.h"
#include "compiler/frontends/common/GraphBuilder.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "core/Prepack.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
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

namespace webnn::compiler {

namespace {

// One compile's state: the result being filled and the stream its
// diagnostics go to.
class Compilation {
 public:
  Compilation(const CompileOptions &options, CompileResult &result)
      : options_(options), result_(result), diag_(result.diagnostics) {}

  // `bytes` null: read the model from result.model, a path.
  int run(const std::string_view *bytes);

 private:
  // Writes `webnnc: error: FILE: MESSAGE` (webnnc's one-line form) and keeps it.
  void error(const std::string &file, const std::string &message) {
    diag_ << "webnnc: error: " << (file.empty() ? "" : file + ": ") << message << "\n";
    result_.messages.push_back({"error", file, 0, 0, message});
  }

  mlir::OwningOpRef<mlir::ModuleOp> importModel(mlir::MLIRContext &ctx, const std::string_view *bytes,
                                                llvm::SourceMgr &sourceMgr);
  void countOps(mlir::ModuleOp module, bool after);
  void printReport();
  int write(mlir::ModuleOp module);
  int writePrepacked(mlir::ModuleOp module, const std::string &output, mlir::webnn::ArtifactOptions options);
  int place(mlir::ModuleOp module, const std::string &output, mlir::webnn::ArtifactOptions *options);

  const CompileOptions &options_;
  CompileResult &result_;
  llvm::raw_string_ostream diag_;

  friend class VerifyEachPass;
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

const char *severityName(mlir::DiagnosticSeverity s) {
  return s == mlir::DiagnosticSeverity::Error ? "error" : s == mlir::DiagnosticSeverity::Warning ? "warning" : "note";
}

mlir::OwningOpRef<mlir::ModuleOp> Compilation::importModel(mlir::MLIRContext &ctx, const std::string_view *bytes,
                                                           llvm::SourceMgr &sourceMgr) {
  const std::string &path = result_.model;
  const bool onnxOptions = !options_.shapes.empty() || !options_.constInputs.empty() ||
                           !options_.dynamicDims.empty() || !options_.externalDataDirs.empty();
  if (endsWith(path, ".mlir")) {
    if (onnxOptions) {
      error("", "--shape, --dynamic-dim, --const-input and --external-data-dir apply to ONNX models only");
      return nullptr;
    }
    if (!bytes) return mlir::parseSourceFile<mlir::ModuleOp>(path, sourceMgr, &ctx);
    // In the diagnostics' SourceMgr, so errors show their source line.
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bytes->data(), bytes->size()), path), llvm::SMLoc());
    return mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  }
#ifdef HAVE_WEBNNFRONTENDONNX
  if (endsWith(path, ".onnx")) {
    mlir::webnn::OnnxImportOptions onnx;
    for (const std::string &s : options_.shapes) {
      std::string e;
      if (!mlir::webnn::parseShapeFlag(s, onnx, &e)) {
        error("", "--shape " + s + ": " + e);
        return nullptr;
      }
    }
    for (const std::string &s : options_.dynamicDims) {
      std::string e;
      if (!mlir::webnn::parseDynamicDimFlag(s, onnx, &e)) {
        error("", "--dynamic-dim " + s + ": " + e);
        return nullptr;
      }
    }
    for (const std::string &s : options_.constInputs) {
      std::string e;
      if (!mlir::webnn::parseConstInputFlag(s, onnx, &e)) {
        error("", "--const-input " + s + ": " + e);
        return nullptr;
      }
    }
    for (const std::string &dir : options_.externalDataDirs) {
      if (!llvm::sys::fs::is_directory(dir)) {
        error("", "--external-data-dir " + dir + ": not a folder");
        return nullptr;
      }
      onnx.externalDataDirs.push_back(dir);
    }
    std::vector<mlir::webnn::UnsupportedOnnxOp> unsupported;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        bytes ? mlir::webnn::importOnnxBuffer(ctx, llvm::StringRef(bytes->data(), bytes->size()), path, onnx,
                                              &unsupported)
              : mlir::webnn::importOnnxFile(ctx, path, onnx, &unsupported);
    for (mlir::webnn::UnsupportedOnnxOp &op : unsupported)
      result_.unsupportedOps.push_back({std::move(op.domain), std::move(op.opType), op.opset, std::move(op.nodes)});
    return module;
  }
#endif
#ifdef HAVE_WEBNNFRONTENDDSL
  if (endsWith(path, ".webnn") || endsWith(path, ".json")) {
    if (onnxOptions) {
      error("", "--shape, --dynamic-dim, --const-input and --external-data-dir apply to ONNX models only");
      return nullptr;
    }
    if (bytes) return mlir::webnn::importWebNNGraphSource(ctx, llvm::StringRef(bytes->data(), bytes->size()), path);
    return mlir::webnn::importWebNNGraphFile(ctx, path);
  }
#endif
  error(path, "unknown model format (expected .webnn, .json, .onnx or .mlir)");
  return nullptr;
}

// The optimization pipeline for --target cpu: fold shape arithmetic first so
// layouts and fusions see constants, run channels-last (oneDNN's direct
// convolutions reach 97-100% of peak on nhwc, shared/notes/cpu-kernels.md),
// fuse conv chains into oneDNN post-ops, then fold the constants the
// rewrites created (permuted bias adds) and CSE. `cpuTarget`: also form
// the ops only the CPU backend runs (quantizedConv2d, channelShuffle), not
// for GPU targets.
void buildCpuPipeline(mlir::PassManager &pm, bool cpuTarget) {
  mlir::OpPassManager &graph = pm.nest<mlir::func::FuncOp>();
  graph.addPass(mlir::webnn::createWebNNFoldConstants());
  // int8 QDQ graphs: the quantize/dequantize pairs around each matmul into
  // one integer op, before any other fusion takes the matmul or its bias.
  mlir::webnn::WebNNFuseQdqOptions qdq;
  qdq.convs = cpuTarget;
  graph.addPass(mlir::webnn::createWebNNFuseQdq(qdq));
  // Decoder LLMs (docs/LLM.md), on the graph as exported: before layout
  // conversion sinks the head-split transposes through the rotary multiplies,
  // and before the transformer fusions take the scales and residual adds.
  // Norms and rotary first, so attention finds rotaryEmbeddings to absorb.
  graph.addPass(mlir::webnn::createWebNNFuseMatmulNBits());
  graph.addPass(mlir::webnn::createWebNNFuseRmsNorm());
  graph.addPass(mlir::webnn::createWebNNFuseRotary());
  graph.addPass(mlir::webnn::createWebNNFuseGroupQueryAttention());
  graph.addPass(mlir::webnn::createWebNNMergeMatmulNBits());  // q/k/v, gate/up: one GEMV each
  graph.addPass(mlir::webnn::createWebNNConvertLayout());
  graph.addPass(mlir::webnn::createWebNNFoldNormAffine());  // GroupNorm(C, C)'s affine muls and adds
  graph.addPass(mlir::webnn::createWebNNPoolBeforePointwise());  // DenseNet's transitions: 1x1 conv on the pooled map
  // DenseNet's pre-activation batchNorm + relu as a depthwise 1x1 that the
  // CPU runtime runs together with the 1x1 convolution after it.
  if (cpuTarget) graph.addPass(mlir::webnn::createWebNNBatchNormReluToDepthwise());
  graph.addPass(mlir::webnn::createWebNNFuseConv());
  if (cpuTarget) graph.addPass(mlir::webnn::createWebNNFuseChannelShuffle());  // ShuffleNet: one copy per unit
  graph.addPass(mlir::webnn::createWebNNFuseAttention());  // transformer encoders: heads read in place
  graph.addPass(mlir::webnn::createWebNNFuseMatmul());     // matmul + scale/bias/residual/gelu epilogues
  graph.addPass(mlir::webnn::createWebNNSinkReshapes());  // gelu (formed above) next to its producer: run-time pairs
  graph.addPass(mlir::webnn::createWebNNFoldConstants());
  pm.addPass(mlir::createCSEPass());
}

// --verify-each: the pass manager verifies after a pass only when the pass
// may have changed the IR; this verifies after every one, and names the
// pass that failed or broke the graph (the verifier's own message names
// only the op).
class VerifyEachPass : public mlir::PassInstrumentation {
 public:
  explicit VerifyEachPass(Compilation &compilation) : compilation_(compilation) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (succeeded(mlir::verify(op))) return;
    std::lock_guard<std::mutex> lock(mutex_);
    compilation_.error(compilation_.result_.model,
                       "the graph does not verify after pass '" + passName(pass).str() + "'");
    broken = true;
  }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex_);
    compilation_.error(compilation_.result_.model,
                       "pass '" + passName(pass).str() +
                           "' failed (an error above, or the graph does not verify after it)");
  }

  std::atomic<bool> broken = false;  // function passes may run in parallel

 private:
  Compilation &compilation_;
  std::mutex mutex_;

  static llvm::StringRef passName(mlir::Pass *pass) {
    return pass->getArgument().empty() ? pass->getName() : pass->getArgument();
  }
};

void Compilation::countOps(mlir::ModuleOp module, bool after) {
  module.walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "webnn") {
      OpCount &c = result_.ops[op->getName().stripDialect().str()];
      ++(after ? c.after : c.before);
    }
  });
}

// --report: one row per rewrite that fired, then the op counts that changed.
void Compilation::printReport() {
  diag_ << "webnnc: optimization report\n";
  diag_ << llvm::format("  %-24s %-22s %8s\n", "pass", "rewrite", "count");
  for (const RewriteCount &c : result_.rewrites)
    diag_ << llvm::format("  %-24s %-22s %8lld\n", c.pass.c_str(), c.rewrite.c_str(), (long long)c.count);
  if (result_.rewrites.empty()) diag_ << "  (no rewrite fired)\n";
  diag_ << llvm::format("  %-24s %8s %8s\n", "op", "before", "after");
  for (const auto &[name, c] : result_.ops)
    if (c.before != c.after)
      diag_ << llvm::format("  %-24s %8lld %8lld\n", name.c_str(), (long long)c.before, (long long)c.after);
}

// --prepack: the artifact is written once without packed constants, loaded
// by the runtime, whose kernels pack what they would pack at their first
// run, and written again with those bytes appended. Only the final file
// ever appears under the output name.
// --target gpu|auto: the artifact is written once without placements,
// loaded as the runtime loads it, placed from the backends' op support
// tables (compiler/artifact/Placement.h) and, by the caller, written again
// with Node.backend set. Only the final file appears under the output name.
int Compilation::place(mlir::ModuleOp module, const std::string &output, mlir::webnn::ArtifactOptions *options) {
  llvm::SmallString<256> unplaced;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(output + ".unplaced-%%%%%%", unplaced)) {
    error(output, "cannot create a temporary file: " + ec.message());
    return 1;
  }
  llvm::scope_exit cleanup([&] { llvm::sys::fs::remove(unplaced); });
  mlir::webnn::ArtifactOptions first = *options;
  first.weightless = false;  // one temporary file; the placement reads shapes and types only
  first.weightsPath.clear();
  if (failed(mlir::webnn::writeArtifact(module, unplaced, first))) return 1;
  webnn::placement::Result placed;
  webnn::Status s = webnn::placement::placeArtifact(std::string(unplaced), options_.target, &placed);
  if (!s) {
    error(output, "placement failed: " + s.message());
    return 1;
  }
  options->nodeBackends = placed.nodeBackends;
  diag_ << webnn::placement::summaryText(placed);
  result_.target = placed.target;
  result_.placement = placed.counts;
  for (const webnn::placement::Fallback &f : placed.fallbacks)
    result_.placementFallbacks.push_back({f.node, f.name, f.op, f.reason});
  result_.placementNotes = placed.notes;
  return 0;
}

int Compilation::writePrepacked(mlir::ModuleOp module, const std::string &output,
                                mlir::webnn::ArtifactOptions options) {
  if (options_.weightless) {
    error("", "--prepack needs the weights in the artifact (not --weightless)");
    return 2;
  }
  std::vector<int> threads = options_.prepackThreads;
  if (threads.empty()) {
    threads.push_back(1);
    if (unsigned n = std::thread::hardware_concurrency(); n > 1) threads.push_back(int(n));
  }
  llvm::SmallString<256> unpacked;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(output + ".unpacked-%%%%%%", unpacked)) {
    error(options_.output, "cannot create a temporary file: " + ec.message());
    return 1;
  }
  llvm::scope_exit cleanup([&] { llvm::sys::fs::remove(unpacked); });
  if (failed(mlir::webnn::writeArtifact(module, unpacked, options))) return 1;
  std::vector<webnn::rt::NodePackedBytes> packed;
  webnn::Status s = webnn::rt::packArtifactConstants(std::string(unpacked), threads, &packed);
  const std::string shown = options_.output.empty() ? "<artifact in memory>" : options_.output;
  if (s.code() == webnn::StatusCode::kUnsupported) {
    diag_ << "webnnc: note: " << shown << ": nothing prepacked: " << s.message() << "\n";
  } else if (!s) {
    error(shown, "prepacking failed: " + s.message());
    return 1;
  }
  uint64_t bytes = 0;
  for (webnn::rt::NodePackedBytes &p : packed) {
    bytes += p.packed.bytes.size();
    options.packedConstants.push_back({p.node, uint32_t(p.packed.input), std::move(p.packed.layout),
                                       std::move(p.packed.bytes)});
  }
  if (options_.report)
    diag_ << "webnnc: prepacked " << options.packedConstants.size() << " constant(s), "
          << llvm::format("%.1f", double(bytes) / (1 << 20)) << " MiB\n";
  return failed(mlir::webnn::writeArtifact(module, output, options)) ? 1 : 0;
}

// Size and SHA-256 (hex) of `bytes`.
void describeBytes(llvm::StringRef bytes, WrittenFile *file) {
  llvm::SHA256 hash;
  hash.update(llvm::arrayRefFromStringRef(bytes));
  std::array<uint8_t, 32> digest = hash.final();
  file->bytes = bytes.size();
  file->sha256 = llvm::toHex(digest, /*LowerCase=*/true);
}

// Reads a written file back for its size and hash, and its bytes into
// `keep` when given. False when it cannot be read.
bool readBack(const std::string &path, WrittenFile *file, std::string *keep) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return false;
  describeBytes((*buffer)->getBuffer(), file);
  if (keep) *keep = (*buffer)->getBuffer().str();
  return true;
}

// A file name for an output returned in memory; removed by the caller.
bool temporaryPath(const char *suffix, llvm::SmallString<256> *path) {
  return !llvm::sys::fs::createTemporaryFile("webnn-compile", suffix, *path);
}

int Compilation::write(mlir::ModuleOp module) {
  const bool inMemory = options_.output.empty();
  if (options_.emit == "mlir") {
    if (inMemory) {
      llvm::raw_string_ostream os(result_.artifact);
      module.print(os);
      os.flush();
      describeBytes(result_.artifact, &result_.output);
      return 0;
    }
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(options_.output, ec);
      if (ec) {
        error(options_.output, ec.message());
        return 1;
      }
      module.print(os);
    }
    if (!readBack(options_.output, &result_.output, nullptr)) {
      error(options_.output, "cannot read the written file back to hash it");
      return 1;
    }
    result_.output.path = options_.output;
    return 0;
  }

  mlir::webnn::ArtifactOptions artifactOptions;
  artifactOptions.target = options_.target;
  artifactOptions.weightless = options_.weightless;
  artifactOptions.relaxedPrecision = options_.precision == "relaxed";
  llvm::SmallString<256> tempArtifact, tempWeights;
  llvm::scope_exit cleanup([&] {
    if (!tempArtifact.empty()) llvm::sys::fs::remove(tempArtifact);
    if (!tempWeights.empty()) llvm::sys::fs::remove(tempWeights);
  });
  std::string output = options_.output;
  if (inMemory) {
    if (!temporaryPath("wnn", &tempArtifact)) {
      error("", "cannot create a temporary file for the artifact");
      return 1;
    }
    output = std::string(tempArtifact);
  }
  if (options_.weightless) {
    if (!options_.weightsOut.empty()) {
      artifactOptions.weightsPath = options_.weightsOut;
    } else if (inMemory) {
      if (!temporaryPath("weights", &tempWeights)) {
        error("", "cannot create a temporary file for the weights");
        return 1;
      }
      artifactOptions.weightsPath = std::string(tempWeights);
    } else {
      llvm::SmallString<256> w(options_.output);
      llvm::sys::path::replace_extension(w, ".weights");
      artifactOptions.weightsPath = std::string(w);
    }
  } else if (!options_.weightsOut.empty()) {
    error("", "--weights-out needs --weightless");
    return 2;
  }
  if (options_.target != "cpu") {
    int placed = place(module, output, &artifactOptions);
    if (placed != 0) return placed;
  }
  int code = options_.prepack ? writePrepacked(module, output, std::move(artifactOptions))
                              : (failed(mlir::webnn::writeArtifact(module, output, artifactOptions)) ? 1 : 0);
  if (code != 0) return code;

  if (!readBack(output, &result_.output, inMemory ? &result_.artifact : nullptr)) {
    error(output, "cannot read the written file back to hash it");
    return 1;
  }
  if (!inMemory) result_.output.path = output;
  if (options_.weightless) {
    const std::string weights = options_.weightsOut.empty() && inMemory ? std::string(tempWeights)
                                                                         : artifactOptions.weightsPath;
    if (!readBack(weights, &result_.weights, tempWeights.empty() ? nullptr : &result_.weightsBytes)) {
      error(weights, "cannot read the written file back to hash it");
      return 1;
    }
    if (tempWeights.empty()) result_.weights.path = weights;
  }
  return 0;
}

int Compilation::run(const std::string_view *bytes) {
  if (options_.emit != "artifact" && options_.emit != "mlir") {
    error("", "emit must be \"artifact\" or \"mlir\", got \"" + options_.emit + "\"");
    return 2;
  }
  if (options_.precision != "exact" && options_.precision != "relaxed") {
    error("", "precision must be \"exact\" or \"relaxed\", got \"" + options_.precision + "\"");
    return 2;
  }
  if (!webnn::placement::isTarget(options_.target)) {
    error("", "target must be \"cpu\", \"gpu\" or \"auto\", got \"" + options_.target + "\"");
    return 2;
  }
  for (int t : options_.prepackThreads)
    if (t < 1 || t > webnn::kMaxThreads) {
      error("", "prepack thread counts must be 1.." + std::to_string(webnn::kMaxThreads) + ", got " +
                    std::to_string(t));
      return 2;
    }
  if (!bytes && access(result_.model.c_str(), R_OK) != 0) {
    error(result_.model, "cannot read file");
    return 1;
  }
  mlir::MLIRContext ctx;
  mlir::webnn::loadFrontendDialects(ctx);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx, diag_);
  // Binary inputs (ONNX) locate errors by file and node, not line: print
  // `model.onnx: error: node 'x' (Conv): ...` rather than `model.onnx:0:0:`.
  mlir::ScopedDiagnosticHandler wholeFile(&ctx, [&](mlir::Diagnostic &d) {
    auto file = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation());
    if (!file || file.getLine() != 0) return mlir::failure();
    diag_ << file.getFilename().getValue() << ": " << severityName(d.getSeverity()) << ": " << d.str() << "\n";
    for (const mlir::Diagnostic &note : d.getNotes())
      diag_ << file.getFilename().getValue() << ": note: " << note.str() << "\n";
    return mlir::success();
  });
  // Registered last, so it sees each diagnostic first: keeps it for the
  // result and lets the handlers above print it.
  mlir::ScopedDiagnosticHandler keep(&ctx, [&](mlir::Diagnostic &d) {
    CompileMessage m;
    m.severity = severityName(d.getSeverity());
    if (!fileLocation(d.getLocation(), &m.file, &m.line, &m.column)) m.file = result_.model;
    m.message = d.str();
    result_.messages.push_back(std::move(m));
    for (const mlir::Diagnostic &note : d.getNotes()) {
      CompileMessage n{"note", "", 0, 0, note.str()};
      if (!fileLocation(note.getLocation(), &n.file, &n.line, &n.column)) n.file = result_.model;
      result_.messages.push_back(std::move(n));
    }
    return mlir::failure();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module = importModel(ctx, bytes, sourceMgr);
  if (!module || failed(mlir::verify(*module))) return 1;

  if (options_.optimize) {
    mlir::PassManager pm(&ctx);
    buildCpuPipeline(pm, options_.target == "cpu");
    VerifyEachPass *verifyEach = nullptr;
    if (options_.verifyEach) {
      auto instrumentation = std::make_unique<VerifyEachPass>(*this);
      verifyEach = instrumentation.get();
      pm.addInstrumentation(std::move(instrumentation));
    }
    countOps(*module, /*after=*/false);
    if (failed(pm.run(*module)) || (verifyEach && verifyEach->broken)) return 1;
    result_.optimized = true;
    for (mlir::webnn::RewriteCount &c : mlir::webnn::takeRewriteCounts(&ctx))
      if (c.count) result_.rewrites.push_back({std::move(c.pass), std::move(c.rewrite), c.count});
    countOps(*module, /*after=*/true);
    if (options_.report) printReport();
  } else if (options_.report) {
    diag_ << "webnnc: optimization report: --no-optimize, no pass ran\n";
  }
  return write(*module);
}

CompileResult compile(const std::string &model, const std::string_view *bytes, const CompileOptions &options) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileResult result;
  result.model = model;
  {
    Compilation compilation(options, result);
    result.exitCode = compilation.run(bytes);
  }
  if (result.exitCode == 0)
    for (const CompileMessage &m : result.messages)
      if (m.severity == "error") result.exitCode = 1;
  if (result.exitCode != 0) {
    result.output = {};
    result.weights = {};
    result.artifact.clear();
    result.weightsBytes.clear();
  }
  result.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

nlohmann::json fileJson(const WrittenFile &f) {
  nlohmann::json j;
  if (!f.path.empty()) j["path"] = f.path;
  j["bytes"] = f.bytes;
  j["sha256"] = f.sha256;
  return j;
}

}  // namespace

CompileResult compileFile(const std::string &path, const CompileOptions &options) {
  return compile(path, nullptr, options);
}

CompileResult compileBuffer(std::string_view bytes, const std::string &name, const CompileOptions &options) {
  return compile(name, &bytes, options);
}

// The --json object (docs/CLI.md, "webnnc compile --json").
std::string CompileResult::json() const {
  nlohmann::json j;
  j["tool"] = "webnnc";
  j["version"] = WEBNN_VERSION_STRING;
  // The writer and the runtime share schema/webnn_artifact_format.h.
  j["artifact_schema_version"] = webnn::artifactSchemaVersion();
  j["runtime_version"] = webnn::version();
  j["model"] = model;
  if (ok() && !output.sha256.empty()) j["output"] = fileJson(output);
  if (ok() && !weights.sha256.empty()) j["weights"] = fileJson(weights);
  j["status"] = ok() ? "ok" : "error";
  j["exit_code"] = exitCode;
  nlohmann::json errors = nlohmann::json::array(), warnings = nlohmann::json::array();
  for (const CompileMessage &m : messages) {
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
  for (const UnsupportedOp &op : unsupportedOps)
    unsupported.push_back({{"domain", op.domain}, {"op_type", op.opType},
                           {"opset", op.opset >= 0 ? nlohmann::json(op.opset) : nlohmann::json()},
                           {"nodes", op.nodes}});
  j["unsupported_ops"] = unsupported;
  nlohmann::json rewriteList = nlohmann::json::array();
  for (const RewriteCount &c : rewrites)
    rewriteList.push_back({{"pass", c.pass}, {"rewrite", c.rewrite}, {"count", c.count}});
  j["optimized"] = optimized;
  j["rewrites"] = rewriteList;
  nlohmann::json opCounts = nlohmann::json::object();
  for (const auto &[name, c] : ops) opCounts[name] = {{"before", c.before}, {"after", c.after}};
  j["ops"] = opCounts;
  j["compile_ms"] = compileMs;
  if (!target.empty()) {
    nlohmann::json fallbacks = nlohmann::json::array();
    for (const PlacementFallback &f : placementFallbacks)
      fallbacks.push_back({{"node", f.node}, {"name", f.name}, {"op", f.op}, {"reason", f.reason}});
    j["placement"] = {{"target", target}, {"nodes", placement}, {"fallbacks", fallbacks}, {"notes", placementNotes}};
  }
  return j.dump();
}

std::string usageErrorJson(const std::string &message, const std::string &model) {
  CompileResult result;
  result.model = model;
  result.exitCode = 2;
  result.messages.push_back({"error", "", 0, 0, message});
  return result.json();
}

}  // namespace webnn::compiler
