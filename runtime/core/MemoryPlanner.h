// Static placement of intermediate tensors in one arena.
//
// Each planned tensor is live from the node that produces it to the last node
// that reads it (positions in the topological order). Tensors whose lifetimes
// overlap get disjoint byte ranges; others may share. Placement is greedy by
// size, largest first, each at the best-fitting gap (TFLite's
// "GreedyBySize"): near-optimal on real networks. The tensors live beside
// each candidate are found through an index over lifetimes, so planning costs
// O(n log n) plus the overlaps, not O(n^2) (100k-node graphs load quickly).
#ifndef WEBNN_RUNTIME_CORE_MEMORYPLANNER_H
#define WEBNN_RUNTIME_CORE_MEMORYPLANNER_H

#include <cstdint>
#include <vector>

#include "webnn/status.h"

namespace webnn::rt {

struct BufferRequest {
  uint64_t bytes = 0;
  int64_t firstUse = 0;  // inclusive node positions
  int64_t lastUse = 0;
};

struct ArenaPlan {
  std::vector<uint64_t> offsets;  // one per request, multiples of `alignment`
  uint64_t arenaBytes = 0;
};

// Fails only if the arena would exceed 2^63 bytes.
Status planArena(const std::vector<BufferRequest> &requests, uint64_t alignment, ArenaPlan *plan);

}  // namespace webnn::rt

#endif
