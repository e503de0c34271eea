// quantizedMatmul (docs/FUSED_OPS.md): the matmul of an int8 QDQ graph on
// 8-bit integers. A float operand is quantized here with quantizeLinear's
// rule (the QDQ pair the compiler folded), an int8/uint8 one is used as is;
// the products are summed exactly in int32 (QdqGemm.h), then scaled, and
// quantized and dequantized again when the graph did so, and the bias added.
//
// A constant B (an int8 weight with per-column scales) is packed once, at the
// first run or from the artifact's prepacked copy (`webnnc compile
// --prepack`, layout kQdqPackedLayout); a B computed at run time (attention
// scores) is quantized and packed on every run. The GEMM runs on AMX tiles
// where the CPU and OS allow them (amxInt8Available()), else on AVX512-VNNI
// where the CPU has it (avx512Available()), else on the portable loops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/QdqGemm.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {

// ------------------------------------------------------------ portable parts
void qdqPackB(const int8_t *b, int64_t ldb, int64_t K, int64_t N, int32_t za, const int32_t *zb,
              int64_t zbStride, const float *scale, int64_t scaleStride, uint8_t *out) {
  const int64_t K4 = qdqK4(K), panels = qdqPanels(N), cols = panels * kQdqPanel;
  int8_t *dst = reinterpret_cast<int8_t *>(out);
  std::memset(out, 0, size_t(qdqPackedBytes(K, N)));
  std::vector<int32_t> colSum(size_t(cols), 0);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < kQdqPanel; ++j) {
        int64_t n = p * kQdqPanel + j;
        if (n >= N) break;
        int8_t v = b[k * ldb + n];
        dst[((p * K4 + k / 4) * kQdqPanel + j) * 4 + k % 4] = v;
        colSum[size_t(n)] += v;
      }
  QdqPackedB view = qdqPackedView(out, K, N);
  auto *colTerm = const_cast<int32_t *>(view.colTerm);
  auto *zbOut = const_cast<int32_t *>(view.zb);
  auto *scaleOut = const_cast<float *>(view.scale);
  for (int64_t n = 0; n < N; ++n) {
    int32_t z = zb[n * zbStride];
    // Wrapping: each term may overflow, their sum with the loop's does not.
    colTerm[n] = int32_t(uint32_t(K) * uint32_t(za) * uint32_t(z) - uint32_t(za) * uint32_t(colSum[size_t(n)]));
    zbOut[n] = z;
    scaleOut[n] = scale[n * scaleStride];
  }
}

QdqPackedB qdqPackedView(const uint8_t *packed, int64_t K, int64_t N) {
  const int64_t cols = qdqPanels(N) * kQdqPanel;
  QdqPackedB v;
  v.panels = reinterpret_cast<const int8_t *>(packed);
  const uint8_t *terms = packed + cols * qdqK4(K) * 4;
  v.colTerm = reinterpret_cast<const int32_t *>(terms);
  v.zb = reinterpret_cast<const int32_t *>(terms + cols * 4);
  v.scale = reinterpret_cast<const float *>(terms + cols * 8);
  return v;
}

namespace {
inline float qdqEpilogue(int32_t sum, int64_t n, const QdqPackedB &B, const QdqEpilogue &e) {
  float y = float(sum) * B.scale[n];
  if (e.roundTrip) {
    float q = std::nearbyint(y / e.outScale) + e.outZp;
    q = std::min(std::max(q, e.qmin), e.qmax);
    y = (q - e.outZp) * e.outScale;
  }
  return e.bias ? y + e.bias[n] : y;
}
}  // namespace

void qdqGemmPortable(const uint8_t *A, int64_t lda, const int32_t *rowSum, const QdqPackedB &B, int64_t K,
                     int64_t N, int64_t m0, int64_t m1, int64_t p0, int64_t p1, float *Y, int64_t ldy,
                     const QdqEpilogue &e) {
  const int64_t K4 = qdqK4(K);
  for (int64_t p = p0; p < p1; ++p) {
    const int8_t *panel = B.panels + p * K4 * kQdqPanel * 4;
    for (int64_t m = m0; m < m1; ++m) {
      const uint8_t *a = A + m * lda;
      int32_t acc[kQdqPanel] = {};
      for (int64_t k4 = 0; k4 < K4; ++k4)
        for (int64_t j = 0; j < kQdqPanel; ++j)
          for (int64_t t = 0; t < 4; ++t)
            acc[j] += int32_t(a[k4 * 4 + t]) * panel[(k4 * kQdqPanel + j) * 4 + t];
      for (int64_t j = 0; j < kQdqPanel; ++j) {
        int64_t n = p * kQdqPanel + j;
        if (n >= N) break;
        int32_t sum = int32_t(uint32_t(acc[j]) + uint32_t(B.colTerm[n]) - uint32_t(B.zb[n]) * uint32_t(rowSum[m]));
        Y[m * ldy + n] = qdqEpilogue(sum, n, B, e);
      }
    }
  }
}

void qdqQuantizeRowsPortable(const float *x, int64_t rows, int64_t K, float scale, float zp, float qmin,
                             float qmax, int32_t shift, uint8_t *out, int64_t lda, int32_t *rowSum) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * K;
    uint8_t *o = out + r * lda;
    int32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      float v = xr[k] / scale;
      // NaN quantizes to the zero point, as quantizeLinear does.
      float q = std::isnan(v) ? zp : std::min(std::max(std::nearbyint(v) + zp, qmin), qmax);
      int32_t s = int32_t(q) + shift;
      o[k] = uint8_t(s);
      sum += s;
    }
    std::memset(o + K, 0, size_t(lda - K));
    rowSum[r] = sum;
  }
}

namespace {

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }
const void *optionalData(const KernelContext &ctx, size_t i) {
  return i < ctx.numInputs && ctx.inputs[i] ? ctx.inputs[i]->data : nullptr;
}

// One quantized operand's parameters, as the kernel uses them.
struct QuantParams {
  bool isFloat = false;  // quantized here from float
  bool isSigned = false;  // int8 (stored + 128) or uint8
  float qmin = 0, qmax = 255;
  std::vector<float> scale;   // 1 or N
  std::vector<int32_t> zero;  // 1 or N, unshifted
};

int32_t readZero(const void *p, bool isSigned, int64_t i) {
  return isSigned ? int32_t(static_cast<const int8_t *>(p)[i]) : int32_t(static_cast<const uint8_t *>(p)[i]);
}

class QdqMatmulKernel final : public Kernel {
 public:
  QdqMatmulKernel(int64_t batches, int64_t M, int64_t K, int64_t N, bool bBatched, QuantParams a, QuantParams b,
                  QdqEpilogue e, bool constantB, bool amx)
      : batches_(batches), M_(M), K_(K), N_(N), lda_(qdqK4(K) * 4), bBatched_(bBatched), a_(std::move(a)),
        b_(std::move(b)), e_(e), constantB_(constantB), vnni_(avx512Available()),
        amx_(amx) {
    // B's packing terms: zero points shifted to signed bytes, scales sa * sb.
    for (int32_t z : b_.zero) packZb_.push_back(z - (b_.isSigned ? 0 : 128));
    for (float s : b_.scale) packScale_.push_back(a_.scale[0] * s);
  }

  bool sizeScratch() {
    try {
      aQ_.assign(size_t(batches_ * M_ * lda_), 0);
      rowSum_.assign(size_t(batches_ * M_), 0);
      int64_t packs = bBatched_ ? batches_ : 1;
      packedB_.reset(new (std::align_val_t(64)) uint8_t[size_t(packs * qdqPackedBytes(K_, N_))]);
      if (!constantB_) {
        bInt_.assign(size_t(packs * K_ * N_), 0);
        bRowSum_.assign(size_t(packs * K_), 0);
      }
    } catch (const std::bad_alloc &) {
      return false;
    }
    return true;
  }

  void usePrepacked(const void *data) { prepacked_ = static_cast<const uint8_t *>(data); }

  Status run(const KernelContext &ctx) override {
    const uint8_t *packed = prepacked_ ? prepacked_ : packedB_.get();
    if (!prepacked_ && (!packed_ || !constantB_)) packB(ctx);
    quantizeA(ctx);
    const int64_t panels = qdqPanels(N_), pairs = (panels + 1) / 2, bytesB = qdqPackedBytes(K_, N_);
    float *Y = outp<float>(ctx, 0);
    QdqEpilogue e = e_;
    e.bias = static_cast<const float *>(optionalData(ctx, 8));
    // Tasks: (batch, pair of panels): 32 columns over all rows, the panels'
    // bytes stay in L1/L2 while the rows stream past. A thread's consecutive
    // tasks of one batch are one call (the GEMMs walk the pairs in order), so
    // the AMX loop loads its tile configuration once per batch, not per pair.
    parallelFor(ctx, batches_ * pairs, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1;) {
        const int64_t bi = t / pairs, end = std::min(t1, (bi + 1) * pairs);
        const int64_t p0 = (t % pairs) * 2, p1 = std::min(panels, ((end - 1) % pairs) * 2 + 2);
        QdqPackedB B = qdqPackedView(packed + (bBatched_ ? bi : 0) * bytesB, K_, N_);
        const uint8_t *A = aQ_.data() + bi * M_ * lda_;
        const int32_t *rs = rowSum_.data() + bi * M_;
        float *y = Y + bi * M_ * N_;
        if (amx_) qdqGemmAmx(A, lda_, rs, B, K_, N_, 0, M_, p0, p1, y, N_, e);
        else if (vnni_) qdqGemmAvx512Vnni(A, lda_, rs, B, K_, N_, 0, M_, p0, p1, y, N_, e);
        else qdqGemmPortable(A, lda_, rs, B, K_, N_, 0, M_, p0, p1, y, N_, e);
        t = end;
      }
    });
    return Status::ok();
  }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    (void)numThreads;
    if (!constantB_ || !bConstant_) return Status::ok();
    PackedBytes pb;
    pb.input = 3;
    pb.layout = kQdqPackedLayout;
    pb.bytes.resize(size_t(qdqPackedBytes(K_, N_)));
    packConstant(bConstant_, pb.bytes.data());
    out->push_back(std::move(pb));
    return Status::ok();
  }

  void setConstantB(const void *data) { bConstant_ = data; }

 private:
  int32_t aZeroShifted() const { return a_.zero[0] + (a_.isSigned ? 128 : 0); }

  // An integer weight [K, N] (int8, or uint8 shifted to signed bytes).
  void packConstant(const void *b, uint8_t *out) const {
    std::vector<int8_t> shifted;
    const int8_t *src = static_cast<const int8_t *>(b);
    if (!b_.isSigned) {
      shifted.resize(size_t(K_ * N_));
      const uint8_t *u = static_cast<const uint8_t *>(b);
      for (size_t i = 0; i < shifted.size(); ++i) shifted[i] = int8_t(int32_t(u[i]) - 128);
      src = shifted.data();
    }
    pack(src, out);
  }

  // Packs signed bytes [K, N] with B's terms (the same bytes either way).
  void pack(const int8_t *src, uint8_t *out) const {
    auto fn = vnni_ ? &qdqPackBAvx512 : &qdqPackB;
    fn(src, N_, K_, N_, aZeroShifted(), packZb_.data(), packZb_.size() > 1 ? 1 : 0, packScale_.data(),
       packScale_.size() > 1 ? 1 : 0, out);
  }

  void packB(const KernelContext &ctx) {
    const int64_t packs = bBatched_ ? batches_ : 1, bytesB = qdqPackedBytes(K_, N_);
    const void *b = ctx.inputs[3]->data;
    if (constantB_) {
      packConstant(b, packedB_.get());
      packed_ = true;
      return;
    }
    // A run-time B: quantize (a float B, per-tensor parameters) to signed
    // bytes, then pack each batch.
    parallelFor(ctx, packs, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        int8_t *dst = bInt_.data() + i * K_ * N_;
        const int64_t n = K_ * N_;
        if (b_.isFloat) {
          // K rows of N, stored as signed bytes (a uint8 B shifted by -128);
          // the row sums are not needed.
          auto fn = vnni_ ? &qdqQuantizeRowsAvx512 : &qdqQuantizeRowsPortable;
          fn(static_cast<const float *>(b) + i * n, K_, N_, b_.scale[0], float(b_.zero[0]), b_.qmin, b_.qmax,
             b_.isSigned ? 0 : -128, reinterpret_cast<uint8_t *>(dst), N_, bRowSum_.data() + i * K_);
        } else if (b_.isSigned) {
          std::memcpy(dst, static_cast<const int8_t *>(b) + i * n, size_t(n));
        } else {
          const uint8_t *u = static_cast<const uint8_t *>(b) + i * n;
          for (int64_t j = 0; j < n; ++j) dst[j] = int8_t(int32_t(u[j]) - 128);
        }
        pack(dst, packedB_.get() + i * bytesB);
      }
    });
  }

  void quantizeA(const KernelContext &ctx) {
    const int64_t rows = batches_ * M_;
    const int32_t shift = a_.isSigned ? 128 : 0;
    if (a_.isFloat) {
      const float *x = in<float>(ctx, 0);
      parallelFor(ctx, rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, K_)), [&](int64_t r0, int64_t r1) {
        auto fn = vnni_ ? &qdqQuantizeRowsAvx512 : &qdqQuantizeRowsPortable;
        fn(x + r0 * K_, r1 - r0, K_, a_.scale[0], float(a_.zero[0]), a_.qmin, a_.qmax, shift,
           aQ_.data() + r0 * lda_, lda_, rowSum_.data() + r0);
      });
      return;
    }
    const uint8_t *x = static_cast<const uint8_t *>(ctx.inputs[0]->data);
    parallelFor(ctx, rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, K_)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        uint8_t *o = aQ_.data() + r * lda_;
        int32_t sum = 0;
        for (int64_t k = 0; k < K_; ++k) {
          o[k] = uint8_t(x[r * K_ + k] + shift);  // int8 + 128 as a byte: the u8 value
          sum += o[k];
        }
        rowSum_[size_t(r)] = sum;
      }
    });
  }

  struct AlignedDelete {
    void operator()(uint8_t *p) const { ::operator delete[](p, std::align_val_t(64)); }
  };

  int64_t batches_, M_, K_, N_, lda_;
  bool bBatched_;
  QuantParams a_, b_;
  QdqEpilogue e_;
  bool constantB_, vnni_, amx_;
  bool packed_ = false;
  const void *bConstant_ = nullptr;
  const uint8_t *prepacked_ = nullptr;
  std::vector<uint8_t> aQ_;
  std::vector<int32_t> rowSum_;
  std::vector<int8_t> bInt_;
  std::vector<int32_t> bRowSum_;  // written by the row quantizer, unused
  std::vector<int32_t> packZb_;    // 1 or N
  std::vector<float> packScale_;   // 1 or N
  std::unique_ptr<uint8_t[], AlignedDelete> packedB_;
};

bool isInt8(DataType t) { return t == DataType::kInt8 || t == DataType::kUint8; }

// Reads one operand's scale/zero point (constants) into `p`.
Status readParams(const NodeDesc &node, size_t x, size_t s, size_t z, int64_t perColumn, QuantParams *p,
                  const char *what) {
  const OperandDesc &xd = *node.inputs[x], &sd = *node.inputs[s], &zd = *node.inputs[z];
  if (!isInt8(zd.dtype)) return nodeError(node, std::string(what) + "ZeroPoint must be int8 or uint8");
  if (xd.dtype != DataType::kFloat32 && xd.dtype != zd.dtype)
    return nodeError(node, std::string(what) + " must be float32 or its zero point's type");
  if (sd.dtype != DataType::kFloat32) return nodeError(node, std::string(what) + "Scale must be float32");
  int64_t ns = numElements(sd.shape), nz = numElements(zd.shape);
  auto okCount = [&](int64_t n) { return n == 1 || (perColumn > 0 && n == perColumn); };
  if (!okCount(ns) || !okCount(nz) || (nz != 1 && nz != ns))
    return nodeError(node, std::string(what) + "'s scale and zero point have the wrong number of elements");
  if (!sd.constantData || !zd.constantData)
    return nodeError(node, std::string(what) + "'s scale and zero point must be constants");
  p->isFloat = xd.dtype == DataType::kFloat32;
  p->isSigned = zd.dtype == DataType::kInt8;
  p->qmin = p->isSigned ? -128.f : 0.f;
  p->qmax = p->isSigned ? 127.f : 255.f;
  int64_t count = std::max(ns, nz);
  for (int64_t i = 0; i < count; ++i) {
    p->scale.push_back(static_cast<const float *>(sd.constantData)[ns == 1 ? 0 : i]);
    p->zero.push_back(readZero(zd.constantData, p->isSigned, nz == 1 ? 0 : i));
  }
  return Status::ok();
}

Status makeQuantizedMatmul(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 6, 9, 1));
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[3];
  if (a.shape.size() < 2 || b.shape.size() < 2) return nodeError(node, "a and b must have rank >= 2");
  const int64_t K = a.shape.back(), N = b.shape.back(), M = a.shape[a.shape.size() - 2];
  if (b.shape[b.shape.size() - 2] != K) return nodeError(node, "b must have K = " + std::to_string(K) + " rows");
  if (K > 32768) return nodeError(node, "K must be <= 32768");
  const bool bBatched = b.shape.size() != 2;
  if (bBatched && (b.shape.size() != a.shape.size() ||
                   !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin())))
    return nodeError(node, "b must have rank 2 or a's batch dimensions");
  QuantParams ap, bp;
  WEBNN_RETURN_IF_ERROR(readParams(node, 0, 1, 2, 0, &ap, "a"));
  WEBNN_RETURN_IF_ERROR(readParams(node, 3, 4, 5, (!bBatched && b.dtype != DataType::kFloat32) ? N : 0, &bp, "b"));
  QdqEpilogue e;
  if (present(node, 6) != present(node, 7)) return nodeError(node, "outputScale and outputZeroPoint go together");
  if (present(node, 6)) {
    QuantParams op;
    const OperandDesc &s = *node.inputs[6], &z = *node.inputs[7];
    if (s.dtype != DataType::kFloat32 || !isInt8(z.dtype) || numElements(s.shape) != 1 ||
        numElements(z.shape) != 1 || !s.constantData || !z.constantData)
      return nodeError(node, "outputScale / outputZeroPoint must be one-element float32 / int8 or uint8 constants");
    bool isSigned = z.dtype == DataType::kInt8;
    e.roundTrip = true;
    e.outScale = *static_cast<const float *>(s.constantData);
    e.outZp = float(readZero(z.constantData, isSigned, 0));
    e.qmin = isSigned ? -128.f : 0.f;
    e.qmax = isSigned ? 127.f : 255.f;
  }
  if (present(node, 8)) {
    const OperandDesc &bias = *node.inputs[8];
    if (bias.dtype != DataType::kFloat32 || bias.shape != Shape{N})
      return nodeError(node, "bias must be float32 [" + std::to_string(N) + "]");
  }
  Shape outShape = a.shape;
  outShape.back() = N;
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, outShape, DataType::kFloat32));
  const int64_t batches = numElements(a.shape) / (M * K);
  const bool constantB = b.constantData != nullptr && b.dtype != DataType::kFloat32 && !bBatched;
  // The GEMM's loop, reported like the candidate tables' choices
  // (`webnn-run --verbose`, KernelChoiceObserver).
  KernelChoice choice;
  choice.op = node.op;
  choice.node = node.name;
  const bool amx = amxInt8Available();
  if (amx) {
    choice.chosen = "amx";
  } else {
    choice.refused.emplace_back("amx", amxInt8Supported() ? "off (WEBNN_AMX=0)" : "no AMX-INT8 (CPU or OS)");
    choice.chosen = avx512Available() ? "avx512-vnni" : "portable";
    if (!avx512Available()) choice.refused.emplace_back("avx512-vnni", "no AVX512-VNNI");
  }
  reportKernelChoice(choice);
  auto k = std::make_unique<QdqMatmulKernel>(batches, M, K, N, bBatched, std::move(ap), std::move(bp), e, constantB,
                                             amx);
  if (!k->sizeScratch()) return Status(StatusCode::kOutOfMemory, "quantizedMatmul node '" + node.name + "': scratch");
  if (constantB) k->setConstantB(b.constantData);
  for (const PackedOperand &p : node.packed)
    if (p.input == 3 && p.layout == kQdqPackedLayout && int64_t(p.bytes) == qdqPackedBytes(K, N) &&
        reinterpret_cast<uintptr_t>(p.data) % 64 == 0 && constantB)
      k->usePrepacked(p.data);
  *out = std::move(k);
  return Status::ok();
}

}  // namespace

void registerQdqKernels(KernelTable &t) { t.add("quantizedMatmul", &makeQuantizedMatmul); }

}  // namespace webnn::cpu::kernels
