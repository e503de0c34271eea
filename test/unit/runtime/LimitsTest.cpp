// Session limits (webnn::Limits, runtime/core/Limits.*): each one refuses a
// graph that goes past it under its default (or a lowered value) with
// kLimitExceeded naming the limit and how to raise it, and accepts the same
// graph once it is raised. Values the graph fixes are refused by
// Session::create, the others (dynamic shapes, loop iterations) by run().
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "TestArtifact.h"
#include "core/Backend.h"
#include "webnn/runtime.h"

namespace webnn::test {
namespace {

std::unique_ptr<Model> load(const TGraph &g, const std::string &tag) {
  std::string path = tempDir(tag) + "/" + tag + ".wnn";
  writeFile(path, buildArtifact(g).artifact);
  std::unique_ptr<Model> model;
  Status s = Model::load(path, {}, &model);
  EXPECT_TRUE(s.isOk()) << s.message();
  return model;
}

Status create(const Model &model, const Limits &limits, std::unique_ptr<Session> *out = nullptr) {
  SessionOptions o;
  o.limits = limits;
  std::unique_ptr<Session> session;
  Status s = Session::create(model, o, &session);
  if (out) *out = std::move(session);
  return s;
}

// The refusal names the limit, the C++ field, the C field and the flag.
void expectRefusal(const Status &s, const char *field, const char *cField, const char *flag) {
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.message();
  EXPECT_NE(s.message().find(std::string("SessionOptions::limits.") + field), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(cField), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::string("webnn-run --") + flag), std::string::npos) << s.message();
}

bool haveKernels(std::initializer_list<const char *> ops) {
  for (const char *op : ops)
    if (!rt::findBackendForOp(op)) return false;
  return true;
}

TEST(Limits, DefaultsAreTheDocumentedOnes) {
  Limits l;
  EXPECT_EQ(l.maxLoopIterations, uint64_t(1) << 24);
  EXPECT_EQ(l.maxTensorElements, uint64_t(1) << 32);
  EXPECT_EQ(l.maxArenaBytes, uint64_t(16) << 30);
  EXPECT_EQ(l.maxConstantBytes, uint64_t(64) << 30);
  EXPECT_EQ(l.maxNodes, 1000000u);
  EXPECT_EQ(l.maxNestingDepth, 64u);
}

TEST(Limits, ValuesBeyondTheRuntimesCapsAreInvalid) {
  auto model = load(addReluGraph(), "limcaps");
  ASSERT_TRUE(model);
  Limits l;
  l.maxTensorElements = kMaxTensorElementsCap + 1;
  EXPECT_EQ(create(*model, l).code(), StatusCode::kInvalidArgument);
  l = {};
  l.maxNestingDepth = kMaxNestingDepthCap + 1;
  EXPECT_EQ(create(*model, l).code(), StatusCode::kInvalidArgument);
}

TEST(Limits, NodeCount) {
  auto model = load(addReluGraph(), "limnodes");  // 2 nodes
  ASSERT_TRUE(model);
  Limits l;
  l.maxNodes = 1;
  Status s = create(*model, l);
  expectRefusal(s, "maxNodes", "max_nodes", "max-nodes");
  EXPECT_NE(s.message().find("node count is 2, above the limit of 1"), std::string::npos) << s.message();
  l.maxNodes = 2;
  if (haveKernels({"add", "relu"})) EXPECT_TRUE(create(*model, l).isOk());
}

TEST(Limits, ConstantBytes) {
  auto model = load(addReluGraph(), "limconst");  // one 24-byte constant
  ASSERT_TRUE(model);
  Limits l;
  l.maxConstantBytes = 23;
  expectRefusal(create(*model, l), "maxConstantBytes", "max_constant_bytes", "max-constant-bytes");
  l.maxConstantBytes = 24;
  if (haveKernels({"add", "relu"})) EXPECT_TRUE(create(*model, l).isOk());
}

// relu(relu(x)) over `n` float32 elements.
TGraph reluChain(int64_t n) {
  TGraph g;
  g.tensors = {{"x", DataType::kFloat32, {n}}, {"y", DataType::kFloat32, {n}}, {"z", DataType::kFloat32, {n}}};
  g.nodes = {{"relu", {0}, {1}}, {"relu", {1}, {2}}};
  g.inputs = {0};
  g.outputs = {2};
  return g;
}

TEST(Limits, TensorElementsOfStaticShapes) {
  if (!haveKernels({"relu"})) GTEST_SKIP() << "no relu kernel in this build";
  {  // 2^32 + 1 elements: refused before any allocation is tried.
    auto model = load(reluChain((int64_t(1) << 32) + 1), "limelemdef");
    ASSERT_TRUE(model);
    Status s = create(*model, Limits{});
    expectRefusal(s, "maxTensorElements", "max_tensor_elements", "max-tensor-elements");
    EXPECT_NE(s.message().find("tensor 'x' of shape [4294967297]: its element count is 4294967297"),
              std::string::npos)
        << s.message();
  }
  auto model = load(reluChain(6), "limelem");
  ASSERT_TRUE(model);
  Limits l;
  l.maxTensorElements = 5;
  expectRefusal(create(*model, l), "maxTensorElements", "max_tensor_elements", "max-tensor-elements");
  l.maxTensorElements = 6;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(create(*model, l, &session).isOk());
  const float x[6] = {-1, 2, -3, 4, -5, 6};
  float z[6] = {};
  ASSERT_TRUE(session->run({{"x", x, sizeof x}}, {{"z", z, sizeof z}}).isOk());
  EXPECT_EQ(z[3], 4);
}

TEST(Limits, TensorElementsOfDynamicShapesAtRun) {
  if (!haveKernels({"relu"})) GTEST_SKIP() << "no relu kernel in this build";
  auto model = load(dynamicReluGraph(), "limdyn");  // x, y: [n, 2], n <= 8
  ASSERT_TRUE(model);
  Limits l;
  l.maxTensorElements = 10;  // [8, 2] at its maximum is past it: still accepted, checked per run
  std::unique_ptr<Session> session;
  Status s = create(*model, l, &session);
  ASSERT_TRUE(s.isOk()) << s.message();
  float x[16] = {}, y[16] = {};
  for (int i = 0; i < 16; ++i) x[i] = float(i);
  ASSERT_TRUE(session->setInput("x", x, 5 * 2 * sizeof(float), Shape{5, 2}).isOk());
  s = session->run();
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_TRUE(session->setInput("x", x, 6 * 2 * sizeof(float), Shape{6, 2}).isOk());
  s = session->run();
  expectRefusal(s, "maxTensorElements", "max_tensor_elements", "max-tensor-elements");
  EXPECT_NE(s.message().find("tensor 'x' of shape [6,2] (with n=6): its element count is 12"), std::string::npos)
      << s.message();
  // The session stays usable: a smaller size runs again.
  ASSERT_TRUE(session->setInput("x", x, 4 * 2 * sizeof(float), Shape{4, 2}).isOk());
  EXPECT_TRUE(session->run().isOk());
  l.maxTensorElements = 12;
  ASSERT_TRUE(create(*model, l, &session).isOk());
  ASSERT_TRUE(session->setInput("x", x, 6 * 2 * sizeof(float), Shape{6, 2}).isOk());
  s = session->run();
  ASSERT_TRUE(s.isOk()) << s.message();
  const void *out = nullptr;
  size_t bytes = 0;
  ASSERT_TRUE(session->output("y", &out, &bytes).isOk());
  EXPECT_EQ(bytes, 12 * sizeof(float));
  EXPECT_EQ(static_cast<const float *>(out)[11], 11.0f);
  (void)y;
}

TEST(Limits, ArenaBytes) {
  if (!haveKernels({"relu"})) GTEST_SKIP() << "no relu kernel in this build";
  {  // 2^32 floats (at the element limit) need 2 x 16 GiB of arena: refused before allocating.
    auto model = load(reluChain(int64_t(1) << 32), "limarenadef");
    ASSERT_TRUE(model);
    Status s = create(*model, Limits{});
    expectRefusal(s, "maxArenaBytes", "max_arena_bytes", "max-arena-bytes");
  }
  auto model = load(reluChain(16), "limarena");
  ASSERT_TRUE(model);
  const uint64_t arena = model->arenaBytes();
  ASSERT_GT(arena, 0u);
  Limits l;
  l.maxArenaBytes = arena - 1;
  expectRefusal(create(*model, l), "maxArenaBytes", "max_arena_bytes", "max-arena-bytes");
  l.maxArenaBytes = arena;
  EXPECT_TRUE(create(*model, l).isOk());
}

// `depth` "if" nodes, each inside the then-branch of the one before: the
// innermost branch sits `depth` subgraphs deep. Tensors: 0 "c" uint8 [1],
// 1 "a" float32 [1], 2 + k the k-th if's output; the main graph's output is
// tensor 2.
TGraph nestedIfs(int depth) {
  TGraph g;
  g.tensors = {{"c", DataType::kUint8, {1}}, {"a", DataType::kFloat32, {1}}};
  for (int k = 0; k < depth; ++k) g.tensors.push_back({"t" + std::to_string(k), DataType::kFloat32, {1}});
  g.subgraphs.resize(size_t(2 * depth));
  for (int k = 0; k < depth; ++k) {
    TNode node{"if", {0}, {2 + k}, "if" + std::to_string(k), {}, {uint32_t(2 * k), uint32_t(2 * k + 1)}};
    if (k == 0)
      g.nodes.push_back(node);
    else
      g.subgraphs[size_t(2 * (k - 1))] = {{node}, {}, {uint32_t(2 + k)}};
    g.subgraphs[size_t(2 * k + 1)] = {{}, {}, {1}};  // else: yields a
  }
  g.subgraphs[size_t(2 * (depth - 1))] = {{}, {}, {1}};  // the innermost then-branch
  g.inputs = {0, 1};
  g.outputs = {2};
  return g;
}

TEST(Limits, NestingDepth) {
  auto model = load(nestedIfs(65), "limnest");
  ASSERT_TRUE(model);
  Status s = create(*model, Limits{});
  expectRefusal(s, "maxNestingDepth", "max_nesting_depth", "max-nesting-depth");
  EXPECT_NE(s.message().find("nesting depth is 65, above the limit of 64"), std::string::npos) << s.message();
  Limits l;
  l.maxNestingDepth = 65;
  std::unique_ptr<Session> session;
  s = create(*model, l, &session);
  ASSERT_TRUE(s.isOk()) << s.message();
  const uint8_t c = 1;
  const float a = 7;
  float t0 = 0;
  s = session->run({{"c", &c, 1}, {"a", &a, sizeof a}}, {{"t0", &t0, sizeof t0}});
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(t0, 7);
  // Past the loader's own bound the artifact is invalid whatever the limits.
  std::string path = tempDir("limnestcap") + "/n.wnn";
  writeFile(path, buildArtifact(nestedIfs(int(kMaxNestingDepthCap) + 1)).artifact);
  std::unique_ptr<Model> deep;
  s = Model::load(path, {}, &deep);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArtifact) << s.message();
  EXPECT_NE(s.message().find("nested more than 256 deep"), std::string::npos) << s.message();
}

// swapLoopGraph with the trip count "m" a constant and no graph input for it.
TGraph constantTripLoop(int64_t trips) {
  TGraph g = swapLoopGraph();
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), &trips, 8);
  g.constants.push_back({0, bytes, "m"});
  g.inputs = {1, 2};
  return g;
}

TEST(Limits, ConstantTripCountIsRefusedAtCreate) {
  if (!haveKernels({"add"})) GTEST_SKIP() << "no add kernel in this build";
  auto model = load(constantTripLoop(int64_t(1) << 40), "limtripc");
  ASSERT_TRUE(model);
  Status s = create(*model, Limits{});
  expectRefusal(s, "maxLoopIterations", "max_loop_iterations", "max-loop-iterations");
  EXPECT_NE(s.message().find("node 0 'loop0' (loop): its constant trip count of 1099511627776"), std::string::npos)
      << s.message();
  Limits l;
  l.maxLoopIterations = uint64_t(1) << 40;
  EXPECT_TRUE(create(*model, l).isOk());

  auto small = load(constantTripLoop(3), "limtripc3");
  ASSERT_TRUE(small);
  l.maxLoopIterations = 2;
  expectRefusal(create(*small, l), "maxLoopIterations", "max_loop_iterations", "max-loop-iterations");
  l.maxLoopIterations = 3;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(create(*small, l, &session).isOk());
  const float a[2] = {10, 20}, b[2] = {1, 2};
  float x[2] = {}, y[2] = {};
  s = session->run({{"a", a, sizeof a}, {"b", b, sizeof b}}, {{"x", x, sizeof x}, {"y", y, sizeof y}});
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(x[0], 13);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

TEST(Limits, RunTimeTripCountIsCountedAsItRuns) {
  if (!haveKernels({"add"})) GTEST_SKIP() << "no add kernel in this build";
  auto model = load(swapLoopGraph(), "limtripr");
  ASSERT_TRUE(model);
  const float a[2] = {10, 20}, b[2] = {1, 2};
  float x[2] = {}, y[2] = {};
  auto run = [&](Session &s, int64_t m) {
    return s.run({{"m", &m, sizeof m}, {"a", a, sizeof a}, {"b", b, sizeof b}}, {{"x", x, sizeof x}, {"y", y, sizeof y}});
  };
  // The case: a loop fed 2^62 stops at the default limit, not never.
  std::unique_ptr<Session> session;
  ASSERT_TRUE(create(*model, Limits{}, &session).isOk());
  auto t0 = std::chrono::steady_clock::now();
  Status s = run(*session, int64_t(1) << 62);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expectRefusal(s, "maxLoopIterations", "max_loop_iterations", "max-loop-iterations");
  EXPECT_NE(s.message().find("node 0 'loop0' (loop): the number of loop iterations in this run is 16777217, above "
                             "the limit of 16777216"),
            std::string::npos)
      << s.message();
  // ~1 s in a release build; the sanitizer builds run the 2^24 iterations up
  // to 100x slower (TSan on a busy machine); never ending is what this rules out.
  EXPECT_LT(seconds, kSanitized ? 600.0 : 60.0);
  // Lowered, then raised past the trip count.
  Limits l;
  l.maxLoopIterations = 100;
  ASSERT_TRUE(create(*model, l, &session).isOk());
  EXPECT_TRUE(run(*session, 100).isOk());
  expectRefusal(run(*session, 101), "maxLoopIterations", "max_loop_iterations", "max-loop-iterations");
  l.maxLoopIterations = 101;
  ASSERT_TRUE(create(*model, l, &session).isOk());
  s = run(*session, 101);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(x[0], 111);
}

}  // namespace
}  // namespace webnn::test
