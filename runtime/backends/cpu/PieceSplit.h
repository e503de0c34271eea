// How a multi-threaded run cuts a oneDNN convolution or matmul into
// single-threaded pieces on the session's pool (onednn/Conv2d.cpp,
// onednn/MatMul.cpp), from shapes alone: the runtime builds its pieces from
// these plans, and the estimator (CostFunctions.cpp) prices the same pieces.
// No oneDNN header: both sides include it.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_PIECESPLIT_H
#define WEBNN_RUNTIME_BACKENDS_CPU_PIECESPLIT_H

#include <cstdint>
#include <vector>

namespace webnn::cpu {

// Below this many FLOPs per piece, splitting costs more than it gains: a
// piece is one oneDNN call (argument plumbing, a few microseconds) and a
// claim by the pool's threads.
constexpr double kMinPieceFlops = double(1 << 19);
// Convolution pieces of output channels are whole multiples of this
// (oneDNN's blocking); matmul column pieces, of kPieceColumnBlock (oneDNN's
// widest register block).
constexpr int64_t kPieceChannelBlock = 16;
constexpr int64_t kPieceColumnBlock = 64;
// A Winograd layer is cut by output channels when every piece keeps at least
// this many: each piece then runs the whole layer's algorithm and tiles (row
// pieces get other tiles, and padding on one side only, which oneDNN's 2x3
// kernel refuses: ResNet-50's 14x14 layers ran slower on two threads than
// on one), at the price of repeating the input transform per piece, which
// the matrix products of narrower pieces no longer repay (DenseNet's 32).
constexpr int64_t kWinogradPieceChannels = 64;

enum class PieceKind {
  kOneThread,  // whole on the calling thread (too small to cut)
  kOpenMp,     // whole on OpenMP's team (this operand form is not cut)
  kPieces,     // the ranges below, one single-threaded piece each
};

// ---- convolution.
// Where oneDNN's Winograd layer (or piece) takes 4x4 output tiles
// (jit_wino_4x3) instead of its first choice, 2x2 (jit_fp32_wino_2x3):
// whole 4-column tiles, >= 64 input channels, and rows of >= 56, or of
// >= 28 into <= 64 output channels: there the larger tiles' fewer
// multiplies win; with fewer columns or input channels, and at 28 columns
// into many channels, their longer transforms lose (docs/PERFORMANCE.md,
// issue 19). By columns and channels, which a piece cut by rows keeps.
// onednn/Conv2d.cpp builds by it and CostFunctions prices by it.
inline bool winogradPrefersFourByFourTiles(int64_t C, int64_t O, int64_t OW) {
  return OW % 4 == 0 && C >= 64 && (OW >= 56 || (OW >= 28 && O <= 64));
}

// A 3x3 stride-1 Winograd layer (or piece), as the estimate sees it.
struct WinogradLayer {
  int64_t C = 0, O = 0, H = 0, W = 0, OH = 0, OW = 0;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
};
// Whether oneDNN runs the layer on 4x4 output tiles. Beyond the rule above,
// its 2x2-tile kernel refuses shapes by this CPU's cache sizes (on a Zen 5
// with 1 MiB of L2, 28x28 128 -> 192, which the Xeon's 2 MiB takes), and
// then the 4x4 one runs; a piece padded on one side runs 4x4 tiles too. The
// oneDNN wrapper installs a query that asks oneDNN itself
// (onednn::installWinogradTilesQuery); without one, the rule and the padding.
bool winogradRunsFourByFourTiles(const WinogradLayer &layer);
void setWinogradTilesQuery(bool (*query)(const WinogradLayer &));

// Where oneDNN's 2x2-tile Winograd kernel (jit_fp32_wino_2x3) would block
// its matrix products one tile high: its register block is a divisor of the
// tile count by a divisor of the 16-channel output blocks, within 30
// registers, and a 13x13 or 14x14 output's 49 tiles (divisors 1, 7, 49)
// beside 11 or 13 blocks (7 tiles leave room for at most 3 blocks, and
// neither count has a divisor 2 or 3) leave it one tile by all the blocks.
// From 64 input channels such a layer runs as two pieces of output channels
// even on one thread, each blocked 7 tiles high: up to twice as fast as the
// whole layer and faster than direct (GoogLeNet's inception4a 96 -> 208 at
// 14x14; at 32 input channels a tie; docs/PERFORMANCE.md). 28x28 and 7x7
// layers get other tiles per block and stay whole.
inline bool winogradBlocksOneTileHigh(int64_t C, int64_t O, int64_t OH, int64_t OW) {
  const int64_t blocks = O / 16;
  return O % 16 == 0 && (blocks == 11 || blocks == 13) && (OH == 13 || OH == 14) && (OW == 13 || OW == 14) &&
         C >= 64;
}

// Where oneDNN's direct convolution beats its Winograd in a graph: few
// input channels on a small map (fewer than 32 at 14x14 or less, fewer than
// 64 at 7x7 or less). There the reorders to and from nChw16c, the
// transforms and a filter of 16/9 the direct one's bytes, read cold in a
// graph, cost more than the multiplies saved; with the filter warm
// (a layer timed alone) Winograd still wins. Measured per node in
// GoogLeNet (24 -> 64 at 14x14, 32 and 48 -> 128 at 7x7: direct faster;
// 16 -> 48 at 14x14 a tie; 32 channels at 14x14 and 16 at 28x28 no gain)
// and SqueezeNet (16 and 32 channels at 55x55 and 27x27: direct slower).
// onednn/Conv2d.cpp builds by it.
inline bool winogradLosesOnSmallMaps(int64_t C, int64_t OH, int64_t OW) {
  const int64_t pixels = OH * OW;
  return (C < 32 && pixels <= 196) || (C < 64 && pixels <= 49);
}

struct ConvSplitShape {
  int64_t N = 1, C = 1, H = 1, W = 1, O = 1, OH = 1, OW = 1, KH = 1, KW = 1, groups = 1;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, padTop = 0, padLeft = 0;
  bool nhwc = true;
  bool float16 = false;
  bool constantFilter = true;
  bool hasResidual = false;
  bool winograd = false;  // the whole layer runs one of oneDNN's Winograd algorithms
};
struct ConvPiece {
  int64_t n0 = 0, n = 1;    // images
  int64_t oh0 = 0, oh1 = 0; // output rows
  int64_t o0 = 0, o = 0;    // output channels (pieces of channels; else all of them)
  int64_t ow0 = 0, ow1 = 0; // output columns (pieces of columns only)
};
struct ConvPiecePlan {
  PieceKind kind = PieceKind::kOneThread;
  enum class By { kNone, kImages, kRows, kColumns, kChannels } by = By::kNone;
  std::vector<ConvPiece> pieces;
  const char *note = "";  // why it is not cut, when it is not
};
// The pieces for `threads` threads: images first, then (a wide Winograd
// layer; one image of one blocked one tile high, winogradBlocksOneTileHigh,
// even on one thread: two pieces) output channels, then output rows (each piece reading its own input
// rows and padding), then, for one nhwc image of one row (a conv1d), output
// columns, then, for one output pixel, output channels.
ConvPiecePlan planConv2dPieces(const ConvSplitShape &s, int threads);

// ---- matmul: y[..., M, N] = a[..., M, K] x b[..., K, N].
struct MatMulPiecePlan {
  PieceKind kind = PieceKind::kOneThread;
  int axis = -1;       // the dimension of y cut
  int64_t per = 0;     // its extent per piece (the last piece may be shorter)
  int64_t count = 0;   // pieces
  const char *note = "";
};
// The outermost batch dimension of extent > 1 with only extent-1 dimensions
// outside it; else rows; else columns. piecesPerThread > 1 cuts each
// thread's share further (down to kMinPieceFlops, whole rows of 8 and
// column blocks), for a pool whose faster threads take a slower one's
// pieces (onednn/MatMul.cpp); 1 gives each thread's share, as priced.
MatMulPiecePlan planMatMulPieces(const std::vector<int64_t> &yDims, int64_t K, int threads,
                                 int piecesPerThread = 1);

}  // namespace webnn::cpu

#endif
