// matmul (batched, batch dims broadcast) and gemm, both on the shared SGEMM.
// float16 runs through the float32 kernel via makeFloat16Adapter.
//
// matmul's kernel is chosen from one ordered table (KernelCandidates.h: the
// choice, with each refusal's reason, goes to `webnn-run --verbose`): our
// packed-B GEMM for a constant B on AVX-512 (PackedSgemm.h), then, with
// oneDNN (WEBNN_HAVE_ONEDNN), oneDNN's matmul (onednn/MatMul.cpp, a constant
// B packed once on the first run), then the portable SGEMM kernel, which
// takes everything left: small products, builds without oneDNN, float16.
#include <algorithm>
#include <cstring>
#include <mutex>

#include "runtime/backends/cpu/kernels/Broadcast.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/KernelCandidates.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/Sgemm.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/DeferredKernel.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::kernels {
namespace {

#if WEBNN_HAVE_ONEDNN
// matmul or gemm on oneDNN, the SGEMM kernel kept for the case where oneDNN
// cannot build its primitive on the first run.
class OneDnnMatMulKernel final : public Kernel {
 public:
  OneDnnMatMulKernel(std::unique_ptr<onednn::MatMul> mm, const NodeDesc &node, KernelFactory portable)
      : mm_(std::move(mm)), fallback_(node, portable), b_(node.inputs[1]->constantData) {}

  Status run(const KernelContext &ctx) override {
    if (!useFallback_) {
      const TensorBuffer *c = ctx.numInputs > 2 ? ctx.inputs[2] : nullptr;
      Status s = mm_->run(ctx.inputs[0]->data, ctx.inputs[1]->data, c ? c->data : nullptr, ctx.outputs[0]->data,
                          threadPool(ctx));
      if (s.isOk()) return s;
      useFallback_ = true;
      refused_ = s.message();
    }
    return fallback_.run(ctx, refused_);
  }

  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    if (!b_) return Status::ok();
    return onednn::packOperand(
        1, [&] { return mm_->packedBLayout(numThreads); }, [&] { return mm_->packedBBytes(numThreads); },
        [&](void *dst) { mm_->packB(b_, dst, numThreads); }, out);
  }

  void warmUp(int numThreads) override { mm_->buildPrimitive(numThreads); }

 private:
  std::unique_ptr<onednn::MatMul> mm_;
  const void *b_ = nullptr;  // constant b
  onednn::DeferredKernel fallback_;
  bool useFallback_ = false;
  std::string refused_;  // oneDNN's reason, once it gave up
};

// Row-major strides of `dims`.
std::vector<int64_t> rowMajor(const Shape &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// The kernel when oneDNN takes this product, else null with *why saying why
// it refused (onednn::MatMul::create's reason).
std::unique_ptr<Kernel> makeOneDnnMatMul(const NodeDesc &node, onednn::MatMulParams p, KernelFactory portable,
                                         std::string *why) {
  if (p.constantB) p.packedB = onednn::packedOperands(node, 1);
  std::unique_ptr<onednn::MatMul> mm = onednn::MatMul::create(p, why);
  if (!mm) return nullptr;
  return std::make_unique<OneDnnMatMulKernel>(std::move(mm), node, portable);
}

// True (with *out set) when oneDNN takes this product (gemm).
bool makeOneDnnMatMul(const NodeDesc &node, onednn::MatMulParams p, KernelFactory portable,
                      std::unique_ptr<Kernel> *out) {
  std::string why;
  *out = makeOneDnnMatMul(node, std::move(p), portable, &why);
  return *out != nullptr;
}
#endif

class MatMulKernel final : public Kernel {
 public:
  MatMulKernel(int64_t M, int64_t N, int64_t K, std::vector<int64_t> aOff, std::vector<int64_t> bOff)
      : M_(M), N_(N), K_(K), aOff_(std::move(aOff)), bOff_(std::move(bOff)) {}
  Status run(const KernelContext &ctx) override {
    const float *a = in<float>(ctx, 0);
    const float *b = in<float>(ctx, 1);
    float *y = outp<float>(ctx, 0);
    int64_t batches = int64_t(aOff_.size());
    int64_t grain = std::max<int64_t>(1, (1 << 17) / std::max<int64_t>(1, M_ * N_ * std::max<int64_t>(K_, 1)));
    parallelFor(ctx, batches, grain, [&](int64_t bb, int64_t be) {
      for (int64_t i = bb; i < be; ++i)
        sgemm(M_, N_, K_, {a + aOff_[i], K_, 1}, {b + bOff_[i], N_, 1}, y + i * M_ * N_, N_, false, ctx);
    });
    return Status::ok();
  }

 private:
  int64_t M_, N_, K_;
  std::vector<int64_t> aOff_, bOff_;
};

// A matmul node's shapes, once checked.
struct MatMulShapes {
  int64_t M = 0, K = 0, N = 0;
  Shape batchA, batchB, batch, output;
};

Status checkMatMulShapes(const NodeDesc &node, MatMulShapes *m) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 2, 1));
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, a, "a", kFloatTypes));
  if (b.dtype != a.dtype) return nodeError(node, "a and b data types differ");
  if (a.shape.size() < 2 || b.shape.size() < 2) return nodeError(node, "a and b must have rank >= 2");
  size_t ra = a.shape.size(), rb = b.shape.size();
  m->M = a.shape[ra - 2], m->K = a.shape[ra - 1], m->N = b.shape[rb - 1];
  if (m->K != b.shape[rb - 2])
    return nodeError(node, "inner dimensions differ: a is " + shapeToString(a.shape) + ", b is " +
                               shapeToString(b.shape));
  m->batchA.assign(a.shape.begin(), a.shape.end() - 2);
  m->batchB.assign(b.shape.begin(), b.shape.end() - 2);
  if (!broadcastShapes(m->batchA, m->batchB, &m->batch))
    return nodeError(node, "batch dimensions of " + shapeToString(a.shape) + " and " + shapeToString(b.shape) +
                               " are not broadcastable");
  m->output = m->batch;
  m->output.push_back(m->M);
  m->output.push_back(m->N);
  return checkOutput(node, 0, m->output, a.dtype);
}

// The portable kernel, which takes every valid node: float16 through the
// float32 kernel (makeFloat16Adapter), float32 on the shared SGEMM. Also
// what the oneDNN kernel falls back to when its primitive will not build.
Status makeMatMulPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  MatMulShapes m;
  WEBNN_RETURN_IF_ERROR(checkMatMulShapes(node, &m));
  if (node.inputs[0]->dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeMatMulPortable, out);
  const int64_t M = m.M, K = m.K, N = m.N;
  BroadcastPlan<2> plan;
  plan.init(m.batch, {&m.batchA, &m.batchB});
  std::vector<int64_t> aOff, bOff;
  plan.forSegments(0, plan.total(), [&](const std::array<int64_t, 2> &off, int64_t, int64_t len,
                                        const std::array<int64_t, 2> &st) {
    for (int64_t i = 0; i < len; ++i) {
      aOff.push_back((off[0] + i * st[0]) * M * K);
      bOff.push_back((off[1] + i * st[1]) * K * N);
    }
  });
  *out = std::make_unique<MatMulKernel>(M, N, K, std::move(aOff), std::move(bOff));
  return Status::ok();
}

struct MatMulRequest {
  const NodeDesc &node;
  MatMulShapes m;
};

std::unique_ptr<Kernel> packedSgemmCandidate(const MatMulRequest &r, std::string *why) {
  return makePackedMatMul(r.node, 1.f, Activation::kNone, why);
}

#if WEBNN_HAVE_ONEDNN
std::unique_ptr<Kernel> oneDnnCandidate(const MatMulRequest &r, std::string *why) {
  const OperandDesc &a = *r.node.inputs[0], &b = *r.node.inputs[1];
  onednn::MatMulParams p;
  p.dtype = a.dtype;
  p.aDims = Shape(r.m.batch.size() - r.m.batchA.size(), 1);
  p.aDims.insert(p.aDims.end(), a.shape.begin(), a.shape.end());
  p.bDims = Shape(r.m.batch.size() - r.m.batchB.size(), 1);
  p.bDims.insert(p.bDims.end(), b.shape.begin(), b.shape.end());
  p.yDims = r.m.output;
  p.aStrides = rowMajor(p.aDims);
  p.bStrides = rowMajor(p.bDims);
  p.constantB = b.constantData != nullptr;
  p.bf16 = r.node.relaxedPrecision;
  return makeOneDnnMatMul(r.node, std::move(p), &makeMatMulPortable, why);
}
#endif

std::unique_ptr<Kernel> portableCandidate(const MatMulRequest &r, std::string *why) {
  std::unique_ptr<Kernel> k;
  Status s = makeMatMulPortable(r.node, &k);
  if (!s.isOk()) {
    *why = s.message();
    return nullptr;
  }
  if (r.node.inputs[0]->dtype == DataType::kFloat16) *why = "float16 through the float32 kernel";
  return k;
}

const KernelCandidate<MatMulRequest> kMatMulCandidates[] = {
    {"packed-sgemm", &packedSgemmCandidate},
#if WEBNN_HAVE_ONEDNN
    {"onednn", &oneDnnCandidate},
#endif
    {"portable", &portableCandidate},
};

Status makeMatMul(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  MatMulRequest r{node, {}};
  WEBNN_RETURN_IF_ERROR(checkMatMulShapes(node, &r.m));
  KernelChoice choice;
  choice.op = node.op;
  choice.node = node.name;
  *out = chooseKernel(kMatMulCandidates, r, &choice);
  reportKernelChoice(choice);
  if (!*out) return nodeError(node, "no matmul kernel takes it: " + choice.describe());
  return Status::ok();
}

// gemm: alpha * op(a) * op(b) + beta * c, c broadcast to [M, N].
class GemmKernel final : public Kernel {
 public:
  GemmKernel(int64_t M, int64_t N, int64_t K, bool aT, bool bT, float alpha, float beta, bool hasC,
             int64_t cRowStride, int64_t cColStride)
      : M_(M), N_(N), K_(K), aT_(aT), bT_(bT), alpha_(alpha), beta_(beta), hasC_(hasC), crs_(cRowStride),
        ccs_(cColStride) {}
  Status run(const KernelContext &ctx) override {
    const float *a = in<float>(ctx, 0);
    const float *b = in<float>(ctx, 1);
    const float *c = hasC_ ? in<float>(ctx, 2) : nullptr;
    float *y = outp<float>(ctx, 0);
    MatrixView A = aT_ ? MatrixView{a, 1, M_} : MatrixView{a, K_, 1};
    MatrixView B = bT_ ? MatrixView{b, 1, K_} : MatrixView{b, N_, 1};
    sgemm(M_, N_, K_, A, B, y, N_, false, ctx);
    if (alpha_ == 1.f && (!c || beta_ == 0.f)) return Status::ok();
    parallelFor(ctx, M_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, N_)), [&](int64_t mb, int64_t me) {
      for (int64_t m = mb; m < me; ++m) {
        float *row = y + m * N_;
        if (c && beta_ != 0.f) {
          const float *cr = c + m * crs_;
          for (int64_t n = 0; n < N_; ++n) row[n] = alpha_ * row[n] + beta_ * cr[n * ccs_];
        } else {
          for (int64_t n = 0; n < N_; ++n) row[n] *= alpha_;
        }
      }
    });
    return Status::ok();
  }

 private:
  int64_t M_, N_, K_;
  bool aT_, bT_;
  float alpha_, beta_;
  bool hasC_;
  int64_t crs_, ccs_;
};

Status makeGemmImpl(const NodeDesc &node, bool tryOneDnn, std::unique_ptr<Kernel> *out);

Status makeGemmPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out) { return makeGemmImpl(node, false, out); }

Status makeGemm(const NodeDesc &node, std::unique_ptr<Kernel> *out) { return makeGemmImpl(node, true, out); }

Status makeGemmImpl(const NodeDesc &node, bool tryOneDnn, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 3, 1));
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1];
  const OperandDesc *c = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  WEBNN_RETURN_IF_ERROR(checkDataType(node, a, "a", kFloatTypes));
  if (b.dtype != a.dtype || (c && c->dtype != a.dtype)) return nodeError(node, "operand data types differ");
  double alpha = node.attributes.getFloat("alpha", 1.0), beta = node.attributes.getFloat("beta", 1.0);
  bool aT = node.attributes.getBool("aTranspose", false), bT = node.attributes.getBool("bTranspose", false);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (a.shape.size() != 2 || b.shape.size() != 2) return nodeError(node, "a and b must be 2-D");
  int64_t M = aT ? a.shape[1] : a.shape[0], K = aT ? a.shape[0] : a.shape[1];
  int64_t K2 = bT ? b.shape[1] : b.shape[0], N = bT ? b.shape[0] : b.shape[1];
  if (K != K2) return nodeError(node, "inner dimensions differ");
  Shape os{M, N};
  int64_t crs = 0, ccs = 0;
  if (c) {
    if (!canBroadcastTo(c->shape, os))
      return nodeError(node, "c shape " + shapeToString(c->shape) + " is not broadcastable to " + shapeToString(os));
    Shape cs = c->shape;
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    crs = cs[0] == 1 ? 0 : cs[1];
    ccs = cs[1] == 1 ? 0 : 1;
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, os, a.dtype));
  // A Linear layer's gemm (constant B in either orientation; c absent or a
  // bias of N values) is the packed SGEMM's product, alpha and bias in its
  // epilogue. Per FLOP it ran as fast as oneDNN's matmul on ViT-B/16's
  // 197 x 768 x 768 projections; across threads its units balance where
  // oneDNN's pieces split evenly, and a 2-vCPU VM's cores at times differ
  // by 1.5x (PackedSgemm.cpp).
  if (tryOneDnn && !aT && packedSgemmApplies(node) && packedSgemmSuits(M, K, N) &&
      (!c || (beta == 1.0 && crs == 0 && ccs == 1))) {
    PackedProduct p;
    p.M = M;
    p.K = K;
    p.N = N;
    p.bKStride = bT ? 1 : N;
    p.bNStride = bT ? K : 1;
    p.alpha = float(alpha);
    *out = makePackedSgemmKernel(node, p);
    return Status::ok();
  }
#if WEBNN_HAVE_ONEDNN
  if (tryOneDnn) {
    onednn::MatMulParams p;
    p.dtype = a.dtype;
    p.aDims = {M, K};
    p.bDims = {K, N};
    p.yDims = os;
    p.aStrides = aT ? std::vector<int64_t>{1, M} : std::vector<int64_t>{K, 1};
    p.bStrides = bT ? std::vector<int64_t>{1, K} : std::vector<int64_t>{N, 1};
    p.constantB = b.constantData != nullptr;
    p.bf16 = node.relaxedPrecision;
    p.alpha = float(alpha);
    p.hasC = c != nullptr;
    p.beta = float(beta);
    p.cRowStride = crs;
    p.cColStride = ccs;
    if (makeOneDnnMatMul(node, p, &makeGemmPortable, out)) return Status::ok();
  }
#else
  (void)tryOneDnn;
#endif
  if (a.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeGemmPortable, out);
  *out = std::make_unique<GemmKernel>(M, N, K, aT, bT, float(alpha), float(beta), c != nullptr, crs, ccs);
  return Status::ok();
}

}  // namespace

Status checkMatMul(const NodeDesc &node) {
  MatMulShapes m;
  return checkMatMulShapes(node, &m);
}

std::unique_ptr<Kernel> makePackedMatMul(const NodeDesc &node, float alpha, Activation act, std::string *why) {
  std::string refusal = packedSgemmRefusal(node);
  if (!refusal.empty()) {
    *why = std::move(refusal);
    return nullptr;
  }
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1];
  if (a.shape.size() < 2 || b.shape.size() < 2) {
    *why = "a or b has rank < 2";
    return nullptr;
  }
  for (size_t i = 0; i + 2 < b.shape.size(); ++i)
    if (b.shape[i] != 1) {
      *why = "b is a batch of matrices";
      return nullptr;
    }
  PackedProduct p;
  p.K = a.shape.back();
  p.N = b.shape.back();
  if (b.shape[b.shape.size() - 2] != p.K) {
    *why = "inner dimensions differ";
    return nullptr;
  }
  p.M = numElements(a.shape) / std::max<int64_t>(1, p.K);
  if (numElements(node.outputs[0]->shape) != p.M * p.N) {
    *why = "a's batch does not fold into rows";
    return nullptr;
  }
  if (!packedSgemmSuits(p.M, p.K, p.N)) {
    *why = "M " + std::to_string(p.M) + ", K " + std::to_string(p.K) + ", N " + std::to_string(p.N) +
           ": needs M >= 16, K >= 8, N >= 8";
    return nullptr;
  }
  p.bKStride = p.N;
  p.bNStride = 1;
  p.alpha = alpha;
  p.act = act;
  return makePackedSgemmKernel(node, p);
}

bool makePackedMatMul(const NodeDesc &node, float alpha, Activation act, std::unique_ptr<Kernel> *out) {
  std::string why;
  *out = makePackedMatMul(node, alpha, act, &why);
  return *out != nullptr;
}

void registerMatMulKernels(KernelTable &t) {
  t.add("matmul", &makeMatMul);
  t.add("gemm", &makeGemm);
  registerTransformerKernels(t);  // fusedMatmul, fusedAttention
}

}  // namespace webnn::cpu::kernels
