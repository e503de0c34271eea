// Control flow in the runtime (runtime/core/ControlFlow.*): the loader's
// scoping and type checks on subgraphs, and the executor running a loop whose
// body yields one carried value as another (the double-buffered state).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "TestArtifact.h"
#include "webnn_artifact_format.h"
#include "core/ArtifactLoader.h"
#include "core/Executor.h"
#include "webnn/runtime.h"

namespace webnn::test {
namespace {

std::string writeGraph(const TGraph &g, const std::string &tag) {
  std::string path = tempDir(tag) + "/" + tag + ".wnn";
  writeFile(path, buildArtifact(g).artifact);
  return path;
}

std::string loadError(const TGraph &g) {
  rt::LoadedGraph loaded;
  Status s = rt::loadArtifact(writeGraph(g, "cf"), {}, &loaded);
  EXPECT_FALSE(s.isOk());
  return s.message();
}

TEST(ControlFlow, LoopGraphLoads) {
  rt::LoadedGraph g;
  Status s = rt::loadArtifact(writeGraph(swapLoopGraph(), "cfok"), {}, &g);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(g.subgraphs.size(), 1u);
  EXPECT_EQ(g.subgraphs[0].nodes.size(), 1u);
  EXPECT_EQ(g.tensors[4].role, rt::TensorRole::kSubgraphInput);
  EXPECT_EQ(g.tensors[8].scope, 0);
  EXPECT_EQ(g.tensors[9].scope, -1);
}

TEST(ControlFlow, LoaderRejectsBadSubgraphs) {
  {  // A node of the main graph reads a tensor defined inside the body.
    TGraph g = swapLoopGraph();
    g.tensors.push_back({"z", DataType::kFloat32, {2}});
    g.nodes.push_back({"relu", {8}, {11}, "after"});
    EXPECT_NE(loadError(g).find("reads tensor 8, which no earlier node produces"), std::string::npos) << loadError(g);
  }
  {  // The body reads its own loop's output.
    TGraph g = swapLoopGraph();
    g.subgraphs[0].nodes[0].inputs = {9, 3};
    EXPECT_NE(loadError(g).find("node 0 'body_add' (add) of subgraph 0 reads tensor 9 'x'"), std::string::npos)
        << loadError(g);
  }
  {  // A graph output defined inside a subgraph.
    TGraph g = swapLoopGraph();
    g.outputs = {9, 8};
    EXPECT_NE(loadError(g).find("graph output tensor 8 is defined inside a subgraph"), std::string::npos)
        << loadError(g);
  }
  {  // One subgraph used by two nodes.
    TGraph g = swapLoopGraph();
    g.tensors.push_back({"x2", DataType::kFloat32, {2}});
    g.tensors.push_back({"y2", DataType::kFloat32, {2}});
    g.nodes.push_back({"loop", {0, -1, 1, 2}, {11, 12}, "loop1", {}, {0}});
    EXPECT_NE(loadError(g).find("subgraph 0 is used by two nodes"), std::string::npos) << loadError(g);
  }
  {  // Out of range, unused, and on an op that is not control flow.
    TGraph g = swapLoopGraph();
    g.nodes[0].subgraphs = {3};
    EXPECT_NE(loadError(g).find("refers to subgraph 3 of 1"), std::string::npos) << loadError(g);
    g = swapLoopGraph();
    g.subgraphs.push_back({});
    EXPECT_NE(loadError(g).find("subgraph 1 is not used by any node"), std::string::npos) << loadError(g);
    g = swapLoopGraph();
    g.nodes[0].op = "add";
    EXPECT_NE(loadError(g).find("is not a control-flow op but has subgraphs"), std::string::npos) << loadError(g);
    g = swapLoopGraph();
    g.nodes[0].subgraphs = {};
    g.subgraphs.clear();
    EXPECT_NE(loadError(g).find("(loop) has no subgraphs"), std::string::npos) << loadError(g);
  }
  {  // A carried value whose type the body changes.
    TGraph g = swapLoopGraph();
    g.tensors[8].shape = {1, 2};
    EXPECT_NE(loadError(g).find("carried value #0 must keep one type"), std::string::npos) << loadError(g);
  }
  {  // Neither a trip count nor a condition.
    TGraph g = swapLoopGraph();
    g.nodes[0].inputs[0] = -1;
    EXPECT_NE(loadError(g).find("has neither a trip count nor a condition"), std::string::npos) << loadError(g);
  }
  {  // An if with one branch, and one whose branch yields another type.
    TGraph g;
    g.tensors = {{"c", DataType::kUint8, {}}, {"x", DataType::kFloat32, {2}}, {"y", DataType::kFloat32, {3}},
                 {"r", DataType::kFloat32, {2}}};
    g.subgraphs = {{{}, {}, {1}}, {{}, {}, {2}}};
    g.nodes = {{"if", {0}, {3}, "if0", {}, {0}}};
    g.inputs = {0, 1, 2};
    g.outputs = {3};
    EXPECT_NE(loadError(g).find("has 1 subgraphs, expected 2"), std::string::npos) << loadError(g);
    g.nodes[0].subgraphs = {0, 1};
    EXPECT_NE(loadError(g).find("the else branch yields float32 [3] for output #0 of float32 [2]"), std::string::npos)
        << loadError(g);
  }
}

TEST(ControlFlow, LoopCarriesValuesAcrossIterations) {
  if (!rt::findBackendForOp("add")) GTEST_SKIP() << "CPU backend has no add kernel in this build";
  std::unique_ptr<Model> model;
  Status s = Model::load(writeGraph(swapLoopGraph(), "cfrun"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  const float a[2] = {10, 20}, b[2] = {1, 2};
  // (a, b) -> (a + 1, a) per iteration.
  struct Case {
    int64_t m;
    float x0, y0;
  } cases[] = {{0, 10, 1}, {1, 11, 10}, {2, 12, 11}, {3, 13, 12}, {-4, 10, 1}};
  for (const Case &c : cases) {
    float x[2] = {}, y[2] = {};
    s = session->run({{"m", &c.m, sizeof c.m}, {"a", a, sizeof a}, {"b", b, sizeof b}},
                     {{"x", x, sizeof x}, {"y", y, sizeof y}});
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_EQ(x[0], c.x0) << "m=" << c.m;
    EXPECT_EQ(y[0], c.y0) << "m=" << c.m;
  }
}

// Session::cancel from another thread ends a loop whose trip count would
// never finish (2^62 iterations) within an iteration; the next run of the same
// session is unaffected. cancel() is repeated until run() returns, because a
// request that lands before the run starts is forgotten by design.
TEST(ControlFlow, CancelStopsAHugeLoopAndTheSessionStaysUsable) {
  if (!rt::findBackendForOp("add")) GTEST_SKIP() << "CPU backend has no add kernel in this build";
  std::unique_ptr<Model> model;
  Status s = Model::load(writeGraph(swapLoopGraph(), "cfcancel"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  const float a[2] = {10, 20}, b[2] = {1, 2};
  float x[2] = {}, y[2] = {};
  // A cancel with no run in progress does not carry over to the next run.
  session->cancel();
  const int64_t three = 3;
  s = session->run({{"m", &three, sizeof three}, {"a", a, sizeof a}, {"b", b, sizeof b}},
                   {{"x", x, sizeof x}, {"y", y, sizeof y}});
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(x[0], 13);

  const int64_t huge = int64_t(1) << 62;
  std::atomic<bool> done{false};
  Status runStatus;
  std::thread runner([&] {
    runStatus = session->run({{"m", &huge, sizeof huge}, {"a", a, sizeof a}, {"b", b, sizeof b}},
                             {{"x", x, sizeof x}, {"y", y, sizeof y}});
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(done.load()) << "the 2^62-iteration loop returned by itself: " << runStatus.message();
  auto t0 = std::chrono::steady_clock::now();
  while (!done.load()) {
    session->cancel();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(20)) {
      std::fprintf(stderr, "Session::cancel did not stop the loop within 20 s\n");
      std::_Exit(1);  // the runner thread cannot be joined
    }
  }
  runner.join();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 1000.0);
  EXPECT_EQ(runStatus.code(), StatusCode::kCancelled) << runStatus.message();
  EXPECT_NE(runStatus.message().find("(loop): run cancelled at node 0 'body_add' (add) of subgraph 0"), std::string::npos)
      << runStatus.message();

  // The flag is cleared at the next run: it completes with the right values.
  x[0] = y[0] = 0;
  const int64_t two = 2;
  s = session->run({{"m", &two, sizeof two}, {"a", a, sizeof a}, {"b", b, sizeof b}},
                   {{"x", x, sizeof x}, {"y", y, sizeof y}});
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(x[0], 12);
  EXPECT_EQ(y[0], 11);
}

}  // namespace
}  // namespace webnn::test

namespace webnn::test {
namespace {

// Any byte of a control-flow artifact flipped: the load fails with a message,
// or the graph loads and then runs (trip counts bounded) without crashing.
TEST(ControlFlow, FlippedBytesNeverCrash) {
  if (!rt::findBackendForOp("add")) GTEST_SKIP() << "CPU backend has no add kernel in this build";
  std::vector<uint8_t> good = buildArtifact(swapLoopGraph()).artifact;
  webnn::artifact::ArtifactHeader h;
  std::memcpy(&h, good.data(), sizeof(h));
  const std::string path = tempDir("cfflip") + "/f.wnn";
  int loaded = 0, refused = 0;
  for (size_t i = 0; i < h.graph_offset + h.graph_size; ++i) {
    for (uint8_t mask : {0xFF, 0x01}) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= mask;
      writeFile(path, bad);
      std::unique_ptr<Model> model;
      Status s = Model::load(path, {}, &model);
      if (!s.isOk()) {
        EXPECT_FALSE(s.message().empty());
        ++refused;
        continue;
      }
      std::unique_ptr<Session> session;
      if (!Session::create(*model, {1}, &session).isOk()) continue;
      std::vector<std::vector<uint8_t>> data;
      std::vector<InputBinding> inputs;
      for (const TensorInfo &t : model->inputs()) {
        data.emplace_back(t.byteSize, 0);
        if (t.dtype == DataType::kInt64 && t.byteSize == 8) data.back()[0] = 3;  // a few iterations
        inputs.push_back({t.name, data.back().data(), data.back().size()});
      }
      for (size_t k = 0; k < inputs.size(); ++k) inputs[k].data = data[k].data();
      ++loaded;
      EXPECT_TRUE(session->run(inputs, {}).isOk());
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(loaded, 0);  // flips in names and unused bytes still load and run
}

}  // namespace
}  // namespace webnn::test

namespace webnn::test {
namespace {

// swapLoopGraph plus a scan output "s" [4, 2] of the body's new first value.
TGraph scanLoopGraph() {
  TGraph g = swapLoopGraph();
  g.tensors.push_back({"s", DataType::kFloat32, {4, 2}});  // 11
  g.subgraphs[0].outputs.push_back(8);
  g.nodes[0].outputs.push_back(11);
  g.outputs.push_back(11);
  return g;
}

TEST(ControlFlow, ScanOutputHasOneRowPerIteration) {
  if (!rt::findBackendForOp("add")) GTEST_SKIP() << "CPU backend has no add kernel in this build";
  std::unique_ptr<Model> model;
  Status s = Model::load(writeGraph(scanLoopGraph(), "cfscan"), {}, &model);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_TRUE(model->outputs()[2].isDynamic());
  EXPECT_EQ(model->outputs()[2].dynamicDims[0], "iterations");
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(*model, {1}, &session).isOk());
  const float a[2] = {10, 20}, b[2] = {1, 2};
  // The bound (4 rows) also caps the iterations: m = 9 runs 4.
  for (int64_t m : {3, 0, 9}) {
    float rows[8] = {};
    s = session->run({{"m", &m, sizeof m}, {"a", a, sizeof a}, {"b", b, sizeof b}}, {{"s", rows, sizeof rows}});
    ASSERT_TRUE(s.isOk()) << s.message();
    const int64_t n = std::min<int64_t>(m, 4);
    EXPECT_EQ(session->outputShape(2), (Shape{n, 2})) << "m=" << m;
    EXPECT_EQ(session->outputBytes(2), size_t(n * 8));
    for (int64_t r = 0; r < n; ++r) EXPECT_EQ(rows[2 * r], 11 + r) << "m=" << m << " row " << r;
  }
}

TEST(ControlFlow, ScanOutputsCannotBeRead) {
  TGraph g = scanLoopGraph();
  g.tensors.push_back({"r", DataType::kFloat32, {4, 2}});
  g.nodes.push_back({"relu", {11}, {12}, "reads_scan"});
  g.outputs = {9, 10, 12};
  std::string m = loadError(g);
  EXPECT_NE(m.find("reads tensor 11 's', a loop's scan output"), std::string::npos) << m;
  g = scanLoopGraph();
  g.tensors[11].shape = {4, 3};
  m = loadError(g);
  EXPECT_NE(m.find("scan output #0 is float32 [4,3], expected a bound followed by float32 [2]"), std::string::npos)
      << m;
}

}  // namespace
}  // namespace webnn::test
