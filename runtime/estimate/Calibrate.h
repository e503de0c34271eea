// Device calibration for the cost model (`webnn-run calibrate`): measured
// peaks, bandwidths, thread-pool costs, and a grid of real CPU kernel runs
// per kernel family, within a wall-time deadline.
#ifndef WEBNN_RUNTIME_ESTIMATE_CALIBRATE_H
#define WEBNN_RUNTIME_ESTIMATE_CALIBRATE_H

#include <functional>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "estimate/DeviceProfile.h"
#include "webnn/status.h"

namespace webnn::est {

struct CalibrateOptions {
  int maxThreads = 1;            // measures 1 .. maxThreads threads
  double deadlineSeconds = 30;   // wall time; the grid stops early to meet it
  std::function<void(const std::string &)> progress;  // one line per step, may be empty
};

// Fills `out` (keyed for this machine and maxThreads). Stopping at the
// deadline still gives a usable profile: the peaks and bandwidths come
// first, then the grid breadth first (every family's first sizes before any
// family's later ones); `complete` says whether the grid finished.
Status calibrate(const CalibrateOptions &options, DeviceProfile *out);

// The L3 a process keeps, from a sweep of (working-set bytes, one thread's
// read GB/s) in increasing sizes: the last size before the rate first falls
// below the geometric middle of the L3's (the smallest sizes) and DRAM's
// (the largest); the reported size where the rate does not fall by 1.5x,
// and never more than it.
uint64_t effectiveL3FromSweep(const std::vector<std::pair<uint64_t, double>> &sweep, uint64_t reportedL3);

// The cost-model families the calibration grid measures on this CPU (the
// families its kernels' cost functions name, at one thread). A family not
// among them is priced on another family's grid (Estimate.cpp's fallbacks).
std::vector<std::string> calibratedFamilies();

// Warm refinement: folds a `webnn-run ART --bench N --profile --json` result
// into `profile`: each node's measured time becomes a grid point of its
// family (marked warm) at the thread count it ran with. The artifact named
// in the result is loaded (without weights) to cost its nodes. Graphs with
// dynamic dimensions are refused (the result does not record their sizes).
Status addRunResult(const std::string &runJsonPath, DeviceProfile *profile, int *pointsAdded);

}  // namespace webnn::est

#endif
