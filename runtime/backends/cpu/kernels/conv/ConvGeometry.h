// What the conv2d family's kernels share: a node's checked geometry, its
// filter's layout, the fusedConv2d epilogue, and each candidate kernel's
// maker (one kernel per file in this folder; the order they are tried in is
// Conv2dSelection.cpp's table).
//
// A maker returns null with *why saying what the node lacks for it; the
// node itself has been checked (checkConv2d) before any maker sees it.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_CONV_CONVGEOMETRY_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_CONV_CONVGEOMETRY_H

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

struct ConvGeometry {
  bool nhwc = false;
  int64_t N = 0, C = 0, H = 0, W = 0;  // input
  int64_t O = 0, OH = 0, OW = 0;       // output
  int64_t KH = 0, KW = 0, groups = 1;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t ICg() const { return C / groups; }
  int64_t OCg() const { return O / groups; }
};

// Maps (o, i, kh, kw) of a 4-D filter with named layout to an element offset.
struct FilterIndexer {
  int64_t so = 0, si = 0, sh = 0, sw = 0;
  int64_t at(int64_t o, int64_t i, int64_t h, int64_t w) const { return o * so + i * si + h * sh + w * sw; }
};

// Layout letters o/i/h/w (any order) and the 4 dims as stored.
FilterIndexer makeIndexer(const std::string &layout, const Shape &dims, int64_t *O, int64_t *I, int64_t *KH,
                          int64_t *KW);
// padding, strides, dilations, groups and inputLayout, checked; the input's dims.
Status readCommonAttrs(const NodeDesc &node, ConvGeometry *g, std::vector<int64_t> *padding);
Shape outputShape(const ConvGeometry &g);
Status checkBias(const NodeDesc &node, int64_t O);
// Checks a conv2d node (fusedConv2d: maxInputs 4) and computes its geometry.
Status checkConv2d(const NodeDesc &node, ConvGeometry *geometry, FilterIndexer *indexer, size_t maxInputs = 3);

// 1x1, stride 1, unpadded: each output pixel is its input pixel times the filter.
inline bool plainPointwise(const ConvGeometry &g) {
  return g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && !g.padTop && !g.padBottom && !g.padLeft && !g.padRight;
}
inline bool hasBiasInput(const NodeDesc &node) { return node.inputs.size() > 2 && node.inputs[2]; }

// A depthwise ks x ks filter as [ks][ks][C] (Depthwise.h's layout).
void reorderDepthwiseFilter(const float *src, const FilterIndexer &fi, int64_t C, int64_t ks, float *hwc);
// A 1x1 filter as [C][O] (Pointwise.h's layout).
void reorderPointwiseFilter(const float *src, const FilterIndexer &fi, int64_t C, int64_t O, float *kn);

// fusedConv2d (beyond the spec, docs/FUSED_OPS.md) = activation(conv2d +
// residual). Operands: input, filter, bias?, residual? (absent optionals are null).
// kSilu: x * sigmoid(x); kHardSwish: x * min(6, max(0, x + 3)) / 6.
enum class ConvActivation { kNone, kRelu, kClamp, kSigmoid, kSilu, kHardSwish };

struct Epilogue {
  ConvActivation activation = ConvActivation::kNone;
  float clampMin = -INFINITY, clampMax = INFINITY;
  bool hasResidual = false;
};

Status readEpilogue(const NodeDesc &node, const ConvGeometry &g, Epilogue *e);

// A float32 nhwc conv2d / fusedConv2d with a constant filter and bias, no
// residual and a clamp epilogue (none, relu or clamp), as [lo, hi]: a half
// the convolution pairs can compute with their clamping row kernels.
bool clampConv(const NodeDesc &node, ConvGeometry *g, FilterIndexer *fi, float *lo, float *hi);

// ---- candidates (one file each)

// A maker's refusal: *why = reason, and no kernel.
inline std::unique_ptr<Kernel> refuse(std::string *why, std::string reason) {
  *why = std::move(reason);
  return nullptr;
}

// DepthwiseAvx512Conv.cpp: depthwise 3x3, nhwc, float32 on AVX-512, bias and
// a clamp [lo, hi] in the same pass; with `silu`, SiLU after the clamp over
// each few rows as they are written.
std::unique_ptr<Kernel> makeDepthwiseAvx512Conv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                float lo, float hi, bool silu, std::string *why);
// PointwiseNarrowConv.cpp: plain 1x1 nhwc layers with few output channels,
// or short ones with a residual, as register-tiled rows.
std::unique_ptr<Kernel> makePointwiseNarrowConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                bool hasResidual, float lo, float hi, bool silu, std::string *why);
// PointwisePackedConv.cpp: plain 1x1 nhwc layers as one packed-B GEMM; with
// `againstOneDnn` only the shapes where it measured faster than brgconv_1x1,
// else (oneDNN refused the layer or is absent) any the packed SGEMM suits.
std::unique_ptr<Kernel> makePointwisePackedConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                float lo, float hi, bool againstOneDnn, std::string *why);
// Im2colPackedConv.cpp: few output pixels as im2col + one packed-B GEMM.
std::unique_ptr<Kernel> makeIm2colPackedConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                             float lo, float hi, std::string *why);
// RowWindowPackedConv.cpp: 1 x KW filters over unpadded rows (conv1d) as
// the packed-B GEMM reading each output's window in place.
std::unique_ptr<Kernel> makeRowWindowPackedConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                float lo, float hi, std::string *why);
// GroupedNarrowConv.cpp: grouped convolutions of 4 channels per group (in
// and out), nhwc float32 on AVX-512, bias and a clamp [lo, hi].
std::unique_ptr<Kernel> makeGroupedNarrowConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                              float lo, float hi, std::string *why);
// WEBNN_GROUPED_NARROW (DebugOptions.h); tests switch it.
bool groupedNarrowEnabled();
void setGroupedNarrowEnabled(bool enabled);
#if WEBNN_HAVE_ONEDNN
// OneDnnConv2d.cpp: oneDNN's convolution with the epilogue (null for
// conv2d) as post-ops; at run time a primitive oneDNN cannot build falls
// back to `portable`. *why is oneDNN's own reason when it refuses.
std::unique_ptr<Kernel> makeOneDnnConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                       const Epilogue *epilogue, KernelFactory portable, std::string *why);
#endif
// ScaledPointwisePair.cpp: a mul by one value per channel and the narrow
// 1x1 convolution that alone reads its product, as one kernel (the filter
// scaled per run); reports its decision like a table's.
std::unique_ptr<Kernel> makeScaledPointwisePair(const NodeDesc &mul, const NodeDesc &conv, std::string *why);
Status makeScaledPointwisePairChoice(const NodeDesc &mul, const NodeDesc &conv, std::unique_ptr<Kernel> *out);
// AffinePointwisePair.cpp: a depthwise 1x1 with a clamp epilogue (a
// per-channel multiply-add: batchNormalization + relu after
// --webnn-batchnorm-relu-to-depthwise) and the plain 1x1 that alone reads
// it, as one kernel over chunks of pixels normalized in cache; reports its
// decision like a table's.
bool isChannelAffineConv(const NodeDesc &node);
std::unique_ptr<Kernel> makeAffinePointwisePair(const NodeDesc &dw, const NodeDesc &conv, std::string *why);
Status makeAffinePointwisePairChoice(const NodeDesc &dw, const NodeDesc &conv, std::unique_ptr<Kernel> *out);
// DepthwisePointwisePair.cpp: a depthwise 3x3 stride-1 convolution with a
// clamp epilogue and the narrow plain 1x1 that alone reads it, as one
// kernel (two depthwise rows at a time projected from L1); reports its
// decision like a table's.
bool isDepthwise3x3Conv(const NodeDesc &node);
std::unique_ptr<Kernel> makeDepthwisePointwisePair(const NodeDesc &dw, const NodeDesc &conv, std::string *why);
Status makeDepthwisePointwisePairChoice(const NodeDesc &dw, const NodeDesc &conv, std::unique_ptr<Kernel> *out);
// SiluPass.cpp: `conv` (no activation of its own), then SiLU (hardSwish) in
// place over its `count` outputs.
std::unique_ptr<Kernel> makeSiluPass(std::unique_ptr<Kernel> conv, int64_t count);
std::unique_ptr<Kernel> makeHardSwishPass(std::unique_ptr<Kernel> conv, int64_t count);
// EpiloguePass.cpp: `conv` (three inputs) into the output, then one pass
// y = activation(y + residual) over its `count` outputs.
std::unique_ptr<Kernel> makeEpiloguePass(std::unique_ptr<Kernel> conv, const Epilogue &e, int64_t count);
// PortableConv2d.cpp: im2col + SGEMM / direct depthwise, float32.
std::unique_ptr<Kernel> makePortableConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi);
// The portable kernels as factories (float16 through float32): the last
// candidate, and oneDNN's run-time fallback.
Status makeConv2dPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out);
Status makeFusedConv2dPortable(const NodeDesc &node, std::unique_ptr<Kernel> *out);

// ConvTranspose2d.cpp: convTranspose2d's factory (one kernel, no table).
Status makeConvTranspose2d(const NodeDesc &node, std::unique_ptr<Kernel> *out);

}  // namespace webnn::cpu::kernels

#endif
