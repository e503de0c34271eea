// The public C++ API end to end: load, plan, bind, run, read outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <thread>
#include <vector>

#include "TestArtifact.h"
#include "core/Executor.h"
#include "webnn/runtime.h"

namespace webnn::test {
namespace {

std::string writeArtifact(const TGraph &g, const std::string &tag) {
  std::string path = tempDir(tag) + "/" + tag + ".wnn";
  writeFile(path, buildArtifact(g).artifact);
  return path;
}

// IEEE float16 <-> float32 (round to nearest even), for float16 graphs'
// caller bytes; the test's own, not a backend's.
uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  x &= 0x7fffffff;
  if (x >= 0x7f800000) return sign | (x > 0x7f800000 ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000) return sign | 0x7c00;  // 65520 and up round to infinity
  if (x < 0x38800000) {                       // a subnormal half: units of 2^-24
    float v;
    std::memcpy(&v, &x, 4);
    return sign | uint16_t(std::nearbyint(v * 16777216.f));
  }
  uint32_t h = (x - 0x38000000) >> 13, rest = x & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}

float halfToFloat(uint16_t h) {
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 31) {
    uint32_t bits = 0x7f800000 | (mant << 13);
    std::memcpy(&v, &bits, 4);
  } else {
    v = exp == 0 ? std::ldexp(float(mant), -24) : std::ldexp(float(mant | 0x400), int(exp) - 25);
  }
  return (h & 0x8000) ? -v : v;
}

bool haveKernels(std::initializer_list<const char *> ops) {
  for (const char *op : ops)
    if (!rt::findBackendForOp(op)) return false;
  return true;
}

TEST(Executor, OutputsThatAreInputsOrConstants) {
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::load(writeArtifact(passthroughGraph(), "pass"), {}, &model).isOk());
  ASSERT_EQ(model->inputs().size(), 1u);
  ASSERT_EQ(model->outputs().size(), 2u);
  EXPECT_EQ(model->outputs()[1].name, "k");
  EXPECT_EQ(model->outputs()[1].dtype, DataType::kInt32);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {2}, &session).isOk());
  model.reset();  // sessions keep the graph alive

  // Unaligned caller memory is copied; the output must still be a copy that
  // survives the caller changing its buffer.
  alignas(64) uint8_t storage[64 + 17];
  float *x = reinterpret_cast<float *>(storage + 4);
  float xs[4] = {1, 2, 3, 4};
  std::memcpy(x, xs, 16);
  ASSERT_TRUE(session->setInput("x", x, 16).isOk());
  ASSERT_TRUE(session->run().isOk());
  const void *data;
  size_t bytes;
  ASSERT_TRUE(session->output("x", &data, &bytes).isOk());
  ASSERT_EQ(bytes, 16u);
  x[0] = 99;
  EXPECT_EQ(std::memcmp(data, xs, 16), 0);
  ASSERT_TRUE(session->output("k", &data, &bytes).isOk());
  int32_t k[2];
  std::memcpy(k, data, 8);
  EXPECT_EQ(k[0], 7);
  EXPECT_EQ(k[1], -9);

  float y[4] = {};
  int32_t kk[2] = {};
  ASSERT_TRUE(session->run({{"x", xs, 16}}, {{"x", y, 16}, {"k", kk, 8}}).isOk());
  EXPECT_EQ(y[3], 4.0f);
  EXPECT_EQ(kk[1], -9);
}

TEST(Executor, BindingErrors) {
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::load(writeArtifact(passthroughGraph(), "pass"), {}, &model).isOk());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  Status s = session->run();
  EXPECT_EQ(s.message(), "input 'x' was not set");
  float x[5] = {};
  s = session->setInput("nope", x, 16);
  EXPECT_EQ(s.message(), "no input named 'nope' (inputs: 'x')");
  s = session->setInput("x", x, 20);
  EXPECT_EQ(s.message(), "input 'x': expected 16 bytes (float32 [4]), got 20");
  s = session->run({{"x", x, 16}}, {{"k", x, 4}});
  EXPECT_EQ(s.message(), "output 'k': buffer has 4 bytes, int32 [2] needs 8");
  s = session->run({{"x", x, 16}}, {{"y", x, 4}});
  EXPECT_EQ(s.message(), "no output named 'y' (outputs: 'x', 'k')");
  s = Session::create(*model, {0}, &session);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(Executor, ArenaPlanReusesMemory) {
  // a -> relu -> b -> relu -> c -> relu -> d: b and d can share.
  TGraph g;
  g.tensors = {{"a", DataType::kFloat32, {256}}, {"b", DataType::kFloat32, {256}},
               {"c", DataType::kFloat32, {256}}, {"d", DataType::kFloat32, {256}}};
  g.nodes = {{"relu", {0}, {1}}, {"relu", {1}, {2}}, {"relu", {2}, {3}}};
  g.inputs = {0};
  g.outputs = {3};
  rt::LoadedGraph lg;
  std::string path = tempDir("plan") + "/p.wnn";
  writeFile(path, buildArtifact(g).artifact);
  ASSERT_TRUE(rt::loadArtifact(path, {}, &lg).isOk());
  std::shared_ptr<rt::PreparedGraph> p;
  ASSERT_TRUE(rt::prepareGraph(std::move(lg), &p).isOk());
  EXPECT_EQ(p->arenaBytes, 2048u);  // two 1 KiB slots, not three
  EXPECT_NE(p->arenaOffset[1], p->arenaOffset[2]);
  EXPECT_NE(p->arenaOffset[2], p->arenaOffset[3]);
  EXPECT_EQ(p->arenaOffset[1], p->arenaOffset[3]);
  EXPECT_EQ(p->arenaOffset[0], rt::kNotInArena);
  EXPECT_NE(p->planText.find("arena 2048 bytes for 3 tensors (3072 bytes without reuse, 64-byte aligned)"), std::string::npos)
      << p->planText;
}

TEST(Executor, UnknownOpIsALoadError) {
  TGraph g = addReluGraph();
  g.nodes[1].op = "notAnOp";
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "unknown"), {}, &model);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  // "backend 'cpu'", or "backends 'cpu', 'vulkan'" where the GPU backend is built.
  EXPECT_NE(s.message().find("no kernel in backend"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'cpu'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(" for op 'notAnOp' (node 1 'relu0' (notAnOp))"), std::string::npos) << s.message();
}

TEST(Executor, AddReluEndToEnd) {
  if (!haveKernels({"add", "relu"})) GTEST_SKIP() << "CPU backend has no add/relu kernels in this build";
  for (int threads : {1, 2}) {
    std::unique_ptr<Model> model;
    Status s = Model::load(writeArtifact(addReluGraph(), "addrelu"), {}, &model);
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(model->arenaBytes(), 128u);
    std::unique_ptr<Session> session;
    s = Session::create(*model, {threads}, &session);
    ASSERT_TRUE(s.isOk()) << s.message();
    float x[6] = {1, 1, 1, 1, 1, 1}, y[6] = {};
    s = session->run({{"x", x, sizeof x}}, {{"y", y, sizeof y}});
    ASSERT_TRUE(s.isOk()) << s.message();
    const float want[6] = {0, 0, 0, 2, 3, 4};  // relu(x + {-3,-2,-1,1,2,3})
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
    // Runs are repeatable on the same planned buffers.
    float x2[6] = {5, 5, 5, -5, -5, -5};
    ASSERT_TRUE(session->run({{"x", x2, sizeof x2}}, {{"y", y, sizeof y}}).isOk());
    const float want2[6] = {2, 3, 4, 0, 0, 0};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want2[i]) << i;
  }
}

TEST(Executor, InterfaceTypesConvertAtTheBoundary) {
  if (!haveKernels({"add", "relu"})) GTEST_SKIP() << "CPU backend has no add/relu kernels in this build";
  // relu(x + c) computed in float32; x is fed as float64, y handed back as float64.
  TGraph g = addReluGraph();
  g.tensors[0].interfaceType = DataType::kFloat64;
  g.tensors[3].interfaceType = DataType::kFloat64;
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "f64"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  const TensorInfo &in = model->inputs()[0];
  EXPECT_EQ(in.dtype, DataType::kFloat64);
  EXPECT_EQ(in.graphType, DataType::kFloat32);
  EXPECT_EQ(in.byteSize, 48u);
  EXPECT_EQ(model->outputs()[0].dtype, DataType::kFloat64);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  double x[6] = {1, 1, 1, 1, 1, 0.1}, y[6] = {};
  s = session->run({{"x", x, sizeof x}}, {{"y", y, sizeof y}});
  ASSERT_TRUE(s.isOk()) << s.message();
  const double want[6] = {0, 0, 0, 2, 3, static_cast<double>(0.1f + 3.0f)};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
  // output() and outputData() hand back the converted bytes too.
  const void *data = nullptr;
  size_t bytes = 0;
  ASSERT_TRUE(session->output("y", &data, &bytes).isOk());
  EXPECT_EQ(bytes, 48u);
  EXPECT_EQ(static_cast<const double *>(data)[3], 2.0);
  EXPECT_EQ(session->outputData(0), data);
  // Sizes are checked in the interface type.
  float wrong[6] = {};
  s = session->setInput("x", wrong, sizeof wrong);
  EXPECT_EQ(s.message(), "input 'x': expected 48 bytes (float64 [2,3]), got 24");
  // copyInput converts too; the binding then outlives the caller's buffer.
  {
    std::vector<double> tmp(6, 5.0);
    ASSERT_TRUE(session->copyInput("x", tmp.data(), 48).isOk());
  }
  ASSERT_TRUE(session->run().isOk());
  EXPECT_EQ(static_cast<const double *>(session->outputData(0))[0], 2.0);
}

TEST(Executor, Int16InterfaceWrapsLikeInt16) {
  if (!haveKernels({"add"})) GTEST_SKIP() << "CPU backend has no add kernel in this build";
  // a + b computed in int32, exchanged as int16: the sum wraps at the output
  // as int16 arithmetic would.
  TGraph g;
  g.tensors = {{"a", DataType::kInt32, {3}, {}, DataType::kInt16},
               {"b", DataType::kInt32, {3}, {}, DataType::kUint16},
               {"s", DataType::kInt32, {3}, {}, DataType::kInt16}};
  g.nodes = {{"add", {0, 1}, {2}, "add0"}};
  g.inputs = {0, 1};
  g.outputs = {2};
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "i16"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  int16_t a[3] = {32767, -5, 100};
  uint16_t b[3] = {1, 65535, 7};
  int16_t out[3] = {};
  s = session->run({{"a", a, sizeof a}, {"b", b, sizeof b}}, {{"s", out, sizeof out}});
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(out[0], -32768);          // 32768 wraps
  EXPECT_EQ(out[1], int16_t(65530));  // -5 + 65535 = 65530 -> -6
  EXPECT_EQ(out[2], 107);
}

TEST(Executor, BoolInterfaceIsZeroOrOne) {
  if (!haveKernels({"max"})) GTEST_SKIP() << "CPU backend has no max kernel in this build";
  // max(a, b) computed in uint8, exchanged as bool (a logical or): nonzero
  // bytes a caller feeds (a uint8 array handed in as bool) arrive as 1, so
  // max(2, 4) is 1, not 4.
  TGraph g;
  g.tensors = {{"a", DataType::kUint8, {4}, {}, DataType::kBool},
               {"b", DataType::kUint8, {4}, {}, DataType::kBool},
               {"y", DataType::kUint8, {4}, {}, DataType::kBool}};
  g.nodes = {{"max", {0, 1}, {2}, "max0"}};
  g.inputs = {0, 1};
  g.outputs = {2};
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "bool"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(model->inputs()[0].dtype, DataType::kBool);
  EXPECT_EQ(model->inputs()[0].graphType, DataType::kUint8);
  EXPECT_EQ(model->outputs()[0].dtype, DataType::kBool);
  EXPECT_EQ(model->outputs()[0].byteSize, 4u);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  uint8_t a[4] = {1, 2, 0, 0}, b[4] = {0, 4, 0, 255}, y[4] = {9, 9, 9, 9};
  s = session->run({{"a", a, sizeof a}, {"b", b, sizeof b}}, {{"y", y, sizeof y}});
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{1, 1, 0, 1}));
}

TEST(Executor, WeightlessEndToEnd) {
  if (!haveKernels({"add", "relu"})) GTEST_SKIP() << "CPU backend has no add/relu kernels in this build";
  std::string dir = tempDir("wl");
  Built b = buildArtifact(addReluGraph(), true);
  writeFile(dir + "/g.wnn", b.artifact);
  writeFile(dir + "/g.weights", b.weights);
  std::unique_ptr<Model> model;
  Status s = Model::load(dir + "/g.wnn", {dir + "/g.weights"}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  float x[6] = {0, 0, 0, 0, 0, 0}, y[6];
  ASSERT_TRUE(session->run({{"x", x, sizeof x}}, {{"y", y, sizeof y}}).isOk());
  EXPECT_EQ(y[5], 3.0f);
}

// A chain of matmuls whose oneDNN kernels JIT-compile at session creation;
// with two threads a helper compiles while the first run goes on (the run
// claims kernels the helper has not reached, waits for one it is building).
// Two threads sharing one session: each call that arrives while the other
// thread is inside the session is refused with kBusy; every call that runs
// gives the right answer (before the guard, 4 threads got wrong outputs).
TEST(Executor, SessionSharedBetweenThreadsIsRefusedNotRaced) {
  if (!haveKernels({"relu"})) GTEST_SKIP() << "CPU backend has no relu kernel in this build";
  const int64_t n = 1 << 20, depth = 8;  // a few ms a run: calls overlap often
  TGraph g;
  g.name = "relu_chain";
  g.tensors.push_back({"x", DataType::kFloat32, {n}});
  for (int64_t i = 0; i < depth; ++i) {
    g.tensors.push_back({"y" + std::to_string(i), DataType::kFloat32, {n}});
    g.nodes.push_back({"relu", {int32_t(i)}, {int32_t(i + 1)}, "r" + std::to_string(i)});
  }
  g.inputs = {0};
  g.outputs = {uint32_t(depth)};
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "reluchain"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  const std::string out = "y" + std::to_string(depth - 1);

  std::atomic<int> busy{0}, wrong{0}, other{0}, done{0};
  auto worker = [&](float value) {
    std::vector<float> x(static_cast<size_t>(n), value), y(static_cast<size_t>(n));
    for (int it = 0; it < 200 && busy.load() < 20; ++it) {
      Status st = session->run({{"x", x.data(), x.size() * sizeof(float)}},
                               {{out, y.data(), y.size() * sizeof(float)}});
      if (st.code() == StatusCode::kBusy) {
        ++busy;
        EXPECT_NE(st.message().find("in use by another thread"), std::string::npos) << st.message();
      } else if (!st.isOk()) {
        ++other;
      } else {
        ++done;
        if (y[0] != value || y[size_t(n - 1)] != value) ++wrong;
      }
    }
  };
  std::thread a(worker, 1.5f), b(worker, 2.5f);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(done.load(), 0);
  EXPECT_GT(busy.load(), 0) << "two threads never overlapped in 400 runs";
  // Once the other thread has left, the session serves any thread again.
  std::vector<float> x(static_cast<size_t>(n), 3.f), y(static_cast<size_t>(n));
  std::thread c([&] {
    EXPECT_TRUE(session->run({{"x", x.data(), x.size() * sizeof(float)}},
                             {{out, y.data(), y.size() * sizeof(float)}}).isOk());
  });
  c.join();
  EXPECT_EQ(y[7], 3.f);
}

TEST(Executor, FirstRunOverlapsTheWarmUp) {
  if (!haveKernels({"matmul"})) GTEST_SKIP() << "CPU backend has no matmul kernel in this build";
  const std::vector<int64_t> widths = {48, 72, 40, 88, 56, 24, 64, 32, 80};  // fresh shapes: fresh JIT
  const int64_t rows = 5;
  TGraph g;
  g.name = "matmul_chain";
  g.tensors.push_back({"x", DataType::kFloat32, {rows, widths[0]}});
  std::vector<std::vector<float>> weights;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    std::vector<float> w(size_t(widths[l] * widths[l + 1]));
    for (size_t i = 0; i < w.size(); ++i) w[i] = float((i * 7 + l * 13) % 17) / 17.f - 0.5f;
    uint32_t wi = uint32_t(g.tensors.size());
    g.tensors.push_back({"w" + std::to_string(l), DataType::kFloat32, {widths[l], widths[l + 1]}});
    g.constants.push_back({wi, floatBytes(w), "w" + std::to_string(l)});
    weights.push_back(std::move(w));
    uint32_t yi = uint32_t(g.tensors.size());
    g.tensors.push_back({"y" + std::to_string(l), DataType::kFloat32, {rows, widths[l + 1]}});
    int32_t in = l == 0 ? 0 : int32_t(yi - 2);
    g.nodes.push_back({"matmul", {in, int32_t(wi)}, {int32_t(yi)}, "mm" + std::to_string(l)});
  }
  g.inputs = {0};
  g.outputs = {uint32_t(g.tensors.size() - 1)};
  const std::string path = writeArtifact(g, "matmulchain");

  std::vector<double> want(size_t(rows * widths[0]));
  std::vector<float> x(want.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] = float(int(i % 11) - 5) / 8.f;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    std::vector<double> next(size_t(rows * widths[l + 1]), 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < widths[l]; ++k)
        for (int64_t c = 0; c < widths[l + 1]; ++c)
          next[size_t(r * widths[l + 1] + c)] += want[size_t(r * widths[l] + k)] * weights[l][size_t(k * widths[l + 1] + c)];
    want = std::move(next);
  }
  for (int threads : {2, 1, 2}) {
    std::unique_ptr<Model> model;
    Status s = Model::load(path, {}, &model);
    ASSERT_TRUE(s.isOk()) << s.message();
    {
      std::unique_ptr<Session> unused;  // destroyed while its helper may still compile
      ASSERT_TRUE(Session::create(*model, {threads}, &unused).isOk());
    }
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::create(*model, {threads}, &session).isOk());
    std::vector<float> y(want.size());
    for (int run = 0; run < 2; ++run) {
      s = session->run({{"x", x.data(), x.size() * sizeof(float)}}, {{"y7", y.data(), y.size() * sizeof(float)}});
      ASSERT_TRUE(s.isOk()) << s.message();
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "threads " << threads << " run " << run << " i " << i;
    }
  }
}

TEST(Executor, HugeArenaIsOutOfMemoryNotACrash) {
  if (!haveKernels({"relu"})) GTEST_SKIP() << "CPU backend has no relu kernel in this build";
  TGraph g;
  g.tensors = {{"x", DataType::kFloat32, {int64_t(1) << 44}}, {"y", DataType::kFloat32, {int64_t(1) << 44}},
               {"z", DataType::kFloat32, {int64_t(1) << 44}}};
  g.nodes = {{"relu", {0}, {1}}, {"relu", {1}, {2}}};
  g.inputs = {0};
  g.outputs = {2};
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "huge"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> session;
  s = Session::create(*model, {1}, &session);
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.message();  // 2^44 elements, default limits
  // With the limits raised as far as they go, the allocation itself fails.
  SessionOptions o;
  o.limits.maxTensorElements = kMaxTensorElementsCap;
  o.limits.maxArenaBytes = UINT64_MAX;
  s = Session::create(*model, o, &session);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.message();
}

// A bound output is written straight into caller memory; binding is checked
// (alignment, capacity, produced by a node) and undone with null.
TEST(Executor, BoundOutputsAreWrittenInPlace) {
  if (!haveKernels({"add", "relu"})) GTEST_SKIP() << "no add/relu kernels in this build";
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::load(writeArtifact(addReluGraph(), "bound"), {}, &model).isOk());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  alignas(64) float out[16] = {};
  EXPECT_FALSE(session->bindOutput("y", out + 1, 24).isOk());  // not 64-byte aligned
  EXPECT_FALSE(session->bindOutput("y", out, 20).isOk());      // smaller than [2,3] floats
  EXPECT_FALSE(session->bindOutput("nope", out, 64).isOk());
  ASSERT_TRUE(session->bindOutput("y", out, sizeof out).isOk());
  ASSERT_TRUE(session->setInput("x", x, sizeof x).isOk());
  ASSERT_TRUE(session->run().isOk());
  EXPECT_EQ(std::memcmp(out, want, sizeof want), 0);
  EXPECT_EQ(session->outputData(0), static_cast<const void *>(out));
  ASSERT_TRUE(session->bindOutput("y", nullptr, 0).isOk());
  std::memset(out, 0, sizeof out);
  ASSERT_TRUE(session->run().isOk());
  EXPECT_NE(session->outputData(0), static_cast<const void *>(out));
  EXPECT_EQ(std::memcmp(session->outputData(0), want, sizeof want), 0);
  EXPECT_EQ(out[3], 0.0f);  // no longer written

  std::unique_ptr<Model> pass;
  ASSERT_TRUE(Model::load(writeArtifact(passthroughGraph(), "bound-pass"), {}, &pass).isOk());
  std::unique_ptr<Session> passSession;
  ASSERT_TRUE(Session::create(*pass, {1}, &passSession).isOk());
  Status s = passSession->bindOutput("x", out, sizeof out);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("not computed by a node"), std::string::npos) << s.message();
}

std::vector<float> pseudoRandom(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = float(seed >> 8) / float(1u << 24) * 2.f - 1.f;
  }
  return v;
}

// ONNX Runtime's shared past/present KV buffer: a session whose present
// outputs are computed in place over a fixed-capacity past equals one that
// copies the past into a separate present, step after step; the rows past
// the valid length (NaN here) are neither read nor written.
// float16 too: the adapter converts every input before writing an output,
// so it may share memory as its float32 kernel does.
TEST(Executor, PresentComputedInPlaceOverPast) {
  if (!haveKernels({"groupQueryAttention"})) GTEST_SKIP() << "no groupQueryAttention kernel in this build";
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
    SCOPED_TRACE(dataTypeName(dt));
    const bool half = dt == DataType::kFloat16;
    const size_t es = half ? 2 : 4;
    // Caller bytes of `v` in the graph's type, and back.
    auto bytes = [&](const std::vector<float> &v) {
      std::vector<uint8_t> b(v.size() * es);
      for (size_t i = 0; i < v.size(); ++i) {
        if (half) {
          uint16_t h = floatToHalf(v[i]);
          std::memcpy(b.data() + 2 * i, &h, 2);
        } else {
          std::memcpy(b.data() + 4 * i, &v[i], 4);
        }
      }
      return b;
    };
    auto at = [&](const void *p, int64_t i) {
      if (!half) return static_cast<const float *>(p)[i];
      return halfToFloat(static_cast<const uint16_t *>(p)[i]);
    };
    std::unique_ptr<Model> model;
    Status st = Model::load(writeArtifact(gqaCacheGraph(dt), half ? "gqa-inplace-f16" : "gqa-inplace"), {}, &model);
    ASSERT_TRUE(st.isOk()) << st.message();
    std::unique_ptr<Session> shared, plain;
    ASSERT_TRUE(Session::create(*model, {2}, &shared).isOk());
    ASSERT_TRUE(Session::create(*model, {2}, &plain).isOk());
    ASSERT_TRUE(shared->bindOutputInPlace("presentKey", "pastKey").isOk());
    ASSERT_TRUE(shared->bindOutputInPlace("presentValue", "pastValue").isOk());
    constexpr int64_t kCap = 12, D = 16;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> nans(size_t(kCap * D), nan);
    alignas(64) uint8_t kbuf[kCap * D * 4], vbuf[kCap * D * 4];
    std::vector<uint8_t> nb = bytes(nans);
    std::memcpy(kbuf, nb.data(), nb.size());
    std::memcpy(vbuf, nb.data(), nb.size());
    std::vector<uint8_t> plainK, plainV;  // the plain session's cache, compact
    int64_t past = 0;
    for (int64_t seq : {5, 1, 1}) {
      std::vector<uint8_t> q = bytes(pseudoRandom(size_t(seq * 32), uint32_t(7 + past)));
      std::vector<uint8_t> k = bytes(pseudoRandom(size_t(seq * 16), uint32_t(70 + past)));
      std::vector<uint8_t> v = bytes(pseudoRandom(size_t(seq * 16), uint32_t(700 + past)));
      const int32_t seqlens = int32_t(past + seq - 1);
      for (Session *s : {shared.get(), plain.get()}) {
        ASSERT_TRUE(s->copyInput("q", q.data(), q.size(), {1, seq, 32}).isOk());
        ASSERT_TRUE(s->copyInput("k", k.data(), k.size(), {1, seq, 16}).isOk());
        ASSERT_TRUE(s->copyInput("v", v.data(), v.size(), {1, seq, 16}).isOk());
        ASSERT_TRUE(s->copyInput("seqlensK", &seqlens, 4, {1}).isOk());
      }
      ASSERT_TRUE(shared->setInput("pastKey", kbuf, size_t(kCap * D) * es, {1, 1, kCap, D}).isOk());
      ASSERT_TRUE(shared->setInput("pastValue", vbuf, size_t(kCap * D) * es, {1, 1, kCap, D}).isOk());
      ASSERT_TRUE(plain->copyInput("pastKey", plainK.data(), plainK.size(), {1, 1, past, D}).isOk());
      ASSERT_TRUE(plain->copyInput("pastValue", plainV.data(), plainV.size(), {1, 1, past, D}).isOk());
      st = shared->run();
      ASSERT_TRUE(st.isOk()) << st.message();
      st = plain->run();
      ASSERT_TRUE(st.isOk()) << st.message();
      const int64_t total = past + seq;
      EXPECT_EQ(shared->outputShape(1), (Shape{1, 1, kCap, D}));
      EXPECT_EQ(plain->outputShape(1), (Shape{1, 1, total, D}));
      EXPECT_EQ(shared->outputData(1), static_cast<const void *>(kbuf));
      EXPECT_EQ(shared->outputData(2), static_cast<const void *>(vbuf));
      for (int64_t i = 0; i < seq * 32; ++i)
        ASSERT_NEAR(at(shared->outputData(0), i), at(plain->outputData(0), i), 1e-6) << "y[" << i << "] after " << past;
      for (int64_t i = 0; i < total * D; ++i) {
        ASSERT_EQ(at(kbuf, i), at(plain->outputData(1), i)) << "key element " << i << " after " << past;
        ASSERT_EQ(at(vbuf, i), at(plain->outputData(2), i)) << "value element " << i << " after " << past;
      }
      // float32 writes only the new rows; the float16 adapter writes back the
      // whole present (rows past the valid ones as zeros: still never read).
      for (int64_t i = total * D; i < kCap * D; ++i)
        ASSERT_TRUE(half ? at(kbuf, i) == 0.f && at(vbuf, i) == 0.f : std::isnan(at(kbuf, i)) && std::isnan(at(vbuf, i)))
            << i;
      const uint8_t *pk = static_cast<const uint8_t *>(plain->outputData(1));
      const uint8_t *pv = static_cast<const uint8_t *>(plain->outputData(2));
      plainK.assign(pk, pk + size_t(total * D) * es);
      plainV.assign(pv, pv + size_t(total * D) * es);
      past = total;
    }
  }
}

TEST(Executor, InPlaceBindingIsChecked) {
  if (!haveKernels({"groupQueryAttention", "add", "relu"})) GTEST_SKIP() << "kernels missing in this build";
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::load(writeArtifact(gqaCacheGraph(), "gqa-inplace-checks"), {}, &model).isOk());
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(*model, {1}, &s).isOk());
  Status st = s->bindOutputInPlace("presentKey", "seqlensK");
  EXPECT_NE(st.message().find("their types differ"), std::string::npos) << st.message();
  EXPECT_FALSE(s->bindOutputInPlace("nope", "pastKey").isOk());
  alignas(64) float q[32] = {}, k[16] = {}, kv[2][4 * 16] = {};
  const int32_t seqlens = 3;
  ASSERT_TRUE(s->setInput("q", q, sizeof q, {1, 1, 32}).isOk());
  ASSERT_TRUE(s->copyInput("k", k, sizeof k, {1, 1, 16}).isOk());
  ASSERT_TRUE(s->copyInput("v", k, sizeof k, {1, 1, 16}).isOk());
  ASSERT_TRUE(s->copyInput("seqlensK", &seqlens, 4, {1}).isOk());
  ASSERT_TRUE(s->setInput("pastKey", kv[0], sizeof kv[0], {1, 1, 4, 16}).isOk());
  ASSERT_TRUE(s->setInput("pastValue", kv[1], sizeof kv[1], {1, 1, 4, 16}).isOk());
  // Structurally possible, but the kernel cannot write y over q.
  ASSERT_TRUE(s->bindOutputInPlace("y", "q").isOk());
  st = s->run();
  EXPECT_NE(st.message().find("node 'gqa0' (groupQueryAttention) cannot compute it in place"), std::string::npos)
      << st.message();
  ASSERT_TRUE(s->bindOutput("y", nullptr, 0).isOk());  // ends it
  ASSERT_TRUE(s->bindOutputInPlace("presentKey", "pastKey").isOk());
  ASSERT_TRUE(s->bindOutputInPlace("presentValue", "pastValue").isOk());
  st = s->run();
  ASSERT_TRUE(st.isOk()) << st.message();
  // A copied input has no caller memory to share.
  ASSERT_TRUE(s->copyInput("pastKey", kv[0], sizeof kv[0], {1, 1, 4, 16}).isOk());
  st = s->run();
  EXPECT_NE(st.message().find("must be bound to 64-byte aligned caller memory, not copied"), std::string::npos)
      << st.message();

  // relu(add(x, c)): x is read by add, not by relu, which computes y.
  std::unique_ptr<Model> addRelu;
  ASSERT_TRUE(Model::load(writeArtifact(addReluGraph(), "inplace-addrelu"), {}, &addRelu).isOk());
  std::unique_ptr<Session> s2;
  ASSERT_TRUE(Session::create(*addRelu, {1}, &s2).isOk());
  st = s2->bindOutputInPlace("y", "x");
  EXPECT_NE(st.message().find("node 'add0' also reads the input"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace webnn::test

// A reshape planned over its dying input (ExecutionPlan.cpp) runs without a
// copy and gives the same values as one that copies (its input read later).
namespace webnn::test {
namespace {

TEST(Executor, ReshapeOverItsInputEndToEnd) {
  if (!haveKernels({"relu", "reshape", "neg"})) GTEST_SKIP() << "CPU backend lacks relu/reshape/neg";
  for (bool laterReader : {false, true}) {
    TGraph g = reshapeChainGraph(laterReader, "neg");
    for (int threads : {1, 2}) {
      std::unique_ptr<Model> model;
      Status s = Model::load(writeArtifact(g, laterReader ? "reshape_copy" : "reshape_inplace"), {}, &model);
      ASSERT_TRUE(s.isOk()) << s.message();
      std::unique_ptr<Session> session;
      s = Session::create(*model, {threads}, &session);
      ASSERT_TRUE(s.isOk()) << s.message();
      float x[12], z[12] = {}, w[12] = {};
      for (int i = 0; i < 12; ++i) x[i] = float(i - 5);
      std::vector<OutputBinding> outs = {{"z", z, sizeof z}};
      if (laterReader) outs.push_back({"w", w, sizeof w});
      s = session->run({{"x", x, sizeof x}}, outs);
      ASSERT_TRUE(s.isOk()) << s.message();
      for (int i = 0; i < 12; ++i) {
        EXPECT_EQ(z[i], -std::max(x[i], 0.f)) << i;
        if (laterReader) EXPECT_EQ(w[i], -std::max(x[i], 0.f)) << i;
      }
    }
  }
}

}  // namespace
}  // namespace webnn::test

// Concat elimination end to end on the CPU backend: the pool writes its
// slice of the concat's output itself; in the wider graph the conv, read by
// both concats, writes its slice through the dense-copy adapter,
// batchNormalization reads that strided slice beside them, and the first
// concat is a strided view of the second, so neither copies. Every
// output equals a plain loop's, at 1 and 2 threads; so do those of a graph
// whose concat keeps its copies (a 20-channel conv: slices off the 64-byte
// grid).
namespace webnn::test {
namespace {

float ramp(int64_t i, float base, float step) { return base + step * float((i * 7) % 11); }

// The graph's outputs by plain loops (ConcatSlice's values).
struct SliceReference {
  std::vector<float> a, p, q;
  int64_t ca;
  int64_t H, W;
  SliceReference(const std::vector<float> &x, int64_t aChannels, int64_t height = 6, int64_t width = 5)
      : ca(aChannels), H(height), W(width) {
    const int64_t C = 16;
    a.assign(size_t(H * W * ca), 0.f);
    p.assign(size_t(H * W * C), 0.f);
    for (int64_t i = 0; i < H * W; ++i)
      for (int64_t o = 0; o < ca; ++o) {
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += double(x[size_t(i * C + c)]) * ramp(o * C + c, -0.5f, 0.1f);
        a[size_t(i * ca + o)] = float(s);
      }
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w)
        for (int64_t c = 0; c < C; ++c) {
          float m = -INFINITY;
          for (int64_t dh = -1; dh <= 1; ++dh)
            for (int64_t dw = -1; dw <= 1; ++dw)
              if (h + dh >= 0 && h + dh < H && w + dw >= 0 && w + dw < W)
                m = std::max(m, x[size_t(((h + dh) * W + w + dw) * C + c)]);
          p[size_t((h * W + w) * C + c)] = m;
        }
    q = p;  // the wider graph's q pools x too
  }
  // batchNormalization over the concat of `parts` (a, p or q), ramps `mean`/`var`.
  std::vector<float> normalized(const std::vector<const std::vector<float> *> &parts, float m0, float ms, float v0,
                                float vs) const {
    std::vector<float> out;
    for (int64_t i = 0; i < H * W; ++i) {
      int64_t c = 0;
      for (const std::vector<float> *part : parts) {
        const int64_t n = int64_t(part->size()) / (H * W);
        for (int64_t k = 0; k < n; ++k, ++c)
          out.push_back(float(((*part)[size_t(i * n + k)] - ramp(c, m0, ms)) / std::sqrt(ramp(c, v0, vs) + 1e-5f)));
      }
    }
    return out;
  }
};

void expectNear(const std::vector<float> &got, const std::vector<float> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4f * std::max(1.f, std::fabs(want[i]))) << what << " at " << i;
}

TEST(Executor, ConcatInputsWrittenInTheirSlices) {
  if (!haveKernels({"conv2d", "maxPool2d", "concat", "batchNormalization"}))
    GTEST_SKIP() << "CPU backend lacks conv2d/maxPool2d/concat/batchNormalization";
  const std::vector<float> x = pseudoRandom(6 * 5 * 16, 7);
  for (bool wider : {false, true}) {
    ConcatSlice k;
    k.bnReadsA = true;
    k.widerConcat = wider;
    const std::string tag = wider ? "slices_wider" : "slices";
    std::unique_ptr<Model> model;
    Status s = Model::load(writeArtifact(concatSliceGraph(k), tag), {}, &model);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_NE(model->planText().find("concat views"), std::string::npos) << model->planText();
    const SliceReference ref(x, 16);
    for (int threads : {1, 2}) {
      std::unique_ptr<Session> session;
      s = Session::create(*model, {threads}, &session);
      ASSERT_TRUE(s.isOk()) << s.message();
      std::vector<float> z(30 * 32), b(30 * 16), z2(30 * 48);
      std::vector<OutputBinding> outs = {{"z", z.data(), z.size() * 4}, {"b", b.data(), b.size() * 4}};
      if (wider) outs.push_back({"z2", z2.data(), z2.size() * 4});
      s = session->run({{"x", x.data(), x.size() * 4}}, outs);
      ASSERT_TRUE(s.isOk()) << s.message();
      const std::string at = tag + " at " + std::to_string(threads) + " thread(s)";
      expectNear(z, ref.normalized({&ref.a, &ref.p}, 0.1f, -0.03f, 0.7f, 0.2f), "z " + at);
      expectNear(b, ref.normalized({&ref.a}, -0.2f, 0.05f, 0.5f, 0.1f), "b " + at);
      if (wider) expectNear(z2, ref.normalized({&ref.a, &ref.p, &ref.q}, 0.2f, -0.02f, 0.9f, 0.1f), "z2 " + at);
    }
  }
  // One row (a 1x1 image): the conv writes its dense block of y in place.
  {
    ConcatSlice pixel;
    pixel.height = pixel.width = 1;
    pixel.bnReadsA = true;
    const std::vector<float> x1(x.begin(), x.begin() + 16);
    std::unique_ptr<Model> model;
    ASSERT_TRUE(Model::load(writeArtifact(concatSliceGraph(pixel), "slices_one_row"), {}, &model).isOk());
    ASSERT_NE(model->planText().find("'a' [1,1,1,16] in 'y' at byte 0\n"), std::string::npos) << model->planText();
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::create(*model, {2}, &session).isOk());
    std::vector<float> z(32), b(16);
    Status s = session->run({{"x", x1.data(), x1.size() * 4}}, {{"z", z.data(), z.size() * 4}, {"b", b.data(), b.size() * 4}});
    ASSERT_TRUE(s.isOk()) << s.message();
    const SliceReference ref(x1, 16, 1, 1);
    expectNear(z, ref.normalized({&ref.a, &ref.p}, 0.1f, -0.03f, 0.7f, 0.2f), "z one row");
    expectNear(b, ref.normalized({&ref.a}, -0.2f, 0.05f, 0.5f, 0.1f), "b one row");
  }
  // No views where a slice is off the grid: the same loops, through copies.
  ConcatSlice odd;
  odd.aChannels = 20;
  odd.bnReadsA = true;
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::load(writeArtifact(concatSliceGraph(odd), "slices_copied"), {}, &model).isOk());
  EXPECT_EQ(model->planText().find("concat views"), std::string::npos);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {2}, &session).isOk());
  std::vector<float> z(30 * 36), b(30 * 20);
  Status s = session->run({{"x", x.data(), x.size() * 4}}, {{"z", z.data(), z.size() * 4}, {"b", b.data(), b.size() * 4}});
  ASSERT_TRUE(s.isOk()) << s.message();
  const SliceReference ref(x, 20);
  expectNear(z, ref.normalized({&ref.a, &ref.p}, 0.1f, -0.03f, 0.7f, 0.2f), "z copied");
  expectNear(b, ref.normalized({&ref.a}, -0.2f, 0.05f, 0.5f, 0.1f), "b copied");
}

}  // namespace
}  // namespace webnn::test
