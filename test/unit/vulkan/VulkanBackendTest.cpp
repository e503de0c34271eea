// The Vulkan backend behind the executor (core/Backend.h): registered as
// "vulkan" with device type "gpu"; a session asked for "gpu" places every
// node it supports on it, with the executor's transfers, and gets the CPU's
// results.
#include <gtest/gtest.h>

#include "TestArtifact.h"
#include "VulkanTestUtil.h"
#include "backends/vulkan/VulkanBackend.h"
#include "core/Backend.h"
#include "core/Executor.h"

namespace webnn::vk::test {
namespace {

using webnn::test::addReluGraph;
using webnn::test::buildArtifact;
using webnn::test::floatBytes;
using webnn::test::TGraph;
using webnn::test::tempDir;
using webnn::test::writeFile;

TEST(VulkanBackend, IsRegisteredAsTheGpu) {
  rt::Backend *b = rt::findBackend("vulkan");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->deviceType(), "gpu");
  EXPECT_FALSE(b->hostAddressable());
  EXPECT_TRUE(b->hasOp("conv2d"));
  EXPECT_TRUE(b->hasOp("lstm"));
  EXPECT_FALSE(b->hasOp("noSuchOp"));
  EXPECT_NE(rt::defaultBackend(), b);  // the CPU stays the default
}

TEST(VulkanBackend, ExecutorRunsNodesPlacedOnTheGpu) {
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = writeAndPrepare(addReluGraph(), "vulkan_backend", &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<rt::Executor> e;
  s = rt::Executor::create(p, 1, &e, true, "gpu");
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(e->nodeBackend(0).name(), "vulkan");
  EXPECT_EQ(e->nodeBackend(1).name(), "vulkan");
  EXPECT_TRUE(e->placementNotes().empty());
  const std::vector<float> x = {1, 1, 1, -2, -3, 0.5f};
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(e->setInput(0, x.data(), x.size() * sizeof(float), true).isOk());
    s = e->run();
    ASSERT_TRUE(s.isOk()) << s.message();
    const float *y = static_cast<const float *>(e->outputData(0));
    const float c[] = {-3, -2, -1, 1, 2, 3};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], std::max(0.f, x[size_t(i)] + c[i])) << i;
  }
}

// A dynamic-batch graph on the GPU: y = relu(x) * x + c, x [n, 3] with
// n <= 8, c a constant [3]. The three nodes are one partition per shape
// signature (a command buffer each, the two most recent kept), one submit
// per run; the copies move this run's rows only.
TEST(VulkanBackend, DynamicBatchRunsAsOnePartitionPerSignature) {
  TGraph g;
  g.name = "dynamic_batch";
  g.dynamicDims = {{"n", 8}};
  g.tensors = {{"x", DataType::kFloat32, {8, 3}, {0, -1}}, {"c", DataType::kFloat32, {3}},
               {"a", DataType::kFloat32, {8, 3}, {0, -1}}, {"b", DataType::kFloat32, {8, 3}, {0, -1}},
               {"y", DataType::kFloat32, {8, 3}, {0, -1}}};
  g.constants = {{1, floatBytes({0.5f, -1.f, 2.f}), "c"}};
  g.nodes = {{"relu", {0}, {2}, "relu0"}, {"mul", {2, 0}, {3}, "mul0"}, {"add", {3, 1}, {4}, "add0"}};
  g.inputs = {0};
  g.outputs = {4};
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = writeAndPrepare(g, "vulkan_dynamic", &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<rt::Executor> e;
  s = rt::Executor::create(p, 1, &e, true, "gpu");
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_TRUE(e->dynamic());
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(e->nodeBackend(i).name(), "vulkan") << i;
  EXPECT_TRUE(e->placementNotes().empty());
  EXPECT_EQ(e->transfersPerRun(), 2u);  // x up, y down
  const float c[3] = {0.5f, -1.f, 2.f};
  // n = 3, 8, 3 (the first signature's command buffer again), 5 (a third
  // signature: the oldest is dropped), 0 rows.
  const int64_t batches[] = {3, 8, 3, 5, 0};
  const uint64_t newRecordings[] = {1, 1, 0, 1, 1};
  for (size_t r = 0; r < std::size(batches); ++r) {
    int64_t n = batches[r];
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> x(size_t(n) * 3);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 7 % 11) - 5) * 0.25f + float(r);
    Shape shape = {n, 3};
    ASSERT_TRUE(e->setInput(0, x.data(), x.size() * sizeof(float), true, &shape).isOk());
    BackendCounters before = backendCounters();
    s = e->run();
    ASSERT_TRUE(s.isOk()) << s.message();
    BackendCounters after = backendCounters();
    if (n > 0) {
      EXPECT_EQ(e->numPartitions(), 1u);
      EXPECT_EQ((after.submits - after.copySubmits) - (before.submits - before.copySubmits), 1u);
      EXPECT_EQ(after.recordings - before.recordings, newRecordings[r]);
    }
    ASSERT_EQ(e->outputShape(0), shape);
    const float *y = static_cast<const float *>(e->outputData(0));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], std::max(0.f, x[i]) * x[i] + c[i % 3]) << i;
  }
}

}  // namespace
}  // namespace webnn::vk::test
