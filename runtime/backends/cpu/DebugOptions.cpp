#include "runtime/backends/cpu/DebugOptions.h"

#include <cstdlib>
#include <cstring>

namespace webnn::cpu {
namespace {

// "0" turns a kernel off; anything else (or nothing) leaves it on.
bool notZero(const char *name) {
  const char *v = std::getenv(name);
  return !(v && std::strcmp(v, "0") == 0);
}

// WEBNN_NO_AVX512 names the opposite sense: a value not starting with '0' is off.
bool notSet(const char *name) {
  const char *v = std::getenv(name);
  return !(v && *v && *v != '0');
}

bool cpuHasAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

}  // namespace

DebugOptions &debugOptions() {
  static DebugOptions *options = [] {
    auto *o = new DebugOptions;  // never destroyed: kernels may read it during exit
    o->transformerAvx512 = cpuHasAvx512() && notSet("WEBNN_NO_AVX512");
    o->packedSgemm = notZero("WEBNN_PACKED_SGEMM");
    o->depthwiseAvx512 = notZero("WEBNN_DEPTHWISE_AVX512");
    o->pointwiseNarrow = notZero("WEBNN_POINTWISE_NARROW");
    o->groupedNarrow = notZero("WEBNN_GROUPED_NARROW");
    o->fusePointwiseDepthwise = notZero("WEBNN_FUSE_POINTWISE_DEPTHWISE");
    o->resampleSeparable = notZero("WEBNN_RESAMPLE_SEPARABLE");
    o->encoderAttention = notZero("WEBNN_ENCODER_ATTENTION");
    o->amxInt8 = notZero("WEBNN_AMX");
    o->oneDnn = notZero("WEBNN_ONEDNN");
    o->bf16 = notZero("WEBNN_BF16");
    return o;
  }();
  return *options;
}

}  // namespace webnn::cpu
