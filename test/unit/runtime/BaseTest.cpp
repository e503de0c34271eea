// What every backend builds on: types and NodeAttributes (the CPU thread pool: test/unit/kernels/CpuBackendTest.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/Kernel.h"

namespace webnn {
namespace {

TEST(Types, NamesAndSizes) {
  for (int i = 0; i < kNumDataTypes; ++i) {
    DataType t;
    ASSERT_TRUE(parseDataTypeName(dataTypeName(static_cast<DataType>(i)), &t));
    EXPECT_EQ(static_cast<int>(t), i);
  }
  // float64 is an operand type too (the extension beyond WebNN's types).
  DataType t;
  ASSERT_TRUE(parseDataTypeName("float64", &t));
  EXPECT_EQ(t, DataType::kFloat64);
  EXPECT_FALSE(parseDataTypeName("int16", &t));
  uint64_t bytes = 0;
  ASSERT_TRUE(tensorByteSize(DataType::kInt4, {3}, &bytes));
  EXPECT_EQ(bytes, 2u);
  ASSERT_TRUE(tensorByteSize(DataType::kFloat16, {}, &bytes));
  EXPECT_EQ(bytes, 2u);
  ASSERT_TRUE(tensorByteSize(DataType::kFloat32, {0, 5}, &bytes));
  EXPECT_EQ(bytes, 0u);
  int64_t n;
  EXPECT_FALSE(elementCount({int64_t(1) << 40, int64_t(1) << 40}, &n));
  EXPECT_FALSE(elementCount({0, int64_t(1) << 40, int64_t(1) << 40}, &n));
  EXPECT_FALSE(elementCount({-1}, &n));
  EXPECT_TRUE(elementCount({int64_t(1) << 28, int64_t(1) << 28}, &n));
  EXPECT_FALSE(elementCount({int64_t(1) << 29, int64_t(1) << 28}, &n));
  EXPECT_FALSE(tensorByteSize(DataType::kUint64, {int64_t(1) << 62, 2}, &bytes));
  // 6 x (2^59 + 4098) float32 elements: 192 x 2^59 bits wrapped to 98352
  // bytes before the element limit was low enough (fuzz_artifact).
  EXPECT_FALSE(tensorByteSize(DataType::kFloat32, {3, 2, (int64_t(1) << 59) + 4098}, &bytes));
  ASSERT_TRUE(tensorByteSize(DataType::kFloat64, {int64_t(1) << 28, int64_t(1) << 28}, &bytes));
  EXPECT_EQ(bytes, uint64_t(1) << 59);
  EXPECT_EQ(shapeToString({1, 3, 224, 224}), "[1,3,224,224]");
  EXPECT_EQ(shapeToString({}), "[]");
}

TEST(Types, InterfaceOnlyTypes) {
  EXPECT_EQ(dataTypeName(DataType::kFloat64), "float64");
  EXPECT_EQ(dataTypeName(DataType::kBfloat16), "bfloat16");
  EXPECT_EQ(dataTypeBits(DataType::kUint16), 16);
  EXPECT_EQ(computeTypeOf(DataType::kFloat64), DataType::kFloat32);
  EXPECT_EQ(computeTypeOf(DataType::kBfloat16), DataType::kFloat32);
  EXPECT_EQ(computeTypeOf(DataType::kInt16), DataType::kInt32);
  EXPECT_EQ(computeTypeOf(DataType::kUint16), DataType::kInt32);
  EXPECT_EQ(computeTypeOf(DataType::kInt8), DataType::kInt8);
  EXPECT_TRUE(isInterfaceTypeOf(DataType::kFloat64, DataType::kFloat32));
  EXPECT_FALSE(isInterfaceTypeOf(DataType::kFloat64, DataType::kFloat64));
  EXPECT_FALSE(isInterfaceTypeOf(DataType::kFloat32, DataType::kFloat64));
  EXPECT_FALSE(isInterfaceTypeOf(DataType::kInt16, DataType::kFloat32));
  // bool: one byte, computed as uint8 (WebNN's logical ops' type).
  EXPECT_EQ(dataTypeName(DataType::kBool), "bool");
  EXPECT_EQ(dataTypeBits(DataType::kBool), 8);
  EXPECT_EQ(computeTypeOf(DataType::kBool), DataType::kUint8);
  EXPECT_TRUE(isInterfaceTypeOf(DataType::kBool, DataType::kUint8));
  EXPECT_FALSE(isInterfaceTypeOf(DataType::kBool, DataType::kInt8));
  EXPECT_FALSE(isInterfaceTypeOf(DataType::kUint8, DataType::kBool));
  // Kernels never see them: option values parse WebNN types only.
  DataType t;
  EXPECT_FALSE(parseDataTypeName("bfloat16", &t));
  EXPECT_FALSE(parseDataTypeName("bool", &t));
}

TEST(Types, BoolConvertsToZeroOrOne) {
  // Either way, every nonzero byte becomes 1: a graph computes on 0/1 only,
  // and a caller never gets a bool byte numpy would not write.
  const uint8_t in[5] = {0, 1, 2, 255, 128};
  uint8_t out[5] = {9, 9, 9, 9, 9};
  ASSERT_TRUE(convertElements(DataType::kBool, in, DataType::kUint8, out, 5));
  EXPECT_EQ(std::vector<uint8_t>(out, out + 5), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  std::fill(out, out + 5, 9);
  ASSERT_TRUE(convertElements(DataType::kUint8, in, DataType::kBool, out, 5));
  EXPECT_EQ(std::vector<uint8_t>(out, out + 5), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  EXPECT_FALSE(convertElements(DataType::kBool, in, DataType::kInt8, out, 5));
}

TEST(Types, ConvertElements) {
  // float64 <-> float32: rounded to nearest one way, exact the other.
  double d[3] = {0.1, -1e300, 3.0};
  float f[3];
  ASSERT_TRUE(convertElements(DataType::kFloat64, d, DataType::kFloat32, f, 3));
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_TRUE(std::isinf(f[1]) && f[1] < 0);
  EXPECT_EQ(f[2], 3.0f);
  double back[3];
  ASSERT_TRUE(convertElements(DataType::kFloat32, f, DataType::kFloat64, back, 3));
  EXPECT_EQ(back[0], static_cast<double>(0.1f));

  // float32 -> bfloat16 rounds to nearest, ties to even (as ONNX Runtime's
  // Cast does); bfloat16 -> float32 is exact.
  float in[6] = {1.00390625f, 1.01171875f, 0.4795f, -2.0f, INFINITY, NAN};
  uint16_t bf[6];
  ASSERT_TRUE(convertElements(DataType::kFloat32, in, DataType::kBfloat16, bf, 6));
  EXPECT_EQ(bf[0], 0x3f80);  // tie -> even (1.0)
  EXPECT_EQ(bf[1], 0x3f82);  // tie -> even (1.015625)
  EXPECT_EQ(bf[2], 0x3ef6);  // 0.48046875, not the truncated 0.47851562
  EXPECT_EQ(bf[3], 0xc000);
  EXPECT_EQ(bf[4], 0x7f80);
  float wide[6];
  ASSERT_TRUE(convertElements(DataType::kBfloat16, bf, DataType::kFloat32, wide, 6));
  EXPECT_EQ(wide[2], 0.48046875f);
  EXPECT_TRUE(std::isnan(wide[5]));  // a NaN stays NaN, not infinity

  // int16/uint16 widen exactly; int32 narrows to its low 16 bits.
  int16_t s16[2] = {-32768, 7};
  uint16_t u16[2] = {65535, 0};
  int32_t i32[2];
  ASSERT_TRUE(convertElements(DataType::kInt16, s16, DataType::kInt32, i32, 2));
  EXPECT_EQ(i32[0], -32768);
  ASSERT_TRUE(convertElements(DataType::kUint16, u16, DataType::kInt32, i32, 2));
  EXPECT_EQ(i32[0], 65535);
  int32_t wrap[3] = {32768, -1, 70000};
  ASSERT_TRUE(convertElements(DataType::kInt32, wrap, DataType::kInt16, s16, 2));
  EXPECT_EQ(s16[0], -32768);
  EXPECT_EQ(s16[1], -1);
  ASSERT_TRUE(convertElements(DataType::kInt32, wrap + 1, DataType::kUint16, u16, 2));
  EXPECT_EQ(u16[0], 65535);
  EXPECT_EQ(u16[1], 70000 - 65536);

  // Any other pair is refused.
  EXPECT_FALSE(convertElements(DataType::kFloat64, d, DataType::kInt32, i32, 1));
  EXPECT_FALSE(convertElements(DataType::kInt16, s16, DataType::kFloat32, f, 1));
}

TEST(NodeAttributes, TypedGettersAndMismatch) {
  rt::NodeAttributes a;
  rt::AttributeValue v;
  v.kind = rt::AttributeValue::Kind::kInt;
  v.i = 3;
  a.set("axis", v);
  v = {};
  v.kind = rt::AttributeValue::Kind::kInts;
  v.ints = {1, 2};
  a.set("padding", v);
  v = {};
  v.kind = rt::AttributeValue::Kind::kBool;
  v.i = 1;
  a.set("keepDimensions", v);
  v = {};
  v.kind = rt::AttributeValue::Kind::kString;
  v.s = "nhwc";
  a.set("layout", v);

  EXPECT_EQ(a.getInt("axis", 0), 3);
  EXPECT_EQ(a.getFloat("axis", 0), 3.0);  // ints widen to float
  EXPECT_EQ(a.getInts("padding", {}), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(a.getBool("keepDimensions", false));
  EXPECT_EQ(a.getString("layout", "nchw"), "nhwc");
  EXPECT_EQ(a.getInt("groups", 1), 1);
  EXPECT_TRUE(a.status().isOk());
  EXPECT_FALSE(a.has("groups"));

  EXPECT_EQ(a.getInt("layout", 5), 5);
  EXPECT_FALSE(a.status().isOk());
  EXPECT_EQ(a.status().message(), "option 'layout': expected int, found string");
  a.getBool("axis", false);  // the first mismatch is kept
  EXPECT_EQ(a.status().message(), "option 'layout': expected int, found string");

  v = {};
  v.kind = rt::AttributeValue::Kind::kInt;
  v.i = 9;
  a.set("axis", v);  // replaces
  EXPECT_EQ(a.getInt("axis", 0), 9);
}


}  // namespace
}  // namespace webnn
