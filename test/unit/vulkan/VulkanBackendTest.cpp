// The Vulkan backend behind the executor (core/Backend.h): registered as
// "vulkan" with device type "gpu"; a session asked for "gpu" places every
// node it supports on it, with the executor's transfers, and gets the CPU's
// results.
#include <gtest/gtest.h>

#include "TestArtifact.h"
#include "VulkanTestUtil.h"
#include "core/Backend.h"
#include "core/Executor.h"

namespace webnn::vk::test {
namespace {

using webnn::test::addReluGraph;
using webnn::test::buildArtifact;
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
  std::string dir = tempDir("vulkan_backend");
  std::string path = dir + "/add_relu.wnn";
  writeFile(path, buildArtifact(addReluGraph()).artifact);
  rt::LoaderOptions lo;
  lo.hasKernel = [](std::string_view op) { return rt::findBackendForOp(op) != nullptr; };
  rt::LoadedGraph lg;
  Status s = rt::loadArtifact(path, lo, &lg);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::shared_ptr<rt::PreparedGraph> p;
  ASSERT_TRUE(rt::prepareGraph(std::move(lg), &p).isOk());
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

}  // namespace
}  // namespace webnn::vk::test
