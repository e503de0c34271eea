// The CPU backend's view of the kernel contract (core/Kernel.h): the core
// types under webnn::cpu, the thread pool its kernels run on, and the op
// table CpuBackend.cpp serves the runtime from.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNEL_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNEL_H

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/Kernel.h"
#include "webnn/status.h"

namespace webnn::cpu {

using rt::AttributeValue;
using rt::Kernel;
using rt::KernelContext;
using rt::KernelFactory;
using rt::NodeAttributes;
using rt::NodeDesc;
using rt::OperandDesc;
using rt::PackedBytes;
using rt::PackedOperand;
using rt::TensorBuffer;

class ThreadPool;

// The session's thread pool: the CPU backend's KernelContext::backendState
// (CpuBackend.cpp), never null, may have one thread. A cast, no call.
inline ThreadPool &threadPool(const KernelContext &ctx) { return *static_cast<ThreadPool *>(ctx.backendState); }

// Every op the CPU backend implements; nullptr if `op` is unknown.
KernelFactory findCpuKernel(std::string_view op);
// Two adjacent nodes as one kernel (rt::Backend::makeKernelPair).
Status makeCpuKernelPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out);

// All registered op names (for `webnnc inspect` and tests).
std::vector<std::string_view> cpuKernelNames();

// Whether relaxed-precision nodes will really compute in bfloat16 here: true
// with oneDNN, AVX512-BF16 and no WEBNN_BF16=0; otherwise false with *why
// saying what is missing (they then run in float32).
bool relaxedPrecisionSupport(std::string *why);

}  // namespace webnn::cpu

namespace webnn::rt {

// The CPU backend's factory for `op`, for code that is about the CPU backend
// itself (the latency estimator's calibration, runtime/estimate/); the
// executor and loader go through the backend registry (core/Backend.h).
inline KernelFactory findKernelFactory(std::string_view op) { return cpu::findCpuKernel(op); }

}  // namespace webnn::rt

#endif
