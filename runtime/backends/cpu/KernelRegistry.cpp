// The CPU backend's op table: op name -> factory, sorted once for lookup.
#include <algorithm>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu {
namespace {

const std::vector<std::pair<std::string_view, KernelFactory>> &table() {
  static const auto *entries = [] {
    kernels::KernelTable t;
    kernels::registerElementwiseKernels(t);
    kernels::registerBinaryKernels(t);
    kernels::registerReductionKernels(t);
    kernels::registerShapeKernels(t);
    kernels::registerChannelShuffleKernels(t);
    kernels::registerMatMulKernels(t);
    kernels::registerConvolutionKernels(t);
    kernels::registerPoolingKernels(t);
    kernels::registerNormalizationKernels(t);
    kernels::registerSoftmaxKernels(t);
    kernels::registerLLMKernels(t);
    kernels::registerIndexingKernels(t);
    kernels::registerResampleKernels(t);
    kernels::registerQuantizationKernels(t);
    kernels::registerQdqKernels(t);
    kernels::registerQuantizedConvKernels(t);
    kernels::registerRecurrentKernels(t);
    std::sort(t.entries.begin(), t.entries.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    return new std::vector<std::pair<std::string_view, KernelFactory>>(std::move(t.entries));
  }();
  return *entries;
}

}  // namespace

KernelFactory findCpuKernel(std::string_view op) {
  const auto &t = table();
  auto it = std::lower_bound(t.begin(), t.end(), op, [](const auto &e, std::string_view k) { return e.first < k; });
  return (it != t.end() && it->first == op) ? it->second : nullptr;
}

Status makeCpuKernelPair(const NodeDesc &producer, const NodeDesc &consumer, std::unique_ptr<Kernel> *out) {
  if (producer.op == "batchNormalization" && consumer.op == "relu")
    return kernels::makeBatchNormReluPair(producer, consumer, out);
  if (producer.op == "instanceNormalization" && consumer.op == "gelu")
    return kernels::makeInstanceNormGeluPair(producer, consumer, out);
  return kernels::makeConvolutionPair(producer, consumer, out);
}

std::vector<std::string_view> cpuKernelNames() {
  std::vector<std::string_view> names;
  for (const auto &e : table()) names.push_back(e.first);
  return names;
}

bool relaxedPrecisionSupport(std::string *why) {
#if WEBNN_HAVE_ONEDNN
  return onednn::bf16Available(why);
#else
  *why = "this runtime was built without oneDNN";
  return false;
#endif
}

}  // namespace webnn::cpu
