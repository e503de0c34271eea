// How kernel families register their factories with KernelRegistry.cpp.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_REGISTRY_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_REGISTRY_H

#include <string_view>
#include <utility>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

struct KernelTable {
  std::vector<std::pair<std::string_view, KernelFactory>> entries;
  void add(std::string_view op, KernelFactory f) { entries.emplace_back(op, f); }
};

void registerElementwiseKernels(KernelTable &t);
void registerBinaryKernels(KernelTable &t);
void registerReductionKernels(KernelTable &t);
void registerShapeKernels(KernelTable &t);
void registerMatMulKernels(KernelTable &t);
void registerConvolutionKernels(KernelTable &t);
void registerPoolingKernels(KernelTable &t);
void registerNormalizationKernels(KernelTable &t);
void registerSoftmaxKernels(KernelTable &t);
void registerLLMKernels(KernelTable &t);
void registerIndexingKernels(KernelTable &t);
void registerResampleKernels(KernelTable &t);
void registerQuantizationKernels(KernelTable &t);
void registerRecurrentKernels(KernelTable &t);

}  // namespace webnn::cpu::kernels

#endif
