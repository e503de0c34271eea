// The window geometry Pooling.cpp's factory validates, shared with the 8-bit
// max pool (MaxPool2d8Bit.cpp), which it hands int8/uint8 maxPool2d nodes.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_POOLING_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_POOLING_H

#include <cstdint>
#include <memory>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

struct PoolGeometry {
  bool nhwc = false;
  int64_t N, C, H, W, OH, OW, KH, KW;
  int64_t padTop, padLeft, sh, sw, dh, dw;
};

// maxPool2d on int8 or uint8 (`dtype`): the maximum of the window's real
// elements, exact; a window wholly in the padding gives 0, as the float
// kernel does.
std::unique_ptr<Kernel> makeMaxPool2d8Bit(const PoolGeometry &g, DataType dtype);

}  // namespace webnn::cpu::kernels

#endif
