// The backend conformance suite: every single-operator case of the WebNN WPT
// vectors, run on each registered backend through the rt::Backend interface
// alone (makeKernel, createSession, allocate, mapConstants, copies, run,
// synchronize), as the executor drives a placed node; the same cases and
// comparison for every backend (WptCase.h), scaled by the backend's
// tolerance below. A case whose op the backend lacks, or whose node it
// refuses in supports(), is counted, not failed; one it takes must pass.
// Backends: the CPU, Vulkan where a device opens (lavapipe in CI), and the
// test backend (test/unit/runtime/TestBackend.h: add, mul, relu in memory the
// host reaches only by copying).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "KernelTestUtil.h"
#include "TestBackend.h"
#include "WptCase.h"
#include "core/Backend.h"

namespace webnn::test {
namespace {

using json = nlohmann::json;
using cpu::test::OpCase;
using cpu::test::TestTensor;
using cpu::test::WptCase;

// Each backend's tolerance, as a factor on the shared table (WptCase.cpp).
// All meet it today: Vulkan's shaders accumulate in float32 like the CPU's
// kernels, and lavapipe's transcendentals stay within the table's 32 ULP.
// A backend that cannot (an NPU in reduced precision) widens it here, with
// the reason.
double toleranceScale(std::string_view backend) {
  (void)backend;
  return 1.0;
}

// The backends this build registered, the test backend added.
std::vector<std::string> backendNames() {
  registerTestBackend();
  std::vector<std::string> names;
  for (const rt::Backend *b : rt::backends()) names.emplace_back(b->name());
  return names;
}

// The case's operands as the executor hands a placed node its tensors: each
// in a buffer of the backend (constants through mapConstants, the rest
// copied in), outputs copied back to the case after the run.
struct BackendRun {
  std::vector<rt::OperandDesc> inDescs, outDescs;
  rt::NodeDesc node;
  std::vector<std::unique_ptr<rt::BackendBuffer>> buffers;
  std::vector<rt::TensorBuffer> inBufs, outBufs;
  std::vector<const rt::TensorBuffer *> inPtrs;
  std::vector<rt::TensorBuffer *> outPtrs;
};

void describe(OpCase &c, BackendRun *r) {
  r->inDescs.resize(c.inputs.size());
  r->outDescs.resize(c.outputs.size());
  r->node.op = c.op;
  r->node.name = "conformance";
  r->node.attributes = c.attrs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      r->node.inputs.push_back(nullptr);
      continue;
    }
    r->inDescs[i].dtype = c.inputs[i]->dtype;
    r->inDescs[i].shape = c.inputs[i]->shape;
    r->inDescs[i].constantData = c.inputs[i]->constant ? c.inputs[i]->bytes.data() : nullptr;
    r->node.inputs.push_back(&r->inDescs[i]);
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    r->outDescs[i].dtype = c.outputs[i].dtype;
    r->outDescs[i].shape = c.outputs[i].shape;
    r->node.outputs.push_back(&r->outDescs[i]);
  }
}

rt::TensorBuffer bufferView(const TestTensor &t, rt::BackendBuffer *b) {
  return rt::TensorBuffer{t.dtype, &t.shape, b->hostPointer(), b, 0};
}

// Kernel made and run on `backend`; outputs in c.outputs.
Status runOnBackend(rt::Backend &backend, rt::BackendSession &session, OpCase &c, BackendRun &r) {
  std::unique_ptr<rt::Kernel> kernel;
  WEBNN_RETURN_IF_ERROR(backend.makeKernel(r.node, &kernel));
  r.inBufs.resize(c.inputs.size());
  r.outBufs.resize(c.outputs.size());
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      r.inPtrs.push_back(nullptr);
      continue;
    }
    const TestTensor &t = *c.inputs[i];
    std::unique_ptr<rt::BackendBuffer> b;
    if (t.constant) {
      WEBNN_RETURN_IF_ERROR(backend.mapConstants(t.bytes.data(), t.bytes.size(), &b));
    } else {
      WEBNN_RETURN_IF_ERROR(backend.allocate(t.bytes.size(), &b));
      if (!t.bytes.empty()) WEBNN_RETURN_IF_ERROR(backend.copyToBackend(t.bytes.data(), b.get(), 0, t.bytes.size()));
    }
    r.inBufs[i] = bufferView(t, b.get());
    r.inPtrs.push_back(&r.inBufs[i]);
    r.buffers.push_back(std::move(b));
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    TestTensor &o = c.outputs[i];
    uint64_t bytes = 0;
    tensorByteSize(o.dtype, o.shape, &bytes);
    o.bytes.assign(size_t(bytes), 0);
    std::unique_ptr<rt::BackendBuffer> b;
    WEBNN_RETURN_IF_ERROR(backend.allocate(bytes, &b));
    r.outBufs[i] = bufferView(o, b.get());
    r.outPtrs.push_back(&r.outBufs[i]);
    r.buffers.push_back(std::move(b));
  }
  rt::KernelContext ctx{r.inPtrs.data(), r.inPtrs.size(), r.outPtrs.data(), r.outPtrs.size(), session.kernelState()};
  WEBNN_RETURN_IF_ERROR(kernel->run(ctx));
  WEBNN_RETURN_IF_ERROR(session.synchronize());
  for (size_t i = 0; i < c.outputs.size(); ++i)
    if (!c.outputs[i].bytes.empty())
      WEBNN_RETURN_IF_ERROR(backend.copyToHost(r.outBufs[i].buffer, 0, c.outputs[i].bytes.data(),
                                               c.outputs[i].bytes.size()));
  return Status::ok();
}

std::string wptDir() {
  const char *env = std::getenv("WEBNN_WPT_DIR");
  return env && *env ? env : WEBNN_KERNEL_WPT_DIR;
}

class BackendConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendConformance, WptSingleOperatorCases) {
  const std::string dir = wptDir();
  if (dir.empty() || !std::filesystem::exists(dir)) GTEST_SKIP() << "WPT vectors not found (WEBNN_WPT_DIR)";
  rt::Backend *backend = rt::findBackend(GetParam());
  ASSERT_NE(backend, nullptr);
  std::unique_ptr<rt::BackendSession> session;
  Status s = backend->createSession(1, &session);
  // A GPU backend without a device here (no Vulkan loader or driver) has
  // nothing to test; every other failure is one.
  if (!s.isOk() && backend->deviceType() == "gpu") GTEST_SKIP() << GetParam() << ": " << s.message();
  ASSERT_TRUE(s.isOk()) << s.message();
  const double scale = toleranceScale(backend->name());

  std::vector<std::filesystem::path> files;
  for (auto &e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::array<int, 3>> perOp;  // pass, fail, not supported
  for (const auto &f : files) {
    std::ifstream is(f);
    const json doc = json::parse(is);
    for (const json &test : doc["tests"]) {
      if (test["graph"]["operators"].size() != 1) continue;
      const std::string op = test["graph"]["operators"][0]["name"].get<std::string>();
      const std::string id = f.filename().string() + ": " + test["name"].get<std::string>();
      WptCase w;
      if (!cpu::test::parseWptCase(test, [&](const std::string &o) { return backend->hasOp(o); }, &w)) {
        perOp[op][2]++;
        continue;
      }
      BackendRun r;
      describe(w.op, &r);
      std::string why;
      if (!backend->supports(r.node, &why)) {
        perOp[op][2]++;
        continue;
      }
      Status run = runOnBackend(*backend, *session, w.op, r);
      const std::string failure = run.isOk() ? cpu::test::compareWptOutputs(w, scale) : run.message();
      if (failure.empty()) {
        perOp[op][0]++;
      } else {
        perOp[op][1]++;
        ADD_FAILURE() << GetParam() << ": " << id << ": " << failure;
      }
    }
  }
  int pass = 0, fail = 0, unsupported = 0;
  for (const auto &[op, n] : perOp) {
    pass += n[0], fail += n[1], unsupported += n[2];
    if (n[0] + n[1]) std::printf("  %-24s pass %3d  fail %3d  not supported %3d\n", op.c_str(), n[0], n[1], n[2]);
  }
  std::printf("  WPT single-op on backend '%s': pass %d, fail %d, not supported %d\n", GetParam().c_str(), pass,
              fail, unsupported);
  // Every backend runs something: a suite that skipped every case would
  // pass without testing the backend.
  EXPECT_GT(pass, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendConformance, ::testing::ValuesIn(backendNames()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

}  // namespace
}  // namespace webnn::test
