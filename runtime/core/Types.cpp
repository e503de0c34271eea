// Data type names and shape arithmetic shared by the runtime and its tools.
#include "webnn/types.h"

#include <cstring>
#include <limits>

namespace webnn {
namespace {

constexpr std::string_view kNames[kNumInterfaceDataTypes] = {
    "float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8", "int4", "uint4",
    "float64", "int16", "uint16", "bfloat16", "bool"};
constexpr int kBits[kNumInterfaceDataTypes] = {32, 16, 32, 32, 64, 64, 8, 8, 4, 4, 64, 16, 16, 16, 8};
// Element counts stop at 2^56 so that every later size computation, in bits
// (tensorByteSize: count * 64) or in bytes, fits in int64/uint64 without a
// second check.
constexpr int64_t kMaxElements = int64_t(1) << 56;

}  // namespace

std::string_view dataTypeName(DataType t) {
  auto i = static_cast<unsigned>(t);
  return i < kNumInterfaceDataTypes ? kNames[i] : std::string_view("<invalid>");
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
  return i < kNumInterfaceDataTypes ? kBits[i] : 0;
}

DataType computeTypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat64:
    case DataType::kBfloat16: return DataType::kFloat32;
    case DataType::kInt16:
    case DataType::kUint16: return DataType::kInt32;
    case DataType::kBool: return DataType::kUint8;
    default: return t;
  }
}

bool isInterfaceTypeOf(DataType iface, DataType dtype) {
  return static_cast<unsigned>(iface) < unsigned(kNumInterfaceDataTypes) && iface != dtype &&
         computeTypeOf(iface) == dtype;
}

namespace {

// float32 -> bfloat16 bits, round to nearest, ties to even; NaN stays a
// (quiet) NaN instead of rounding into infinity.
uint16_t floatToBfloat16(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t lsb = (bits >> 16) & 1;
  return static_cast<uint16_t>((bits + 0x7fffu + lsb) >> 16);
}

template <typename From, typename To, typename Fn>
void convertEach(const void *src, void *dst, int64_t count, Fn fn) {
  const auto *in = static_cast<const uint8_t *>(src);
  auto *out = static_cast<uint8_t *>(dst);
  for (int64_t i = 0; i < count; ++i) {
    From f;
    std::memcpy(&f, in + i * sizeof(From), sizeof(From));
    To t = fn(f);
    std::memcpy(out + i * sizeof(To), &t, sizeof(To));
  }
}

}  // namespace

bool convertElements(DataType from, const void *src, DataType to, void *dst, int64_t count) {
  using D = DataType;
  if (count < 0) return false;
  if (from == to) {
    uint64_t bytes = 0;
    if (!tensorByteSize(from, {count}, &bytes)) return false;
    if (bytes) std::memmove(dst, src, bytes);
    return true;
  }
  if (from == D::kFloat64 && to == D::kFloat32)
    convertEach<double, float>(src, dst, count, [](double d) { return static_cast<float>(d); });
  else if (from == D::kFloat32 && to == D::kFloat64)
    convertEach<float, double>(src, dst, count, [](float f) { return static_cast<double>(f); });
  else if (from == D::kBfloat16 && to == D::kFloat32)
    convertEach<uint16_t, uint32_t>(src, dst, count, [](uint16_t b) { return uint32_t(b) << 16; });
  else if (from == D::kFloat32 && to == D::kBfloat16)
    convertEach<uint32_t, uint16_t>(src, dst, count, floatToBfloat16);
  else if (from == D::kInt16 && to == D::kInt32)
    convertEach<int16_t, int32_t>(src, dst, count, [](int16_t v) { return int32_t(v); });
  else if (from == D::kUint16 && to == D::kInt32)
    convertEach<uint16_t, int32_t>(src, dst, count, [](uint16_t v) { return int32_t(v); });
  else if ((from == D::kBool && to == D::kUint8) || (from == D::kUint8 && to == D::kBool))
    convertEach<uint8_t, uint8_t>(src, dst, count, [](uint8_t v) { return uint8_t(v != 0); });
  else if (from == D::kInt32 && (to == D::kInt16 || to == D::kUint16))
    convertEach<uint32_t, uint16_t>(src, dst, count, [](uint32_t v) { return uint16_t(v & 0xffffu); });
  else
    return false;
  return true;
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
