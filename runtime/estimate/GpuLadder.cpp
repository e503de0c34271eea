#include "estimate/GpuLadder.h"

namespace webnn::est {

const char *ladderStopName(LadderStop s) {
  switch (s) {
    case LadderStop::kRunning: return "running";
    case LadderStop::kPlateau: return "plateau";
    case LadderStop::kWorse: return "worse";
    case LadderStop::kTimeCap: return "time cap";
    case LadderStop::kLongEnough: return "long enough";
    case LadderStop::kMemory: return "memory cap";
    case LadderStop::kMaxSteps: return "step cap";
    case LadderStop::kDeadline: return "deadline";
    case LadderStop::kFailed: return "failed";
  }
  return "?";
}

bool Ladder::next(uint64_t stepBytes, double secondsLeft) {
  if (done()) return false;
  if (steps_ >= limits_.maxSteps) {
    stop_ = LadderStop::kMaxSteps;
    return false;
  }
  if (stepBytes > limits_.maxStepBytes) {
    stop_ = LadderStop::kMemory;
    return false;
  }
  // The next step takes about the last one's time, grown with its work;
  // the first step of a ladder is always taken while the deadline allows.
  const double expected = steps_ > 0 ? lastSeconds_ * limits_.growth : limits_.firstStepSeconds;
  if (steps_ > 0 && seconds_ + expected > limits_.probeSeconds) {
    stop_ = LadderStop::kTimeCap;
    return false;
  }
  if (expected > secondsLeft || secondsLeft <= 0) {
    stop_ = LadderStop::kDeadline;
    return false;
  }
  return true;
}

void Ladder::record(const LadderStep &s) {
  const int index = steps_++;
  seconds_ += s.seconds;
  lastSeconds_ = s.seconds;
  if (s.efficiency > 0 && s.efficiency > bestEfficiency_ * (1 + limits_.improvement)) {
    best_ = index;
    bestEfficiency_ = s.efficiency;
    stalls_ = 0;
  } else {
    // A step that is not clearly better: the device stopped filling up
    // (or, on a CPU device, the data left a cache). Keep the best point of
    // a near-tie, so a noisy plateau cannot move it.
    if (s.efficiency > bestEfficiency_) {
      best_ = index;
      bestEfficiency_ = s.efficiency;
    }
    ++stalls_;
    if (stalls_ >= limits_.patience) {
      stop_ = s.efficiency > 0 && s.efficiency * (1 + limits_.improvement) < bestEfficiency_ ? LadderStop::kWorse
                                                                                           : LadderStop::kPlateau;
      return;
    }
  }
  if (s.dispatchMs >= limits_.longEnoughMs) stop_ = LadderStop::kLongEnough;
}

}  // namespace webnn::est
