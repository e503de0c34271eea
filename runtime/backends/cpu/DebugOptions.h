// The CPU backend's debug switches: environment variables that turn one of
// our own kernels off so it can be compared against the path it replaced
// (A/B timing, bisecting a wrong result). Read from the environment once, on
// first use, into one struct; docs/RUNTIME.md lists them.
//
// Each switch is an atomic so tests can flip it while a process runs
// (setDepthwiseAvx512Enabled and the other setters stay for them); kernels
// already made keep the choice they were made with.
//
// oneDNN's two switches live here too; onednn::policy() (onednn/Context.cpp)
// reports them and onednn::setPolicy sets them, so tests and the environment
// change the same values.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_DEBUGOPTIONS_H
#define WEBNN_RUNTIME_BACKENDS_CPU_DEBUGOPTIONS_H

#include <atomic>

namespace webnn::cpu {

struct DebugOptions {
  // WEBNN_NO_AVX512 set and not starting with '0': the transformer/LLM
  // kernels' AVX-512 bodies off (AVX2 instead). Never on where the CPU lacks
  // AVX-512 (setUseAvx512 keeps that).
  std::atomic<bool> transformerAvx512{true};
  // WEBNN_PACKED_SGEMM=0: matmul, fusedMatmul, gemm, conv2d and lstm/gru
  // without the packed-B SGEMM (PackedSgemm.h).
  std::atomic<bool> packedSgemm{true};
  // WEBNN_DEPTHWISE_AVX512=0: depthwise 3x3 convolutions without our AVX-512
  // kernel (Depthwise.h); oneDNN or the portable loop instead.
  std::atomic<bool> depthwiseAvx512{true};
  // WEBNN_POINTWISE_NARROW=0: 1x1 convolutions without the narrow pointwise
  // kernel (Pointwise.h).
  std::atomic<bool> pointwiseNarrow{true};
  // WEBNN_GROUPED_NARROW=0: grouped convolutions of 4 channels per group
  // without our AVX-512 kernel (conv/GroupedNarrowConv.cpp); oneDNN instead.
  std::atomic<bool> groupedNarrow{true};
  // WEBNN_FUSE_POINTWISE_DEPTHWISE=0: a 1x1 convolution and the depthwise 3x3
  // one it feeds run as two kernels, not as the pair (PointwiseDepthwise.h).
  std::atomic<bool> fusePointwiseDepthwise{true};
  // WEBNN_RESAMPLE_SEPARABLE=0: linear resample2d without the separable
  // kernel (Resample.h); the row walk instead.
  std::atomic<bool> resampleSeparable{true};
  // WEBNN_ENCODER_ATTENTION=0: float32 fusedAttention on oneDNN's batched
  // matmuls (or the per-head SGEMMs), not our AVX-512 tiles
  // (EncoderAttention.h).
  std::atomic<bool> encoderAttention{true};
  // WEBNN_AMX=0: quantizedMatmul's integer GEMM on AVX512-VNNI even where the
  // CPU and OS allow AMX tiles (QdqGemm.h, amxInt8Available).
  std::atomic<bool> amxInt8{true};
  // WEBNN_ONEDNN=0: no oneDNN; its convolutions and matmuls run on our
  // kernels (onednn::Policy::enabled).
  std::atomic<bool> oneDnn{true};
  // WEBNN_BF16=0: relaxed-precision nodes run in float32, as on a CPU without
  // AVX512-BF16 (onednn::Policy::bf16).
  std::atomic<bool> bf16{true};
  // Off unless a test turns it on (no environment variable): kernels that
  // keep a run count for tests (packedSgemmRuns) count only then, so a
  // normal run does no shared atomic increment per kernel.
  std::atomic<bool> countRuns{false};
};

// The process's options: the environment's values on the first call.
DebugOptions &debugOptions();

}  // namespace webnn::cpu

#endif
