// channelShuffle's GPU kernel (kernels/ChannelShuffle.cpp: strided copies)
// against the CPU kernel, bit for bit: ShuffleNetV2's units channels-last,
// channels-first data (inner > 1), groups 1 to 5, piece boundaries inside a
// group's turn, pieces narrower than a turn, inputs not lined up with the
// groups, a negative axis, rank 7; 1-, 2-, 4- and 8-byte types. The
// ShuffleNetV2 unit is four dispatches; bad options are refused naming the
// node. Validation layers are on; any message fails.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "VulkanTestUtil.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk::test {
namespace {

using cpu::test::fromDoubles;
using cpu::test::outSpec;

struct ShuffleCase {
  Shape shape;                  // every input's shape but along `axis`
  std::vector<int64_t> inputs;  // each input's size along the axis
  int64_t axis, groups;
  std::vector<int64_t> splits;
  DataType dt;
};

OpCase makeCase(const ShuffleCase &c, uint32_t seed) {
  OpCase op;
  op.op = "channelShuffle";
  op.attrInt("axis", c.axis).attrInt("groups", c.groups).attrInts("splits", c.splits);
  const size_t axis = size_t(c.axis < 0 ? c.axis + int64_t(c.shape.size()) : c.axis);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Shape s = c.shape;
    s[axis] = c.inputs[i];
    // Distinct small whole numbers (exact in every type): a misplaced
    // element shows.
    std::vector<double> v(size_t(elementsOf(s)));
    for (size_t e = 0; e < v.size(); ++e) v[e] = double((e * 37 + seed + i * 11) % 127);
    op.inputs.push_back(fromDoubles(c.dt, s, v, /*constant=*/i == 1));
  }
  for (int64_t n : c.splits) {
    Shape s = c.shape;
    s[axis] = n;
    op.outputs.push_back(outSpec(c.dt, s));
  }
  return op;
}

class VulkanChannelShuffle : public VulkanDeviceFixture {};

TEST_F(VulkanChannelShuffle, MatchesTheCpuKernel) {
  using T = DataType;
  const std::vector<ShuffleCase> cases = {
      // ShuffleNetV2's unit, nhwc: two branches of 58, the two halves out.
      {{1, 7, 7, 0}, {58, 58}, 3, 2, {58, 58}, T::kFloat32},
      {{1, 7, 7, 0}, {58, 58}, 3, 2, {58, 58}, T::kFloat16},
      // Its last unit: the whole shuffled result, one piece.
      {{1, 4, 4, 0}, {48, 48}, 3, 2, {96}, T::kFloat32},
      // nchw (inner 15): groups 4, an input boundary inside group 1, a piece
      // boundary inside a turn; int64.
      {{2, 0, 3, 5}, {6, 10}, 1, 4, {5, 11}, T::kInt64},
      // Groups 3, one input, channels-first; uint8.
      {{2, 0, 2, 2}, {12}, 1, 3, {12}, T::kUint8},
      // Three inputs not lined up with the groups; int8.
      {{2, 3, 0}, {3, 2, 3}, 2, 2, {3, 5}, T::kInt8},
      // Groups 5, pieces narrower than a turn; float64 (moved as 8 bytes).
      {{4, 0}, {10}, 1, 5, {1, 2, 7}, T::kFloat64},
      // Groups 1: concat then split; int32.
      {{3, 0, 2}, {2, 3}, 1, 1, {4, 1}, T::kInt32},
      // Negative axis, rank 7; uint32.
      {{1, 2, 1, 3, 1, 2, 0}, {4, 4}, -1, 4, {6, 2}, T::kUint32},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k) + " " + std::string(dataTypeName(cases[k].dt)));
    std::string diff = compareWithCpu(device_, makeCase(cases[k], uint32_t(k)), 0, 0);
    EXPECT_TRUE(diff.empty()) << diff;
  }
}

TEST_F(VulkanChannelShuffle, ShuffleNetUnitIsFourCopies) {
  OpCase c = makeCase({{1, 7, 7, 0}, {58, 58}, 3, 2, {58, 58}, DataType::kFloat32}, 0);
  ProgramStats stats;
  Status s = runGpuOp(device_, c, &stats);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(stats.dispatches, 4u);
}

// A node of two float32 [1, 2, 2, 4] inputs along axis 3.
struct BadNode {
  std::vector<OperandDesc> ins, outs;
  NodeDesc node;
  BadNode(int64_t groups, std::vector<int64_t> splits) {
    ins = {{DataType::kFloat32, {1, 2, 2, 4}, nullptr}, {DataType::kFloat32, {1, 2, 2, 4}, nullptr}};
    for (int64_t n : splits) outs.push_back({DataType::kFloat32, {1, 2, 2, n}, nullptr});
    node.op = "channelShuffle";
    node.name = "shuffle_7";
    for (const OperandDesc &o : ins) node.inputs.push_back(&o);
    for (const OperandDesc &o : outs) node.outputs.push_back(&o);
    using K = rt::AttributeValue::Kind;
    node.attributes.set("axis", rt::AttributeValue{K::kInt, 3, 0, "", {}, {}});
    node.attributes.set("groups", rt::AttributeValue{K::kInt, groups, 0, "", {}, {}});
    node.attributes.set("splits", rt::AttributeValue{K::kInts, 0, 0, "", splits, {}});
  }
  std::string refusal(const DeviceInfo &device) {
    KernelPlan plan;
    Status s = findVulkanKernel("channelShuffle")(node, device, &plan);
    return s.isOk() ? "" : s.message();
  }
};

TEST_F(VulkanChannelShuffle, BadOptionsAreRefusedNamingTheNode) {
  const DeviceInfo &d = device_->info();
  EXPECT_EQ(BadNode(2, {4, 4}).refusal(d), "");
  std::string m = BadNode(3, {4, 4}).refusal(d);
  EXPECT_NE(m.find("shuffle_7"), std::string::npos) << m;
  EXPECT_NE(m.find("groups 3 does not divide the 8 channels"), std::string::npos) << m;
  m = BadNode(2, {4, 3}).refusal(d);
  EXPECT_NE(m.find("splits do not sum to the channels"), std::string::npos) << m;
  m = BadNode(2, {8, 0}).refusal(d);
  EXPECT_NE(m.find("splits must be positive"), std::string::npos) << m;
  BadNode wrongOut(2, {4, 4});
  wrongOut.outs[1].shape = {1, 2, 2, 5};
  m = wrongOut.refusal(d);
  EXPECT_NE(m.find("output 1 is not its piece's type and shape"), std::string::npos) << m;
}

}  // namespace
}  // namespace webnn::vk::test
