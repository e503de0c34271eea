// Placement end to end (docs/BACKENDS.md): nodes the artifact places on the
// test backend (TestBackend.h, "device" memory) run there, the rest on the
// CPU, with the executor's copies between the two; a node the backend
// refuses, or a backend the runtime lacks, falls back to the CPU with a note.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "TestArtifact.h"
#include "TestBackend.h"
#include "core/Executor.h"
#include "webnn/runtime.h"

namespace webnn::test {
namespace {

// x -> add c [test] -> relu [cpu] -> mul c [test] -> sigmoid [test: refused]
// Outputs: y (sigmoid) and m (the mul, made on the test backend).
TGraph mixedGraph(const std::string &sigmoidBackend = "test") {
  TGraph g;
  g.name = "mixed";
  g.tensors = {{"x", DataType::kFloat32, {2, 3}}, {"c", DataType::kFloat32, {2, 3}},
               {"a", DataType::kFloat32, {2, 3}}, {"b", DataType::kFloat32, {2, 3}},
               {"m", DataType::kFloat32, {2, 3}}, {"y", DataType::kFloat32, {2, 3}}};
  g.constants = {{1, floatBytes({-3, -2, -1, 1, 2, 3}), "c"}};
  g.nodes = {{"add", {0, 1}, {2}, "add0", {}, {}, "test"},
             {"relu", {2}, {3}, "relu0", {}, {}, "cpu"},
             {"mul", {3, 1}, {4}, "mul0", {}, {}, "test"},
             {"sigmoid", {4}, {5}, "sigmoid0", {}, {}, sigmoidBackend}};
  g.inputs = {0};
  g.outputs = {5, 4};
  return g;
}

std::shared_ptr<rt::PreparedGraph> prepare(const TGraph &g, const std::string &tag) {
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = writeAndPrepare(g, tag, &p);
  EXPECT_TRUE(s.isOk()) << s.message();
  return p;
}

const std::vector<float> kX = {1.5f, -0.5f, 2.f, -4.f, 0.25f, 3.f};

// Runs `e` twice on kX; outputs y and m of the second run.
void runTwice(rt::Executor &e, std::vector<float> *y, std::vector<float> *m) {
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(e.setInput(0, kX.data(), kX.size() * sizeof(float), /*copy=*/true).isOk());
    Status s = e.run();
    ASSERT_TRUE(s.isOk()) << s.message();
  }
  const float *py = static_cast<const float *>(e.outputData(0)), *pm = static_cast<const float *>(e.outputData(1));
  y->assign(py, py + 6);
  m->assign(pm, pm + 6);
}

TEST(Placement, MixedPlacementRunsWithTransfers) {
  TestBackendCounters &counters = registerTestBackend();
  std::shared_ptr<rt::PreparedGraph> p = prepare(mixedGraph(), "placement_mixed");
  ASSERT_TRUE(p);
  const std::vector<float> c = {-3, -2, -1, 1, 2, 3};
  std::vector<float> wantM(6), wantY(6);
  for (size_t i = 0; i < 6; ++i) {
    float a = kX[i] + c[i], b = a > 0 ? a : 0;
    wantM[i] = b * c[i];
    wantY[i] = 1.f / (1.f + std::exp(-wantM[i]));
  }

  counters.reset();
  std::unique_ptr<rt::Executor> e;
  Status s = rt::Executor::create(p, 1, &e);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(e->nodeBackend(0).name(), "test");
  EXPECT_EQ(e->nodeBackend(1).name(), "cpu");
  EXPECT_EQ(e->nodeBackend(2).name(), "test");
  EXPECT_EQ(e->nodeBackend(3).name(), "cpu");
  ASSERT_EQ(e->placementNotes().size(), 1u);
  EXPECT_NE(e->placementNotes()[0].find("node 3 'sigmoid0' (sigmoid): placed on 'test', runs on 'cpu': "
                                        "the test backend has no 'sigmoid'"),
            std::string::npos)
      << e->placementNotes()[0];
  // x to the device before add0; a back after it (relu0 on the CPU reads
  // it); b to the device before mul0; m back after it (an output, and
  // sigmoid0 reads it). The constant goes up once, for both nodes.
  EXPECT_EQ(e->transfersPerRun(), 4u);
  EXPECT_EQ(counters.uploads.load(), 1u);
  std::vector<float> y, m;
  runTwice(*e, &y, &m);
  EXPECT_EQ(counters.toDevice.load(), 4u);
  EXPECT_EQ(counters.toHost.load(), 4u);
  EXPECT_EQ(counters.kernelRuns.load(), 4u);
  EXPECT_EQ(e->numPartitions(), 0u);  // no two test nodes are adjacent
  EXPECT_EQ(counters.partitionRuns.load(), 0u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(m[i], wantM[i]) << i;
    EXPECT_NEAR(y[i], wantY[i], 1e-6) << i;
  }

  // The same graph with every node overridden onto the CPU: no copies, the
  // same answers.
  counters.reset();
  std::unique_ptr<rt::Executor> cpu;
  ASSERT_TRUE(rt::Executor::create(p, 1, &cpu, true, "cpu").isOk());
  EXPECT_EQ(cpu->transfersPerRun(), 0u);
  EXPECT_TRUE(cpu->placementNotes().empty());
  std::vector<float> y2, m2;
  runTwice(*cpu, &y2, &m2);
  EXPECT_EQ(counters.toDevice.load() + counters.toHost.load() + counters.kernelRuns.load(), 0u);
  EXPECT_EQ(m2, m);
  EXPECT_EQ(y2, y);

  // Everything overridden onto the test backend: relu0 moves there too, so a
  // stays on the device (no copy of a, none of b), and add0, relu0, mul0 run
  // as one partition kernel: one partition run per run, m copied back after
  // it (sigmoid0 stays on the CPU).
  counters.reset();
  std::unique_ptr<rt::Executor> dev;
  ASSERT_TRUE(rt::Executor::create(p, 2, &dev, true, "test").isOk());
  EXPECT_EQ(dev->nodeBackend(1).name(), "test");
  EXPECT_EQ(dev->transfersPerRun(), 2u);  // x up, m down
  EXPECT_EQ(dev->numPartitions(), 1u);
  std::vector<float> y3, m3;
  runTwice(*dev, &y3, &m3);
  EXPECT_EQ(counters.kernelRuns.load(), 6u);
  EXPECT_EQ(counters.partitionRuns.load(), 2u);
  EXPECT_EQ(counters.toDevice.load(), 2u);
  EXPECT_EQ(counters.toHost.load(), 2u);
  EXPECT_EQ(m3, m);
  EXPECT_EQ(y3, y);
}

TEST(Placement, UnknownBackendFallsBackToTheDefault) {
  registerTestBackend();
  TGraph g = mixedGraph();
  g.nodes[0].backend = "nosuch";
  std::shared_ptr<rt::PreparedGraph> p = prepare(g, "placement_unknown");
  ASSERT_TRUE(p);
  std::unique_ptr<rt::Executor> e;
  ASSERT_TRUE(rt::Executor::create(p, 1, &e).isOk());
  EXPECT_EQ(e->nodeBackend(0).name(), "cpu");
  ASSERT_EQ(e->placementNotes().size(), 2u);
  EXPECT_NE(e->placementNotes()[0].find("node 0 'add0' (add): placed on 'nosuch', runs on 'cpu': this runtime has "
                                        "no backend or device 'nosuch'"),
            std::string::npos)
      << e->placementNotes()[0];
  std::vector<float> y, m;
  runTwice(*e, &y, &m);
}

// The public API's override: SessionOptions::device.
TEST(Placement, SessionDeviceOverride) {
  TestBackendCounters &counters = registerTestBackend();
  std::string path = tempDir("placement_session") + "/mixed.wnn";
  writeFile(path, buildArtifact(mixedGraph()).artifact);
  std::unique_ptr<Model> model;
  Status s = Model::load(path, {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> y(6), m(6), y2(6), m2(6);
  for (const char *device : {"", "cpu"}) {
    counters.reset();
    SessionOptions o;
    o.device = device;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::create(*model, o, &session).isOk());
    std::vector<float> &yy = *device ? y2 : y, &mm = *device ? m2 : m;
    s = session->run({{"x", kX.data(), kX.size() * sizeof(float)}},
                     {{"y", yy.data(), yy.size() * sizeof(float)}, {"m", mm.data(), mm.size() * sizeof(float)}});
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(counters.kernelRuns.load(), *device ? 0u : 2u) << "device '" << device << "'";
  }
  EXPECT_EQ(y, y2);
  EXPECT_EQ(m, m2);
}

}  // namespace
}  // namespace webnn::test
