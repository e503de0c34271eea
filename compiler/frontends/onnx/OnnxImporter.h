// The ONNX front end: reads a ModelProto (.onnx) and builds the equivalent
// WebNN graph, a module holding `func.func @main` of webnn.* ops.
//
// Errors are reported through the MLIRContext's diagnostic handlers (the
// caller installs one). Every diagnostic raised while importing is reported
// at `FileLineColLoc(path, 0, 0)` -- line 0 meaning "the file as a whole" --
// with a message that starts with "node 'NAME' (OpType): " when a node is at
// fault, so a driver prints `model.onnx: error: node 'conv1' (Conv): ...`.
// The ops in the returned module keep richer locations:
// `fused<"OpType">[NameLoc(node name), FileLineColLoc(path, 0, 0)]`.
#ifndef WEBNN_FRONTENDS_ONNX_ONNXIMPORTER_H
#define WEBNN_FRONTENDS_ONNX_ONNXIMPORTER_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::webnn {

struct OnnxImportOptions {
  // `--shape NAME=1x3x224x224`: the whole static shape of graph input NAME.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  // `--shape DIM_PARAM:VALUE`: every symbolic dimension named DIM_PARAM
  // (ONNX `dim_param`) becomes VALUE.
  std::vector<std::pair<std::string, int64_t>> dimParams;
  // `--dynamic-dim DIM_PARAM=MAX`: every dimension named DIM_PARAM stays
  // dynamic (0..MAX at run time; one artifact serves every size).
  std::vector<std::pair<std::string, int64_t>> dynamicDims;
  // `--const-input NAME=FILE.pb`: graph input NAME becomes a constant read
  // from FILE, a serialized TensorProto (as in ONNX test_data_set_*/input_N.pb).
  // For inputs a conversion needs as constants (Reshape's shape, Squeeze's
  // axes, Clip's bounds) that a model left as graph inputs.
  std::vector<std::pair<std::string, std::string>> constantInputs;
  // Initializers of at least this many bytes become DenseResourceElementsAttr
  // (one copy, no uniquing hash); smaller ones DenseElementsAttr.
  size_t resourceThresholdBytes = 4096;
  // `--external-data-dir DIR`: folders besides the model's own that an
  // external_data location may resolve into (through a symlink in the
  // model's folder); the location itself stays a relative path without "..".
  std::vector<std::string> externalDataDirs;
};

// Parses one `--shape` flag into `opts`: `NAME=1x3x224x224` (an input's whole
// shape; `NAME=` alone is a scalar), `DIM_PARAM:VALUE` or
// `NAME=DIM_PARAM:VALUE` (a symbolic dimension; dim_param names are global to
// the graph, so NAME is informative only). False with `*error` set otherwise.
bool parseShapeFlag(const std::string &flag, OnnxImportOptions &opts, std::string *error);
// Parses one `--const-input NAME=FILE.pb` flag into `opts.constantInputs`.
// `DIM_PARAM=MAX` (MAX >= 2).
bool parseDynamicDimFlag(const std::string &flag, OnnxImportOptions &opts, std::string *error);
bool parseConstInputFlag(const std::string &flag, OnnxImportOptions &opts, std::string *error);

// An ONNX operator no conversion handles, with every node that uses it.
struct UnsupportedOnnxOp {
  std::string domain;  // "ai.onnx" for the default domain
  std::string opType;
  int64_t opset = -1;  // the model's opset for the domain; -1: the domain is not in opset_import
  // Node names (OpType_INDEX for an unnamed node, INDEX counted in its own
  // graph), the nodes of If/Loop/Scan bodies included.
  std::vector<std::string> nodes;
};

// Returns null after emitting diagnostics on error. Before converting, the
// importer checks every node of the model, subgraphs included, against the
// conversion table and fails with one error naming every operator it lacks;
// `unsupported`, if given, then receives them as a list, in the order the
// error names them (empty when every operator is handled).
OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &ctx, llvm::StringRef path,
                                     const OnnxImportOptions &opts,
                                     std::vector<UnsupportedOnnxOp> *unsupported = nullptr);

// Same, from a serialized ModelProto already in memory. `path` names the
// model in diagnostics and anchors relative external-data locations.
OwningOpRef<ModuleOp> importOnnxBuffer(MLIRContext &ctx, llvm::StringRef bytes,
                                       llvm::StringRef path, const OnnxImportOptions &opts,
                                       std::vector<UnsupportedOnnxOp> *unsupported = nullptr);

}  // namespace mlir::webnn

#endif
