// instanceNormalization in nhwc, AVX-512: the normalized values of a channel
// are C floats apart, so the kernel sweeps whole pixel rows (or, one group
// per thread, a contiguous group of each row's channels) in memory order.
// Blocks of 64 channels, as the scalar kernel takes them, read 256-byte
// pieces C floats apart: the prefetchers stream those more slowly than
// whole rows, and a block's lines fall in a fraction of the L2's sets, too
// few to keep it between sweeps.
//
// Statistics in chunks of rows that fit L1, each chunk's mean and squared
// deviations two-pass (the spec's form), merged in double into the running
// ones by Chan et al.'s pairwise update: two reads of x (the chunk's second
// from L1) and one write, instead of three whole sweeps.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_INSTANCENORMNHWC_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_INSTANCENORMNHWC_H

#include <cstdint>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

// nc rounded up to whole vectors of 16.
inline int64_t instanceNormPaddedChannels(int64_t nc) { return (nc + 15) / 16 * 16; }

// The channels of one task: each image's C channels cut into as many groups
// of whole vectors as the threads want beyond the images (one group where
// the images alone fill the threads).
inline int64_t instanceNormGroupWidth(int64_t C, int64_t images, int64_t threads) {
  const int64_t wanted = images > 0 && threads > images ? (threads + images - 1) / images : 1;
  return instanceNormPaddedChannels((C + wanted - 1) / wanted);
}

// The operands the instanceNormalization + gelu pair runs on (Normalization.cpp's
// makeInstanceNormGeluPair, priced by CostFunctions.cpp, which is built
// without the kernels): an nhwc float32 instanceNormalization of 1-3 inputs
// (scale and bias float32 [C] where present) and a one-input gelu of its
// shape, no operand strided (RowPitch.h). Operands only: the factory adds
// AVX-512 and the two nodes' attribute checks.
inline bool instanceNormGeluOperandsFit(const NodeDesc &norm, const NodeDesc &gelu) {
  if (norm.op != "instanceNormalization" || gelu.op != "gelu") return false;
  if (norm.inputs.empty() || norm.inputs.size() > 3 || !norm.inputs[0] || norm.outputs.size() != 1 ||
      !norm.outputs[0] || gelu.inputs.size() != 1 || gelu.outputs.size() != 1 || !gelu.outputs[0])
    return false;
  const OperandDesc &x = *norm.inputs[0], &y = *gelu.outputs[0];
  if (x.dtype != DataType::kFloat32 || y.dtype != DataType::kFloat32 || x.shape.size() != 4 || y.shape != x.shape ||
      norm.outputs[0]->shape != x.shape || norm.outputs[0]->dtype != x.dtype)
    return false;
  if (norm.attributes.getString("layout", "nchw") != "nhwc") return false;
  for (size_t i = 1; i < norm.inputs.size(); ++i)
    if (norm.inputs[i] && (norm.inputs[i]->dtype != DataType::kFloat32 || norm.inputs[i]->shape != Shape{x.shape[3]}))
      return false;
  for (const NodeDesc *n : {&norm, &gelu}) {
    for (const OperandDesc *o : n->inputs)
      if (o && o->rowPitch) return false;
    for (const OperandDesc *o : n->outputs)
      if (o && o->rowPitch) return false;
  }
  return true;
}

// One image's channels [c0, c0 + nc), nc >= 1: x and y at channel c0 of
// pixel 0, rows `stride` floats apart; scale and bias (either may be null)
// at c0; gelu: y = gelu(normalized), the instanceNormalization + gelu pair
// (its output sweep applies it in registers); scratch holds
// 3 * instanceNormPaddedChannels(nc) doubles. Only where avx512Available().
void instanceNormNhwcAvx512(const float *x, float *y, int64_t pixels, int64_t stride, int64_t nc,
                            const float *scale, const float *bias, float eps, bool gelu, double *scratch);

}  // namespace webnn::cpu::kernels

#endif
