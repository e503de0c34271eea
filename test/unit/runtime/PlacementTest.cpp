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

// x -> p = mul(x, c) -> a = add(p, c) -> q = mul(x, x) -> r = relu(a)
// -> y = add(r, q), every node on the test backend, which runs add0 and
// relu0 as one step in relu0's place (groupAddRelu). Planned for the nodes
// one by one, q would take p's bytes (p dies at add0); planned for the
// group, p stays live until the step reads it. `sumIsOutput` makes a a
// graph output too: then the group is dropped.
TGraph groupGraph(bool sumIsOutput) {
  TGraph g;
  g.name = "grouped";
  for (const char *name : {"x", "c", "p", "a", "q", "r", "y"}) g.tensors.push_back({name, DataType::kFloat32, {2, 3}});
  g.constants = {{1, floatBytes({-3, -2, -1, 1, 2, 3}), "c"}};
  g.nodes = {{"mul", {0, 1}, {2}, "mul0"},
             {"add", {2, 1}, {3}, "add0"},
             {"mul", {0, 0}, {4}, "mul1"},
             {"relu", {3}, {5}, "relu0"},
             {"add", {5, 4}, {6}, "add1"}};
  g.inputs = {0};
  g.outputs = {6};
  if (sumIsOutput) g.outputs.push_back(3);
  return g;
}

TEST(Placement, GroupedNodesRunAsOneStepWithTheirInputsLive) {
  TestBackendCounters &counters = registerTestBackend();
  const std::vector<float> c = {-3, -2, -1, 1, 2, 3};
  std::vector<float> want(6), wantSum(6);
  for (size_t i = 0; i < 6; ++i) {
    wantSum[i] = kX[i] * c[i] + c[i];
    want[i] = (wantSum[i] > 0 ? wantSum[i] : 0) + kX[i] * kX[i];
  }
  for (bool sumIsOutput : {false, true}) {
    SCOPED_TRACE(sumIsOutput ? "the sum is a graph output" : "the sum is read by relu0 alone");
    std::shared_ptr<rt::PreparedGraph> p = prepare(groupGraph(sumIsOutput), "placement_group");
    ASSERT_TRUE(p);
    counters.reset();
    counters.groupAddRelu = true;
    std::unique_ptr<rt::Executor> e;
    Status s = rt::Executor::create(p, 1, &e, true, "test");
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(e->numPartitions(), 1u);
    if (sumIsOutput) {
      ASSERT_EQ(e->placementNotes().size(), 1u);
      EXPECT_NE(e->placementNotes()[0].find("nodes 0 to 4 on 'test': a proposed group of 2 nodes is not run as one "
                                            "step: tensor 'a' is read outside the group"),
                std::string::npos)
          << e->placementNotes()[0];
    } else {
      EXPECT_TRUE(e->placementNotes().empty()) << e->placementNotes().front();
    }
    for (int run = 0; run < 2; ++run) {
      ASSERT_TRUE(e->setInput(0, kX.data(), kX.size() * sizeof(float), /*copy=*/true).isOk());
      s = e->run();
      ASSERT_TRUE(s.isOk()) << s.message();
    }
    EXPECT_EQ(counters.partitionRuns.load(), 2u);
    EXPECT_EQ(counters.groupRuns.load(), sumIsOutput ? 0u : 2u);
    EXPECT_EQ(counters.kernelRuns.load(), sumIsOutput ? 10u : 6u);
    const float *y = static_cast<const float *>(e->outputData(0));
    for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;
    if (sumIsOutput) {
      const float *a = static_cast<const float *>(e->outputData(1));
      for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(a[i], wantSum[i]) << i;
    }
  }
  counters.reset();
}

// A backend whose partition kernel refuses the groups it proposed: the
// partition is made again without them (a note says why), its nodes one by
// one inside it, and the device memory planned for no groups.
TEST(Placement, RefusedGroupsLeaveThePartitionUngrouped) {
  TestBackendCounters &counters = registerTestBackend();
  std::shared_ptr<rt::PreparedGraph> p = prepare(groupGraph(false), "placement_group_refused");
  ASSERT_TRUE(p);
  counters.reset();
  counters.groupAddRelu = true;
  counters.refuseGroups = true;
  std::unique_ptr<rt::Executor> e;
  Status s = rt::Executor::create(p, 1, &e, true, "test");
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(e->numPartitions(), 1u);
  ASSERT_EQ(e->placementNotes().size(), 1u);
  EXPECT_NE(e->placementNotes()[0].find("nodes 0 to 4 on 'test' without grouped steps: the test backend refuses "
                                        "its groups"),
            std::string::npos)
      << e->placementNotes()[0];
  ASSERT_TRUE(e->setInput(0, kX.data(), kX.size() * sizeof(float), /*copy=*/true).isOk());
  s = e->run();
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(counters.groupRuns.load(), 0u);
  EXPECT_EQ(counters.kernelRuns.load(), 5u);
  const std::vector<float> c = {-3, -2, -1, 1, 2, 3};
  const float *y = static_cast<const float *>(e->outputData(0));
  for (size_t i = 0; i < 6; ++i) {
    float sum = kX[i] * c[i] + c[i];
    EXPECT_FLOAT_EQ(y[i], (sum > 0 ? sum : 0) + kX[i] * kX[i]) << i;
  }
  counters.reset();
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
