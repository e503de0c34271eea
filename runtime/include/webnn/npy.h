// NumPy .npy files (format versions 1.0, 2.0, 3.0): the tensors webnn-run and
// the tests exchange with Python.
//
// Little-endian, C-order arrays of <f4 <f2 <i4 <u4 <i8 <u8 |i1 |u1 (WebNN's
// types) and <f8 <i2 <u2 |b1 (float64, int16, uint16, bool: interface-only
// types of models that declare them; a bool element is one byte, read as
// written: the session maps nonzero to 1). numpy has no bfloat16: header() describes it as
// its raw bits (<u2); webnn-run exchanges bfloat16 as float32 instead.
// int4/uint4 tensors travel as one int8/uint8 element per value (numpy has no
// 4-bit type); packInt4/unpackInt4 convert to and from WebNN's packed layout
// (two per byte, low nibble first).
#ifndef WEBNN_NPY_H
#define WEBNN_NPY_H

#include <cstdint>
#include <string>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)  // exported from libwebnn.so (runtime/CMakeLists.txt)
#endif

namespace webnn::npy {

struct Array {
  DataType dtype = DataType::kFloat32;  // never int4/uint4/bfloat16
  Shape shape;
  std::vector<uint8_t> data;  // C-order element bytes
};

// Reads `path`; every error message starts with the path.
Status read(const std::string &path, Array *out);
// Parses a whole .npy image held in memory; `label` prefixes messages.
Status parse(const uint8_t *bytes, size_t size, const std::string &label, Array *out);

// The .npy header (magic through the newline, padded to 64 bytes) for a
// C-order array; int4/uint4 are described as int8/uint8.
std::string header(DataType dtype, const Shape &shape);
// Writes header + data to `path` through a temporary file in the same
// directory, renamed into place: readers never see a partial file.
Status write(const std::string &path, DataType dtype, const Shape &shape, const void *data, size_t bytes);

// int8 in [-8, 7] (int4) or uint8 in [0, 15] (uint4) -> packed nibbles.
Status packInt4(DataType dtype, const uint8_t *unpacked, int64_t count, uint8_t *packed);
// Packed nibbles -> one int8 (sign-extended) or uint8 per element.
void unpackInt4(DataType dtype, const uint8_t *packed, int64_t count, uint8_t *unpacked);

}  // namespace webnn::npy

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
