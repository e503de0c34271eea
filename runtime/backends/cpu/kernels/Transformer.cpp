// Transformer-encoder kernels: webnn.fusedMatmul and webnn.fusedAttention
// (docs/FUSED_OPS.md), and the run-time AVX-512 / AVX2 dispatch of the row
// kernels in TransformerSimd.h (layerNormalization, softmax, gelu, erf use
// them too).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <vector>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/EncoderAttention.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/Sgemm.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::kernels {

namespace {
bool cpuHasAvx512() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return ok;
}
}  // namespace

// WEBNN_NO_AVX512 (DebugOptions.h).
bool useAvx512() { return debugOptions().transformerAvx512.load(std::memory_order_relaxed); }

bool setUseAvx512(bool enable) { return debugOptions().transformerAvx512.exchange(enable && cpuHasAvx512()); }

// The AVX-512 entry points carry the target attribute so that the inline
// simd:: bodies from the pragma region inline into them.
#define WEBNN_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
namespace {
WEBNN_AVX512 void epilogue512(float *y, int64_t rows, int64_t n, const float *bias, const float *residual,
                              Activation act, float alpha) {
  avx512::simd::epilogueRows(y, rows, n, bias, residual, act, alpha);
}
WEBNN_AVX512 void layerNorm512(const float *x, float *y, int64_t rows, int64_t n, const float *scale,
                               const float *bias, float eps) {
  avx512::simd::layerNormRows(x, y, rows, n, scale, bias, eps);
}
WEBNN_AVX512 void softmax512(const float *x, float *y, int64_t rows, int64_t n, float alpha) {
  avx512::simd::softmaxRows(x, y, rows, n, alpha);
}
WEBNN_AVX512 void erf512(const float *x, float *y, int64_t n) { avx512::simd::erfArray(x, y, n); }
WEBNN_AVX512 void gelu512(const float *x, float *y, int64_t n) { avx512::simd::geluArray(x, y, n); }
WEBNN_AVX512 void sigmoid512(const float *x, float *y, int64_t n) { avx512::simd::sigmoidArray(x, y, n); }
WEBNN_AVX512 void silu512(float *y, int64_t n) { avx512::simd::siluArray(y, n); }
}  // namespace

void epilogueRows(float *y, int64_t rows, int64_t n, const float *bias, const float *residual, Activation act,
                  float alpha) {
  if (useAvx512()) epilogue512(y, rows, n, bias, residual, act, alpha);
  else avx2::simd::epilogueRows(y, rows, n, bias, residual, act, alpha);
}
void layerNormRows(const float *x, float *y, int64_t rows, int64_t n, const float *scale, const float *bias,
                   float eps) {
  if (useAvx512()) layerNorm512(x, y, rows, n, scale, bias, eps);
  else avx2::simd::layerNormRows(x, y, rows, n, scale, bias, eps);
}
void softmaxRows(const float *x, float *y, int64_t rows, int64_t n, float alpha) {
  if (useAvx512()) softmax512(x, y, rows, n, alpha);
  else avx2::simd::softmaxRows(x, y, rows, n, alpha);
}
void erfArray(const float *x, float *y, int64_t n) {
  if (useAvx512()) erf512(x, y, n);
  else avx2::simd::erfArray(x, y, n);
}
void geluArray(const float *x, float *y, int64_t n) {
  if (useAvx512()) gelu512(x, y, n);
  else avx2::simd::geluArray(x, y, n);
}
void sigmoidArray(const float *x, float *y, int64_t n) {
  if (useAvx512()) sigmoid512(x, y, n);
  else avx2::simd::sigmoidArray(x, y, n);
}
void siluArray(float *y, int64_t n) {
  if (useAvx512()) silu512(y, n);
  else avx2::simd::siluArray(y, n);
}

namespace {

// ---- fusedMatmul: y = activation(alpha * matmul(a, b) + bias + residual).
// The product runs on the matmul kernel (oneDNN with b prepacked when it is
// constant, else the portable SGEMM); the rest is one vectorized pass over
// each block of output rows, split over the pool.
class FusedMatmulKernel final : public Kernel {
 public:
  FusedMatmulKernel(std::unique_ptr<Kernel> product, int64_t rows, int64_t n, float alpha, Activation act)
      : product_(std::move(product)), rows_(rows), n_(n), alpha_(alpha), act_(act) {}

  Status run(const KernelContext &ctx) override {
    KernelContext mm = ctx;
    mm.numInputs = 2;
    WEBNN_RETURN_IF_ERROR(product_->run(mm));
    const TensorBuffer *biasBuf = ctx.numInputs > 2 ? ctx.inputs[2] : nullptr;
    const TensorBuffer *resBuf = ctx.numInputs > 3 ? ctx.inputs[3] : nullptr;
    const float *bias = biasBuf ? static_cast<const float *>(biasBuf->data) : nullptr;
    const float *residual = resBuf ? static_cast<const float *>(resBuf->data) : nullptr;
    if (!bias && !residual && act_ == Activation::kNone && alpha_ == 1.f) return Status::ok();
    float *y = outp<float>(ctx, 0);
    parallelForUnits(ctx, rows_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n_)), [&](int64_t b, int64_t e) {
      epilogueRows(y + b * n_, e - b, n_, bias, residual ? residual + b * n_ : nullptr, act_, alpha_);
    });
    return Status::ok();
  }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    return product_->packConstants(numThreads, out);
  }
  void warmUp(int numThreads) override { product_->warmUp(numThreads); }

 private:
  std::unique_ptr<Kernel> product_;
  int64_t rows_, n_;
  float alpha_;
  Activation act_;
};

Status makeFusedMatmul(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 4, 1));
  const OperandDesc &a = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, a, "a", kFloatTypes));
  double alpha = node.attributes.getFloat("alpha", 1.0);
  std::string actName = node.attributes.getString("activation", "none");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  Activation act;
  if (actName == "none") act = Activation::kNone;
  else if (actName == "relu") act = Activation::kRelu;
  else if (actName == "gelu") act = Activation::kGelu;
  else return nodeError(node, "unknown activation '" + actName + "' (expected none, relu or gelu)");
  if (node.outputs.empty() || !node.outputs[0]) return nodeError(node, "missing output");
  // The product's own checks (shapes, types, output) come from matmul's factory.
  NodeDesc product;
  product.op = "matmul";
  product.name = node.name;
  product.inputs = {node.inputs[0], node.inputs[1]};
  product.outputs = node.outputs;
  product.relaxedPrecision = node.relaxedPrecision;
  product.packed = node.packed;  // a and b keep their positions
  KernelFactory matmul = findCpuKernel("matmul");
  if (!matmul) return nodeError(node, "no matmul kernel");
  WEBNN_RETURN_IF_ERROR(checkMatMul(product));
  if (a.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeFusedMatmul, out);
  const Shape &ys = node.outputs[0]->shape;
  int64_t n = ys.back(), rows = numElements(ys) / std::max<int64_t>(1, n);
  if (node.inputs.size() > 2 && node.inputs[2]) {
    const OperandDesc &bias = *node.inputs[2];
    if (bias.dtype != a.dtype || bias.shape != Shape{n})
      return nodeError(node, "bias must be " + std::to_string(n) + " values of a's data type, got " +
                                 shapeToString(bias.shape));
  }
  if (node.inputs.size() > 3 && node.inputs[3]) {
    const OperandDesc &res = *node.inputs[3];
    if (res.dtype != a.dtype || res.shape != ys)
      return nodeError(node, "residual must have the output's shape " + shapeToString(ys) + ", got " +
                                 shapeToString(res.shape));
  }
  // The packed-B kernel applies the epilogue to each tile while it is in L1.
  if (makePackedMatMul(node, float(alpha), act, out)) return Status::ok();
  std::unique_ptr<Kernel> productKernel;
  WEBNN_RETURN_IF_ERROR(matmul(product, &productKernel));
  *out = std::make_unique<FusedMatmulKernel>(std::move(productKernel), rows, n, float(alpha), act);
  return Status::ok();
}

// ---- fusedAttention's dimensions, shared by its kernels: query [B, S,
// H * Dh], key and value [B, T, H * Dh], the output as query; head h is
// columns [h * Dh, (h + 1) * Dh) of every row.
struct AttentionDims {
  int64_t B = 0, S = 0, T = 0, H = 0, Dh = 0;
  float scale = 1.f;

  // Head h of batch b as strided views into the operands (no copies).
  EncoderAttentionHead head(const float *q, const float *k, const float *v, float *y, int64_t b, int64_t h) const {
    const int64_t D = H * Dh;
    return {q + b * S * D + h * Dh, k + b * T * D + h * Dh, v + b * T * D + h * Dh, y + b * S * D + h * Dh,
            S, T, Dh, D, D, D, scale};
  }
};

// The node's query, key and value shapes checked against `heads`; the
// factory's errors, and encoderAttentionChosen's test.
Status attentionDims(const NodeDesc &node, int64_t heads, float scale, AttentionDims *out) {
  const OperandDesc &q = *node.inputs[0], &k = *node.inputs[1], &v = *node.inputs[2];
  if (q.shape.size() != 3 || k.shape.size() != 3 || v.shape != k.shape)
    return nodeError(node, "expected query [B, S, D] and key, value [B, T, D], got " + shapeToString(q.shape) +
                               ", " + shapeToString(k.shape) + ", " + shapeToString(v.shape));
  const int64_t B = q.shape[0], S = q.shape[1], D = q.shape[2], T = k.shape[1];
  if (k.shape[0] != B || k.shape[2] != D) return nodeError(node, "key's batch or width differs from query's");
  if (heads < 1 || D % heads != 0)
    return nodeError(node, "heads (" + std::to_string(heads) + ") must divide " + std::to_string(D));
  *out = {B, S, T, heads, D / heads, scale};
  return Status::ok();
}

// fusedAttention: per batch and head, softmax(scale Q K^T) V, reading
// the heads in place from [B, S, H * Dh] projections (strided views, no
// transposes) and writing the head's columns of the [B, S, H * Dh] output.
// One (batch, head) pair per task: its S x T scores stay in a per-thread
// buffer (64 KB at S = T = 128, inside L2) between the two products.
class FusedAttentionKernel final : public Kernel {
 public:
  explicit FusedAttentionKernel(const AttentionDims &d) : d_(d) {}

  Status run(const KernelContext &ctx) override {
    const float *q = in<float>(ctx, 0), *k = in<float>(ctx, 1), *v = in<float>(ctx, 2);
    float *y = outp<float>(ctx, 0);
    const int64_t S = d_.S, T = d_.T, Dh = d_.Dh;
    // A positive scale folds into the softmax (exp(scale * (s - max))); a
    // negative one flips which score is largest, so it scales the scores.
    const bool scaleInSoftmax = d_.scale > 0.f;
    // Heads as the pool's units: a thread runs one unit at a time, so the
    // scores buffer can be the thread's own.
    parallelForUnits(ctx, d_.B * d_.H, 1, [&](int64_t tb, int64_t te) {
      thread_local std::vector<float> scoresBuf;
      if (scoresBuf.size() < size_t(S * T)) scoresBuf.resize(size_t(S * T));
      float *scores = scoresBuf.data();
      for (int64_t t = tb; t < te; ++t) {
        const EncoderAttentionHead h = d_.head(q, k, v, y, t / d_.H, t % d_.H);
        // scores[s, t] = sum_d q[s, d] k[t, d]: B = K^T as a strided view.
        sgemm(S, T, Dh, {h.q, h.qStride, 1}, {h.k, 1, h.kvStride}, scores, T, false, ctx);
        if (scaleInSoftmax) {
          softmaxRows(scores, scores, S, T, h.scale);
        } else {
          for (int64_t i = 0; i < S * T; ++i) scores[i] *= h.scale;
          softmaxRows(scores, scores, S, T, 1.f);
        }
        sgemm(S, Dh, T, {scores, T, 1}, {h.v, h.kvStride, 1}, h.y, h.yStride, false, ctx);
      }
    });
    return Status::ok();
  }

 private:
  AttentionDims d_;
};

// fusedAttention on our AVX-512 tiles (EncoderAttention.h). Units of
// (batch, head, piece of query rows), each transposing its head's keys:
// whole heads where there are at least 4 per thread, else heads cut into
// pieces of rows so every thread gets about 4 units.
class EncoderAttentionKernel final : public Kernel {
 public:
  explicit EncoderAttentionKernel(const AttentionDims &d) : d_(d) {}

  Status run(const KernelContext &ctx) override {
    const float *q = in<float>(ctx, 0), *k = in<float>(ctx, 1), *v = in<float>(ctx, 2);
    float *y = outp<float>(ctx, 0);
    const int64_t S = d_.S, heads = d_.B * d_.H;
    const int64_t threads = ctx.backendState ? threadPool(ctx).numThreads() : 1;
    const int64_t pieces = std::clamp<int64_t>((4 * threads + heads - 1) / heads, 1, std::max<int64_t>(1, S / 24));
    const int64_t rowsPerPiece = (S + pieces - 1) / pieces;
    const size_t scratchFloats = size_t(encoderAttentionScratchFloats(d_.T, d_.Dh));
    parallelForUnits(ctx, heads * pieces, 1, [&](int64_t u0, int64_t u1) {
      thread_local std::vector<float> scratch;
      if (scratch.size() < scratchFloats) scratch.resize(scratchFloats);
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t bh = u / pieces, piece = u % pieces;
        const int64_t s0 = piece * rowsPerPiece, s1 = std::min(S, s0 + rowsPerPiece);
        if (s0 >= s1) continue;
        encoderAttentionAvx512(d_.head(q, k, v, y, bh / d_.H, bh % d_.H), s0, s1, scratch.data());
      }
    });
    return Status::ok();
  }

 private:
  AttentionDims d_;
};

#if WEBNN_HAVE_ONEDNN
// fusedAttention on oneDNN: the two products for all batches and heads at
// once as batched matmuls over strided views (Q [B, H, S, Dh] and K^T [B, H,
// Dh, T] read in place from the projections, the output written back into
// [B, S, H * Dh]), softmax in float32 between them; bf16 operands under
// relaxed precision. The scores are laid out [B, S, H, T] so that a piece of
// rows of every head is a permutation of a dense tensor, which oneDNN's
// brgemm matmul needs (MatMul.cpp's pieces). Measured on BERT-base at 1
// thread: the per-head float32 SGEMMs (AVX2 tiles) ran at ~70 GFLOP/s, ~13%
// of the relaxed model; on MiniLM they were 20% of the float32 model.
class OneDnnAttentionKernel final : public Kernel {
 public:
  OneDnnAttentionKernel(std::unique_ptr<onednn::MatMul> scores, std::unique_ptr<onednn::MatMul> context,
                         std::unique_ptr<Kernel> fallback, int64_t rows, int64_t T)
      : scores_(std::move(scores)), context_(std::move(context)), fallback_(std::move(fallback)), rows_(rows),
        T_(T), buf_(size_t(rows * T)) {}

  Status run(const KernelContext &ctx) override {
    if (!useFallback_) {
      ThreadPool &pool = threadPool(ctx);
      float *p = buf_.data();
      Status s = scores_->run(ctx.inputs[0]->data, ctx.inputs[1]->data, nullptr, p, pool);
      if (s.isOk()) {
        parallelForUnits(ctx, rows_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, T_)),
                         [&](int64_t b, int64_t e) { softmaxRows(p + b * T_, p + b * T_, e - b, T_, 1.f); });
        s = context_->run(p, ctx.inputs[2]->data, nullptr, ctx.outputs[0]->data, pool);
      }
      if (s.isOk()) return s;
      useFallback_ = true;  // oneDNN could not build a primitive: the float32 kernel
      refused_ = s.message();
    }
    Status s = fallback_->run(ctx);
    return s.isOk() ? s : Status(s.code(), refused_ + "; then the float32 kernel: " + s.message());
  }

  void warmUp(int numThreads) override {
    scores_->buildPrimitive(numThreads);
    context_->buildPrimitive(numThreads);
  }

 private:
  std::unique_ptr<onednn::MatMul> scores_, context_;
  std::unique_ptr<Kernel> fallback_;
  int64_t rows_, T_;
  std::vector<float> buf_;  // scale * Q K^T, then its softmax: [B, S, H, T]
  bool useFallback_ = false;
  std::string refused_;  // oneDNN's reason, once it gave up
};

// The oneDNN kernel when it has optimized primitives for both products (bf16
// ones when `bf16`), else null.
std::unique_ptr<Kernel> makeOneDnnAttention(const AttentionDims &d, bool bf16, std::unique_ptr<Kernel> *fallback) {
  const int64_t B = d.B, S = d.S, T = d.T, H = d.H, Dh = d.Dh, D = H * Dh;
  onednn::MatMulParams qk;
  qk.aDims = {B, H, S, Dh};
  qk.aStrides = {S * D, Dh, D, 1};
  qk.bDims = {B, H, Dh, T};
  qk.bStrides = {T * D, Dh, 1, D};
  qk.yDims = {B, H, S, T};
  qk.yStrides = {S * H * T, T, H * T, 1};  // scores as [B, S, H, T]: row pieces of every head stay brgemm's
  qk.alpha = d.scale;
  qk.bf16 = bf16;
  onednn::MatMulParams pv;
  pv.aDims = {B, H, S, T};
  pv.aStrides = {S * H * T, T, H * T, 1};
  pv.bDims = {B, H, T, Dh};
  pv.bStrides = {T * D, Dh, D, 1};
  pv.yDims = {B, H, S, Dh};
  pv.yStrides = {S * D, Dh, D, 1};
  pv.bf16 = bf16;
  std::string why;
  std::unique_ptr<onednn::MatMul> a = onednn::MatMul::create(qk, &why);
  if (!a || (bf16 && a->implementation().find("bf16") == std::string::npos)) return nullptr;
  std::unique_ptr<onednn::MatMul> b = onednn::MatMul::create(pv, &why);
  if (!b || (bf16 && b->implementation().find("bf16") == std::string::npos)) return nullptr;
  return std::make_unique<OneDnnAttentionKernel>(std::move(a), std::move(b), std::move(*fallback), B * H * S, T);
}
#endif

Status makeFusedAttention(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 3, 1));
  const OperandDesc &q = *node.inputs[0], &k = *node.inputs[1], &v = *node.inputs[2];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, q, "query", kFloatTypes));
  if (!node.attributes.has("heads")) return nodeError(node, "missing required attribute 'heads'");
  int64_t heads = node.attributes.getInt("heads", 1);
  double scale = node.attributes.getFloat("scale", 1.0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (k.dtype != q.dtype || v.dtype != q.dtype) return nodeError(node, "query, key and value data types differ");
  AttentionDims dims;
  WEBNN_RETURN_IF_ERROR(attentionDims(node, heads, float(scale), &dims));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, q.shape, q.dtype));
  if (q.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeFusedAttention, out);
  if (encoderAttentionChosen(node)) {
    *out = std::make_unique<EncoderAttentionKernel>(dims);
    return Status::ok();
  }
  *out = std::make_unique<FusedAttentionKernel>(dims);
#if WEBNN_HAVE_ONEDNN
  // Relaxed runs bf16 only where the CPU and policy allow it, else exactly
  // the float32 primitives (bit-identical to an exact artifact).
  std::string noBf16;
  bool bf16 = node.relaxedPrecision && onednn::bf16Available(&noBf16);
  if (std::unique_ptr<Kernel> onednn = makeOneDnnAttention(dims, bf16, out))
    *out = std::move(onednn);
#endif
  return Status::ok();
}

}  // namespace

bool encoderAttentionChosen(const NodeDesc &node) {
  if (!encoderAttentionEnabled() || !useAvx512() || node.inputs.size() != 3 || !node.inputs[0] || !node.inputs[1] ||
      !node.inputs[2])
    return false;
  const DataType dt = node.inputs[0]->dtype;
  AttentionDims dims;
  if (dt != DataType::kFloat32 && dt != DataType::kFloat16) return false;
  if (!attentionDims(node, node.attributes.getInt("heads", 1), 1.f, &dims).isOk()) return false;
#if WEBNN_HAVE_ONEDNN
  std::string noBf16;
  if (node.relaxedPrecision && onednn::bf16Available(&noBf16)) return false;
#endif
  return encoderAttentionSupported(dims.T, dims.Dh);
}

void registerTransformerKernels(KernelTable &t) {
  t.add("fusedMatmul", &makeFusedMatmul);
  t.add("fusedAttention", &makeFusedAttention);
}

}  // namespace webnn::cpu::kernels
