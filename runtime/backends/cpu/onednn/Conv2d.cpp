// conv2d on oneDNN's convolution_forward (inference).
//
// Layout plan per layer, from measurements on this machine class (oneDNN
// 2.6.3, Zen 5, 1 thread, ResNet-50 shapes; bench: webnn-kernel-bench):
//  - Winograd (F(2x2,3x3)/F(4x4,3x3)) for 3x3 stride-1 undilated, ungrouped
//    layers with >= 16 channels each way: 1.3-2.4x the direct brgconv even
//    counting the reorders to and from nChw16c it needs (0.005-0.03 ms);
//    not with few input channels on a small map, where in a graph the
//    direct one wins (PieceSplit.h, winogradLosesOnSmallMaps).
//  - nhwc activations: brgconv / brgconv_1x1 directly on the caller's buffers.
//  - nchw activations: with plain nchw oneDNN falls back to im2col+gemm
//    (155-200 GFLOP/s on 3x3); reordering to nhwc around brgconv costs
//    0.01-0.1 ms and wins for k > 1. For 1x1 the plain gemm path is as fast
//    as brgconv and the reorders (memory-bound, whole activations) are not
//    worth it, so 1x1 nchw stays plain.
// Filters in every WebNN layout are described by strides and reordered once
// into the primitive's blocked layout (format_tag::any). float16 operands are
// converted to float32 in the caller's layout first (oneDNN 2.6 has no f16
// convolution on CPUs without AVX512-FP16, nor f16 -> blocked f32 reorders).
// Relaxed precision (Conv2dParams::bf16): the primitive reads bf16 input and
// filter and writes float32 (bias and post-ops in float32); the input is
// converted by the source reorder in the caller's layout, the filter once
// when packed. No Winograd: oneDNN 2.6 has no bf16 Winograd, and bf16 direct
// (~2x float32) beats float32 Winograd (1.1-2.5x) on most layers.
//
// Threads: every primitive is built for one thread. With several, the
// convolution is cut into pieces (ranges of images, else ranges of output
// rows with the input rows they read and their own padding, else, for one
// nhwc row (a conv1d), ranges of output columns likewise, else, for one
// output pixel, ranges of output channels; a Winograd layer wide enough, by
// output channels first, and one oneDNN would block one tile high so even
// on one thread: PieceSplit.h), each a
// single-threaded primitive of its own, and the session's pool runs them: the
// pool then is the only team of threads (ThreadPool.h says why). Pieces of one
// layer share the packed filter when their primitives want the same layout.
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "runtime/backends/cpu/PieceSplit.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/onednn/Context.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

namespace {

struct Variant {
  dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
  Tag act = Tag::nhwc;  // the primitive's activation layout (any: its choice)
  const char *name = "";
  bool bf16 = false;    // bf16 input and filter, float32 output
};

}  // namespace

struct Conv2d::Impl : PrimitiveState {
  Conv2dParams p;
  Variant v;
  memory::desc userSrc, userDst, userWei, userBias;

  // Prepared for readyThreads (PrimitiveState):
  memory src, wei, bias, dst, scratch;
  std::unordered_map<int, memory> args;
  bool reorderSrc = false, reorderDst = false, reorderBias = false, weightsPacked = false;
  bool usesPrepacked = false;
  bool castSrc = false;  // bf16 source in the caller's layout: floatToBf16, no reorder
  Reorder srcIn, dstOut, biasIn, residualIn;
  WeightPacker weiPack;
  AlignedBuffer weiBuf, biasBuf;
  size_t srcWork = 0, dstWork = 0, scratchWork = 0, workBytes = 0;  // offsets in threadWorkspace()
  HalfStage srcHalf, dstHalf, weiHalf, biasHalf;  // float16 operands only
  // Pieces of the same layer prepared before this one: a packed filter in
  // the layout this primitive wants is shared, not packed again.
  std::vector<const Impl *> filterDonors;
  bool filterShared = false;

  // The pieces a multi-threaded run executes (see the file comment).
  struct Piece {
    std::unique_ptr<Impl> impl;
    int64_t srcOffset = 0, dstOffset = 0, filterOffset = 0, biasOffset = 0;  // elements
  };
  // Pieces of output channels of a layer with many pixels store their
  // packed filters one after another (64-byte aligned), under one layout
  // name naming each piece's.
  static size_t alignedPieceBytes(size_t bytes) { return (bytes + 63) / 64 * 64; }
  bool channelPiecesPacked() const {
    return split == Split::kPieces && !pieces.empty() && pieces.back().filterOffset != 0 && p.OH * p.OW > 1;
  }
  std::string channelPiecesLayout() {
    std::string name = "pieces";
    for (Piece &piece : pieces) name += "|" + packedLayoutName(piece.impl->primitiveFor(1)->pd.weights_desc());
    return name;
  }
  size_t channelPiecesBytes() {
    size_t bytes = 0;
    for (Piece &piece : pieces) bytes += alignedPieceBytes(piece.impl->primitiveFor(1)->pd.weights_desc().get_size());
    return bytes;
  }
  std::mutex piecesMutex;
  int piecesThreads = 0;  // the thread count `split` and `pieces` are for
  // A Winograd layer oneDNN would block one tile high (PieceSplit.h,
  // winogradBlocksOneTileHigh): its plan may cut it on one thread too.
  bool mayCutOnOneThread = false;
  bool mayCut(int threads) const { return threads > 1 || mayCutOnOneThread; }
  Split split = Split::kUnknown;
  bool piecesPrepared = false;
  std::vector<Piece> pieces;
  std::string splitNote;  // for implementation()

  bool f16() const { return p.dtype == DataType::kFloat16; }
  int64_t filterCount() const { return p.O * (p.C / p.groups) * p.KH * p.KW; }
  // The filter as float32 in the caller's layout (converted when float16).
  const void *filterF32(const void *filter, HalfStage *stage) const {
    if (!f16()) return filter;
    stage->init(filterCount());
    return stage->in(filter);
  }

  void prepare(const void *filter, int threads) {
    std::lock_guard<std::mutex> lock(mutex);
    if (readyThreads == threads) return;
    entry = primitiveFor(threads);
    const dnnl::primitive_desc_base &pd = entry->pd;
    memory::desc primSrc = pd.src_desc(), primDst = pd.dst_desc(), primWei = pd.weights_desc();
    dnnl::engine &eng = cpuEngine();
    castSrc = v.bf16 && primSrc == memory::desc(userSrc.dims(), memory::data_type::bf16,
                                                p.nhwc ? Tag::nhwc : Tag::nchw);
    reorderSrc = !castSrc && !(primSrc == userSrc);
    // Per-call buffers live in the thread's workspace (Context.h), at
    // these offsets; their handles are set on every run.
    WorkspaceLayout work;
    if (castSrc) {
      srcWork = work.add(primSrc.get_size());
      src = memory(primSrc, eng, DNNL_MEMORY_NONE);
    } else if (reorderSrc) {
      srcWork = work.add(primSrc.get_size());
      srcIn.init(userSrc, nullptr, primSrc, nullptr);
      src = srcIn.to;
    } else {
      src = memory(primSrc, eng, DNNL_MEMORY_NONE);
    }
    reorderDst = !(primDst == userDst);
    if (reorderDst) {
      dstWork = work.add(primDst.get_size());
      dstOut.init(primDst, nullptr, userDst, nullptr);
      dst = dstOut.from;
      if (p.hasResidual) residualIn.init(userDst, nullptr, primDst, nullptr);
    } else {
      dst = memory(primDst, eng, DNNL_MEMORY_NONE);
    }
    // A filter prepacked at compile time for exactly this layout is used
    // straight from the artifact's mapping: no packing, no private copy.
    const void *prepacked =
        p.constantFilter ? findPacked(p.packedFilter, packedLayoutName(primWei), primWei.get_size()) : nullptr;
    const Impl *donor = nullptr;
    for (const Impl *d : filterDonors)
      if (p.constantFilter && d->weightsPacked && d->wei.get_desc() == primWei) donor = d;
    filterShared = donor != nullptr;
    if (donor) {
      wei = memory(primWei, eng, donor->wei.get_data_handle());
      prepacked = donor->usesPrepacked ? wei.get_data_handle() : nullptr;
    } else if (prepacked) {
      wei = memory(primWei, eng, const_cast<void *>(prepacked));  // primitives only read weights
    } else {
      weiBuf.resize(primWei.get_size());
      weiPack.init(userWei, primWei, weiBuf.data());
      wei = memory(primWei, eng, weiBuf.data());
    }
    weightsPacked = false;
    usesPrepacked = prepacked != nullptr;
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (p.hasBias) {
      memory::desc primBias = pd.weights_desc(1);
      reorderBias = !(primBias == userBias);
      if (reorderBias) {
        biasBuf.resize(primBias.get_size());
        biasIn.init(userBias, nullptr, primBias, biasBuf.data());
        bias = biasIn.to;
      } else {
        bias = memory(primBias, eng, DNNL_MEMORY_NONE);
      }
      args[DNNL_ARG_BIAS] = bias;
    }
    memory::desc sp = pd.scratchpad_desc();
    scratchWork = work.add(sp.get_size());
    scratch = memory(sp, eng, DNNL_MEMORY_NONE);
    args[DNNL_ARG_SCRATCHPAD] = scratch;
    workBytes = work.bytes;
    entry->get();  // JIT now, not inside the timed steady state
    if (f16()) {
      srcHalf.init(p.N * p.C * p.H * p.W);
      dstHalf.init(p.N * p.O * p.OH * p.OW);
      if (p.hasBias) biasHalf.init(p.O);
    }
    if (usesPrepacked || filterShared) {
      weightsPacked = true;
    } else if (p.constantFilter) {
      HalfStage once;  // freed after packing: only the packed copy is kept
      weiPack.run(filterF32(filter, &once), nullptr);
      weightsPacked = true;
      size_t elem = p.dtype == DataType::kFloat16 ? 2 : 4;
      releasePackedSource(filter, size_t(p.O * (p.C / p.groups) * p.KH * p.KW) * elem);
    }
    readyThreads = threads;
  }

  Status execute(const void *x, const void *filter, const void *bias, void *y, int threads, const void *residual);
  void choosePieces(int threads);
  Impl &filterOwner(int numThreads);
};

namespace {
// Past the 2x3 kernel to the next Winograd implementation (next_impl keeps
// the last one when there is none after it): makeImpl's choice by
// winogradPrefersFourByFourTiles, and the tile query's, which must agree.
void passWinograd2x3(dnnl::convolution_forward::primitive_desc &pd) {
  while (std::string(pd.impl_info_str()).find("wino_2x3") != std::string::npos && pd.next_impl()) {
  }
}

// The Winograd primitive Conv2d::create would build for the layer (its
// "winograd" variant: any layouts, one thread, the 2x2 kernel skipped by the
// rule), asked of oneDNN without JIT-compiling it.
bool oneDnnWinogradRunsFourByFour(const WinogradLayer &l) {
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, bool> answers;
  const std::vector<int64_t> key{l.C, l.O, l.H, l.W, l.OH, l.OW, l.padTop, l.padBottom, l.padLeft, l.padRight};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = answers.find(key);
    if (it != answers.end()) return it->second;
  }
  const bool prefer4 = winogradPrefersFourByFourTiles(l.C, l.O, l.OW);
  bool four = l.padTop != l.padBottom || prefer4;
  try {
    useThreads(1);
    const memory::data_type f32 = memory::data_type::f32;
    memory::desc src({1, l.C, l.H, l.W}, f32, Tag::any), dst({1, l.O, l.OH, l.OW}, f32, Tag::any),
        wei({l.O, l.C, 3, 3}, f32, Tag::any), bias({l.O}, f32, Tag::a);
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd, src,
                                      wei, bias, dst, {1, 1}, {0, 0}, {l.padTop, l.padLeft}, {l.padBottom, l.padRight});
    dnnl::convolution_forward::primitive_desc pd(d, cpuEngine());
    if (prefer4) passWinograd2x3(pd);
    four = std::string(pd.impl_info_str()).find("wino_4x3") != std::string::npos;
  } catch (const dnnl::error &) {
    // No Winograd kernel for the shape: the rule's answer (not priced as Winograd by the runtime's choice anyway).
  }
  std::lock_guard<std::mutex> lock(mutex);
  answers[key] = four;
  return four;
}
}  // namespace

void installWinogradTilesQuery() { setWinogradTilesQuery(&oneDnnWinogradRunsFourByFour); }

namespace {
std::unique_ptr<Conv2d::Impl> makeImpl(const Conv2dParams &p, std::string *why, bool piece);
}  // namespace

Conv2d::Conv2d(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Conv2d::~Conv2d() = default;

std::unique_ptr<Conv2d> Conv2d::create(const Conv2dParams &p, std::string *why) {
  std::unique_ptr<Impl> impl = makeImpl(p, why, /*piece=*/false);
  if (!impl) return nullptr;
  return std::unique_ptr<Conv2d>(new Conv2d(std::move(impl)));
}

namespace {
// A piece of a larger convolution skips the size policy: the whole passed it.
std::unique_ptr<Conv2d::Impl> makeImpl(const Conv2dParams &p, std::string *why, bool piece) {
  using Impl = Conv2d::Impl;
  Policy pol = policy();
  if (!pol.enabled) {
    *why = "oneDNN disabled";
    return nullptr;
  }
  if (p.dtype != DataType::kFloat32 && p.dtype != DataType::kFloat16) {
    *why = "data type";
    return nullptr;
  }
  bool postOps = p.hasResidual || p.activation != Conv2dParams::Activation::kNone;
  if (postOps && p.dtype != DataType::kFloat32) {
    *why = "post-ops on float16";  // staged through float32 by the caller instead
    return nullptr;
  }
  double flops = 2.0 * double(p.N) * double(p.O) * double(p.OH) * double(p.OW) * double(p.C / p.groups) *
                 double(p.KH) * double(p.KW);
  // One output pixel with a large filter (a squeeze-excitation layer after a
  // global pool) is a matrix-vector product bound by reading the filter,
  // which oneDNN's packed layout streams well: not "too small" by its FLOPs.
  const double filterBytes = double(p.O) * double(p.C / p.groups) * double(p.KH * p.KW) * 4;
  const bool matrixVector = p.N == 1 && p.OH * p.OW == 1 && filterBytes >= double(1 << 16);
  if (flops < pol.minFlops && !piece && !matrixVector) {
    *why = "too small";
    return nullptr;
  }
  // float16 is converted to float32 in the caller's layout first (HalfStage).
  memory::data_type udt = memory::data_type::f32, f32 = memory::data_type::f32;
  memory::dims srcDims{p.N, p.C, p.H, p.W}, dstDims{p.N, p.O, p.OH, p.OW};
  Tag userTag = p.nhwc ? Tag::nhwc : Tag::nchw;
  auto impl = std::make_unique<Impl>();
  impl->p = p;
  impl->userSrc = p.srcStrides.empty() ? memory::desc(srcDims, udt, userTag)
                                       : memory::desc(srcDims, udt, memory::dims(p.srcStrides));
  const int64_t P = p.dstPixelPitch;  // a concat slice's pixels (nhwc)
  impl->userDst = !p.dstStrides.empty() ? memory::desc(dstDims, udt, memory::dims(p.dstStrides))
                  : P && p.nhwc         ? memory::desc(dstDims, udt, memory::dims{p.OH * p.OW * P, 1, p.OW * P, P})
                                        : memory::desc(dstDims, udt, userTag);
  memory::dims weiDims, weiStrides;
  int64_t OCg = p.O / p.groups, ICg = p.C / p.groups;
  if (p.groups == 1) {
    weiDims = {p.O, ICg, p.KH, p.KW};
    weiStrides = {p.filterStrideO, p.filterStrideI, p.filterStrideH, p.filterStrideW};
  } else {
    weiDims = {p.groups, OCg, ICg, p.KH, p.KW};
    weiStrides = {OCg * p.filterStrideO, p.filterStrideO, p.filterStrideI, p.filterStrideH, p.filterStrideW};
  }
  impl->userWei = memory::desc(weiDims, udt, weiStrides);
  if (p.hasBias) impl->userBias = memory::desc({p.O}, udt, Tag::a);

  std::string noBf16;
  bool bf16 = p.bf16 && p.dtype == DataType::kFloat32 && bf16Available(&noBf16);
  // Except >= 256 channels each way with 15-20 output columns, where
  // jit_wino_4x3 measured 1.4-2x slower than brgconv (1 thread; 16x16x256
  // 1.66 vs 1.16 ms, 16x16x512 9.0 vs 5.0, 18x18x256 2.6 vs 1.5; 12, 14 and
  // 24 columns a tie or Winograd ahead, and 128 channels at 16 a tie). By
  // columns, which a piece cut by rows keeps: its pieces stay direct too.
  const bool slowWinograd = p.C >= 256 && p.O >= 256 && p.OW >= 15 && p.OW <= 20;
  // jit_wino_4x3 rather than oneDNN's first choice, jit_fp32_wino_2x3, by
  // PieceSplit.h's rule (a piece padded on one side runs 4x3 anyway: 2x3
  // refuses it).
  const bool preferWinograd4x3 = winogradPrefersFourByFourTiles(p.C, p.O, p.OW);
  bool winogradShape = pol.winograd && p.groups == 1 && p.KH == 3 && p.KW == 3 && p.strideH == 1 &&
                       p.strideW == 1 && p.dilationH == 1 && p.dilationW == 1 && p.C >= 16 && p.O >= 16 &&
                       !slowWinograd && !winogradLosesOnSmallMaps(p.C, p.OH, p.OW);
  bool pointwise = p.KH == 1 && p.KW == 1;
  std::vector<Variant> variants;
  if (bf16) {
    // float32 variants follow, for shapes oneDNN has no optimized bf16 kernel for.
    if (p.nhwc) {
      variants.push_back({dnnl::algorithm::convolution_direct, Tag::nhwc, "bf16 nhwc", true});
    } else {
      variants.push_back({dnnl::algorithm::convolution_direct, Tag::nhwc, "bf16 nchw->nhwc", true});
      variants.push_back({dnnl::algorithm::convolution_direct, Tag::any, "bf16 nchw->any", true});
    }
  }
  if (winogradShape) variants.push_back({dnnl::algorithm::convolution_winograd, Tag::any, "winograd"});
  impl->mayCutOnOneThread = winogradShape && !piece && !bf16 && p.N == 1 && p.constantFilter &&
                            winogradBlocksOneTileHigh(p.C, p.O, p.OH, p.OW);
  if (p.nhwc) {
    variants.push_back({dnnl::algorithm::convolution_direct, Tag::nhwc, "nhwc"});
  } else {
    if (!pointwise) variants.push_back({dnnl::algorithm::convolution_direct, Tag::nhwc, "nchw->nhwc"});
    variants.push_back({dnnl::algorithm::convolution_direct, Tag::nchw, "nchw"});
    if (pointwise) variants.push_back({dnnl::algorithm::convolution_direct, Tag::nhwc, "nchw->nhwc"});
  }

  memory::dims strides{p.strideH, p.strideW}, dil{p.dilationH - 1, p.dilationW - 1};
  memory::dims padL{p.padTop, p.padLeft}, padR{p.padBottom, p.padRight};
  std::string lastImpl = "none";
  for (const Variant &v : variants) {
    memory::data_type mdt = v.bf16 ? memory::data_type::bf16 : f32;  // multiplicands
    memory::desc src(srcDims, mdt, v.act), dst(dstDims, f32, v.act), wei(weiDims, mdt, Tag::any);
    memory::desc bias = p.hasBias ? memory::desc({p.O}, f32, Tag::a) : memory::desc();
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, v.alg, src, wei, bias, dst, strides, dil,
                                      padL, padR);
    const bool wino4 = v.alg == dnnl::algorithm::convolution_winograd && preferWinograd4x3;
    impl->makePd = [d, p, wino4]() -> dnnl::primitive_desc_base {
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::post_ops ops;
      if (p.hasResidual) ops.append_sum(1.f);
      switch (p.activation) {
        case Conv2dParams::Activation::kNone: break;
        case Conv2dParams::Activation::kRelu:
          ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
          break;
        case Conv2dParams::Activation::kClamp:
          ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, p.clampMin, p.clampMax);
          break;
        case Conv2dParams::Activation::kSigmoid:
          ops.append_eltwise(1.f, dnnl::algorithm::eltwise_logistic, 0.f, 0.f);
          break;
        case Conv2dParams::Activation::kSilu:  // oneDNN's swish: x * sigmoid(alpha x)
          ops.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);
          break;
        case Conv2dParams::Activation::kHardSwish:  // oneDNN 2.x: x * relu6(x + 3) / 6
          ops.append_eltwise(1.f, dnnl::algorithm::eltwise_hardswish, 0.f, 0.f);
          break;
      }
      attr.set_post_ops(ops);
      dnnl::convolution_forward::primitive_desc pd(d, attr, cpuEngine());
      if (wino4) passWinograd2x3(pd);
      return pd;
    };
    std::string key = std::string("conv|") + (wino4 ? "w4|" : "") + (v.bf16 ? "bf16|" : "") + std::to_string(int(v.alg)) + "|" + std::to_string(int(v.act)) + "|post" +
                      std::to_string(int(p.hasResidual)) + std::to_string(int(p.activation)) + "," +
                      std::to_string(p.clampMin) + "," + std::to_string(p.clampMax);
    for (int64_t x : {p.N, p.C, p.H, p.W, p.O, p.KH, p.KW, p.groups, p.strideH, p.strideW, p.dilationH,
                      p.dilationW, p.padTop, p.padBottom, p.padLeft, p.padRight, int64_t(p.hasBias)})
      key += "," + std::to_string(x);
    impl->keyBase = key;
    if (!hasOptimizedPrimitive(*impl, &lastImpl)) continue;
    impl->v = v;
    return impl;
  }
  *why = "no optimized oneDNN implementation (last tried: " + lastImpl + ")";
  return nullptr;
}

std::unique_ptr<Conv2d::Impl> makePiece(const Conv2dParams &q, std::string *why) {
  try {
    return makeImpl(q, why, /*piece=*/true);
  } catch (const dnnl::error &e) {
    *why = e.what();
    return nullptr;
  }
}
}  // namespace

void Conv2d::Impl::choosePieces(int threads) {
  piecesThreads = threads;
  pieces.clear();
  piecesPrepared = false;
  ConvSplitShape shape = convSplitShape(p);
  shape.nhwc = p.nhwc;
  shape.float16 = f16();
  shape.constantFilter = p.constantFilter;
  shape.hasResidual = p.hasResidual;
  shape.winograd = primitiveFor(1)->impl.find("wino") != std::string::npos;
  const ConvPiecePlan plan = planConv2dPieces(shape, threads);
  if (plan.kind != PieceKind::kPieces) {
    split = plan.kind == PieceKind::kOpenMp ? Split::kOpenMp : Split::kOneThread;
    splitNote = plan.note;
    return;
  }
  std::vector<Piece> made;
  // Builds a piece's primitive; where one has none, the layer is not cut
  // and runs whole (`fallback`).
  auto add = [&](const Conv2dParams &q, Piece piece, Split fallback, const char *what) {
    std::string why;
    piece.impl = makePiece(q, &why);
    if (!piece.impl) {
      split = fallback;
      splitNote = std::string(fallback == Split::kOpenMp ? "OpenMP: " : "one thread: ") + what +
                  " has no optimized primitive (" + why + ")";
      return false;
    }
    made.push_back(std::move(piece));
    return true;
  };
  auto cut = [&](const char *by) {
    pieces = std::move(made);
    split = Split::kPieces;
    splitNote = std::to_string(pieces.size()) + " pieces of " + by;
  };
  // y's pixels in nhwc: a concat slice's pitch, else dense.
  const int64_t yPixel = p.nhwc && p.dstPixelPitch ? p.dstPixelPitch : p.O;
  // A piece of an nhwc y in a concat slice: its pixels at the slice's pitch.
  auto slicePiece = [&](Conv2dParams &q) {
    if (yPixel != p.O) q.dstStrides = {q.OH * q.OW * yPixel, 1, q.OW * yPixel, yPixel};
  };
  // Each piece all pixels of some output channels: its own filter rows, y's
  // channels at their stride (one pixel: a contiguous run).
  auto byChannels = [&](const ConvPiecePlan &channels) {
    for (const ConvPiece &r : channels.pieces) {
      Conv2dParams q = p;
      q.O = r.o;
      q.packedFilter.clear();  // rows of the filter: not the whole's layout
      Piece piece;
      piece.filterOffset = r.o0 * p.filterStrideO;
      piece.biasOffset = r.o0;
      if (p.OH * p.OW == 1) {
        piece.dstOffset = r.o0 * (p.nhwc ? 1 : p.OH * p.OW);
        slicePiece(q);
      } else if (p.nhwc) {
        piece.dstOffset = r.o0;
        q.dstStrides = {p.OH * p.OW * yPixel, 1, p.OW * yPixel, yPixel};
      } else {
        piece.dstOffset = r.o0 * p.OH * p.OW;
        q.dstStrides = {p.O * p.OH * p.OW, p.OH * p.OW, p.OW, 1};
      }
      if (!add(q, std::move(piece), Split::kOneThread, "a piece of channels")) return;
    }
    cut("output channels");
    // Filters prepacked for these pieces: one run of each piece's layout
    // (channelPiecesLayout), each piece reading its own.
    if (!p.constantFilter || p.OH * p.OW == 1) return;
    const std::string layout = channelPiecesLayout();
    const uint8_t *packed = static_cast<const uint8_t *>(findPacked(p.packedFilter, layout, channelPiecesBytes()));
    if (!packed) return;
    for (Piece &piece : pieces) {
      const memory::desc wei = piece.impl->primitiveFor(1)->pd.weights_desc();
      piece.impl->p.packedFilter = {{packedLayoutName(wei), packed, wei.get_size()}};
      packed += alignedPieceBytes(wei.get_size());
    }
  };
  if (plan.by == ConvPiecePlan::By::kChannels) return byChannels(plan);
  if (plan.by == ConvPiecePlan::By::kColumns) {  // nhwc, one image, one row
    for (const ConvPiece &r : plan.pieces) {
      Conv2dParams q = p;
      q.OW = r.ow1 - r.ow0;
      const PieceInput cols = pieceInput(r.ow0, r.ow1, p.strideW, p.padLeft, p.KW, p.dilationW, p.W);
      q.W = cols.in1 - cols.in0;
      q.padLeft = cols.padBefore;
      q.padRight = cols.padAfter;
      slicePiece(q);
      Piece piece;
      piece.srcOffset = cols.in0 * p.C;
      piece.dstOffset = r.ow0 * yPixel;
      if (!add(q, std::move(piece), Split::kOpenMp, "a piece")) return;
    }
    return cut("output columns");
  }
  for (const ConvPiece &r : plan.pieces) {
    Conv2dParams q = p;
    q.N = r.n;
    q.OH = r.oh1 - r.oh0;
    const PieceInput rows = pieceInput(r.oh0, r.oh1, p.strideH, p.padTop, p.KH, p.dilationH, p.H);
    const int64_t in0 = rows.in0;
    q.H = rows.in1 - in0;  // > 0: the plan leaves layers with padding-only pieces whole
    q.padTop = rows.padBefore;
    q.padBottom = rows.padAfter;
    Piece piece;
    if (p.nhwc) {
      piece.srcOffset = (r.n0 * p.H + in0) * p.W * p.C;
      piece.dstOffset = (r.n0 * p.OH + r.oh0) * p.OW * yPixel;
      slicePiece(q);
    } else {
      piece.srcOffset = r.n0 * p.C * p.H * p.W + in0 * p.W;
      piece.dstOffset = r.n0 * p.O * p.OH * p.OW + r.oh0 * p.OW;
      if (q.H != p.H || q.OH != p.OH) {  // rows of an nchw tensor: channel planes keep their stride
        q.srcStrides = {p.C * p.H * p.W, p.H * p.W, p.W, 1};
        q.dstStrides = {p.O * p.OH * p.OW, p.OH * p.OW, p.OW, 1};
      }
    }
    if (!add(q, std::move(piece), Split::kOpenMp, "a piece")) return;
  }
  cut(plan.by == ConvPiecePlan::By::kImages ? "images" : "output rows");
}

Status Conv2d::run(const void *x, const void *filter, const void *bias, void *y, ThreadPool &pool,
                   const void *residual) {
  Impl &s = *impl_;
  const int threads = pool.numThreads();
  if (!s.mayCut(threads)) return s.execute(x, filter, bias, y, 1, residual);
  const size_t elem = s.f16() ? 2 : 4;
  WEBNN_RETURN_IF_ERROR(preparePieces(s, threads, "oneDNN convolution", [&](size_t i) {
    Impl &piece = *s.pieces[i].impl;
    for (size_t j = 0; j < i; ++j)  // only pieces that read the same filter rows
      if (s.pieces[j].filterOffset == s.pieces[i].filterOffset) piece.filterDonors.push_back(s.pieces[j].impl.get());
    piece.prepare(static_cast<const uint8_t *>(filter) + size_t(s.pieces[i].filterOffset) * elem, 1);
  }));
  switch (s.split) {
    case Split::kPieces: break;
    case Split::kOneThread: return s.execute(x, filter, bias, y, 1, residual);
    default: return s.execute(x, filter, bias, y, threads, residual);
  }
  auto at = [elem](const void *base, int64_t offset) { return pieceOperand(base, offset, elem); };
  return runPieces(pool, s.pieces.size(), [&](size_t i) {
    const Impl::Piece &piece = s.pieces[i];
    return piece.impl->execute(at(x, piece.srcOffset), at(filter, piece.filterOffset), at(bias, piece.biasOffset),
                               static_cast<uint8_t *>(y) + size_t(piece.dstOffset) * elem, 1,
                               at(residual, piece.dstOffset));
  });
}

Status Conv2d::Impl::execute(const void *x, const void *filter, const void *bias, void *y, int numThreads,
                             const void *residual) {
  Impl &s = *this;
  try {
    s.prepare(filter, numThreads);
    useThreads(numThreads);
    dnnl::stream &st = cpuStream();
    void *yUser = y;
    if (s.f16()) {
      x = s.srcHalf.in(x);
      if (bias) bias = s.biasHalf.in(bias);
      y = s.dstHalf.data();
    }
    uint8_t *work = threadWorkspace(s.workBytes);
    s.scratch.set_data_handle(work + s.scratchWork);
    if (s.castSrc) {
      floatToBf16(static_cast<const float *>(x), work + s.srcWork, s.p.N * s.p.C * s.p.H * s.p.W, numThreads);
      s.src.set_data_handle(work + s.srcWork);
    } else if (s.reorderSrc) {
      s.srcIn.run(x, work + s.srcWork);
    } else {
      s.src.set_data_handle(const_cast<void *>(x));
    }
    if (!s.weightsPacked) s.weiPack.run(s.filterF32(filter, &s.weiHalf), nullptr);
    if (s.p.hasBias) {
      if (s.reorderBias) s.biasIn.run(bias, nullptr);
      else s.bias.set_data_handle(const_cast<void *>(bias));
    }
    s.dst.set_data_handle(s.reorderDst ? work + s.dstWork : y);
    if (s.p.hasResidual) {
      // The sum post-op adds what the destination holds: the residual's
      // copy, or the residual itself where the plan wrote y over it (a
      // dying residual, ExecutionPlan.cpp); the blocked workspace takes a
      // reordered copy before the primitive writes anything.
      if (s.reorderDst) s.residualIn.run(residual, work + s.dstWork);
      else if (residual != y)  // nhwc rows are contiguous; nchw pieces never take a residual
        std::memcpy(y, residual, size_t(s.p.N * s.p.O * s.p.OH * s.p.OW) * sizeof(float));
    }
    s.entry->get().execute(st, s.args);
    noteExecution();
    if (s.reorderDst) s.dstOut.run(work + s.dstWork, y);
    if (s.f16()) s.dstHalf.out(yUser);
    return Status::ok();
  } catch (const dnnl::error &e) {
    return oneDnnStatus(e, "oneDNN convolution");
  } catch (const std::bad_alloc &) {
    return Status(StatusCode::kOutOfMemory, "oneDNN convolution: out of memory for its buffers");
  }
}

void Conv2d::buildPrimitive(int numThreads) noexcept { buildPrimitivesFor(*impl_, numThreads); }

// The primitive whose filter layout `numThreads` threads use: the whole
// layer's one-thread primitive, or with several threads the first piece's
// when the pieces share the whole filter (pieces of images or rows; their
// primitives may choose another layout, e.g. another Winograd tile for fewer
// rows). Pieces of output channels pack their own rows: none is stored.
Conv2d::Impl &Conv2d::Impl::filterOwner(int numThreads) {
  if (mayCut(numThreads)) {
    std::lock_guard<std::mutex> lock(piecesMutex);
    if (piecesThreads != numThreads) choosePieces(numThreads);
    if (split == Split::kPieces && !pieces.empty() && pieces.front().filterOffset == 0 &&
        pieces.back().filterOffset == 0)
      return *pieces.front().impl;
  }
  return *this;
}

std::string Conv2d::packedFilterLayout(int numThreads) {
  Impl &owner = impl_->filterOwner(numThreads);
  if (&owner == impl_.get() && owner.mayCut(numThreads) && owner.channelPiecesPacked()) return owner.channelPiecesLayout();
  return packedLayoutName(owner.primitiveFor(1)->pd.weights_desc());
}

bool Conv2d::usesPrepackedFilter() const { return usesPrepackedWeights(*impl_); }

size_t Conv2d::packedFilterBytes(int numThreads) {
  Impl &owner = impl_->filterOwner(numThreads);
  if (&owner == impl_.get() && owner.mayCut(numThreads) && owner.channelPiecesPacked()) return owner.channelPiecesBytes();
  return owner.primitiveFor(1)->pd.weights_desc().get_size();
}

void Conv2d::packFilter(const void *filter, void *packed, int numThreads) {
  Impl &owner = impl_->filterOwner(numThreads);
  if (&owner == impl_.get() && owner.mayCut(numThreads) && owner.channelPiecesPacked()) {
    const size_t elem = owner.f16() ? 2 : 4;
    uint8_t *at = static_cast<uint8_t *>(packed);
    for (Impl::Piece &piece : owner.pieces) {
      Impl &pi = *piece.impl;
      std::shared_ptr<CachedPrimitive> e = pi.primitiveFor(1);
      HalfStage stage;
      packWeightsInto(pi.userWei, e->pd.weights_desc(),
                      pi.filterF32(pieceOperand(filter, piece.filterOffset, elem), &stage), at);
      at += Impl::alignedPieceBytes(e->pd.weights_desc().get_size());
    }
    return;
  }
  HalfStage stage;
  packWeightsInto(owner.userWei, owner.primitiveFor(1)->pd.weights_desc(), owner.filterF32(filter, &stage), packed);
}

std::string Conv2d::implementation() const {
  return describeImplementation(*impl_, [](const Impl &s) { return std::string(s.v.name); });
}

}  // namespace webnn::cpu::onednn
