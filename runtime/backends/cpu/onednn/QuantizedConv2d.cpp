// quantizedConv2d on oneDNN's int8 convolution_forward (inference): u8/s8
// nhwc source, s8 filter in the primitive's blocked layout (packed once),
// s32 sums. The per-channel scales are static output scales, the source and
// destination zero points static attributes, the bias float32 in sum units
// (oneDNN 2.x adds it before the output scale), so the destination is
// saturate(roundEven(scale[o] * (sum + bias[o])) + dstZero), as ONNX
// Runtime's requantization computes it. A residual block's join is more
// post-ops: the conv's own quantizeLinear (its zero point added with the
// bias, round, clip), its rescaling into the output's units, and a sum of
// the residual (which oneDNN reads from the destination) with its scale and
// zero point, then relu.
//
// Threads: as Conv2d.cpp, every primitive is built for one thread and a
// multi-threaded run is cut into single-threaded pieces (images, output
// rows with their own padding, or output channels: PieceSplit.h; output
// channels too where rows do not divide evenly) that the session's
// pool runs; pieces whose primitives want the whole layer's filter layout
// share its packed filter.
#include <cstring>
#include <mutex>

#include "runtime/backends/cpu/PieceSplit.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/onednn/Context.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

struct QuantizedConv2d::Impl : PrimitiveState {
  QuantizedConv2dParams p;
  memory::desc userSrc, userDst, userWei;
  std::vector<float> sumBias;  // the primitive's bias (p.bias, plus convZero / scale with a residual)
  // A few-channel 7x7 (or larger) layer with a source zero point and
  // padding (ResNet's stem): its input padded here with the zero point, the
  // primitive without padding nor source zero point (the zero point times
  // each filter's sum joins the bias), which oneDNN 2.6 runs on brgconv
  // rather than jit_int8, faster for ResNet-50's stem even counting the
  // padding; MobileNetV2's 3x3 stem was slower so, hence 7x7 or larger.
  bool padByHand = false, biasCorrected = false;
  int64_t paddedH = 0, paddedW = 0;
  std::vector<uint8_t> padded;

  // Prepared for readyThreads (PrimitiveState):
  memory src, wei, bias, dst, scratch;
  std::unordered_map<int, memory> args;
  AlignedBuffer weiBuf;
  const Impl *donor = nullptr;  // the whole layer, when a piece shares its packed filter
  size_t scratchBytes = 0;

  struct Piece {
    std::unique_ptr<Impl> impl;
    int64_t srcOffset = 0, dstOffset = 0, filterOffset = 0;  // elements
    std::vector<uint8_t> stage;  // a piece of channels' dense output, when it has one
  };
  std::mutex piecesMutex;
  int piecesThreads = 0;
  Split split = Split::kUnknown;
  std::vector<Piece> pieces;
  std::string splitNote;

  size_t dstElem() const { return p.output == QuantizedConv2dParams::Output::kFloat32 ? 4 : 1; }

  void prepare(const void *filter, int threads) {
    std::lock_guard<std::mutex> lock(mutex);
    if (readyThreads == threads) return;
    entry = primitiveFor(threads);
    const dnnl::primitive_desc_base &pd = entry->pd;
    dnnl::engine &eng = cpuEngine();
    src = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    dst = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    memory::desc primWei = pd.weights_desc();
    if (donor && donor->readyThreads && donor->wei.get_desc() == primWei) {
      wei = memory(primWei, eng, donor->wei.get_data_handle());
    } else {
      weiBuf.resize(primWei.get_size());
      WeightPacker pack;
      pack.init(userWei, primWei, weiBuf.data());
      pack.run(filter, weiBuf.data());
      wei = memory(primWei, eng, weiBuf.data());
    }
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (padByHand && !biasCorrected) {
      const int8_t *w = static_cast<const int8_t *>(filter);
      const int64_t per = p.KH * p.KW * p.C;
      for (int64_t o = 0; o < p.O; ++o) {
        int32_t sum = 0;
        for (int64_t i = 0; i < per; ++i) sum += w[o * per + i];
        sumBias[size_t(o)] -= float(p.srcZero) * float(sum);
      }
      biasCorrected = true;
    }
    if (!sumBias.empty()) {
      bias = memory(memory::desc({p.O}, memory::data_type::f32, Tag::a), eng, sumBias.data());
      args[DNNL_ARG_BIAS] = bias;
    }
    memory::desc sp = pd.scratchpad_desc();
    scratchBytes = sp.get_size();
    scratch = memory(sp, eng, DNNL_MEMORY_NONE);
    args[DNNL_ARG_SCRATCHPAD] = scratch;
    entry->get();
    readyThreads = threads;
  }

  Status execute(const void *x, const void *filter, void *y, int threads) {
    try {
      prepare(filter, threads);
      useThreads(threads);
      uint8_t *work = threadWorkspace(scratchBytes);
      scratch.set_data_handle(work);
      if (padByHand) x = padInput(static_cast<const uint8_t *>(x));
      src.set_data_handle(const_cast<void *>(x));
      dst.set_data_handle(y);
      entry->get().execute(cpuStream(), args);
      noteExecution();
      return Status::ok();
    } catch (const dnnl::error &e) {
      return oneDnnStatus(e, "oneDNN int8 convolution");
    } catch (const std::bad_alloc &) {
      return Status(StatusCode::kOutOfMemory, "oneDNN int8 convolution: out of memory for its buffers");
    }
  }

  // x in `padded`'s middle, its border the zero point (all of it: the
  // layer's bytes are few).
  const uint8_t *padInput(const uint8_t *x) {
    const int c = p.srcZero & 0xFF;
    const size_t C = size_t(p.C), row = size_t(p.W) * C, prow = size_t(paddedW) * C;
    const size_t left = size_t(p.padLeft) * C, right = size_t(p.padRight) * C;
    for (int64_t n = 0; n < p.N; ++n) {
      uint8_t *img = padded.data() + size_t(n * paddedH) * prow;
      std::memset(img, c, size_t(p.padTop) * prow);
      for (int64_t h = 0; h < p.H; ++h) {
        uint8_t *r = img + size_t(p.padTop + h) * prow;
        std::memset(r, c, left);
        std::memcpy(r + left, x + size_t(n * p.H + h) * row, row);
        std::memset(r + left + row, c, right);
      }
      std::memset(img + size_t(p.padTop + p.H) * prow, c, size_t(p.padBottom) * prow);
    }
    return padded.data();
  }

  void choosePieces(int threads);
};

namespace {

std::unique_ptr<QuantizedConv2d::Impl> makeImpl(const QuantizedConv2dParams &p, std::string *why) {
  using Impl = QuantizedConv2d::Impl;
  if (!policy().enabled) {
    *why = "oneDNN disabled";
    return nullptr;
  }
  using DT = memory::data_type;
  DT srcDt = p.srcSigned ? DT::s8 : DT::u8;
  DT dstDt = p.output == QuantizedConv2dParams::Output::kFloat32 ? DT::f32
             : p.output == QuantizedConv2dParams::Output::kUint8 ? DT::u8
                                                                  : DT::s8;
  auto impl = std::make_unique<Impl>();
  impl->p = p;
  const bool padByHand = p.C < 16 && p.KH >= 7 && p.KW >= 7 && p.srcZero != 0 && p.groups == 1 && p.dilationH == 1 &&
                         p.dilationW == 1 &&
                         (p.padTop | p.padBottom | p.padLeft | p.padRight) != 0;
  const QuantizedConv2dParams e = [&] {
    QuantizedConv2dParams q = p;
    if (padByHand) {
      q.H += q.padTop + q.padBottom;
      q.W += q.padLeft + q.padRight;
      q.padTop = q.padBottom = q.padLeft = q.padRight = 0;
      q.srcZero = 0;
    }
    return q;
  }();
  if (padByHand) {
    impl->padByHand = true;
    impl->paddedH = e.H;
    impl->paddedW = e.W;
    impl->padded.resize(size_t(e.N * e.H * e.W * e.C));
  }
  memory::dims srcDims{e.N, e.C, e.H, e.W}, dstDims{p.N, p.O, p.OH, p.OW};
  impl->userSrc = memory::desc(srcDims, srcDt, Tag::nhwc);
  impl->userDst = p.dstStrides.empty() ? memory::desc(dstDims, dstDt, Tag::nhwc)
                                       : memory::desc(dstDims, dstDt, memory::dims(p.dstStrides));
  // The ohwi filter described by strides; groups split the o axis.
  const int64_t OCg = p.O / p.groups, ICg = p.C / p.groups;
  const int64_t sO = p.KH * p.KW * ICg, sH = p.KW * ICg, sW = ICg;
  memory::dims weiDims, weiStrides;
  if (p.groups == 1) {
    weiDims = {p.O, ICg, p.KH, p.KW};
    weiStrides = {sO, 1, sH, sW};
  } else {
    weiDims = {p.groups, OCg, ICg, p.KH, p.KW};
    weiStrides = {OCg * sO, sO, 1, sH, sW};
  }
  impl->userWei = memory::desc(weiDims, DT::s8, weiStrides);
  memory::desc wei(weiDims, DT::s8, Tag::any);
  // With a residual the conv's zero point joins the bias (in sum units): a
  // second eltwise_linear in one post-op chain computes wrong values in
  // oneDNN 2.6's int8 kernels (linear, round, clip, linear gave 19 for 15).
  impl->sumBias = p.bias;
  if (p.hasResidual) {
    impl->sumBias.resize(size_t(p.O), 0.f);
    for (int64_t o = 0; o < p.O; ++o)
      if (p.scales[size_t(o)] != 0.f) impl->sumBias[size_t(o)] += float(p.convZero) / p.scales[size_t(o)];
  }
  if (padByHand) impl->sumBias.resize(size_t(p.O), 0.f);
  memory::desc bias = impl->sumBias.empty() ? memory::desc() : memory::desc({p.O}, DT::f32, Tag::a);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                    impl->userSrc, wei, bias, impl->userDst, {e.strideH, e.strideW},
                                    {e.dilationH - 1, e.dilationW - 1}, {e.padTop, e.padLeft},
                                    {e.padBottom, e.padRight});
  impl->makePd = [d, p = e]() -> dnnl::primitive_desc_base {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    attr.set_output_scales(1 << 1, p.scales);
    if (p.srcZero != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {p.srcZero});
    if (p.dstZero != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {p.dstZero});
    dnnl::post_ops ops;
    if (p.hasResidual) {
      // The conv's own quantizeLinear (round, saturate), its dequantization
      // into output units, then the residual's.
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, p.convMin, p.convMax);
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, p.convToOut, -float(p.convZero) * p.convToOut);
      ops.append_sum(p.residualScale, p.residualZero);
    }
    if (p.relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attr.set_post_ops(ops);
    return dnnl::convolution_forward::primitive_desc(d, attr, cpuEngine());
  };
  // Layers with equal shapes and parameters share one primitive.
  std::string key = "qconv|" + std::to_string(int(srcDt)) + "," + std::to_string(int(dstDt));
  for (int64_t x : {e.N, e.C, e.H, e.W, p.O, p.OH, p.OW, p.KH, p.KW, p.groups, p.strideH, p.strideW, p.dilationH,
                    p.dilationW, e.padTop, e.padBottom, e.padLeft, e.padRight, int64_t(e.srcZero),
                    int64_t(p.dstZero), int64_t(impl->sumBias.size()), int64_t(p.relu), int64_t(p.hasResidual),
                    int64_t(p.convZero), int64_t(p.residualZero)})
    key += "," + std::to_string(x);
  for (int64_t x : p.dstStrides) key += ",s" + std::to_string(x);
  key += "|";
  std::string bits(p.scales.size() * sizeof(float), '\0');
  std::memcpy(bits.data(), p.scales.data(), bits.size());
  key += bits;
  if (p.hasResidual)
    for (float f : {p.convMin, p.convMax, p.convToOut, p.residualScale}) {
      char b[sizeof(float)];
      std::memcpy(b, &f, sizeof f);
      key.append(b, sizeof f);
    }
  impl->keyBase = key;
  try {
    std::shared_ptr<CachedPrimitive> e = impl->primitiveFor(1);
    if (isReferenceImpl(e->impl)) {
      *why = "no optimized oneDNN int8 implementation (" + e->impl + ")";
      return nullptr;
    }
  } catch (const dnnl::error &e) {
    *why = std::string("oneDNN int8 convolution: ") + e.what();
    return nullptr;
  }
  return impl;
}

}  // namespace

void QuantizedConv2d::Impl::choosePieces(int threads) {
  piecesThreads = threads;
  pieces.clear();
  ConvSplitShape shape = convSplitShape(p);
  shape.nhwc = true;
  // The plan's thresholds are in float32 FLOPs; int8 pieces do the same
  // multiply-adds.
  ConvPiecePlan plan = planConv2dPieces(shape, threads);
  // Rows that do not divide evenly (ResNet-50's last stage: 7 rows on 2
  // threads as 4 + 3, the 4-row piece setting the layer's time) are cut by
  // output channels instead (whole 16-channel blocks): equal work, each core
  // reading its part of the filter. Not the 1x1 stride-1 layers: there (and
  // in MobileNetV2's 7x7 stage) equal pieces of pixels measured slower than
  // 4 + 3 rows, the next layer's rows then coming from the other core.
  if (plan.kind == PieceKind::kPieces && plan.by == ConvPiecePlan::By::kRows && p.N == 1 && p.groups == 1 &&
      !(p.KH == 1 && p.KW == 1 && p.strideH == 1 && p.strideW == 1)) {
    const int64_t count = int64_t(plan.pieces.size());
    const bool uneven = ((p.OH + count - 1) / count) * count * 20 > p.OH * 21;
    if (uneven && p.O % (count * 16) == 0) {
      const int64_t per = p.O / count;
      plan.by = ConvPiecePlan::By::kChannels;
      plan.pieces.clear();
      for (int64_t i = 0; i < count; ++i) plan.pieces.push_back({0, p.N, 0, p.OH, i * per, per});
    }
  }
  if (plan.kind != PieceKind::kPieces) {
    split = plan.kind == PieceKind::kOpenMp ? Split::kOpenMp : Split::kOneThread;
    splitNote = plan.note;
    return;
  }
  std::vector<Piece> made;
  auto add = [&](const QuantizedConv2dParams &q, Piece piece) {
    std::string why;
    piece.impl = makeImpl(q, &why);
    if (!piece.impl) {
      split = Split::kOneThread;
      splitNote = "one thread: a piece has no optimized primitive (" + why + ")";
      return false;
    }
    if (piece.filterOffset == 0 && q.O == p.O) piece.impl->donor = this;
    made.push_back(std::move(piece));
    return true;
  };
  const char *by = "output rows";
  if (plan.by == ConvPiecePlan::By::kChannels) {
    if (p.groups != 1) {
      split = Split::kOneThread;
      splitNote = "one thread: grouped layers are not cut by channels";
      return;
    }
    // One output pixel: each piece writes its channels of y in place. More:
    // oneDNN 2.6's int8 kernels take no strided destination, so each piece
    // writes its own dense [N, OH, OW, o] buffer (its residual gathered
    // there first), scattered into y after.
    const bool staged = p.N * p.OH * p.OW > 1;
    for (const ConvPiece &r : plan.pieces) {
      QuantizedConv2dParams q = p;
      q.O = r.o;
      q.scales.assign(p.scales.begin() + r.o0, p.scales.begin() + r.o0 + r.o);
      if (!p.bias.empty()) q.bias.assign(p.bias.begin() + r.o0, p.bias.begin() + r.o0 + r.o);
      if (!staged) q.dstStrides = {p.OH * p.OW * p.O, 1, p.OW * p.O, p.O};
      Piece piece;
      piece.filterOffset = r.o0 * p.KH * p.KW * (p.C / p.groups);
      piece.dstOffset = r.o0;
      if (staged) piece.stage.resize(size_t(p.N * p.OH * p.OW * r.o) * dstElem());
      if (!add(q, std::move(piece))) return;
    }
    by = "output channels";
  } else if (plan.by == ConvPiecePlan::By::kImages || plan.by == ConvPiecePlan::By::kRows) {
    for (const ConvPiece &r : plan.pieces) {
      QuantizedConv2dParams q = p;
      q.N = r.n;
      q.OH = r.oh1 - r.oh0;
      const PieceInput rows = pieceInput(r.oh0, r.oh1, p.strideH, p.padTop, p.KH, p.dilationH, p.H);
      q.H = rows.in1 - rows.in0;
      q.padTop = rows.padBefore;
      q.padBottom = rows.padAfter;
      Piece piece;
      piece.srcOffset = (r.n0 * p.H + rows.in0) * p.W * p.C;
      piece.dstOffset = (r.n0 * p.OH + r.oh0) * p.OW * p.O;
      if (!add(q, std::move(piece))) return;
    }
    if (plan.by == ConvPiecePlan::By::kImages) by = "images";
  } else {
    split = Split::kOneThread;
    splitNote = "one thread: not cut by columns";
    return;
  }
  pieces = std::move(made);
  split = Split::kPieces;
  splitNote = std::to_string(pieces.size()) + " pieces of " + by;
}

QuantizedConv2d::QuantizedConv2d(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
QuantizedConv2d::~QuantizedConv2d() = default;

std::unique_ptr<QuantizedConv2d> QuantizedConv2d::create(const QuantizedConv2dParams &p, std::string *why) {
  std::unique_ptr<Impl> impl;
  try {
    impl = makeImpl(p, why);
  } catch (const dnnl::error &e) {
    *why = e.what();
  }
  if (!impl) return nullptr;
  return std::unique_ptr<QuantizedConv2d>(new QuantizedConv2d(std::move(impl)));
}

Status QuantizedConv2d::run(const void *x, const void *filter, const void *residual, void *y, ThreadPool &pool) {
  Impl &s = *impl_;
  const int threads = pool.numThreads();
  // The sum post-op adds what the destination holds. The memory planner
  // places the output over a residual that dies here (ExecutionPlan's
  // accumulatesInto); else the residual is copied there first, by each piece
  // of rows for its own rows, else whole.
  const size_t de = s.dstElem();
  const bool copyResidual = s.p.hasResidual && residual != y;
  auto copyAll = [&] {
    if (copyResidual) std::memcpy(y, residual, size_t(s.p.N * s.p.OH * s.p.OW * s.p.O) * de);
  };
  if (threads == 1) {
    copyAll();
    return s.execute(x, filter, y, 1);
  }
  {
    std::lock_guard<std::mutex> lock(s.piecesMutex);
    if (s.piecesThreads != threads) {
      try {
        s.choosePieces(threads);
      } catch (const dnnl::error &e) {
        return oneDnnStatus(e, "oneDNN int8 convolution");
      }
      // The whole layer's filter first: pieces that want its layout share it.
      if (s.split == Split::kPieces) {
        try {
          s.prepare(filter, 1);
        } catch (const dnnl::error &e) {
          return oneDnnStatus(e, "oneDNN int8 convolution");
        } catch (const std::bad_alloc &) {
          return Status(StatusCode::kOutOfMemory, "oneDNN int8 convolution: out of memory for its filter");
        }
      }
    }
  }
  switch (s.split) {
    case Split::kPieces: break;
    case Split::kOneThread: copyAll(); return s.execute(x, filter, y, 1);
    default: copyAll(); return s.execute(x, filter, y, threads);
  }
  const Impl::Piece &first = s.pieces.front();
  const bool staged = !first.stage.empty();
  const bool rowPieces = !staged && first.impl->p.O == s.p.O;  // dense runs of y (not channel pieces)
  if (!rowPieces && !staged) copyAll();
  const int8_t *f = static_cast<const int8_t *>(filter);
  return runPieces(pool, s.pieces.size(), [&](size_t i) {
    Impl::Piece &piece = s.pieces[i];
    const QuantizedConv2dParams &q = piece.impl->p;
    if (staged) {
      // Channels [dstOffset, dstOffset + q.O) of every pixel, through the
      // piece's dense buffer.
      const size_t pixels = size_t(q.N * q.OH * q.OW), run = size_t(q.O) * de, pitch = size_t(s.p.O) * de;
      uint8_t *base = static_cast<uint8_t *>(y) + size_t(piece.dstOffset) * de;
      if (s.p.hasResidual) {
        const uint8_t *r = static_cast<const uint8_t *>(residual) + size_t(piece.dstOffset) * de;
        for (size_t px = 0; px < pixels; ++px) std::memcpy(piece.stage.data() + px * run, r + px * pitch, run);
      }
      Status st = piece.impl->execute(static_cast<const uint8_t *>(x) + piece.srcOffset, f + piece.filterOffset,
                                      piece.stage.data(), 1);
      if (!st.isOk()) return st;
      for (size_t px = 0; px < pixels; ++px) std::memcpy(base + px * pitch, piece.stage.data() + px * run, run);
      return Status::ok();
    }
    uint8_t *out = static_cast<uint8_t *>(y) + size_t(piece.dstOffset) * de;
    if (copyResidual && rowPieces)
      std::memcpy(out, static_cast<const uint8_t *>(residual) + size_t(piece.dstOffset) * de,
                  size_t(q.N * q.OH * q.OW * q.O) * de);
    return piece.impl->execute(static_cast<const uint8_t *>(x) + piece.srcOffset, f + piece.filterOffset, out, 1);
  });
}

void QuantizedConv2d::buildPrimitive(int numThreads) noexcept {
  try {
    if (numThreads == 1) {
      impl_->primitiveFor(1)->get();
      return;
    }
    std::lock_guard<std::mutex> lock(impl_->piecesMutex);
    if (impl_->piecesThreads != numThreads) impl_->choosePieces(numThreads);
    if (impl_->split == Split::kPieces)
      for (Impl::Piece &piece : impl_->pieces) piece.impl->primitiveFor(1)->get();
    else
      impl_->primitiveFor(impl_->split == Split::kOpenMp ? numThreads : 1)->get();
  } catch (...) {
    // Left for run() to meet.
  }
}

std::string QuantizedConv2d::implementation() const {
  Impl &s = *impl_;
  if (s.split == Split::kPieces && !s.pieces.empty()) {
    Impl &piece = *s.pieces.front().impl;
    return piece.primitiveFor(1)->impl + " (int8; " + s.splitNote + ")";
  }
  return s.primitiveFor(1)->impl + " (int8" + (s.splitNote.empty() ? "" : "; " + s.splitNote) + ")";
}

}  // namespace webnn::cpu::onednn
