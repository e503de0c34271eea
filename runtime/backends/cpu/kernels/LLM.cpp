// Decoder-LLM kernels beyond the WebNN spec (docs/LLM.md): matmulNBits,
// rmsNormalization, skipRmsNormalization, rotaryEmbedding and
// groupQueryAttention, with ONNX Runtime's contrib-op semantics. float16
// operands run through the float32 kernels (makeFloat16Adapter).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "core/RotaryGeometry.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/GqaAttention.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }
const void *optionalData(const KernelContext &ctx, size_t i) {
  return (i < ctx.numInputs && ctx.inputs[i]) ? ctx.inputs[i]->data : nullptr;
}

Status checkFloat32Input(const NodeDesc &node, size_t i, const char *what) {
  if (!present(node, i)) return Status::ok();
  if (node.inputs[i]->dtype != DataType::kFloat32)
    return nodeError(node, std::string(what) + " must have the input's float type");
  return Status::ok();
}

// ------------------------------------------------------------- matmulNBits
class MatMulNBitsKernel final : public Kernel {
 public:
  MatMulNBitsKernel(int64_t M, int64_t N, int64_t K, int64_t blockSize, int64_t bits,
                    int64_t accuracy, bool packedZp, bool floatZp, bool constantWeights)
      : mm_(M, N, K, blockSize, bits, accuracy, nullptr, floatZp), packedZp_(packedZp),
        constantWeights_(constantWeights) {}
  Status run(const KernelContext &ctx) override {
    // Constant weights are prepared on the first run (load stays cheap, as for
    // the portable conv filters); a weight fed at run time every run.
    if (!prepared_ || !constantWeights_) {
      const void *zp = optionalData(ctx, 3);
      mm_.setWeights(in<uint8_t>(ctx, 1), in<float>(ctx, 2),
                     packedZp_ ? static_cast<const uint8_t *>(zp) : nullptr,
                     packedZp_ ? nullptr : static_cast<const float *>(zp));
      prepared_ = true;
    }
    mm_.run(in<float>(ctx, 0), outp<float>(ctx, 0), static_cast<const float *>(optionalData(ctx, 4)),
            &threadPool(ctx));
    return Status::ok();
  }

 private:
  NBitsMatMul mm_;
  bool packedZp_, constantWeights_, prepared_ = false;
};

Status makeMatMulNBits(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 5, 1));
  const OperandDesc &a = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, a, "input", kFloatTypes));
  if (a.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeMatMulNBits, out);
  int64_t K = node.attributes.getInt("K", 0), N = node.attributes.getInt("N", 0);
  int64_t blockSize = node.attributes.getInt("blockSize", 0);
  int64_t bits = node.attributes.getInt("bits", 4);
  int64_t accuracy = node.attributes.getInt("accuracyLevel", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (K < 1 || N < 1) return nodeError(node, "K and N must be >= 1");
  if (bits != 2 && bits != 4 && bits != 8) return nodeError(node, "bits must be 2, 4 or 8");
  if (blockSize < 16 || (blockSize & (blockSize - 1)))
    return nodeError(node, "blockSize must be a power of 2 >= 16");
  if (a.shape.empty() || a.shape.back() != K)
    return nodeError(node, "input's last dimension must be K = " + std::to_string(K));
  int64_t kBlocks = (K + blockSize - 1) / blockSize, blob = blockSize * bits / 8;
  const OperandDesc &w = *node.inputs[1];
  if (w.dtype != DataType::kUint8 || w.shape != Shape{N, kBlocks, blob})
    return nodeError(node, "weight must be uint8 " + shapeToString(Shape{N, kBlocks, blob}));
  WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 2, "scales"));
  if (numElements(node.inputs[2]->shape) != N * kBlocks)
    return nodeError(node, "scales must have N * kBlocks elements");
  bool packedZp = false;
  if (present(node, 3)) {
    const OperandDesc &zp = *node.inputs[3];
    packedZp = zp.dtype == DataType::kUint8;
    int64_t want = packedZp ? N * ((kBlocks * bits + 7) / 8) : N * kBlocks;
    if (!packedZp) WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 3, "float zeroPoints"));
    if (numElements(zp.shape) != want)
      return nodeError(node, "zeroPoints must have " + std::to_string(want) + " elements");
  }
  if (present(node, 4)) {
    WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 4, "bias"));
    if (node.inputs[4]->shape != Shape{N}) return nodeError(node, "bias must have shape [N]");
  }
  Shape outShape = a.shape;
  outShape.back() = N;
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, outShape, a.dtype));
  bool constant = w.constantData && node.inputs[2]->constantData &&
                  (!present(node, 3) || node.inputs[3]->constantData);
  *out = std::make_unique<MatMulNBitsKernel>(numElements(a.shape) / K, N, K, blockSize, bits,
                                             accuracy, packedZp, present(node, 3) && !packedZp,
                                             constant);
  return Status::ok();
}

// ---------------------------------------- rmsNormalization / skipRmsNormalization
// One row: the sum of squares in float32 while reading (and, with a skip,
// while writing the residual sum), then one scaling pass over the row, which
// is still in L1.
class RmsNormKernel final : public Kernel {
 public:
  RmsNormKernel(int64_t rows, int64_t n, float eps, bool skip, int64_t skipRows)
      : rows_(rows), n_(n), eps_(eps), skip_(skip), skipRows_(skipRows) {}
  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    const float *skip = skip_ ? in<float>(ctx, 1) : nullptr;
    const float *gamma = in<float>(ctx, skip_ ? 2 : 1);
    const float *bias = skip_ ? static_cast<const float *>(optionalData(ctx, 3)) : nullptr;
    float *y = outp<float>(ctx, 0);
    float *invStd = outp<float>(ctx, 1);
    float *sum = skip_ ? outp<float>(ctx, 2) : nullptr;
    const int64_t n = n_;
    parallelFor(ctx, rows_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        const float *src = xr;
        float ss = 0.f;
        if (skip_) {
          const float *sk = skip + (r % skipRows_) * n;
          float *sr = sum + r * n;
          for (int64_t i = 0; i < n; ++i) {
            float v = xr[i] + sk[i] + (bias ? bias[i] : 0.f);
            sr[i] = v;
            ss += v * v;
          }
          src = sr;
        } else {
          for (int64_t i = 0; i < n; ++i) ss += xr[i] * xr[i];
        }
        float inv = 1.f / std::sqrt(ss / float(n) + eps_);
        invStd[r] = inv;
        for (int64_t i = 0; i < n; ++i) yr[i] = src[i] * inv * gamma[i];
      }
    });
    return Status::ok();
  }

 private:
  int64_t rows_, n_;
  float eps_;
  bool skip_;
  int64_t skipRows_;
};

Status makeRmsNorm(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 2, 2));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeRmsNorm, out);
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = node.attributes.getInt("axis", rank - 1);
  double eps = node.attributes.getFloat("epsilon", 1e-5);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (axis < 0 || axis >= rank) return nodeError(node, "axis is out of range");
  Shape inner(x.shape.begin() + axis, x.shape.end());
  WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 1, "scale"));
  if (node.inputs[1]->shape != inner) return nodeError(node, "scale must have shape input.shape[axis:]");
  Shape stat(x.shape.begin(), x.shape.begin() + axis);
  stat.resize(size_t(rank), 1);
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 1, stat, DataType::kFloat32));
  int64_t n = numElements(inner);
  *out = std::make_unique<RmsNormKernel>(n ? numElements(x.shape) / n : 0, n, float(eps), false, 1);
  return Status::ok();
}

Status makeSkipRmsNorm(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 4, 3));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeSkipRmsNorm, out);
  double eps = node.attributes.getFloat("epsilon", 1e-5);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (x.shape.empty()) return nodeError(node, "input must have rank >= 1");
  int64_t hidden = x.shape.back();
  const OperandDesc &skip = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 1, "skip"));
  int64_t skipCount = numElements(skip.shape), total = numElements(x.shape);
  if (skip.shape.empty() || skip.shape.back() != hidden || skipCount == 0 || total % skipCount)
    return nodeError(node, "skip must have the input's trailing dimensions");
  for (size_t i : {size_t(2), size_t(3)}) {
    if (!present(node, i)) continue;
    WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, i, i == 2 ? "gamma" : "bias"));
    if (node.inputs[i]->shape != Shape{hidden}) return nodeError(node, "gamma/bias must be [hidden]");
  }
  Shape stat(x.shape.begin(), x.shape.end() - 1);
  stat.push_back(1);
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 1, stat, DataType::kFloat32));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 2, x.shape, x.dtype));
  *out = std::make_unique<RmsNormKernel>(hidden ? total / hidden : 0, hidden, float(eps), true,
                                         hidden ? skipCount / hidden : 1);
  return Status::ok();
}

// ------------------------------------------------------------ rotary helpers
// Rotates one head vector x[0, rotaryDim) by position `pos` of the caches
// (out may alias x); features past rotaryDim are copied.
inline void rotate(const float *x, float *out, int64_t headSize, int64_t rotaryDim,
                   const float *cosRow, const float *sinRow, bool interleaved) {
  const int64_t half = rotaryDim / 2;
  if (interleaved) {
    for (int64_t i = 0; i < half; ++i) {
      float a = x[2 * i], b = x[2 * i + 1], c = cosRow[i], s = sinRow[i];
      out[2 * i] = a * c - b * s;
      out[2 * i + 1] = b * c + a * s;
    }
  } else {
    for (int64_t i = 0; i < half; ++i) {
      float a = x[i], b = x[i + half], c = cosRow[i], s = sinRow[i];
      out[i] = a * c - b * s;
      out[i + half] = b * c + a * s;
    }
  }
  if (out != x)
    for (int64_t i = rotaryDim; i < headSize; ++i) out[i] = x[i];
}

// Positions outside the caches cannot be rejected inside run(); they read
// the nearest row (ORT returns an error for them).
inline int64_t clampPosition(int64_t pos, int64_t maxSeq) {
  return std::clamp<int64_t>(pos, 0, maxSeq - 1);
}

// ---------------------------------------------------------- rotaryEmbedding
class RotaryKernel final : public Kernel {
 public:
  RotaryKernel(bool bnsh, int64_t B, int64_t S, int64_t H, int64_t D, int64_t rot, int64_t maxSeq,
               bool interleaved, bool scalarPos)
      : bnsh_(bnsh), B_(B), S_(S), H_(H), D_(D), rot_(rot), maxSeq_(maxSeq),
        interleaved_(interleaved), scalarPos_(scalarPos) {}
  Status run(const KernelContext &ctx) override {
    const float *x = in<float>(ctx, 0);
    const int64_t *pos = in<int64_t>(ctx, 1);
    const float *cosC = in<float>(ctx, 2), *sinC = in<float>(ctx, 3);
    float *y = outp<float>(ctx, 0);
    const int64_t half = rot_ / 2;
    parallelFor(ctx, B_ * S_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, H_ * D_)), [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int64_t b = t / S_, s = t % S_;
        int64_t p = clampPosition(scalarPos_ ? pos[0] + s : pos[b * S_ + s], maxSeq_);
        for (int64_t h = 0; h < H_; ++h) {
          int64_t off = bnsh_ ? ((b * H_ + h) * S_ + s) * D_ : (b * S_ + s) * H_ * D_ + h * D_;
          rotate(x + off, y + off, D_, rot_, cosC + p * half, sinC + p * half, interleaved_);
        }
      }
    });
    return Status::ok();
  }

 private:
  bool bnsh_;
  int64_t B_, S_, H_, D_, rot_, maxSeq_;
  bool interleaved_, scalarPos_;
};

Status makeRotary(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 4, 4, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeRotary, out);
  bool interleaved = node.attributes.getBool("interleaved", false);
  int64_t numHeads = node.attributes.getInt("numHeads", 0);
  int64_t rot = node.attributes.getInt("rotaryEmbeddingDim", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  const OperandDesc &pos = *node.inputs[1], &cosC = *node.inputs[2], &sinC = *node.inputs[3];
  if (x.shape.size() != 3 && x.shape.size() != 4) return nodeError(node, "input must be 3-D or 4-D");
  if (pos.dtype != DataType::kInt64) return nodeError(node, "positionIds must be int64");
  WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 2, "cosCache"));
  WEBNN_RETURN_IF_ERROR(checkFloat32Input(node, 3, "sinCache"));
  if (cosC.shape.size() != 2 || cosC.shape != sinC.shape || cosC.shape[0] < 1)
    return nodeError(node, "cosCache/sinCache must be one non-empty 2-D shape");
  rt::RotaryGeometry g;
  if (std::string why = rt::rotaryGeometry(x.shape, cosC.shape[1], numHeads, rot, &g); !why.empty())
    return nodeError(node, why);
  bool scalarPos = pos.shape == Shape{1};
  if (!scalarPos && pos.shape != Shape{g.B, g.S}) return nodeError(node, "positionIds must be [1] or [B, S]");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  *out = std::make_unique<RotaryKernel>(g.bnsh, g.B, g.S, g.H, g.D, g.rot, cosC.shape[0], interleaved, scalarPos);
  return Status::ok();
}

// ------------------------------------------------------ groupQueryAttention
// Three steps: (1) the present KV cache = the first past_b rows of the past
// plus the new keys (rotated) and values at rows past_b.., per batch entry;
// (2) the new queries, rotated, into scratch; (3) for every (batch, head,
// query row) one pass over its causal key range with an online softmax in
// tiles of 64 keys (scores of a tile, one rescale of the accumulator per
// tile). Query head h reads KV head h / (numHeads / kvNumHeads).
//
// The present length T is P + S, or P (ORT's max(past, total) when the past
// is a fixed-capacity buffer): then present may share the past's memory
// (the executor's in-place binding), step (1) writes only the new rows, and
// rows past seqlensK + 1 are never read.
class GqaKernel final : public Kernel {
 public:
  struct Config {
    int64_t B, S, P, T, numHeads, kvHeads, D, rot, maxSeq;
    bool packed, rotary, interleaved;
    float scale, softcap;
    int64_t window;
  };
  // Steps of >= kTiledMinRows query rows (a prefill) take the tiled AVX-512
  // attention; softcap keeps the per-row loop (its tanh per score).
  static constexpr int64_t kTiledMinRows = 8;
  explicit GqaKernel(const Config &c)
      : c_(c), q_(size_t(c.B * c.numHeads * c.S * c.D)), pastLen_(size_t(c.B)),
        tiled_(c.S >= kTiledMinRows && c.softcap <= 0.f && avx512Available() && gqaTiledSupported(c.D)),
        rowsAvx512_(!tiled_ && c.softcap <= 0.f && avx512Available() && gqaTiledSupported(c.D)) {}

  bool allowsInPlace(size_t output, size_t input) const override {
    return c_.T == c_.P && ((output == 1 && input == 3) || (output == 2 && input == 4));
  }

  Status run(const KernelContext &ctx) override {
    const Config &c = c_;
    const float *query = in<float>(ctx, 0);
    const float *key = static_cast<const float *>(optionalData(ctx, 1));
    const float *value = static_cast<const float *>(optionalData(ctx, 2));
    const float *pastK = in<float>(ctx, 3), *pastV = in<float>(ctx, 4);
    const int32_t *seqlens = in<int32_t>(ctx, 5);
    const int32_t *total = static_cast<const int32_t *>(optionalData(ctx, 6));
    const float *cosC = c.rotary ? in<float>(ctx, 7) : nullptr;
    const float *sinC = c.rotary ? in<float>(ctx, 8) : nullptr;
    float *outY = outp<float>(ctx, 0), *presK = outp<float>(ctx, 1), *presV = outp<float>(ctx, 2);
    const int64_t D = c.D, half = c.rot / 2;
    // ORT: the first prompt (S == total_sequence_length) starts at 0; later
    // steps append after seqlens_k[b] + 1 - S cached positions (which is <= 0
    // for a first prompt anyway, so total is optional).
    for (int64_t b = 0; b < c.B; ++b) {
      int64_t past = (total && c.S == *total) ? 0 : int64_t(seqlens[b]) + 1 - c.S;
      pastLen_[b] = std::clamp<int64_t>(past, 0, std::min(c.P, c.T - c.S));
    }
    // Row strides of the new Q/K/V in their [B, S, hidden] tensors.
    const int64_t qStride = c.packed ? (c.numHeads + 2 * c.kvHeads) * D : c.numHeads * D;
    const int64_t kvStride = c.packed ? qStride : c.kvHeads * D;
    auto qRow = [&](int64_t b, int64_t s, int64_t h) { return query + (b * c.S + s) * qStride + h * D; };
    auto kRow = [&](int64_t b, int64_t s, int64_t h) {
      return c.packed ? query + (b * c.S + s) * qStride + (c.numHeads + h) * D
                      : key + (b * c.S + s) * kvStride + h * D;
    };
    auto vRow = [&](int64_t b, int64_t s, int64_t h) {
      return c.packed ? query + (b * c.S + s) * qStride + (c.numHeads + c.kvHeads + h) * D
                      : value + (b * c.S + s) * kvStride + h * D;
    };
    // (1) present cache, per (b, kv head). Shared with the past: the new
    // rows only.
    const bool sharedK = presK == pastK, sharedV = presV == pastV;
    // Shared and a few rows (decode): a few hundred floats in all, less
    // than waking the pool costs; run them here.
    const int64_t grain1 = sharedK && sharedV && c.S * c.D <= 1024 ? c.B * c.kvHeads : 1;
    parallelFor(ctx, c.B * c.kvHeads, grain1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int64_t b = t / c.kvHeads, h = t % c.kvHeads, past = pastLen_[b];
        float *pk = presK + t * c.T * D, *pv = presV + t * c.T * D;
        // An empty past may come with a null buffer: memcpy must not see it.
        const size_t pastBytes = size_t(past * D) * sizeof(float);
        if (!sharedK && past > 0) std::memcpy(pk, pastK + t * c.P * D, pastBytes);
        if (!sharedV && past > 0) std::memcpy(pv, pastV + t * c.P * D, pastBytes);
        for (int64_t s = 0; s < c.S; ++s) {
          float *dk = pk + (past + s) * D;
          if (c.rotary) {
            int64_t p = clampPosition(past + s, c.maxSeq);
            rotate(kRow(b, s, h), dk, D, c.rot, cosC + p * half, sinC + p * half, c.interleaved);
          } else {
            std::memcpy(dk, kRow(b, s, h), size_t(D) * sizeof(float));
          }
          std::memcpy(pv + (past + s) * D, vRow(b, s, h), size_t(D) * sizeof(float));
        }
        int64_t used = past + c.S;
        if (!sharedK) std::memset(pk + used * D, 0, size_t((c.T - used) * D) * sizeof(float));
        if (!sharedV) std::memset(pv + used * D, 0, size_t((c.T - used) * D) * sizeof(float));
      }
    });
    const int64_t group = c.numHeads / c.kvHeads;
    if (tiled_) {
      // (2) all queries rotated, then (3) in tiles: per (b, kv head, up to
      // kTileRows query rows) the rows of that KV head's query heads at once.
      parallelFor(ctx, c.B * c.numHeads * c.S, 16, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          int64_t s = t % c.S, h = (t / c.S) % c.numHeads, b = t / (c.S * c.numHeads);
          float *q = q_.data() + t * D;
          if (c.rotary) {
            int64_t p = clampPosition(pastLen_[b] + s, c.maxSeq);
            rotate(qRow(b, s, h), q, D, c.rot, cosC + p * half, sinC + p * half, c.interleaved);
          } else {
            std::memcpy(q, qRow(b, s, h), size_t(D) * sizeof(float));
          }
        }
      });
      constexpr int64_t kTileRows = 16;
      const int64_t sTiles = (c.S + kTileRows - 1) / kTileRows;
      parallelFor(ctx, c.B * c.kvHeads * sTiles, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          int64_t st = t % sTiles, kvh = (t / sTiles) % c.kvHeads, b = t / (sTiles * c.kvHeads);
          int64_t s0 = st * kTileRows;
          GqaTile tile;
          tile.q = q_.data() + ((b * c.numHeads + kvh * group) * c.S + s0) * D;
          tile.qHeadStride = c.S;
          tile.heads = group;
          tile.rows = std::min(kTileRows, c.S - s0);
          tile.pos0 = pastLen_[b] + s0;
          tile.D = D;
          tile.T = c.T;
          tile.window = c.window;
          tile.scale = c.scale;
          tile.K = presK + (b * c.kvHeads + kvh) * c.T * D;
          tile.V = presV + (b * c.kvHeads + kvh) * c.T * D;
          tile.out = outY + (b * c.S + s0) * c.numHeads * D + kvh * group * D;
          tile.outRowStride = c.numHeads * D;
          gqaAttendAvx512(tile);
        }
      });
      return Status::ok();
    }
    // (2) + (3) per (b, head, query row).
    parallelFor(ctx, c.B * c.numHeads * c.S, 1, [&](int64_t t0, int64_t t1) {
      constexpr int64_t kTile = 64;
      float scores[kTile];
      for (int64_t t = t0; t < t1; ++t) {
        int64_t s = t % c.S, h = (t / c.S) % c.numHeads, b = t / (c.S * c.numHeads);
        int64_t past = pastLen_[b], pos = past + s;
        float *q = q_.data() + t * D;
        if (c.rotary) {
          int64_t p = clampPosition(pos, c.maxSeq);
          rotate(qRow(b, s, h), q, D, c.rot, cosC + p * half, sinC + p * half, c.interleaved);
        } else {
          std::memcpy(q, qRow(b, s, h), size_t(D) * sizeof(float));
        }
        const int64_t kvh = h / group;
        const float *K = presK + (b * c.kvHeads + kvh) * c.T * D;
        const float *V = presV + (b * c.kvHeads + kvh) * c.T * D;
        if (rowsAvx512_) {
          GqaTile tile;
          tile.q = q;
          tile.qHeadStride = 1;
          tile.heads = tile.rows = 1;
          tile.pos0 = pos;
          tile.D = D;
          tile.T = c.T;
          tile.window = c.window;
          tile.scale = c.scale;
          tile.K = K;
          tile.V = V;
          tile.out = outY + (b * c.S + s) * c.numHeads * D + h * D;
          tile.outRowStride = c.numHeads * D;
          gqaAttendRowsAvx512(tile);
          continue;
        }
        // ORT keeps the last local_window_size + 1 keys.
        int64_t first = c.window >= 0 ? std::max<int64_t>(0, pos - c.window) : 0;
        int64_t last = std::min<int64_t>(pos, c.T - 1);
        float *o = outY + (b * c.S + s) * c.numHeads * D + h * D;
        for (int64_t d = 0; d < D; ++d) o[d] = 0.f;
        float runMax = -std::numeric_limits<float>::infinity(), runSum = 0.f;
        for (int64_t j0 = first; j0 <= last; j0 += kTile) {
          int64_t n = std::min<int64_t>(kTile, last + 1 - j0);
          float tileMax = -std::numeric_limits<float>::infinity();
          for (int64_t j = 0; j < n; ++j) {
            const float *k = K + (j0 + j) * D;
            float dot = 0.f;
#pragma omp simd reduction(+ : dot)
            for (int64_t d = 0; d < D; ++d) dot += q[d] * k[d];
            float x = dot * c.scale;
            if (c.softcap > 0.f) x = c.softcap * std::tanh(x / c.softcap);
            scores[j] = x;
            tileMax = std::max(tileMax, x);
          }
          float newMax = std::max(runMax, tileMax);
          // A score ~88+ below the max gives a denormal exp: flushed, as the
          // accumulation's FMAs read it (flushBelowFltMin).
          const float correction = flushBelowFltMin(std::exp(runMax - newMax));
          runSum *= correction;
          for (int64_t d = 0; d < D; ++d) o[d] *= correction;
          for (int64_t j = 0; j < n; ++j) {
            const float p = flushBelowFltMin(std::exp(scores[j] - newMax));
            runSum += p;
            const float *v = V + (j0 + j) * D;
            for (int64_t d = 0; d < D; ++d) o[d] += p * v[d];
          }
          runMax = newMax;
        }
        float inv = runSum > 0.f ? 1.f / runSum : 0.f;
        for (int64_t d = 0; d < D; ++d) o[d] *= inv;
      }
    });
    return Status::ok();
  }

 private:
  Config c_;
  std::vector<float> q_;
  std::vector<int64_t> pastLen_;
  bool tiled_;
  bool rowsAvx512_;  // fewer rows (decode): gqaAttendRowsAvx512 per row
};

Status makeGqa(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  // key and value (1, 2) are optional between required operands.
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 9, 3));
  if (node.inputs.size() < 6 || !present(node, 3) || !present(node, 4) || !present(node, 5))
    return nodeError(node, "pastKey, pastValue and seqlensK are required");
  const OperandDesc &q = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, q, "query", kFloatTypes));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeGqa, out);
  GqaKernel::Config c{};
  c.numHeads = node.attributes.getInt("numHeads", 0);
  c.kvHeads = node.attributes.getInt("kvNumHeads", 0);
  double scale = node.attributes.getFloat("scale", 0.0);
  c.softcap = float(node.attributes.getFloat("softcap", 0.0));
  c.window = node.attributes.getInt("localWindowSize", -1);
  c.rotary = node.attributes.getBool("doRotary", false);
  c.interleaved = node.attributes.getBool("rotaryInterleaved", false);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (c.numHeads < 1 || c.kvHeads < 1 || c.numHeads % c.kvHeads)
    return nodeError(node, "numHeads must be a positive multiple of kvNumHeads");
  if (q.shape.size() != 3) return nodeError(node, "query must be [B, S, hidden]");
  c.B = q.shape[0];
  c.S = q.shape[1];
  c.packed = !present(node, 1);
  if (c.packed != !present(node, 2)) return nodeError(node, "key and value must both be present or absent");
  int64_t parts = c.packed ? c.numHeads + 2 * c.kvHeads : c.numHeads;
  if (q.shape[2] % parts) return nodeError(node, "query hidden size does not split into heads");
  c.D = q.shape[2] / parts;
  Shape kvShape{c.B, c.S, c.kvHeads * c.D};
  for (size_t i : {size_t(1), size_t(2)})
    if (present(node, i) && (node.inputs[i]->shape != kvShape || node.inputs[i]->dtype != DataType::kFloat32))
      return nodeError(node, "key/value must be float " + shapeToString(kvShape));
  const OperandDesc &pk = *node.inputs[3], &pv = *node.inputs[4];
  if (pk.shape.size() != 4 || pk.shape != pv.shape || pk.shape[0] != c.B || pk.shape[1] != c.kvHeads ||
      pk.shape[3] != c.D || pk.dtype != DataType::kFloat32 || pv.dtype != DataType::kFloat32)
    return nodeError(node, "pastKey/pastValue must be float [B, kvNumHeads, P, D]");
  c.P = pk.shape[2];
  c.T = c.P + c.S;
  // A present as long as a past that holds the new rows: the shared layout.
  if (node.outputs.size() > 1 && node.outputs[1]->shape.size() == 4 && node.outputs[1]->shape[2] == c.P &&
      c.P >= c.S)
    c.T = c.P;
  if (node.inputs[5]->dtype != DataType::kInt32 || node.inputs[5]->shape != Shape{c.B})
    return nodeError(node, "seqlensK must be int32 [B]");
  if (present(node, 6) && (node.inputs[6]->dtype != DataType::kInt32 || numElements(node.inputs[6]->shape) != 1))
    return nodeError(node, "totalSequenceLength must be one int32");
  if (present(node, 7) != present(node, 8)) return nodeError(node, "cosCache and sinCache go together");
  if (c.rotary && !present(node, 7)) return nodeError(node, "doRotary needs cosCache and sinCache");
  if (c.rotary) {
    const OperandDesc &cc = *node.inputs[7];
    if (cc.shape.size() != 2 || cc.shape != node.inputs[8]->shape || cc.shape[0] < 1 ||
        2 * cc.shape[1] > c.D || cc.dtype != DataType::kFloat32)
      return nodeError(node, "cosCache/sinCache must be float [maxSeq, rotaryDim / 2], rotaryDim <= head size");
    c.maxSeq = cc.shape[0];
    c.rot = 2 * cc.shape[1];
  }
  c.scale = float(scale != 0.0 ? scale : 1.0 / std::sqrt(double(c.D)));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, Shape{c.B, c.S, c.numHeads * c.D}, q.dtype));
  Shape presentShape{c.B, c.kvHeads, c.T, c.D};
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 1, presentShape, q.dtype));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 2, presentShape, q.dtype));
  *out = std::make_unique<GqaKernel>(c);
  return Status::ok();
}

}  // namespace

void registerLLMKernels(KernelTable &t) {
  t.add("matmulNBits", &makeMatMulNBits);
  t.add("rmsNormalization", &makeRmsNorm);
  t.add("skipRmsNormalization", &makeSkipRmsNorm);
  t.add("rotaryEmbedding", &makeRotary);
  t.add("groupQueryAttention", &makeGqa);
}

}  // namespace webnn::cpu::kernels
