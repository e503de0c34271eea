// Broadcasting binary ops: arithmetic (same element type out), comparisons and
// logical ops (uint8 0/1 out), and prelu.
//
// Integer arithmetic wraps (computed in the unsigned type). Integer division
// truncates toward zero; division by zero yields 0 and INT_MIN / -1 wraps to
// INT_MIN, so no input can trap. Integer pow uses exact repeated squaring;
// a negative exponent gives 1/base^e truncated toward zero (0 unless |base| = 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/backends/cpu/kernels/Broadcast.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

constexpr int64_t kGrain = 1 << 14;
constexpr int64_t kChunk = 256;

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

struct Add {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return T(Unsigned<T>(a) + Unsigned<T>(b));
    else return a + b;
  }
};
struct Sub {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return T(Unsigned<T>(a) - Unsigned<T>(b));
    else return a - b;
  }
};
struct Mul {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Promote narrow types to unsigned int so the product cannot overflow int.
      using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
      return T(W(Unsigned<T>(a)) * W(Unsigned<T>(b)));
    } else {
      return a * b;
    }
  }
};
struct Div {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return T(Unsigned<T>(0) - Unsigned<T>(a));
      return T(a / b);
    } else {
      return a / b;
    }
  }
};
struct Max {
  template <typename T>
  T operator()(T a, T b) const { return a > b ? a : b; }
};
struct Min {
  template <typename T>
  T operator()(T a, T b) const { return a < b ? a : b; }
};
struct Pow {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (b < T(0)) {
          if (a == T(1)) return T(1);
          if (a == T(-1)) return (Unsigned<T>(b) & 1) ? T(-1) : T(1);
          return T(0);
        }
      }
      Mul mul;
      T result = T(1), base = a;
      Unsigned<T> e = Unsigned<T>(b);
      while (e) {
        if (e & 1) result = mul(result, base);
        base = mul(base, base);
        e >>= 1;
      }
      return result;
    }
  }
};
struct Equal {
  template <typename T>
  bool operator()(T a, T b) const { return a == b; }
};
struct NotEqual {
  template <typename T>
  bool operator()(T a, T b) const { return a != b; }
};
struct Greater {
  template <typename T>
  bool operator()(T a, T b) const { return a > b; }
};
struct GreaterOrEqual {
  template <typename T>
  bool operator()(T a, T b) const { return a >= b; }
};
struct Lesser {
  template <typename T>
  bool operator()(T a, T b) const { return a < b; }
};
struct LesserOrEqual {
  template <typename T>
  bool operator()(T a, T b) const { return a <= b; }
};
struct LogicalAnd {
  template <typename T>
  bool operator()(T a, T b) const { return a != T(0) && b != T(0); }
};
struct LogicalOr {
  template <typename T>
  bool operator()(T a, T b) const { return a != T(0) || b != T(0); }
};
struct LogicalXor {
  template <typename T>
  bool operator()(T a, T b) const { return (a != T(0)) != (b != T(0)); }
};
// prelu(x, slope) = x >= 0 ? x : slope * x
struct Prelu {
  template <typename T>
  T operator()(T x, T s) const { return x >= T(0) ? x : Mul()(x, s); }
};

// One segment of output: a and b advance by sa/sb (0 or 1). Separate loops per
// stride pattern so each one vectorizes.
template <typename In, typename Out, typename Op>
inline void segmentLoop(const In *a, int64_t sa, const In *b, int64_t sb, Out *o, int64_t n, Op op) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = Out(op(a[i], b[i]));
  } else if (sa == 0 && sb == 1) {
    In av = a[0];
    for (int64_t i = 0; i < n; ++i) o[i] = Out(op(av, b[i]));
  } else if (sa == 1 && sb == 0) {
    In bv = b[0];
    for (int64_t i = 0; i < n; ++i) o[i] = Out(op(a[i], bv));
  } else {
    Out v = Out(op(a[0], b[0]));
    for (int64_t i = 0; i < n; ++i) o[i] = v;
  }
}

// T is the stored element type (Half for float16); kCompare selects a uint8 result.
template <typename T, typename Op, bool kCompare>
class BinaryKernel final : public Kernel {
 public:
  explicit BinaryKernel(BroadcastPlan<2> plan) : plan_(std::move(plan)) {}
  Status run(const KernelContext &ctx) override {
    using Out = std::conditional_t<kCompare, uint8_t, T>;
    const T *a = in<T>(ctx, 0);
    const T *b = in<T>(ctx, 1);
    Out *o = outp<Out>(ctx, 0);
    parallelForUnits(ctx, plan_.total(), kGrain, [&](int64_t begin, int64_t end) {
      plan_.forSegments(begin, end, [&](const std::array<int64_t, 2> &off, int64_t oo, int64_t len,
                                        const std::array<int64_t, 2> &st) {
        if constexpr (std::is_same_v<T, Half>) {
          halfSegment(reinterpret_cast<const uint16_t *>(a) + off[0], st[0],
                      reinterpret_cast<const uint16_t *>(b) + off[1], st[1], o + oo, len);
        } else {
          segmentLoop(a + off[0], st[0], b + off[1], st[1], o + oo, len, Op());
        }
      });
    });
    return Status::ok();
  }

 private:
  template <typename Out>
  static void halfSegment(const uint16_t *a, int64_t sa, const uint16_t *b, int64_t sb, Out *o, int64_t n) {
    float fa[kChunk], fb[kChunk], fo[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      int64_t len = std::min(kChunk, n - i);
      if (sa) halfToFloatN(a + i, fa, len); else fa[0] = halfToFloat(a[0]);
      if (sb) halfToFloatN(b + i, fb, len); else fb[0] = halfToFloat(b[0]);
      if constexpr (kCompare) {
        segmentLoop(fa, sa, fb, sb, o + i, len, Op());
      } else {
        segmentLoop(fa, sa, fb, sb, fo, len, Op());
        floatToHalfN(fo, reinterpret_cast<uint16_t *>(o) + i, len);
      }
    }
  }

  BroadcastPlan<2> plan_;
};

template <typename Op, bool kCompare>
Status makeBinary(const NodeDesc &node, std::unique_ptr<Kernel> *out, std::initializer_list<DataType> allowed) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, 2, 1));
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, a, "first operand", allowed));
  if (b.dtype != a.dtype)
    return nodeError(node, "operand data types differ (" + std::string(dataTypeName(a.dtype)) + " vs " +
                               std::string(dataTypeName(b.dtype)) + ")");
  Shape shape;
  if (!broadcastShapes(a.shape, b.shape, &shape)) {
    return nodeError(node, "shapes " + shapeToString(a.shape) + " and " + shapeToString(b.shape) +
                               " are not broadcastable");
  }
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, shape, kCompare ? DataType::kUint8 : a.dtype));
  BroadcastPlan<2> plan;
  plan.init(shape, {&a.shape, &b.shape});
  dispatchType(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    *out = std::make_unique<BinaryKernel<T, Op, kCompare>>(std::move(plan));
  });
  return Status::ok();
}

// Arithmetic and comparisons also take float64 (the extension type): the
// same broadcasting kernel instantiated for double.
template <typename Op>
Status arithmetic(const NodeDesc &n, std::unique_ptr<Kernel> *o) {
  return makeBinary<Op, false>(n, o, kAllTypesF64);
}
template <typename Op>
Status comparison(const NodeDesc &n, std::unique_ptr<Kernel> *o) {
  return makeBinary<Op, true>(n, o, kAllTypesF64);
}
template <typename Op>
Status logical(const NodeDesc &n, std::unique_ptr<Kernel> *o) {
  return makeBinary<Op, true>(n, o, {DataType::kUint8});
}
// The spec broadcasts input and slope bidirectionally (output shape may be
// larger than the input's), like the dialect's inference.
Status makePrelu(const NodeDesc &n, std::unique_ptr<Kernel> *o) {
  return makeBinary<Prelu, false>(
      n, o, {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kInt64, DataType::kInt8});
}

}  // namespace

void registerBinaryKernels(KernelTable &t) {
  t.add("add", &arithmetic<Add>);
  t.add("sub", &arithmetic<Sub>);
  t.add("mul", &arithmetic<Mul>);
  t.add("div", &arithmetic<Div>);
  t.add("max", &arithmetic<Max>);
  t.add("min", &arithmetic<Min>);
  t.add("pow", &arithmetic<Pow>);
  t.add("equal", &comparison<Equal>);
  t.add("notEqual", &comparison<NotEqual>);
  t.add("greater", &comparison<Greater>);
  t.add("greaterOrEqual", &comparison<GreaterOrEqual>);
  t.add("lesser", &comparison<Lesser>);
  t.add("lesserOrEqual", &comparison<LesserOrEqual>);
  t.add("logicalAnd", &logical<LogicalAnd>);
  t.add("logicalOr", &logical<LogicalOr>);
  t.add("logicalXor", &logical<LogicalXor>);
  t.add("prelu", &makePrelu);
}

}  // namespace webnn::cpu::kernels
