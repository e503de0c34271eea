// The CPU backend as the runtime sees it (core/Backend.h): the op table of
// KernelRegistry.cpp, host memory (2 MiB-page arenas), and a thread pool per
// session that its kernels reach through KernelContext::backendState.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
#define WEBNN_RUNTIME_BACKENDS_CPU_CPUBACKEND_H

#include "runtime/core/Backend.h"

namespace webnn::rt {

// Registered as "cpu" through backends.def (runtime/backends/cpu/CMakeLists.txt).
Backend *createCpuBackend();

}  // namespace webnn::rt

#endif
