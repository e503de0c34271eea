// Output checking for `webnn-run --expected NAME=FILE.npy`: the graph's output
// against a reference array, elementwise |got - want| <= atol + rtol * |want|.
#ifndef WEBNN_RUN_COMPARE_H
#define WEBNN_RUN_COMPARE_H

#include <cstdint>
#include <string>

#include "webnn/npy.h"
#include "webnn/types.h"

namespace webnnrun {

struct Comparison {
  bool ok = true;
  std::string problem;   // when !ok: what differs, naming the first bad element
  double maxAbsError = 0;
  double maxRelError = 0;
  int64_t mismatches = 0;
};

// `got` holds an output's .npy bytes (int4/uint4 unpacked to one byte per
// element, bfloat16 widened to float32); integer types must match exactly, floats within the tolerance,
// NaN matching NaN.
Comparison compareOutput(webnn::DataType dtype, const webnn::Shape &shape, const uint8_t *got,
                         const webnn::npy::Array &want, double rtol, double atol);

}  // namespace webnnrun

#endif
