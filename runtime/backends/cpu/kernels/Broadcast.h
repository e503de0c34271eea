// Numpy-style broadcasting (the WebNN spec's "bidirectionally broadcast"),
// planned once at load: dims of size 1 are dropped and adjacent dims that stay
// contiguous in every operand are merged, so the inner loop runs over the
// longest possible stretch with input strides of 0 (broadcast) or 1.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_BROADCAST_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_BROADCAST_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "webnn/types.h"

namespace webnn::cpu::kernels {

// Bidirectional broadcast of a and b; false if incompatible.
bool broadcastShapes(const Shape &a, const Shape &b, Shape *out);
// Unidirectional: `from` can be broadcast to `to` (to is unchanged).
bool canBroadcastTo(const Shape &from, const Shape &to);

template <int K>
class BroadcastPlan {
 public:
  // `ins` must each be broadcastable to `out`.
  void init(const Shape &out, const std::array<const Shape *, K> &ins) {
    dims_.clear();
    strides_.clear();
    total_ = 1;
    for (int64_t d : out) total_ *= d;
    size_t rank = out.size();
    std::vector<std::array<int64_t, K>> rawStrides(rank);
    for (int k = 0; k < K; ++k) {
      const Shape &s = *ins[k];
      int64_t acc = 1;
      for (size_t i = rank; i-- > 0;) {
        size_t off = rank - i;  // 1-based from the right
        int64_t d = off <= s.size() ? s[s.size() - off] : 1;
        rawStrides[i][k] = (d == 1) ? 0 : acc;
        acc *= d;
      }
    }
    for (size_t i = 0; i < rank; ++i) {
      if (out[i] == 1) continue;
      if (!dims_.empty()) {
        bool mergeable = true;
        for (int k = 0; k < K; ++k)
          if (strides_.back()[k] != rawStrides[i][k] * out[i]) mergeable = false;
        if (mergeable) {
          dims_.back() *= out[i];
          strides_.back() = rawStrides[i];
          continue;
        }
      }
      dims_.push_back(out[i]);
      strides_.push_back(rawStrides[i]);
    }
    if (dims_.empty()) {
      dims_.push_back(1);
      strides_.push_back({});
    }
  }

  int64_t total() const { return total_; }
  // True when every operand is read contiguously over the whole output.
  bool allContiguous() const {
    if (dims_.size() != 1) return false;
    for (int k = 0; k < K; ++k)
      if (strides_[0][k] != 1 && dims_[0] != 1) return false;
    return true;
  }

  // Calls f(offsets, outOffset, len, innerStrides) for consecutive segments
  // covering output elements [begin, end); offsets are element offsets into
  // each operand, innerStrides are 0 or 1.
  template <typename F>
  void forSegments(int64_t begin, int64_t end, F &&f) const {
    if (begin >= end) return;
    const size_t rank = dims_.size();
    int64_t coord[16];
    std::vector<int64_t> coordHeap;
    int64_t *c = coord;
    if (rank > 16) {
      coordHeap.resize(rank);
      c = coordHeap.data();
    }
    std::array<int64_t, K> off{};
    int64_t rem = begin;
    for (size_t i = rank; i-- > 0;) {
      c[i] = rem % dims_[i];
      rem /= dims_[i];
      for (int k = 0; k < K; ++k) off[k] += c[i] * strides_[i][k];
    }
    std::array<int64_t, K> inner = strides_[rank - 1];
    int64_t pos = begin;
    const int64_t last = dims_[rank - 1];
    while (pos < end) {
      int64_t len = std::min(last - c[rank - 1], end - pos);
      f(off, pos, len, inner);
      pos += len;
      if (pos >= end) break;
      // Advance: the inner dim wrapped to 0, carry into outer dims.
      for (int k = 0; k < K; ++k) off[k] -= c[rank - 1] * inner[k];
      c[rank - 1] = 0;
      for (size_t i = rank - 1; i-- > 0;) {
        ++c[i];
        for (int k = 0; k < K; ++k) off[k] += strides_[i][k];
        if (c[i] < dims_[i]) break;
        for (int k = 0; k < K; ++k) off[k] -= c[i] * strides_[i][k];
        c[i] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<std::array<int64_t, K>> strides_;
  int64_t total_ = 0;
};

}  // namespace webnn::cpu::kernels

#endif
