// Elementwise chains fused into one dispatch (ChainFusion.cpp,
// kernels/ElementwiseChain.cpp, shaders/chain.comp): small graphs run as one
// GPU program against the CPU kernels run node by node, with the number of
// dispatches the fusion should leave. Validation layers are on.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "VulkanTestUtil.h"
#include "backends/vulkan/ChainFusion.h"
#include "backends/vulkan/kernels/ElementwiseChain.h"

namespace webnn::vk::test {
namespace {

using cpu::test::fromDoubles;
using Role = ProgramTensor::Role;

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
    rt::NodeAttributes attrs;
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
  int op(const std::string &name, std::vector<int> in, rt::NodeAttributes attrs = {}) {
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

rt::NodeAttributes floats(std::initializer_list<std::pair<const char *, double>> kv) {
  rt::NodeAttributes a;
  for (const auto &[k, v] : kv) {
    rt::AttributeValue av;
    av.kind = rt::AttributeValue::Kind::kFloat;
    av.f = v;
    a.set(k, av);
  }
  return a;
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
      c.attrs = n.attrs;
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
      descs[i].attributes = g.nodes[i].attrs;
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
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      if (g.tensors[t].role != Role::kOutput) continue;
      std::vector<double> want = g.tensors[t].value.values();
      TestTensor got = g.tensors[t].value;
      const uint8_t *p = static_cast<const uint8_t *>(program->outputData(int32_t(t)));
      got.bytes.assign(p, p + got.bytes.size());
      std::vector<double> have = got.values();
      int bad = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        bool same = std::isnan(want[i]) ? std::isnan(have[i]) : std::abs(have[i] - want[i]) <= atol + rtol * std::abs(want[i]);
        if (!same && bad++ < 3) ADD_FAILURE() << "output " << t << "[" << i << "]: GPU " << have[i] << " CPU " << want[i];
      }
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
      rt::NodeAttributes attrs;
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
