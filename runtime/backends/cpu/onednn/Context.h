// Internal to onednn/: the engine and stream, OpenMP thread control, the
// primitive cache, aligned buffers and the argument plumbing shared by the
// convolution and matmul wrappers. Includes dnnl.hpp; never include it from
// outside this folder.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_ONEDNN_CONTEXT_H
#define WEBNN_RUNTIME_BACKENDS_CPU_ONEDNN_CONTEXT_H

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/backends/cpu/Memory.h"
#include "runtime/backends/cpu/PieceSplit.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "webnn/types.h"

namespace webnn::cpu::onednn {

extern std::atomic<uint64_t> gExecutions;  // behind executionCount()
// Counts one execution, only while tests ask (DebugOptions::countRuns): a
// normal run does no shared atomic increment per primitive.
void noteExecution();

dnnl::engine &cpuEngine();
dnnl::stream &cpuStream();

// Sets OpenMP's thread count for the calling thread (oneDNN reads it when a
// primitive descriptor is created and when it executes).
void useThreads(int numThreads);
// OpenMP's current thread count for the calling thread.
int currentThreads();

// How a multi-threaded run executes a convolution or matmul (Conv2d.cpp,
// MatMul.cpp): as single-threaded pieces on the session's pool, whole on one
// thread (too small to cut), or whole on OpenMP's team (cannot be cut).
enum class Split { kUnknown, kPieces, kOneThread, kOpenMp };

// Runs run(i) for each of `count` pieces on the pool's threads; the first
// failure, if any.
template <typename Run>
Status runPieces(ThreadPool &pool, size_t count, Run run) {
  std::atomic<bool> failed{false};
  Status first;
  std::mutex firstMutex;
  pool.parallelFor(int64_t(count), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      Status s = run(size_t(i));
      if (!s.isOk() && !failed.exchange(true)) {
        std::lock_guard<std::mutex> lock(firstMutex);
        first = s;
      }
    }
  });
  return failed.load() ? first : Status::ok();
}

// oneDNN's failure as a run's Status: out of memory or internal, with its
// reason after `what` ("oneDNN convolution").
inline Status oneDnnStatus(const dnnl::error &e, const char *what) {
  return Status(e.status == dnnl_out_of_memory ? StatusCode::kOutOfMemory : StatusCode::kInternal,
                std::string(what) + ": " + e.what());
}

// Before a multi-threaded run: chooses the pieces for `threads` and, the
// first time, prepares them one after another (prepareOne(i): later pieces
// share the weights an earlier one packed). `Impl` as below.
template <typename Impl, typename PrepareOne>
Status preparePieces(Impl &s, int threads, const char *what, PrepareOne prepareOne) {
  std::lock_guard<std::mutex> lock(s.piecesMutex);
  try {
    if (s.piecesThreads != threads) s.choosePieces(threads);
    if (s.split == Split::kPieces && !s.piecesPrepared) {
      for (size_t i = 0; i < s.pieces.size(); ++i) prepareOne(i);
      s.piecesPrepared = true;
    }
  } catch (const dnnl::error &e) {
    return oneDnnStatus(e, what);
  } catch (const std::bad_alloc &) {
    return Status(StatusCode::kOutOfMemory, std::string(what) + ": out of memory for its pieces");
  }
  return Status::ok();
}

// Whether the weights in use came prepacked from the artifact: every piece's
// when the run is cut into pieces, else the whole's.
template <typename Impl>
bool usesPrepackedWeights(const Impl &s) {
  if (s.split != Split::kPieces || s.pieces.empty()) return s.usesPrepacked;
  for (const auto &piece : s.pieces)
    if (!piece.impl->usesPrepacked) return false;
  return true;
}

// JIT-compiles what a run on `numThreads` threads will execute: each piece's
// primitive, the whole's one-thread one, or the whole's for OpenMP. `Impl`
// is Conv2d::Impl or MatMul::Impl (their piece members share names; mayCut
// says whether a run on that many threads is planned into pieces).
template <typename Impl>
void buildPrimitivesFor(Impl &s, int numThreads) noexcept {
  try {
    if (s.mayCut(numThreads)) {
      std::lock_guard<std::mutex> lock(s.piecesMutex);
      if (s.piecesThreads != numThreads) s.choosePieces(numThreads);
      if (s.split == Split::kPieces) {
        for (auto &piece : s.pieces) piece.impl->primitiveFor(1)->get();
        return;
      }
      if (s.split == Split::kOpenMp) {
        s.primitiveFor(numThreads)->get();
        return;
      }
    }
    s.primitiveFor(1)->get();
  } catch (const std::exception &) {
  }
}

// A primitive descriptor and, once someone runs it, its primitive, shared by
// every kernel whose key matches (BERT's 12 layers share 4 matmul shapes).
struct CachedPrimitive {
  dnnl::primitive_desc_base pd;
  std::string impl;
  std::mutex mutex;
  bool built = false;
  dnnl::primitive primitive;
  // JIT-compiles on first use; throws dnnl::error.
  const dnnl::primitive &get();
};

// Looks `key` up (the key must include the thread count: oneDNN sizes its
// work split when the descriptor is created) or calls make(). Throws
// dnnl::error from make(); failures are not cached.
std::shared_ptr<CachedPrimitive> cachedPrimitive(const std::string &key,
                                                 const std::function<dnnl::primitive_desc_base()> &make);

// oneDNN's reference implementations are correct but slower than ours.
bool isReferenceImpl(const std::string &impl);

// What the Impl of each wrapper (Conv2d, MatMul, QuantizedConv2d) keeps of
// its primitive: how to build it, its cache key, and the one prepared for
// `readyThreads` threads (set up under `mutex`).
struct PrimitiveState {
  std::function<dnnl::primitive_desc_base()> makePd;  // builds with the current OpenMP thread count
  std::string keyBase;
  std::mutex mutex;
  int readyThreads = 0;  // thread count the prepared state was built for
  std::shared_ptr<CachedPrimitive> entry;

  // The primitive built for `threads` threads: keyBase plus the count is its
  // cache key (oneDNN sizes its work split when the descriptor is created).
  std::shared_ptr<CachedPrimitive> primitiveFor(int threads) {
    useThreads(threads);
    return cachedPrimitive(keyBase + "|t" + std::to_string(threads), makePd);
  }
};

// Whether the one-thread primitive of a variant (`s`, a Conv2d::Impl or
// MatMul::Impl) is an optimized one: false when oneDNN refuses the shape or
// offers only its reference code. *lastImpl names what it built, for the
// message when no variant has one.
template <typename Impl>
bool hasOptimizedPrimitive(Impl &s, std::string *lastImpl) {
  try {
    std::shared_ptr<CachedPrimitive> e = s.primitiveFor(1);
    *lastImpl = e->impl;
    return !isReferenceImpl(e->impl);
  } catch (const dnnl::error &) {
    return false;  // this algorithm/layout is not implemented for the shape
  }
}

// implementation() of a Conv2d or MatMul: the primitive run (a piece's when
// the run is cut into pieces), the variant chosen (variantName(impl)) and
// how it is split.
template <typename Impl, typename VariantName>
std::string describeImplementation(Impl &s, VariantName variantName) {
  if (s.split == Split::kPieces && !s.pieces.empty()) {
    Impl &piece = *s.pieces.front().impl;
    std::string impl = piece.entry ? piece.entry->impl : piece.primitiveFor(1)->impl;
    return impl + " (" + variantName(piece) + "; " + s.splitNote + ")";
  }
  std::string impl = s.entry ? s.entry->impl : s.primitiveFor(1)->impl;
  return impl + " (" + variantName(s) + (s.splitNote.empty() ? "" : "; " + s.splitNote) + ")";
}

// A piece's operand: `base` advanced by `offset` elements of `elem` bytes,
// or null for an absent operand.
inline const void *pieceOperand(const void *base, int64_t offset, size_t elem) {
  return base ? static_cast<const uint8_t *>(base) + size_t(offset) * elem : nullptr;
}

// 64-byte aligned, uninitialized (so allocating it does not touch the pages).
class AlignedBuffer {
 public:
  void resize(size_t bytes);
  void *data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(void *p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> data_;
  size_t size_ = 0;
};

// A reorder between a caller's buffer and a buffer the wrapper owns.
struct Reorder {
  dnnl::reorder prim;
  dnnl::memory from, to;
  std::unordered_map<int, dnnl::memory> args;
  void init(const dnnl::memory::desc &fromDesc, void *fromData, const dnnl::memory::desc &toDesc, void *toData);
  void run(const void *fromData, void *toData);
};

// Working memory a kernel needs only while it runs (activations reordered
// to and from the primitive's layout, oneDNN scratchpads). A session runs its
// kernels one at a time on the calling thread, so one growable buffer per
// thread serves them all: on ResNet-50 that is the largest need (~10 MB)
// reused while hot, instead of 55 MB of private buffers each touched once per
// run (page faults at start-up, cache misses after). Valid until the
// thread's next call; kernels take offsets from a WorkspaceLayout.
uint8_t *threadWorkspace(size_t bytes);

struct WorkspaceLayout {
  size_t bytes = 0;
  size_t add(size_t n) {  // offset of a new 64-byte aligned region
    size_t at = bytes;
    bytes += (n + 63) / 64 * 64;
    return at;
  }
};

// float16 <-> float32 with F16C (oneDNN 2.6 reorders cannot convert f16 into
// blocked f32 layouts on CPUs without AVX512-FP16, so conversion happens here,
// in the caller's layout, before any reorder).
// releasePackedSource (Memory.h) drops a packed constant's source pages.

// The name under which a constant packed into `d` is stored in an artifact
// (PackedOperand::layout): oneDNN's version, data type, dimensions and the
// complete blocking (or Winograd) description, so equal names mean the same
// bytes. Empty for formats it cannot spell (those are never prepacked).
std::string packedLayoutName(const dnnl::memory::desc &d);
// The data of the entry of `packed` with exactly this layout and size, or null.
const void *findPacked(const std::vector<PackedOperandRef> &packed, const std::string &layout, size_t bytes);

void halfToFloat(const void *in, float *out, int64_t n);
void floatToHalf(const float *in, void *out, int64_t n);

// float32 -> bf16, round to nearest even (as oneDNN's reorder), in place of
// a reorder primitive for same-layout conversions: a reorder is its own
// OpenMP region, whose fork/join costs more than the conversion itself on
// the small activations of late layers (ResNet-50's source reorders took
// twice as long at 2 threads as at 1). Small arrays
// convert on the calling thread, large ones split over `numThreads`.
// Needs AVX512-BF16 (callers check bf16Available()).
void floatToBf16(const float *in, void *out, int64_t n, int numThreads);

// A float32 copy of a float16 operand, in the operand's own layout.
struct HalfStage {
  AlignedBuffer buf;
  int64_t count = 0;
  void init(int64_t n) {
    count = n;
    buf.resize(size_t(n) * sizeof(float));
  }
  float *data() const { return static_cast<float *>(buf.data()); }
  const float *in(const void *half) {
    halfToFloat(half, data(), count);
    return data();
  }
  void out(void *half) const { floatToHalf(data(), half, count); }
};

// Packs weights into a primitive's layout: one reorder when oneDNN has it,
// else through the plain row-major layout (oneDNN 2.6 reorders into Winograd
// weight formats only from plain layouts, not from ohwi/ihwo strides).
struct WeightPacker {
  Reorder direct, toPlain, fromPlain;
  AlignedBuffer plain;
  bool twoStep = false;
  // Throws dnnl::error when neither route exists.
  void init(const dnnl::memory::desc &from, const dnnl::memory::desc &to, void *toData);
  void run(const void *fromData, void *toData);
};

// Packs float32 weights laid out as `from` into `packed` in layout `to` (a
// constant packed for an artifact).
void packWeightsInto(const dnnl::memory::desc &from, const dnnl::memory::desc &to, const void *weights,
                     void *packed);

// The geometry PieceSplit.h plans a convolution's pieces from, out of
// Conv2dParams or QuantizedConv2dParams (their geometry fields share names);
// the caller sets the rest.
template <typename Params>
ConvSplitShape convSplitShape(const Params &p) {
  ConvSplitShape shape;
  shape.N = p.N, shape.C = p.C, shape.H = p.H, shape.W = p.W, shape.O = p.O, shape.OH = p.OH, shape.OW = p.OW;
  shape.KH = p.KH, shape.KW = p.KW, shape.groups = p.groups;
  shape.strideH = p.strideH, shape.strideW = p.strideW, shape.dilationH = p.dilationH, shape.dilationW = p.dilationW;
  shape.padTop = p.padTop, shape.padLeft = p.padLeft;
  return shape;
}

// Along one axis, the input a piece computing outputs [out0, out1) reads:
// [in0, in1) of the `size` inputs, and the padding it needs before and
// after them (its window may start and end in the layer's padding).
struct PieceInput {
  int64_t in0, in1, padBefore, padAfter;
};
inline PieceInput pieceInput(int64_t out0, int64_t out1, int64_t stride, int64_t padBefore, int64_t kernel,
                             int64_t dilation, int64_t size) {
  const int64_t first = out0 * stride - padBefore;  // first input read (may be padding)
  const int64_t last = (out1 - 1) * stride - padBefore + (kernel - 1) * dilation;  // last one
  const int64_t in0 = std::max<int64_t>(0, first), in1 = std::min<int64_t>(size, last + 1);
  return {in0, in1, in0 - first, last + 1 - in1};
}

}  // namespace webnn::cpu::onednn

#endif
