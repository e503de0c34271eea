#include "core/MemoryPlanner.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace webnn::rt {
namespace {

// The placed tensors, searchable by lifetime: a max-segment tree over the
// requests sorted by first use, each leaf holding its tensor's last use once
// placed. Finding the k placed tensors live during [first, last] visits only
// subtrees that hold one, O((k + 1) log n), where scanning every placed
// tensor made planning quadratic in the node count.
class LiveIndex {
 public:
  explicit LiveIndex(const std::vector<BufferRequest> &requests) : requests_(requests) {
    const size_t n = requests.size();
    byFirstUse_.resize(n);
    std::iota(byFirstUse_.begin(), byFirstUse_.end(), 0);
    std::stable_sort(byFirstUse_.begin(), byFirstUse_.end(), [&](size_t a, size_t b) {
      return requests[a].firstUse < requests[b].firstUse;
    });
    leafOf_.resize(n);
    for (size_t i = 0; i < n; ++i) leafOf_[byFirstUse_[i]] = i;
    size_ = 1;
    while (size_ < n) size_ *= 2;
    maxLast_.assign(2 * size_, kEmpty);
  }

  void place(size_t r) {
    size_t node = size_ + leafOf_[r];
    maxLast_[node] = requests_[r].lastUse;
    for (node /= 2; node >= 1; node /= 2)
      maxLast_[node] = std::max(maxLast_[2 * node], maxLast_[2 * node + 1]);
  }

  // Appends the placed requests whose lifetime meets [first, last].
  void overlapping(int64_t first, int64_t last, std::vector<size_t> *out) const {
    // Leaves [0, end) start no later than `last`.
    size_t end = std::upper_bound(byFirstUse_.begin(), byFirstUse_.end(), last,
                                  [&](int64_t v, size_t r) { return v < requests_[r].firstUse; }) -
                 byFirstUse_.begin();
    if (end > 0) collect(1, 0, size_, end, first, out);
  }

 private:
  static constexpr int64_t kEmpty = std::numeric_limits<int64_t>::min();

  void collect(size_t node, size_t lo, size_t hi, size_t end, int64_t first,
               std::vector<size_t> *out) const {
    if (lo >= end || maxLast_[node] == kEmpty || maxLast_[node] < first) return;
    if (hi - lo == 1) {
      out->push_back(byFirstUse_[lo]);
      return;
    }
    size_t mid = (lo + hi) / 2;
    collect(2 * node, lo, mid, end, first, out);
    collect(2 * node + 1, mid, hi, end, first, out);
  }

  const std::vector<BufferRequest> &requests_;
  std::vector<size_t> byFirstUse_;  // leaf -> request
  std::vector<size_t> leafOf_;      // request -> leaf
  std::vector<int64_t> maxLast_;    // tree of last uses; kEmpty where nothing is placed
  size_t size_ = 1;
};

}  // namespace

Status planArena(const std::vector<BufferRequest> &requests, uint64_t alignment, ArenaPlan *plan) {
  constexpr uint64_t kLimit = uint64_t(1) << 63;
  const size_t n = requests.size();
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    if (requests[i].bytes > kLimit - alignment)
      return Status(StatusCode::kOutOfMemory, "tensor of " + std::to_string(requests[i].bytes) + " bytes is too large");
    sizes[i] = (requests[i].bytes + alignment - 1) / alignment * alignment;
  }
  // In-place requests join the tensor they are written over: `root` is the
  // first tensor of each such chain, placed once, live over all of its
  // members (`spans`). Walking by first use settles a tensor's root before
  // any request that takes it over.
  std::vector<size_t> root(n), byFirst(n);
  std::iota(root.begin(), root.end(), 0);
  std::iota(byFirst.begin(), byFirst.end(), 0);
  std::stable_sort(byFirst.begin(), byFirst.end(),
                   [&](size_t a, size_t b) { return requests[a].firstUse < requests[b].firstUse; });
  std::vector<BufferRequest> spans(requests);
  std::vector<bool> takenOver(n, false);
  for (size_t r : byFirst) {
    const int64_t k = requests[r].placedIn;
    if (k < 0 || uint64_t(k) >= n || size_t(k) == r || takenOver[size_t(k)]) continue;
    const BufferRequest &over = requests[size_t(k)];
    if (over.lastUse != requests[r].firstUse || over.firstUse >= requests[r].firstUse || sizes[r] == 0 ||
        sizes[r] > sizes[size_t(k)])
      continue;
    takenOver[size_t(k)] = true;
    root[r] = root[size_t(k)];
    spans[root[r]].lastUse = std::max(spans[root[r]].lastUse, requests[r].lastUse);
  }

  std::vector<size_t> order;
  for (size_t r = 0; r < n; ++r)
    if (root[r] == r) order.push_back(r);
  // Largest first; ties by first use keep the plan deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return requests[a].firstUse < requests[b].firstUse;
  });

  plan->offsets.assign(n, 0);
  plan->arenaBytes = 0;
  LiveIndex live(spans);
  std::vector<size_t> overlapping;
  for (size_t r : order) {
    if (sizes[r] == 0) continue;  // empty tensors need no bytes; offset 0
    overlapping.clear();
    live.overlapping(spans[r].firstUse, spans[r].lastUse, &overlapping);
    // Tensors live at the same time never share bytes, so their offsets differ.
    std::sort(overlapping.begin(), overlapping.end(),
              [&](size_t a, size_t b) { return plan->offsets[a] < plan->offsets[b]; });
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
    live.place(r);
  }
  for (size_t r = 0; r < n; ++r) plan->offsets[r] = plan->offsets[root[r]];
  return Status::ok();
}

}  // namespace webnn::rt
