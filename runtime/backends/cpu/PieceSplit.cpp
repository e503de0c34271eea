#include "backends/cpu/PieceSplit.h"

#include <algorithm>
#include <atomic>

namespace webnn::cpu {

namespace {
std::atomic<bool (*)(const WinogradLayer &)> gWinogradTilesQuery{nullptr};
}  // namespace

bool winogradRunsFourByFourTiles(const WinogradLayer &l) {
  if (bool (*query)(const WinogradLayer &) = gWinogradTilesQuery.load(std::memory_order_acquire)) return query(l);
  return l.padTop != l.padBottom || winogradPrefersFourByFourTiles(l.C, l.O, l.OW);
}

void setWinogradTilesQuery(bool (*query)(const WinogradLayer &)) {
  gWinogradTilesQuery.store(query, std::memory_order_release);
}

namespace {
// Up to `most` pieces of whole blocks of output channels, each all of y's
// pixels (and all of x).
void channelPieces(const ConvSplitShape &p, int64_t most, ConvPiecePlan *plan) {
  const int64_t count = std::min<int64_t>(most, p.O / kPieceChannelBlock);
  const int64_t per = ((p.O + count - 1) / count + kPieceChannelBlock - 1) / kPieceChannelBlock * kPieceChannelBlock;
  plan->kind = PieceKind::kPieces;
  plan->by = ConvPiecePlan::By::kChannels;
  for (int64_t o0 = 0; o0 < p.O; o0 += per)
    plan->pieces.push_back({0, p.N, 0, p.OH, o0, std::min(per, p.O - o0)});
}
}  // namespace

ConvPiecePlan planConv2dPieces(const ConvSplitShape &p, int threads) {
  ConvPiecePlan plan;
  const double flops = 2.0 * double(p.N) * double(p.O) * double(p.OH) * double(p.OW) * double(p.C / p.groups) *
                       double(p.KH) * double(p.KW);
  // One output pixel is a matrix-vector product: the filter's bytes, read
  // once, are the cost, and two cores read them faster than one.
  const double filterBytes = double(p.O) * double(p.C / p.groups) * double(p.KH * p.KW) * (p.float16 ? 2 : 4);
  const double work = p.OH * p.OW == 1 ? std::max(flops, 2 * filterBytes) : flops;
  const bool oneTileHigh = p.winograd && p.groups == 1 && p.N == 1 && p.constantFilter &&
                           winogradBlocksOneTileHigh(p.C, p.O, p.OH, p.OW);
  const int64_t most = std::max<int64_t>(oneTileHigh ? 2 : 0, std::min<int64_t>(threads, int64_t(work / kMinPieceFlops)));
  if (most < 2) {
    plan.note = "one thread: too small to split";
    return plan;
  }
  // A filter given at run time would be packed by every piece on every run;
  // float16 nchw rows are not contiguous for the float16 staging; a residual
  // is copied into nchw rows by the whole only.
  if (!p.constantFilter || (!p.nhwc && (p.float16 || p.hasResidual))) {
    plan.kind = PieceKind::kOpenMp;
    plan.note = "OpenMP: this operand form is not split";
    return plan;
  }
  if (p.winograd && p.groups == 1 && p.N < most && p.O / most >= kWinogradPieceChannels) {
    channelPieces(p, most, &plan);
    return plan;
  }
  std::vector<ConvPiece> ranges;
  if (p.N >= most) {
    const int64_t per = (p.N + most - 1) / most;
    for (int64_t n0 = 0; n0 < p.N; n0 += per) ranges.push_back({n0, std::min(per, p.N - n0), 0, p.OH, 0, p.O});
    plan.by = ConvPiecePlan::By::kImages;
  } else {
    int64_t rows = std::min<int64_t>(p.OH, (most + p.N - 1) / p.N);
    const int64_t per = (p.OH + rows - 1) / rows;
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t oh0 = 0; oh0 < p.OH; oh0 += per) ranges.push_back({n, 1, oh0, std::min(p.OH, oh0 + per), 0, p.O});
    plan.by = ConvPiecePlan::By::kRows;
  }
  if (ranges.size() < 2 && p.nhwc && p.N == 1 && p.H == 1 && p.OH == 1 && p.KH == 1 && p.padTop == 0 &&
      p.OW >= 2) {
    // One row of one image (a conv1d lowered to conv2d): in nhwc its input
    // and output columns are contiguous runs, so pieces of output columns,
    // each reading its own input columns and padding, share the whole filter.
    const int64_t count = std::min<int64_t>(most, p.OW);
    const int64_t per = (p.OW + count - 1) / count;
    const int64_t spanW = (p.KW - 1) * p.dilationW + 1;
    std::vector<ConvPiece> columns;
    for (int64_t ow0 = 0; ow0 < p.OW; ow0 += per) {
      ConvPiece r{0, 1, 0, 1, 0, p.O};
      r.ow0 = ow0, r.ow1 = std::min(p.OW, ow0 + per);
      const int64_t first = r.ow0 * p.strideW - p.padLeft;
      const int64_t last = (r.ow1 - 1) * p.strideW - p.padLeft + spanW - 1;
      if (std::min<int64_t>(p.W, last + 1) <= std::max<int64_t>(0, first)) {
        plan.note = "one thread: a piece would read padding only";
        return plan;
      }
      columns.push_back(r);
    }
    plan.kind = PieceKind::kPieces;
    plan.by = ConvPiecePlan::By::kColumns;
    plan.pieces = std::move(columns);
    return plan;
  }
  if (ranges.size() < 2) {
    // One output pixel (a squeeze-excitation or classifier 1x1 layer after a
    // global pool): pieces of output channels, each its own filter rows and
    // a contiguous run of y.
    if (p.N == 1 && p.OH * p.OW == 1 && p.groups == 1 && p.O >= 2 * kPieceChannelBlock) {
      channelPieces(p, most, &plan);
      return plan;
    }
    plan.by = ConvPiecePlan::By::kNone;
    plan.note = "one thread: one output row";
    return plan;
  }
  // A piece whose input rows are padding only: such layers stay whole.
  const int64_t spanH = (p.KH - 1) * p.dilationH + 1;
  for (const ConvPiece &r : ranges) {
    const int64_t first = r.oh0 * p.strideH - p.padTop;
    const int64_t last = (r.oh1 - 1) * p.strideH - p.padTop + spanH - 1;
    if (std::min<int64_t>(p.H, last + 1) <= std::max<int64_t>(0, first)) {
      plan.by = ConvPiecePlan::By::kNone;
      plan.note = "one thread: a piece would read padding only";
      return plan;
    }
  }
  plan.kind = PieceKind::kPieces;
  plan.pieces = std::move(ranges);
  return plan;
}

MatMulPiecePlan planMatMulPieces(const std::vector<int64_t> &yDims, int64_t K, int threads,
                                 int piecesPerThread) {
  MatMulPiecePlan plan;
  const size_t r = yDims.size();
  if (r < 2) {
    plan.note = "one thread: too small to split";
    return plan;
  }
  double flops = 2.0 * double(K);
  for (int64_t d : yDims) flops *= double(d);
  const int64_t most = std::min<int64_t>(threads, int64_t(flops / kMinPieceFlops));
  if (most < 2) {
    plan.note = "one thread: too small to split";
    return plan;
  }
  // Pieces of rows each read all of b, and narrower pieces of columns run
  // narrower products: those stop at 2 per thread; pieces of the batch are
  // independent products and go down to the given count.
  const int64_t perThread = std::max(1, piecesPerThread);
  auto cutTo = [&](int64_t per) {
    return std::max<int64_t>(most, std::min<int64_t>(int64_t(threads) * per, int64_t(flops / kMinPieceFlops)));
  };
  int axis = -1;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (yDims[i] > 1) {
      axis = int(i);
      break;
    }
  }
  const int64_t M = yDims[r - 2], N = yDims[r - 1];
  int64_t count = 0, step = 1;
  if (axis >= 0) {
    count = std::min<int64_t>(cutTo(perThread), yDims[size_t(axis)]);
  } else if (M >= 2 * 8) {
    axis = int(r - 2);
    count = std::min<int64_t>(cutTo(std::min<int64_t>(perThread, 2)), M / 8);
  } else if (N >= 2 * kPieceColumnBlock) {
    axis = int(r - 1);
    count = std::min<int64_t>(cutTo(std::min<int64_t>(perThread, 2)), N / kPieceColumnBlock);
    step = kPieceColumnBlock;
  }
  if (count < 2) {
    plan.note = "one thread: too few rows and columns to split";
    return plan;
  }
  const int64_t extent = yDims[size_t(axis)];
  plan.kind = PieceKind::kPieces;
  plan.axis = axis;
  plan.per = ((extent + count - 1) / count + step - 1) / step * step;
  plan.count = (extent + plan.per - 1) / plan.per;
  return plan;
}

}  // namespace webnn::cpu
