// Every single-operator case of the WebNN WPT conformance vectors on the GPU,
// through the Vulkan kernels (a one-node program per case; no compiler),
// checked against the vectors' expected outputs with the tolerances of the
// CPU suite (test/unit/kernels/WptKernelTest.cpp). Prints pass counts per op;
// a failing case fails the test unless vulkan_wpt_expected_failures.txt
// lists it with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "VulkanTestUtil.h"
#include "WptCase.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk::test {
namespace {

using json = nlohmann::json;
using cpu::test::compareWptOutputs;
using cpu::test::parseWptCase;
using cpu::test::WptCase;

struct CaseResult {
  bool noKernel = false;
  std::string failure;
};

CaseResult runCase(const std::shared_ptr<Device> &device, const json &test) {
  WptCase w;
  if (!parseWptCase(test, [](const std::string &op) { return findVulkanKernel(op) != nullptr; }, &w))
    return {true, ""};
  Status s = runGpuOp(device, w.op);
  if (!s.isOk()) return {false, "GPU: " + s.message()};
  return {false, compareWptOutputs(w)};
}

// "file.json: case name  # why" lines.
std::set<std::string> readExpectedFailures(const std::string &path) {
  std::set<std::string> out;
  std::ifstream is(path);
  std::string line;
  while (std::getline(is, line)) {
    size_t hash = line.find("  #");
    if (line.empty() || line[0] == '#') continue;
    if (hash != std::string::npos) line = line.substr(0, hash);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.insert(line);
  }
  return out;
}

TEST(VulkanWpt, AllSingleOperatorCases) {
  const char *env = std::getenv("WEBNN_WPT_DIR");
  std::string dir = env && *env ? env : WEBNN_VULKAN_WPT_DIR;
  ASSERT_TRUE(!dir.empty() && std::filesystem::exists(dir)) << "WPT vectors not found (WEBNN_WPT_DIR)";
  std::string why;
  std::shared_ptr<Device> device = sharedDevice(&why);
  ASSERT_TRUE(device) << why;
  std::set<std::string> expectedFailures = readExpectedFailures(WEBNN_VULKAN_WPT_EXPECTED_FAILURES);
  std::map<std::string, std::array<int, 3>> perOp;  // pass, fail, no kernel
  std::vector<std::filesystem::path> files;
  for (auto &e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::set<std::string> seenExpected;
  for (const auto &f : files) {
    std::ifstream is(f);
    json doc = json::parse(is);
    for (const json &test : doc["tests"]) {
      if (test["graph"]["operators"].size() != 1) continue;
      std::string op = test["graph"]["operators"][0]["name"].get<std::string>();
      std::string id = f.filename().string() + ": " + test["name"].get<std::string>();
      CaseResult r;
      try {
        r = runCase(device, test);
      } catch (const std::exception &e) {
        r.failure = std::string("harness: ") + e.what();
      }
      if (r.noKernel) {
        perOp[op][2]++;
      } else if (r.failure.empty()) {
        perOp[op][0]++;
        EXPECT_FALSE(expectedFailures.count(id)) << id << " passes now: remove it from the expected failures";
      } else {
        perOp[op][1]++;
        if (expectedFailures.count(id)) seenExpected.insert(id);
        else ADD_FAILURE() << id << ": " << r.failure;
      }
    }
  }
  int pass = 0, fail = 0, none = 0;
  for (auto &[op, n] : perOp) {
    std::printf("  %-24s pass %3d  fail %3d  no-kernel %3d\n", op.c_str(), n[0], n[1], n[2]);
    pass += n[0];
    fail += n[1];
    none += n[2];
  }
  std::printf("  WPT single-op on %s: pass %d, fail %d, no GPU kernel %d\n", device->info().name.c_str(), pass,
              fail, none);
}

}  // namespace
}  // namespace webnn::vk::test
