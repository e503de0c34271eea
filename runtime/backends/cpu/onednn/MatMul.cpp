// matmul and gemm on oneDNN's matmul primitive (brgemm kernels on AVX-512).
//
// A constant B is reordered once into the primitive's blocked layout
// (format_tag::any): the plain layout is sensitive to N's stride (up to
// ~10x slower for a BERT-sized matmul) and a GEMV on it reads B about 3x
// slower. A non-constant B is used in place when oneDNN
// has an optimized kernel for its strides, else reordered per call.
// gemm's alpha is an output scale and beta * c a sum post-op on a destination
// pre-filled with c broadcast to [M, N] (one pass over M*N, against M*N*K).
// When B has no batch (all batch dims 1), a's batch folds into M: one large
// GEMM instead of many small ones.
// Relaxed precision (MatMulParams::bf16): a and b in bf16, accumulation, y,
// alpha and the c post-op in float32. a is converted by a per-call reorder
// (M x K, small beside the M x N x K product), a constant b once when packed;
// a non-constant b is converted per call, so only when M >= 16 amortizes it.
//
// Threads: as Conv2d.cpp, primitives are built for one thread and a product
// run on several threads is cut into pieces the session's pool runs: ranges
// of the outermost batch dimension, else of y's rows, else (a few rows, as
// in a classifier or a decode step) of y's columns, each piece then packing
// its own columns of a constant b. The pieces run as the pool's units
// (ThreadPool::parallelForUnits), up to kPiecesPerThread of the batch per
// thread (rows and columns: 2), so that a thread on a faster core takes
// pieces from a slower one's share instead of waiting for it: attention's
// 12 heads in ViT-B/16 and BERT-base run as 12 pieces on 2 threads.
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "runtime/backends/cpu/PieceSplit.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Float16.h"
#include "runtime/backends/cpu/onednn/Context.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

namespace {

constexpr int kPiecesPerThread = 8;

memory::dims contiguous(const memory::dims &d) {
  memory::dims s(d.size(), 1);
  for (int i = int(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
  return s;
}

}  // namespace

struct MatMul::Impl : PrimitiveState {
  MatMulParams p;
  int64_t M = 0, N = 0;  // of the (possibly folded) problem, for c
  memory::desc userA, userB, userY;
  std::string variant;

  // Prepared for readyThreads (PrimitiveState):
  memory a, b, y, scratch;
  std::unordered_map<int, memory> args;
  bool reorderA = false, reorderB = false, reorderY = false, bPacked = false;
  bool usesPrepacked = false;
  bool castA = false;  // bf16 a, row-major as the caller's: floatToBf16, no reorder
  Reorder aIn, yOut;
  WeightPacker bPack;
  AlignedBuffer bBuf;
  size_t aWork = 0, yWork = 0, scratchWork = 0, workBytes = 0;  // offsets in threadWorkspace()
  HalfStage aHalf, bHalf, yHalf;  // float16 operands only
  int64_t aCount = 0, bCount = 0, yCount = 0;
  // The (possibly folded) problem as described to oneDNN.
  memory::dims aDims, aStrides, bDims, bStrides, yDims, yStrides;
  // Pieces of the same product prepared before this one: a packed b in the
  // layout this primitive wants is shared, not packed again.
  std::vector<const Impl *> bDonors;
  bool bShared = false;

  struct Piece {
    std::unique_ptr<Impl> impl;
    int64_t aOffset = 0, bOffset = 0, cOffset = 0, yOffset = 0;  // elements
  };
  std::mutex piecesMutex;
  int piecesThreads = 0;
  bool mayCut(int threads) const { return threads > 1; }
  Split split = Split::kUnknown;
  bool piecesPrepared = false;
  std::vector<Piece> pieces;
  std::string splitNote;

  bool f16() const { return p.dtype == DataType::kFloat16; }
  const void *bF32(const void *b, HalfStage *stage) const {
    if (!f16()) return b;
    stage->init(bCount);
    return stage->in(b);
  }

  // A constant b is copied once into the primitive's layout `primB` when that
  // differs from the caller's, or to convert float16.
  bool packsConstantB(const memory::desc &primB) const { return p.constantB && (!(primB == userB) || f16()); }

  void prepare(const void *bData, int threads) {
    std::lock_guard<std::mutex> lock(mutex);
    if (readyThreads == threads) return;
    entry = primitiveFor(threads);
    const dnnl::primitive_desc_base &pd = entry->pd;
    memory::desc primA = pd.src_desc(), primB = pd.weights_desc(), primY = pd.dst_desc();
    dnnl::engine &eng = cpuEngine();
    castA = primA.data_type() == memory::data_type::bf16 &&
            primA == memory::desc(userA.dims(), memory::data_type::bf16, contiguous(userA.dims())) &&
            userA == memory::desc(userA.dims(), memory::data_type::f32, contiguous(userA.dims()));
    reorderA = !castA && !(primA == userA);
    WorkspaceLayout work;  // per-call buffers: offsets in threadWorkspace()
    if (castA) {
      aWork = work.add(primA.get_size());
      a = memory(primA, eng, DNNL_MEMORY_NONE);
    } else if (reorderA) {
      aWork = work.add(primA.get_size());
      aIn.init(userA, nullptr, primA, nullptr);
      a = aIn.to;
    } else {
      a = memory(primA, eng, DNNL_MEMORY_NONE);
    }
    reorderB = !(primB == userB);
    // As Conv2d: a b prepacked at compile time for exactly this layout is
    // used from the artifact's mapping.
    const void *prepacked =
        packsConstantB(primB) ? findPacked(p.packedB, packedLayoutName(primB), primB.get_size()) : nullptr;
    const Impl *donor = nullptr;
    for (const Impl *d : bDonors)
      if (packsConstantB(primB) && d->bPacked && d->b.get_desc() == primB) donor = d;
    bShared = donor != nullptr;
    if (donor) prepacked = nullptr;
    usesPrepacked = prepacked != nullptr || (donor && donor->usesPrepacked);
    if (!reorderB && p.constantB && f16() && !prepacked && !donor) bBuf.resize(primB.get_size());
    if (donor) {
      b = memory(primB, eng, donor->b.get_data_handle());
    } else if (prepacked) {
      b = memory(primB, eng, const_cast<void *>(prepacked));  // primitives only read weights
    } else if (reorderB) {
      bBuf.resize(primB.get_size());
      bPack.init(userB, primB, bBuf.data());
      b = memory(primB, eng, bBuf.data());
    } else {
      b = memory(primB, eng, DNNL_MEMORY_NONE);
    }
    reorderY = !(primY == userY);
    if (reorderY) {
      yWork = work.add(primY.get_size());
      yOut.init(primY, nullptr, userY, nullptr);
      y = yOut.from;
    } else {
      y = memory(primY, eng, DNNL_MEMORY_NONE);
    }
    memory::desc sp = pd.scratchpad_desc();
    scratchWork = work.add(sp.get_size());
    workBytes = work.bytes;
    scratch = memory(sp, eng, DNNL_MEMORY_NONE);
    args = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, y}, {DNNL_ARG_SCRATCHPAD, scratch}};
    entry->get();
    bPacked = false;
    if (f16()) {
      aHalf.init(aCount);
      yHalf.init(yCount);
    }
    if (usesPrepacked || bShared) {
      bPacked = true;
    } else if (packsConstantB(primB)) {
      HalfStage once;  // freed after packing: only the packed copy is kept
      const void *b32 = bF32(bData, &once);
      if (reorderB) {
        bPack.run(b32, nullptr);
      } else {  // float16 b already in the primitive's layout once converted
        std::memcpy(bBuf.data(), b32, size_t(bCount) * sizeof(float));
        b.set_data_handle(bBuf.data());
      }
      bPacked = true;
      releasePackedSource(bData, size_t(bCount) * (p.dtype == DataType::kFloat16 ? 2 : 4));
    }
    readyThreads = threads;
  }

  // The sum post-op's input: c broadcast to [M, N] in float32.
  void fillC(const void *c, float *dst) const {
    for (int64_t m = 0; m < M; ++m) {
      float *row = dst + m * N;
      if (f16()) {
        const uint16_t *cr = static_cast<const uint16_t *>(c) + m * p.cRowStride;
        for (int64_t n = 0; n < N; ++n) row[n] = kernels::halfToFloat(cr[n * p.cColStride]);
      } else {
        const float *cr = static_cast<const float *>(c) + m * p.cRowStride;
        if (cr == row && p.cColStride == 1) continue;  // c is already in place
        for (int64_t n = 0; n < N; ++n) row[n] = cr[n * p.cColStride];
      }
    }
  }

  Status execute(const void *a, const void *b, const void *c, void *y, int numThreads);
  void choosePieces(int threads);
  // Pieces along plan's axis; false (and *note says why) when a piece has no
  // optimized primitive, or a brgemm one when `brgemm`.
  bool makePieces(const MatMulPiecePlan &plan, bool brgemm, std::vector<Piece> *made, std::string *note);
  Impl &bOwner(int numThreads);
};

namespace {
std::unique_ptr<MatMul::Impl> makeImpl(const MatMulParams &p, std::string *why, bool piece);
}  // namespace

MatMul::MatMul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MatMul::~MatMul() = default;

std::unique_ptr<MatMul> MatMul::create(const MatMulParams &p, std::string *why) {
  std::unique_ptr<Impl> impl = makeImpl(p, why, /*piece=*/false);
  if (!impl) return nullptr;
  return std::unique_ptr<MatMul>(new MatMul(std::move(impl)));
}

namespace {
// A piece of a larger product skips the size policy (the whole passed it)
// and may write y through strides while adding c (its columns of y).
std::unique_ptr<MatMul::Impl> makeImpl(const MatMulParams &p, std::string *why, bool piece) {
  using Impl = MatMul::Impl;
  Policy pol = policy();
  if (!pol.enabled) {
    *why = "oneDNN disabled";
    return nullptr;
  }
  size_t r = p.yDims.size();
  if (r < 2 || r > 12 || p.aDims.size() != r || p.bDims.size() != r || p.aStrides.size() != r ||
      p.bStrides.size() != r || (p.hasC && r != 2) ||
      (!p.yStrides.empty() && (p.yStrides.size() != r || (p.hasC && !piece) || p.dtype != DataType::kFloat32)) ||
      (p.dtype != DataType::kFloat32 && p.dtype != DataType::kFloat16)) {
    *why = "unsupported operands";
    return nullptr;
  }
  double flops = 2.0;
  for (int64_t d : p.yDims) flops *= double(d);
  flops *= double(p.aDims[r - 1]);
  if (flops < pol.minFlops && !piece) {
    *why = "too small";
    return nullptr;
  }
  memory::dims aDims = p.aDims, bDims = p.bDims, yDims = p.yDims, aStrides = p.aStrides, bStrides = p.bStrides;
  // Fold a's batch into M when b is shared by every batch and a is row-major.
  bool bUnbatched = true;
  for (size_t i = 0; i + 2 < r; ++i) bUnbatched &= bDims[i] == 1;
  if (r > 2 && bUnbatched && aStrides == contiguous(aDims) && p.yStrides.empty()) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < r; ++i) rows *= aDims[i];
    aDims = {rows, aDims[r - 1]};
    aStrides = {aDims[1], 1};
    bDims = {bDims[r - 2], bDims[r - 1]};
    bStrides = {bStrides[r - 2], bStrides[r - 1]};
    yDims = {rows, yDims[r - 1]};
  }
  // float16 is converted to float32 in the caller's layout first (HalfStage).
  memory::data_type udt = memory::data_type::f32, f32 = memory::data_type::f32;
  auto impl = std::make_unique<Impl>();
  impl->p = p;
  impl->M = yDims[yDims.size() - 2];
  impl->N = yDims.back();
  impl->userA = memory::desc(aDims, udt, aStrides);
  impl->userB = memory::desc(bDims, udt, bStrides);
  impl->userY = memory::desc(yDims, udt, p.yStrides.empty() ? contiguous(yDims) : memory::dims(p.yStrides));
  impl->aDims = aDims;
  impl->aStrides = aStrides;
  impl->bDims = bDims;
  impl->bStrides = bStrides;
  impl->yDims = yDims;
  impl->yStrides = p.yStrides.empty() ? contiguous(yDims) : memory::dims(p.yStrides);
  auto count = [](const memory::dims &d, const memory::dims &st) {
    int64_t n = 1;  // elements spanned by a dense (possibly transposed) operand
    for (size_t i = 0; i < d.size(); ++i) n += (d[i] - 1) * st[i];
    return n;
  };
  impl->aCount = count(aDims, aStrides);
  impl->bCount = count(bDims, bStrides);
  impl->yCount = count(yDims, contiguous(yDims));
  memory::desc plainY(yDims, f32, contiguous(yDims));
  memory::desc plainA(aDims, f32, contiguous(aDims));
  memory::desc anyB(bDims, f32, Tag::any);
  memory::desc userA32(aDims, f32, aStrides), userB32(bDims, f32, bStrides);
  struct Variant {
    memory::desc a, b;
    const char *name;
  };
  std::vector<Variant> variants;
  std::string noBf16;
  if (p.bf16 && p.dtype == DataType::kFloat32 && (p.constantB || impl->M >= 16) && bf16Available(&noBf16)) {
    // float32 variants follow, for shapes oneDNN has no optimized bf16 kernel for.
    memory::data_type bf = memory::data_type::bf16;
    variants.push_back({memory::desc(aDims, bf, contiguous(aDims)), memory::desc(bDims, bf, Tag::any),
                        p.constantB ? "bf16, b packed" : "bf16, b reordered"});
  }
  if (p.constantB) {
    variants.push_back({userA32, anyB, "a in place, b packed"});
    variants.push_back({plainA, anyB, "a reordered, b packed"});
  } else {
    variants.push_back({userA32, userB32, "a, b in place"});
    variants.push_back({plainA, userB32, "a reordered, b in place"});
    variants.push_back({userA32, anyB, "a in place, b reordered"});
    variants.push_back({plainA, anyB, "a, b reordered"});
  }
  float alpha = p.alpha, beta = p.hasC ? p.beta : 0.f;
  std::string lastImpl = "none";
  // A strided y (attention's context written into [B, S, H * Dh], its
  // scores laid out [B, S, H, T]) is written in place where brgemm takes it,
  // else through a plain y and a reorder.
  const bool stridedY = !p.yStrides.empty() && !p.hasC && impl->yStrides != contiguous(yDims);
  memory::desc userY32(yDims, f32, impl->yStrides);
  for (const Variant &v : variants) {
    for (int yInPlace = stridedY ? 1 : 0; yInPlace >= 0; --yInPlace) {
      dnnl::matmul::desc d(v.a, v.b, yInPlace ? userY32 : plainY);
      impl->makePd = [d, alpha, beta]() -> dnnl::primitive_desc_base {
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (alpha != 1.f) attr.set_output_scales(0, {alpha});
        if (beta != 0.f) {
          dnnl::post_ops po;
          po.append_sum(beta);
          attr.set_post_ops(po);
        }
        return dnnl::matmul::primitive_desc(d, attr, cpuEngine());
      };
      std::string key = std::string("matmul|") + v.name + (yInPlace ? "|y in place" : "") + "|" + std::to_string(int(p.dtype));
      for (const memory::dims *dims : {&aDims, &aStrides, &bDims, &bStrides}) {
        key += "|";
        for (int64_t x : *dims) key += std::to_string(x) + ",";
      }
      if (yInPlace)
        for (int64_t x : impl->yStrides) key += std::to_string(x) + ",";
      key += "|" + std::to_string(alpha) + "|" + std::to_string(beta);
      impl->keyBase = key;
      if (!hasOptimizedPrimitive(*impl, &lastImpl)) continue;
      if (yInPlace && lastImpl.rfind("brg", 0) != 0) continue;
      impl->variant = v.name;
      return impl;
    }
  }
  *why = "no optimized oneDNN implementation (last tried: " + lastImpl + ")";
  return nullptr;
}

// Strides of extent-1 dimensions do not matter; written as the dense ones,
// a piece's descriptor compares equal to the dense layout when it is one.
memory::dims tidyStrides(const memory::dims &dims, memory::dims strides) {
  memory::dims dense = contiguous(dims);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 1) strides[i] = dense[i];
  return strides;
}
}  // namespace

void MatMul::Impl::choosePieces(int threads) {
  piecesThreads = threads;
  pieces.clear();
  piecesPrepared = false;
  const size_t r = yDims.size();
  const std::vector<int64_t> dims(yDims.begin(), yDims.end());
  const int64_t K = aDims[r - 1];
  const MatMulPiecePlan plan = planMatMulPieces(dims, K, threads, kPiecesPerThread);
  if (plan.kind != PieceKind::kPieces) {
    split = Split::kOneThread;
    splitNote = plan.note;
    return;
  }
  // oneDNN's brgemm matmul takes a batched operand only as a permutation of
  // a dense tensor: pieces of attention's heads, read in place from [B, S,
  // H * Dh], are not, and fall to gemm:jit, whose kernels are generated at
  // each thread's first call (tens of ms at start-up, against one brgemm
  // kernel for the whole). Pieces of rows of every head are, when the
  // caller lays the scores out as [B, S, H, T]: those are taken instead.
  const bool wholeBrgemm = primitiveFor(1)->impl.rfind("brg", 0) == 0;
  std::vector<Piece> made;
  std::string note;
  auto take = [&](const std::string &why) {
    pieces = std::move(made);
    split = Split::kPieces;
    splitNote = why;
  };
  if (makePieces(plan, wholeBrgemm, &made, &note)) return take(note);
  // One piece of rows a thread: each reads all of b (attention's K or V).
  // At 2 threads, MiniLM's attention ran as fast as on one-head pieces this
  // way, and slower on 4 or 8 pieces of rows.
  const int64_t M = dims[r - 2], rowPieces = std::min<int64_t>(threads, M / 16);
  if (wholeBrgemm && plan.axis + 2 < int(r) && rowPieces >= 2) {
    MatMulPiecePlan rowsPlan;
    rowsPlan.kind = PieceKind::kPieces;
    rowsPlan.axis = int(r - 2);
    rowsPlan.per = (M + rowPieces - 1) / rowPieces;
    rowsPlan.count = (M + rowsPlan.per - 1) / rowsPlan.per;
    std::string rowNote;
    if (makePieces(rowsPlan, true, &made, &rowNote)) return take(rowNote + " (pieces of the batch would leave brgemm)");
  }
  if (wholeBrgemm && makePieces(plan, false, &made, &note)) return take(note);
  split = Split::kOpenMp;
  splitNote = note;
}

bool MatMul::Impl::makePieces(const MatMulPiecePlan &plan, bool brgemm, std::vector<Piece> *made, std::string *note) {
  made->clear();
  const size_t r = yDims.size();
  const int axis = plan.axis;
  const int64_t extent = yDims[axis];
  const int64_t per = plan.per;
  const bool columns = axis == int(r - 1), rows = axis == int(r - 2);
  for (int64_t i0 = 0; i0 < extent; i0 += per) {
    const int64_t n = std::min(per, extent - i0);
    MatMulParams q = p;
    q.aDims = aDims;
    q.bDims = bDims;
    q.yDims = yDims;
    Piece piece;
    if (!columns && aDims[axis] != 1) {
      q.aDims[axis] = n;
      piece.aOffset = i0 * aStrides[axis];
    }
    if (!rows && bDims[axis] != 1) {
      q.bDims[axis] = n;
      piece.bOffset = i0 * bStrides[axis];
    }
    q.yDims[axis] = n;
    piece.yOffset = i0 * yStrides[axis];
    if (p.hasC) piece.cOffset = i0 * (columns ? p.cColStride : rows ? p.cRowStride : 0);
    q.aStrides = tidyStrides(q.aDims, aStrides);
    q.bStrides = tidyStrides(q.bDims, bStrides);
    memory::dims ys = tidyStrides(q.yDims, yStrides);
    q.yStrides = ys == contiguous(q.yDims) ? std::vector<int64_t>() : std::vector<int64_t>(ys.begin(), ys.end());
    q.packedB = columns ? std::vector<PackedOperandRef>() : p.packedB;  // a column slice is its own layout
    std::string why;
    try {
      piece.impl = makeImpl(q, &why, /*piece=*/true);
    } catch (const dnnl::error &e) {
      why = e.what();
    }
    if (!piece.impl) {
      *note = "OpenMP: a piece has no optimized primitive (" + why + ")";
      return false;
    }
    if (brgemm && piece.impl->primitiveFor(1)->impl.rfind("brg", 0) != 0) {
      *note = "a piece leaves brgemm (" + piece.impl->primitiveFor(1)->impl + ")";
      return false;
    }
    // A b given at run time is converted or reordered by each piece per
    // call: only pieces of the batch have a b of their own.
    if (!p.constantB && (rows || columns) && (f16() || piece.impl->variant.find("b in place") == std::string::npos)) {
      *note = "OpenMP: every piece would reorder b on every call";
      return false;
    }
    made->push_back(std::move(piece));
  }
  *note = std::to_string(made->size()) + (columns ? " pieces of columns" : rows ? " pieces of rows" : " pieces of the batch");
  return true;
}

Status MatMul::run(const void *a, const void *b, const void *c, void *y, ThreadPool &pool) {
  Impl &s = *impl_;
  const int threads = pool.numThreads();
  if (threads == 1) return s.execute(a, b, c, y, 1);
  const size_t elem = s.f16() ? 2 : 4;
  WEBNN_RETURN_IF_ERROR(preparePieces(s, threads, "oneDNN matmul", [&](size_t i) {
    Impl::Piece &piece = s.pieces[i];
    for (size_t j = 0; j < i; ++j)  // only pieces that read the same b (not its other columns)
      if (s.pieces[j].bOffset == piece.bOffset && s.pieces[j].impl->bDims == piece.impl->bDims)
        piece.impl->bDonors.push_back(s.pieces[j].impl.get());
    piece.impl->prepare(static_cast<const uint8_t *>(b) + size_t(piece.bOffset) * elem, 1);
  }));
  switch (s.split) {
    case Split::kPieces: break;
    case Split::kOneThread: return s.execute(a, b, c, y, 1);
    default: return s.execute(a, b, c, y, threads);
  }
  auto at = [elem](const void *base, int64_t offset) { return pieceOperand(base, offset, elem); };
  // One piece a unit: each piece's primitive state is its own, and its
  // buffers are the running thread's workspace.
  std::atomic<bool> failed{false};
  Status first;
  std::mutex firstMutex;
  pool.parallelForUnits(int64_t(s.pieces.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const Impl::Piece &piece = s.pieces[size_t(i)];
      Status st = piece.impl->execute(at(a, piece.aOffset), at(b, piece.bOffset), at(c, piece.cOffset),
                                      static_cast<uint8_t *>(y) + size_t(piece.yOffset) * elem, 1);
      if (!st.isOk() && !failed.exchange(true)) {
        std::lock_guard<std::mutex> lock(firstMutex);
        first = st;
      }
    }
  });
  return failed.load() ? first : Status::ok();
}

Status MatMul::Impl::execute(const void *a, const void *b, const void *c, void *y, int numThreads) {
  Impl &s = *this;
  try {
    s.prepare(b, numThreads);
    useThreads(numThreads);
    void *yUser = y;
    if (s.f16()) {
      a = s.aHalf.in(a);
      if (!s.bPacked) b = s.bF32(b, &s.bHalf);
      y = s.yHalf.data();
    }
    uint8_t *work = threadWorkspace(s.workBytes);
    s.scratch.set_data_handle(work + s.scratchWork);
    if (s.castA) {
      floatToBf16(static_cast<const float *>(a), work + s.aWork, s.aCount, numThreads);
      s.a.set_data_handle(work + s.aWork);
    } else if (s.reorderA) {
      s.aIn.run(a, work + s.aWork);
    } else {
      s.a.set_data_handle(const_cast<void *>(a));
    }
    if (!s.bPacked) {
      if (s.reorderB) s.bPack.run(b, nullptr);
      else s.b.set_data_handle(const_cast<void *>(b));
    }
    void *dst = s.reorderY ? work + s.yWork : y;
    s.y.set_data_handle(dst);
    if (s.p.hasC && s.p.beta != 0.f) s.fillC(c, static_cast<float *>(dst));
    s.entry->get().execute(cpuStream(), s.args);
    noteExecution();
    if (s.reorderY) s.yOut.run(dst, y);
    if (s.f16()) s.yHalf.out(yUser);
    return Status::ok();
  } catch (const dnnl::error &e) {
    return oneDnnStatus(e, "oneDNN matmul");
  } catch (const std::bad_alloc &) {
    return Status(StatusCode::kOutOfMemory, "oneDNN matmul: out of memory for its buffers");
  }
}

void MatMul::buildPrimitive(int numThreads) noexcept { buildPrimitivesFor(*impl_, numThreads); }

// As Conv2d's filter: b is packed for the whole product's one-thread
// primitive, or with several threads the first piece's when every piece reads
// all of b (pieces of rows); pieces of columns or of a batched b pack their
// own part and none is stored.
MatMul::Impl &MatMul::Impl::bOwner(int numThreads) {
  if (numThreads > 1) {
    std::lock_guard<std::mutex> lock(piecesMutex);
    if (piecesThreads != numThreads) choosePieces(numThreads);
    bool shared = split == Split::kPieces && !pieces.empty();
    for (const Piece &piece : pieces) shared = shared && piece.bOffset == 0 && piece.impl->bDims == bDims;
    if (shared) return *pieces.front().impl;
  }
  return *this;
}

std::string MatMul::packedBLayout(int numThreads) {
  if (!impl_->p.constantB) return {};
  Impl &owner = impl_->bOwner(numThreads);
  memory::desc primB = owner.primitiveFor(1)->pd.weights_desc();
  return owner.packsConstantB(primB) ? packedLayoutName(primB) : std::string();  // else used as stored
}

bool MatMul::usesPrepackedB() const { return usesPrepackedWeights(*impl_); }

size_t MatMul::packedBBytes(int numThreads) {
  return impl_->bOwner(numThreads).primitiveFor(1)->pd.weights_desc().get_size();
}

void MatMul::packB(const void *b, void *packed, int numThreads) {
  Impl &owner = impl_->bOwner(numThreads);
  HalfStage stage;
  packWeightsInto(owner.userB, owner.primitiveFor(1)->pd.weights_desc(), owner.bF32(b, &stage), packed);
}

std::string MatMul::implementation() const {
  return describeImplementation(*impl_, [](const Impl &s) { return s.variant; });
}

}  // namespace webnn::cpu::onednn
