#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "TestArtifact.h"
#include "core/ArtifactLoader.h"
#include "core/ExecutionPlan.h"
#include "core/MemoryPlanner.h"

namespace webnn::rt {
namespace {

// The invariant that matters: tensors alive at the same time never share
// bytes; with `inPlace`, but for a request and the one it was written over
// (BufferRequest::placedIn), at the same offset.
void expectNoLiveOverlap(const std::vector<BufferRequest> &r, const ArenaPlan &p, bool inPlace = false) {
  for (size_t a = 0; a < r.size(); ++a) {
    EXPECT_EQ(p.offsets[a] % 64, 0u);
    EXPECT_LE(p.offsets[a] + r[a].bytes, p.arenaBytes);
    for (size_t b = a + 1; b < r.size(); ++b) {
      bool live = r[a].firstUse <= r[b].lastUse && r[b].firstUse <= r[a].lastUse;
      bool mem = r[a].bytes && r[b].bytes && p.offsets[a] < p.offsets[b] + r[b].bytes &&
                 p.offsets[b] < p.offsets[a] + r[a].bytes;
      bool over = inPlace && (r[b].placedIn == int64_t(a) || r[a].placedIn == int64_t(b)) &&
                  p.offsets[a] == p.offsets[b];
      EXPECT_FALSE(live && mem && !over) << "requests " << a << " and " << b;
    }
  }
}

TEST(Planner, ChainReusesMemory) {
  // x0 -> x1 -> x2 -> x3: only neighbours are alive together.
  std::vector<BufferRequest> r = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 4}};
  ArenaPlan p;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  expectNoLiveOverlap(r, p);
  EXPECT_EQ(p.arenaBytes, 2 * 1024u);
}

TEST(Planner, AllLiveNeedsTheSum) {
  std::vector<BufferRequest> r = {{100, 0, 5}, {200, 1, 5}, {1, 2, 5}};
  ArenaPlan p;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  expectNoLiveOverlap(r, p);
  EXPECT_EQ(p.arenaBytes, 128u + 256u + 64u);
}

TEST(Planner, BestFitFillsGap) {
  // A big tensor freed early leaves a gap a later small one fits in.
  std::vector<BufferRequest> r = {{4096, 0, 1}, {4096, 0, 9}, {1024, 2, 9}};
  ArenaPlan p;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  expectNoLiveOverlap(r, p);
  EXPECT_EQ(p.arenaBytes, 8192u);
}

TEST(Planner, EmptyAndZeroSized) {
  ArenaPlan p;
  ASSERT_TRUE(planArena({}, 64, &p).isOk());
  EXPECT_EQ(p.arenaBytes, 0u);
  ASSERT_TRUE(planArena({{0, 0, 3}, {64, 0, 3}}, 64, &p).isOk());
  EXPECT_EQ(p.arenaBytes, 64u);
}

TEST(Planner, RandomGraphsKeepInvariant) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    int n = 1 + rng() % 40;
    std::vector<BufferRequest> r(n);
    uint64_t sum = 0;
    for (auto &q : r) {
      q.bytes = rng() % 5000;
      q.firstUse = rng() % 30;
      q.lastUse = q.firstUse + rng() % 10;
      sum += (q.bytes + 63) / 64 * 64;
    }
    ArenaPlan p;
    ASSERT_TRUE(planArena(r, 64, &p).isOk());
    expectNoLiveOverlap(r, p);
    EXPECT_LE(p.arenaBytes, sum);
  }
}

// The greedy-by-size rule written the direct way, comparing each candidate
// with every placed tensor: the indexed planner must give the same offsets.
ArenaPlan referencePlan(const std::vector<BufferRequest> &r, uint64_t alignment) {
  const size_t n = r.size();
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = (r[i].bytes + alignment - 1) / alignment * alignment;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : r[a].firstUse < r[b].firstUse;
  });
  ArenaPlan p;
  p.offsets.assign(n, 0);
  std::vector<size_t> placed;
  for (size_t c : order) {
    if (!sizes[c]) continue;
    std::vector<size_t> live;
    for (size_t q : placed)
      if (r[q].firstUse <= r[c].lastUse && r[c].firstUse <= r[q].lastUse) live.push_back(q);
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return p.offsets[a] < p.offsets[b]; });
    uint64_t best = ~uint64_t(0), bestGap = best, cursor = 0;
    for (size_t q : live) {
      if (p.offsets[q] > cursor && p.offsets[q] - cursor >= sizes[c] && p.offsets[q] - cursor < bestGap) {
        best = cursor;
        bestGap = p.offsets[q] - cursor;
      }
      cursor = std::max(cursor, p.offsets[q] + sizes[q]);
    }
    if (best == ~uint64_t(0)) best = cursor;
    p.offsets[c] = best;
    p.arenaBytes = std::max(p.arenaBytes, best + sizes[c]);
    placed.push_back(c);
  }
  return p;
}

TEST(Planner, IndexedPlanEqualsDirectGreedy) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    int n = 1 + rng() % 400;
    std::vector<BufferRequest> r(n);
    for (auto &q : r) {
      q.bytes = (rng() % 4 == 0) ? 0 : rng() % 20000;
      q.firstUse = rng() % 300;
      q.lastUse = q.firstUse + (rng() % 8 == 0 ? rng() % 300 : rng() % 6);
    }
    ArenaPlan p;
    ASSERT_TRUE(planArena(r, 64, &p).isOk());
    ArenaPlan want = referencePlan(r, 64);
    EXPECT_EQ(p.offsets, want.offsets) << "trial " << trial;
    EXPECT_EQ(p.arenaBytes, want.arenaBytes) << "trial " << trial;
  }
}

// A 200k-node chain with one tensor alive throughout (a graph input's
// reader at the end): planning must stay near-linear. The direct greedy rule
// took seconds at this size; ctest's timeout catches a regression.
TEST(Planner, LongChainPlansQuickly) {
  const int64_t n = 200000;
  std::vector<BufferRequest> r;
  r.reserve(n + 1);
  for (int64_t i = 0; i < n; ++i) r.push_back({4096, i, i + 1});
  r.push_back({64, 0, n});
  ArenaPlan p;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  EXPECT_EQ(p.arenaBytes, 2 * 4096u + 64u);
  for (int64_t i = 0; i + 1 < n; ++i) EXPECT_NE(p.offsets[i], p.offsets[i + 1]);
}

TEST(Planner, HugeRequestFailsCleanly) {
  ArenaPlan p;
  Status s = planArena({{~uint64_t(0) - 3, 0, 1}}, 64, &p);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  s = planArena({{uint64_t(1) << 62, 0, 1}, {uint64_t(1) << 62, 0, 1}, {uint64_t(1) << 62, 0, 1}}, 64, &p);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
}

TEST(Planner, InPlaceTakesOverATensorThatDiesThere) {
  // A residual block: r (made at 0, read at 1 and 2), h = f(r) (read at 2),
  // y = conv(h) + r at 2, written over r; y read at 3.
  std::vector<BufferRequest> r = {{1000, 0, 2}, {1000, 1, 2}, {1000, 2, 3, 0}};
  ArenaPlan p;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  expectNoLiveOverlap(r, p, /*inPlace=*/true);
  EXPECT_EQ(p.offsets[2], p.offsets[0]);
  EXPECT_EQ(p.arenaBytes, 2 * 1024u);  // three slots without it
  r[2].placedIn = -1;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  EXPECT_EQ(p.arenaBytes, 3 * 1024u);
}

TEST(Planner, InPlaceRefusedWhereUnsafe) {
  struct Case {
    const char *why;
    std::vector<BufferRequest> r;
  };
  const Case cases[] = {
      {"read after the node", {{1000, 0, 3}, {1000, 2, 4, 0}}},
      {"made by the same node", {{1000, 2, 2}, {1000, 2, 4, 0}}},
      {"smaller than the output", {{512, 0, 2}, {1000, 2, 4, 0}}},
      {"an empty output", {{1000, 0, 2}, {0, 2, 4, 0}}},
      {"itself", {{1000, 0, 2}, {1000, 2, 4, 1}}},
      {"no such request", {{1000, 0, 2}, {1000, 2, 4, 7}}},
  };
  for (const Case &c : cases) {
    ArenaPlan p;
    ASSERT_TRUE(planArena(c.r, 64, &p).isOk()) << c.why;
    expectNoLiveOverlap(c.r, p);
    if (c.r[1].bytes) EXPECT_NE(p.offsets[0], p.offsets[1]) << c.why;
  }
}

TEST(Planner, InPlaceOneTakerPerTensorAndChains) {
  // Two requests name r0 (both made at 2): the first in request order wins.
  std::vector<BufferRequest> r = {{1000, 0, 2}, {1000, 2, 5, 0}, {1000, 2, 5, 0}};
  ArenaPlan p;
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  expectNoLiveOverlap(r, p, /*inPlace=*/true);
  EXPECT_EQ(p.offsets[1], p.offsets[0]);
  EXPECT_NE(p.offsets[2], p.offsets[0]);
  // ResNet's identity blocks: each join written over the one before, one
  // slot for the chain, live from the first to the last.
  r = {{2048, 0, 2}, {1024, 1, 2}, {2048, 2, 4, 0}, {1024, 3, 4}, {2048, 4, 6, 2}, {4096, 5, 6}};
  ASSERT_TRUE(planArena(r, 64, &p).isOk());
  expectNoLiveOverlap(r, p, /*inPlace=*/true);
  EXPECT_EQ(p.offsets[2], p.offsets[0]);
  EXPECT_EQ(p.offsets[4], p.offsets[0]);
  EXPECT_EQ(p.arenaBytes, 4096u + 2048u);
}

TEST(Planner, InPlaceRandomGraphsKeepInvariant) {
  std::mt19937 rng(11);
  int takenOver = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int n = 2 + rng() % 40;
    std::vector<BufferRequest> r(n);
    for (auto &q : r) {
      q.bytes = (rng() % 8 == 0) ? 0 : rng() % 5000;
      q.firstUse = rng() % 30;
      q.lastUse = q.firstUse + rng() % 6;
    }
    // Hints to any request, safe or not (the planner keeps the unsafe
    // apart), half of them to one that dies where the hinting one is made.
    for (auto &q : r) {
      if (rng() % 2) q.placedIn = int64_t(rng() % (n + 1)) - (rng() % 4 == 0 ? int64_t(n) : 0);
      if (rng() % 2)
        for (int k = 0; k < n; ++k)
          if (r[size_t(k)].lastUse == q.firstUse && r[size_t(k)].firstUse < q.firstUse) q.placedIn = k;
    }
    ArenaPlan p;
    ASSERT_TRUE(planArena(r, 64, &p).isOk());
    expectNoLiveOverlap(r, p, /*inPlace=*/true);
    for (size_t i = 0; i < r.size(); ++i) {
      const int64_t k = r[i].placedIn;
      if (k < 0 || k >= n || r[i].bytes == 0 || p.offsets[size_t(k)] != p.offsets[i] || size_t(k) == i) continue;
      const BufferRequest &a = r[size_t(k)];
      if (a.bytes == 0 || a.lastUse < r[i].firstUse || r[i].lastUse < a.firstUse) continue;  // apart in time
      if (a.placedIn == int64_t(i) && r[i].lastUse == a.firstUse) continue;  // k took over i: checked from k
      // Taken over: the tensor dies where this one is made, and is no smaller.
      EXPECT_EQ(r[size_t(k)].lastUse, r[i].firstUse);
      EXPECT_LT(r[size_t(k)].firstUse, r[i].firstUse);
      EXPECT_GE((r[size_t(k)].bytes + 63) / 64, (r[i].bytes + 63) / 64);
      ++takenOver;
    }
  }
  EXPECT_GT(takenOver, 100);  // the safe hints among the random ones were honoured
}

}  // namespace
}  // namespace webnn::rt

// The executor's plan (ExecutionPlan.cpp): a quantizedConv2d's output goes
// over its residual (input 8) only where that residual dies at the node, is
// an intermediate, and is no other operand of it.
namespace webnn::test {
namespace {

struct Join {
  int32_t residual = 1, convInput = 2;  // tensor indices
  bool laterReader = false;             // one more relu of r after the conv
  bool residualIsOutput = false;
  DataType yType = DataType::kUint8;
  bool fused = false;  // fusedConv2d (residual input 3, float32) instead
};

// x (input) -> relu -> r -> relu -> h; y = quantizedConv2d(h, ..., residual
// r) -> relu -> z (output), with one thing changed by `j`.
Status planJoin(const std::string &tag, const Join &j, std::shared_ptr<rt::PreparedGraph> *p) {
  TGraph g;
  const DataType t = j.fused ? DataType::kFloat32 : DataType::kUint8;
  g.tensors = {{"x", t, {1, 4, 4, 64}}, {"r", t, {1, 4, 4, 64}}, {"h", t, {1, 4, 4, 64}},
               {"y", j.yType, {1, 4, 4, 64}}, {"z", j.yType, {1, 4, 4, 64}}};
  std::vector<int32_t> in(j.fused ? 4 : 13, -1);
  in[0] = j.convInput;
  in[j.fused ? 3 : 8] = j.residual;
  g.nodes = {{"relu", {0}, {1}}, {"relu", {1}, {2}}, {j.fused ? "fusedConv2d" : "quantizedConv2d", in, {3}, "join"},
             {"relu", {3}, {4}}};
  g.inputs = {0};
  g.outputs = {4};
  if (j.laterReader) {
    g.tensors.push_back({"w", t, {1, 4, 4, 64}});
    g.nodes.push_back({"relu", {1}, {5}});
    g.outputs.push_back(5);
  }
  if (j.residualIsOutput) g.outputs.push_back(1);
  rt::LoadedGraph lg;
  std::string path = tempDir(tag) + "/p.wnn";
  writeFile(path, buildArtifact(g).artifact);
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, {}, &lg));
  return rt::prepareGraph(std::move(lg), p);
}

// The join planned with y in bytes of its own: the residual cannot be given.
void expectResidualKept(const char *tag, const Join &j) {
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = planJoin(tag, j, &p);
  ASSERT_TRUE(s.isOk()) << tag << ": " << s.message();
  EXPECT_NE(p->arenaOffset[3], rt::kNotInArena) << tag;
  EXPECT_NE(p->arenaOffset[3], p->arenaOffset[size_t(j.residual)]) << tag;
  EXPECT_EQ(p->planText.find(" over '"), std::string::npos) << tag << ": " << p->planText;
  EXPECT_EQ(p->outputOverInput[2], -1) << tag;
  EXPECT_EQ(p->nodes[2].outputOverInput, -1) << tag;
}

TEST(Planner, QuantizedConv2dWritesOverADyingResidual) {
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = planJoin("join_dies", Join{}, &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(p->arenaOffset[3], p->arenaOffset[1]);
  EXPECT_NE(p->planText.find("'y' uint8 [1,4,4,64] over 'r'"), std::string::npos) << p->planText;
  EXPECT_EQ(p->outputOverInput, (std::vector<int32_t>{-1, -1, 8, -1}));  // what the executor checks its kernel for
}

TEST(Planner, QuantizedConv2dKeepsAResidualItCannotTake) {
  struct Case {
    const char *tag;
    Join j;
  };
  Join later, self, input, output, type;
  later.laterReader = true;      // r read again after the conv
  self.convInput = 1;            // r is the conv's input too (read at every filter tap)
  input.residual = 0;            // a graph input: not the arena's to give
  output.residualIsOutput = true;  // a graph output: must survive the run
  type.yType = DataType::kInt8;  // another type
  for (const Case &c : {Case{"join_later", later}, Case{"join_self", self}, Case{"join_input", input},
                        Case{"join_output", output}, Case{"join_type", type}}) {
    expectResidualKept(c.tag, c.j);
  }
}

// fusedConv2d likewise over its residual (input 3): ORT's Conv + Sum; every
// CPU kernel that runs one reads each residual element before writing it.
TEST(Planner, FusedConv2dWritesOverADyingResidual) {
  Join j;
  j.fused = true, j.yType = DataType::kFloat32;
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = planJoin("fused_join_dies", j, &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(p->arenaOffset[3], p->arenaOffset[1]);
  EXPECT_NE(p->planText.find("'y' float32 [1,4,4,64] over 'r'"), std::string::npos) << p->planText;
  EXPECT_EQ(p->outputOverInput, (std::vector<int32_t>{-1, -1, 3, -1}));
  EXPECT_EQ(p->nodes[2].outputOverInput, 3);  // what the kernel factory sees
}

TEST(Planner, FusedConv2dKeepsAResidualItCannotTake) {
  struct Case {
    const char *tag;
    Join j;
  };
  Join later, self, input, output, type;
  for (Join *j : {&later, &self, &input, &output, &type}) j->fused = true, j->yType = DataType::kFloat32;
  later.laterReader = true;        // r read again after the conv
  self.convInput = 1;              // r is the conv's input too
  input.residual = 0;              // a graph input: not the arena's to give
  output.residualIsOutput = true;  // a graph output: must survive the run
  type.yType = DataType::kFloat16;  // another type (and size)
  for (const Case &c : {Case{"fused_later", later}, Case{"fused_self", self}, Case{"fused_input", input},
                        Case{"fused_output", output}, Case{"fused_type", type}}) {
    expectResidualKept(c.tag, c.j);
  }
}

}  // namespace
}  // namespace webnn::test

// A reshape's output goes over its input where that input dies at the
// reshape and is an intermediate: the same bytes in the same order.
namespace webnn::test {
namespace {

TEST(Planner, ReshapeTakesOverADyingInput) {
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = writeAndPrepare(reshapeChainGraph(false, "relu"), "reshape_dies", &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(p->arenaOffset[2], p->arenaOffset[1]);
  EXPECT_NE(p->planText.find("'s' float32 [3,4] over 'r'"), std::string::npos) << p->planText;
  EXPECT_EQ(p->outputOverInput, (std::vector<int32_t>{-1, 0, -1}));

  s = writeAndPrepare(reshapeChainGraph(true, "relu"), "reshape_read_later", &p);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_NE(p->arenaOffset[2], p->arenaOffset[1]);
  EXPECT_EQ(p->planText.find(" over '"), std::string::npos) << p->planText;
  EXPECT_EQ(p->outputOverInput[1], -1);
}

}  // namespace
}  // namespace webnn::test

// Concat elimination (ConcatViewPlan): which concat inputs the plan places
// inside the concat's output, and where.
namespace webnn::test {
namespace {

std::shared_ptr<const rt::ConcatViewPlan> concatViews(const ConcatSlice &k, const std::string &tag) {
  std::shared_ptr<rt::PreparedGraph> p;
  Status s = writeAndPrepare(concatSliceGraph(k), tag, &p);
  EXPECT_TRUE(s.isOk()) << tag << ": " << s.message();
  return p ? p->concatViews : nullptr;
}

// Tensor t lies in root at `byte`, rows `pitch` elements apart.
void expectPlaced(const rt::ConcatViewPlan &v, size_t t, size_t root, uint64_t byte, int64_t pitch,
                  const std::string &tag) {
  ASSERT_NE(v.arenaOffset[root], rt::kNotInArena) << tag;
  EXPECT_EQ(v.arenaOffset[t], v.arenaOffset[root] + byte) << tag << ": tensor " << t;
  EXPECT_EQ(v.rowPitch[t], pitch) << tag << ": tensor " << t;
}

TEST(Planner, ConcatInputsLiveInTheirSlices) {
  // Pools write their slice themselves: both placed.
  ConcatSlice pools;
  pools.aBy = "maxPool2d";
  auto v = concatViews(pools, "concat_views");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->views, 2u);
  expectPlaced(*v, 2, 4, 0, 32, "a");       // a: channels [0, 16) of y's 32
  expectPlaced(*v, 3, 4, 16 * 4, 32, "p");  // p: channels [16, 32)
  EXPECT_EQ(v->rowPitch[4], 0);             // y itself is dense
  EXPECT_NE(v->planText.find("'a' [1,6,5,16] in 'y' at byte 0, rows 32 elements apart"), std::string::npos)
      << v->planText;

  // A reader that reads strided rows (batchNormalization) keeps a placed.
  pools.bnReadsA = true;
  v = concatViews(pools, "concat_bn_reader");
  ASSERT_TRUE(v);
  expectPlaced(*v, 2, 4, 0, 32, "bn reader");

  // A conv's output read by one concat is placed too: the CPU's conv
  // kernels write the slice (oneDNN's through its destination reorder,
  // others through the backend's copy, which replaces the concat's).
  v = concatViews({}, "concat_conv_one_reader");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->views, 2u);
  expectPlaced(*v, 2, 4, 0, 32, "a conv's output");
  expectPlaced(*v, 3, 4, 16 * 4, 32, "p beside a conv");

  // One row (a 1x1 image; nchw at batch 1 alike): each slice is a dense
  // block the conv writes in place, so it is placed for one concat too.
  ConcatSlice pixel;
  pixel.height = pixel.width = 1;
  v = concatViews(pixel, "concat_one_row");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->views, 2u);
  expectPlaced(*v, 2, 4, 0, 0, "a, one row");
  expectPlaced(*v, 3, 4, 16 * 4, 0, "p, one row");
}

TEST(Planner, ConcatInputsThatKeepTheirOwnBytes) {
  struct Case {
    const char *tag;
    ConcatSlice k;
  };
  ConcatSlice relu, twice, output, producer;
  relu.reluReadsA = true;   // a reader that needs a dense a
  twice.order = "apa";      // a in two slices: it can live in one
  output.aIsOutput = true;  // the caller reads a dense a
  producer.aBy = "relu";    // made by an op whose kernels write no slice
  for (ConcatSlice *k : {&relu, &twice, &output})
    k->aBy = "maxPool2d";  // else placed (pools write their slices)
  for (const Case &c : {Case{"concat_relu_reader", relu}, Case{"concat_twice", twice},
                        Case{"concat_a_output", output}, Case{"concat_relu_producer", producer}}) {
    auto v = concatViews(c.k, c.tag);
    ASSERT_TRUE(v) << c.tag;
    EXPECT_EQ(v->views, 1u) << c.tag;  // p only
    EXPECT_EQ(v->rowPitch[2], 0) << c.tag;
    EXPECT_EQ(v->planText.find("'a' "), std::string::npos) << c.tag << ": " << v->planText;
    EXPECT_NE(v->rowPitch[3], 0) << c.tag;
  }
  // A graph input is not the arena's to place: a and p are, x is copied.
  ConcatSlice input;
  input.aBy = "maxPool2d";
  input.order = "apx";
  auto v = concatViews(input, "concat_graph_input");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->views, 2u);
  EXPECT_EQ(v->arenaOffset[0], rt::kNotInArena);
  // A slice off the 64-byte grid (a of 20 channels: p at byte 80) is not
  // placed, so kernels keep their aligned rows; nor anything, as y's rows
  // of 36 floats are off it too.
  ConcatSlice odd;
  odd.aChannels = 20;
  std::shared_ptr<rt::PreparedGraph> p;
  ASSERT_TRUE(writeAndPrepare(concatSliceGraph(odd), "concat_unaligned", &p).isOk());
  EXPECT_FALSE(p->concatViews);
}

// DenseNet's concats: an earlier concat of a later one's first inputs is a
// view of that one's first channels, so neither copies (the conv's output,
// read by both, is placed: written once instead of copied twice).
TEST(Planner, EarlierConcatOfTheSameInputsIsAView) {
  ConcatSlice wider;
  wider.widerConcat = true;
  auto v = concatViews(wider, "concat_prefix");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->views, 4u);                 // a, p, q and y in y2
  expectPlaced(*v, 2, 9, 0, 48, "a");      // y2: a 16, p 16, q 16 channels
  expectPlaced(*v, 3, 9, 64, 48, "p");
  expectPlaced(*v, 8, 9, 128, 48, "q");
  expectPlaced(*v, 4, 9, 0, 48, "y");      // y = y2's first 32 channels
  // The plain plan, for sessions that cannot use views, is untouched: y is
  // its own tensor there, written while a and p are live.
  std::shared_ptr<rt::PreparedGraph> p;
  ASSERT_TRUE(writeAndPrepare(concatSliceGraph(wider), "concat_prefix_plain", &p).isOk());
  EXPECT_NE(p->arenaOffset[4], p->arenaOffset[2]);
  EXPECT_NE(p->arenaOffset[4], p->arenaOffset[3]);
}

}  // namespace
}  // namespace webnn::test
