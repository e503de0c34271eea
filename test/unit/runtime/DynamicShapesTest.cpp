#include <gtest/gtest.h>

#include "core/DynamicShapes.h"

namespace webnn::rt {
namespace {

DimExpr sym(uint32_t s, const char *name) { return DimExpr{0, {{s, 1}}, name}; }
DimExpr fixed(int64_t v) { return DimExpr{v, {}, ""}; }

// seq (<= 16) and past (<= 32): x [seq, 4], cache [past, 4], mask [past + seq].
struct Graph {
  std::vector<DynamicDimension> dims{{"seq", 16}, {"past", 32}};
  TensorDims x{sym(0, "seq"), fixed(4)};
  TensorDims cache{sym(1, "past"), fixed(4)};
  TensorDims mask{DimExpr{0, {{1, 1}, {0, 1}}, "past + seq"}};
  std::vector<std::string> names{"x", "cache", "mask"};
  std::vector<const TensorDims *> inputs{&x, &cache, &mask};
};

TEST(DynamicShapes, BindsEveryNameAndChecksDerivedDims) {
  Graph g;
  std::vector<int64_t> sizes;
  Status s = bindDynamicDimensions(g.dims, g.names, g.inputs, {{5, 4}, {0, 4}, {5}}, &sizes);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(sizes, (std::vector<int64_t>{5, 0}));
  EXPECT_EQ(g.mask[0].evaluate(sizes), 5);
}

TEST(DynamicShapes, DerivedDimMustMatch) {
  Graph g;
  std::vector<int64_t> sizes;
  Status s = bindDynamicDimensions(g.dims, g.names, g.inputs, {{5, 4}, {3, 4}, {7}}, &sizes);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("input 'mask' dimension 0 is 7, but 'past + seq' is 8"), std::string::npos)
      << s.message();
}

TEST(DynamicShapes, AboveMaximumIsRefused) {
  Graph g;
  std::vector<int64_t> sizes;
  Status s = bindDynamicDimensions(g.dims, g.names, g.inputs, {{17, 4}, {0, 4}, {17}}, &sizes);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("('seq') is 17, outside 0..16"), std::string::npos) << s.message();
}

TEST(DynamicShapes, OneNameOneSize) {
  std::vector<DynamicDimension> dims{{"seq", 8}};
  TensorDims a{sym(0, "seq")}, b{sym(0, "seq")};
  std::vector<int64_t> sizes;
  Status s = bindDynamicDimensions(dims, {"a", "b"}, {&a, &b}, {{3}, {4}}, &sizes);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("'seq' is 3 in input 'a' but 4 in input 'b'"), std::string::npos) << s.message();
}

TEST(DynamicShapes, StaticDimsOfDynamicInputsAreChecked) {
  Graph g;
  std::vector<int64_t> sizes;
  Status s = bindDynamicDimensions(g.dims, g.names, g.inputs, {{5, 3}, {0, 4}, {5}}, &sizes);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("input 'x' dimension 1 is 3, but the graph fixes it 4"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace webnn::rt
