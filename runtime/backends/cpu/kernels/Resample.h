// resample2d's shared pieces: the per-axis sampling table (Resample.cpp
// builds it from the spec's half-pixel formula) and the separable bilinear
// kernel (ResampleSeparable.cpp) that the factory picks for float32 linear
// resampling of two adjacent axes.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_RESAMPLE_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_RESAMPLE_H

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

// Per output coordinate along one axis: the two source indices and the
// weight of the second.
struct ResampleAxisTable {
  std::vector<int64_t> lo, hi;
  std::vector<float> t;
};

// Float32 linear resample2d of axes {axis, axis + 1} of a 4-D tensor: each
// source row is interpolated along the second axis once (per plane and
// chunk of output rows), then every output row is a blend of two such rows.
// Same per-element formula as the row walk in Resample.cpp.
std::unique_ptr<Kernel> makeSeparableLinearResample(const Shape &in, const Shape &out, int64_t axis,
                                                    ResampleAxisTable rows, ResampleAxisTable cols);

// WEBNN_RESAMPLE_SEPARABLE=0 (DebugOptions.h): linear resample2d without the
// separable kernel (the row walk instead). Kernels already made keep theirs.
void setResampleSeparableEnabled(bool enabled);

}  // namespace webnn::cpu::kernels

#endif
