// Elementwise chains fused into one dispatch (ChainFusion.cpp,
// kernels/ElementwiseChain.cpp, shaders/chain.comp): small graphs run as one
// GPU program, and as an artifact whose nodes the executor places on the
// GPU (one partition, its chains grouped before its memory is planned:
// Backend::groupPartitionNodes), against the CPU kernels run node by node,
// with the number of dispatches the fusion should leave. Validation layers
// are on.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "TestArtifact.h"
#include "VulkanTestUtil.h"
#include "backends/vulkan/ChainFusion.h"
#include "backends/vulkan/VulkanBackend.h"
#include "backends/vulkan/kernels/ElementwiseChain.h"
#include "core/Executor.h"

namespace webnn::vk::test {
namespace {

using cpu::test::fromDoubles;
using Role = ProgramTensor::Role;
// Node attributes: float-valued, or integer-valued where `integer`.
struct Attr {
  std::string name;
  double value;
  bool integer = false;
};
using Attrs = std::vector<Attr>;

// A graph of elementwise nodes over float32 tensors.
struct Graph {
  struct Tensor {
    TestTensor value;  // inputs and constants: their bytes; others filled by the CPU run
    Role role;
  };
  struct Node {
    std::string op;
    std::vector<int> inputs;
    int output;
    Attrs attrs;
  };
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;

  int input(Shape shape, uint32_t seed, double lo = -4, double hi = 4) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<double> v(size_t(elementsOf(shape)));
    for (double &x : v) x = d(rng);
    tensors.push_back({fromDoubles(DataType::kFloat32, std::move(shape), v), Role::kInput});
    return int(tensors.size() - 1);
  }
  int constant(Shape shape, double value) {
    std::vector<double> v(size_t(elementsOf(shape)), value);
    tensors.push_back({fromDoubles(DataType::kFloat32, std::move(shape), v, true), Role::kConstant});
    return int(tensors.size() - 1);
  }
  // A node whose output has the broadcast shape of its inputs.
  int op(const std::string &name, std::vector<int> in, Attrs attrs = {}) {
    Shape shape;
    for (int t : in) {
      const Shape &s = tensors[size_t(t)].value.shape;
      if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t &d = shape[shape.size() - s.size() + i];
        d = std::max(d, s[i]);
      }
    }
    tensors.push_back({cpu::test::outSpec(DataType::kFloat32, shape), Role::kIntermediate});
    nodes.push_back({name, std::move(in), int(tensors.size() - 1), std::move(attrs)});
    return int(tensors.size() - 1);
  }
  void output(int t) { tensors[size_t(t)].role = Role::kOutput; }
};

Attrs floats(std::initializer_list<std::pair<const char *, double>> kv) {
  Attrs a;
  for (const auto &[k, v] : kv) a.push_back({k, v});
  return a;
}

rt::NodeAttributes nodeAttributes(const Attrs &attrs) {
  rt::NodeAttributes a;
  for (const Attr &at : attrs) {
    rt::AttributeValue av;
    av.kind = at.integer ? rt::AttributeValue::Kind::kInt : rt::AttributeValue::Kind::kFloat;
    av.i = int64_t(at.value);
    av.f = at.value;
    a.set(at.name, av);
  }
  return a;
}

// `g` as an artifact (tensor t named "t<t>"), every node unplaced: a
// session on "gpu" puts them all on the Vulkan backend.
webnn::test::TGraph artifactOf(const Graph &g) {
  webnn::test::TGraph a;
  a.name = "chain";
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    a.tensors.push_back({"t" + std::to_string(t), DataType::kFloat32, g.tensors[t].value.shape});
    if (g.tensors[t].role == Role::kInput) a.inputs.push_back(uint32_t(t));
    if (g.tensors[t].role == Role::kOutput) a.outputs.push_back(uint32_t(t));
    if (g.tensors[t].role == Role::kConstant)
      a.constants.push_back({uint32_t(t), g.tensors[t].value.bytes, "t" + std::to_string(t)});
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    webnn::test::TNode n{g.nodes[i].op, {}, {int32_t(g.nodes[i].output)}, "n" + std::to_string(i)};
    for (int t : g.nodes[i].inputs) n.inputs.push_back(int32_t(t));
    // AttributeKind Int = 0, Float = 1 (schema/webnn.fbs).
    for (const Attr &at : g.nodes[i].attrs)
      n.attributes.push_back({at.name, at.integer ? 0 : 1, int64_t(at.value), at.value});
    a.nodes.push_back(std::move(n));
  }
  return a;
}

void expectClose(const TestTensor &want, const void *data, double rtol, double atol, const std::string &what) {
  std::vector<double> w = want.values();
  TestTensor got = want;
  const uint8_t *p = static_cast<const uint8_t *>(data);
  got.bytes.assign(p, p + got.bytes.size());
  std::vector<double> have = got.values();
  int bad = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    bool same = std::isnan(w[i]) ? std::isnan(have[i]) : std::abs(have[i] - w[i]) <= atol + rtol * std::abs(w[i]);
    if (!same && bad++ < 3) ADD_FAILURE() << what << "[" << i << "]: GPU " << have[i] << " CPU " << w[i];
  }
}

class VulkanChains : public VulkanDeviceFixture {
 protected:
  // Runs `g` on the CPU node by node and on the GPU as one fused program;
  // expects `dispatches` dispatches and outputs within rtol/atol.
  void expectFused(Graph g, uint32_t dispatches, double rtol = 2e-6, double atol = 1e-6) {
    for (const Graph::Node &n : g.nodes) {
      OpCase c;
      c.op = n.op;
      for (int t : n.inputs) c.inputs.push_back(g.tensors[size_t(t)].value);
      c.outputs.push_back(g.tensors[size_t(n.output)].value);
      c.attrs = nodeAttributes(n.attrs);
      ASSERT_TRUE(cpu::test::runOp(c).isOk()) << n.op;
      g.tensors[size_t(n.output)].value.bytes = c.outputs[0].bytes;
    }
    std::vector<ProgramTensor> tensors;
    std::vector<cpu::OperandDesc> operands;
    for (const Graph::Tensor &t : g.tensors) {
      ProgramTensor pt;
      pt.shape = t.value.shape;
      pt.role = t.role;
      if (t.role == Role::kConstant) pt.constantData = t.value.bytes.data();
      tensors.push_back(pt);
      operands.push_back({DataType::kFloat32, t.value.shape, pt.constantData});
    }
    std::vector<cpu::NodeDesc> descs(g.nodes.size());
    std::vector<ProgramNode> nodes(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      descs[i].op = g.nodes[i].op;
      descs[i].name = "n" + std::to_string(i);
      descs[i].attributes = nodeAttributes(g.nodes[i].attrs);
      for (int t : g.nodes[i].inputs) {
        descs[i].inputs.push_back(&operands[size_t(t)]);
        nodes[i].inputs.push_back(t);
      }
      descs[i].outputs.push_back(&operands[size_t(g.nodes[i].output)]);
      nodes[i].outputs.push_back(g.nodes[i].output);
      nodes[i].desc = &descs[i];
    }
    FusedChains fused;
    fuseElementwiseChains(device_->info(), tensors, &nodes, &fused);
    std::unique_ptr<Program> program;
    Status s = Program::create(device_, tensors, nodes, &program);
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(program->stats().dispatches, dispatches);
    for (size_t t = 0; t < g.tensors.size(); ++t)
      if (g.tensors[t].role == Role::kInput) {
        const auto &b = g.tensors[t].value.bytes;
        ASSERT_TRUE(program->setInput(int32_t(t), b.data(), b.size()).isOk());
      }
    s = program->run();
    ASSERT_TRUE(s.isOk()) << s.message();
    for (size_t t = 0; t < g.tensors.size(); ++t)
      if (g.tensors[t].role == Role::kOutput)
        expectClose(g.tensors[t].value, program->outputData(int32_t(t)), rtol, atol, "output " + std::to_string(t));
    expectFusedInPartition(g, dispatches, rtol, atol);
  }

  // `g` (its values filled by the CPU run) as an artifact on the executor's
  // Vulkan backend: one partition of every node, `dispatches` dispatches in
  // its command buffer, outputs within rtol/atol of the CPU's, two runs.
  void expectFusedInPartition(const Graph &g, uint32_t dispatches, double rtol, double atol) {
    SCOPED_TRACE("executor partition");
    std::shared_ptr<rt::PreparedGraph> p;
    Status s = webnn::test::writeAndPrepare(artifactOf(g), "vulkan_chain", &p);
    ASSERT_TRUE(s.isOk()) << s.message();
    std::unique_ptr<rt::Executor> e;
    s = rt::Executor::create(p, 1, &e, true, "gpu");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_TRUE(e->placementNotes().empty()) << e->placementNotes().front();
    EXPECT_EQ(e->numPartitions(), g.nodes.size() > 1 ? 1u : 0u);
    for (int run = 0; run < 2; ++run) {
      for (size_t k = 0; k < p->graph.inputs.size(); ++k) {
        const auto &b = g.tensors[p->graph.inputs[k]].value.bytes;
        ASSERT_TRUE(e->setInput(k, b.data(), b.size(), true).isOk());
      }
      BackendCounters before = backendCounters();
      s = e->run();
      ASSERT_TRUE(s.isOk()) << s.message();
      BackendCounters after = backendCounters();
      // Recorded at the first run, replayed after.
      EXPECT_EQ(after.dispatchesRecorded - before.dispatchesRecorded, run == 0 ? dispatches : 0u);
      for (size_t k = 0; k < p->graph.outputs.size(); ++k)
        expectClose(g.tensors[p->graph.outputs[k]].value, e->outputData(k), rtol, atol,
                    "output " + std::to_string(p->graph.outputs[k]));
    }
  }
};

// hardSwish as PP-OCR's ONNX export spells it: x * clip(x + 3, 0, 6) / 6.
TEST_F(VulkanChains, DecomposedHardSwishIsOneDispatch) {
  Graph g;
  int x = g.input({2, 3, 5, 7}, 1, -8, 8);
  int a = g.op("add", {x, g.constant({}, 3.0)});
  int c = g.op("clamp", {a}, floats({{"minValue", 0.0}, {"maxValue", 6.0}}));
  int m = g.op("mul", {x, c});
  g.output(g.op("div", {m, g.constant({1}, 6.0)}));
  expectFused(std::move(g), 1);
}

// gelu as x * 0.5 * (1 + erf(x / sqrt(2))), the constants broadcast.
TEST_F(VulkanChains, DecomposedGeluIsOneDispatch) {
  Graph g;
  int x = g.input({3, 5, 33}, 2);
  int d = g.op("div", {x, g.constant({1, 1, 1}, std::sqrt(2.0))});
  int e = g.op("erf", {d});
  int a = g.op("add", {e, g.constant({}, 1.0)});
  int m = g.op("mul", {x, a});
  g.output(g.op("mul", {m, g.constant({}, 0.5)}));
  expectFused(std::move(g), 1, 2e-6, 2e-6);
}

// A squeeze-excite gate: the chain starts on a [1, C, 1, 1] tensor and
// broadcasts into the feature map; the running value on the right of sub.
TEST_F(VulkanChains, ChainStartingOnABroadcastOperand) {
  Graph g;
  int s = g.input({1, 8, 1, 1}, 3);
  int x = g.input({2, 8, 6, 5}, 4);
  int h = g.op("hardSigmoid", {s}, floats({{"alpha", 0.2}, {"beta", 0.5}}));
  int m = g.op("mul", {x, h});
  int r = g.op("sub", {g.input({5}, 5), m});
  int p = g.op("prelu", {r, g.constant({1, 8, 1, 1}, 0.25)});
  g.output(g.op("max", {p, g.input({6, 1}, 6)}));
  expectFused(std::move(g), 1);
}

// Every unary op the chain shader has, in chains of 8 (x kept in a range
// each op accepts), against unary.comp's behaviour on the CPU.
TEST_F(VulkanChains, EveryChainableUnaryOp) {
  const char *ops[] = {"abs", "ceil", "floor", "exp", "neg", "relu", "sigmoid", "tanh", "erf", "gelu", "elu",
                       "hardSigmoid", "hardSwish", "leakyRelu", "linear", "clamp", "sin", "cos", "softplus",
                       "softsign", "sign", "roundEven", "tan", "identity"};
  size_t n = sizeof(ops) / sizeof(ops[0]);
  for (size_t start = 0; start < n; start += 7) {
    Graph g;
    int v = g.input({4, 37}, uint32_t(10 + start), -1.2, 1.2);
    size_t end = std::min(n, start + 7);
    for (size_t k = start; k < end; ++k) {
      Attrs attrs;
      if (std::string(ops[k]) == "clamp") attrs = floats({{"minValue", -0.5}, {"maxValue", 0.75}});
      if (std::string(ops[k]) == "linear") attrs = floats({{"alpha", 0.5}, {"beta", -0.125}});
      v = g.op(ops[k], {v}, attrs);
    }
    // log, sqrt and reciprocal after a squashing op keep their domain.
    v = g.op("sigmoid", {v});
    v = g.op(start % 2 ? "log" : "sqrt", {v});
    g.output(g.op("reciprocal", {g.op("add", {v, g.constant({}, 2.0)})}));
    SCOPED_TRACE(ops[start]);
    // Above 8 ops: 8 in one dispatch, the rest in a second.
    expectFused(std::move(g), end - start + 4 > 8 ? 2 : 1, 1e-5, 1e-5);
  }
}

// What must not be fused: an intermediate with two consumers, or one that
// is a graph output, stays materialized.
TEST_F(VulkanChains, SharedOrOutputIntermediatesStayMaterialized) {
  Graph g;
  int x = g.input({3, 17}, 7);
  int a = g.op("sigmoid", {x});         // used twice: not inside a chain
  int b = g.op("mul", {x, a});          // b -> c fused, a read as an operand
  int c = g.op("add", {a, b});
  int r = g.op("relu", {c});            // a graph output
  g.output(r);
  g.output(g.op("neg", {r}));
  // sigmoid; mul+add+relu; neg.
  expectFused(std::move(g), 3);
}

// A chain input that only the chain's first op reads (y), and a node
// between the chain's ops (z = softmax, not chainable): the fused dispatch
// reads y at the chain's last op, so y must stay live until then. Planned
// for the nodes one by one, z would take y's bytes (y dies at the add) and
// the partition's fused dispatch would read z for y.
TEST_F(VulkanChains, ChainInputsLiveUntilTheFusedDispatch) {
  Graph g;
  int y = g.op("softmax", {g.input({4, 33}, 30)}, {{"axis", 1, true}});
  int a = g.op("add", {y, g.constant({}, 0.5)});  // y's only reader
  int z = g.op("softmax", {g.input({4, 33}, 31)}, {{"axis", 1, true}});
  int m = g.op("mul", {a, z});
  g.output(g.op("sub", {m, g.input({33}, 32)}));
  // softmax, softmax, add+mul+sub.
  expectFused(std::move(g), 3);
}

// More distinct operands than chain.comp binds (5) cut the chain.
TEST_F(VulkanChains, TooManyOperandsCutTheChain) {
  Graph g;
  int v = g.input({2, 9}, 8);
  for (int k = 0; k < 6; ++k) v = g.op(k % 2 ? "add" : "mul", {v, g.input({9}, uint32_t(20 + k))});
  g.output(v);
  expectFused(std::move(g), 2);
}

// The chain node's factory checks its attributes (the node could come from
// elsewhere than ChainFusion).
TEST_F(VulkanChains, MalformedChainNodeIsRefused) {
  cpu::OperandDesc x{DataType::kFloat32, {4}, nullptr}, y{DataType::kFloat32, {4}, nullptr};
  cpu::NodeDesc n;
  n.op = kElementwiseChainOp;
  n.name = "c";
  n.inputs = {&x};
  n.outputs = {&y};
  rt::AttributeValue ints;
  ints.kind = rt::AttributeValue::Kind::kInts;
  ints.ints = {kChainBinary + 7};  // equal: not an arithmetic op
  n.attributes.set("chainCodes", ints);
  ints.ints = {0};
  n.attributes.set("chainArgs", ints);
  n.attributes.set("chainAlphaBits", ints);
  n.attributes.set("chainBetaBits", ints);
  VulkanKernelFactory f = findVulkanKernel(kElementwiseChainOp);
  ASSERT_NE(f, nullptr);
  KernelPlan plan;
  Status s = f(n, device_->info(), &plan);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("not a float arithmetic op"), std::string::npos) << s.message();
  // Not listed among the ops the backend offers.
  for (std::string_view op : vulkanKernelNames()) EXPECT_NE(op, kElementwiseChainOp);
}

}  // namespace
}  // namespace webnn::vk::test
