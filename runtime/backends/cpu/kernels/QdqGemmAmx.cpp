// AMX loop of quantizedMatmul's integer GEMM (QdqGemm.h): TDPBUSD multiplies
// a 16-row x 64-byte tile of unsigned A with a 64-k x 16-column tile of signed
// B into 16 x 16 int32 sums, 16K multiply-adds per instruction where vpdpbusd
// does 64: the packed B's [K/4][16][4] panel is already the layout a B tile
// reads (16 rows of 64 bytes, stride 64), so prepacked artifacts serve both.
// Compiled for AMX-TILE/INT8 and AVX-512 (the epilogue, the rows under 16) by
// the pragma below; runs only where amxInt8Available() says so.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,amx-tile,amx-int8")

#include <immintrin.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cpuid.h>
#include <cstring>
#include <new>
#include <vector>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/kernels/QdqEpilogueAvx512.h"
#include "runtime/backends/cpu/kernels/QdqGemm.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"

namespace webnn::cpu::kernels {

bool amxInt8Supported() {
  static const bool ok = [] {
    // The epilogue and the rows left under a tile run on AVX-512 VNNI.
    if (!avx512Available()) return false;
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    if (!((d >> 24) & 1) || !((d >> 25) & 1)) return false;  // amx-tile, amx-int8
    // Linux hands out the 8 KB tile state only to a process that asks
    // (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); without it the first tile
    // instruction faults. The request fails where the kernel or the
    // hypervisor does not enable the state.
#if defined(__linux__)
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
  }();
  return ok;
}

bool amxInt8Available() { return debugOptions().amxInt8.load() && amxInt8Supported(); }
void setAmxInt8Enabled(bool enabled) { debugOptions().amxInt8.store(enabled); }

namespace {

// Tiles 0-3: the sums of row block r (16 rows) and panel j at 2r + j; 4-5:
// A of row blocks 0 and 1 (16 rows x 64 bytes); 6-7: B of panels 0 and 1
// (16 rows of 4 k x 16 columns). All 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t startRow = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

const TileConfig &tileConfig() {
  static const TileConfig c = [] {
    TileConfig t;
    for (int i = 0; i < 8; ++i) t.colsb[i] = 64, t.rows[i] = 16;
    return t;
  }();
  return c;
}

constexpr int64_t kBlockK4 = 16;  // 4-k groups per tile step (64 k)
constexpr int64_t kAccStride = 32;  // int32 per row of the sums buffer (two panels)

// The sums of MB row blocks x NP panels over all of K, left in tiles 0-3:
// kFull whole steps from the tiled A (a0, a1: row blocks of [step][16][64]
// bytes) and the packed panels, then, when K4 is not a multiple of 16, one
// step from A's zero padded last step and bTail (a zero padded copy of the
// panels' rest, so no tile reads past the packed B).
template <int MB, int NP>
void sums(const uint8_t *a0, const uint8_t *a1, const int8_t *b0, const int8_t *b1, int64_t kFull, bool tail,
          const int8_t *bTail0, const int8_t *bTail1) {
  // GCC's tile loads are asm without a memory operand: the copies they read
  // must be in memory before them.
  asm volatile("" ::: "memory");
  _tile_zero(0);
  if constexpr (NP == 2) _tile_zero(1);
  if constexpr (MB == 2) {
    _tile_zero(2);
    if constexpr (NP == 2) _tile_zero(3);
  }
  for (int64_t kb = 0; kb < kFull; ++kb) {
    _tile_loadd(4, a0 + kb * 1024, 64);
    _tile_loadd(6, b0 + kb * 1024, 64);
    _tile_dpbusd(0, 4, 6);
    if constexpr (NP == 2) {
      _tile_loadd(7, b1 + kb * 1024, 64);
      _tile_dpbusd(1, 4, 7);
    }
    if constexpr (MB == 2) {
      _tile_loadd(5, a1 + kb * 1024, 64);
      _tile_dpbusd(2, 5, 6);
      if constexpr (NP == 2) _tile_dpbusd(3, 5, 7);
    }
  }
  if (tail) {
    _tile_loadd(4, a0 + kFull * 1024, 64);
    _tile_loadd(6, bTail0, 64);
    _tile_dpbusd(0, 4, 6);
    if constexpr (NP == 2) {
      _tile_loadd(7, bTail1, 64);
      _tile_dpbusd(1, 4, 7);
    }
    if constexpr (MB == 2) {
      _tile_loadd(5, a1 + kFull * 1024, 64);
      _tile_dpbusd(2, 5, 6);
      if constexpr (NP == 2) _tile_dpbusd(3, 5, 7);
    }
  }
}

// Tiles 0-3 to acc[MB * 16][32].
template <int MB, int NP>
void storeSums(int32_t *acc) {
  _tile_stored(0, acc, kAccStride * 4);
  if constexpr (NP == 2) _tile_stored(1, acc + 16, kAccStride * 4);
  if constexpr (MB == 2) {
    _tile_stored(2, acc + 16 * kAccStride, kAccStride * 4);
    if constexpr (NP == 2) _tile_stored(3, acc + 16 * kAccStride + 16, kAccStride * 4);
  }
}

// Rows [m, m + rows) x panels p .. p + np - 1 of Y from the sums in acc: the
// zero point terms, the scale and the epilogue, as qdqGemmAvx512Vnni's.
void epilogue(const int32_t *acc, const int32_t *rowSum, const QdqPackedB &B, int64_t N, int64_t m, int rows,
              int64_t p, int np, float *Y, int64_t ldy, const QdqEpilogue &e) {
  for (int j = 0; j < np; ++j) {
    const int64_t n0 = (p + j) * kQdqPanel;
    const QdqPanelEpilogueAvx512 out(B, N, n0, e);
    for (int r = 0; r < rows; ++r)
      out.store(_mm512_load_si512(acc + r * kAccStride + j * 16), rowSum[m + r], Y + (m + r) * ldy + n0);
  }
}

// The sums of the last block, stored, whose epilogue is still to run.
struct Pending {
  alignas(64) int32_t acc[2][32 * kAccStride];
  int cur = 0;  // acc[cur] takes the next block's sums
  int64_t m = 0, p = 0;
  int rows = 0, np = 0;  // rows 0: none

  void flush(const int32_t *rowSum, const QdqPackedB &B, int64_t N, float *Y, int64_t ldy, const QdqEpilogue &e) {
    if (rows) epilogue(acc[cur ^ 1], rowSum, B, N, m, rows, p, np, Y, ldy, e);
    rows = 0;
  }
};

// Rows [m0, m1) x panels p, p + 1 (np = 1 or 2): rows [m0, mTiles) from the
// tiled A in blocks of 32 rows, then one of 16, then the rows left (under
// 16) on the VNNI loop from A while the panels are in cache. Each block's
// epilogue is issued after the next block's tile instructions (this pair's
// or the next one's), so the vector ports may work while the TMUL unit does;
// the stores that wait for the sums come last.
void panelRows(const uint8_t *A, int64_t lda, const uint8_t *aTiles, const int32_t *rowSum, const QdqPackedB &B,
               int64_t K, int64_t N, int64_t m0, int64_t mTiles, int64_t m1, int64_t p, int np, float *Y, int64_t ldy,
               const QdqEpilogue &e, Pending &pending) {
  const int64_t K4 = qdqK4(K), kFull = K4 / kBlockK4, tailK4 = K4 % kBlockK4;
  const int64_t groupBytes = (kFull + (tailK4 ? 1 : 0)) * 1024;  // one 16-row block of aTiles
  const int64_t panelBytes = K4 * kQdqPanel * 4;
  const int8_t *b0 = B.panels + p * panelBytes;
  const int8_t *b1 = np == 2 ? b0 + panelBytes : b0;
  alignas(64) int8_t bTail[2][kBlockK4 * 64];
  if (tailK4) {
    std::memset(bTail, 0, sizeof(bTail));
    std::memcpy(bTail[0], b0 + kFull * 1024, size_t(tailK4 * 64));
    std::memcpy(bTail[1], b1 + kFull * 1024, size_t(tailK4 * 64));
  }
  // A weight B comes from memory on every run (BERT-base's do not fit the
  // cache): each block prefetches its share of the next pair into L2, as the
  // VNNI loop does, for panels of up to 16 KB (longer ones are streams the
  // hardware prefetcher follows).
  const int64_t nextPanels = std::max<int64_t>(0, std::min<int64_t>(2, qdqPanels(N) - (p + np)));
  const int64_t nextBytes = panelBytes <= 16384 ? nextPanels * panelBytes : 0;
  const char *next = reinterpret_cast<const char *>(B.panels + (p + np) * panelBytes);
  const int64_t blocks = std::max<int64_t>(1, (mTiles - m0) / 32 + ((mTiles - m0) % 32 >= 16));
  const int64_t share = (nextBytes / blocks + 63) / 64 * 64;
  int64_t ahead = 0;
  auto block = [&](int64_t m, int rows) {
    const uint8_t *a0 = aTiles + (m - m0) / 16 * groupBytes, *a1 = a0 + groupBytes;
    if (rows == 32) {
      if (np == 2) sums<2, 2>(a0, a1, b0, b1, kFull, tailK4 != 0, bTail[0], bTail[1]);
      else sums<2, 1>(a0, a1, b0, b1, kFull, tailK4 != 0, bTail[0], bTail[1]);
    } else {
      if (np == 2) sums<1, 2>(a0, a1, b0, b1, kFull, tailK4 != 0, bTail[0], bTail[1]);
      else sums<1, 1>(a0, a1, b0, b1, kFull, tailK4 != 0, bTail[0], bTail[1]);
    }
    for (const int64_t end = std::min(nextBytes, ahead + share); ahead < end; ahead += 64)
      _mm_prefetch(next + ahead, _MM_HINT_T1);
    pending.flush(rowSum, B, N, Y, ldy, e);
    int32_t *acc = pending.acc[pending.cur];
    if (rows == 32) {
      if (np == 2) storeSums<2, 2>(acc);
      else storeSums<2, 1>(acc);
    } else {
      if (np == 2) storeSums<1, 2>(acc);
      else storeSums<1, 1>(acc);
    }
    pending.m = m, pending.rows = rows, pending.p = p, pending.np = np, pending.cur ^= 1;
  };
  int64_t m = m0;
  for (; m + 32 <= mTiles; m += 32) block(m, 32);
  if (m + 16 <= mTiles) block(m, 16);
  if (mTiles < m1) qdqGemmAvx512Vnni(A, lda, rowSum, B, K, N, mTiles, m1, p, p + np, Y, ldy, e);
}

// Rows [m0, m0 + 16 * groups) of A (row stride lda, K4 * 4 bytes each) as
// 16-row blocks of [step][16][64] bytes, the last step zero padded: each A
// tile one contiguous KB, as the B tiles are.
void tileA(const uint8_t *A, int64_t lda, int64_t K, int64_t m0, int64_t groups, uint8_t *out) {
  const int64_t K4 = qdqK4(K), steps = (K4 + kBlockK4 - 1) / kBlockK4, rowBytes = K4 * 4;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t s = 0; s < steps; ++s) {
      uint8_t *dst = out + (g * steps + s) * 1024;
      const int64_t bytes = std::min<int64_t>(64, rowBytes - s * 64);
      for (int64_t r = 0; r < 16; ++r) {
        const uint8_t *src = A + (m0 + g * 16 + r) * lda + s * 64;
        if (bytes == 64) {
          _mm512_store_si512(dst + r * 64, _mm512_loadu_si512(src));
        } else {
          const __mmask64 mask = (uint64_t(1) << bytes) - 1;
          _mm512_store_si512(dst + r * 64, _mm512_maskz_loadu_epi8(mask, src));
        }
      }
    }
}

}  // namespace

void qdqGemmAmx(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K, int64_t N,
                int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy, const QdqEpilogue &e) {
  if (m1 - m0 < 16) {  // no whole tile of rows
    qdqGemmAvx512Vnni(A, lda, rowSum, B, K, N, m0, m1, p0, p1, Y, ldy, e);
    return;
  }
  // A tiled once per call for all the panels (a call is a thread's range of
  // panels): tile loads from one contiguous KB each, not 16 rows lda apart,
  // measured faster on every BERT-base shape.
  const int64_t groups = (m1 - m0) / 16, mTiles = m0 + groups * 16;
  const int64_t steps = (qdqK4(K) + kBlockK4 - 1) / kBlockK4;
  // Per thread, kept: the largest A this thread has tiled (BERT-base's ff2:
  // 384 KB). Memory refused here leaves the call to the VNNI loop (the same
  // results) rather than throw on a pool thread.
  thread_local std::vector<uint8_t> scratch;
  const size_t bytes = size_t(groups * steps * 1024 + 64);
  if (scratch.size() < bytes) {
    try {
      scratch.resize(bytes);
    } catch (const std::bad_alloc &) {
      qdqGemmAvx512Vnni(A, lda, rowSum, B, K, N, m0, m1, p0, p1, Y, ldy, e);
      return;
    }
  }
  uint8_t *aTiles = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  tileA(A, lda, K, m0, groups, aTiles);
  // The tile configuration is per thread and other code on this thread
  // (oneDNN's AMX kernels) may load its own: load ours on entry, release on
  // exit, so no tile state outlives the call.
  _tile_loadconfig(&tileConfig());
  Pending pending;
  int64_t p = p0;
  for (; p + 2 <= p1; p += 2) panelRows(A, lda, aTiles, rowSum, B, K, N, m0, mTiles, m1, p, 2, Y, ldy, e, pending);
  if (p < p1) panelRows(A, lda, aTiles, rowSum, B, K, N, m0, mTiles, m1, p, 1, Y, ldy, e, pending);
  pending.flush(rowSum, B, N, Y, ldy, e);
  _tile_release();
}

}  // namespace webnn::cpu::kernels

#else
#include "runtime/backends/cpu/kernels/QdqGemm.h"
namespace webnn::cpu::kernels {
bool amxInt8Supported() { return false; }
bool amxInt8Available() { return false; }
void setAmxInt8Enabled(bool) {}
void qdqGemmAmx(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K, int64_t N,
                int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy, const QdqEpilogue &e) {
  qdqGemmPortable(A, lda, rowSum, B, K, N, m0, m1, p0, p1, Y, ldy, e);
}
}  // namespace webnn::cpu::kernels
#endif
