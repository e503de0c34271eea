// Data types and shapes shared by the public API and the backends.
#ifndef WEBNN_TYPES_H
#define WEBNN_TYPES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace webnn {

// Values match webnn.artifact.DataType in schema/webnn_artifact.fbs.
enum class DataType : uint8_t {
  kFloat32 = 0, kFloat16 = 1, kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5,
  kInt8 = 6, kUint8 = 7, kInt4 = 8, kUint4 = 9,
};
constexpr int kNumDataTypes = 10;

// WebNN's name ("float32", "int4", ...).
std::string_view dataTypeName(DataType t);
bool parseDataTypeName(std::string_view name, DataType *out);
// Bits per element: 4 for int4/uint4, else 8 * bytes.
int dataTypeBits(DataType t);

using Shape = std::vector<int64_t>;

// Elements in `shape`; false on overflow past 2^62.
bool elementCount(const Shape &shape, int64_t *count);
// Bytes of a dense tensor (int4 packs two per byte, rounded up); false on overflow.
bool tensorByteSize(DataType t, const Shape &shape, uint64_t *bytes);
std::string shapeToString(const Shape &shape);

}  // namespace webnn

#endif
