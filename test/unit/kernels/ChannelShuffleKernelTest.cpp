// channelShuffle (kernels/ChannelShuffle.cpp) against its definition
// (docs/FUSED_OPS.md): concat, output channel j * groups + i = concat
// channel i * C/groups + j, cut into pieces. Cases reach every copy path:
// ShuffleNetV2's two-branch unit (groups 2, whole segments), groups 3 and 4,
// a group count without a fixed-width loop, channels-first data (inner > 1),
// piece boundaries inside a group's turn and inputs that do not line up
// with the groups (single channels), 1-, 2- and 8-byte elements; 1 and 2
// threads. Bad options get one error naming the node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {
namespace {

struct ShuffleCase {
  Shape inputShape;             // of every input but along `axis`
  std::vector<int64_t> inputs;  // each input's size along axis
  int64_t axis, groups;
  std::vector<int64_t> splits;
  DataType dt = DataType::kFloat32;
};

// Values as doubles (exact in every type used), reference by definition.
TEST(ChannelShuffle, MatchesTheDefinition) {
  const std::vector<ShuffleCase> cases = {
      // ShuffleNetV2, channels-last: two branches of 58, the two halves out.
      {{1, 7, 7, 0}, {58, 58}, 3, 2, {58, 58}},
      // Groups 3, one input, channels-first (inner 4), the whole result.
      {{2, 0, 2, 2}, {12}, 1, 3, {12}},
      // Groups 4 and a piece boundary inside a turn; int8.
      {{3, 0}, {8, 8, 8, 8}, 1, 4, {6, 26}, DataType::kInt8},
      // Inputs not lined up with the groups; float16 moved as bytes.
      {{2, 3, 0}, {3, 2, 3}, 2, 2, {3, 5}, DataType::kFloat16},
      // Groups 5 (no fixed-width loop), int64.
      {{4, 0}, {10}, 1, 5, {5, 5}, DataType::kInt64},
      // Groups 2 in float32 over AVX-512 where the CPU has it: pairs per
      // pixel below 8 (one masked store), 12 (ShuffleNetV2 x0.5's halves),
      // exactly 16 (no tail), 24 (one input: both halves of each pair from
      // it) and 33 (two whole blocks and a tail of one).
      {{5, 0}, {3, 3}, 1, 2, {6}},
      {{1, 5, 3, 0}, {24, 24}, 3, 2, {24, 24}},
      {{3, 0}, {16, 16}, 1, 2, {32}},
      {{2, 3, 0}, {48}, 2, 2, {48}},
      {{1, 3, 3, 0}, {33, 33}, 3, 2, {66}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const ShuffleCase &c = cases[k];
    int64_t outer = 1, inner = 1, channels = 0;
    for (int64_t d = 0; d < c.axis; ++d) outer *= c.inputShape[d];
    for (size_t d = size_t(c.axis) + 1; d < c.inputShape.size(); ++d) inner *= c.inputShape[d];
    for (int64_t n : c.inputs) channels += n;
    // concat[p][ch][r] as one list; inputs cut from it.
    std::vector<double> joined(size_t(outer * channels * inner));
    for (size_t i = 0; i < joined.size(); ++i) joined[i] = double(int64_t(i * 7 % 101) - 50);
    std::vector<std::vector<double>> parts(c.inputs.size());
    for (int64_t p = 0; p < outer; ++p) {
      int64_t c0 = 0;
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        for (int64_t ch = 0; ch < c.inputs[i]; ++ch)
          for (int64_t r = 0; r < inner; ++r) parts[i].push_back(joined[size_t((p * channels + c0 + ch) * inner + r)]);
        c0 += c.inputs[i];
      }
    }
    const int64_t perGroup = channels / c.groups;
    for (int threads : {1, 2}) {
      OpCase op;
      op.op = "channelShuffle";
      op.attrInt("axis", c.axis).attrInt("groups", c.groups).attrInts("splits", c.splits);
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        Shape s = c.inputShape;
        s[size_t(c.axis)] = c.inputs[i];
        op.inputs.push_back(fromDoubles(c.dt, s, parts[i]));
      }
      for (int64_t n : c.splits) {
        Shape s = c.inputShape;
        s[size_t(c.axis)] = n;
        op.outputs.push_back(outSpec(c.dt, s));
      }
      Status s = runOp(op, threads);
      ASSERT_TRUE(s.isOk()) << "case " << k << ": " << s.message();
      int64_t lo = 0;
      for (size_t piece = 0; piece < c.splits.size(); ++piece) {
        std::vector<double> want;
        for (int64_t p = 0; p < outer; ++p)
          for (int64_t o = lo; o < lo + c.splits[piece]; ++o)
            for (int64_t r = 0; r < inner; ++r)
              want.push_back(joined[size_t((p * channels + (o % c.groups) * perGroup + o / c.groups) * inner + r)]);
        EXPECT_EQ(op.outputs[piece].values(), want) << "case " << k << " piece " << piece << ", " << threads
                                                    << " thread(s)";
        lo += c.splits[piece];
      }
    }
  }
}

TEST(ChannelShuffle, RefusesBadOptions) {
  auto node = [](int64_t groups, std::vector<int64_t> splits) {
    OpCase op;
    op.op = "channelShuffle";
    op.attrInt("axis", 1).attrInt("groups", groups).attrInts("splits", splits);
    op.inputs.push_back(f32({2, 6}, std::vector<float>(12, 1.f)));
    for (int64_t n : splits) op.outputs.push_back(outSpec(DataType::kFloat32, {2, n}));
    return op;
  };
  OpCase notDividing = node(4, {6});
  Status s = runOp(notDividing, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("groups 4 does not divide the 6 channels along axis 1"), std::string::npos) << s.message();
  OpCase shortSplits = node(2, {2, 3});
  s = runOp(shortSplits, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("splits sum to 5, not the 6 channels"), std::string::npos) << s.message();
  OpCase noGroups;
  noGroups.op = "channelShuffle";
  noGroups.attrInt("axis", 1).attrInts("splits", {6});
  noGroups.inputs.push_back(f32({2, 6}, std::vector<float>(12, 1.f)));
  noGroups.outputs.push_back(outSpec(DataType::kFloat32, {2, 6}));
  s = runOp(noGroups, 1);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("missing required attribute 'groups'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnn::cpu::test
