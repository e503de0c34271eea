// Data movement: concat, split, reshape, expand, transpose, slice, gather,
// pad, tile, triangular. All work on raw elements of any byte-aligned type.
//
// expand, transpose, slice, tile and pad share one plan: for every output dim
// a table maps the output coordinate to an input element offset (or "padding").
// The innermost dim's table is further compressed into runs that are either a
// contiguous input stretch (memcpy) or padding (fill), so common cases move
// whole rows at a time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/backends/cpu/kernels/Broadcast.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/RowPitch.h"
#include "runtime/backends/cpu/kernels/Transpose32.h"

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kPadded = std::numeric_limits<int64_t>::min();

Status rejectPacked(const NodeDesc &node, const OperandDesc &x) {
  if (elementBytes(x.dtype) == 0)
    return nodeUnsupported(node, "unsupported data type " + std::string(dataTypeName(x.dtype)));
  return Status::ok();
}

// ---- Index-map gather (expand, transpose, slice, tile, pad)
struct Run {
  int64_t outStart, len, inOffset;  // inOffset == kPadded: fill with the pad value
};

class IndexMapKernel final : public Kernel {
 public:
  // maps[d][o]: input element offset contributed by output coordinate o of dim d.
  IndexMapKernel(std::vector<std::vector<int64_t>> maps, size_t elemBytes, uint64_t padBits)
      : maps_(std::move(maps)), esz_(elemBytes), padBits_(padBits) {
    if (maps_.empty()) maps_.push_back({0});  // scalar
    const std::vector<int64_t> &last = maps_.back();
    rowLen_ = int64_t(last.size());
    for (int64_t j = 0; j < rowLen_; ++j) {
      int64_t v = last[j];
      if (!runs_.empty()) {
        Run &r = runs_.back();
        bool extendPad = v == kPadded && r.inOffset == kPadded;
        bool extendCopy = v != kPadded && r.inOffset != kPadded && v == r.inOffset + r.len;
        if (extendPad || extendCopy) {
          ++r.len;
          continue;
        }
      }
      runs_.push_back({j, 1, v});
    }
    rows_ = 1;
    for (size_t d = 0; d + 1 < maps_.size(); ++d) rows_ *= int64_t(maps_[d].size());
    perElement_ = int64_t(runs_.size()) * 2 > rowLen_ && rowLen_ > 8;
  }

  Status run(const KernelContext &ctx) override {
    if (rows_ == 0 || rowLen_ == 0) return Status::ok();
    const uint8_t *x = in<uint8_t>(ctx, 0);
    uint8_t *y = outp<uint8_t>(ctx, 0);
    dispatchBytes(esz_, [&](auto tag) {
      using E = decltype(tag);
      E pad;
      std::memcpy(&pad, &padBits_, sizeof(E));
      const E *xs = reinterpret_cast<const E *>(x);
      E *ys = reinterpret_cast<E *>(y);
      parallelFor(ctx, rows_, std::max<int64_t>(1, 16384 / rowLen_), [&](int64_t b, int64_t e) {
        // The row's index in each outer dimension, split from b once and
        // then counted up: a division per dimension per row cost more than
        // copying a short row (Swin's head transposes move rows of 32 floats).
        std::vector<int64_t> digit(maps_.size() - 1);
        for (size_t d = digit.size(), rest = size_t(b); d-- > 0;) {
          digit[d] = int64_t(rest % maps_[d].size());
          rest /= maps_[d].size();
        }
        for (int64_t r = b; r < e; ++r) {
          copyRow(xs, ys + r * rowLen_, digit, pad);
          for (size_t d = digit.size(); d-- > 0;) {
            if (size_t(++digit[d]) < maps_[d].size()) break;
            digit[d] = 0;
          }
        }
      });
    });
    return Status::ok();
  }

 private:
  template <typename E>
  void copyRow(const E *x, E *y, const std::vector<int64_t> &digit, E pad) const {
    int64_t base = 0;
    bool padded = false;
    for (size_t d = 0; d < digit.size(); ++d) {
      const int64_t v = maps_[d][size_t(digit[d])];
      if (v == kPadded) padded = true;
      else base += v;
    }
    if (padded) {
      for (int64_t j = 0; j < rowLen_; ++j) y[j] = pad;
      return;
    }
    if (perElement_) {
      const int64_t *m = maps_.back().data();
      for (int64_t j = 0; j < rowLen_; ++j) y[j] = m[j] == kPadded ? pad : x[base + m[j]];
      return;
    }
    for (const Run &r : runs_) {
      if (r.inOffset == kPadded) {
        for (int64_t j = 0; j < r.len; ++j) y[r.outStart + j] = pad;
      } else {
        std::memcpy(y + r.outStart, x + base + r.inOffset, size_t(r.len) * sizeof(E));
      }
    }
  }

  std::vector<std::vector<int64_t>> maps_;
  size_t esz_;
  uint64_t padBits_;
  std::vector<Run> runs_;
  int64_t rowLen_ = 0, rows_ = 0;
  bool perElement_ = false;
};

std::unique_ptr<Kernel> makeIndexMap(std::vector<std::vector<int64_t>> maps, DataType t, uint64_t padBits = 0) {
  return std::make_unique<IndexMapKernel>(std::move(maps), elementBytes(t), padBits);
}

// For an output without elements the factories build no per-dimension maps:
// their size follows the dimensions, which a corrupt artifact can make 2^40
// next to a 0. Empty maps run no rows.
bool emptyOutput(const Shape &os, DataType t, std::unique_ptr<Kernel> *out) {
  if (numElements(os) != 0) return false;
  *out = makeIndexMap(std::vector<std::vector<int64_t>>(os.size()), t);
  return true;
}

// A transpose that, once dims adjacent in both orders are merged, swaps the
// two inner dims of [batch, rows, cols] (NCHW <-> NHWC: [N, C, HW] <-> [N, HW,
// C]). The index-map kernel would copy rows of C = 3 elements one by one
// (an image's input transpose was several percent of MobileNetV2's run);
// this one moves 32x32 tiles, or, when one side has at most 4 elements (an
// RGB image's channels), runs a loop whose short dimension is a
// compile-time constant, so the compiler turns it into whole-vector
// shuffles (several times faster than 32x3 tiles).
template <int R, typename E>
void interleaveRows(const E *x, E *y, int64_t cols, int64_t c0, int64_t c1) {
  // y[c][r] = x[r][c] for R rows of `cols`.
  for (int64_t c = c0; c < c1; ++c)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) y[c * R + r] = x[r * cols + c];
}
template <int C, typename E>
void deinterleaveRows(const E *x, E *y, int64_t rows, int64_t r0, int64_t r1) {
  // y[c][r] = x[r][c] for rows of C columns.
  for (int64_t r = r0; r < r1; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) y[c * rows + r] = x[r * C + c];
}

class BatchedTransposeKernel final : public Kernel {
 public:
  BatchedTransposeKernel(int64_t batch, int64_t rows, int64_t cols, size_t elemBytes)
      : batch_(batch), rows_(rows), cols_(cols), esz_(elemBytes) {}

  static constexpr int64_t kNarrow = 4;  // the short side's limit for the narrow loops

  Status run(const KernelContext &ctx) override {
    if (rows_ <= kNarrow || cols_ <= kNarrow) {
      runNarrow(ctx);
      return Status::ok();
    }
    constexpr int64_t kTile = 32;
    const int64_t rowTiles = (rows_ + kTile - 1) / kTile, colTiles = (cols_ + kTile - 1) / kTile;
    // 4-byte elements on AVX-512: each tile as 16 x 16 register blocks
    // (Transpose32.h), about 4x the element loop's speed from L2.
    const bool blocks = esz_ == 4 && avx512Available();
    forEachTask(ctx, batch_ * rowTiles * colTiles, [&](const auto *xs, auto *ys, int64_t t) {
      int64_t b = t / (rowTiles * colTiles), r0 = (t / colTiles) % rowTiles * kTile, c0 = t % colTiles * kTile;
      const auto *xb = xs + b * rows_ * cols_;
      auto *yb = ys + b * rows_ * cols_;
      int64_t r1 = std::min(rows_, r0 + kTile), c1 = std::min(cols_, c0 + kTile);
      if constexpr (sizeof(*xs) == 4) {
        if (blocks) {
          transpose32Avx512(reinterpret_cast<const uint32_t *>(xb + r0 * cols_ + c0), cols_,
                            reinterpret_cast<uint32_t *>(yb + c0 * rows_ + r0), rows_, r1 - r0, c1 - c0);
          return;
        }
      }
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t r = r0; r < r1; ++r) yb[c * rows_ + r] = xb[r * cols_ + c];
    });
    return Status::ok();
  }

 private:
  // body(xs, ys, t) for every task t < tasks, split over the pool, with xs and
  // ys the input and output as the esz_-byte element type.
  template <typename Body>
  void forEachTask(const KernelContext &ctx, int64_t tasks, Body body) {
    const uint8_t *x = in<uint8_t>(ctx, 0);
    uint8_t *y = outp<uint8_t>(ctx, 0);
    dispatchBytes(esz_, [&](auto tag) {
      using E = decltype(tag);
      const E *xs = reinterpret_cast<const E *>(x);
      E *ys = reinterpret_cast<E *>(y);
      parallelFor(ctx, tasks, 4, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) body(xs, ys, t);
      });
    });
  }

  // One side <= kNarrow: chunks of the long side, split over the pool.
  void runNarrow(const KernelContext &ctx) {
    constexpr int64_t kChunk = 1024;
    const bool narrowRows = rows_ <= kNarrow;
    const int64_t longSide = narrowRows ? cols_ : rows_, chunks = (longSide + kChunk - 1) / kChunk;
    const int shortSide = int(narrowRows ? rows_ : cols_);
    forEachTask(ctx, batch_ * chunks, [&](const auto *xs, auto *ys, int64_t t) {
      int64_t b = t / chunks, l0 = t % chunks * kChunk, l1 = std::min(longSide, l0 + kChunk);
      const auto *xb = xs + b * rows_ * cols_;
      auto *yb = ys + b * rows_ * cols_;
      auto go = [&](auto n) {
        constexpr int N = decltype(n)::value;
        if (narrowRows) interleaveRows<N>(xb, yb, cols_, l0, l1);
        else deinterleaveRows<N>(xb, yb, rows_, l0, l1);
      };
      switch (shortSide) {
        case 1: go(std::integral_constant<int, 1>{}); break;
        case 2: go(std::integral_constant<int, 2>{}); break;
        case 3: go(std::integral_constant<int, 3>{}); break;
        default: go(std::integral_constant<int, 4>{}); break;
      }
    });
  }

  int64_t batch_, rows_, cols_;
  size_t esz_;
};

// Merges input dims that stay adjacent and in order under `perm`; true with
// [batch, rows, cols] when the merged permutation is (0, 2, 1) or (1, 0).
bool asBatchedTranspose(const Shape &shape, const std::vector<int64_t> &perm, int64_t *batch, int64_t *rows,
                        int64_t *cols) {
  std::vector<int64_t> groupSize;  // merged output-order groups, as input positions
  std::vector<int64_t> groupStart;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (shape[perm[i]] == 1) continue;  // size-1 dims move freely
    if (!groupStart.empty() && perm[i] == groupStart.back() + groupSize.back()) {
      ++groupSize.back();
      continue;
    }
    groupStart.push_back(perm[i]);
    groupSize.push_back(1);
  }
  auto extent = [&](size_t g) {
    int64_t e = 1;
    for (int64_t d = groupStart[g]; d < groupStart[g] + groupSize[g]; ++d) e *= shape[d];
    return e;
  };
  // Output order of groups g0, g1[, g2]; a batched swap has input order
  // (g0, g2, g1) or, without a batch, (g1, g0).
  if (groupStart.size() == 2 && groupStart[0] > groupStart[1]) {
    *batch = 1, *rows = extent(1), *cols = extent(0);
    return true;
  }
  if (groupStart.size() == 3 && groupStart[0] < groupStart[2] && groupStart[2] < groupStart[1]) {
    *batch = extent(0), *rows = extent(2), *cols = extent(1);
    return true;
  }
  return false;
}

Status makeTranspose(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  size_t rank = x.shape.size();
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = int64_t(rank - 1 - i);
  perm = node.attributes.getInts("permutation", perm);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (perm.size() != rank) return nodeError(node, "permutation length differs from input rank");
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(rank) || seen[p]) return nodeError(node, "permutation is not a permutation of 0..rank-1");
    seen[p] = true;
  }
  std::vector<int64_t> st = contiguousStrides(x.shape);
  Shape os(rank);
  for (size_t i = 0; i < rank; ++i) os[i] = x.shape[perm[i]];
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  if (emptyOutput(os, x.dtype, out)) return Status::ok();
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t i = 0; i < rank; ++i)
    for (int64_t o = 0; o < os[i]; ++o) maps[i].push_back(o * st[perm[i]]);
  int64_t batch, rows, cols;
  if (asBatchedTranspose(x.shape, perm, &batch, &rows, &cols) && rows >= 2 && cols >= 2) {
    *out = std::make_unique<BatchedTransposeKernel>(batch, rows, cols, elementBytes(x.dtype));
    return Status::ok();
  }
  *out = makeIndexMap(std::move(maps), x.dtype);
  return Status::ok();
}

Status makeExpand(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  if (!node.attributes.has("newShape")) return nodeError(node, "missing required attribute 'newShape'");
  Shape ns = node.attributes.getInts("newShape", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  // -1 keeps the input's aligned dimension (a dynamic one, docs/ARTIFACT.md).
  for (size_t i = 0; i < ns.size(); ++i) {
    if (ns[i] != -1) continue;
    size_t lead = ns.size() - std::min(ns.size(), x.shape.size());
    if (i < lead || ns.size() < x.shape.size())
      return nodeError(node, "newShape " + shapeToString(ns) + " has -1 where the input has no dimension");
    ns[i] = x.shape[i - lead];
  }
  Shape os;
  if (!broadcastShapes(x.shape, ns, &os))
    return nodeError(node, "input shape " + shapeToString(x.shape) + " cannot be expanded to " + shapeToString(ns));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  if (emptyOutput(os, x.dtype, out)) return Status::ok();
  std::vector<int64_t> st = contiguousStrides(x.shape);
  size_t rank = os.size(), lead = rank - x.shape.size();
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t i = 0; i < rank; ++i) {
    bool bcast = i < lead || x.shape[i - lead] == 1;
    for (int64_t o = 0; o < os[i]; ++o) maps[i].push_back(bcast ? 0 : o * st[i - lead]);
  }
  *out = makeIndexMap(std::move(maps), x.dtype);
  return Status::ok();
}

Status makeSlice(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  size_t rank = x.shape.size();
  if (!node.attributes.has("starts") || !node.attributes.has("sizes"))
    return nodeError(node, "missing required attribute 'starts' or 'sizes'");
  std::vector<int64_t> starts = node.attributes.getInts("starts", {});
  std::vector<int64_t> sizes = node.attributes.getInts("sizes", {});
  std::vector<int64_t> strides = node.attributes.getInts("strides", std::vector<int64_t>(rank, 1));
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (starts.size() != rank || sizes.size() != rank || strides.size() != rank)
    return nodeError(node, "starts, sizes and strides must each have one entry per input dimension");
  std::vector<int64_t> st = contiguousStrides(x.shape);
  Shape os(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = x.shape[i], s = starts[i];
    if (s < 0) s += d;
    if (strides[i] < 1) return nodeError(node, "strides must be >= 1");
    // -1: from the start to the end of a dynamic axis (docs/ARTIFACT.md).
    if (sizes[i] == -1 && s >= 0) sizes[i] = std::max<int64_t>(d - s, 0);
    if (s < 0 || sizes[i] < 0 || sizes[i] > d - s || (s >= d && sizes[i] > 0))
      return nodeError(node, "slice [" + std::to_string(starts[i]) + ", +" + std::to_string(sizes[i]) +
                                 ") is out of bounds for dimension " + std::to_string(i) + " of size " +
                                 std::to_string(d));
    os[i] = sizes[i] == 0 ? 0 : 1 + (sizes[i] - 1) / strides[i];  // no overflow for huge strides
    starts[i] = s;
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  if (emptyOutput(os, x.dtype, out)) return Status::ok();
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t i = 0; i < rank; ++i)
    for (int64_t o = 0; o < os[i]; ++o) maps[i].push_back((starts[i] + o * strides[i]) * st[i]);
  *out = makeIndexMap(std::move(maps), x.dtype);
  return Status::ok();
}

Status makeTile(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  if (!node.attributes.has("repetitions")) return nodeError(node, "missing required attribute 'repetitions'");
  std::vector<int64_t> reps = node.attributes.getInts("repetitions", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  size_t rank = x.shape.size();
  if (reps.size() != rank) return nodeError(node, "repetitions must have one entry per input dimension");
  std::vector<int64_t> st = contiguousStrides(x.shape);
  Shape os(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (reps[i] < 1) return nodeError(node, "repetitions must be >= 1");
    if (__builtin_mul_overflow(x.shape[i], reps[i], &os[i]))
      return nodeError(node, "repeated dimension " + std::to_string(i) + " overflows int64");
  }
  // Checked before the index maps, whose size follows the repetitions.
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  if (emptyOutput(os, x.dtype, out)) return Status::ok();
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t i = 0; i < rank; ++i)
    for (int64_t o = 0; o < os[i]; ++o) maps[i].push_back((o % x.shape[i]) * st[i]);
  *out = makeIndexMap(std::move(maps), x.dtype);
  return Status::ok();
}

// reverse: axes absent = all dims; given (possibly empty) = just those.
Status makeReverse(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  size_t rank = x.shape.size();
  std::vector<int64_t> all(rank);
  for (size_t i = 0; i < rank; ++i) all[i] = int64_t(i);
  std::vector<int64_t> axes = node.attributes.getInts("axes", all);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  std::vector<bool> flip(rank, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= int64_t(rank) || flip[size_t(a)])
      return nodeError(node, "axes must be distinct values in [0, rank)");
    flip[size_t(a)] = true;
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  if (emptyOutput(x.shape, x.dtype, out)) return Status::ok();
  std::vector<int64_t> st = contiguousStrides(x.shape);
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t i = 0; i < rank; ++i)
    for (int64_t o = 0; o < x.shape[i]; ++o) maps[i].push_back((flip[i] ? x.shape[i] - 1 - o : o) * st[i]);
  *out = makeIndexMap(std::move(maps), x.dtype);
  return Status::ok();
}

// The pad value as raw bits of the element type (saturated for integers).
uint64_t padValueBits(DataType t, double v) {
  uint64_t bits = 0;
  dispatchType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half>) {
      uint16_t h = floatToHalf(float(v));
      std::memcpy(&bits, &h, 2);
    } else if constexpr (std::is_floating_point_v<T>) {
      T f = T(v);
      std::memcpy(&bits, &f, sizeof(T));
    } else {
      T i;
      if (std::isnan(v)) i = 0;
      else if (v <= double(std::numeric_limits<T>::lowest())) i = std::numeric_limits<T>::lowest();
      else if (v >= double(std::numeric_limits<T>::max())) i = std::numeric_limits<T>::max();
      else i = T(v);
      std::memcpy(&bits, &i, sizeof(T));
    }
  });
  return bits;
}

Status makePad(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  size_t rank = x.shape.size();
  if (!node.attributes.has("beginningPadding") || !node.attributes.has("endingPadding"))
    return nodeError(node, "missing required attribute 'beginningPadding' or 'endingPadding'");
  std::vector<int64_t> beg = node.attributes.getInts("beginningPadding", {});
  std::vector<int64_t> end = node.attributes.getInts("endingPadding", {});
  std::string mode = node.attributes.getString("mode", "constant");
  double value = node.attributes.getFloat("value", 0.0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (beg.size() != rank || end.size() != rank)
    return nodeError(node, "beginningPadding and endingPadding must have one entry per input dimension");
  if (mode != "constant" && mode != "edge" && mode != "reflection" && mode != "symmetric")
    return nodeError(node, "unknown mode '" + mode + "'");
  std::vector<int64_t> st = contiguousStrides(x.shape);
  Shape os(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = x.shape[i];
    if (beg[i] < 0 || end[i] < 0) return nodeError(node, "padding must be non-negative");
    if (mode == "reflection" && (beg[i] >= d || end[i] >= d))
      return nodeError(node, "reflection padding must be smaller than the dimension size");
    if (mode == "symmetric" && (beg[i] > d || end[i] > d))
      return nodeError(node, "symmetric padding must not exceed the dimension size");
    if (mode == "edge" && d == 0 && (beg[i] > 0 || end[i] > 0))
      return nodeError(node, "edge padding of an empty dimension");
    if (__builtin_add_overflow(d, beg[i], &os[i]) || __builtin_add_overflow(os[i], end[i], &os[i]))
      return nodeError(node, "padded dimension " + std::to_string(i) + " overflows int64");
  }
  // The output's shape is checked before the index maps are built: their
  // size follows the padding, which a corrupt artifact may make huge.
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  if (emptyOutput(os, x.dtype, out)) return Status::ok();
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = x.shape[i];
    for (int64_t o = 0; o < os[i]; ++o) {
      int64_t p = o - beg[i];
      if (p < 0 || p >= d) {
        if (mode == "constant") {
          maps[i].push_back(kPadded);
          continue;
        }
        if (mode == "edge") p = p < 0 ? 0 : d - 1;
        else if (mode == "reflection") p = p < 0 ? -p : 2 * (d - 1) - p;
        else p = p < 0 ? -p - 1 : 2 * d - 1 - p;
      }
      maps[i].push_back(p * st[i]);
    }
  }
  *out = makeIndexMap(std::move(maps), x.dtype, padValueBits(x.dtype, value));
  return Status::ok();
}

// ---- reshape: same bytes, new shape.
class MemcpyKernel final : public Kernel {
 public:
  explicit MemcpyKernel(size_t bytes) : bytes_(bytes) {}
  Status run(const KernelContext &ctx) override {
    if (bytes_ && ctx.outputs[0]->data != ctx.inputs[0]->data)
      std::memcpy(ctx.outputs[0]->data, ctx.inputs[0]->data, bytes_);
    return Status::ok();
  }
  // Over its input (the arena plan's in-place reshape) the bytes are there.
  bool allowsInPlace(size_t, size_t) const override { return true; }

 private:
  size_t bytes_;
};

Status makeReshape(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  if (!node.attributes.has("newShape")) return nodeError(node, "missing required attribute 'newShape'");
  Shape ns = node.attributes.getInts("newShape", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  // One -1 (a graph with dynamic dimensions, docs/ARTIFACT.md): the size that
  // keeps this run's element count; several: each the input's dimension at
  // its index.
  if (std::count(ns.begin(), ns.end(), int64_t(-1)) >= 2) {
    for (size_t i = 0; i < ns.size(); ++i) {
      if (ns[i] != -1) continue;
      if (i >= x.shape.size())
        return nodeError(node, "newShape " + shapeToString(ns) + " has -1 where the input has no dimension");
      ns[i] = x.shape[i];
    }
  }
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (ns[i] == -1 && inferAt < 0) {
      inferAt = int64_t(i);
      continue;
    }
    if (ns[i] < 0) return nodeError(node, "newShape has a negative dimension");
    if (__builtin_mul_overflow(known, ns[i], &known))
      return nodeError(node, "newShape " + shapeToString(ns) + " has more elements than int64 can count");
  }
  if (inferAt >= 0) {
    int64_t count = numElements(x.shape);
    if (known == 0 || count % known != 0)
      return nodeError(node, "newShape " + shapeToString(ns) + " cannot hold the " + std::to_string(count) +
                                 " elements of input " + shapeToString(x.shape));
    ns[size_t(inferAt)] = count / known;
  }
  if (numElements(ns) != numElements(x.shape))
    return nodeError(node, "newShape " + shapeToString(ns) + " has a different element count than input " +
                               shapeToString(x.shape));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, ns, x.dtype));
  uint64_t bytes = 0;
  tensorByteSize(x.dtype, x.shape, &bytes);
  *out = std::make_unique<MemcpyKernel>(size_t(bytes));
  return Status::ok();
}

// ---- concat / split: [outer, axisLen * inner] blocks. Row o of the joined
// tensor (concat's output, split's input) is row o of each part, one after
// another; concat copies the parts in (kJoin), split copies them out.
template <bool kJoin>
class BlockCopyKernel final : public Kernel {
 public:
  BlockCopyKernel(int64_t outer, std::vector<int64_t> blockBytes) : outer_(outer), block_(std::move(blockBytes)) {
    for (int64_t b : block_) rowBytes_ += b;
  }
  Status run(const KernelContext &ctx) override {
    uint8_t *y = kJoin ? outp<uint8_t>(ctx, 0) : nullptr;
    const uint8_t *x = kJoin ? nullptr : in<uint8_t>(ctx, 0);
    parallelFor(ctx, outer_, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, rowBytes_)), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        int64_t at = o * rowBytes_;  // the part's place in the joined row
        for (size_t i = 0; i < block_.size(); ++i) {
          if (block_[i]) {
            if constexpr (kJoin) std::memcpy(y + at, in<uint8_t>(ctx, i) + o * block_[i], size_t(block_[i]));
            else std::memcpy(outp<uint8_t>(ctx, i) + o * block_[i], x + at, size_t(block_[i]));
          }
          at += block_[i];
        }
      }
    });
    return Status::ok();
  }

 private:
  int64_t outer_;
  std::vector<int64_t> block_;
  int64_t rowBytes_ = 0;
};

// concat over strided operands or one row (the concat-view plan): each
// input's rows at their own pitch into its slice of the output's; an input
// the plan placed there already (the same bytes, the output's pitch) is not
// copied. A placed input's producer wrote it in place, so a concat all of
// whose inputs were placed does nothing.
class SliceConcatKernel final : public Kernel {
 public:
  // Bytes: each input's row and pitch, the output's pitch; `rows` rows.
  SliceConcatKernel(int64_t rows, std::vector<int64_t> rowBytes, std::vector<int64_t> inPitch, int64_t outPitch)
      : rows_(rows), rowBytes_(std::move(rowBytes)), inPitch_(std::move(inPitch)), outPitch_(outPitch) {}
  Status run(const KernelContext &ctx) override {
    uint8_t *y = outp<uint8_t>(ctx, 0);
    int64_t at = 0;
    for (size_t i = 0; i < rowBytes_.size(); ++i) {
      const uint8_t *x = in<uint8_t>(ctx, i);
      const bool inPlace = x == y + at && (rows_ == 1 || inPitch_[i] == outPitch_);
      if (!inPlace) copyRows(ctx, x, inPitch_[i], y + at, outPitch_, rows_, rowBytes_[i]);
      at += rowBytes_[i];
    }
    return Status::ok();
  }
  bool honoursRowPitch() const override { return true; }

 private:
  int64_t rows_;
  std::vector<int64_t> rowBytes_, inPitch_;
  int64_t outPitch_;
};

Status makeConcat(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  if (node.inputs.empty()) return nodeError(node, "needs at least one input");
  WEBNN_RETURN_IF_ERROR(checkArity(node, node.inputs.size(), node.inputs.size(), 1));
  const OperandDesc &x0 = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x0));
  if (!node.attributes.has("axis")) return nodeError(node, "missing required attribute 'axis'");
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x0.shape.size(), &axis)) return nodeError(node, "axis is out of range");
  Shape os = x0.shape;
  os[axis] = 0;
  for (const OperandDesc *x : node.inputs) {
    if (x->dtype != x0.dtype) return nodeError(node, "inputs have different data types");
    if (x->shape.size() != x0.shape.size()) return nodeError(node, "inputs have different ranks");
    for (size_t i = 0; i < os.size(); ++i)
      if (int64_t(i) != axis && x->shape[i] != x0.shape[i])
        return nodeError(node, "input shapes " + shapeToString(x0.shape) + " and " + shapeToString(x->shape) +
                                   " differ outside the concat axis");
    // Each size is bounded by the loader, their sum over many inputs is not.
    if (__builtin_add_overflow(os[axis], x->shape[axis], &os[axis]))
      return nodeError(node, "the inputs' sizes along the concat axis overflow int64");
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x0.dtype));
  int64_t outer = 1, inner = int64_t(elementBytes(x0.dtype));
  for (int64_t i = 0; i < axis; ++i) outer *= os[i];
  for (size_t i = axis + 1; i < os.size(); ++i) inner *= os[i];
  std::vector<int64_t> blocks;
  for (const OperandDesc *x : node.inputs) blocks.push_back(x->shape[axis] * inner);
  // Strided operands are rows of the last axis (RowPitch.h): this kernel
  // takes them in a last-axis concat (the copy kernel below does not honour
  // them: the CPU backend then gives it dense copies); one row of dense
  // operands is where a placed input is a contiguous block of the output.
  const int64_t esize = int64_t(elementBytes(x0.dtype));
  if (hasRowPitch(node) ? inner == esize : outer == 1) {
    std::vector<int64_t> inPitch;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      inPitch.push_back(node.inputs[i]->rowPitch ? node.inputs[i]->rowPitch * esize : blocks[i]);
    int64_t outPitch = node.outputs[0]->rowPitch * esize;
    if (!outPitch)
      for (int64_t b : blocks) outPitch += b;
    *out = std::make_unique<SliceConcatKernel>(outer, std::move(blocks), std::move(inPitch), outPitch);
    return Status::ok();
  }
  *out = std::make_unique<BlockCopyKernel<true>>(outer, std::move(blocks));
  return Status::ok();
}

Status makeSplit(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  if (node.inputs.size() != 1 || !node.inputs[0]) return nodeError(node, "expected 1 operand");
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  if (!node.attributes.has("splits")) return nodeError(node, "missing required attribute 'splits'");
  std::vector<int64_t> splits = node.attributes.getInts("splits", {});
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, splits.size()));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x.shape.size(), &axis)) return nodeError(node, "axis is out of range");
  int64_t sum = 0;
  for (int64_t s : splits) {
    if (s < 0) return nodeError(node, "splits must be non-negative");
    // sum <= the axis size here, so the difference cannot overflow.
    if (s > x.shape[axis] - sum)
      return nodeError(node, "splits sum past the axis size " + std::to_string(x.shape[axis]));
    sum += s;
  }
  if (sum != x.shape[axis])
    return nodeError(node, "splits sum to " + std::to_string(sum) + " but the axis has size " +
                               std::to_string(x.shape[axis]));
  int64_t outer = 1, inner = int64_t(elementBytes(x.dtype));
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  std::vector<int64_t> blocks;
  for (size_t i = 0; i < splits.size(); ++i) {
    Shape s = x.shape;
    s[axis] = splits[i];
    WEBNN_RETURN_IF_ERROR(checkOutput(node, i, s, x.dtype));
    blocks.push_back(splits[i] * inner);
  }
  *out = std::make_unique<BlockCopyKernel<false>>(outer, std::move(blocks));
  return Status::ok();
}

// ---- gather: output = input[:axis] + indices.shape + input[axis+1:]. Indices
// are clamped per the spec: negative ones count from the end, then anything
// still out of [0, dim) is clamped to the nearest valid index.
template <typename I>
class GatherKernel final : public Kernel {
 public:
  GatherKernel(int64_t outer, int64_t axisLen, int64_t numIdx, int64_t innerBytes)
      : outer_(outer), axisLen_(axisLen), numIdx_(numIdx), inner_(innerBytes) {}
  Status run(const KernelContext &ctx) override {
    const uint8_t *x = in<uint8_t>(ctx, 0);
    const I *idx = in<I>(ctx, 1);
    uint8_t *y = outp<uint8_t>(ctx, 0);
    int64_t total = outer_ * numIdx_;
    parallelFor(ctx, total, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, inner_)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t o = t / numIdx_, k = t % numIdx_;
        int64_t i = int64_t(idx[k]);
        if constexpr (std::is_signed_v<I>)
          if (i < 0) i += axisLen_;
        i = std::min(std::max<int64_t>(i, 0), axisLen_ - 1);
        std::memcpy(y + t * inner_, x + (o * axisLen_ + i) * inner_, size_t(inner_));
      }
    });
    return Status::ok();
  }

 private:
  int64_t outer_, axisLen_, numIdx_, inner_;
};

Status makeGather(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 2, 1));
  const OperandDesc &x = *node.inputs[0], &ind = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  WEBNN_RETURN_IF_ERROR(checkDataType(node, ind, "indices",
                                      {DataType::kInt32, DataType::kUint32, DataType::kInt64, DataType::kUint64,
                                       DataType::kInt8, DataType::kUint8}));
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x.shape.size(), &axis)) return nodeError(node, "axis is out of range");
  Shape os(x.shape.begin(), x.shape.begin() + axis);
  os.insert(os.end(), ind.shape.begin(), ind.shape.end());
  os.insert(os.end(), x.shape.begin() + axis + 1, x.shape.end());
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, x.dtype));
  int64_t numIdx = numElements(ind.shape);
  if (x.shape[axis] == 0 && numIdx > 0 && numElements(os) > 0)
    return nodeError(node, "cannot gather from an empty axis");
  int64_t outer = 1, inner = int64_t(elementBytes(x.dtype));
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  dispatchType(ind.dtype, [&](auto tag) {
    using I = decltype(tag);
    if constexpr (std::is_integral_v<I>)
      *out = std::make_unique<GatherKernel<I>>(outer, x.shape[axis], numIdx, inner);
  });
  return Status::ok();
}

// ---- triangular: keeps the upper (j - i >= diagonal) or lower
// (j - i <= diagonal) triangle of the last two dims, zeroes the rest.
template <typename E>
class TriangularKernel final : public Kernel {
 public:
  TriangularKernel(int64_t batch, int64_t rows, int64_t cols, bool upper, int64_t diag)
      : batch_(batch), rows_(rows), cols_(cols), upper_(upper), diag_(diag) {}
  Status run(const KernelContext &ctx) override {
    const E *x = in<E>(ctx, 0);
    E *y = outp<E>(ctx, 0);
    parallelFor(ctx, batch_ * rows_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, cols_)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t i = t % rows_;
        const E *src = x + t * cols_;
        E *dst = y + t * cols_;
        for (int64_t j = 0; j < cols_; ++j) {
          bool keep = upper_ ? (j - i >= diag_) : (j - i <= diag_);
          dst[j] = keep ? src[j] : E(0);
        }
      }
    });
    return Status::ok();
  }

 private:
  int64_t batch_, rows_, cols_;
  bool upper_;
  int64_t diag_;
};

Status makeTriangular(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(rejectPacked(node, x));
  bool upper = node.attributes.getBool("upper", true);
  int64_t diag = node.attributes.getInt("diagonal", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (x.shape.size() < 2) return nodeError(node, "input must have rank >= 2");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
  int64_t batch = rows * cols == 0 ? 0 : numElements(x.shape) / (rows * cols);
  // Zero is all-zero bits in every supported type, so move raw elements.
  dispatchBytes(elementBytes(x.dtype), [&](auto tag) {
    *out = std::make_unique<TriangularKernel<decltype(tag)>>(batch, rows, cols, upper, diag);
  });
  return Status::ok();
}

}  // namespace

void registerShapeKernels(KernelTable &t) {
  t.add("concat", &makeConcat);
  t.add("split", &makeSplit);
  t.add("reshape", &makeReshape);
  t.add("expand", &makeExpand);
  t.add("transpose", &makeTranspose);
  t.add("slice", &makeSlice);
  t.add("gather", &makeGather);
  t.add("pad", &makePad);
  t.add("tile", &makeTile);
  t.add("reverse", &makeReverse);
  t.add("triangular", &makeTriangular);
}

}  // namespace webnn::cpu::kernels
