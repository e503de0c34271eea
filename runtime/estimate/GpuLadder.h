// How far `webnn-run calibrate --device gpu` grows a probe: a ladder of ever
// larger cases of one kernel (a copy, a matmul, a family's node), measured
// until its efficiency (roofline time / measured time) stops improving, so
// that the same calibration fills lavapipe on two CPU threads and a GPU of
// a hundred multiprocessors without being told which it is. Each step is
// also stopped by a time cap per probe, a cap on a step's tensor bytes, and
// a dispatch long enough to fill any device. No Vulkan here: the caller
// measures, the ladder decides (GpuLadderTest drives it with a fake timer).
#ifndef WEBNN_RUNTIME_ESTIMATE_GPULADDER_H
#define WEBNN_RUNTIME_ESTIMATE_GPULADDER_H

#include <cstdint>
#include <string>

namespace webnn::est {

struct LadderLimits {
  // A step improves on the best when its efficiency is at least this much
  // higher; `patience` steps in a row that do not end the ladder (the device
  // is full, or on a CPU device the data left a cache). Every step stays a
  // grid point, those past the best too.
  double improvement = 0.10;
  int patience = 2;
  // Wall time for the whole ladder; a step is not started when the last
  // one's time times `growth` would pass it.
  double probeSeconds = 1.5;
  // Work per step grows about this much (the caller's sizes).
  double growth = 4;
  // What the first step is expected to take (the caller's guess, from
  // similar cases it measured): it is not started past the deadline.
  double firstStepSeconds = 0;
  // A dispatch this long keeps any device busy past its fill-up: larger
  // steps can only cost time.
  double longEnoughMs = 10;
  uint64_t maxStepBytes = uint64_t(256) << 20;  // the largest tensor a step may allocate
  int maxSteps = 8;
};

enum class LadderStop { kRunning, kPlateau, kWorse, kTimeCap, kLongEnough, kMemory, kMaxSteps, kDeadline, kFailed };
const char *ladderStopName(LadderStop s);

struct LadderStep {
  double efficiency = 0;  // roofline / time, higher is better; <= 0: not measured reliably
  double dispatchMs = 0;  // the step's dispatch time
  double seconds = 0;     // wall time the step's measurement took
};

class Ladder {
 public:
  explicit Ladder(LadderLimits limits) : limits_(limits) {}
  // Whether the next step (whose largest tensor is `stepBytes`) is to be
  // measured with `secondsLeft` of the calibration's deadline; false ends
  // the ladder and sets stop().
  bool next(uint64_t stepBytes, double secondsLeft);
  void record(const LadderStep &s);
  // Ends the ladder on a step that could not be built or run.
  void fail() { stop_ = LadderStop::kFailed; }

  bool done() const { return stop_ != LadderStop::kRunning; }
  LadderStop stop() const { return stop_; }
  int steps() const { return steps_; }
  int bestStep() const { return best_; }  // -1 before a reliable step
  double bestEfficiency() const { return bestEfficiency_; }
  double seconds() const { return seconds_; }

 private:
  LadderLimits limits_;
  LadderStop stop_ = LadderStop::kRunning;
  int steps_ = 0, best_ = -1, stalls_ = 0;
  double bestEfficiency_ = 0, seconds_ = 0, lastSeconds_ = 0;
};

}  // namespace webnn::est

#endif
