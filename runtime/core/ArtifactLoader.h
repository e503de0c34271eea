// Load and verify a .wnn artifact (schema/webnn_artifact.fbs).
//
// Nothing read from the file is trusted before it is checked: the header
// against the file size, the FlatBuffer with flatbuffers::Verifier, then the
// graph's meaning (indices, single producers, topological order, constant
// ranges and sizes, shape arithmetic). Weight bytes are never touched here for
// embedded weights, so loading costs the graph's size, not the weights'.
#ifndef WEBNN_RUNTIME_CORE_ARTIFACTLOADER_H
#define WEBNN_RUNTIME_CORE_ARTIFACTLOADER_H

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/Kernel.h"
#include "core/DynamicShapes.h"
#include "core/MappedFile.h"
#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::rt {

// kSubgraphInput: bound by the control-flow node that runs the subgraph.
enum class TensorRole : uint8_t { kIntermediate, kInput, kConstant, kSubgraphInput };

struct LoadedTensor {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;        // with every dynamic dimension at its maximum
  uint64_t byteSize = 0;
  TensorDims dims;    // per dimension when any is dynamic, else empty
  // Graph inputs/outputs: the type callers exchange (Tensor.interface_type),
  // a type with isInterfaceTypeOf(it, dtype); else `dtype`.
  DataType interfaceType = DataType::kFloat32;
  uint64_t interfaceByteSize = 0;
  TensorRole role = TensorRole::kIntermediate;
  const uint8_t *constantData = nullptr;  // into a mapping, for kConstant
  int32_t producer = -1;                  // node index, for kIntermediate
  // The subgraph whose nodes (or inputs) define it, -1 for the main graph;
  // `producer` indexes that subgraph's nodes.
  int32_t scope = -1;
  // A loop's scan output: dimension 0 is the number of iterations that ran
  // (at most shape[0]), known after the run; no node may read it.
  bool runLength = false;
};

struct LoadedNode {
  std::string op;
  std::string name;
  std::vector<int32_t> inputs;   // -1 = absent optional operand
  std::vector<int32_t> outputs;
  NodeAttributes attributes;
  std::vector<PackedOperand> packed;  // data points into the mapping
  std::vector<uint32_t> subgraphs;  // "if": then, else; "loop": body
  std::string backend;  // Node.backend: the placement recorded at compile time, empty = default
};

// A control-flow node's nested graph (Graph.subgraphs), over the same tensors.
struct LoadedSubgraph {
  std::vector<LoadedNode> nodes;
  std::vector<uint32_t> inputs;   // bound by the owning node at each run
  std::vector<uint32_t> outputs;  // what it yields
};

struct LoadedGraph {
  std::string name;
  std::string producer;
  std::vector<LoadedTensor> tensors;
  std::vector<LoadedNode> nodes;
  std::vector<LoadedSubgraph> subgraphs;  // empty without control flow
  std::vector<uint32_t> inputs;   // tensor indices
  std::vector<uint32_t> outputs;  // tensor indices
  std::vector<DynamicDimension> dynamicDims;  // empty for a static graph
  uint64_t weightsSize = 0;
  bool weightless = false;
  bool relaxedPrecision = false;  // Graph.precision == relaxed
  MappedFile artifact;
  MappedFile weights;             // only for weightless artifacts
};

struct LoaderOptions {
  // Weights file for a weightless artifact; must be empty otherwise.
  std::string weightsPath;
  // Also hash embedded constants against Constant.sha256 (reads every weight
  // byte; off by default). External weights are always hashed.
  bool verifyEmbeddedHashes = false;
  // Load a weightless artifact without its weights file: everything is
  // verified except the constants' bytes, whose `constantData` stays null.
  // For describing and costing a graph before downloading its weights
  // (`webnnc inspect`); such a graph cannot run.
  bool allowUnboundWeights = false;
  // Whether an op can run; unknown ops are reported at load, all at once,
  // saying which backends were asked (`backends`, e.g. "backend 'cpu'").
  std::function<bool(std::string_view op)> hasKernel;
  std::string backends;
};

Status loadArtifact(const std::string &path, const LoaderOptions &options, LoadedGraph *out);
// The same checks over bytes already in memory (64-byte aligned: constants
// are used in place): `artifact`, named `label` in messages where a path
// would be, and for a weightless artifact `weights` (`weightsLabel` empty
// when there are none; options.weightsPath is then unused). The bytes end
// up in out->artifact / out->weights.
Status loadArtifact(MappedFile artifact, const std::string &label, MappedFile weights,
                    const std::string &weightsLabel, const LoaderOptions &options, LoadedGraph *out);

}  // namespace webnn::rt

#endif
