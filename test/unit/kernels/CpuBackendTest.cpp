// The CPU backend under the runtime: its thread pool, its two-node kernel,
// and a run that cannot get memory. The backend's own tests (they may
// include its headers, test/check_backend_seam.py); the runtime's own tests
// in test/unit/runtime reach backends only through core/Backend.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "KernelChoices.h"
#include "TestArtifact.h"
#include "backends/cpu/Memory.h"
#include "backends/cpu/ThreadPool.h"
#include "backends/cpu/kernels/Common.h"
#include "backends/cpu/kernels/QuantizedMatMul.h"
#include "backends/cpu/kernels/Registry.h"
#include "core/Backend.h"
#include "webnn/runtime.h"

namespace webnn::test {
namespace {

std::string writeArtifact(const TGraph &g, const std::string &tag) {
  std::string path = tempDir(tag) + "/" + tag + ".wnn";
  writeFile(path, buildArtifact(g).artifact);
  return path;
}

bool haveKernels(std::initializer_list<const char *> ops) {
  for (const char *op : ops)
    if (!rt::findBackendForOp(op)) return false;
  return true;
}

TEST(CpuBackend, IsRegisteredFirst) {
  ASSERT_NE(rt::defaultBackend(), nullptr);
  EXPECT_EQ(rt::defaultBackend()->name(), "cpu");
  EXPECT_EQ(rt::findBackend("cpu"), rt::defaultBackend());
  EXPECT_TRUE(rt::defaultBackend()->hasOp("conv2d"));
  EXPECT_FALSE(rt::defaultBackend()->hasOp("noSuchOp"));
}

// x -> 1x1 conv2d -> t -> depthwise fusedConv2d -> y, where the CPU backend
// runs the two nodes as one kernel (Backend::makeKernelPair) unless t is
// also a graph output or another node reads it. Outputs must not depend on
// the pairing.
TGraph pointwiseDepthwiseGraph(bool tIsOutput, bool tReadTwice) {
  const int64_t H = 56, W = 56, K = 8, C = 96;  // t is 1.2 MB: a size the pair kernel takes
  TGraph g;
  g.name = "pointwise_depthwise";
  g.tensors = {{"x", DataType::kFloat32, {1, H, W, K}},  {"pw", DataType::kFloat32, {C, 1, 1, K}},
               {"t", DataType::kFloat32, {1, H, W, C}},  {"dw", DataType::kFloat32, {C, 3, 3, 1}},
               {"db", DataType::kFloat32, {C}},         {"y", DataType::kFloat32, {1, H, W, C}}};
  std::vector<float> pw(size_t(C * K)), dw(size_t(9 * C)), db(static_cast<size_t>(C));
  for (size_t i = 0; i < pw.size(); ++i) pw[i] = float(int(i * 7 % 13) - 6) / 8.f;
  for (size_t i = 0; i < dw.size(); ++i) dw[i] = float(int(i * 5 % 11) - 5) / 6.f;
  for (size_t i = 0; i < db.size(); ++i) db[i] = float(int(i % 7) - 3) / 4.f;
  g.constants = {{1, floatBytes(pw), "pw"}, {3, floatBytes(dw), "dw"}, {4, floatBytes(db), "db"}};
  const int kInt = 0, kFloat = 1, kString = 3, kInts = 4;
  TNode pointwise{"conv2d", {0, 1}, {2}, "expand"};
  pointwise.attributes = {{"filterLayout", kString, 0, 0, "ohwi"}, {"inputLayout", kString, 0, 0, "nhwc"}};
  TNode depthwise{"fusedConv2d", {2, 3, 4}, {5}, "depthwise"};
  depthwise.attributes = {{"activation", kString, 0, 0, "clamp"},       {"activationMaxValue", kFloat, 0, 2.0},
                          {"activationMinValue", kFloat, 0, -1.0},      {"filterLayout", kString, 0, 0, "ohwi"},
                          {"groups", kInt, C},                          {"inputLayout", kString, 0, 0, "nhwc"},
                          {"padding", kInts, 0, 0, "", {1, 1, 1, 1}}};
  g.nodes = {pointwise, depthwise};
  g.inputs = {0};
  g.outputs = {5};
  if (tIsOutput) g.outputs.push_back(2);
  if (tReadTwice) {
    g.tensors.push_back({"z", DataType::kFloat32, {1, H, W, C}});
    g.nodes.push_back({"relu", {2}, {6}, "second reader"});
    g.outputs.push_back(6);
  }
  return g;
}

TEST(CpuBackend, PairedNodesRunAsOneKernel) {
  if (!haveKernels({"conv2d", "fusedConv2d", "relu"})) GTEST_SKIP() << "CPU backend lacks conv2d in this build";
  std::vector<float> x(56 * 56 * 8), y(56 * 56 * 96), t(y.size()), z(y.size()), want(y.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 3 % 17) - 8) / 9.f;
  bool lastPaired = false;  // whether the last run's profile showed node 1 run by node 0
  auto run = [&](const TGraph &g, const std::string &tag, int threads, std::vector<float> *out) {
    std::unique_ptr<Model> model;
    Status s = Model::load(writeArtifact(g, tag), {}, &model);
    ASSERT_TRUE(s.isOk()) << s.message();
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::create(*model, {threads}, &session).isOk());
    std::vector<OutputBinding> outputs = {{"y", out->data(), out->size() * sizeof(float)}};
    for (uint32_t o : g.outputs) {
      if (g.tensors[o].name == "t") outputs.push_back({"t", t.data(), t.size() * sizeof(float)});
      if (g.tensors[o].name == "z") outputs.push_back({"z", z.data(), z.size() * sizeof(float)});
    }
    session->enableProfiling(true);
    s = session->run({{"x", x.data(), x.size() * sizeof(float)}}, outputs);
    ASSERT_TRUE(s.isOk()) << s.message();
    // The profile says which node ran the other: the second of a pair has no time of its own.
    uint64_t runs = 0;
    std::vector<Session::NodeProfile> profile = session->profile(&runs);
    ASSERT_EQ(runs, 1u);
    ASSERT_GE(profile.size(), 2u);
    EXPECT_EQ(profile[0].runBy, -1);
    const bool paired = profile[1].runBy == 0;
    EXPECT_TRUE(paired || profile[1].runBy == -1) << tag;
    if (paired) EXPECT_EQ(profile[1].totalMs, 0.0) << tag;
    lastPaired = paired;
  };
  cpu::kernels::setPointwiseDepthwiseEnabled(false);
  run(pointwiseDepthwiseGraph(false, false), "pair_off", 1, &want);
  cpu::kernels::setPointwiseDepthwiseEnabled(true);
  const bool canPair = cpu::kernels::avx512Available();
  for (int threads : {1, 2}) {
    struct Variant {
      bool tIsOutput, tReadTwice;
      const char *tag;
    };
    for (const Variant &v : {Variant{false, false, "pair"}, Variant{true, false, "pair_t_out"},
                             Variant{false, true, "pair_t_read"}}) {
      std::fill(y.begin(), y.end(), 0.f);
      cpu::test::ScopedKernelChoices choices;
      run(pointwiseDepthwiseGraph(v.tIsOutput, v.tReadTwice), v.tag, threads, &y);
      const bool paired = lastPaired;
      EXPECT_EQ(paired, canPair && !v.tIsOutput && !v.tReadTwice) << v.tag << " threads " << threads;
      // The backend's report of the pair agrees with what ran (the executor
      // offers a pair only where the intermediate tensor allows it).
      const cpu::kernels::KernelChoice pair = choices.last("conv2d + fusedConv2d");
      if (paired) EXPECT_EQ(pair.chosen, "pointwise-depthwise pair") << v.tag << ": " << pair.describe();
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << v.tag << " threads " << threads << " i " << i;
    }
  }
}

// RegNetY-400MF's block end: r = relu(x); z = relu(fusedConv2d(r * s, w, b,
// residual r)). r dies at the 1x1, so the plan writes its output over r
// (ExecutionPlan's accumulatesInto), and the CPU backend runs the mul and
// the 1x1 as the scaled-pointwise pair: the executor asks the pair kernel
// whether it allows that (the consumer's input 3 is the pair's input 5)
// instead of refusing any in-place pair. Outputs as computed here.
TEST(CpuBackend, PairWritesOverTheConsumersDyingResidual) {
  if (!haveKernels({"mul", "fusedConv2d", "relu"})) GTEST_SKIP() << "CPU backend lacks fusedConv2d in this build";
  const int64_t H = 28, W = 28, C = 104;
  TGraph g;
  g.name = "se_block_end";
  g.tensors = {{"x", DataType::kFloat32, {1, H, W, C}}, {"s", DataType::kFloat32, {1, 1, 1, C}},
               {"r", DataType::kFloat32, {1, H, W, C}}, {"m", DataType::kFloat32, {1, H, W, C}},
               {"w", DataType::kFloat32, {C, 1, 1, C}}, {"b", DataType::kFloat32, {C}},
               {"y", DataType::kFloat32, {1, H, W, C}}, {"z", DataType::kFloat32, {1, H, W, C}}};
  std::vector<float> x(size_t(H * W * C)), s(static_cast<size_t>(C)), w(size_t(C * C)), b(static_cast<size_t>(C));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 3 % 17) - 8) / 9.f;
  for (size_t i = 0; i < s.size(); ++i) s[i] = float(int(i % 5) + 1) / 4.f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 7 % 13) - 6) / 32.f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i % 7) - 3) / 4.f;
  g.constants = {{4, floatBytes(w), "w"}, {5, floatBytes(b), "b"}};
  const int kString = 3;
  TNode conv{"fusedConv2d", {3, 4, 5, 2}, {6}, "join"};
  conv.attributes = {{"activation", kString, 0, 0, "none"},
                     {"filterLayout", kString, 0, 0, "ohwi"},
                     {"inputLayout", kString, 0, 0, "nhwc"}};
  g.nodes = {{"relu", {0}, {2}, "r"}, {"mul", {2, 1}, {3}, "se"}, conv, {"relu", {6}, {7}, "out"}};
  g.inputs = {0, 1};
  g.outputs = {7};
  std::vector<float> want(x.size());
  for (int64_t p = 0; p < H * W; ++p)
    for (int64_t o = 0; o < C; ++o) {
      double acc = b[size_t(o)] + std::max(0.f, x[size_t(p * C + o)]);
      for (int64_t c = 0; c < C; ++c)
        acc += double(std::max(0.f, x[size_t(p * C + c)]) * s[size_t(c)]) * w[size_t(o * C + c)];
      want[size_t(p * C + o)] = float(std::max(0.0, acc));
    }
  const std::string path = writeArtifact(g, "se_block_end");
  for (int threads : {1, 2}) {
    std::unique_ptr<Model> model;
    Status st = Model::load(path, {}, &model);
    ASSERT_TRUE(st.isOk()) << st.message();
    std::unique_ptr<Session> session;
    st = Session::create(*model, {threads}, &session);
    ASSERT_TRUE(st.isOk()) << st.message();
    std::vector<float> z(want.size(), -1.f);
    session->enableProfiling(true);
    st = session->run({{"x", x.data(), x.size() * sizeof(float)}, {"s", s.data(), s.size() * sizeof(float)}},
                      {{"z", z.data(), z.size() * sizeof(float)}});
    ASSERT_TRUE(st.isOk()) << st.message();
    uint64_t runs = 0;
    std::vector<Session::NodeProfile> profile = session->profile(&runs);
    ASSERT_EQ(profile.size(), 4u);
    EXPECT_EQ(profile[2].runBy == 1, cpu::kernels::avx512Available()) << "threads " << threads;
    for (size_t i = 0; i < z.size(); ++i)
      ASSERT_NEAR(z[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "threads " << threads << " i " << i;
  }
}

// The same pair in a graph whose rows are dynamic (h <= 56): the executor
// offers the pair for each shape signature as it meets it (one path for
// static and dynamic graphs), so a session alternating sizes pairs, or not,
// per size, and its outputs match the unpaired kernels' at every size.
TEST(CpuBackend, PairsAreOfferedPerShapeSignature) {
  if (!haveKernels({"conv2d", "fusedConv2d"})) GTEST_SKIP() << "CPU backend lacks conv2d in this build";
  TGraph g = pointwiseDepthwiseGraph(false, false);
  g.name = "pointwise_depthwise_dynamic";
  g.dynamicDims = {{"h", 56}};
  for (uint32_t t : {0u, 2u, 5u}) g.tensors[t].dynamic = {-1, 0, -1, -1};
  const int64_t W = 56, K = 8, C = 96;
  auto runAt = [&](Session &session, int64_t h, bool *paired) {
    std::vector<float> x(size_t(h * W * K));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 3 % 17) - 8) / 9.f;
    Status s = session.setInput("x", x.data(), x.size() * sizeof(float), Shape{1, h, W, K});
    EXPECT_TRUE(s.isOk()) << s.message();
    s = session.run();
    EXPECT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(session.outputShape(0), (Shape{1, h, W, C}));
    uint64_t runs = 0;
    std::vector<Session::NodeProfile> profile = session.profile(&runs);
    *paired = profile.size() == 2 && profile[1].runBy == 0;
    const float *y = static_cast<const float *>(session.outputData(0));
    return std::vector<float>(y, y + size_t(h * W * C));
  };
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(g, "pair_dynamic"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> off, on;
  bool paired = false;
  cpu::kernels::setPointwiseDepthwiseEnabled(false);
  ASSERT_TRUE(Session::create(*model, {1}, &off).isOk());
  off->enableProfiling(true);
  std::vector<float> want56 = runAt(*off, 56, &paired), want7 = runAt(*off, 7, &paired);
  EXPECT_FALSE(paired);
  cpu::kernels::setPointwiseDepthwiseEnabled(true);
  ASSERT_TRUE(Session::create(*model, {2}, &on).isOk());
  on->enableProfiling(true);
  const bool canPair = cpu::kernels::avx512Available();
  for (int64_t h : {56, 7, 56, 7}) {
    std::vector<float> y = runAt(*on, h, &paired);
    const std::vector<float> &want = h == 56 ? want56 : want7;
    if (h == 56) EXPECT_EQ(paired, canPair) << "h " << h;
    ASSERT_EQ(y.size(), want.size());
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "h " << h << " i " << i;
  }
}

// The C++ API's promise on the run path: memory refused while a kernel
// packs on its first run is that run's kOutOfMemory Status naming the node,
// not an exception or an abort, and the next run packs and answers right.
TEST(CpuBackend, AllocationFailureDuringRunIsAStatus) {
  if (!haveKernels({"conv2d", "fusedConv2d"})) GTEST_SKIP() << "CPU backend lacks conv2d in this build";
  if (!cpu::kernels::avx512Available())
    GTEST_SKIP() << "the pair kernel, which packs its filters into AlignedFloats on its first run, needs AVX-512";
  std::vector<float> x(56 * 56 * 8), y(56 * 56 * 96), want(y.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 5 % 19) - 9) / 7.f;
  std::unique_ptr<Model> model;
  Status s = Model::load(writeArtifact(pointwiseDepthwiseGraph(false, false), "oom_run"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  cpu::kernels::setPointwiseDepthwiseEnabled(false);
  {
    std::unique_ptr<Session> plain;
    ASSERT_TRUE(Session::create(*model, {1}, &plain).isOk());
    s = plain->run({{"x", x.data(), x.size() * sizeof(float)}}, {{"y", want.data(), want.size() * sizeof(float)}});
    ASSERT_TRUE(s.isOk()) << s.message();
  }
  cpu::kernels::setPointwiseDepthwiseEnabled(true);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  cpu::failAlignedAllocationForTesting(1);
  s = session->run({{"x", x.data(), x.size() * sizeof(float)}}, {{"y", y.data(), y.size() * sizeof(float)}});
  cpu::failAlignedAllocationForTesting(0);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.message();
  EXPECT_NE(s.message().find("node 0 'expand' (conv2d)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cannot allocate the packed filters"), std::string::npos) << s.message();
  s = session->run({{"x", x.data(), x.size() * sizeof(float)}}, {{"y", y.data(), y.size() * sizeof(float)}});
  ASSERT_TRUE(s.isOk()) << s.message();
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "i " << i;
}

// Strided operands (OperandDesc::rowPitch, the concat-view plan) through
// the backend's makeKernel: the ops that take the pitch themselves, and any
// other kernel on the backend's dense copies. Each strided tensor lives in
// rows of `pitch` floats whose other columns hold a sentinel no kernel may
// overwrite.
struct Strided {
  rt::OperandDesc desc;
  std::vector<float> bytes;  // rows * pitch floats, or the dense tensor
  rt::TensorBuffer buffer;
  Strided(Shape shape, int64_t pitch, float sentinel) {
    desc.shape = std::move(shape);
    desc.rowPitch = pitch;
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < desc.shape.size(); ++d) rows *= desc.shape[d];
    const int64_t last = desc.shape.back();
    bytes.assign(size_t(rows * (pitch ? pitch : last)), sentinel);
    buffer = {DataType::kFloat32, &desc.shape, bytes.data()};
  }
  float &at(int64_t row, int64_t col) { return bytes[size_t(row * (desc.rowPitch ? desc.rowPitch : desc.shape.back()) + col)]; }
};

Status runOnCpu(rt::NodeDesc node, std::vector<Strided *> ins, Strided *out, int threads) {
  for (Strided *in : ins) node.inputs.push_back(&in->desc);
  node.outputs = {&out->desc};
  std::unique_ptr<rt::Kernel> kernel;
  WEBNN_RETURN_IF_ERROR(rt::defaultBackend()->makeKernel(node, &kernel));
  if (!kernel->honoursRowPitch()) return Status(StatusCode::kInternal, "a kernel that ignores the pitch");
  std::unique_ptr<rt::BackendSession> session;
  WEBNN_RETURN_IF_ERROR(rt::defaultBackend()->createSession(threads, &session));
  std::vector<const rt::TensorBuffer *> inBuffers;
  for (Strided *in : ins) inBuffers.push_back(&in->buffer);
  rt::TensorBuffer *outBuffer = &out->buffer;
  rt::KernelContext ctx{inBuffers.data(), inBuffers.size(), &outBuffer, 1, session->kernelState()};
  return kernel->run(ctx);
}

rt::NodeDesc opNode(const char *op, std::vector<std::pair<std::string, rt::AttributeValue>> attrs = {}) {
  rt::NodeDesc n;
  n.op = op;
  n.name = op;
  for (auto &a : attrs) n.attributes.set(a.first, a.second);
  return n;
}

rt::AttributeValue intAttr(int64_t v) { return {rt::AttributeValue::Kind::kInt, v}; }

TEST(CpuBackend, StridedOperandsKeepTheirNeighbours) {
  if (!haveKernels({"concat", "relu", "maxPool2d"})) GTEST_SKIP() << "CPU backend lacks concat/relu/maxPool2d";
  const float kSentinel = -777.f;
  for (int threads : {1, 2}) {
    // relu, strided in and out (the dense-copy adapter): 12 rows of 5 in rows of 8.
    Strided x({3, 4, 5}, 8, kSentinel), y({3, 4, 5}, 16, kSentinel);
    for (int64_t r = 0; r < 12; ++r)
      for (int64_t c = 0; c < 5; ++c) x.at(r, c) = float((r * 5 + c) % 7) - 3.f;
    Status s = runOnCpu(opNode("relu"), {&x}, &y, threads);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int64_t r = 0; r < 12; ++r)
      for (int64_t c = 0; c < 16; ++c)
        ASSERT_EQ(y.at(r, c), c < 5 ? std::max(x.at(r, c), 0.f) : kSentinel) << r << "," << c;

    // maxPool2d nhwc writing a slice of rows 24 apart (its own pitch).
    Strided px({1, 3, 3, 4}, 0, 0.f), py({1, 3, 3, 4}, 24, kSentinel);
    for (size_t i = 0; i < px.bytes.size(); ++i) px.bytes[i] = float(int(i * 5 % 11));
    rt::AttributeValue window{rt::AttributeValue::Kind::kInts, 0, 0, "", {3, 3}};
    rt::AttributeValue pad{rt::AttributeValue::Kind::kInts, 0, 0, "", {1, 1, 1, 1}};
    rt::AttributeValue nhwc{rt::AttributeValue::Kind::kString, 0, 0, "nhwc", {}};
    s = runOnCpu(opNode("maxPool2d", {{"windowDimensions", window}, {"padding", pad}, {"layout", nhwc}}), {&px}, &py,
                 threads);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t w = 0; w < 3; ++w)
        for (int64_t c = 0; c < 24; ++c) {
          float want = kSentinel;
          if (c < 4) {
            want = -INFINITY;
            for (int64_t i = std::max<int64_t>(0, h - 1); i <= std::min<int64_t>(2, h + 1); ++i)
              for (int64_t j = std::max<int64_t>(0, w - 1); j <= std::min<int64_t>(2, w + 1); ++j)
                want = std::max(want, px.bytes[size_t((i * 3 + j) * 4 + c)]);
          }
          ASSERT_EQ(py.at(h * 3 + w, c), want) << h << "," << w << "," << c;
        }

    // concat on the last axis: `a` already in its slice of y (skipped),
    // `b` strided elsewhere (copied), y's rows 12 apart of which 9 are its.
    Strided cy({2, 3, 9}, 12, kSentinel);
    Strided ca({2, 3, 4}, 12, 0.f), cb({2, 3, 5}, 7, kSentinel);
    ca.buffer.data = cy.bytes.data();  // a is y's first 4 columns
    for (int64_t r = 0; r < 6; ++r) {
      for (int64_t c = 0; c < 4; ++c) cy.at(r, c) = float(r * 10 + c);
      for (int64_t c = 0; c < 5; ++c) cb.at(r, c) = float(100 + r * 10 + c);
    }
    s = runOnCpu(opNode("concat", {{"axis", intAttr(2)}}), {&ca, &cb}, &cy, threads);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t c = 0; c < 12; ++c)
        ASSERT_EQ(cy.at(r, c), c < 4 ? float(r * 10 + c) : c < 9 ? float(100 + r * 10 + c - 4) : kSentinel)
            << r << "," << c;

    // concat on another axis with a strided input: the dense copies.
    Strided hy({2, 5, 3}, 0, kSentinel), ha({2, 2, 3}, 8, kSentinel), hb({2, 3, 3}, 0, 0.f);
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 3; ++c) ha.at(r, c) = float(r * 3 + c);
    for (size_t i = 0; i < hb.bytes.size(); ++i) hb.bytes[i] = float(50 + i);
    s = runOnCpu(opNode("concat", {{"axis", intAttr(1)}}), {&ha, &hb}, &hy, threads);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t h = 0; h < 5; ++h)
        for (int64_t c = 0; c < 3; ++c)
          ASSERT_EQ(hy.at(n * 5 + h, c), h < 2 ? ha.at(n * 2 + h, c) : hb.bytes[size_t((n * 3 + h - 2) * 3 + c)])
              << n << "," << h << "," << c;
  }
}

// Packed constants are streamed on every run: from 2 MiB up they start on a
// 2 MiB boundary, which is what lets the kernel back them with huge pages
// (the advice itself is the system's to take); below, 64-byte lines.
TEST(CpuMemory, PackedConstantsStartOnHugePageBoundariesFromTwoMiB) {
  using webnn::cpu::allocatePacked;
  using webnn::cpu::kHugePageBytes;
  for (size_t bytes : {size_t(0), size_t(1), size_t(100), kHugePageBytes - 64, kHugePageBytes,
                       2 * kHugePageBytes + 100, 5 * kHugePageBytes + 4096}) {
    void *p = allocatePacked(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    EXPECT_EQ(a % 64, 0u) << bytes;
    if (bytes >= kHugePageBytes) EXPECT_EQ(a % kHugePageBytes, 0u) << bytes;
    std::memset(p, 0x5a, bytes);  // every byte it promised is writable (ASan checks the bound)
    std::free(p);
  }
  EXPECT_EQ(allocatePacked(SIZE_MAX - 8), nullptr);  // rounding would overflow
}

// Convolutions whose output is a concat's slice (the concat-view plan
// places them): written at the slice's pitch by the kernel itself (oneDNN
// through its destination reorder, Winograd's or after an nhwc primitive;
// the narrow 1x1 kernel at the pitch) or through the backend's dense copy
// (a residual), the same numbers as a dense output, the slice's other
// columns untouched; at 1 and 2 threads (oneDNN's pieces at the pitch).
TEST(CpuBackend, ConvolutionsWriteAConcatSlice) {
  if (!haveKernels({"conv2d", "fusedConv2d"})) GTEST_SKIP() << "CPU backend lacks conv2d in this build";
  const float kSentinel = -777.f;
  struct Case { const char *op; int64_t C, H, O, K, pitch; bool residual; const char *kernel; };
  const bool avx512 = cpu::kernels::avx512Available();
  const Case cases[] = {
      {"conv2d", 32, 14, 32, 3, 80, false, "onednn"},            // Winograd
      {"fusedConv2d", 24, 13, 48, 3, 64, false, "onednn"},       // direct nhwc, relu
      {"conv2d", 96, 12, 64, 1, 96, false, "onednn"},            // brgconv_1x1
      {"fusedConv2d", 16, 11, 64, 1, 128, false, avx512 ? "pointwise-narrow" : "onednn"},
      {"fusedConv2d", 32, 10, 32, 3, 48, true, "onednn"},        // residual: the dense copy
  };
  for (const Case &k : cases)
    for (int threads : {1, 2}) {
      const std::string label = std::string(k.op) + " " + std::to_string(k.K) + "x" + std::to_string(k.K) + " " +
                                std::to_string(k.C) + "->" + std::to_string(k.O) + " pitch " + std::to_string(k.pitch) +
                                ", " + std::to_string(threads) + " threads";
      const int64_t pixels = k.H * k.H;
      std::vector<float> filter(size_t(k.O * k.K * k.K * k.C)), bias(size_t(k.O));
      for (size_t i = 0; i < filter.size(); ++i) filter[i] = float(int(i * 7 % 23) - 11) / 64.f;
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(int(i % 5) - 2) / 8.f;
      rt::OperandDesc fd, bd;
      fd.shape = {k.O, k.K, k.K, k.C};
      fd.constantData = filter.data();
      bd.shape = {k.O};
      bd.constantData = bias.data();
      rt::TensorBuffer fb{DataType::kFloat32, &fd.shape, filter.data()}, bb{DataType::kFloat32, &bd.shape, bias.data()};
      rt::AttributeValue pad{rt::AttributeValue::Kind::kInts, 0, 0, "", {k.K / 2, k.K / 2, k.K / 2, k.K / 2}};
      rt::NodeDesc node = opNode(k.op, {{"padding", pad},
                                        {"inputLayout", {rt::AttributeValue::Kind::kString, 0, 0, "nhwc", {}}},
                                        {"filterLayout", {rt::AttributeValue::Kind::kString, 0, 0, "ohwi", {}}}});
      if (std::string(k.op) == "fusedConv2d")
        node.attributes.set("activation", {rt::AttributeValue::Kind::kString, 0, 0, "relu", {}});
      Strided x({1, k.H, k.H, k.C}, 0, 0.f), r({1, k.H, k.H, k.O}, 0, 0.f);
      for (size_t i = 0; i < x.bytes.size(); ++i) x.bytes[i] = float(int(i * 5 % 17) - 8) / 8.f;
      for (size_t i = 0; i < r.bytes.size(); ++i) r.bytes[i] = float(int(i * 3 % 13) - 6) / 8.f;
      auto run = [&](Strided *y, std::string *chosen) {
        rt::NodeDesc n = node;
        n.inputs = {&x.desc, &fd, &bd};
        if (k.residual) n.inputs.push_back(&r.desc);
        n.outputs = {&y->desc};
        std::unique_ptr<rt::Kernel> kernel;
        cpu::test::ScopedKernelChoices choices;
        Status s = rt::defaultBackend()->makeKernel(n, &kernel);
        if (!s.isOk()) return s;
        *chosen = choices.last(k.op).chosen;
        if (y->desc.rowPitch && !kernel->honoursRowPitch())
          return Status(StatusCode::kInternal, "a kernel that ignores the pitch");
        std::unique_ptr<rt::BackendSession> session;
        WEBNN_RETURN_IF_ERROR(rt::defaultBackend()->createSession(threads, &session));
        std::vector<const rt::TensorBuffer *> ins{&x.buffer, &fb, &bb};
        if (k.residual) ins.push_back(&r.buffer);
        rt::TensorBuffer *out = &y->buffer;
        rt::KernelContext ctx{ins.data(), ins.size(), &out, 1, session->kernelState()};
        return kernel->run(ctx);
      };
      Strided dense({1, k.H, k.H, k.O}, 0, 0.f), slice({1, k.H, k.H, k.O}, k.pitch, kSentinel);
      std::string denseKernel, sliceKernel;
      Status s = run(&dense, &denseKernel);
      ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
      s = run(&slice, &sliceKernel);
      ASSERT_TRUE(s.isOk()) << label << ": " << s.message();
      EXPECT_EQ(sliceKernel, k.kernel) << label;
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t c = 0; c < k.pitch; ++c) {
          if (c >= k.O) {
            ASSERT_EQ(slice.at(p, c), kSentinel) << label << " " << p << "," << c;
            continue;
          }
          const float want = dense.at(p, c);
          ASSERT_NEAR(slice.at(p, c), want, 1e-4f * (1 + std::fabs(want))) << label << " " << p << "," << c;
        }
    }
}

// Every test runs at each thread count under each wait policy.
class ThreadPoolTest : public ::testing::TestWithParam<std::tuple<int, cpu::WaitPolicy>> {
 protected:
  int threads() const { return std::get<0>(GetParam()); }
  cpu::WaitPolicy policy() const { return std::get<1>(GetParam()); }
};

TEST_P(ThreadPoolTest, CoversRangeExactlyOnce) {
  cpu::ThreadPool pool(threads(), policy());
  EXPECT_EQ(pool.numThreads(), std::max(1, threads()));
  EXPECT_EQ(pool.waitPolicy(), policy());
  for (int64_t n : {0, 1, 7, 64, 1000, 100003}) {
    for (int64_t grain : {1, 16, 1000, 1 << 20}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      for (auto &h : hits) h = 0;
      pool.parallelFor(n, grain, [&](int64_t b, int64_t e) {
        ASSERT_LE(0, b);
        ASSERT_LE(b, e);
        ASSERT_LE(e, n);
        if (e < n) ASSERT_GE(e - b, grain) << "only the last chunk may be shorter than the grain";
        for (int64_t i = b; i < e; ++i) hits[i]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << "n=" << n << " grain=" << grain << " i=" << i;
    }
  }
}

TEST_P(ThreadPoolTest, SmallRangesRunInline) {
  cpu::ThreadPool pool(threads(), policy());
  std::thread::id caller = std::this_thread::get_id(), ran;
  pool.parallelFor(10, 100, [&](int64_t, int64_t) { ran = std::this_thread::get_id(); });
  EXPECT_EQ(ran, caller);
}

TEST_P(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  cpu::ThreadPool pool(threads(), policy());
  std::atomic<int64_t> total{0};
  pool.parallelFor(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      pool.parallelFor(100, 1, [&](int64_t ib, int64_t ie) { total += ie - ib; });
  });
  EXPECT_EQ(total, 6400);
}

TEST_P(ThreadPoolTest, ManySmallJobs) {
  cpu::ThreadPool pool(threads(), policy());
  int64_t sum = 0;
  std::atomic<int64_t> acc{0};
  for (int j = 0; j < 2000; ++j) {
    pool.parallelFor(256, 8, [&](int64_t b, int64_t e) { acc += e - b; });
    sum += 256;
  }
  EXPECT_EQ(acc, sum);
}

// Each chunk waits for the other to have started, so both threads must run
// one: workers asleep (kBlock, or kDefault after its spin) are woken.
TEST_P(ThreadPoolTest, SleepingWorkersWake) {
  if (threads() < 2) GTEST_SKIP() << "no workers";
  cpu::ThreadPool pool(threads(), policy());
  for (int round = 0; round < 20; ++round) {
    if (round % 5 == 4) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the spin
    std::atomic<int> started{0};
    std::atomic<bool> timedOut{false};
    std::vector<std::thread::id> ran(2);
    pool.parallelFor(2, 1, [&](int64_t b, int64_t) {
      ran[size_t(b)] = std::this_thread::get_id();
      started++;
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() < 2)
        if (std::chrono::steady_clock::now() > deadline) {
          timedOut = true;
          return;
        }
    });
    ASSERT_FALSE(timedOut) << "round " << round << ": no second thread took a chunk";
    EXPECT_NE(ran[0], ran[1]);
  }
}

// A chunk that outlasts the caller's spin: the caller blocks and is woken by
// the worker that finishes last, and sees its writes.
TEST_P(ThreadPoolTest, CallerWaitsForSlowChunks) {
  cpu::ThreadPool pool(threads(), policy());
  for (int round = 0; round < 5; ++round) {
    std::vector<int64_t> out(64, -1);
    pool.parallelFor(64, 1, [&](int64_t b, int64_t e) {
      if (b != 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      for (int64_t i = b; i < e; ++i) out[size_t(i)] = i * round;
    });
    for (int64_t i = 0; i < 64; ++i) ASSERT_EQ(out[size_t(i)], i * round) << "round " << round;
  }
}

// Random sizes and grains back to back, the policy switched now and then:
// late workers must never run a chunk of a job that is over.
TEST_P(ThreadPoolTest, RandomJobsWithPolicyChanges) {
  cpu::ThreadPool pool(threads(), policy());
  const cpu::WaitPolicy policies[] = {cpu::WaitPolicy::kDefault, cpu::WaitPolicy::kSpin, cpu::WaitPolicy::kBlock};
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int j = 0; j < 3000; ++j) {
    if (j % 500 == 499) pool.setWaitPolicy(policies[next() % 3]);
    const int64_t n = next() % 300, grain = 1 + next() % 40;
    std::vector<int> hits(size_t(n), 0);  // plain ints: each index has one writer
    pool.parallelFor(n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
    });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)], 1) << "job " << j << " n=" << n << " i=" << i;
  }
}

TEST_P(ThreadPoolTest, UnitsCoverRangeExactlyOnce) {
  cpu::ThreadPool pool(threads(), policy());
  for (int64_t n : {0, 1, 7, 64, 1000, 100003, 200000}) {
    for (int64_t unit : {0, 1, 3, 16, 1000, 1 << 20}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      for (auto &h : hits) h = 0;
      const int64_t u = std::max<int64_t>(1, unit);
      pool.parallelForUnits(n, unit, [&](int64_t b, int64_t e) {
        ASSERT_LE(0, b);
        ASSERT_LT(b, e);
        ASSERT_LE(e, n);
        if (b != 0 || e != n) {  // not the whole range inline: whole units (more than 0xffff: larger ones)
          const int64_t size = n / u > 0xffff ? (n + 0xfffe) / 0xffff : u;
          ASSERT_EQ(b % size, 0) << "n=" << n << " unit=" << unit;
          if (e < n) ASSERT_EQ(e - b, size) << "n=" << n << " unit=" << unit;
        }
        for (int64_t i = b; i < e; ++i) hits[i]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << "n=" << n << " unit=" << unit << " i=" << i;
    }
  }
}

// The thread that starts on the first share runs each unit slowly (a slower
// core): the others take units from the back of its share, so it runs fewer
// than its even share. An even split would leave it all of them.
TEST_P(ThreadPoolTest, UnitsMoveToFasterThreads) {
  if (threads() < 2) GTEST_SKIP() << "no workers";
  cpu::ThreadPool pool(threads(), policy());
  const int64_t n = 16 * threads();
  std::vector<std::thread::id> ran(static_cast<size_t>(n));
  std::thread::id slow;
  std::atomic<bool> slowKnown{false};
  pool.parallelForUnits(n, 1, [&](int64_t b, int64_t e) {
    ASSERT_EQ(e, b + 1);
    if (b == 0) {
      slow = std::this_thread::get_id();
      slowKnown = true;
    }
    ran[size_t(b)] = std::this_thread::get_id();
    // 10 ms a unit: the others have 160 ms to take one, even on a loaded machine.
    if (slowKnown && std::this_thread::get_id() == slow) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  int64_t bySlow = 0;
  for (const auto &id : ran) bySlow += id == slow;
  EXPECT_LT(bySlow, 16) << "the slow thread ran its whole share of 16 units";
  EXPECT_GE(bySlow, 1);
}

// The kernels' parallelForUnits (kernels/Common.h): about kUnitsPerThread
// units per thread, never below the grain, and a slow thread's units move
// to the others; parallelFor's one chunk per thread would leave it its
// whole share.
TEST_P(ThreadPoolTest, KernelUnitsMoveToFasterThreads) {
  cpu::ThreadPool pool(threads(), policy());
  webnn::rt::KernelContext ctx{nullptr, 0, nullptr, 0, &pool};
  for (int64_t n : {int64_t(1), int64_t(100), int64_t(4099)}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    for (auto &h : hits) h = 0;
    cpu::kernels::parallelForUnits(ctx, n, 32, [&](int64_t b, int64_t e) {
      if (e - b < n) ASSERT_GE(e - b, std::min<int64_t>(32, n - b)) << "a unit below the grain";
      for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
    });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)], 1) << "n=" << n << " i=" << i;
  }
  if (threads() < 2) return;
  const int64_t n = cpu::kernels::kUnitsPerThread * threads();
  std::vector<std::thread::id> ran(static_cast<size_t>(n));
  std::thread::id slow;
  std::atomic<bool> slowKnown{false};
  cpu::kernels::parallelForUnits(ctx, n, 1, [&](int64_t b, int64_t e) {
    ASSERT_EQ(e, b + 1);
    if (b == 0) {
      slow = std::this_thread::get_id();
      slowKnown = true;
    }
    ran[size_t(b)] = std::this_thread::get_id();
    if (slowKnown && std::this_thread::get_id() == slow) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  int64_t bySlow = 0;
  for (const auto &id : ran) bySlow += id == slow;
  EXPECT_LT(bySlow, cpu::kernels::kUnitsPerThread) << "the slow thread ran its whole share";
  EXPECT_GE(bySlow, 1);
}

// The default spin is bounded: a pool left idle stops using the CPU.
TEST(ThreadPoolWait, DefaultStopsSpinning) {
  cpu::ThreadPool pool(2, cpu::WaitPolicy::kDefault);
  if (pool.numThreads() < 2) GTEST_SKIP() << "no worker thread";
  std::atomic<int64_t> sum{0};
  pool.parallelFor(1000, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  ASSERT_EQ(sum, 1000);
  auto cpuNs = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  };
  int64_t before = cpuNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int64_t used = cpuNs() - before;
  // The worker and the caller spin 1 ms each at most; leave room for a
  // slow wake-up, far below the 200 ms a spinning worker would take.
  EXPECT_LT(used, 40'000'000) << "process CPU time while idle: " << used / 1e6 << " ms";
}

std::string threadPoolTestName(const ::testing::TestParamInfo<ThreadPoolTest::ParamType> &info) {
  static const char *const kNames[] = {"Default", "Spin", "Block"};
  return std::to_string(std::get<0>(info.param)) + "Threads" + kNames[int(std::get<1>(info.param))];
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3, 8),
                                            ::testing::Values(cpu::WaitPolicy::kDefault, cpu::WaitPolicy::kSpin,
                                                              cpu::WaitPolicy::kBlock)),
                         threadPoolTestName);

}  // namespace
}  // namespace webnn::test
