// How kernel families register their factories with KernelRegistry.cpp.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_REGISTRY_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_REGISTRY_H

#include <cstdint>
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
void registerChannelShuffleKernels(KernelTable &t);
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
void registerQdqKernels(KernelTable &t);
void registerQuantizedConvKernels(KernelTable &t);

// Two-node kernels (Kernel.h, makeCpuKernelPair): the conv2d family's 1x1 +
// depthwise 3x3 pair (PointwiseDepthwise.h, conv/PointwiseDepthwisePair.cpp)
// and a channel-scale mul + narrow 1x1 (conv/ScaledPointwisePair.cpp); each
// decision is reported as a KernelChoice. WEBNN_FUSE_POINTWISE_DEPTHWISE=0
// turns it off (DebugOptions.h); tests switch it with setPointwiseDepthwiseEnabled.
Status makeConvolutionPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out);
// batchNormalization + the relu that alone reads it (BatchNormReluPair.cpp).
Status makeBatchNormReluPair(const NodeDesc &bn, const NodeDesc &relu, std::unique_ptr<Kernel> *out);
// nhwc instanceNormalization + the gelu that alone reads it (Normalization.cpp).
Status makeInstanceNormGeluPair(const NodeDesc &norm, const NodeDesc &gelu, std::unique_ptr<Kernel> *out);
bool pointwiseDepthwiseEnabled();
void setPointwiseDepthwiseEnabled(bool enabled);

}  // namespace webnn::cpu::kernels

#endif
