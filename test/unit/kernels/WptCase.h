// The WebNN WPT conformance vectors' single-operator cases as kernel test
// cases: one parser, one tolerance table and one comparison, shared by every
// backend's WPT suite (the CPU kernels' WptKernelTest.cpp, the Vulkan
// kernels' VulkanWptTest.cpp, and every registered backend through the
// rt::Backend interface in BackendConformanceTest.cpp).
#ifndef WEBNN_TEST_UNIT_KERNELS_WPTCASE_H
#define WEBNN_TEST_UNIT_KERNELS_WPTCASE_H

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "KernelTestUtil.h"

namespace webnn::cpu::test {

struct WptCase {
  OpCase op;  // inputs, options and output specs
  std::vector<std::string> outputNames;
  std::vector<TestTensor> expected;  // one per output
};

// Parses one test of a vectors file into *out; false (nothing else parsed)
// when `hasKernel` says the backend lacks the case's op.
bool parseWptCase(const nlohmann::json &test, const std::function<bool(const std::string &)> &hasKernel,
                  WptCase *out);

// After the case ran: "" when every output is within the op's tolerance
// (times `toleranceScale`: a backend whose arithmetic differs may widen it,
// BackendConformanceTest.cpp), else "output NAME: why".
std::string compareWptOutputs(const WptCase &c, double toleranceScale = 1.0);

}  // namespace webnn::cpu::test

#endif
