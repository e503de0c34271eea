// Unary elementwise ops, activations, cast, where and logicalNot.
//
// float16 is computed in float32 over small stack chunks and rounded back once
// per element; float64 (the extension type) runs the same functors in double.
// Integer ops (abs, neg, sign, relu, clamp, identity) run natively.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/backends/cpu/kernels/Broadcast.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kGrain = 1 << 14;
constexpr int64_t kChunk = 256;

// ---- float op functors: F -> F for F = float (float16 and float32) or double
// (float64, for the ops registered with kF64), parameters captured at load.
struct Params {
  float alpha = 0, beta = 0;
};

#define WEBNN_FLOAT_UNARY(NAME, EXPR)              \
  struct NAME {                                    \
    Params p;                                      \
    template <typename F>                          \
    F operator()(F x) const { return EXPR; }       \
  };
WEBNN_FLOAT_UNARY(AbsF, std::fabs(x))
WEBNN_FLOAT_UNARY(CeilF, std::ceil(x))
WEBNN_FLOAT_UNARY(FloorF, std::floor(x))
WEBNN_FLOAT_UNARY(ExpF, std::exp(x))
WEBNN_FLOAT_UNARY(LogF, std::log(x))
WEBNN_FLOAT_UNARY(NegF, -x)
WEBNN_FLOAT_UNARY(SqrtF, std::sqrt(x))
WEBNN_FLOAT_UNARY(ReluF, x > 0.f ? x : 0.f)
WEBNN_FLOAT_UNARY(TanhF, std::tanh(x))
WEBNN_FLOAT_UNARY(HardSwishF, x * std::min(6.f, std::max(0.f, x + 3.f)) * (1.f / 6.f))
WEBNN_FLOAT_UNARY(ErfF, std::erf(x))
WEBNN_FLOAT_UNARY(ReciprocalF, 1.f / x)
WEBNN_FLOAT_UNARY(SinF, std::sin(x))
WEBNN_FLOAT_UNARY(CosF, std::cos(x))
WEBNN_FLOAT_UNARY(TanF, std::tan(x))
WEBNN_FLOAT_UNARY(SignF, x > 0.f ? 1.f : (x < 0.f ? -1.f : x))
WEBNN_FLOAT_UNARY(IdentityF, x)
WEBNN_FLOAT_UNARY(SoftsignF, x / (1.f + std::fabs(x)))
// log(1 + e^x) without overflow for large x.
WEBNN_FLOAT_UNARY(SoftplusF, std::max(x, 0.f) + std::log1p(std::exp(-std::fabs(x))))
// nearbyint honours the default rounding mode: round half to even.
WEBNN_FLOAT_UNARY(RoundEvenF, std::nearbyint(x))
WEBNN_FLOAT_UNARY(EluF, x > 0.f ? x : p.alpha * std::expm1(x))
WEBNN_FLOAT_UNARY(LeakyReluF, x >= 0.f ? x : p.alpha * x)
WEBNN_FLOAT_UNARY(HardSigmoidF, std::max(0.f, std::min(1.f, p.alpha * x + p.beta)))
WEBNN_FLOAT_UNARY(LinearF, p.alpha * x + p.beta)
#undef WEBNN_FLOAT_UNARY
// Vectorized like SigmoidF: a GELU that follows a convolution (wav2vec2's
// feature extractor) runs over millions of values.
struct GeluF {
  Params p;
  template <typename F>
  F operator()(F x) const { return F(0.5) * x * (F(1) + std::erf(x * F(0.70710678118654752))); }
  static void array(const float *x, float *y, int64_t n) { geluArray(x, y, n); }
};
// Vectorized over whole ranges (array()): a decoder's SiLU runs sigmoid over
// every FFN activation, where the scalar expf took ~10% of a prefill.
struct SigmoidF {
  Params p;
  template <typename F>
  F operator()(F x) const { return F(1) / (F(1) + std::exp(-x)); }
  static void array(const float *x, float *y, int64_t n) { sigmoidArray(x, y, n); }
};
template <typename Op, typename = void>
struct HasArray : std::false_type {};
template <typename Op>
struct HasArray<Op, std::void_t<decltype(&Op::array)>> : std::true_type {};

template <typename Op>
class UnaryFloatKernel final : public Kernel {
 public:
  UnaryFloatKernel(Op op, bool half, int64_t n) : op_(op), half_(half), n_(n) {}
  Status run(const KernelContext &ctx) override {
    if (!half_) {
      const float *x = in<float>(ctx, 0);
      float *y = outp<float>(ctx, 0);
      parallelForUnits(ctx, n_, kGrain, [&](int64_t b, int64_t e) {
        if constexpr (HasArray<Op>::value) Op::array(x + b, y + b, e - b);
        else
          for (int64_t i = b; i < e; ++i) y[i] = op_(x[i]);
      });
      return Status::ok();
    }
    const uint16_t *x = in<uint16_t>(ctx, 0);
    uint16_t *y = outp<uint16_t>(ctx, 0);
    parallelForUnits(ctx, n_, kGrain, [&](int64_t b, int64_t e) {
      float buf[kChunk];
      for (int64_t i = b; i < e; i += kChunk) {
        int64_t len = std::min(kChunk, e - i);
        halfToFloatN(x + i, buf, len);
        if constexpr (HasArray<Op>::value) Op::array(buf, buf, len);
        else
          for (int64_t j = 0; j < len; ++j) buf[j] = op_(buf[j]);
        floatToHalfN(buf, y + i, len);
      }
    });
    return Status::ok();
  }

 private:
  Op op_;
  bool half_;
  int64_t n_;
};

// ---- one scalar functor per element, no vector form: integer ops and float64
template <typename T, typename Fn>
class UnaryScalarKernel final : public Kernel {
 public:
  UnaryScalarKernel(Fn fn, int64_t n) : fn_(fn), n_(n) {}
  Status run(const KernelContext &ctx) override {
    const T *x = in<T>(ctx, 0);
    T *y = outp<T>(ctx, 0);
    parallelFor(ctx, n_, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = fn_(x[i]);
    });
    return Status::ok();
  }

 private:
  Fn fn_;
  int64_t n_;
};

template <typename T, typename Fn>
std::unique_ptr<Kernel> makeScalarKernel(Fn fn, int64_t n) {
  return std::make_unique<UnaryScalarKernel<T, Fn>>(fn, n);
}

// Signed negation wraps (-INT_MIN == INT_MIN) instead of overflowing.
template <typename T>
T wrapNeg(T x) {
  using U = std::make_unsigned_t<T>;
  return T(U(0) - U(x));
}

enum class IntOp { kAbs, kNeg, kSign, kRelu, kIdentity };

template <typename T>
std::unique_ptr<Kernel> makeIntUnary(IntOp op, int64_t n) {
  switch (op) {
    case IntOp::kAbs: return makeScalarKernel<T>([](T x) { return x < T(0) ? wrapNeg(x) : x; }, n);
    case IntOp::kNeg: return makeScalarKernel<T>([](T x) { return wrapNeg(x); }, n);
    case IntOp::kSign: return makeScalarKernel<T>([](T x) { return T(x > T(0) ? 1 : (x < T(0) ? -1 : 0)); }, n);
    case IntOp::kRelu: return makeScalarKernel<T>([](T x) { return x > T(0) ? x : T(0); }, n);
    default: return makeScalarKernel<T>([](T x) { return x; }, n);
  }
}

class CopyKernel final : public Kernel {
 public:
  explicit CopyKernel(size_t bytes) : bytes_(bytes) {}
  Status run(const KernelContext &ctx) override {
    if (ctx.outputs[0]->data != ctx.inputs[0]->data && bytes_)
      std::memcpy(ctx.outputs[0]->data, ctx.inputs[0]->data, bytes_);
    return Status::ok();
  }

 private:
  size_t bytes_;
};

Status checkUnaryNode(const NodeDesc &node, std::initializer_list<DataType> allowed) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  WEBNN_RETURN_IF_ERROR(checkDataType(node, *node.inputs[0], "input", allowed));
  return checkOutput(node, 0, node.inputs[0]->shape, node.inputs[0]->dtype);
}

// kF64: Op has a float64 form (only then is Op's double operator() instantiated).
template <typename Op, bool kF64 = false>
Status makeFloatUnary(const NodeDesc &node, std::unique_ptr<Kernel> *out, Params p = {}) {
  const OperandDesc &x = *node.inputs[0];
  if constexpr (kF64) {
    if (x.dtype == DataType::kFloat64) {
      *out = makeScalarKernel<double>(Op{p}, numElements(x.shape));
      return Status::ok();
    }
  }
  *out = std::make_unique<UnaryFloatKernel<Op>>(Op{p}, x.dtype == DataType::kFloat16, numElements(x.shape));
  return Status::ok();
}

// Ops defined for floats only; kF64: float64 too (the dialect's
// WebNN_FloatOrF64UnaryOp).
template <typename Op, bool kF64 = false>
Status floatOnly(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkUnaryNode(node, kF64 ? kFloatTypesF64 : kFloatTypes));
  return makeFloatUnary<Op, kF64>(node, out);
}

// Ops defined for floats (float64 included) and signed integers.
template <typename Op, IntOp kIntOp>
Status floatOrSigned(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkUnaryNode(node, {DataType::kFloat32, DataType::kFloat16, DataType::kFloat64,
                                              DataType::kInt32, DataType::kInt64, DataType::kInt8}));
  const OperandDesc &x = *node.inputs[0];
  if (isFloat(x.dtype) || x.dtype == DataType::kFloat64) return makeFloatUnary<Op, true>(node, out);
  int64_t n = numElements(x.shape);
  switch (x.dtype) {
    case DataType::kInt32: *out = makeIntUnary<int32_t>(kIntOp, n); break;
    case DataType::kInt64: *out = makeIntUnary<int64_t>(kIntOp, n); break;
    default: *out = makeIntUnary<int8_t>(kIntOp, n); break;
  }
  return Status::ok();
}

Status makeIdentity(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  uint64_t bytes = 0;
  tensorByteSize(x.dtype, x.shape, &bytes);
  *out = std::make_unique<CopyKernel>(size_t(bytes));
  return Status::ok();
}

template <typename Op>
Status floatWithAlphaBeta(const NodeDesc &node, std::unique_ptr<Kernel> *out, double alphaDef, double betaDef) {
  WEBNN_RETURN_IF_ERROR(checkUnaryNode(node, kFloatTypes));
  Params p;
  p.alpha = float(node.attributes.getFloat("alpha", alphaDef));
  p.beta = float(node.attributes.getFloat("beta", betaDef));
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  return makeFloatUnary<Op>(node, out, p);
}

// ---- clamp: every type. Bounds are float attributes; for integer tensors they
// are converted to the element type with saturation (so -inf/+inf mean "no
// bound"), matching the WPT vectors for int64/uint64 bigint bounds.
template <typename T>
T saturateFromDouble(double v) {
  if (std::isnan(v)) return T(0);
  if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(v);
}

Status makeClamp(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkUnaryNode(node, kAllTypes));
  double lo = node.attributes.getFloat("minValue", -std::numeric_limits<double>::infinity());
  double hi = node.attributes.getFloat("maxValue", std::numeric_limits<double>::infinity());
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (lo > hi) return nodeError(node, "minValue is greater than maxValue");
  const OperandDesc &x = *node.inputs[0];
  int64_t n = numElements(x.shape);
  if (isFloat(x.dtype)) {
    struct ClampF {
      Params p;
      float operator()(float v) const { return std::min(std::max(v, p.alpha), p.beta); }
    };
    Params p;
    p.alpha = float(lo);
    p.beta = float(hi);
    return makeFloatUnary<ClampF>(node, out, p);
  }
  dispatchType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      // A NaN bound bounds nothing (WPT "minValue as NaN").
      T l = std::isnan(lo) ? std::numeric_limits<T>::lowest() : saturateFromDouble<T>(lo);
      T h = std::isnan(hi) ? std::numeric_limits<T>::max() : saturateFromDouble<T>(hi);
      *out = makeScalarKernel<T>([l, h](T v) { return v < l ? l : (v > h ? h : v); }, n);
    }
  });
  return Status::ok();
}

Status makeLogicalNot(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkUnaryNode(node, {DataType::kUint8}));
  *out = makeScalarKernel<uint8_t>([](uint8_t v) { return uint8_t(v == 0); }, numElements(node.inputs[0]->shape));
  return Status::ok();
}

// ---- isNaN / isInfinite: float16/float32 -> uint8 0/1. float16 is tested on
// its bits (exponent all ones), which needs no conversion.
template <bool kNaN>
class FloatClassKernel final : public Kernel {
 public:
  FloatClassKernel(bool half, int64_t n) : half_(half), n_(n) {}
  Status run(const KernelContext &ctx) override {
    uint8_t *y = outp<uint8_t>(ctx, 0);
    if (half_) {
      const uint16_t *x = in<uint16_t>(ctx, 0);
      parallelFor(ctx, n_, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          bool maxExponent = (x[i] & 0x7c00u) == 0x7c00u;
          bool mantissa = (x[i] & 0x03ffu) != 0;
          y[i] = uint8_t(maxExponent && (kNaN ? mantissa : !mantissa));
        }
      });
      return Status::ok();
    }
    const float *x = in<float>(ctx, 0);
    parallelFor(ctx, n_, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = uint8_t(kNaN ? std::isnan(x[i]) : std::isinf(x[i]));
    });
    return Status::ok();
  }

 private:
  bool half_;
  int64_t n_;
};

template <bool kNaN>
Status makeFloatClass(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, DataType::kUint8));
  *out = std::make_unique<FloatClassKernel<kNaN>>(x.dtype == DataType::kFloat16, numElements(x.shape));
  return Status::ok();
}

// ---- cast. Rules (WebNN leaves out-of-range casts implementation-defined):
// float -> integer truncates toward zero (as the WPT vectors require) and
// saturates to the target range, NaN -> 0; integer -> integer wraps (two's
// complement, like a C cast); anything -> float16 rounds to nearest even.
// int4/uint4 are packed two per byte, low nibble first.
template <typename D, typename S>
D convertValue(S s) {
  if constexpr (std::is_same_v<D, S>) {
    return s;
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    double v = std::trunc(double(s));
    return saturateFromDouble<D>(v);
  } else {
    return D(s);
  }
}

// Generic cast between two byte-aligned element types.
template <typename S, typename D>
void castRange(const void *src, void *dst, int64_t b, int64_t e) {
  if constexpr (std::is_same_v<S, D>) {
    std::memcpy(static_cast<D *>(dst) + b, static_cast<const S *>(src) + b, size_t(e - b) * sizeof(S));
  } else if constexpr (std::is_same_v<S, Half> && std::is_same_v<D, float>) {
    halfToFloatN(static_cast<const uint16_t *>(src) + b, static_cast<float *>(dst) + b, e - b);
  } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, Half>) {
    floatToHalfN(static_cast<const float *>(src) + b, static_cast<uint16_t *>(dst) + b, e - b);
  } else if constexpr (std::is_same_v<S, Half>) {
    const uint16_t *s = static_cast<const uint16_t *>(src);
    D *d = static_cast<D *>(dst);
    for (int64_t i = b; i < e; ++i) d[i] = convertValue<D>(halfToFloat(s[i]));
  } else if constexpr (std::is_same_v<D, Half>) {
    const S *s = static_cast<const S *>(src);
    uint16_t *d = static_cast<uint16_t *>(dst);
    for (int64_t i = b; i < e; ++i) d[i] = floatToHalf(convertValue<float>(s[i]));
  } else {
    const S *s = static_cast<const S *>(src);
    D *d = static_cast<D *>(dst);
    for (int64_t i = b; i < e; ++i) d[i] = convertValue<D>(s[i]);
  }
}

using CastFn = void (*)(const void *, void *, int64_t, int64_t);

template <typename S>
CastFn pickCastTo(DataType to) {
  return dispatchType(to, [](auto dtag) -> CastFn { return &castRange<S, decltype(dtag)>; });
}

// 4-bit element i as a signed/unsigned integer.
inline int64_t loadNibble(const uint8_t *p, int64_t i, bool isSigned) {
  uint8_t v = (p[i >> 1] >> ((i & 1) * 4)) & 0xf;
  return isSigned ? int64_t(int8_t(uint8_t(v << 4)) >> 4) : int64_t(v);
}

class CastKernelImpl final : public Kernel {
 public:
  CastKernelImpl(CastFn fn, int64_t n) : fn_(fn), n_(n) {}
  Status run(const KernelContext &ctx) override {
    const void *s = ctx.inputs[0]->data;
    void *d = ctx.outputs[0]->data;
    parallelFor(ctx, n_, kGrain, [&](int64_t b, int64_t e) { fn_(s, d, b, e); });
    return Status::ok();
  }

 private:
  CastFn fn_;
  int64_t n_;
};

// Casts involving int4/uint4 go element by element through int64/double.
class Cast4BitKernel final : public Kernel {
 public:
  Cast4BitKernel(DataType from, DataType to, int64_t n) : from_(from), to_(to), n_(n) {}
  Status run(const KernelContext &ctx) override {
    const void *s = ctx.inputs[0]->data;
    void *d = ctx.outputs[0]->data;
    bool from4 = from_ == DataType::kInt4 || from_ == DataType::kUint4;
    bool to4 = to_ == DataType::kInt4 || to_ == DataType::kUint4;
    if (to4) std::memset(d, 0, size_t((n_ + 1) / 2));
    for (int64_t i = 0; i < n_; ++i) {
      // Read as double (exact for every 4-bit value and for integers < 2^53)
      // or as an integer when the source is an integer type.
      bool srcFloat = false;
      double fv = 0;
      int64_t iv = 0;
      if (from4) {
        iv = loadNibble(static_cast<const uint8_t *>(s), i, from_ == DataType::kInt4);
      } else {
        dispatchType(from_, [&](auto tag) {
          using S = decltype(tag);
          if constexpr (std::is_same_v<S, Half>) {
            srcFloat = true;
            fv = halfToFloat(static_cast<const uint16_t *>(s)[i]);
          } else if constexpr (std::is_floating_point_v<S>) {
            srcFloat = true;
            fv = static_cast<const S *>(s)[i];
          } else {
            iv = int64_t(static_cast<const S *>(s)[i]);
          }
        });
      }
      if (to4) {
        bool sgn = to_ == DataType::kInt4;
        int64_t v;
        if (srcFloat) {
          double t = std::isnan(fv) ? 0 : std::trunc(fv);
          double lo = sgn ? -8 : 0, hi = sgn ? 7 : 15;
          v = int64_t(std::min(std::max(t, lo), hi));
        } else {
          v = iv;  // integer -> integer wraps to the low 4 bits
        }
        uint8_t nib = uint8_t(v) & 0xf;
        static_cast<uint8_t *>(d)[i >> 1] |= uint8_t(nib << ((i & 1) * 4));
      } else {
        dispatchType(to_, [&](auto tag) {
          using D = decltype(tag);
          if constexpr (std::is_same_v<D, Half>)
            static_cast<uint16_t *>(d)[i] = floatToHalf(float(iv));
          else
            static_cast<D *>(d)[i] = D(iv);
        });
      }
    }
    return Status::ok();
  }

 private:
  DataType from_, to_;
  int64_t n_;
};

Status makeCast(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  std::string typeName = node.attributes.getString("type", "");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  DataType to;
  if (typeName.empty()) return nodeError(node, "missing required attribute 'type'");
  if (!parseDataTypeName(typeName, &to)) return nodeError(node, "unknown data type '" + typeName + "'");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, to));
  int64_t n = numElements(x.shape);
  bool from4 = x.dtype == DataType::kInt4 || x.dtype == DataType::kUint4;
  bool to4 = to == DataType::kInt4 || to == DataType::kUint4;
  if (from4 || to4) {
    *out = std::make_unique<Cast4BitKernel>(x.dtype, to, n);
    return Status::ok();
  }
  CastFn fn = dispatchType(x.dtype, [&](auto stag) { return pickCastTo<decltype(stag)>(to); });
  *out = std::make_unique<CastKernelImpl>(fn, n);
  return Status::ok();
}

// ---- where(condition, trueValue, falseValue): bidirectional broadcast of all
// three; a nonzero condition byte selects trueValue.
template <typename T>
class WhereKernel final : public Kernel {
 public:
  explicit WhereKernel(BroadcastPlan<3> plan) : plan_(std::move(plan)) {}
  Status run(const KernelContext &ctx) override {
    const uint8_t *c = in<uint8_t>(ctx, 0);
    const T *t = in<T>(ctx, 1);
    const T *f = in<T>(ctx, 2);
    T *o = outp<T>(ctx, 0);
    parallelFor(ctx, plan_.total(), kGrain, [&](int64_t b, int64_t e) {
      plan_.forSegments(b, e, [&](const std::array<int64_t, 3> &off, int64_t oo, int64_t len,
                                  const std::array<int64_t, 3> &st) {
        const uint8_t *cc = c + off[0];
        const T *tt = t + off[1];
        const T *ff = f + off[2];
        T *y = o + oo;
        for (int64_t i = 0; i < len; ++i) y[i] = cc[i * st[0]] ? tt[i * st[1]] : ff[i * st[2]];
      });
    });
    return Status::ok();
  }

 private:
  BroadcastPlan<3> plan_;
};

Status makeWhere(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 3, 1));
  const OperandDesc &c = *node.inputs[0], &t = *node.inputs[1], &f = *node.inputs[2];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, c, "condition", {DataType::kUint8}));
  WEBNN_RETURN_IF_ERROR(checkDataType(node, t, "trueValue", kAllTypesF64));
  if (f.dtype != t.dtype) return nodeError(node, "trueValue and falseValue data types differ");
  Shape s1, s2;
  if (!broadcastShapes(t.shape, f.shape, &s1) || !broadcastShapes(c.shape, s1, &s2))
    return nodeError(node, "operand shapes " + shapeToString(c.shape) + ", " + shapeToString(t.shape) + ", " +
                               shapeToString(f.shape) + " are not broadcastable");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, s2, t.dtype));
  BroadcastPlan<3> plan;
  plan.init(s2, {&c.shape, &t.shape, &f.shape});
  dispatchBytes(elementBytes(t.dtype), [&](auto tag) {
    *out = std::make_unique<WhereKernel<decltype(tag)>>(std::move(plan));
  });
  return Status::ok();
}

}  // namespace

void registerElementwiseKernels(KernelTable &t) {
  t.add("abs", &floatOrSigned<AbsF, IntOp::kAbs>);
  t.add("neg", &floatOrSigned<NegF, IntOp::kNeg>);
  t.add("sign", &floatOrSigned<SignF, IntOp::kSign>);
  t.add("relu", &floatOrSigned<ReluF, IntOp::kRelu>);
  t.add("identity", &makeIdentity);
  t.add("ceil", &floatOnly<CeilF, true>);
  t.add("floor", &floatOnly<FloorF, true>);
  t.add("exp", &floatOnly<ExpF, true>);
  t.add("log", &floatOnly<LogF, true>);
  t.add("sqrt", &floatOnly<SqrtF, true>);
  t.add("sigmoid", &floatOnly<SigmoidF, true>);
  t.add("tanh", &floatOnly<TanhF, true>);
  t.add("hardSwish", &floatOnly<HardSwishF>);
  t.add("erf", &floatOnly<ErfF, true>);
  t.add("reciprocal", &floatOnly<ReciprocalF, true>);
  t.add("sin", &floatOnly<SinF, true>);
  t.add("cos", &floatOnly<CosF, true>);
  t.add("tan", &floatOnly<TanF, true>);
  t.add("isNaN", &makeFloatClass<true>);
  t.add("isInfinite", &makeFloatClass<false>);
  t.add("softsign", &floatOnly<SoftsignF>);
  t.add("softplus", &floatOnly<SoftplusF>);
  t.add("roundEven", &floatOnly<RoundEvenF, true>);
  t.add("gelu", &floatOnly<GeluF>);
  t.add("elu", [](const NodeDesc &n, std::unique_ptr<Kernel> *o) { return floatWithAlphaBeta<EluF>(n, o, 1.0, 0.0); });
  t.add("leakyRelu",
        [](const NodeDesc &n, std::unique_ptr<Kernel> *o) { return floatWithAlphaBeta<LeakyReluF>(n, o, 0.01, 0.0); });
  t.add("hardSigmoid",
        [](const NodeDesc &n, std::unique_ptr<Kernel> *o) { return floatWithAlphaBeta<HardSigmoidF>(n, o, 0.2, 0.5); });
  t.add("linear",
        [](const NodeDesc &n, std::unique_ptr<Kernel> *o) { return floatWithAlphaBeta<LinearF>(n, o, 1.0, 0.0); });
  t.add("clamp", &makeClamp);
  t.add("logicalNot", &makeLogicalNot);
  t.add("cast", &makeCast);
  t.add("where", &makeWhere);
}

}  // namespace webnn::cpu::kernels
