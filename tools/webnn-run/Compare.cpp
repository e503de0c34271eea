#include "Compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace webnnrun {
namespace {

float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF, bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: renormalize
    exp = 113;
    while (!(mant & 0x400)) { mant <<= 1; --exp; }
    bits = sign | (exp << 23) | ((mant & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Element `i` as a double (exact for every WebNN type but 64-bit integers
// beyond 2^53, which are compared bitwise instead).
double valueAt(webnn::DataType t, const uint8_t *p, int64_t i) {
  using webnn::DataType;
  switch (t) {
    case DataType::kFloat32: { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DataType::kFloat16: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return halfToFloat(v); }
    case DataType::kInt32: { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DataType::kUint32: { uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DataType::kInt64: { int64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<double>(v); }
    case DataType::kUint64: { uint64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<double>(v); }
    case DataType::kInt8: case DataType::kInt4: return static_cast<int8_t>(p[i]);
    case DataType::kUint8: case DataType::kUint4: return p[i];
    case DataType::kFloat64: { double v; std::memcpy(&v, p + 8 * i, 8); return v; }
    case DataType::kInt16: { int16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case DataType::kUint16: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case DataType::kBfloat16: return 0;  // compared as float32 (its .npy type)
    case DataType::kBool: return p[i] != 0;
  }
  return 0;
}

}  // namespace

Comparison compareOutput(webnn::DataType dtype, const webnn::Shape &shape, const uint8_t *got,
                         const webnn::npy::Array &want, double rtol, double atol) {
  Comparison c;
  const webnn::DataType wire =
      dtype == webnn::DataType::kInt4 ? webnn::DataType::kInt8
      : dtype == webnn::DataType::kUint4 ? webnn::DataType::kUint8
      : dtype == webnn::DataType::kBfloat16 ? webnn::DataType::kFloat32 : dtype;
  // A bool output may be checked against a uint8 reference of 0/1 (numpy
  // code that predates bool .npy support): both are one byte per element.
  const bool boolAsUint8 = dtype == webnn::DataType::kBool && want.dtype == webnn::DataType::kUint8;
  if ((want.dtype != wire && !boolAsUint8) || want.shape != shape) {
    c.ok = false;
    c.problem = "expected array is " + std::string(webnn::dataTypeName(want.dtype)) + " " +
                webnn::shapeToString(want.shape) + " but the output is " +
                std::string(webnn::dataTypeName(dtype)) + " " + webnn::shapeToString(shape);
    return c;
  }
  int64_t count = 0;
  webnn::elementCount(shape, &count);
  const bool isFloat = wire == webnn::DataType::kFloat32 || wire == webnn::DataType::kFloat16 ||
                       wire == webnn::DataType::kFloat64;
  const size_t elemBytes = static_cast<size_t>(webnn::dataTypeBits(wire) / 8);
  for (int64_t i = 0; i < count; ++i) {
    bool bad;
    double g = valueAt(wire, got, i), w = valueAt(want.dtype, want.data.data(), i);
    if (isFloat) {
      double err = std::fabs(g - w);
      bool bothNaN = std::isnan(g) && std::isnan(w);
      bad = !bothNaN && !(g == w) && !(err <= atol + rtol * std::fabs(w));
      if (!bothNaN && std::isfinite(err)) {
        c.maxAbsError = std::max(c.maxAbsError, err);
        if (w != 0) c.maxRelError = std::max(c.maxRelError, err / std::fabs(w));
      }
    } else if (boolAsUint8) {
      bad = g != w;
    } else {
      bad = std::memcmp(got + i * elemBytes, want.data.data() + i * elemBytes, elemBytes) != 0;
    }
    if (bad && c.mismatches++ == 0) {
      std::ostringstream os;
      os.precision(9);
      os << "element " << i << " is " << g << ", expected " << w;
      c.problem = os.str();
    }
  }
  if (c.mismatches) {
    c.ok = false;
    std::ostringstream os;
    os << c.mismatches << " of " << count << " elements differ (rtol " << rtol << ", atol "
       << atol << "); first: " << c.problem;
    c.problem = os.str();
  }
  return c;
}

}  // namespace webnnrun
