#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/MemoryPlanner.h"

namespace webnn::rt {
namespace {

// The invariant that matters: tensors alive at the same time never share bytes.
void expectNoLiveOverlap(const std::vector<BufferRequest> &r, const ArenaPlan &p) {
  for (size_t a = 0; a < r.size(); ++a) {
    EXPECT_EQ(p.offsets[a] % 64, 0u);
    EXPECT_LE(p.offsets[a] + r[a].bytes, p.arenaBytes);
    for (size_t b = a + 1; b < r.size(); ++b) {
      bool live = r[a].firstUse <= r[b].lastUse && r[b].firstUse <= r[a].lastUse;
      bool mem = r[a].bytes && r[b].bytes && p.offsets[a] < p.offsets[b] + r[b].bytes &&
                 p.offsets[b] < p.offsets[a] + r[a].bytes;
      EXPECT_FALSE(live && mem) << "requests " << a << " and " << b;
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

}  // namespace
}  // namespace webnn::rt
