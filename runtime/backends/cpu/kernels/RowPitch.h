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

// The kernel `factory` makes for `node` with every operand dense, run on
// dense copies of the node's strided operands: strided inputs gathered
// before it runs, strided outputs scattered after. The adapter owns the
// dense descriptions the kernel was made from (a kernel may keep them).
Status makeRowPitchAdapter(const NodeDesc &node, KernelFactory factory, std::unique_ptr<Kernel> *out);

}  // namespace webnn::cpu::kernels

#endif
