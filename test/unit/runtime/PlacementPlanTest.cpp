// planPlacement (core/PlacementPlan.h, what `webnnc inspect --plan` prints)
// against real sessions: the same node backends and as many copies per run
// as Executor::transfersPerRun, over the test backend's device memory.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "TestArtifact.h"
#include "TestBackend.h"
#include "core/Executor.h"
#include "core/PlacementPlan.h"

namespace webnn::test {
namespace {

// x -> add c -> relu -> mul c -> relu, each placed as given.
std::shared_ptr<rt::PreparedGraph> chain(const std::vector<std::string> &where, const std::string &tag) {
  TGraph g;
  g.name = "chain";
  g.tensors = {{"x", DataType::kFloat32, {2, 3}}, {"c", DataType::kFloat32, {2, 3}},
               {"a", DataType::kFloat32, {2, 3}}, {"b", DataType::kFloat32, {2, 3}},
               {"m", DataType::kFloat32, {2, 3}}, {"y", DataType::kFloat32, {2, 3}}};
  g.constants = {{1, floatBytes({-3, -2, -1, 1, 2, 3}), "c"}};
  g.nodes = {{"add", {0, 1}, {2}, "add0", {}, {}, where[0]},
             {"relu", {2}, {3}, "relu0", {}, {}, where[1]},
             {"mul", {3, 1}, {4}, "mul0", {}, {}, where[2]},
             {"relu", {4}, {5}, "relu1", {}, {}, where[3]}};
  g.inputs = {0};
  g.outputs = {5, 4};
  std::string path = tempDir(tag) + "/" + tag + ".wnn";
  writeFile(path, buildArtifact(g).artifact);
  rt::LoaderOptions lo;
  rt::LoadedGraph lg;
  Status s = rt::loadArtifact(path, lo, &lg);
  EXPECT_TRUE(s.isOk()) << s.message();
  std::shared_ptr<rt::PreparedGraph> p;
  s = rt::prepareGraph(std::move(lg), &p);
  EXPECT_TRUE(s.isOk()) << s.message();
  return p;
}

// The plan and a session of the same placement agree.
void expectSameAsSession(const std::shared_ptr<rt::PreparedGraph> &p, const std::string &device = "") {
  rt::PlacementPlan plan;
  ASSERT_TRUE(rt::planPlacement(*p, &plan, device).isOk());
  std::unique_ptr<rt::Executor> e;
  Status s = rt::Executor::create(p, 1, &e, false, device);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(plan.nodeBackend.size(), p->nodes.size());
  for (size_t i = 0; i < p->nodes.size(); ++i) EXPECT_EQ(plan.nodeBackend[i], e->nodeBackend(i).name()) << i;
  EXPECT_EQ(plan.transfers.size(), e->transfersPerRun());
}

TEST(PlacementPlan, MatchesTheExecutorsCopies) {
  registerTestBackend();
  const std::vector<std::vector<std::string>> placements = {
      {"test", "cpu", "test", "cpu"}, {"test", "test", "test", "test"}, {"cpu", "cpu", "cpu", "cpu"},
      {"test", "test", "cpu", "test"}, {"", "test", "", ""}};
  int k = 0;
  for (const auto &where : placements) {
    SCOPED_TRACE(k);
    expectSameAsSession(chain(where, "placement_plan_" + std::to_string(k++)));
  }
  std::shared_ptr<rt::PreparedGraph> p = chain({"test", "cpu", "test", "cpu"}, "placement_plan_override");
  expectSameAsSession(p, "test");
  expectSameAsSession(p, "cpu");
}

TEST(PlacementPlan, ListsCopiesAndDeviceMemory) {
  registerTestBackend();
  std::shared_ptr<rt::PreparedGraph> p = chain({"test", "cpu", "test", "cpu"}, "placement_plan_list");
  rt::PlacementPlan plan;
  ASSERT_TRUE(rt::planPlacement(*p, &plan).isOk());
  // x up before add0, a down after it (relu0 reads it), b up before mul0, m
  // down after it (an output, and relu1 reads it).
  ASSERT_EQ(plan.transfers.size(), 4u);
  const rt::PlannedTransfer &first = plan.transfers[0];
  EXPECT_TRUE(first.beforeNode);
  EXPECT_EQ(first.node, 0u);
  EXPECT_EQ(p->graph.tensors[first.tensor].name, "x");
  EXPECT_EQ(first.from, "cpu");
  EXPECT_EQ(first.to, "test");
  EXPECT_EQ(first.bytes, 24u);
  EXPECT_FALSE(plan.transfers[3].beforeNode);
  EXPECT_EQ(p->graph.tensors[plan.transfers[3].tensor].name, "m");
  ASSERT_EQ(plan.memory.size(), 2u);
  EXPECT_EQ(plan.memory[0].backend, "cpu");
  EXPECT_EQ(plan.memory[1].backend, "test");
  EXPECT_EQ(plan.memory[1].arenaBytes, p->arenaBytes);
  EXPECT_EQ(plan.memory[1].constantBytes, 24u);  // c, uploaded once for both nodes
  EXPECT_EQ(plan.memory[1].inputBytes, 24u);     // x
}

TEST(PlacementPlan, NotesABackendThisRuntimeLacks) {
  std::shared_ptr<rt::PreparedGraph> p = chain({"npu9", "", "", ""}, "placement_plan_missing");
  rt::PlacementPlan plan;
  ASSERT_TRUE(rt::planPlacement(*p, &plan).isOk());
  EXPECT_EQ(plan.nodeBackend[0], "cpu");
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("node 0 'add0' (add): placed on 'npu9', runs on 'cpu': this runtime has no backend "
                               "or device 'npu9'"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_TRUE(plan.transfers.empty());
}

}  // namespace
}  // namespace webnn::test
