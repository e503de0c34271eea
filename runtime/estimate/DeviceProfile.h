// A device profile: what `webnn-run calibrate` measured on this machine, the
// input of the cost model (Estimate.h). Stored as JSON in the user's cache
// directory, one file per (CPU model, ISA, thread count, library version).
#ifndef WEBNN_RUNTIME_ESTIMATE_DEVICEPROFILE_H
#define WEBNN_RUNTIME_ESTIMATE_DEVICEPROFILE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "webnn/status.h"

namespace webnn::est {

// One measured kernel: the family's parameters and how far from the roofline
// it ran (ratio = (measured - node overhead) / roofline time).
struct GridPoint {
  std::vector<double> params;
  double ratio = 1;
  // The same kernel rerun with its operands left in L1/L2 (measured for
  // kernels that fit the L2; 0: not measured): a graph whose whole working
  // set fits the L2 runs its nodes that way.
  double hotRatio = 0;
  // With its weights (and a caller's KV cache) evicted from the L3 first
  // (measured for kernels reading >= 256 KB of them; 0: not measured): a
  // graph whose working set exceeds the L3 reads them from DRAM every run.
  double coldRatio = 0;
  double ms = 0;
  // What the point's kernel moves and computes (its roofline's inputs; 0 in
  // older profiles): a ratio can then be restated over another cache
  // level's bandwidth than the one its size put it on.
  double bytes = 0, flops = 0;
  bool warm = false;  // folded in from a real run (calibrate --add)
};

struct FamilyGrid {
  std::vector<GridPoint> points;
  // Leave-one-out error of the interpolation in log space (RMS), the
  // family's share of the estimate's uncertainty.
  double logSigma = 0;
};

// Everything measured with one thread count.
struct ThreadProfile {
  int threads = 1;
  double peakGflops = 0;     // float32 FMA
  double vnniGops = 0;       // int8 dot products (0: not on this CPU)
  double bf16Gflops = 0;     // bfloat16 dot products (0: not on this CPU)
  double l1GBs = 0, l2GBs = 0, l3GBs = 0, dramGBs = 0;  // copy bandwidth, read + write
  double dramReadGBs = 0;  // reading alone (weights, a KV cache) from DRAM; 0 in older profiles
  double forkJoinUs = 0;     // one empty ThreadPool::parallelFor
  double nodeOverheadUs = 0; // a tiny node's run(), dispatch included
  double runOverheadUs = 0;  // an executor run's fixed entry and exit, once per run
  double runSpread = 0;      // log(p90 / p10) / 2.56 of repeated runs: run-to-run noise
  // A single-threaded piece of a oneDNN convolution or matmul running beside
  // the others on this many threads, against the same piece alone on one
  // thread (shared caches, memory and clock; the grid's pieced kernels,
  // median): the pieces' time = the largest piece alone x this.
  double pieceSlowdown = 1;
  // What a kernel costs inside a graph beyond the same kernel timed alone
  // as the grid times it, per node: calibration's chain of a mobile net's
  // stages (1x1, depthwise, add, sigmoid and mul kernels of 2-50 us) run
  // back to back against the same kernels alone, each on the thread count
  // it is priced with. Signed; 0 where the difference is within the
  // chain's run-to-run spread, and in older profiles.
  double graphNodeUs = 0;
  int graphChainNodes = 0;  // the chain's length (0: not measured)
  // Inside a graph whose weights exceed the L3, how much longer a kernel
  // takes for the weights it reads from DRAM than the grid's cold runs
  // (weights evicted, the kernel alone) say. Calibration writes 1 (the
  // grid's view; see Calibrate.cpp); earlier calibrations' profiles, and
  // merges of them, may carry another.
  double graphColdFactor = 1;
  // The speed reference's median time over the calibration (a 64 x 512 x 512
  // matmul in the L2, sampled through the grid): the host's speed while this
  // profile was measured, to compare calibrations taken at different times.
  // 0: not recorded (older profiles).
  double speedReferenceMs = 0;
  std::map<std::string, FamilyGrid> families;
};

struct DeviceProfile {
  std::string cpuModel;
  std::string isa;
  std::string libraryVersion;
  int maxThreads = 1;
  uint64_t l1Bytes = 0, l2Bytes = 0, l3Bytes = 0;  // per core for L1/L2; l3: what calibration found kept
  uint64_t l3ReportedBytes = 0;  // the L3 sysfs reports (0: not recorded)
  double firstTouchGBs = 0;  // page faults on fresh memory (cold run: weights, arena)
  double jitMs = 0;          // one oneDNN primitive built at session creation
  double calibrationSeconds = 0;
  bool complete = false;     // false: the deadline cut the grid short
  // How many calibrations this profile is the median of (calibrate --merge).
  int calibrations = 1;
  std::vector<ThreadProfile> threads;  // 1 .. maxThreads

  // The profile measured with `n` threads, else the closest below it (null if none).
  const ThreadProfile *forThreads(int n) const;
};

// This machine's key fields (CPU model, ISA, library version) for `threads`.
DeviceProfile describeThisDevice(int threads);
// "<cache>/webnn/device-<hash of the key>.json": $XDG_CACHE_HOME or ~/.cache.
std::string defaultProfilePath(int threads);
// The profile for this machine and `threads`: the default path for that
// count, else for any larger count this machine was calibrated with.
Status findDefaultProfile(int threads, std::string *path);

// Shared with the GPU profiles (GpuProfile.h): the cache folder and a stable
// file-name hash of a key (ProfileJson.h has the file reading and writing).
std::string profileCacheDirectory();
std::string profileKeyHash(const std::string &key);

Status saveProfile(const DeviceProfile &p, const std::string &path);
// Checks the JSON's shape and values; the message names the file and field.
Status loadProfile(const std::string &path, DeviceProfile *out);

}  // namespace webnn::est

#endif
