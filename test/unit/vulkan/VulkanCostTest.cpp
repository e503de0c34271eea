// The GPU cost functions (backends/vulkan/VulkanCost.h): every embedded
// shader has one (so no kernel's dispatch falls outside the GPU estimate),
// and on every single-operator WPT case the dispatches its factory plans
// price to finite, positive work. No device: the factories plan with
// desktop-like limits, as an estimate does from a profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "WptCase.h"
#include "backends/vulkan/VulkanCost.h"
#include "backends/vulkan/VulkanKernel.h"
#include "estimate/GpuEstimate.h"

namespace webnn::vk::test {
namespace {

DeviceInfo limits() {
  DeviceInfo d;
  d.name = "test";
  d.maxStorageBufferRange = uint64_t(1) << 27;
  d.minStorageBufferOffsetAlignment = 64;
  d.maxSharedMemory = 32768;
  d.maxWorkGroupInvocations = 1024;
  d.maxWorkGroupCount[0] = d.maxWorkGroupCount[1] = d.maxWorkGroupCount[2] = 65535;
  d.maxPushConstantsSize = 128;
  d.subgroupSize = 8;
  d.float64 = true;
  d.usable = true;
  return d;
}

TEST(VulkanCost, EveryShaderHasOne) {
  std::ifstream in(WEBNN_VULKAN_SHADERS_H);
  ASSERT_TRUE(in) << "cannot open " << WEBNN_VULKAN_SHADERS_H;
  std::string line;
  std::regex decl(R"(extern const Spirv (\w+);)");
  int shaders = 0;
  std::vector<std::string> missing;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, decl)) continue;
    ++shaders;
    if (!shaderHasCost(m[1].str())) missing.push_back(m[1].str());
  }
  EXPECT_GT(shaders, 20);
  EXPECT_TRUE(missing.empty()) << "shaders without a cost function in VulkanCost.cpp: " << ::testing::PrintToString(missing);
}

TEST(VulkanCost, WptCasesPrice) {
  const char *env = std::getenv("WEBNN_WPT_DIR");
  std::string dir = env && *env ? env : WEBNN_VULKAN_WPT_DIR;
  ASSERT_TRUE(!dir.empty() && std::filesystem::exists(dir)) << "WPT vectors not found (WEBNN_WPT_DIR)";
  const DeviceInfo device = limits();
  std::set<std::string> ops;
  int dispatches = 0;
  for (auto &e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream is(e.path());
    nlohmann::json doc = nlohmann::json::parse(is);
    for (const nlohmann::json &test : doc["tests"]) {
      if (test["graph"]["operators"].size() != 1) continue;
      cpu::test::WptCase w;
      if (!cpu::test::parseWptCase(test, [](const std::string &op) { return findVulkanKernel(op) != nullptr; }, &w))
        continue;
      const cpu::test::OpCase &c = w.op;
      std::vector<OperandDesc> operands(c.inputs.size() + c.outputs.size());
      NodeDesc node;
      node.op = c.op;
      node.name = test["name"].get<std::string>();
      node.attributes = c.attrs;
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (!c.inputs[i]) {
          node.inputs.push_back(nullptr);
          continue;
        }
        operands[i] = {c.inputs[i]->dtype, c.inputs[i]->shape, nullptr};
        node.inputs.push_back(&operands[i]);
      }
      for (size_t i = 0; i < c.outputs.size(); ++i) {
        operands[c.inputs.size() + i] = {c.outputs[i].dtype, c.outputs[i].shape, nullptr};
        node.outputs.push_back(&operands[c.inputs.size() + i]);
      }
      KernelPlan plan;
      if (!findVulkanKernel(c.op)(node, device, &plan).isOk()) continue;  // refused: not run, not costed
      for (const Dispatch &d : plan.dispatches) {
        DispatchWork work;
        Status s = dispatchWork(node, d, &work);
        ASSERT_TRUE(s.isOk()) << s.message();
        EXPECT_FALSE(work.family.empty()) << node.op;
        EXPECT_TRUE(std::isfinite(work.flops) && work.flops >= 0) << node.op << " " << node.name;
        EXPECT_TRUE(std::isfinite(work.bytes) && work.bytes > 0) << node.op << " " << node.name;
        EXPECT_FALSE(work.params.empty()) << node.op;
        for (double p : work.params) EXPECT_TRUE(std::isfinite(p) && p >= 0) << node.op << " " << node.name;
        ++dispatches;
      }
      ops.insert(c.op);
    }
  }
  // The shared WPT set covers most of the GPU's ops.
  EXPECT_GT(ops.size(), 50u);
  EXPECT_GT(dispatches, 1000);
}

// Every family a cost function can name has grid points of its own, or is
// listed here knowingly as priced on another family's grid (GpuEstimate.cpp's
// fallbacks): a new kernel family cannot fall outside the calibrated model
// unnoticed.
TEST(VulkanCost, EveryFamilyIsCalibratedOrBorrowsOnPurpose) {
  const std::vector<std::string> grid = est::gpuGridFamilies();
  const std::set<std::string> borrowing = {"where",   "pad",           "gather", "scatter",         "resample",
                                           "quantize", "rotary",       "kvCache", "conv2d.direct", "cumsum",
                                           "quantizedMatmul", "recurrent"};
  EXPECT_GT(grid.size(), 10u);
  for (const std::string &f : costFamilies()) {
    bool measured = std::find(grid.begin(), grid.end(), f) != grid.end();
    if (measured) {
      EXPECT_EQ(borrowing.count(f), 0u) << f << " has grid points now: take it off the borrowing list";
      continue;
    }
    EXPECT_EQ(borrowing.count(f), 1u) << "family " << f << " has no calibration grid points (GpuCalibrate.cpp)";
    // Its borrowing reaches a measured family.
    std::string g = f;
    for (int hops = 0; hops < 4 && std::find(grid.begin(), grid.end(), g) == grid.end(); ++hops) {
      const char *next = est::gpuFallbackFamily(g);
      if (!next) break;
      g = next;
    }
    EXPECT_NE(std::find(grid.begin(), grid.end(), g), grid.end()) << f << " borrows no measured family";
  }
}

}  // namespace
}  // namespace webnn::vk::test
