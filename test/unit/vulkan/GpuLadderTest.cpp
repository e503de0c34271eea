// How far GPU calibration grows a probe (estimate/GpuLadder.h), driven by a
// fake device whose efficiency saturates at a chosen size: the ladder must
// find the plateau whatever the device's size and stop within its caps.
#include "estimate/GpuLadder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>

namespace webnn::est {
namespace {

// A fake timed device: a dispatch takes a fixed latency plus its work at
// the device's full rate, so efficiency (roofline / time) rises with the
// work and flattens once the latency is paid for: half full at `halfAt`
// work units (a bigger device needs more work to fill). Past `cacheAt`
// each step is `after` times as efficient (< 1: a CPU device whose data
// leaves a cache). A measurement takes `overhead` seconds plus `runs`
// dispatches.
struct FakeDevice {
  double halfAt = 64;
  double rate = 1000;  // work units per ms when full
  double cacheAt = 1e300, after = 1.0;
  double overhead = 0.02;
  double runs = 20;
  uint64_t bytesPerWork = 1024;

  LadderStep measure(double work) const {
    LadderStep s;
    const double latencyMs = halfAt / rate;
    s.dispatchMs = latencyMs + work / rate;
    s.efficiency = (work / rate) / s.dispatchMs;
    if (work > cacheAt) s.efficiency *= std::pow(after, std::log(work / cacheAt) / std::log(4.0));
    s.seconds = overhead + runs * s.dispatchMs / 1000;
    return s;
  }
};

struct Climb {
  Ladder ladder;
  int steps = 0;
  double seconds = 0;
  double bestWork = 0;
};

// Steps of work base * 4^k until the ladder says stop.
Climb climb(const FakeDevice &d, LadderLimits limits, double base = 1, double secondsLeft = 1e9,
          const std::function<LadderStep(int, LadderStep)> &disturb = nullptr) {
  Climb r{Ladder(limits)};
  for (int k = 0;; ++k) {
    const double work = base * std::pow(4.0, k);
    if (!r.ladder.next(uint64_t(work) * d.bytesPerWork, secondsLeft - r.seconds)) break;
    LadderStep s = d.measure(work);
    if (disturb) s = disturb(k, s);
    r.ladder.record(s);
    r.seconds += s.seconds;
    ++r.steps;
  }
  if (r.ladder.bestStep() >= 0) r.bestWork = base * std::pow(4.0, r.ladder.bestStep());
  return r;
}

LadderLimits generous() {
  LadderLimits l;
  l.maxSteps = 16;
  l.probeSeconds = 1e9;
  l.longEnoughMs = 1e9;
  l.maxStepBytes = uint64_t(1) << 60;
  return l;
}

TEST(GpuLadder, FindsThePlateauWhateverTheDeviceSize) {
  // From a device full at the first step (lavapipe on two threads) to one
  // that needs 4^8 times more work (a GPU of a hundred multiprocessors).
  for (int halfStep = -2; halfStep <= 8; ++halfStep) {
    FakeDevice d;
    d.halfAt = std::pow(4.0, halfStep);
    Climb r = climb(d, generous());
    SCOPED_TRACE("device half full at step " + std::to_string(halfStep));
    EXPECT_EQ(r.ladder.stop(), LadderStop::kPlateau);
    // Stopped near full (a 4x step gains < 10% past 88%), within two steps
    // of where a step stops gaining 10% (patience).
    EXPECT_GE(r.ladder.bestEfficiency(), 0.85);
    const int firstFlat = std::max(0, halfStep + 2);  // 4^2 x halfAt: 94% full
    EXPECT_LE(r.steps, firstFlat + 3);
    EXPECT_GE(r.steps, 2);
  }
}

TEST(GpuLadder, NoisyPlateauStopsAndKeepsTheBestPoint) {
  FakeDevice d;
  d.halfAt = 1e-3;  // full from the first step
  // +-4% noise: within the 10% margin, so not growth.
  Climb r = climb(d, generous(), 1, 1000, [](int k, LadderStep s) {
    s.efficiency *= k % 2 ? 1.04 : 0.96;
    return s;
  });
  EXPECT_EQ(r.ladder.stop(), LadderStop::kPlateau);
  EXPECT_EQ(r.steps, 3);
  EXPECT_EQ(r.ladder.bestStep(), 1);  // the noisy high of the plateau
}

TEST(GpuLadder, CacheDeviceStopsWhenItGetsWorse) {
  FakeDevice d;
  d.halfAt = 1e-3;
  d.cacheAt = 4;
  d.after = 0.6;  // each step past work 4 is 40% worse (data out of cache)
  Climb r = climb(d, generous());
  EXPECT_EQ(r.ladder.stop(), LadderStop::kWorse);
  EXPECT_EQ(r.ladder.bestStep(), 1);
  EXPECT_EQ(r.steps, 3);
}

TEST(GpuLadder, TimeCapBoundsAProbeThatNeverSaturates) {
  FakeDevice d;
  d.rate = 10;
  LadderLimits l = generous();
  l.probeSeconds = 1.5;
  // Twice as efficient every step, forever: only the time cap stops it.
  Climb r = climb(d, l, 1, 1e9, [](int k, LadderStep s) {
    s.efficiency = 1e-3 * std::pow(2.0, k);
    return s;
  });
  EXPECT_EQ(r.ladder.stop(), LadderStop::kTimeCap);
  EXPECT_LE(r.seconds, l.probeSeconds);
  EXPECT_EQ(r.steps, 4);
  EXPECT_DOUBLE_EQ(r.ladder.seconds(), r.seconds);
}

TEST(GpuLadder, FirstStepIsTakenEvenWhenItAloneExceedsTheCap) {
  FakeDevice d;
  d.overhead = 3;  // a slow device: one step already past the cap
  LadderLimits l = generous();
  l.probeSeconds = 1;
  Climb r = climb(d, l);
  EXPECT_EQ(r.steps, 1);
  EXPECT_EQ(r.ladder.stop(), LadderStop::kTimeCap);
  EXPECT_EQ(r.ladder.bestStep(), 0);
}

TEST(GpuLadder, DeadlineStopsBeforeAStepThatWouldPassIt) {
  FakeDevice d;
  d.overhead = 0.5;
  LadderLimits l = generous();
  l.firstStepSeconds = 0.5;
  // 0.4 s left: not even the first step.
  Climb none = climb(d, l, 1, 0.4);
  EXPECT_EQ(none.steps, 0);
  EXPECT_EQ(none.ladder.stop(), LadderStop::kDeadline);
  EXPECT_EQ(none.ladder.bestStep(), -1);
  // 3 s left: steps while the next one's expected time (the last x growth) fits.
  Climb some = climb(d, l, 1, 3);
  EXPECT_EQ(some.ladder.stop(), LadderStop::kDeadline);
  EXPECT_LE(some.seconds, 3);
  EXPECT_EQ(some.steps, 2);
}

TEST(GpuLadder, MemoryAndLongDispatchCaps) {
  FakeDevice d;
  LadderLimits l = generous();
  l.maxStepBytes = 64 * d.bytesPerWork;  // work 64 is the largest step allowed
  Climb mem = climb(d, l);
  EXPECT_EQ(mem.ladder.stop(), LadderStop::kMemory);
  EXPECT_EQ(mem.steps, 4);  // work 1, 4, 16, 64

  l = generous();
  l.longEnoughMs = 10;
  d.rate = 1;
  d.halfAt = 1;  // dispatches of 2, 5, 17 ms: the third is long enough
  Climb longer = climb(d, l);
  EXPECT_EQ(longer.ladder.stop(), LadderStop::kLongEnough);
  EXPECT_EQ(longer.steps, 3);
}

TEST(GpuLadder, UnreliableStepsCountAsStallsAndFailureEnds) {
  FakeDevice d;
  Climb r = climb(d, generous(), 1, 1e9, [](int k, LadderStep s) {
    if (k >= 2) s.efficiency = 0;  // not measured reliably
    return s;
  });
  EXPECT_EQ(r.steps, 4);
  EXPECT_EQ(r.ladder.bestStep(), 1);
  EXPECT_EQ(r.ladder.stop(), LadderStop::kPlateau);

  Ladder l(generous());
  ASSERT_TRUE(l.next(1, 10));
  l.fail();
  EXPECT_TRUE(l.done());
  EXPECT_EQ(l.stop(), LadderStop::kFailed);
  EXPECT_FALSE(l.next(1, 10));
  EXPECT_STREQ(ladderStopName(l.stop()), "failed");
}

TEST(GpuLadder, StepCap) {
  FakeDevice d;
  LadderLimits l = generous();
  l.maxSteps = 5;
  Climb r = climb(d, l);
  EXPECT_EQ(r.steps, 5);
  EXPECT_EQ(r.ladder.stop(), LadderStop::kMaxSteps);
}

}  // namespace
}  // namespace webnn::est
