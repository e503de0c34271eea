// Strided operands (core/Kernel.h's OperandDesc::rowPitch): a concat input
// the arena plan placed inside its concat's output is a slice of its rows.
// The row copies kernels use to move such operands, and the adapter that
// lets a kernel which only knows dense operands run on them.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_ROWPITCH_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_ROWPITCH_H

#include <cstdint>
#include <memory>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

// Whether any operand of `node` is strided.
bool hasRowPitch(const NodeDesc &node);

// `rows` rows of `rowBytes` bytes from `src` (rows `srcPitch` bytes apart)
// to `dst` (rows `dstPitch` bytes apart), over ctx's pool.
void copyRows(const KernelContext &ctx, const uint8_t *src, int64_t srcPitch, uint8_t *dst, int64_t dstPitch,
              int64_t rows, int64_t rowBytes);

// `kernel` (made from `node` as if every operand were dense) run on dense
// copies of the node's strided operands: strided inputs gathered before it
// runs, strided outputs scattered after. A kernel that honours row pitches
// is returned as it is.
std::unique_ptr<Kernel> adaptRowPitch(const NodeDesc &node, std::unique_ptr<Kernel> kernel);

}  // namespace webnn::cpu::kernels

#endif
