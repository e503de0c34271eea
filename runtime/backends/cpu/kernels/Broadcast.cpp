#include "runtime/backends/cpu/kernels/Broadcast.h"

#include <algorithm>

namespace webnn::cpu::kernels {

bool broadcastShapes(const Shape &a, const Shape &b, Shape *out) {
  size_t rank = std::max(a.size(), b.size());
  Shape r(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    r[i] = da == 1 ? db : da;
  }
  *out = std::move(r);
  return true;
}

bool canBroadcastTo(const Shape &from, const Shape &to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t d = from[from.size() - 1 - i];
    if (d != 1 && d != to[to.size() - 1 - i]) return false;
  }
  return true;
}

}  // namespace webnn::cpu::kernels
