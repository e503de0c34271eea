// Static placement of intermediate tensors in one arena.
//
// Each planned tensor is live from the node that produces it to the last node
// that reads it (positions in the topological order). Tensors whose lifetimes
// overlap get disjoint byte ranges; others may share. Placement is greedy by
// size, largest first, each at the best-fitting gap (TFLite's
// "GreedyBySize"): near-optimal on real networks. The tensors live beside
// each candidate are found through an index over lifetimes, so planning costs
// O(n log n) plus the overlaps, not O(n^2) (100k-node graphs load quickly).
//
// In place: a request may name an earlier one whose bytes it takes over
// (`placedIn`), for a node that writes its output over an input that dies
// there (an "accumulate into" op). The two then have one offset and are
// placed as one tensor, live over both lifetimes.
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
  // Index of a request this one is written over, or -1. The contract: the
  // node at `firstUse` reads each element of that tensor before it writes
  // the same element of this one, and reads it through no other input.
  // Honoured only where it is safe: that tensor's lastUse is this firstUse
  // (nothing reads it later), its firstUse is earlier (made by another
  // node), its bytes are at least this one's, neither is empty, and no other
  // request took it over first (by firstUse); else this one is planned apart.
  int64_t placedIn = -1;
};

struct ArenaPlan {
  std::vector<uint64_t> offsets;  // one per request, multiples of `alignment`
  uint64_t arenaBytes = 0;
};

// Fails only if the arena would exceed 2^63 bytes.
Status planArena(const std::vector<BufferRequest> &requests, uint64_t alignment, ArenaPlan *plan);

}  // namespace webnn::rt

#endif
