// The loader's promise: nothing from the file is trusted before it is checked.
// Every malformed artifact gives one clear error; none crashes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "TestArtifact.h"
#include "core/ArtifactLoader.h"
#include "webnn_artifact_format.h"
#include "webnn_artifact_generated.h"

namespace webnn::test {
namespace {

using rt::LoadedGraph;
using rt::LoaderOptions;
using rt::loadArtifact;

Status loadBytes(const std::vector<uint8_t> &bytes, LoadedGraph *g, const LoaderOptions &opts = {},
                 std::string *pathOut = nullptr) {
  std::string path = tempDir("load") + "/a.wnn";
  writeFile(path, bytes);
  if (pathOut) *pathOut = path;
  return loadArtifact(path, opts, g);
}

std::string loadError(const std::vector<uint8_t> &bytes, const LoaderOptions &opts = {}) {
  LoadedGraph g;
  Status s = loadBytes(bytes, &g, opts);
  EXPECT_FALSE(s.isOk());
  return s.message();
}

TEST(Loader, LoadsValidArtifactWithoutKernelsCheck) {
  Built b = buildArtifact(addReluGraph());
  LoadedGraph g;
  ASSERT_TRUE(loadBytes(b.artifact, &g).isOk());
  ASSERT_EQ(g.tensors.size(), 4u);
  EXPECT_EQ(g.tensors[0].role, rt::TensorRole::kInput);
  EXPECT_EQ(g.tensors[1].role, rt::TensorRole::kConstant);
  EXPECT_EQ(g.tensors[2].producer, 0);
  EXPECT_EQ(g.tensors[3].producer, 1);
  EXPECT_EQ(g.tensors[1].byteSize, 24u);
  // Constants point into the mapping, 64-byte aligned, with the right bytes.
  const uint8_t *c = g.tensors[1].constantData;
  ASSERT_NE(c, nullptr);
  EXPECT_GE(c, g.artifact.data());
  EXPECT_LE(c + 24, g.artifact.data() + g.artifact.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 64, 0u);
  float v[6];
  std::memcpy(v, c, 24);
  EXPECT_EQ(v[0], -3.0f);
  EXPECT_EQ(v[5], 3.0f);
  EXPECT_EQ(g.nodes[1].op, "relu");
}

// An empty int64 option (WebNN's `axes=[]`, a reshape to a scalar) is
// valid; FlatBuffers aligns only its length field, so the elements' address
// may be 4 mod 8. The alignment check must not refuse it. Attribute lists of
// several lengths shift the layout until one such vector is misaligned.
TEST(Loader, EmptyIntsOptionsLoadWhereverTheyLand) {
  int misaligned = 0;
  for (int count = 1; count <= 8; ++count) {
    TGraph graph = addReluGraph();
    for (int k = 0; k < count; ++k) {
      TAttribute empty;
      empty.name = "axes" + std::to_string(k);
      empty.kind = 4;  // AttributeKind.Ints
      graph.nodes[1].attributes.push_back(empty);
    }
    Built b = buildArtifact(graph);
    const auto *model = flatbuffers::GetRoot<artifact::Model>(b.artifact.data() + artifact::kHeaderSize);
    for (const artifact::Attribute *a : *model->graph()->nodes()->Get(1)->attributes())
      if (a->ints() && (reinterpret_cast<const uint8_t *>(a->ints()->Data()) - b.artifact.data()) % 8 != 0)
        ++misaligned;
    LoadedGraph g;
    Status s = loadBytes(b.artifact, &g);
    ASSERT_TRUE(s.isOk()) << count << " options: " << s.message();
    for (int k = 0; k < count; ++k)
      EXPECT_TRUE(g.nodes[1].attributes.getInts("axes" + std::to_string(k), {7}).empty());
  }
  EXPECT_GT(misaligned, 0) << "no layout put an empty vector off 8 bytes: the test shows nothing";
}

TEST(Loader, TruncatedAtEveryLengthFailsCleanly) {
  Built b = buildArtifact(addReluGraph());
  for (size_t len = 0; len < b.artifact.size(); ++len) {
    std::vector<uint8_t> cut(b.artifact.begin(), b.artifact.begin() + len);
    std::string m = loadError(cut);
    EXPECT_NE(m.find("truncated"), std::string::npos) << "length " << len << ": " << m;
  }
}

TEST(Loader, TruncatedWeightsMessageNamesSizes) {
  Built b = buildArtifact(addReluGraph());
  webnn::artifact::ArtifactHeader h;
  std::memcpy(&h, b.artifact.data(), sizeof(h));
  std::vector<uint8_t> cut(b.artifact.begin(), b.artifact.end() - 10);
  std::string m = loadError(cut);
  std::string want = "truncated: header says " + std::to_string(h.weights_size) + " bytes of weights at offset " +
                     std::to_string(h.weights_offset) + " but file has " + std::to_string(cut.size()) + " bytes";
  EXPECT_NE(m.find(want), std::string::npos) << m;
  EXPECT_NE(m.find("a.wnn: "), std::string::npos) << m;
}

TEST(Loader, FlippedBytesNeverCrash) {
  Built b = buildArtifact(addReluGraph());
  webnn::artifact::ArtifactHeader h;
  std::memcpy(&h, b.artifact.data(), sizeof(h));
  size_t end = h.graph_offset + h.graph_size;  // header and FlatBuffer
  int failures = 0;
  for (size_t i = 0; i < end; ++i) {
    for (uint8_t mask : {0xFF, 0x01, 0x80}) {
      std::vector<uint8_t> bad = b.artifact;
      bad[i] ^= mask;
      LoadedGraph g;
      Status s = loadBytes(bad, &g);
      if (!s.isOk()) {
        ++failures;
        EXPECT_FALSE(s.message().empty());
      }
    }
  }
  // Most flips hit offsets, sizes or indices and must be caught.
  EXPECT_GT(failures, static_cast<int>(end));
}

TEST(Loader, PrecisionRecordedAndUnknownValuesRefused) {
  LoadedGraph g;
  ASSERT_TRUE(loadBytes(buildArtifact(addReluGraph()).artifact, &g).isOk());
  EXPECT_FALSE(g.relaxedPrecision);
  TGraph relaxed = addReluGraph();
  relaxed.precision = 1;
  LoadedGraph r;
  ASSERT_TRUE(loadBytes(buildArtifact(relaxed).artifact, &r).isOk());
  EXPECT_TRUE(r.relaxedPrecision);
  TGraph unknown = addReluGraph();
  unknown.precision = 7;
  EXPECT_NE(loadError(buildArtifact(unknown).artifact).find("unknown precision 7"), std::string::npos);
}

TEST(Loader, HeaderChecks) {
  Built b = buildArtifact(addReluGraph());
  auto bad = b.artifact;
  bad[0] = 'X';
  EXPECT_NE(loadError(bad).find("bad magic"), std::string::npos);
  bad = b.artifact;
  bad[8] = 99;  // version
  EXPECT_NE(loadError(bad).find("version 99"), std::string::npos);
  bad = b.artifact;
  bad.push_back(0);
  EXPECT_NE(loadError(bad).find("unexpected bytes"), std::string::npos);
  EXPECT_NE(loadError({}).find("truncated: file has 0 bytes"), std::string::npos);
}

TEST(Loader, ConstantOutOfRange) {
  TGraph g = addReluGraph();
  g.constants[0].offset = 1u << 20;
  g.constants[0].bytes.clear();
  g.constants[0].length = 24;
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("constant 0 'c': bytes [1048576, 1048576+24) lie outside"), std::string::npos) << m;
}

TEST(Loader, ConstantOffsetOverflow) {
  TGraph g = addReluGraph();
  g.constants[0].offset = 0;
  g.constants[0].length = ~uint64_t(0) - 10;
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("lie outside"), std::string::npos) << m;
}

TEST(Loader, ConstantLengthMustMatchShape) {
  TGraph g = addReluGraph();
  g.constants[0].length = 20;
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("20 bytes, but float32 [2,3] needs 24"), std::string::npos) << m;
}

// Packed constants (webnnc compile --prepack) are checked like constants and
// reach the node that owns them.
TEST(Loader, PackedConstants) {
  TGraph g = addReluGraph();
  g.packed = {{0, 1, "test layout", std::vector<uint8_t>(100, 7)}};
  LoadedGraph loaded;
  ASSERT_TRUE(loadBytes(buildArtifact(g).artifact, &loaded).isOk());
  ASSERT_EQ(loaded.nodes[0].packed.size(), 1u);
  EXPECT_EQ(loaded.nodes[0].packed[0].input, 1);
  EXPECT_EQ(loaded.nodes[0].packed[0].layout, "test layout");
  EXPECT_EQ(loaded.nodes[0].packed[0].bytes, 100u);
  EXPECT_EQ(static_cast<const uint8_t *>(loaded.nodes[0].packed[0].data)[99], 7);
  EXPECT_TRUE(loaded.nodes[1].packed.empty());

  LoaderOptions verify;
  verify.verifyEmbeddedHashes = true;
  ASSERT_TRUE(loadBytes(buildArtifact(g).artifact, &loaded, verify).isOk());

  auto errorFor = [&](TPacked p, const LoaderOptions &opts = {}) {
    TGraph bad = addReluGraph();
    bad.packed = {std::move(p)};
    return loadError(buildArtifact(bad).artifact, opts);
  };
  std::string m = errorFor({5, 1, "l", {1}});
  EXPECT_NE(m.find("packed constant 0: node 5 out of range (graph has 2 nodes)"), std::string::npos) << m;
  m = errorFor({0, 0, "l", {1}});
  EXPECT_NE(m.find("packed constant 0 of node 0 'add0' (add): operand 0 is not a constant"), std::string::npos) << m;
  m = errorFor({0, 1, "", {1}});
  EXPECT_NE(m.find("has no layout"), std::string::npos) << m;
  m = errorFor({0, 1, "l", {}, uint64_t(1) << 20, 64});
  EXPECT_NE(m.find("bytes [1048576, 1048576+64) lie outside"), std::string::npos) << m;
  TPacked misaligned{0, 1, "l", std::vector<uint8_t>(8, 1), 72};
  m = errorFor(misaligned);
  EXPECT_NE(m.find("offset 72 is not a multiple of 64"), std::string::npos) << m;
  TPacked tampered{0, 1, "l", std::vector<uint8_t>(8, 1), std::nullopt, 4};  // hash covers 8 bytes
  m = errorFor(tampered, verify);
  EXPECT_NE(m.find("packed constant 0 of node 0 'add0' (add): embedded bytes do not match their sha256"),
            std::string::npos)
      << m;
}

TEST(Loader, TensorIndexOutOfRange) {
  TGraph g = addReluGraph();
  g.nodes[1].inputs = {17};
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("refers to tensor 17, but the graph has 4 tensors"), std::string::npos) << m;
}

TEST(Loader, NodesMustBeTopologicallyOrdered) {
  TGraph g = addReluGraph();
  std::swap(g.nodes[0], g.nodes[1]);
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("node 0 'relu0' (relu) reads tensor 2 'sum', which no earlier node produces"), std::string::npos)
      << m;
}

TEST(Loader, TensorProducedTwice) {
  TGraph g = addReluGraph();
  g.nodes[1].outputs = {2};
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("is produced twice"), std::string::npos) << m;
}

TEST(Loader, NodeMayNotWriteInputOrConstant) {
  TGraph g = addReluGraph();
  g.nodes[1].outputs = {1};
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("which is a constant"), std::string::npos);
  g.nodes[1].outputs = {0};
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("which is a graph input"), std::string::npos);
}

TEST(Loader, OutputNeverProduced) {
  TGraph g = addReluGraph();
  g.nodes.pop_back();
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("graph output tensor 3 'y' is never produced"),
            std::string::npos);
}

TEST(Loader, HugeDimensionIsAnErrorNotACrash) {
  TGraph g = addReluGraph();
  g.tensors[2].shape = {int64_t(1) << 40, int64_t(1) << 40};
  std::string m = loadError(buildArtifact(g).artifact);
  EXPECT_NE(m.find("tensor 2 'sum' of shape [1099511627776,1099511627776] has too many elements"), std::string::npos)
      << m;
}

TEST(Loader, NegativeDimension) {
  TGraph g = addReluGraph();
  g.tensors[0].shape = {2, -3};
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("negative dimension -3"), std::string::npos);
}

TEST(Loader, UnknownDataType) {
  TGraph g = addReluGraph();
  g.tensors[3].dtype = static_cast<DataType>(42);
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("unknown data type 42"), std::string::npos);
}

TEST(Loader, InterfaceTypes) {
  // x is exchanged as float64, y as bfloat16; both are computed as float32.
  TGraph g = addReluGraph();
  g.tensors[0].interfaceType = DataType::kFloat64;
  g.tensors[3].interfaceType = DataType::kBfloat16;
  LoadedGraph loaded;
  Status s = loadBytes(buildArtifact(g).artifact, &loaded);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(loaded.tensors[0].dtype, DataType::kFloat32);
  EXPECT_EQ(loaded.tensors[0].interfaceType, DataType::kFloat64);
  EXPECT_EQ(loaded.tensors[0].interfaceByteSize, 48u);
  EXPECT_EQ(loaded.tensors[3].interfaceType, DataType::kBfloat16);
  EXPECT_EQ(loaded.tensors[3].interfaceByteSize, 12u);
  EXPECT_EQ(loaded.tensors[1].interfaceType, DataType::kFloat32);  // absent = data_type

  // Only a widening the runtime converts: int16 is not computed as float32.
  g = addReluGraph();
  g.tensors[0].interfaceType = DataType::kInt16;
  EXPECT_NE(loadError(buildArtifact(g).artifact)
                .find("tensor 0 'x' of type float32 cannot be exchanged as interface type int16"),
            std::string::npos);
  // bool is exchanged over uint8 only.
  g.tensors[0].interfaceType = DataType::kBool;
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("of type float32 cannot be exchanged as interface type bool"),
            std::string::npos);
  // A WebNN type is no interface type, nor is an unknown value.
  g.tensors[0].interfaceType = DataType::kFloat16;
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("cannot be exchanged as interface type float16"),
            std::string::npos);
  g.tensors[0].interfaceType = static_cast<DataType>(77);
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("cannot be exchanged as interface type 77"),
            std::string::npos);
  // Only the graph's boundary is converted.
  g = addReluGraph();
  g.tensors[2].interfaceType = DataType::kFloat64;
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("has an interface type but is neither a graph input nor output"),
            std::string::npos);
  // An interface-only type is never a tensor's data type.
  g = addReluGraph();
  g.tensors[2].dtype = DataType::kInt16;
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("unknown data type 11"), std::string::npos);
  // float64, the extension type, is one (a graph computed in float64); it is
  // then exchanged as itself, and no float32 tensor is its interface.
  g = addReluGraph();
  for (TTensor &t : g.tensors) t.dtype = DataType::kFloat64;
  g.constants[0].bytes.resize(6 * sizeof(double));
  s = loadBytes(buildArtifact(g).artifact, &loaded);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(loaded.tensors[0].dtype, DataType::kFloat64);
  EXPECT_EQ(loaded.tensors[0].interfaceType, DataType::kFloat64);
  EXPECT_EQ(loaded.tensors[0].byteSize, 48u);
  g.tensors[0].interfaceType = DataType::kFloat32;
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("of type float64 cannot be exchanged as interface type float32"),
            std::string::npos);
}

TEST(Loader, UnknownOpsListedWithNodes) {
  TGraph g = addReluGraph();
  g.nodes[0].op = "frobnicate";
  g.nodes[1].op = "frobnicate";
  LoaderOptions opts;
  opts.hasKernel = [](std::string_view op) { return op != "frobnicate"; };
  opts.backends = "backend 'test'";
  std::string m = loadError(buildArtifact(g).artifact, opts);
  EXPECT_NE(m.find("no kernel in backend 'test' for op 'frobnicate' (node 0 'add0' (frobnicate) and 1 more)"), std::string::npos)
      << m;
}

TEST(Loader, DuplicateInputNames) {
  TGraph g = addReluGraph();
  g.tensors[2].name = "x";
  g.nodes = {};
  g.inputs = {0, 2};
  g.outputs = {0};
  EXPECT_NE(loadError(buildArtifact(g).artifact).find("two graph inputs are named 'x'"), std::string::npos);
}

class WeightsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = tempDir("weights");
    Built b = buildArtifact(addReluGraph(), /*weightless=*/true);
    artifact = dir + "/g.wnn";
    weights = dir + "/g.weights";
    writeFile(artifact, b.artifact);
    writeFile(weights, b.weights);
    built = b;
  }
  Status load(const std::string &w, LoadedGraph *g) {
    LoaderOptions o;
    o.weightsPath = w;
    return loadArtifact(artifact, o, g);
  }
  std::string dir, artifact, weights;
  Built built;
};

TEST_F(WeightsFile, BindsMatchingWeights) {
  LoadedGraph g;
  ASSERT_TRUE(load(weights, &g).isOk());
  float v[6];
  std::memcpy(v, g.tensors[1].constantData, 24);
  EXPECT_EQ(v[1], -2.0f);
  EXPECT_GE(g.tensors[1].constantData, g.weights.data());
}

TEST_F(WeightsFile, MissingWeightsOption) {
  LoadedGraph g;
  Status s = load("", &g);
  EXPECT_NE(s.message().find("--weights"), std::string::npos) << s.message();
}

TEST_F(WeightsFile, WrongGraphRejectedByDigest) {
  TGraph other = addReluGraph();
  other.constants[0].bytes = floatBytes({1, 1, 1, 1, 1, 1});
  Built b = buildArtifact(other, true);
  std::string w = dir + "/other.weights";
  writeFile(w, b.weights);
  LoadedGraph g;
  Status s = load(w, &g);
  EXPECT_NE(s.message().find("weights file " + w + " does not match graph"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("digest differs"), std::string::npos) << s.message();
}

TEST_F(WeightsFile, ChangedConstantRejectedByHash) {
  std::vector<uint8_t> w = built.weights;
  w[64 + 5] ^= 1;  // digest still matches: only the per-constant hash can tell
  std::string path = dir + "/tampered.weights";
  writeFile(path, w);
  LoadedGraph g;
  Status s = load(path, &g);
  EXPECT_EQ(s.message(), "weights file " + path + " does not match graph: constant 'c' hash differs");
}

TEST_F(WeightsFile, TruncatedWeightsFile) {
  for (size_t len : {size_t(0), size_t(10), size_t(64), built.weights.size() - 1}) {
    std::vector<uint8_t> w(built.weights.begin(), built.weights.begin() + len);
    std::string path = dir + "/cut.weights";
    writeFile(path, w);
    LoadedGraph g;
    Status s = load(path, &g);
    EXPECT_NE(s.message().find("truncated"), std::string::npos) << len << ": " << s.message();
  }
}

TEST_F(WeightsFile, ArtifactPassedAsWeights) {
  LoadedGraph g;
  Status s = load(artifact, &g);
  EXPECT_NE(s.message().find("is an artifact, not a weights file"), std::string::npos) << s.message();
}

TEST(Loader, WeightsOptionForEmbeddedArtifact) {
  LoaderOptions o;
  o.weightsPath = "/nonexistent";
  std::string m = loadError(buildArtifact(addReluGraph()).artifact, o);
  EXPECT_NE(m.find("weights are embedded"), std::string::npos) << m;
}

TEST(Loader, EmbeddedHashesCheckedOnRequest) {
  Built b = buildArtifact(addReluGraph());
  b.artifact[b.artifact.size() - 64 + 3] ^= 1;  // inside constant 'c' (the last 64-byte block)
  LoadedGraph g;
  EXPECT_TRUE(loadBytes(b.artifact, &g).isOk());  // not read by default
  LoaderOptions o;
  o.verifyEmbeddedHashes = true;
  EXPECT_NE(loadError(b.artifact, o).find("embedded bytes do not match their sha256"), std::string::npos);
}

// A 1 GiB constant: loading must map it, not read it. The file is sparse, so
// the test costs no disk space; reading or hashing it would take far longer
// than the budget.
TEST(Loader, LoadsGigabyteOfWeightsWithoutReadingThem) {
  const uint64_t kBytes = uint64_t(1) << 30;
  TGraph g;
  g.tensors = {{"w", DataType::kFloat32, {int64_t(kBytes / 4)}}};
  g.constants = {{0, {}, "w"}};
  g.constants[0].length = kBytes;
  g.outputs = {0};
  g.segmentSize = kBytes;
  Built b = buildArtifact(g);
  std::string path = tempDir("big") + "/big.wnn";
  writeFile(path, b.artifact);
  webnn::artifact::ArtifactHeader h;
  std::memcpy(&h, b.artifact.data(), sizeof(h));
  ASSERT_EQ(h.weights_size, kBytes);
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(h.weights_offset + kBytes)), 0);

  auto t0 = std::chrono::steady_clock::now();
  LoadedGraph lg;
  Status s = loadArtifact(path, {}, &lg);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_LT(ms, 50.0);
  EXPECT_EQ(lg.tensors[0].byteSize, kBytes);
  unlink(path.c_str());
}

}  // namespace
}  // namespace webnn::test
