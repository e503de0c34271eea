#include "TestArtifact.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/ArtifactLoader.h"
#include "core/Backend.h"
#include "core/ExecutionPlan.h"
#include "core/Sha256.h"
#include "webnn_artifact_format.h"
#include "webnn_artifact_generated.h"

namespace webnn::test {

namespace fb = ::webnn::artifact;

Built buildArtifact(const TGraph &g, bool weightless) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const auto &t : g.tensors) {
    std::vector<flatbuffers::Offset<fb::Dimension>> dims;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i < t.dynamicSum.size() && !t.dynamicSum[i].empty()) {
        std::vector<fb::DimensionTerm> terms;
        std::string spelling;
        for (int sym : t.dynamicSum[i]) {
          terms.emplace_back(uint32_t(sym), 1);
          spelling += (spelling.empty() ? "" : " + ") + g.dynamicDims[size_t(sym)].first;
        }
        dims.push_back(fb::CreateDimension(fbb, t.shape[i], fbb.CreateString(spelling), 0,
                                           fbb.CreateVectorOfStructs(terms)));
        continue;
      }
      int sym = i < t.dynamic.size() ? t.dynamic[i] : -1;
      if (sym < 0) {
        dims.push_back(fb::CreateDimension(fbb, t.shape[i]));
        continue;
      }
      std::vector<fb::DimensionTerm> terms{fb::DimensionTerm(uint32_t(sym), 1)};
      dims.push_back(fb::CreateDimension(fbb, t.shape[i], fbb.CreateString(g.dynamicDims[size_t(sym)].first), 0,
                                         fbb.CreateVectorOfStructs(terms)));
    }
    flatbuffers::Optional<fb::DataType> interface;
    if (t.interfaceType) interface = static_cast<fb::DataType>(*t.interfaceType);
    tensors.push_back(fb::CreateTensor(fbb, fbb.CreateString(t.name), static_cast<fb::DataType>(t.dtype),
                                       fbb.CreateVector(dims), interface));
  }
  std::vector<uint8_t> segment;
  std::vector<uint8_t> allHashes;
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  // Copies `bytes` into the segment at `offset` (default: the next aligned end).
  auto place = [&](const std::vector<uint8_t> &bytes, std::optional<uint64_t> at, uint8_t hash[32]) {
    uint64_t offset = at ? *at : fb::alignUp(segment.size(), fb::kWeightAlignment);
    if (!bytes.empty()) {
      if (offset + bytes.size() > segment.size()) segment.resize(offset + bytes.size(), 0);
      std::memcpy(segment.data() + offset, bytes.data(), bytes.size());
    }
    webnn::rt::Sha256Digest digest = webnn::rt::sha256(bytes.data(), bytes.size());
    std::memcpy(hash, digest.data(), digest.size());
    return offset;
  };
  for (const auto &c : g.constants) {
    uint8_t hash[32];
    uint64_t offset = place(c.bytes, c.offset, hash);
    allHashes.insert(allHashes.end(), hash, hash + 32);
    constants.push_back(fb::CreateConstant(fbb, c.tensor, offset, c.length ? *c.length : c.bytes.size(),
                                           fbb.CreateVector(hash, 32), fbb.CreateString(c.key)));
  }
  std::vector<flatbuffers::Offset<fb::PackedConstant>> packed;
  for (const auto &p : g.packed) {
    uint8_t hash[32];
    uint64_t offset = place(p.bytes, p.offset, hash);
    packed.push_back(fb::CreatePackedConstant(fbb, p.node, p.input, fbb.CreateString(p.layout), offset,
                                              p.length ? *p.length : p.bytes.size(), fbb.CreateVector(hash, 32)));
  }
  segment.resize(fb::alignUp(segment.size(), fb::kWeightAlignment), 0);
  const uint64_t segmentSize = g.segmentSize ? *g.segmentSize : segment.size();
  auto buildNodes = [&](const std::vector<TNode> &list) {
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (const auto &n : list) {
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    for (const auto &a : n.attributes)
      attrs.push_back(fb::CreateAttribute(fbb, fbb.CreateString(a.name), static_cast<fb::AttributeKind>(a.kind), a.i,
                                          a.f, fbb.CreateString(a.s), fbb.CreateVector(a.ints)));
    nodes.push_back(fb::CreateNode(fbb, fbb.CreateString(n.op), fbb.CreateVector(n.inputs),
                                   fbb.CreateVector(n.outputs), fbb.CreateVector(attrs), fbb.CreateString(n.name),
                                   n.subgraphs.empty() ? 0 : fbb.CreateVector(n.subgraphs),
                                   n.backend.empty() ? 0 : fbb.CreateString(n.backend)));
  }
  return nodes;
  };
  std::vector<flatbuffers::Offset<fb::Subgraph>> subgraphs;
  for (const TSubgraph &s : g.subgraphs)
    subgraphs.push_back(fb::CreateSubgraph(fbb, fbb.CreateVector(buildNodes(s.nodes)), fbb.CreateVector(s.inputs),
                                           fbb.CreateVector(s.outputs)));
  std::vector<flatbuffers::Offset<fb::Node>> nodes = buildNodes(g.nodes);
  std::vector<flatbuffers::Offset<fb::DynamicDimension>> dynamic;
  for (const auto &[name, maxSize] : g.dynamicDims)
    dynamic.push_back(fb::CreateDynamicDimension(fbb, fbb.CreateString(name), maxSize));
  auto graph = fb::CreateGraph(fbb, fbb.CreateString(g.name), fbb.CreateVector(tensors), fbb.CreateVector(constants),
                               fbb.CreateVector(nodes), fbb.CreateVector(g.inputs), fbb.CreateVector(g.outputs),
                               static_cast<fb::Precision>(g.precision),
                               dynamic.empty() ? 0 : fbb.CreateVector(dynamic),
                               packed.empty() ? 0 : fbb.CreateVector(packed),
                               subgraphs.empty() ? 0 : fbb.CreateVector(subgraphs));
  webnn::rt::Sha256Digest digest = webnn::rt::sha256(allHashes.data(), allHashes.size());
  auto model = fb::CreateModel(fbb, fb::kSchemaVersion, fbb.CreateString("test"), fbb.CreateString("cpu"), graph,
                               segmentSize, fbb.CreateVector(digest.data(), digest.size()), weightless);
  fb::FinishModelBuffer(fbb, model);

  Built out;
  fb::ArtifactHeader h{};
  std::memcpy(h.magic, fb::kArtifactMagic, 8);
  h.version = fb::kSchemaVersion;
  h.flags = weightless ? fb::kFlagWeightless : 0;
  h.graph_offset = fb::kHeaderSize;
  h.graph_size = fbb.GetSize();
  if (!weightless) {
    h.weights_offset = fb::alignUp(fb::kHeaderSize + fbb.GetSize(), fb::kWeightAlignment);
    h.weights_size = segmentSize;
  }
  out.artifact.resize(sizeof(h));
  std::memcpy(out.artifact.data(), &h, sizeof(h));
  out.artifact.insert(out.artifact.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  if (!weightless) {
    out.artifact.resize(h.weights_offset, 0);
    out.artifact.insert(out.artifact.end(), segment.begin(), segment.end());
  } else {
    fb::WeightsHeader wh{};
    std::memcpy(wh.magic, fb::kWeightsMagic, 8);
    wh.version = fb::kSchemaVersion;
    wh.weights_offset = fb::kHeaderSize;
    wh.weights_size = segmentSize;
    std::memcpy(wh.digest, digest.data(), digest.size());
    out.weights.resize(sizeof(wh));
    std::memcpy(out.weights.data(), &wh, sizeof(wh));
    out.weights.insert(out.weights.end(), segment.begin(), segment.end());
  }
  return out;
}

std::vector<uint8_t> floatBytes(const std::vector<float> &v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string tempDir(const std::string &tag) {
  static std::atomic<int> counter{0};
  const char *base = std::getenv("TMPDIR");
  std::filesystem::path p = std::filesystem::path(base ? base : "/tmp") /
                            ("webnn-rt-" + std::to_string(getpid()) + "-" + tag + "-" + std::to_string(counter++));
  std::filesystem::create_directories(p);
  return p.string();
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

TGraph addReluGraph() {
  TGraph g;
  g.name = "add_relu";
  g.tensors = {{"x", DataType::kFloat32, {2, 3}},
               {"c", DataType::kFloat32, {2, 3}},
               {"sum", DataType::kFloat32, {2, 3}},
               {"y", DataType::kFloat32, {2, 3}}};
  g.constants = {{1, floatBytes({-3, -2, -1, 1, 2, 3}), "c"}};
  g.nodes = {{"add", {0, 1}, {2}, "add0"}, {"relu", {2}, {3}, "relu0"}};
  g.inputs = {0};
  g.outputs = {3};
  return g;
}

TGraph gqaCacheGraph(DataType f) {
  TGraph g;
  g.name = "gqa_cache";
  g.dynamicDims = {{"seq", 8}, {"past", 16}};
  g.tensors = {{"q", f, {1, 8, 32}, {-1, 0, -1}},
               {"k", f, {1, 8, 16}, {-1, 0, -1}},
               {"v", f, {1, 8, 16}, {-1, 0, -1}},
               {"pastKey", f, {1, 1, 16, 16}, {-1, -1, 1, -1}},
               {"pastValue", f, {1, 1, 16, 16}, {-1, -1, 1, -1}},
               {"seqlensK", DataType::kInt32, {1}},
               {"y", f, {1, 8, 32}, {-1, 0, -1}},
               {"presentKey", f, {1, 1, 24, 16}, {}, std::nullopt, {{}, {}, {1, 0}, {}}},
               {"presentValue", f, {1, 1, 24, 16}, {}, std::nullopt, {{}, {}, {1, 0}, {}}}};
  TNode n{"groupQueryAttention", {0, 1, 2, 3, 4, 5}, {6, 7, 8}, "gqa0"};
  n.attributes = {{"numHeads", 0, 2}, {"kvNumHeads", 0, 1}};
  g.nodes = {n};
  g.inputs = {0, 1, 2, 3, 4, 5};
  g.outputs = {6, 7, 8};
  return g;
}

TGraph dynamicReluGraph() {
  TGraph g;
  g.name = "dynamic_relu";
  g.dynamicDims = {{"n", 8}};
  g.tensors = {{"x", DataType::kFloat32, {8, 2}, {0, -1}}, {"y", DataType::kFloat32, {8, 2}, {0, -1}}};
  g.nodes = {{"relu", {0}, {1}, "relu0"}};
  g.inputs = {0};
  g.outputs = {1};
  return g;
}

TGraph passthroughGraph() {
  TGraph g;
  g.name = "passthrough";
  g.tensors = {{"x", DataType::kFloat32, {4}}, {"k", DataType::kInt32, {2}}};
  std::vector<uint8_t> k(8);
  int32_t kv[2] = {7, -9};
  std::memcpy(k.data(), kv, 8);
  g.constants = {{1, k, "k"}};
  g.inputs = {0};
  g.outputs = {0, 1};
  return g;
}

TGraph reshapeChainGraph(bool laterReader, const std::string &after, const std::vector<int64_t> &from,
                         const std::vector<int64_t> &to) {
  TGraph g;
  g.tensors = {{"x", DataType::kFloat32, from}, {"r", DataType::kFloat32, from}, {"s", DataType::kFloat32, to},
               {"z", DataType::kFloat32, to}};
  TAttribute shape;
  shape.name = "newShape";
  shape.kind = 4;  // Ints
  shape.ints = to;
  g.nodes = {{"relu", {0}, {1}}, {"reshape", {1}, {2}, "view", {shape}}, {after, {2}, {3}}};
  g.inputs = {0};
  g.outputs = {3};
  if (laterReader) {
    g.tensors.push_back({"w", DataType::kFloat32, from});
    g.nodes.push_back({after, {1}, {4}});
    g.outputs.push_back(4);
  }
  return g;
}

TGraph swapLoopGraph() {
  TGraph g;
  g.tensors = {{"m", DataType::kInt64, {}},        {"a", DataType::kFloat32, {2}},
               {"b", DataType::kFloat32, {2}},     {"one", DataType::kFloat32, {2}},
               {"", DataType::kInt64, {}},         {"", DataType::kUint8, {}},
               {"", DataType::kFloat32, {2}},      {"", DataType::kFloat32, {2}},
               {"", DataType::kFloat32, {2}},      {"x", DataType::kFloat32, {2}},
               {"y", DataType::kFloat32, {2}}};
  g.constants = {{3, floatBytes({1, 1}), "one"}};
  g.subgraphs = {{{{"add", {6, 3}, {8}, "body_add"}}, {4, 5, 6, 7}, {5, 8, 6}}};
  g.nodes = {{"loop", {0, -1, 1, 2}, {9, 10}, "loop0", {}, {0}}};
  g.inputs = {0, 1, 2};
  g.outputs = {9, 10};
  return g;
}

TGraph concatSliceGraph(const ConcatSlice &k) {
  const int64_t ca = k.aChannels, pc = 16, H = k.height, W = k.width;
  int64_t yc = 0;
  for (char l : k.order) yc += l == 'a' ? ca : pc;
  const int64_t y2c = ca + 2 * pc;
  auto f = [](const std::string &name, Shape s) { return TTensor{name, DataType::kFloat32, std::move(s)}; };
  TGraph g;
  g.tensors = {f("x", {1, H, W, pc}),     f("w", {ca, 1, 1, pc}),  f("a", {1, H, W, ca}),  f("p", {1, H, W, pc}),
               f("y", {1, H, W, yc}),     f("z", {1, H, W, yc}),   f("b", {1, H, W, ca}),  f("r", {1, H, W, ca}),
               f("q", {1, H, W, pc}),     f("y2", {1, H, W, y2c}), f("z2", {1, H, W, y2c}), f("ma", {ca}),
               f("va", {ca}),             f("my", {yc}),           f("vy", {yc}),          f("my2", {y2c}),
               f("vy2", {y2c})};
  if (k.aBy != "conv2d") g.tensors[2].shape = {1, H, W, pc};
  auto ramp = [](int64_t n, float base, float step) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = base + step * float((i * 7) % 11);
    return v;
  };
  g.constants = {{1, floatBytes(ramp(ca * pc, -0.5f, 0.1f)), "w"},
                 {11, floatBytes(ramp(ca, -0.2f, 0.05f)), "ma"},   {12, floatBytes(ramp(ca, 0.5f, 0.1f)), "va"},
                 {13, floatBytes(ramp(yc, 0.1f, -0.03f)), "my"},   {14, floatBytes(ramp(yc, 0.7f, 0.2f)), "vy"},
                 {15, floatBytes(ramp(y2c, 0.2f, -0.02f)), "my2"}, {16, floatBytes(ramp(y2c, 0.9f, 0.1f)), "vy2"}};
  auto ints = [](const char *name, std::vector<int64_t> v) {
    TAttribute a;
    a.name = name, a.kind = 4, a.ints = std::move(v);
    return a;
  };
  auto text = [](const char *name, const char *v) {
    TAttribute a;
    a.name = name, a.kind = 3, a.s = v;
    return a;
  };
  auto integer = [](const char *name, int64_t v) {
    TAttribute a;
    a.name = name, a.kind = 0, a.i = v;
    return a;
  };
  const std::vector<TAttribute> pool = {ints("windowDimensions", {3, 3}), ints("padding", {1, 1, 1, 1}),
                                        text("layout", "nhwc")};
  const std::vector<TAttribute> bn = {integer("axis", 3)};
  std::vector<int32_t> parts;
  for (char l : k.order) parts.push_back(l == 'a' ? 2 : l == 'p' ? 3 : 0);
  g.nodes = {k.aBy == "relu"        ? TNode{"relu", {0}, {2}, "a"}
             : k.aBy == "maxPool2d" ? TNode{"maxPool2d", {0}, {2}, "a", pool}
                                    : TNode{"conv2d", {0, 1}, {2}, "a", {text("inputLayout", "nhwc"), text("filterLayout", "ohwi")}},
             {"maxPool2d", {0}, {3}, "p", pool},
             {"concat", parts, {4}, "y", {integer("axis", 3)}},
             {"batchNormalization", {4, 13, 14}, {5}, "z", bn}};
  g.inputs = {0};
  g.outputs = {5};
  if (k.bnReadsA) {
    g.nodes.push_back({"batchNormalization", {2, 11, 12}, {6}, "b", bn});
    g.outputs.push_back(6);
  }
  if (k.reluReadsA) {
    g.nodes.push_back({"relu", {2}, {7}, "r"});
    g.outputs.push_back(7);
  }
  if (k.aIsOutput) g.outputs.push_back(2);
  if (k.widerConcat) {
    g.nodes.push_back({"maxPool2d", {0}, {8}, "q", pool});
    g.nodes.push_back({"concat", {2, 3, 8}, {9}, "y2", {integer("axis", 3)}});
    g.nodes.push_back({"batchNormalization", {9, 15, 16}, {10}, "z2", bn});
    g.outputs.push_back(10);
  }
  return g;
}

Status writeAndPrepare(const TGraph &g, const std::string &tag, std::shared_ptr<rt::PreparedGraph> *out) {
  std::string path = tempDir(tag) + "/" + g.name + ".wnn";
  writeFile(path, buildArtifact(g).artifact);
  rt::LoaderOptions lo;
  lo.hasKernel = [](std::string_view op) { return rt::findBackendForOp(op) != nullptr; };
  rt::LoadedGraph lg;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, lo, &lg));
  return rt::prepareGraph(std::move(lg), out);
}

}  // namespace webnn::test
