// Data type names and shape arithmetic shared by the runtime and its tools.
#include "webnn/types.h"

#include <limits>

namespace webnn {
namespace {

constexpr std::string_view kNames[kNumDataTypes] = {
    "float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8", "int4", "uint4"};
constexpr int kBits[kNumDataTypes] = {32, 16, 32, 32, 64, 64, 8, 8, 4, 4};
// Element counts stop at 2^62 so that every later byte computation (at most 8
// bytes per element) still fits in int64/uint64 without a second check.
constexpr int64_t kMaxElements = int64_t(1) << 62;

}  // namespace

std::string_view dataTypeName(DataType t) {
  auto i = static_cast<unsigned>(t);
  return i < kNumDataTypes ? kNames[i] : std::string_view("<invalid>");
}

bool parseDataTypeName(std::string_view name, DataType *out) {
  for (int i = 0; i < kNumDataTypes; ++i) {
    if (kNames[i] == name) {
      *out = static_cast<DataType>(i);
      return true;
    }
  }
  return false;
}

int dataTypeBits(DataType t) {
  auto i = static_cast<unsigned>(t);
  return i < kNumDataTypes ? kBits[i] : 0;
}

bool elementCount(const Shape &shape, int64_t *count) {
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) zero = true;
    // Keep checking after a zero dimension: [0, 2^40, 2^40] is still a
    // malformed shape, not an empty tensor to wave through.
    if (d != 0 && n > kMaxElements / d) return false;
    if (d != 0) n *= d;
  }
  *count = zero ? 0 : n;
  return true;
}

bool tensorByteSize(DataType t, const Shape &shape, uint64_t *bytes) {
  int64_t n = 0;
  int bits = dataTypeBits(t);
  if (bits == 0 || !elementCount(shape, &n)) return false;
  *bytes = (static_cast<uint64_t>(n) * bits + 7) / 8;
  return true;
}

std::string shapeToString(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

}  // namespace webnn
