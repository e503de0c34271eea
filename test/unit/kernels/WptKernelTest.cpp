// Every single-operator case of the WebNN WPT conformance vectors, run
// directly through the CPU kernel factories (see the README beside the
// vectors). Prints a pass count per op; any failure fails the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "KernelTestUtil.h"
#include "WptCase.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::test {
namespace {

using json = nlohmann::json;

std::string wptDir() {
  if (const char *e = std::getenv("WEBNN_WPT_DIR")) return e;
  return WEBNN_KERNEL_WPT_DIR;
}

struct CaseResult {
  bool skipped = false;  // no kernel registered
  std::string failure;   // empty = pass
};

CaseResult runWptCase(const json &test) {
  WptCase w;
  if (!parseWptCase(test, [](const std::string &op) { return findCpuKernel(op) != nullptr; }, &w)) return {true, ""};
  Status s = runOp(w.op, 2);
  if (!s.isOk()) return {false, "kernel error: " + s.message()};
  return {false, compareWptOutputs(w)};
}

// Runs every single-operator case whose op is in `ops` (all when empty).
void runWptSuite(const std::string &dir, const std::set<std::string> &ops) {
  std::map<std::string, std::array<int, 3>> perOp;  // pass, fail, skipped
  std::vector<std::filesystem::path> files;
  for (auto &e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto &f : files) {
    std::ifstream is(f);
    json doc = json::parse(is);
    for (const json &test : doc["tests"]) {
      if (test["graph"]["operators"].size() != 1) continue;
      std::string op = test["graph"]["operators"][0]["name"].get<std::string>();
      if (!ops.empty() && !ops.count(op)) continue;
      CaseResult r;
      try {
        r = runWptCase(test);
      } catch (const std::exception &e) {
        r.failure = std::string("harness: ") + e.what();
      }
      if (r.skipped) {
        perOp[op][2]++;
      } else if (r.failure.empty()) {
        perOp[op][0]++;
      } else {
        perOp[op][1]++;
        ADD_FAILURE() << f.filename().string() << ": " << test["name"].get<std::string>() << ": " << r.failure;
      }
    }
  }
  int pass = 0, fail = 0, skip = 0;
  for (auto &[op, c] : perOp) {
    std::printf("  %-24s pass %3d  fail %3d  no-kernel %3d\n", op.c_str(), c[0], c[1], c[2]);
    pass += c[0];
    fail += c[1];
    skip += c[2];
  }
  std::printf("  WPT single-op total: pass %d, fail %d, no kernel %d\n", pass, fail, skip);
}

TEST(WptKernels, AllSingleOperatorCases) {
  std::string dir = wptDir();
  if (dir.empty() || !std::filesystem::exists(dir)) GTEST_SKIP() << "WPT vectors not found";
  runWptSuite(dir, {});
}

#if WEBNN_HAVE_ONEDNN
// The WPT shapes are tiny, so by default they take the portable kernels; here
// every conv2d/matmul/gemm case is forced through oneDNN instead.
TEST(WptKernels, ConvAndMatMulCasesThroughOneDnn) {
  std::string dir = wptDir();
  if (dir.empty() || !std::filesystem::exists(dir)) GTEST_SKIP() << "WPT vectors not found";
  onednn::Policy saved = onednn::policy(), forced = saved;
  forced.enabled = true;
  forced.minFlops = 0;
  onednn::setPolicy(forced);
  ScopedRunCounting counting;  // executionCount() counts only then
  uint64_t before = onednn::executionCount();
  runWptSuite(dir, {"conv2d", "matmul", "gemm"});
  onednn::setPolicy(saved);
  std::printf("  oneDNN executions: %llu\n", (unsigned long long)(onednn::executionCount() - before));
  EXPECT_GT(onednn::executionCount(), before);
}
#endif

}  // namespace
}  // namespace webnn::cpu::test
