// The loader, device choice, limits, pipeline cache and the one-submit run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "VulkanTestUtil.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk::test {
namespace {

TEST(VulkanDevice, ListsDevicesWithTheirLimits) {
  std::vector<DeviceInfo> devices;
  Status s = listDevices(&devices);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_FALSE(devices.empty());
  bool anyUsable = false;
  for (const DeviceInfo &d : devices) {
    EXPECT_FALSE(d.name.empty());
    if (!d.usable) continue;
    anyUsable = true;
    EXPECT_GE(d.maxStorageBufferRange, 1u << 27) << d.name;  // Vulkan's minimum is 128 MiB
    EXPECT_GE(d.maxSharedMemory, 16384u) << d.name;
    EXPECT_GT(d.subgroupSize, 0u) << d.name;
    EXPECT_GE(d.maxPushConstantsSize, kPushConstantBytes) << d.name;
  }
  EXPECT_TRUE(anyUsable);
}

TEST(VulkanDevice, GpuNamesParse) {
  int index = 7;
  EXPECT_TRUE(parseGpuDeviceName("gpu", &index));
  EXPECT_EQ(index, -1);
  EXPECT_TRUE(parseGpuDeviceName("gpu:0", &index));
  EXPECT_EQ(index, 0);
  EXPECT_TRUE(parseGpuDeviceName("gpu:12", &index));
  EXPECT_EQ(index, 12);
  for (const char *bad : {"gpu:", "gpu:x", "gpu:-1", "cpu", "gpu0", "gpu:123456"})
    EXPECT_FALSE(parseGpuDeviceName(bad, &index)) << bad;
}

TEST(VulkanDevice, DeviceIndexOutOfRangeIsAClearError) {
  Device::Options o = Device::defaultOptions();
  o.index = 999;
  std::shared_ptr<Device> d;
  Status s = Device::create(o, &d);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("gpu:999 requested but there are"), std::string::npos) << s.message();
}

// Calibration measures pipeline creation cold: the device it makes asks the
// drivers to leave their own shader disk caches alone, unless the user chose.
TEST(VulkanDevice, ColdPipelineOptionTurnsTheDriversShaderCachesOff) {
  const char *names[] = {"__GL_SHADER_DISK_CACHE", "MESA_SHADER_CACHE_DISABLE"};
  std::string saved[2];
  bool had[2];
  for (int i = 0; i < 2; ++i) {
    const char *v = std::getenv(names[i]);
    had[i] = v != nullptr;
    if (v) saved[i] = v;
    unsetenv(names[i]);
  }
  Device::Options o = Device::defaultOptions();
  o.cacheDir = "none";
  std::shared_ptr<Device> d;
  Status s = Device::create(o, &d);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(std::getenv(names[0]), nullptr);  // the default leaves them alone
  EXPECT_EQ(std::getenv(names[1]), nullptr);
  d.reset();

  setenv(names[1], "false", 1);  // the user's own choice stays
  o.driverShaderCache = false;
  s = Device::create(o, &d);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_NE(std::getenv(names[0]), nullptr);
  EXPECT_STREQ(std::getenv(names[0]), "0");
  EXPECT_STREQ(std::getenv(names[1]), "false");
  d.reset();

  unsetenv(names[1]);
  s = Device::create(o, &d);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_NE(std::getenv(names[1]), nullptr);
  EXPECT_STREQ(std::getenv(names[1]), "true");
  for (int i = 0; i < 2; ++i) {
    if (had[i])
      setenv(names[i], saved[i].c_str(), 1);
    else
      unsetenv(names[i]);
  }
}

TEST(VulkanDevice, OneSubmitPerRunAndThePipelineCacheIsWritten) {
  std::string why;
  std::shared_ptr<Device> device = sharedDevice(&why);
  ASSERT_TRUE(device) << why;
  OpCase c{"add", {cpu::test::f32({2, 3}, {1, 2, 3, 4, 5, 6}), cpu::test::f32({3}, {10, 20, 30})},
           {cpu::test::outSpec(DataType::kFloat32, {2, 3})}};
  ProgramStats stats;
  Status s = runGpuOp(device, c, &stats);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(stats.submitsPerRun, 1u);
  EXPECT_EQ(stats.dispatches, 1u);
  const float *y = reinterpret_cast<const float *>(c.outputs[0].bytes.data());
  EXPECT_EQ(std::vector<float>(y, y + 6), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  device->savePipelineCache();
  if (!device->pipelineCachePath().empty()) EXPECT_TRUE(std::filesystem::exists(device->pipelineCachePath()));
}

// The debug messenger catches what the validation layer reports (which is
// how every test here fails on a validation message): a zero-size buffer is
// invalid usage.
TEST(VulkanDevice, ValidationMessagesAreCaught) {
  std::string why;
  std::shared_ptr<Device> device = sharedDevice(&why);
  ASSERT_TRUE(device) << why;
  device->takeValidationMessages();
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = 0;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkResult r = device->fn().vkCreateBuffer(device->device(), &bi, nullptr, &buffer);
  if (r == VK_SUCCESS && buffer) device->fn().vkDestroyBuffer(device->device(), buffer, nullptr);
  std::vector<std::string> messages = device->takeValidationMessages();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages[0].find("size"), std::string::npos) << messages[0];
}

// Run as its own ctest (webnn-vulkan-no-loader) with WEBNN_VULKAN_LOADER
// pointing at a missing file: the machine "has no Vulkan".
TEST(VulkanNoLoader, GpuRequestFailsWithOneClearError) {
  const char *path = std::getenv("WEBNN_VULKAN_LOADER");
  ASSERT_TRUE(path && *path) << "run with WEBNN_VULKAN_LOADER set to a missing file";
  std::shared_ptr<Device> d;
  Status s = Device::create(Device::defaultOptions(), &d);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("Vulkan loader"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  std::vector<DeviceInfo> devices;
  EXPECT_FALSE(listDevices(&devices).isOk());
  // The CPU kernels are unaffected.
  OpCase c{"relu", {cpu::test::f32({3}, {-1, 0, 2})}, {cpu::test::outSpec(DataType::kFloat32, {3})}};
  ASSERT_TRUE(cpu::test::runOp(c).isOk());
}

}  // namespace
}  // namespace webnn::vk::test
