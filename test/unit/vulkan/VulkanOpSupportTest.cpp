// The Vulkan op support table (VulkanOpSupport.cpp) against the kernel
// factories it restates: the same ops, and per op family and data type the
// factory plans a plain node exactly when the table takes it. No device is
// needed: factories plan from DeviceInfo limits alone.
#include <gtest/gtest.h>

#include <set>

#include "backends/vulkan/VulkanKernel.h"
#include "backends/vulkan/VulkanOpSupport.h"
#include "core/OpSupport.h"

namespace webnn::vk::test {
namespace {

DeviceInfo roomyDevice() {
  DeviceInfo d;
  d.maxStorageBufferRange = 1u << 30;
  d.maxSharedMemory = 32768;
  d.maxWorkGroupInvocations = 1024;
  d.maxWorkGroupCount[0] = d.maxWorkGroupCount[1] = d.maxWorkGroupCount[2] = 65535;
  d.maxPushConstantsSize = 128;
  d.subgroupSize = 32;
  d.usable = true;
  return d;
}

// A node of `op` over operands of the given types and shapes.
struct TestNode {
  std::vector<OperandDesc> ins, outs;
  NodeDesc node;
  TestNode(const std::string &op, std::vector<OperandDesc> in, std::vector<OperandDesc> out)
      : ins(std::move(in)), outs(std::move(out)) {
    node.op = op;
    node.name = "n";
    for (const OperandDesc &o : ins) node.inputs.push_back(&o);
    for (const OperandDesc &o : outs) node.outputs.push_back(&o);
  }
};

OperandDesc t(DataType dt, Shape s) { return OperandDesc{dt, std::move(s), nullptr}; }

// Checks that the factory and the table agree on `n`; whether they took it.
bool expectAgree(TestNode &n) {
  VulkanKernelFactory f = findVulkanKernel(n.node.op);
  EXPECT_TRUE(f) << n.node.op;
  if (!f) return false;
  KernelPlan plan;
  Status s = f(n.node, roomyDevice(), &plan);
  std::string why;
  bool table = rt::withinLimits(vulkanOpSupport(), n.node, &why);
  EXPECT_EQ(s.isOk(), table) << n.node.op << " " << dataTypeName(n.ins[0].dtype) << " rank "
                             << n.ins[0].shape.size() << ": factory says '" << (s.isOk() ? "ok" : s.message())
                             << "', table says '" << (table ? "ok" : why) << "'";
  return s.isOk() && table;
}

TEST(VulkanOpSupport, ListsExactlyTheOpsWithKernels) {
  std::set<std::string> kernels, table;
  for (std::string_view op : vulkanKernelNames()) kernels.insert(std::string(op));
  for (const rt::OpLimits &l : vulkanOpSupport().ops) table.insert(l.op);
  EXPECT_EQ(kernels, table);
  EXPECT_EQ(vulkanOpSupport().backend, "vulkan");
}

TEST(VulkanOpSupport, AgreesWithTheFactoriesOnDataTypes) {
  const char *binary[] = {"add", "sub", "mul", "div", "max", "min", "pow", "prelu"};
  const char *compare[] = {"equal", "greater", "lesserOrEqual", "notEqual", "logicalAnd", "logicalXor"};
  const char *unary[] = {"abs", "exp", "relu", "sigmoid", "clamp", "identity", "cast", "neg"};
  const char *reduce[] = {"reduceSum", "reduceMean", "reduceMax", "reduceL2"};
  const char *floatOnly[] = {"softmax"};
  const char *copies[] = {"transpose", "reverse", "expand"};
  // Both sides must take the plain float32 nodes (else agreeing proves nothing).
  int accepted = 0, float32Accepted = 0;
  for (int k = 0; k < kNumDataTypes; ++k) {
    const DataType dt = DataType(k);
    for (const char *op : binary) {
      TestNode n(op, {t(dt, {2, 3}), t(dt, {2, 3})}, {t(dt, {2, 3})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    for (const char *op : compare) {
      TestNode n(op, {t(dt, {2, 3}), t(dt, {3})}, {t(DataType::kUint8, {2, 3})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    for (const char *op : unary) {
      TestNode n(op, {t(dt, {4, 5})}, {t(dt, {4, 5})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    for (const char *op : reduce) {
      TestNode n(op, {t(dt, {4, 5})}, {t(dt, {4})});
      n.node.attributes.set("axes", rt::AttributeValue{rt::AttributeValue::Kind::kInts, 0, 0, "", {1}, {}});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    for (const char *op : floatOnly) {
      TestNode n(op, {t(dt, {4, 5})}, {t(dt, {4, 5})});
      n.node.attributes.set("axis", rt::AttributeValue{rt::AttributeValue::Kind::kInt, 1, 0, "", {}, {}});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    for (const char *op : copies) {
      TestNode n(op, {t(dt, {2, 3})}, {t(dt, {3, 2})});
      if (std::string(op) != "transpose") n.outs[0].shape = {2, 3};
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("reshape", {t(dt, {2, 3})}, {t(dt, {6})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("matmul", {t(dt, {2, 3}), t(dt, {3, 4})}, {t(dt, {2, 4})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("gemm", {t(dt, {2, 3}), t(dt, {3, 4})}, {t(dt, {2, 4})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("conv2d", {t(dt, {1, 2, 5, 5}), t(dt, {3, 2, 3, 3})}, {t(dt, {1, 3, 3, 3})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("maxPool2d", {t(dt, {1, 2, 4, 4})}, {t(dt, {1, 2, 1, 1})});
      n.node.attributes.set("windowDimensions",
                            rt::AttributeValue{rt::AttributeValue::Kind::kInts, 0, 0, "", {4, 4}, {}});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("gather", {t(DataType::kFloat32, {4, 3}), t(dt, {2})}, {t(DataType::kFloat32, {2, 3})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
    {
      TestNode n("where", {t(DataType::kUint8, {2, 3}), t(dt, {2, 3}), t(dt, {2, 3})}, {t(dt, {2, 3})});
      { bool ok = expectAgree(n); accepted += ok; float32Accepted += ok && dt == DataType::kFloat32; }
    }
  }
  // Every family above but gather (whose float32 indices are refused).
  EXPECT_EQ(float32Accepted, 36);
  EXPECT_GT(accepted, float32Accepted);
}

// The decoder-LLM and attention ops: float32 and float16 leading operands
// on both sides, every other type refused by both; rms norms at ranks 1 to 8;
// quantizedMatmul's float32, int8 and uint8.
TEST(VulkanOpSupport, AgreesWithTheFactoriesOnTheLlmOps) {
  auto attrInt = [](TestNode &n, const char *name, int64_t v) {
    n.node.attributes.set(name, rt::AttributeValue{rt::AttributeValue::Kind::kInt, v, 0, "", {}, {}});
  };
  int float32Accepted = 0, accepted = 0;
  for (int k = 0; k < kNumDataTypes; ++k) {
    const DataType dt = DataType(k);
    std::vector<TestNode> nodes;
    nodes.emplace_back("rmsNormalization", std::vector<OperandDesc>{t(dt, {2, 8}), t(dt, {8})},
                       std::vector<OperandDesc>{t(dt, {2, 8}), t(DataType::kFloat32, {2, 1})});
    nodes.emplace_back("skipRmsNormalization", std::vector<OperandDesc>{t(dt, {2, 8}), t(dt, {2, 8}), t(dt, {8})},
                       std::vector<OperandDesc>{t(dt, {2, 8}), t(DataType::kFloat32, {2, 1}), t(dt, {2, 8})});
    nodes.emplace_back("matmulNBits",
                       std::vector<OperandDesc>{t(dt, {3, 32}), t(DataType::kUint8, {5, 1, 16}), t(dt, {5, 1})},
                       std::vector<OperandDesc>{t(dt, {3, 5})});
    attrInt(nodes.back(), "K", 32);
    attrInt(nodes.back(), "N", 5);
    attrInt(nodes.back(), "blockSize", 32);
    nodes.emplace_back("groupQueryAttention",
                       std::vector<OperandDesc>{t(dt, {1, 2, 16}), t(dt, {1, 2, 8}), t(dt, {1, 2, 8}),
                                                t(dt, {1, 1, 3, 8}), t(dt, {1, 1, 3, 8}), t(DataType::kInt32, {1})},
                       std::vector<OperandDesc>{t(dt, {1, 2, 16}), t(dt, {1, 1, 5, 8}), t(dt, {1, 1, 5, 8})});
    attrInt(nodes.back(), "numHeads", 2);
    attrInt(nodes.back(), "kvNumHeads", 1);
    nodes.emplace_back("rotaryEmbedding",
                       std::vector<OperandDesc>{t(dt, {1, 2, 8}), t(DataType::kInt64, {1}), t(dt, {4, 4}), t(dt, {4, 4})},
                       std::vector<OperandDesc>{t(dt, {1, 2, 8})});
    nodes.emplace_back("fusedAttention", std::vector<OperandDesc>{t(dt, {1, 2, 8}), t(dt, {1, 3, 8}), t(dt, {1, 3, 8})},
                       std::vector<OperandDesc>{t(dt, {1, 2, 8})});
    attrInt(nodes.back(), "heads", 2);
    for (TestNode &n : nodes) {
      // The operand pointers must follow the vector's moves.
      n.node.inputs.clear();
      n.node.outputs.clear();
      for (const OperandDesc &o : n.ins) n.node.inputs.push_back(&o);
      for (const OperandDesc &o : n.outs) n.node.outputs.push_back(&o);
      bool ok = expectAgree(n);
      accepted += ok;
      float32Accepted += ok && dt == DataType::kFloat32;
    }
  }
  EXPECT_EQ(float32Accepted, 6);
  EXPECT_EQ(accepted, 12);  // float32 and float16
  // quantizedMatmul: a float32, or int8/uint8 with a zero point of its type.
  int quantizedAccepted = 0;
  for (int k = 0; k < kNumDataTypes; ++k) {
    const DataType dt = DataType(k);
    const DataType zp = dt == DataType::kInt8 ? DataType::kInt8 : DataType::kUint8;
    TestNode n("quantizedMatmul",
               {t(dt, {2, 8}), t(DataType::kFloat32, {1}), t(zp, {1}), t(DataType::kInt8, {8, 3}),
                t(DataType::kFloat32, {3}), t(DataType::kInt8, {1})},
               {t(DataType::kFloat32, {2, 3})});
    quantizedAccepted += expectAgree(n);
  }
  EXPECT_EQ(quantizedAccepted, 3);
  for (size_t rank = 0; rank <= 8; ++rank) {
    Shape s(rank, 2);
    Shape stat(rank, 1);
    TestNode n("rmsNormalization", {t(DataType::kFloat32, s), t(DataType::kFloat32, rank ? Shape{2} : Shape{})},
               {t(DataType::kFloat32, s), t(DataType::kFloat32, stat)});
    EXPECT_EQ(expectAgree(n), rank >= 1) << rank;
  }
}

TEST(VulkanOpSupport, AgreesWithTheFactoriesOnRanks) {
  // Broadcasting binary ops and copies merge dims to fit six (rank 7 of
  // mergeable dims runs); matmul four batch dims; conv and pooling exactly 4-D.
  Shape r7 = {1, 1, 1, 1, 1, 2, 3}, r6 = {1, 1, 1, 1, 2, 3};
  for (const Shape &s : {r6, r7}) {
    TestNode add("add", {t(DataType::kFloat32, s), t(DataType::kFloat32, s)}, {t(DataType::kFloat32, s)});
    expectAgree(add);
    TestNode tr("transpose", {t(DataType::kFloat32, s)}, {t(DataType::kFloat32, Shape(s.rbegin(), s.rend()))});
    expectAgree(tr);
  }
  TestNode mm("matmul", {t(DataType::kFloat32, {1, 1, 1, 1, 1, 2, 3}), t(DataType::kFloat32, {3, 4})},
              {t(DataType::kFloat32, {1, 1, 1, 1, 1, 2, 4})});
  expectAgree(mm);
  TestNode conv("conv2d", {t(DataType::kFloat32, {2, 5, 5}), t(DataType::kFloat32, {3, 2, 3, 3})},
                {t(DataType::kFloat32, {3, 3, 3})});
  expectAgree(conv);
}

// The recurrent ops: float32 and float16 inputs on both sides, every other
// type refused by both (the other operands follow the input's type).
TEST(VulkanOpSupport, AgreesWithTheFactoriesOnTheRecurrentOps) {
  int float32Accepted = 0, accepted = 0;
  for (int k = 0; k < kNumDataTypes; ++k) {
    const DataType dt = DataType(k);
    const int64_t H = 3;
    std::vector<TestNode> nodes;
    nodes.emplace_back("gruCell", std::vector<OperandDesc>{t(dt, {2, 4}), t(dt, {3 * H, 4}), t(dt, {3 * H, H}), t(dt, {2, H})},
                       std::vector<OperandDesc>{t(dt, {2, H})});
    nodes.emplace_back("lstmCell",
                       std::vector<OperandDesc>{t(dt, {2, 4}), t(dt, {4 * H, 4}), t(dt, {4 * H, H}), t(dt, {2, H}),
                                                t(dt, {2, H})},
                       std::vector<OperandDesc>{t(dt, {2, H}), t(dt, {2, H})});
    nodes.emplace_back("gru", std::vector<OperandDesc>{t(dt, {5, 2, 4}), t(dt, {1, 3 * H, 4}), t(dt, {1, 3 * H, H})},
                       std::vector<OperandDesc>{t(dt, {1, 2, H})});
    nodes.emplace_back("lstm", std::vector<OperandDesc>{t(dt, {5, 2, 4}), t(dt, {1, 4 * H, 4}), t(dt, {1, 4 * H, H})},
                       std::vector<OperandDesc>{t(dt, {1, 2, H}), t(dt, {1, 2, H})});
    for (TestNode &n : nodes) {
      n.node.inputs.clear();
      n.node.outputs.clear();
      for (const OperandDesc &o : n.ins) n.node.inputs.push_back(&o);
      for (const OperandDesc &o : n.outs) n.node.outputs.push_back(&o);
      n.node.attributes.set("hiddenSize", rt::AttributeValue{rt::AttributeValue::Kind::kInt, H, 0, "", {}, {}});
      if (n.ins[0].shape.size() == 3)
        n.node.attributes.set("steps", rt::AttributeValue{rt::AttributeValue::Kind::kInt, 5, 0, "", {}, {}});
      bool ok = expectAgree(n);
      accepted += ok;
      float32Accepted += ok && dt == DataType::kFloat32;
    }
  }
  EXPECT_EQ(float32Accepted, 4);
  EXPECT_EQ(accepted, 8);
}

// channelShuffle: every byte-sized type (float64 too) at ranks 1 to 8 on
// both sides, rank 0 and the 4-bit types refused by both.
TEST(VulkanOpSupport, AgreesWithTheFactoryOnChannelShuffle) {
  int accepted = 0;
  for (int k = 0; k < kNumDataTypes; ++k) {
    const DataType dt = DataType(k);
    for (size_t rank = 0; rank <= 8; ++rank) {
      Shape in(rank, 2), out(rank, 2);
      if (rank) in.back() = 3;
      TestNode n("channelShuffle", {t(dt, in), t(dt, in)}, {t(dt, out), t(dt, out), t(dt, out)});
      using K = rt::AttributeValue::Kind;
      n.node.attributes.set("axis", rt::AttributeValue{K::kInt, int64_t(rank) - 1, 0, "", {}, {}});
      n.node.attributes.set("groups", rt::AttributeValue{K::kInt, 3, 0, "", {}, {}});
      n.node.attributes.set("splits", rt::AttributeValue{K::kInts, 0, 0, "", {2, 2, 2}, {}});
      bool ok = expectAgree(n);
      accepted += ok;
      EXPECT_EQ(ok, rank >= 1 && elementBytes(dt) != 0) << dataTypeName(dt) << " rank " << rank;
    }
  }
  EXPECT_EQ(accepted, 9 * 8);  // float32..uint8 and float64, ranks 1-8
}

TEST(VulkanOpSupport, RefusalNamesTheOperand) {
  TestNode n("conv2d", {t(DataType::kInt8, {1, 2, 5, 5}), t(DataType::kInt8, {3, 2, 3, 3})},
             {t(DataType::kInt8, {1, 3, 3, 3})});
  std::string why;
  EXPECT_FALSE(rt::withinLimits(vulkanOpSupport(), n.node, &why));
  EXPECT_EQ(why, "input 'input' (int8, rank 4): allowed float32, float16 of rank 4");
  // The GPU has a kernel for every op the CPU has: an op of neither.
  TestNode none("noSuchOp", {t(DataType::kFloat32, {1, 2, 3})}, {t(DataType::kFloat32, {1, 2, 3})});
  EXPECT_FALSE(rt::withinLimits(vulkanOpSupport(), none.node, &why));
  EXPECT_EQ(why, "backend 'vulkan' has no kernel for noSuchOp");
}

TEST(VulkanOpSupport, JsonHasTheSpecShape) {
  std::string j = rt::opSupportLimitsJson(vulkanOpSupport());
  EXPECT_NE(j.find("\"preferredInputLayout\": \"nchw\""), std::string::npos);
  EXPECT_NE(j.find("\"conv2d\": {\"input\": {\"dataTypes\": [\"float32\", \"float16\"], \"rankRange\": "
                   "{\"min\": 4, \"max\": 4}}"),
            std::string::npos)
      << j.substr(0, 400);
  EXPECT_NE(j.find("\"lstm\": {\"input\": {\"dataTypes\": [\"float32\", \"float16\"], \"rankRange\": "
                   "{\"min\": 3, \"max\": 3}}"),
            std::string::npos);
  EXPECT_EQ(j.find("noSuchOp"), std::string::npos);
}

}  // namespace
}  // namespace webnn::vk::test
