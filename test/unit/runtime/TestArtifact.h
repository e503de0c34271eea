// Builds .wnn artifacts (and weights files) byte by byte for runtime tests,
// with knobs to make them wrong in one specific way.
#ifndef WEBNN_TEST_UNIT_RUNTIME_TESTARTIFACT_H
#define WEBNN_TEST_UNIT_RUNTIME_TESTARTIFACT_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::rt {
struct PreparedGraph;
}

namespace webnn::test {

struct TTensor {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  // Per dimension, the TGraph::dynamicDims index it equals (its shape entry
  // is then that dimension's maximum), or -1; empty = all static.
  std::vector<int> dynamic = {};
  std::optional<DataType> interfaceType;  // Tensor.interface_type, when set
  // Per dimension, TGraph::dynamicDims indices whose sizes add up to it
  // ("past + seq"); takes precedence over `dynamic` where non-empty.
  std::vector<std::vector<int>> dynamicSum = {};
};

struct TConstant {
  uint32_t tensor = 0;
  std::vector<uint8_t> bytes;
  std::string key;
  std::optional<uint64_t> offset;  // default: next 64-byte boundary
  std::optional<uint64_t> length;  // default: bytes.size()
};

struct TPacked {  // Graph.packed_constants
  uint32_t node = 0, input = 0;
  std::string layout;
  std::vector<uint8_t> bytes;
  std::optional<uint64_t> offset;  // default: next 64-byte boundary after the constants
  std::optional<uint64_t> length;  // default: bytes.size()
};

struct TAttribute {
  std::string name;
  int kind = 0;  // webnn::artifact::AttributeKind
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
};

struct TNode {
  std::string op;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::string name;
  std::vector<TAttribute> attributes;
  std::vector<uint32_t> subgraphs = {};  // Node.subgraphs (control flow)
  std::string backend = {};              // Node.backend (placement), empty = absent
};

struct TSubgraph {
  std::vector<TNode> nodes;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

struct TGraph {
  std::string name = "test";
  std::vector<TTensor> tensors;
  std::vector<TConstant> constants;
  std::vector<TNode> nodes;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  // Claim a weight segment of this many bytes while writing only the bytes of
  // constants; the caller extends the file (sparse) to match.
  std::optional<uint64_t> segmentSize;
  uint8_t precision = 0;  // Graph.precision: 0 exact, 1 relaxed, others unknown
  std::vector<std::pair<std::string, int64_t>> dynamicDims;  // (name, maxSize)
  std::vector<TPacked> packed;
  std::vector<TSubgraph> subgraphs;
};

struct Built {
  std::vector<uint8_t> artifact;
  std::vector<uint8_t> weights;  // weights file, when weightless
};

Built buildArtifact(const TGraph &g, bool weightless = false);

std::vector<uint8_t> floatBytes(const std::vector<float> &v);
// A fresh directory under the test temp dir.
std::string tempDir(const std::string &tag);
void writeFile(const std::string &path, const std::vector<uint8_t> &bytes);
// Writes g as tempDir(tag)/NAME.wnn, loads it knowing every registered
// backend's ops and prepares it: where placement and executor tests start.
Status writeAndPrepare(const TGraph &g, const std::string &tag, std::shared_ptr<rt::PreparedGraph> *out);

// Small graphs shared by tests and the artifact generator.
// y = relu(x + c), x: float32 [2,3], c: constant [2,3] = {-3,-2,-1,1,2,3}
TGraph addReluGraph();
// Zero nodes: output "y" is input "x" itself, output "k" is a constant.
TGraph passthroughGraph();
// y = relu(x), x: float32 [n, 2] with dynamic n <= 8.
TGraph dynamicReluGraph();
// groupQueryAttention over a dynamic past (<= 16) and sequence (<= 8): q
// [1, seq, 32] (2 heads), k, v [1, seq, 16] (1 KV head), pastKey/pastValue
// [1, 1, past, 16], seqlensK int32 [1]; outputs y [1, seq, 32] and
// presentKey/presentValue [1, 1, past + seq, 16].
TGraph gqaCacheGraph(DataType f = DataType::kFloat32);
// Control flow. Tensors: 0 "m" int64 [] (trip count), 1 "a" float32 [2],
// 2 "b" float32 [2], 3 constant "one" float32 [2] = {1, 1}; subgraph 0, the
// loop body: inputs 4 iteration int64 [], 5 condition uint8 [], 6 and 7 the
// carried (a, b); node add(6, one) -> 8; yields (5, 8, 6): each iteration
// maps (a, b) to (a + 1, a), so the new second carried value is the old
// first one (copying yields in place would lose it). Node 0 loop(m, -1, a, b) ->
// outputs 9 "x", 10 "y".
TGraph swapLoopGraph();
// x float32 `from` (input) -> relu -> r -> reshape -> s `to` -> `after` -> z
// (output), plus `after`(r) -> w (output) when `laterReader`: a reshape
// whose input dies at it, or is read later.
TGraph reshapeChainGraph(bool laterReader, const std::string &after, const std::vector<int64_t> &from = {2, 6},
                         const std::vector<int64_t> &to = {3, 4});

// Concat elimination (ExecutionPlan.h's ConcatViewPlan), nhwc float32:
// x [1,height,width,16] (input; 6x5 by default) -> conv2d 1x1 -> a [1,6,5,aChannels] and
// maxPool2d 3x3 -> p [1,6,5,16]; y = concat(`order` of a, p, x; last axis)
// -> batchNormalization -> z (output). Knobs add one thing each.
struct ConcatSlice {
  int64_t aChannels = 16;
  int64_t height = 6, width = 5;  // of x and every other image
  std::string order = "ap";    // letters a, p, x: the concat's inputs
  std::string aBy = "conv2d";  // or maxPool2d (3x3), relu: a's producer (16 channels but for conv2d)
  bool bnReadsA = false;       // batchNormalization(a) -> b (output)
  bool reluReadsA = false;     // relu(a) -> r (output)
  bool aIsOutput = false;      // a is a graph output too
  bool widerConcat = false;    // then q = maxPool2d(x), y2 = concat(a, p, q) -> batchNormalization -> z2
};
// Tensor indices: x 0, a 2, p 3, y 4, z 5, b 6, r 7, q 8, y2 9, z2 10.
TGraph concatSliceGraph(const ConcatSlice &k);

}  // namespace webnn::test

#endif
