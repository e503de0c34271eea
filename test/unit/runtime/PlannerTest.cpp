#include <gtest/gtest.h>

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

TEST(Planner, HugeRequestFailsCleanly) {
  ArenaPlan p;
  Status s = planArena({{~uint64_t(0) - 3, 0, 1}}, 64, &p);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  s = planArena({{uint64_t(1) << 62, 0, 1}, {uint64_t(1) << 62, 0, 1}, {uint64_t(1) << 62, 0, 1}}, 64, &p);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
}

}  // namespace
}  // namespace webnn::rt
