// The cost model: predicted latency of a graph on this device, from the
// runtime's own plan (the nodes as the CPU backend runs them), each node's
// work from its kernel family's cost function (backends/cpu/CostFunctions.h)
// and the family's efficiency measured by calibration (DeviceProfile.h).
// Works on weightless artifacts: no weight byte is read.
#ifndef WEBNN_RUNTIME_ESTIMATE_ESTIMATE_H
#define WEBNN_RUNTIME_ESTIMATE_ESTIMATE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "estimate/DeviceProfile.h"
#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::rt {
struct PreparedGraph;
}

namespace webnn::est {

// DAOP's performance tiers (webmachinelearning/daop), fastest first.
enum class Tier { kExcellent, kGood, kFair, kModerate, kSlow, kVerySlow, kPoor };
const char *tierName(Tier t);
bool parseTier(const std::string &name, Tier *out);
// The tier of a latency: excellent < 16 ms, good < 100 ms, fair < 1 s,
// moderate < 10 s, slow < 30 s, very-slow < 60 s, else poor.
Tier tierOf(double ms);

struct EstimateOptions {
  int threads = 1;
  // Sizes of dynamic input dimensions (an input's full shape); inputs not
  // named run at their maxima.
  std::vector<std::pair<std::string, Shape>> shapes;
};

struct NodeEstimate {
  size_t index = 0;
  std::string op, name, family;
  double flops = 0, bytes = 0;
  double rooflineMs = 0;  // the bound from the measured peaks
  double ms = 0;          // predicted
  double dramBytes = 0;   // of its bytes, those priced from DRAM (not cache-resident across runs)
  // The thread count whose grid priced its kernel: 1 for pieces, kernels run
  // on the calling thread and, in a multi-threaded run, those bound by
  // moving bytes; else the run's. 0: no kernel of its own (paired away, a
  // reshape over its input, control flow).
  int pricedThreads = 0;
  double graphMs = 0;  // of `ms`: the profile's in-graph cost per node (ThreadProfile::graphNodeUs)
  bool writesPitch = false;  // writes its strided output (a concat's slice) itself (cpu::NodeCost::writesPitch)
};

struct Estimate {
  double medianMs = 0, p10Ms = 0, p90Ms = 0;
  double coldMs = 0;       // first run of a fresh process: first touch, JIT, packing
  double runOverheadMs = 0;  // of the median: the executor's fixed cost per run
  // Of what a run reads from outside its arena, the share priced from DRAM
  // (1 - L3 / working set where that exceeds the L3, else 0).
  double dramShare = 0;
  uint64_t peakBytes = 0;  // arena + weights + packed copies + inputs
  uint64_t arenaBytes = 0, weightsBytes = 0, packedBytes = 0;
  double flops = 0;
  int threads = 1;          // asked for
  int profileThreads = 1;   // the calibration used
  bool profileComplete = true;
  Tier tier = Tier::kPoor;
  std::vector<NodeEstimate> nodes;  // main graph, execution order
  std::vector<std::string> notes;   // approximations taken (uncalibrated families, control flow)
};

// Whether the graph meets `requirement`: judged from the p90 (erring toward no).
bool meetsRequirement(const Estimate &e, Tier requirement);

// Every node's cost on `graph` (from rt::prepareGraph; weights may be unbound).
Status estimateGraph(const rt::PreparedGraph &graph, const DeviceProfile &profile, const EstimateOptions &options,
                     Estimate *out);
// Loads the artifact as the runtime does (weightless: without its weights) and
// estimates it.
Status estimateArtifact(const std::string &path, const DeviceProfile &profile, const EstimateOptions &options,
                        Estimate *out);

// Log-space interpolation of a family's ratio at `params` (inverse-distance
// weighting over the grid). `skip` leaves one point out (leave-one-out error).
// Which of a grid point's ratios: operands in the L3 (every point has
// it), in L1/L2 (hot) or weights from DRAM (cold); a point without the one
// asked for gives its L3 ratio.
enum class CacheState { kL3, kHot, kCold };
double interpolateRatio(const FamilyGrid &grid, const std::vector<double> &params, long skip = -1,
                       CacheState state = CacheState::kL3);
// The roofline bound of `flops` and `bytes` with `t`'s peaks: the bandwidth
// of the cache level the bytes fit in; bf16 dot products where `bf16`.
double rooflineMs(const DeviceProfile &p, const ThreadProfile &t, double flops, double bytes, bool bf16 = false);
// Recomputes each family's logSigma from its points.
void updateSigmas(ThreadProfile *t);
// The same over any family map (a GPU profile's too).
void updateFamilySigmas(std::map<std::string, FamilyGrid> *families);

}  // namespace webnn::est

#endif
