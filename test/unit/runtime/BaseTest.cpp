// What CPU kernels build on: types, NodeAttributes, ThreadPool.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "backends/cpu/Kernel.h"
#include "backends/cpu/ThreadPool.h"

namespace webnn {
namespace {

TEST(Types, NamesAndSizes) {
  for (int i = 0; i < kNumDataTypes; ++i) {
    DataType t;
    ASSERT_TRUE(parseDataTypeName(dataTypeName(static_cast<DataType>(i)), &t));
    EXPECT_EQ(static_cast<int>(t), i);
  }
  DataType t;
  EXPECT_FALSE(parseDataTypeName("float64", &t));
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
  EXPECT_TRUE(elementCount({int64_t(1) << 31, int64_t(1) << 31}, &n));
  EXPECT_FALSE(tensorByteSize(DataType::kUint64, {int64_t(1) << 62, 2}, &bytes));
  EXPECT_EQ(shapeToString({1, 3, 224, 224}), "[1,3,224,224]");
  EXPECT_EQ(shapeToString({}), "[]");
}

TEST(NodeAttributes, TypedGettersAndMismatch) {
  cpu::NodeAttributes a;
  cpu::AttributeValue v;
  v.kind = cpu::AttributeValue::Kind::kInt;
  v.i = 3;
  a.set("axis", v);
  v = {};
  v.kind = cpu::AttributeValue::Kind::kInts;
  v.ints = {1, 2};
  a.set("padding", v);
  v = {};
  v.kind = cpu::AttributeValue::Kind::kBool;
  v.i = 1;
  a.set("keepDimensions", v);
  v = {};
  v.kind = cpu::AttributeValue::Kind::kString;
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
  v.kind = cpu::AttributeValue::Kind::kInt;
  v.i = 9;
  a.set("axis", v);  // replaces
  EXPECT_EQ(a.getInt("axis", 0), 9);
}

class ThreadPoolTest : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolTest, CoversRangeExactlyOnce) {
  cpu::ThreadPool pool(GetParam());
  EXPECT_EQ(pool.numThreads(), std::max(1, GetParam()));
  for (int64_t n : {0, 1, 7, 64, 1000, 100003}) {
    for (int64_t grain : {1, 16, 1000, 1 << 20}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      for (auto &h : hits) h = 0;
      pool.parallelFor(n, grain, [&](int64_t b, int64_t e) {
        ASSERT_LE(0, b);
        ASSERT_LE(b, e);
        ASSERT_LE(e, n);
        for (int64_t i = b; i < e; ++i) hits[i]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << "n=" << n << " grain=" << grain << " i=" << i;
    }
  }
}

TEST_P(ThreadPoolTest, SmallRangesRunInline) {
  cpu::ThreadPool pool(GetParam());
  std::thread::id caller = std::this_thread::get_id(), ran;
  pool.parallelFor(10, 100, [&](int64_t, int64_t) { ran = std::this_thread::get_id(); });
  EXPECT_EQ(ran, caller);
}

TEST_P(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  cpu::ThreadPool pool(GetParam());
  std::atomic<int64_t> total{0};
  pool.parallelFor(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      pool.parallelFor(100, 1, [&](int64_t ib, int64_t ie) { total += ie - ib; });
  });
  EXPECT_EQ(total, 6400);
}

TEST_P(ThreadPoolTest, ManySmallJobs) {
  cpu::ThreadPool pool(GetParam());
  int64_t sum = 0;
  std::atomic<int64_t> acc{0};
  for (int j = 0; j < 2000; ++j) {
    pool.parallelFor(256, 8, [&](int64_t b, int64_t e) { acc += e - b; });
    sum += 256;
  }
  EXPECT_EQ(acc, sum);
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(0, 1, 2, 3, 8));

}  // namespace
}  // namespace webnn
