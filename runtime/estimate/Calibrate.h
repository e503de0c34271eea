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
// family's later ones), in passes (gridVisitOrder); `complete` says whether
// the first pass finished (every point timed at least once).
Status calibrate(const CalibrateOptions &options, DeviceProfile *out);

// The L3 a process keeps, from a sweep of (working-set bytes, one thread's
// read GB/s) in increasing sizes: the last size before the rate first falls
// below the geometric middle of the L3's (the smallest sizes) and DRAM's
// (the largest); the reported size where the rate does not fall by 1.5x,
// and never more than it.
uint64_t effectiveL3FromSweep(const std::vector<std::pair<uint64_t, double>> &sweep, uint64_t reportedL3);

// Cache `level`'s size in bytes (1: the L1 data cache) from sysfs's
// `sysfsCpuDir`/cache, else from the C library (CPUID); 0 where neither says.
uint64_t cacheBytes(int level, const std::string &sysfsCpuDir = "/sys/devices/system/cpu/cpu0");

// ---- The grid's schedule (exposed for its tests).
//
// On a host whose speed moves within seconds (a VM whose cores other
// tenants share), one stretch of runs prices a kernel at the moment it
// was timed (docs/ESTIMATE.md has the figures). So
// each grid point is timed in several short visits, one per pass over the
// whole grid, and keeps a robust statistic of them: a slow spell lands on
// one visit of each point it overlaps, not on all the runs of a stretch of
// the grid.
constexpr int kGridPasses = 3;

// One visit: family `family`'s `index`-th size on `threads`, in pass `pass`.
struct GridVisit {
  size_t family = 0, index = 0;
  int threads = 1;
  int pass = 0;
};
// The order the grid is timed in: `passes` passes, each over every point in
// the same order, breadth first (every family's i-th size before any
// family's (i+1)-th; every thread count of a point in a row), so that the
// visits of a point lie a whole pass apart and a deadline that cuts the
// grid leaves every point with the same number of visits, give or take one.
std::vector<GridVisit> gridVisitOrder(const std::vector<size_t> &familySizes, int maxThreads, int passes);
// A point's time from its visits' times: the median; for an even count the
// geometric mean of the middle two (two visits count alike). 0 for none.
double combineVisits(std::vector<double> visitMs);
// Cold runs (weights and caller buffers evicted from the L3 before each)
// of a kernel that reads weights, in a visit of pass `pass` of `passes`:
// two in every pass (three in the one pass of a short deadline). A 2-thread
// cold run is one wall-clock run: a moment without the second core doubles
// it, and with three runs in all (two in one visit, kept at the slower)
// one such run moved a transformer's 2-thread price by a third.
int coldRunsPerVisit(int pass, int passes);
// A point's cold time from its visits' cold runs (`visitRunsMs`, each
// visit's scaled by `visitScales`, 1 where missing): the median of all the
// runs pooled (for an even count the geometric mean of the middle two), so
// that one slow run moves it by at most a neighbour's distance. 0 for none.
double pooledColdMs(const std::vector<std::vector<double>> &visitRunsMs, const std::vector<double> &visitScales);
// The mobile chain's in-graph cost per node from its rounds (each: the
// chain's run in a graph and its kernels timed alone, in ms), pooled over
// every moment it was timed at (before the grid and between its passes):
// the median of the rounds' (graph - run overhead - alone) over `nodes`,
// in us; `withinSpread` where the chain in a graph and alone differ by no
// more than its run-to-run `spread` (log), and the term is then not taken.
struct ChainRound {
  double graphMs = 0, aloneMs = 0;
};
struct InGraphTerm {
  double graphMs = 0, aloneMs = 0, perNodeUs = 0;
  bool withinSpread = false;
};
InGraphTerm inGraphNodeUs(const std::vector<ChainRound> &rounds, double runOverheadMs, int nodes, double spread);
// A thread count's peaks and rates as measured at several moments (before
// the grid, then before each of its later passes), and what the profile
// keeps of them: each the median of its measured moments (0: not
// measured; a field with none is left as it is). The host's state moves
// them all: one moment's 2-thread L2 copy rate ranged 131-399 GB/s across
// twelve calibrations of a 2-vCPU VM, and a point in the L2 is restated for
// a node past it by the L3's rate over the L2's (MobileNetV3-Large's
// 2-thread price moved 20% between those two).
struct RateMoments {
  std::vector<double> fma, vnni, bf16, dramRead, l1, l2, l3;
};
void keepMedianRates(const RateMoments &m, ThreadProfile *t);
// One visit's timing budget in seconds: the time left, less what is kept
// back for the steps after the grid and what each visit still to come
// (this one included) takes beyond its budget (`overheadSeconds`: building,
// warming up, evicting), shared among those visits, within
// [kMinVisitSeconds, kMaxVisitSeconds].
constexpr double kMinVisitSeconds = 0.004, kMaxVisitSeconds = 0.08;
double visitBudgetSeconds(double secondsLeft, double reserve, size_t visitsLeft, double overheadSeconds);
// Whether to scale every visit by the host's speed at its moment (a fixed
// reference kernel's median time over the calibration / its time at the
// visit): only when that brings the visits of a point closer together, the
// median over points of their visits' median |log(visit / point median)|
// falling by at least a fifth. `visits` holds each point's (ms, reference
// ms at that visit); points with fewer than two visits say nothing.
struct VisitDrift {
  double raw = 0, scaled = 0;  // the two medians described above
  int points = 0;              // points with two visits or more
  bool scale = false;
};
VisitDrift visitDrift(const std::vector<std::vector<std::pair<double, double>>> &visits, double referenceMedianMs);
// Of a multi-threaded point's visits (the speed reference's time at each,
// on the same thread count), those timed while the pool had its cores: the
// reference then ran at least 1.3x faster than one thread's median
// (`oneThreadReferenceMs`). On a VM whose vCPUs the host takes away for
// seconds, a 2-thread visit without its second core times a one-thread
// kernel, which is not the device's 2-thread rate. Every visit where none
// had its cores (or no reference was taken): nothing better to keep.
std::vector<size_t> visitsWithTheirCores(const std::vector<double> &referenceMs, double oneThreadReferenceMs);
// The time a multi-threaded grid point is kept at where none of its visits
// had the pool's cores (visitsWithTheirCores kept them all): the same
// point's one-thread time over the speed-up that the family's points with
// their cores showed (the median; over every family's where the family has
// fewer than 3), else `timedMs`. A calibration during which the host held
// the second vCPU for most of the grid kept hundreds of 2-thread points at
// one thread's speed and priced 2-thread runs a third high.
double pointWithoutItsCoresMs(double timedMs, double oneThreadMs, const std::vector<double> &familySpeedUps,
                              const std::vector<double> &allSpeedUps);

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

// Calibrations taken at different times as one profile (`webnn-run calibrate
// --merge`): one 30-second calibration samples the host at one moment of its
// speed, which on a shared VM moves by a quarter within minutes. Per grid
// point (a family's parameters at a thread count) the median over the
// profiles that measured it of its times (the L3, hot and cold runs:
// each profile's ratio times its own roofline, plus its node overhead),
// restated as ratios over the merged peaks and bandwidths, each of which is
// the median of the profiles' (for an even count the middle two's mean).
// With `restateSpeed`, each profile's times are first scaled to the median
// speed reference over the profiles (times median / its own; only where
// every profile recorded one): the merge then sits at the median host
// speed the calibrations saw, one moment's, where plain medians mix them.
// Refused: profiles of another CPU model, ISA, library version or thread
// count than the first (`names` label them in the message).
Status mergeProfiles(const std::vector<DeviceProfile> &profiles, const std::vector<std::string> &names,
                     DeviceProfile *out, bool restateSpeed = false);

}  // namespace webnn::est

#endif
