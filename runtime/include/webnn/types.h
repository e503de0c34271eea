// Data types and shapes shared by the public API and the backends.
#ifndef WEBNN_TYPES_H
#define WEBNN_TYPES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#if defined(__GNUC__)
#pragma GCC visibility push(default)  // exported from libwebnn.so (runtime/CMakeLists.txt)
#endif

namespace webnn {

// Values match webnn.artifact.DataType in schema/webnn_artifact.fbs.
// kFloat32 .. kUint4 are WebNN's operand types; kFloat64 is an operand type
// too, an extension beyond WebNN (graphs compiled from float64 models compute
// in it when every op has a float64 kernel). kFloat64 .. kBfloat16 are also
// interface types: a graph input or output may be exchanged in them (its
// source model declared a type the graph does not compute in) while the graph
// computes in computeTypeOf(t). kInt16 .. kBool are interface-only: no
// tensor inside a graph has them. kBool is one byte per element, 0 or 1
// (numpy's bool), computed as uint8: WebNN has no boolean type and its logical
// ops produce uint8 0/1.
enum class DataType : uint8_t {
  kFloat32 = 0, kFloat16 = 1, kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5,
  kInt8 = 6, kUint8 = 7, kInt4 = 8, kUint4 = 9,
  kFloat64 = 10, kInt16 = 11, kUint16 = 12, kBfloat16 = 13, kBool = 14,
};
constexpr int kNumDataTypes = 11;           // operand types: WebNN's [0, 10) and float64
constexpr int kNumInterfaceDataTypes = 15;  // plus the interface-only ones

// The name ("float32", "int4", "float64", ...).
std::string_view dataTypeName(DataType t);
// Operand types only, float64 included (kernels parse option values with it).
bool parseDataTypeName(std::string_view name, DataType *out);
// Bits per element: 4 for int4/uint4, else 8 * bytes.
int dataTypeBits(DataType t);

// The WebNN type a graph computes an interface type in: float64 and
// bfloat16 -> float32, int16 and uint16 -> int32, bool -> uint8; a WebNN type
// is its own.
// (A float64 tensor of a graph that computes in float64 has no interface
// type: the narrowing applies only when the artifact records one.)
DataType computeTypeOf(DataType t);
// True when a graph input or output of type `dtype` may be exchanged as
// `iface` (Tensor.interface_type): iface != dtype == computeTypeOf(iface).
bool isInterfaceTypeOf(DataType iface, DataType dtype);
// Converts `count` elements between an interface-only type and its compute
// type, either way (or copies, when from == to). Narrowing rounds float32 to
// the nearest float64/bfloat16 (ties to even) and keeps an int32's low 16 bits
// (what int16 arithmetic wraps to). bool <-> uint8 both ways maps every
// nonzero byte to 1 (what numpy's astype(bool) does), so a graph sees only 0
// and 1 and a caller never receives a bool byte numpy would not write. False,
// doing nothing, for any other pair.
bool convertElements(DataType from, const void *src, DataType to, void *dst, int64_t count);

using Shape = std::vector<int64_t>;

// Elements in `shape`; false past 2^56 (so byte and bit sizes cannot overflow).
bool elementCount(const Shape &shape, int64_t *count);
// Bytes of a dense tensor (int4 packs two per byte, rounded up); false on overflow.
bool tensorByteSize(DataType t, const Shape &shape, uint64_t *bytes);
std::string shapeToString(const Shape &shape);

}  // namespace webnn

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
