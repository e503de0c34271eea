// Helpers shared by the CPU kernel families: node validation with messages
// that name the op and node, data-type dispatch, and thread-pool splitting.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_COMMON_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_COMMON_H

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Float16.h"

namespace webnn::cpu::kernels {

// v, or 0 where v is below FLT_MIN (what a flush-to-zero gives). For kernels
// whose results are probabilities or exponentials read by FMAs afterwards: an
// Intel core takes a microcode assist per denormal operand, about 100x slower.
inline float flushBelowFltMin(float v) { return v < std::numeric_limits<float>::min() ? 0.f : v; }

// Every data type except the packed 4-bit ones.
inline constexpr std::initializer_list<DataType> kAllTypes = {
    DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint32,
    DataType::kInt64,   DataType::kUint64,  DataType::kInt8,  DataType::kUint8};
inline constexpr std::initializer_list<DataType> kFloatTypes = {DataType::kFloat32, DataType::kFloat16};
// The same lists plus the float64 extension, for the kernels that have a
// float64 form (docs/OPS.md, "float64"; the dialect's *OrF64 constraints).
inline constexpr std::initializer_list<DataType> kAllTypesF64 = {
    DataType::kFloat32, DataType::kFloat16, DataType::kFloat64, DataType::kInt32, DataType::kUint32,
    DataType::kInt64,   DataType::kUint64,  DataType::kInt8,    DataType::kUint8};
inline constexpr std::initializer_list<DataType> kFloatTypesF64 = {DataType::kFloat32, DataType::kFloat16,
                                                                   DataType::kFloat64};

// "<op> node '<name>': <msg>"
Status nodeError(const NodeDesc &node, const std::string &msg);
Status nodeUnsupported(const NodeDesc &node, const std::string &msg);

// Checks operand counts: inputs in [minIn, maxIn] (absent optionals count as
// present slots), exactly numOut outputs, required inputs/outputs non-null.
Status checkArity(const NodeDesc &node, size_t minIn, size_t maxIn, size_t numOut);
// `what` names the operand in the message ("input", "filter").
Status checkDataType(const NodeDesc &node, const OperandDesc &operand, const char *what,
                     std::initializer_list<DataType> allowed);
// Output `index` must have exactly `shape` and `dtype`.
Status checkOutput(const NodeDesc &node, size_t index, const Shape &shape, DataType dtype);
// Kind mismatches seen while reading attributes.
Status checkAttributes(const NodeDesc &node);

int64_t numElements(const Shape &shape);  // shape already validated by the loader
size_t elementBytes(DataType t);          // 0 for int4/uint4
std::vector<int64_t> contiguousStrides(const Shape &shape);  // in elements
bool isFloat(DataType t);

// Normalizes a possibly negative axis; false when out of [-rank, rank).
bool normalizeAxis(int64_t axis, size_t rank, int64_t *out);

// Splits [0, n) over the context's pool. Small problems run inline.
void parallelFor(const KernelContext &ctx, int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &fn);

// Like parallelFor, in units of at least `grain` and about kUnitsPerThread
// per thread (ThreadPool::parallelForUnits): a thread that finishes its
// share takes units from a slower one's (a VM's vCPUs do not run at one
// speed). For loop bodies with no per-chunk or per-thread state.
constexpr int64_t kUnitsPerThread = 8;
void parallelForUnits(const KernelContext &ctx, int64_t n, int64_t grain,
                      const std::function<void(int64_t, int64_t)> &fn);

// Calls f(T{}) with the C++ element type of `t` (Half for float16, double for
// float64). int4/uint4 must have been rejected by the factory.
template <typename F>
decltype(auto) dispatchType(DataType t, F &&f) {
  switch (t) {
    case DataType::kFloat32: return f(float{});
    case DataType::kFloat16: return f(Half{});
    case DataType::kFloat64: return f(double{});
    case DataType::kInt32: return f(int32_t{});
    case DataType::kUint32: return f(uint32_t{});
    case DataType::kInt64: return f(int64_t{});
    case DataType::kUint64: return f(uint64_t{});
    case DataType::kInt8: return f(int8_t{});
    default: return f(uint8_t{});
  }
}

// Calls f(T{}) with an unsigned type of the element's width, for data movement.
template <typename F>
decltype(auto) dispatchBytes(size_t bytes, F &&f) {
  switch (bytes) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

// Whether a relaxed-precision node will run in bf16 on oneDNN (the CPU has
// it): our float32 kernels then leave it alone; where bf16 is missing they
// take relaxed nodes too, bit-identical to an exact artifact.
bool relaxedRunsBf16(const NodeDesc &node);

// Creates a kernel for a float-only op on float16 operands: converts float16
// constants to float32 once, builds the float32 kernel with `f32Factory`, and at
// run time converts float16 inputs in and outputs back (one rounding per
// output, as the spec's float16 precision allows). Non-float16 operands pass
// through untouched.
Status makeFloat16Adapter(const NodeDesc &node, KernelFactory f32Factory, std::unique_ptr<Kernel> *out);
bool anyFloat16(const NodeDesc &node);

// Pair kernels (makeCpuKernelPair) run two nodes as one, but the arena plan
// knows nothing of pairs: the producer's input dies at the producer, so the
// pair's output may be placed over it. pairOutputOverlaps says whether the
// byte ranges [a, a + aBytes) and [b, b + bBytes) share a byte; then the pair
// runs its steps apart through pairIntermediate, the intermediate's own arena
// bytes (input `i`: live at both nodes, so apart from both), an internal
// error naming `what` if it has none.
bool pairOutputOverlaps(const void *a, size_t aBytes, const void *b, size_t bBytes);
Status pairIntermediate(const KernelContext &ctx, size_t i, const char *what, float **out);

// Pointer helpers.
template <typename T>
inline const T *in(const KernelContext &ctx, size_t i) {
  return static_cast<const T *>(ctx.inputs[i]->data);
}
template <typename T>
inline T *outp(const KernelContext &ctx, size_t i) {
  return static_cast<T *>(ctx.outputs[i]->data);
}

}  // namespace webnn::cpu::kernels

#endif
