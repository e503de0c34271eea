// Runs one op on the GPU (a one-node VulkanProgram) and on the CPU kernel,
// for comparing the two.
#ifndef WEBNN_TEST_UNIT_VULKAN_VULKANTESTUTIL_H
#define WEBNN_TEST_UNIT_VULKAN_VULKANTESTUTIL_H

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "KernelTestUtil.h"
#include "backends/vulkan/VulkanDevice.h"
#include "backends/vulkan/VulkanProgram.h"

namespace webnn::vk::test {

using cpu::test::OpCase;
using cpu::test::TestTensor;

// The device every test shares: validation on, created once. Null (with
// the reason in *why) when it cannot be created.
std::shared_ptr<Device> sharedDevice(std::string *why = nullptr);

// A fixture whose tests use the shared device (device_); a test fails,
// naming why, where there is none.
class VulkanDeviceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    device_ = sharedDevice(&why);
    ASSERT_TRUE(device_) << why;
  }
  std::shared_ptr<Device> device_;
};

// Runs `c` on `device`, filling c.outputs' bytes.
Status runGpuOp(const std::shared_ptr<Device> &device, OpCase &c, ProgramStats *stats = nullptr);

// Runs `c` on the GPU and a copy on the CPU, and compares every output
// (floats within rtol/atol, others exactly). Empty string when they agree,
// else what differs.
std::string compareWithCpu(const std::shared_ptr<Device> &device, const OpCase &c, double rtol, double atol);

}  // namespace webnn::vk::test

#endif
