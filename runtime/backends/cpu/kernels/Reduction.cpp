// reduce* over a set of axes, and argMin/argMax along one axis.
//
// The plan drops size-1 dims and merges adjacent dims that are both kept or
// both reduced, so what is left alternates kept/reduced groups. If the
// innermost group is reduced, each output is a sum over contiguous rows
// (vectorized with 16 partial accumulators); if it is kept, a block of
// adjacent outputs accumulates whole input rows at once. Both split outputs
// over threads, so no two threads write the same output.
//
// Reducing over no axes (axes = []) maps each element through the op (abs for
// L1, square for sumSquare, log for logSum, ...). An empty reduction (a reduced
// dim of size 0) yields the op's identity: 0 for sums, 1 for product, -inf/+inf
// (the type's lowest/highest for integers) for max/min, NaN for mean.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

enum class Kind { kSum, kMean, kL1, kL2, kSumSquare, kLogSum, kLogSumExp, kMax, kMin, kProduct, kSumExp };

// float32 accumulates in float32, float64 in float64, integers in 64 bits.
template <typename T>
using AccOf = std::conditional_t<std::is_floating_point_v<T>, T,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <Kind K, typename A>
inline A initValue() {
  if constexpr (K == Kind::kMax)
    return std::is_floating_point_v<A> ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::lowest();
  else if constexpr (K == Kind::kMin)
    return std::is_floating_point_v<A> ? std::numeric_limits<A>::infinity() : std::numeric_limits<A>::max();
  else if constexpr (K == Kind::kProduct)
    return A(1);
  else
    return A(0);
}

template <Kind K, typename A>
inline A step(A acc, A x, A shift) {
  if constexpr (K == Kind::kMax) return x > acc ? x : acc;
  else if constexpr (K == Kind::kMin) return x < acc ? x : acc;
  else if constexpr (K == Kind::kProduct) {
    if constexpr (std::is_integral_v<A>) return A(std::make_unsigned_t<A>(acc) * std::make_unsigned_t<A>(x));
    else return acc * x;
  } else if constexpr (K == Kind::kL1) {
    if constexpr (std::is_unsigned_v<A>) return acc + x;
    else return acc + (x < A(0) ? A(0) - x : x);
  } else if constexpr (K == Kind::kL2 || K == Kind::kSumSquare) {
    if constexpr (std::is_integral_v<A>) return A(std::make_unsigned_t<A>(acc) + std::make_unsigned_t<A>(x) * std::make_unsigned_t<A>(x));
    else return acc + x * x;
  } else if constexpr (K == Kind::kSumExp) {
    return acc + std::exp(x - shift);
  } else {
    if constexpr (std::is_integral_v<A>) return A(std::make_unsigned_t<A>(acc) + std::make_unsigned_t<A>(x));
    else return acc + x;
  }
}

// How two partial accumulators merge.
template <Kind K, typename A>
inline A merge(A a, A b) {
  if constexpr (K == Kind::kMax) return b > a ? b : a;
  else if constexpr (K == Kind::kMin) return b < a ? b : a;
  else if constexpr (K == Kind::kProduct) return step<Kind::kProduct, A>(a, b, A(0));
  else if constexpr (std::is_integral_v<A>) return A(std::make_unsigned_t<A>(a) + std::make_unsigned_t<A>(b));
  else return a + b;
}

template <Kind K, typename A>
inline A finish(A acc, int64_t count) {
  if constexpr (K == Kind::kMean) return acc / A(count);
  else if constexpr (K == Kind::kL2) return std::sqrt(acc);
  else if constexpr (K == Kind::kLogSum) return std::log(acc);
  else return acc;
}

// Iterates the offsets of a set of (dim, stride) pairs, innermost last.
struct Odometer {
  std::vector<int64_t> dims, strides;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  int64_t offsetOf(int64_t index) const {
    int64_t off = 0;
    for (size_t i = dims.size(); i-- > 0;) {
      off += (index % dims[i]) * strides[i];
      index /= dims[i];
    }
    return off;
  }
  template <typename F>
  void forEach(F &&f) const {
    int64_t n = count();
    if (n == 0) return;
    if (dims.empty()) {
      f(int64_t(0));
      return;
    }
    int64_t c[16] = {0};
    int64_t off = 0;
    for (int64_t it = 0; it < n; ++it) {
      f(off);
      for (size_t i = dims.size(); i-- > 0;) {
        off += strides[i];
        if (++c[i] < dims[i]) break;
        off -= c[i] * strides[i];
        c[i] = 0;
      }
    }
  }
};

struct ReducePlan {
  bool innerReduced = false;
  int64_t inner = 1;     // length of the innermost (contiguous) group
  Odometer kept;         // kept groups, excluding the innermost when it is kept
  Odometer reduced;      // reduced groups, excluding the innermost when it is reduced
  int64_t reducedCount = 1;
  int64_t numOutputs = 1;
};

// Groups dims (size-1 dims dropped) into alternating kept/reduced runs.
Status planReduction(const NodeDesc &node, const Shape &shape, const std::vector<bool> &isReduced, ReducePlan *plan) {
  std::vector<int64_t> dims, strides;
  std::vector<bool> red;
  std::vector<int64_t> cs = contiguousStrides(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!dims.empty() && red.back() == isReduced[i]) {
      dims.back() *= shape[i];
      strides.back() = cs[i];
      continue;
    }
    dims.push_back(shape[i]);
    strides.push_back(cs[i]);
    red.push_back(isReduced[i]);
  }
  if (dims.empty()) {
    dims.push_back(1);
    strides.push_back(1);
    red.push_back(false);
  }
  if (dims.size() > 15) return nodeUnsupported(node, "too many alternating reduced/kept dimensions");
  plan->innerReduced = red.back();
  plan->inner = dims.back();
  plan->reducedCount = 1;
  plan->numOutputs = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    (red[i] ? plan->reducedCount : plan->numOutputs) *= dims[i];
    if (i + 1 == dims.size()) continue;
    Odometer &o = red[i] ? plan->reduced : plan->kept;
    o.dims.push_back(dims[i]);
    o.strides.push_back(strides[i]);
  }
  return Status::ok();
}

template <typename T, Kind K>
class ReduceKernel final : public Kernel {
  using A = AccOf<T>;

 public:
  explicit ReduceKernel(ReducePlan plan) : p_(std::move(plan)) {}

  Status run(const KernelContext &ctx) override {
    const T *x = in<T>(ctx, 0);
    T *y = outp<T>(ctx, 0);
    if (p_.innerReduced) {
      parallelFor(ctx, p_.numOutputs, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, p_.reducedCount)),
                  [&](int64_t b, int64_t e) {
                    for (int64_t o = b; o < e; ++o) y[o] = T(reduceOne(x + p_.kept.offsetOf(o)));
                  });
    } else {
      int64_t rows = p_.numOutputs / std::max<int64_t>(1, p_.inner);
      if (p_.inner == 0) return Status::ok();
      parallelFor(ctx, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, p_.reducedCount * p_.inner)),
                  [&](int64_t b, int64_t e) {
                    for (int64_t r = b; r < e; ++r) reduceRow(x + p_.kept.offsetOf(r), y + r * p_.inner);
                  });
    }
    return Status::ok();
  }

 private:
  template <Kind Q>
  A rowReduce(const T *x, int64_t n, A shift) const {
    constexpr int kLanes = 16;
    A lanes[kLanes];
    for (A &l : lanes) l = initValue<Q, A>();
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int j = 0; j < kLanes; ++j) lanes[j] = step<Q, A>(lanes[j], A(x[i + j]), shift);
    for (; i < n; ++i) lanes[0] = step<Q, A>(lanes[0], A(x[i]), shift);
    A acc = lanes[0];
    for (int j = 1; j < kLanes; ++j) acc = merge<Q, A>(acc, lanes[j]);
    return acc;
  }

  template <Kind Q>
  A reduceAll(const T *base, A shift) const {
    A acc = initValue<Q, A>();
    p_.reduced.forEach([&](int64_t off) { acc = merge<Q, A>(acc, rowReduce<Q>(base + off, p_.inner, shift)); });
    return acc;
  }

  A reduceOne(const T *base) const {
    if constexpr (K == Kind::kLogSumExp) {
      A m = reduceAll<Kind::kMax>(base, A(0));
      A shift = std::isfinite(m) ? m : A(0);
      return shift + std::log(reduceAll<Kind::kSumExp>(base, shift));
    } else {
      return finish<K, A>(reduceAll<K>(base, A(0)), p_.reducedCount);
    }
  }

  template <Kind Q>
  void accumulateRows(const T *base, int64_t len, A *acc, const A *shift) const {
    for (int64_t j = 0; j < len; ++j) acc[j] = initValue<Q, A>();
    p_.reduced.forEach([&](int64_t off) {
      const T *row = base + off;
      for (int64_t j = 0; j < len; ++j) acc[j] = step<Q, A>(acc[j], A(row[j]), shift ? shift[j] : A(0));
    });
  }

  void reduceRow(const T *base, T *out) const {
    constexpr int64_t kBlock = 256;
    A acc[kBlock];
    for (int64_t j0 = 0; j0 < p_.inner; j0 += kBlock) {
      int64_t len = std::min(kBlock, p_.inner - j0);
      if constexpr (K == Kind::kLogSumExp) {
        A shift[kBlock];
        accumulateRows<Kind::kMax>(base + j0, len, shift, nullptr);
        for (int64_t j = 0; j < len; ++j)
          if (!std::isfinite(shift[j])) shift[j] = A(0);
        accumulateRows<Kind::kSumExp>(base + j0, len, acc, shift);
        for (int64_t j = 0; j < len; ++j) out[j0 + j] = T(shift[j] + std::log(acc[j]));
      } else {
        accumulateRows<K>(base + j0, len, acc, nullptr);
        for (int64_t j = 0; j < len; ++j) out[j0 + j] = T(finish<K, A>(acc[j], p_.reducedCount));
      }
    }
  }

  ReducePlan p_;
};

// Reads `axes` (absent = all) into a per-dim mask.
Status readAxes(const NodeDesc &node, size_t rank, std::vector<bool> *mask) {
  mask->assign(rank, false);
  if (!node.attributes.has("axes")) {
    mask->assign(rank, true);
    return Status::ok();
  }
  std::vector<int64_t> axes = node.attributes.getInts("axes", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  for (int64_t a : axes) {
    int64_t n;
    if (!normalizeAxis(a, rank, &n)) return nodeError(node, "axis " + std::to_string(a) + " is out of range");
    if ((*mask)[n]) return nodeError(node, "axis " + std::to_string(a) + " appears twice");
    (*mask)[n] = true;
  }
  return Status::ok();
}

Shape reducedShape(const Shape &in, const std::vector<bool> &mask, bool keep) {
  Shape s;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!mask[i]) s.push_back(in[i]);
    else if (keep) s.push_back(1);
  }
  return s;
}

template <Kind K>
Status makeReduce(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  constexpr bool kFloatOnly = K == Kind::kMean || K == Kind::kL2 || K == Kind::kLogSum || K == Kind::kLogSumExp;
  constexpr bool kAnyType = K == Kind::kMax || K == Kind::kMin;
  if (kFloatOnly)
    WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypesF64));
  else if (kAnyType)
    WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kAllTypesF64));
  else
    WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input",
                                        {DataType::kFloat32, DataType::kFloat16, DataType::kFloat64,
                                         DataType::kInt32, DataType::kUint32, DataType::kInt64,
                                         DataType::kUint64}));
  std::vector<bool> mask;
  WEBNN_RETURN_IF_ERROR(readAxes(node, x.shape.size(), &mask));
  bool keep = node.attributes.getBool("keepDimensions", false);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, reducedShape(x.shape, mask, keep), x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeReduce<K>, out);
  ReducePlan plan;
  WEBNN_RETURN_IF_ERROR(planReduction(node, x.shape, mask, &plan));
  dispatchType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, Half>) *out = std::make_unique<ReduceKernel<T, K>>(std::move(plan));
  });
  return Status::ok();
}

// ---- argMin / argMax: index of the first extreme element along `axis`.
template <typename T, typename I, bool kMax>
class ArgKernel final : public Kernel {
 public:
  ArgKernel(int64_t outer, int64_t n, int64_t inner) : outer_(outer), n_(n), inner_(inner) {}
  Status run(const KernelContext &ctx) override {
    const T *x = in<T>(ctx, 0);
    I *y = outp<I>(ctx, 0);
    parallelFor(ctx, outer_, 1, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T *base = x + o * n_ * inner_;
        I *dst = y + o * inner_;
        for (int64_t j = 0; j < inner_; ++j) {
          T best = base[j];
          int64_t bi = 0;
          for (int64_t k = 1; k < n_; ++k) {
            T v = base[k * inner_ + j];
            if (kMax ? (v > best) : (v < best)) {
              best = v;
              bi = k;
            }
          }
          dst[j] = I(bi);
        }
      }
    });
    return Status::ok();
  }

 private:
  int64_t outer_, n_, inner_;
};

template <bool kMax>
Status makeArg(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kAllTypesF64));
  if (!node.attributes.has("axis")) return nodeError(node, "missing required attribute 'axis'");
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  bool keep = node.attributes.getBool("keepDimensions", false);
  std::string outType = node.attributes.getString("outputDataType", "int32");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x.shape.size(), &axis))
    return nodeError(node, "axis " + std::to_string(axisAttr) + " is out of range for rank " +
                               std::to_string(x.shape.size()));
  DataType it;
  if (!parseDataTypeName(outType, &it) || (it != DataType::kInt32 && it != DataType::kInt64))
    return nodeError(node, "outputDataType must be int32 or int64, got '" + outType + "'");
  std::vector<bool> mask(x.shape.size(), false);
  mask[axis] = true;
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, reducedShape(x.shape, mask, keep), it));
  if (x.shape[axis] == 0 && numElements(x.shape) == 0 && numElements(node.outputs[0]->shape) > 0)
    return nodeError(node, "cannot take argMin/argMax over an empty axis");
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeArg<kMax>, out);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  dispatchType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, Half>) {
      if (it == DataType::kInt32)
        *out = std::make_unique<ArgKernel<T, int32_t, kMax>>(outer, x.shape[axis], inner);
      else
        *out = std::make_unique<ArgKernel<T, int64_t, kMax>>(outer, x.shape[axis], inner);
    }
  });
  return Status::ok();
}

}  // namespace

// ---- cumulativeSum: running sum along one axis, inclusive or exclusive,
// forward or reversed. Floats accumulate in double (one rounding per output);
// integers accumulate in the unsigned type of their width, so overflow wraps
// instead of being undefined.
template <typename T, bool = std::is_floating_point_v<T>>
struct ScanAccumulator {
  using type = double;
};
template <typename T>
struct ScanAccumulator<T, false> {
  using type = std::make_unsigned_t<T>;
};

template <typename T>
class CumulativeSumKernel final : public Kernel {
 public:
  CumulativeSumKernel(int64_t outer, int64_t axis, int64_t inner, bool exclusive, bool reversed)
      : outer_(outer), axis_(axis), inner_(inner), exclusive_(exclusive), reversed_(reversed) {}
  Status run(const KernelContext &ctx) override {
    using Acc = typename ScanAccumulator<T>::type;
    const T *x = in<T>(ctx, 0);
    T *y = outp<T>(ctx, 0);
    parallelFor(ctx, outer_ * inner_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, axis_)), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t o = t / inner_, k = t % inner_;
        const T *src = x + o * axis_ * inner_ + k;
        T *dst = y + o * axis_ * inner_ + k;
        Acc acc = 0;
        for (int64_t j = 0; j < axis_; ++j) {
          int64_t a = reversed_ ? axis_ - 1 - j : j;
          Acc v = Acc(src[a * inner_]);
          if (exclusive_) {
            dst[a * inner_] = T(acc);
            acc += v;
          } else {
            acc += v;
            dst[a * inner_] = T(acc);
          }
        }
      }
    });
    return Status::ok();
  }

 private:
  int64_t outer_, axis_, inner_;
  bool exclusive_, reversed_;
};

Status makeCumulativeSum(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 1, 1, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input",
                                      {DataType::kFloat32, DataType::kFloat16, DataType::kFloat64, DataType::kInt32,
                                       DataType::kUint32, DataType::kInt64, DataType::kUint64}));
  if (!node.attributes.has("axis")) return nodeError(node, "missing required attribute 'axis'");
  int64_t axisAttr = node.attributes.getInt("axis", 0);
  bool exclusive = node.attributes.getBool("exclusive", false);
  bool reversed = node.attributes.getBool("reversed", false);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (x.shape.empty()) return nodeError(node, "input must have rank >= 1");
  if (axisAttr < 0 || axisAttr >= int64_t(x.shape.size())) return nodeError(node, "axis is out of range");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, x.dtype));
  if (x.dtype == DataType::kFloat16) return makeFloat16Adapter(node, &makeCumulativeSum, out);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axisAttr; ++i) outer *= x.shape[size_t(i)];
  for (size_t i = size_t(axisAttr) + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  int64_t axis = x.shape[size_t(axisAttr)];
  dispatchType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, Half>)
      *out = std::make_unique<CumulativeSumKernel<T>>(outer, axis, inner, exclusive, reversed);
  });
  return Status::ok();
}

void registerReductionKernels(KernelTable &t) {
  t.add("cumulativeSum", &makeCumulativeSum);
  t.add("reduceL1", &makeReduce<Kind::kL1>);
  t.add("reduceL2", &makeReduce<Kind::kL2>);
  t.add("reduceLogSum", &makeReduce<Kind::kLogSum>);
  t.add("reduceLogSumExp", &makeReduce<Kind::kLogSumExp>);
  t.add("reduceMax", &makeReduce<Kind::kMax>);
  t.add("reduceMean", &makeReduce<Kind::kMean>);
  t.add("reduceMin", &makeReduce<Kind::kMin>);
  t.add("reduceProduct", &makeReduce<Kind::kProduct>);
  t.add("reduceSum", &makeReduce<Kind::kSum>);
  t.add("reduceSumSquare", &makeReduce<Kind::kSumSquare>);
  t.add("argMax", &makeArg<true>);
  t.add("argMin", &makeArg<false>);
}

}  // namespace webnn::cpu::kernels
