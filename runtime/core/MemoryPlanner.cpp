#include "core/MemoryPlanner.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace webnn::rt {

Status planArena(const std::vector<BufferRequest> &requests, uint64_t alignment, ArenaPlan *plan) {
  constexpr uint64_t kLimit = uint64_t(1) << 63;
  const size_t n = requests.size();
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    if (requests[i].bytes > kLimit - alignment)
      return Status(StatusCode::kOutOfMemory, "tensor of " + std::to_string(requests[i].bytes) + " bytes is too large");
    sizes[i] = (requests[i].bytes + alignment - 1) / alignment * alignment;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by first use keep the plan deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return requests[a].firstUse < requests[b].firstUse;
  });

  plan->offsets.assign(n, 0);
  plan->arenaBytes = 0;
  std::vector<size_t> placed;  // indices already placed, sorted by offset
  std::vector<size_t> overlapping;
  for (size_t r : order) {
    if (sizes[r] == 0) continue;  // empty tensors need no bytes; offset 0
    overlapping.clear();
    for (size_t p : placed)
      if (requests[p].firstUse <= requests[r].lastUse && requests[r].firstUse <= requests[p].lastUse)
        overlapping.push_back(p);
    // Walk the live neighbours by offset, remembering the smallest gap that fits.
    uint64_t best = std::numeric_limits<uint64_t>::max(), bestGap = best;
    uint64_t cursor = 0;
    for (size_t p : overlapping) {
      uint64_t off = plan->offsets[p];
      if (off > cursor && off - cursor >= sizes[r] && off - cursor < bestGap) {
        best = cursor;
        bestGap = off - cursor;
      }
      cursor = std::max(cursor, off + sizes[p]);
    }
    if (best == std::numeric_limits<uint64_t>::max()) best = cursor;
    if (best > kLimit - sizes[r])
      return Status(StatusCode::kOutOfMemory, "intermediate tensors need more than 2^63 bytes");
    plan->offsets[r] = best;
    plan->arenaBytes = std::max(plan->arenaBytes, best + sizes[r]);
    auto at = std::lower_bound(placed.begin(), placed.end(), r,
                               [&](size_t a, size_t b) { return plan->offsets[a] < plan->offsets[b]; });
    placed.insert(at, r);
  }
  return Status::ok();
}

}  // namespace webnn::rt
