// The CPU backend's op support limits as data (core/OpSupport.h): per op,
// the data types and ranks its kernel factories (kernels/*.cpp) accept.
// CpuBackend.cpp publishes it (webnn_op_support_limits("cpu"),
// `webnn-run limits cpu`); test/unit/kernels/CpuOpSupportTest.cpp holds it
// to the factories.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_CPUOPSUPPORT_H
#define WEBNN_RUNTIME_BACKENDS_CPU_CPUOPSUPPORT_H

#include "runtime/core/OpSupport.h"

namespace webnn::cpu {

// The rank the table advertises where a kernel has no limit of its own (the
// test checks ranks up to it).
inline constexpr uint32_t kCpuMaxRank = 8;

const rt::OpSupportTable &cpuOpSupport();

}  // namespace webnn::cpu

#endif
