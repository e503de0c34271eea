#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include "runtime/backends/cpu/kernels/Common.h"

namespace webnn::cpu::kernels {

FilterIndexer makeIndexer(const std::string &layout, const Shape &dims, int64_t *O, int64_t *I, int64_t *KH,
                          int64_t *KW) {
  FilterIndexer f;
  int64_t stride = 1;
  for (int d = 3; d >= 0; --d) {
    switch (layout[d]) {
      case 'o': f.so = stride; *O = dims[d]; break;
      case 'i': f.si = stride; *I = dims[d]; break;
      case 'h': f.sh = stride; *KH = dims[d]; break;
      default: f.sw = stride; *KW = dims[d]; break;
    }
    stride *= dims[d];
  }
  return f;
}

Status readCommonAttrs(const NodeDesc &node, ConvGeometry *g, std::vector<int64_t> *padding) {
  *padding = node.attributes.getInts("padding", {0, 0, 0, 0});
  std::vector<int64_t> strides = node.attributes.getInts("strides", {1, 1});
  std::vector<int64_t> dil = node.attributes.getInts("dilations", {1, 1});
  g->groups = node.attributes.getInt("groups", 1);
  std::string layout = node.attributes.getString("inputLayout", "nchw");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (padding->size() != 4) return nodeError(node, "padding must have 4 entries");
  if (strides.size() != 2 || dil.size() != 2) return nodeError(node, "strides and dilations must have 2 entries");
  for (int64_t p : *padding)
    if (p < 0) return nodeError(node, "padding must be non-negative");
  if (strides[0] < 1 || strides[1] < 1 || dil[0] < 1 || dil[1] < 1)
    return nodeError(node, "strides and dilations must be >= 1");
  if (g->groups < 1) return nodeError(node, "groups must be >= 1");
  if (layout != "nchw" && layout != "nhwc") return nodeError(node, "unknown inputLayout '" + layout + "'");
  g->nhwc = layout == "nhwc";
  g->padTop = (*padding)[0];
  g->padBottom = (*padding)[1];
  g->padLeft = (*padding)[2];
  g->padRight = (*padding)[3];
  g->sh = strides[0];
  g->sw = strides[1];
  g->dh = dil[0];
  g->dw = dil[1];
  const Shape &x = node.inputs[0]->shape;
  if (x.size() != 4) return nodeError(node, "input must be 4-D, got " + shapeToString(x));
  g->N = x[0];
  g->C = g->nhwc ? x[3] : x[1];
  g->H = g->nhwc ? x[1] : x[2];
  g->W = g->nhwc ? x[2] : x[3];
  return Status::ok();
}

Shape outputShape(const ConvGeometry &g) {
  return g.nhwc ? Shape{g.N, g.OH, g.OW, g.O} : Shape{g.N, g.O, g.OH, g.OW};
}

Status checkBias(const NodeDesc &node, int64_t O) {
  if (node.inputs.size() < 3 || !node.inputs[2]) return Status::ok();
  const OperandDesc &b = *node.inputs[2];
  if (b.dtype != node.inputs[0]->dtype) return nodeError(node, "bias data type differs from input");
  if (b.shape != Shape{O}) return nodeError(node, "bias must have shape [" + std::to_string(O) + "]");
  return Status::ok();
}

Status checkConv2d(const NodeDesc &node, ConvGeometry *geometry, FilterIndexer *indexer, size_t maxInputs) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 2, maxInputs, 1));
  const OperandDesc &x = *node.inputs[0], &f = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (f.dtype != x.dtype) return nodeError(node, "filter data type differs from input");
  ConvGeometry g;
  std::vector<int64_t> padding;
  WEBNN_RETURN_IF_ERROR(readCommonAttrs(node, &g, &padding));
  std::string fl = node.attributes.getString("filterLayout", "oihw");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (fl != "oihw" && fl != "hwio" && fl != "ohwi" && fl != "ihwo")
    return nodeError(node, "unknown filterLayout '" + fl + "'");
  if (f.shape.size() != 4) return nodeError(node, "filter must be 4-D");
  int64_t I = 0;
  FilterIndexer fi = makeIndexer(fl, f.shape, &g.O, &I, &g.KH, &g.KW);
  if (g.C % g.groups != 0 || I != g.C / g.groups)
    return nodeError(node, "filter input channels (" + std::to_string(I) + ") times groups (" +
                               std::to_string(g.groups) + ") must equal input channels (" + std::to_string(g.C) +
                               ")");
  if (g.O % g.groups != 0) return nodeError(node, "output channels must be divisible by groups");
  int64_t effH, effW, padH, padW;
  // Options of a corrupt artifact can overflow these.
  if (__builtin_mul_overflow(g.dh, g.KH - 1, &effH) || __builtin_add_overflow(effH, 1, &effH) ||
      __builtin_mul_overflow(g.dw, g.KW - 1, &effW) || __builtin_add_overflow(effW, 1, &effW) ||
      __builtin_add_overflow(g.H, g.padTop, &padH) || __builtin_add_overflow(padH, g.padBottom, &padH) ||
      __builtin_add_overflow(g.W, g.padLeft, &padW) || __builtin_add_overflow(padW, g.padRight, &padW))
    return nodeError(node, "the dilated filter or the padded input size overflows int64");
  if (padH < effH || padW < effW) return nodeError(node, "the dilated filter is larger than the padded input");
  g.OH = (padH - effH) / g.sh + 1;
  g.OW = (padW - effW) / g.sw + 1;
  WEBNN_RETURN_IF_ERROR(checkBias(node, g.O));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, outputShape(g), x.dtype));
  *geometry = g;
  *indexer = fi;
  return Status::ok();
}

void reorderDepthwiseFilter(const float *src, const FilterIndexer &fi, int64_t C, int64_t ks, float *hwc) {
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < ks; ++h)
      for (int64_t w = 0; w < ks; ++w) hwc[(h * ks + w) * C + c] = src[fi.at(c, 0, h, w)];
}

void reorderPointwiseFilter(const float *src, const FilterIndexer &fi, int64_t C, int64_t O, float *kn) {
  for (int64_t k = 0; k < C; ++k)
    for (int64_t n = 0; n < O; ++n) kn[k * O + n] = src[fi.at(n, k, 0, 0)];
}

Status readEpilogue(const NodeDesc &node, const ConvGeometry &g, Epilogue *e) {
  std::string activation = node.attributes.getString("activation", "none");
  double lo = node.attributes.getFloat("activationMinValue", -INFINITY);
  double hi = node.attributes.getFloat("activationMaxValue", INFINITY);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (activation == "none") e->activation = ConvActivation::kNone;
  else if (activation == "relu") e->activation = ConvActivation::kRelu;
  else if (activation == "clamp") e->activation = ConvActivation::kClamp;
  else if (activation == "sigmoid") e->activation = ConvActivation::kSigmoid;
  else if (activation == "silu") e->activation = ConvActivation::kSilu;
  else if (activation == "hardSwish") e->activation = ConvActivation::kHardSwish;
  else return nodeError(node, "unknown activation '" + activation + "'");
  if (lo > hi) return nodeError(node, "activationMinValue must be <= activationMaxValue");
  e->clampMin = float(lo);
  e->clampMax = float(hi);
  e->hasResidual = node.inputs.size() > 3 && node.inputs[3];
  if (e->hasResidual) {
    const OperandDesc &r = *node.inputs[3];
    if (r.dtype != node.inputs[0]->dtype) return nodeError(node, "residual data type differs from input");
    if (r.shape != outputShape(g))
      return nodeError(node, "residual must have the output's shape " + shapeToString(outputShape(g)) + ", got " +
                                 shapeToString(r.shape));
  }
  return Status::ok();
}

bool clampConv(const NodeDesc &node, ConvGeometry *g, FilterIndexer *fi, float *lo, float *hi) {
  if (node.op != "conv2d" && node.op != "fusedConv2d") return false;
  if (!checkConv2d(node, g, fi, node.op == "conv2d" ? 3 : 4).isOk()) return false;
  if (!g->nhwc || node.inputs[0]->dtype != DataType::kFloat32 || !node.inputs[1]->constantData) return false;
  if (hasBiasInput(node) && !node.inputs[2]->constantData) return false;
  *lo = -INFINITY, *hi = INFINITY;
  if (node.op == "conv2d") return true;
  Epilogue e;
  if (!readEpilogue(node, *g, &e).isOk() || e.hasResidual) return false;
  if (e.activation == ConvActivation::kRelu) *lo = 0.f;
  else if (e.activation == ConvActivation::kClamp) *lo = e.clampMin, *hi = e.clampMax;
  else if (e.activation != ConvActivation::kNone) return false;
  return true;
}

}  // namespace webnn::cpu::kernels
