#include "backends/vulkan/VulkanCost.h"

#include <algorithm>
#include <set>

#include "Shaders.h"
#include "backends/vulkan/kernels/ElementwiseChain.h"

namespace webnn::vk {
namespace {

double elements(const OperandDesc *o) {
  if (!o) return 0;
  double n = 1;
  for (int64_t v : o->shape) n *= double(std::max<int64_t>(v, 0));
  return n;
}

double bytesOf(const OperandDesc *o) {
  if (!o) return 0;
  return elements(o) * dataTypeBits(o->dtype) / 8.0;
}

double elemBytes(const NodeDesc &node) {
  const OperandDesc *o = !node.outputs.empty() && node.outputs[0] ? node.outputs[0]
                         : !node.inputs.empty() && node.inputs[0] ? node.inputs[0]
                                                                  : nullptr;
  uint32_t b = o ? elementBytes(o->dtype) : 4;
  return b ? double(b) : 1.0;
}

double workgroups(const Dispatch &d) { return double(d.groups[0]) * d.groups[1] * d.groups[2]; }
double invocations(const Dispatch &d) { return workgroups(d) * d.localSize; }
// The elements a one-invocation-per-element dispatch covers: its
// invocations, less those past the output's end (a grid over 65535
// workgroups is rounded up to whole rows of them: up to 2x more invocations
// than elements).
double elementsCovered(const NodeDesc &node, const Dispatch &d) {
  const double e = invocations(d);
  const OperandDesc *y = node.outputs.empty() ? nullptr : node.outputs[0];
  return y ? std::min(e, std::max(1.0, elements(y))) : e;
}
double word(const Dispatch &d, size_t i) { return double(d.push[i]); }

// One invocation per element, `streams` tensors of the output's element size
// read or written per element (copy: 2; binary: 3).
void perElement(const NodeDesc &node, const Dispatch &d, double streams, double flopsPerElement, DispatchWork *w) {
  double e = elementsCovered(node, d);
  w->params = {e};
  w->flops = e * flopsPerElement;
  w->bytes = e * elemBytes(node) * streams;
}

bool transcendental(const std::string &op) {
  static const std::set<std::string> ops = {"exp", "log", "sigmoid", "tanh", "erf", "gelu", "elu", "softplus",
                                            "sin", "cos", "tan", "pow", "softsign"};
  return ops.count(op) > 0;
}

using CostFn = void (*)(const NodeDesc &, const Dispatch &, DispatchWork *);

struct ShaderCost {
  const shaders::Spirv *shader;
  const char *name;
  const char *family;
  CostFn fn;
  // The function prices the node's whole work (from its operands), not
  // this dispatch's: a plan's dispatches of the shader share it.
  bool perNode = false;
};

void binaryCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) { perElement(n, d, 3, 1, w); }
void unaryCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) {
  // Transcendentals are priced on a grid of their own: on a CPU device
  // (lavapipe) they are compute-bound where relu is not.
  if (transcendental(n.op)) w->family = "unary.transcendental";
  perElement(n, d, 2, transcendental(n.op) ? 20 : 1, w);
}
void whereCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) { perElement(n, d, 3.25, 1, w); }
// copy.comp, pad.comp, triangular.comp: spec 0 is the element size, push 0 the count.
void copyCost(const NodeDesc &, const Dispatch &d, DispatchWork *w) {
  double e = word(d, 0), eb = d.spec.empty() ? 4 : double(std::max<uint32_t>(d.spec[0], 1));
  w->params = {e};
  w->flops = 0;
  w->bytes = 2 * e * eb;
}
void gatherCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) { perElement(n, d, 2.5, 0, w); }
void quantizeCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) {
  double e = elementsCovered(n, d);
  w->params = {e};
  w->flops = 4 * e;
  w->bytes = e * (n.inputs.empty() || !n.inputs[0] ? 4 : bytesOf(n.inputs[0]) / std::max(1.0, elements(n.inputs[0]))) +
             e * elemBytes(n);
}
void resampleCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) { perElement(n, d, 3, 8, w); }
void rotaryCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) { perElement(n, d, 3, 4, w); }
void gqaPresentCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) { perElement(n, d, 4, 2, w); }
// Each invocation walks the indices in order (last update wins).
void scatterCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) {
  double e = invocations(d);
  double updates = n.inputs.size() > 2 ? elements(n.inputs[2]) : e;
  w->params = {std::max(e, updates)};
  w->flops = std::max(e, updates);
  w->bytes = 2 * updates * elemBytes(n) + e * elemBytes(n);
}

// chain.comp (ChainFusion.h): one invocation per element through every
// step; transcendental steps weigh like the unary ones.
void chainCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) {
  // unary.comp's codes of exp, log, sigmoid, tanh, erf, gelu, elu, sin, cos, softplus, tan.
  static const std::set<int64_t> heavy = {4, 5, 8, 10, 11, 12, 13, 21, 22, 23, 27};
  std::vector<int64_t> codes = n.attributes.getInts("chainCodes", {});
  double e = elementsCovered(n, d), perElement = 0;
  for (int64_t c : codes) perElement += c < int64_t(kChainBinary) && heavy.count(c) ? 20 : 1;
  if (std::any_of(codes.begin(), codes.end(), [](int64_t c) { return c < int64_t(kChainBinary) && heavy.count(c); }))
    w->family = "chain.transcendental";
  w->params = {e};
  w->flops = e * std::max(1.0, perElement);
  w->bytes = e * elemBytes(n) * double(n.inputs.size() + 1);
}
// matmul.comp (matmul, fusedMatmul, gemm): from the node's shapes, so a
// change of the shader's push constants cannot skew the price.
void matmulCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  const OperandDesc *a = n.inputs.empty() ? nullptr : n.inputs[0];
  const OperandDesc *b = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  if (!a || !b || !y || y->shape.size() < 2 || a->shape.size() < 2) {
    w->params = {1, 1, 1};
    w->bytes = bytesOf(y) + bytesOf(a) + bytesOf(b);
    return;
  }
  double M = double(y->shape[y->shape.size() - 2]), N = double(y->shape.back());
  bool aT = n.op == "gemm" && n.attributes.getBool("aTranspose", false);
  double K = double(aT ? a->shape[a->shape.size() - 2] : a->shape.back());
  double batches = elements(y) / std::max(1.0, M * N);
  w->params = {M * batches, K, N};
  w->flops = 2 * M * N * K * batches;
  w->bytes = bytesOf(a) + bytesOf(b) + bytesOf(y);
}
// A convolution's output count and its multiply-adds per output, from the
// node: the filter holds O x (C / groups) x KH x KW whatever its layout.
void convShape(const NodeDesc &n, double *outputs, double *perOutput, double *channels, double *bytes) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  const OperandDesc *f = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  bool nhwc = n.attributes.getString("inputLayout", "nchw") == "nhwc";
  *outputs = elements(y);
  *channels = y && y->shape.size() == 4 ? double(nhwc ? y->shape[3] : y->shape[1]) : 1;
  double filter = elements(f);
  if (n.op == "convTranspose2d") {
    // Each input element scatters over a filter window of its group's
    // output channels: the same multiply-adds, gathered per output.
    *perOutput = elements(x) * filter / std::max(1.0, *outputs * (x && x->shape.size() == 4
                                                                       ? double(nhwc ? x->shape[3] : x->shape[1])
                                                                       : 1.0));
  } else {
    *perOutput = filter / std::max(1.0, *channels);
  }
  *bytes = bytesOf(x) + bytesOf(f) + bytesOf(y);
}
// Keyed by (outputs, multiply-adds per output, output channels): on a GPU
// the implicit GEMM's workgroups tile the outputs, so how full the device
// is follows their count, whichever of rows or channels makes it (on an
// H100, 784 x 576 x 64 ran 2.2x slower than 3136 x 576 x 64, and keyed by
// rows, ResNet-50's 784-row, 128-channel layers sat beside 196-row points).
void convGemmCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double outputs, perOutput, O, bytes;
  convShape(n, &outputs, &perOutput, &O, &bytes);
  w->params = {outputs, perOutput, O};
  w->flops = 2 * outputs * perOutput;
  w->bytes = bytes;
}
void convDirectCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double outputs, perOutput, O, bytes;
  convShape(n, &outputs, &perOutput, &O, &bytes);
  w->params = {outputs, perOutput, O};
  w->flops = 2 * outputs * perOutput;
  w->bytes = bytes;
}
// pool2d.comp: every output reads its window.
void poolCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  bool nhwc = n.attributes.getString("layout", "nchw") == "nhwc";
  int64_t H = 1, W = 1;
  if (x && x->shape.size() == 4) {
    H = nhwc ? x->shape[1] : x->shape[2];
    W = nhwc ? x->shape[2] : x->shape[3];
  }
  std::vector<int64_t> window = n.attributes.getInts("windowDimensions", {H, W});
  double win = window.size() == 2 ? double(window[0]) * double(window[1]) : double(H * W);
  double outputs = elements(y);
  w->params = {outputs, win};
  w->flops = outputs * win;
  w->bytes = bytesOf(x) + bytesOf(y);
}
// reduce.comp: one invocation per output over its reduced elements.
void reduceCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  double rows = std::max(1.0, elements(n.outputs.empty() ? nullptr : n.outputs[0]));
  double len = std::max(1.0, elements(x) / rows);
  w->params = {rows, len};
  w->flops = rows * len;
  w->bytes = bytesOf(x) + rows * elemBytes(n);
}
// softmax.comp, cumsum.comp: one invocation per row along `axis`.
void rowsAlongAxis(const NodeDesc &n, int64_t defaultAxisFromEnd, double *rows, double *len) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  int64_t rank = x ? int64_t(x->shape.size()) : 0;
  int64_t axis = n.attributes.getInt("axis", defaultAxisFromEnd < 0 ? rank + defaultAxisFromEnd : 0);
  if (axis < 0) axis += rank;
  *len = x && axis >= 0 && axis < rank ? double(std::max<int64_t>(x->shape[size_t(axis)], 1)) : 1;
  *rows = std::max(1.0, elements(x) / *len);
}
void softmaxCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double rows, len;
  rowsAlongAxis(n, -1, &rows, &len);
  w->params = {rows, len};
  w->flops = 5 * rows * len;
  w->bytes = 2 * rows * len * elemBytes(n);
}
void cumsumCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double rows, len;
  rowsAlongAxis(n, 0, &rows, &len);
  w->params = {rows, len};
  w->flops = rows * len;
  w->bytes = 2 * rows * len * elemBytes(n);
}
// normalization.comp and rms_norm.comp: rows of the normalized length, from
// the node's options.
void normRows(const NodeDesc &n, double *rows, double *len) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  const int64_t rank = x ? int64_t(x->shape.size()) : 0;
  auto dim = [&](int64_t a) { return a >= 0 && a < rank ? double(std::max<int64_t>(x->shape[size_t(a)], 1)) : 1.0; };
  *len = 1;
  if (n.op == "layerNormalization") {
    std::vector<int64_t> all;
    for (int64_t a = 1; a < rank; ++a) all.push_back(a);
    for (int64_t a : n.attributes.getInts("axes", all)) *len *= dim(a < 0 ? a + rank : a);
  } else if (n.op == "instanceNormalization") {
    bool nhwc = n.attributes.getString("layout", "nchw") == "nhwc";
    *len = nhwc ? dim(1) * dim(2) : dim(2) * dim(3);
  } else if (n.op == "batchNormalization") {
    int64_t axis = n.attributes.getInt("axis", 1);
    *len = elements(x) / dim(axis < 0 ? axis + rank : axis);
  } else {  // rmsNormalization (over dims axis..rank-1), skipRmsNormalization (the last)
    int64_t axis = n.op == "rmsNormalization" ? n.attributes.getInt("axis", rank - 1) : rank - 1;
    for (int64_t a = axis < 0 ? axis + rank : axis; a < rank; ++a) *len *= dim(a);
  }
  *len = std::max(1.0, *len);
  *rows = std::max(1.0, elements(x) / *len);
}
void normCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double rows, len;
  normRows(n, &rows, &len);
  w->params = {rows, len};
  w->flops = 6 * rows * len;
  w->bytes = 2 * rows * len * elemBytes(n);
}
void rmsNormCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double rows, len;
  normRows(n, &rows, &len);
  bool skip = n.op == "skipRmsNormalization";
  w->params = {rows, len};
  w->flops = 4 * rows * len;
  w->bytes = (skip ? 4 : 2) * rows * len * elemBytes(n);
}
void matmulNBitsCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  double K = double(n.attributes.getInt("K", 1)), N = double(n.attributes.getInt("N", 1));
  double bits = double(n.attributes.getInt("bits", 4)), block = double(std::max<int64_t>(1, n.attributes.getInt("blockSize", 32)));
  double M = std::max(1.0, elements(n.inputs.empty() ? nullptr : n.inputs[0]) / std::max(1.0, K));
  w->params = {M, K, N};
  w->flops = 2 * M * K * N;
  w->bytes = N * K * bits / 8 + N * (K / block) * 4 + (M * K + M * N) * elemBytes(n);
}
void quantizedMatmulCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  const OperandDesc *a = n.inputs.empty() ? nullptr : n.inputs[0];
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  double K = a && !a->shape.empty() ? double(a->shape.back()) : 1;
  double N = y && !y->shape.empty() ? double(y->shape.back()) : 1;
  double M = std::max(1.0, elements(y) / std::max(1.0, N));
  w->params = {M, K, N};
  w->flops = 2 * M * K * N;
  w->bytes = M * K + K * N + 4 * M * N;
}
// attention.comp: one workgroup per (batch, head, query row) over every key.
void attentionCost(const NodeDesc &n, const Dispatch &d, DispatchWork *w) {
  double rows = workgroups(d), T = 1, D = 1, kvRows = 1;
  if (n.op == "groupQueryAttention" && n.outputs.size() > 1 && n.outputs[1] && n.outputs[1]->shape.size() == 4) {
    const Shape &p = n.outputs[1]->shape;  // present [B, kvHeads, T, D]
    T = double(p[2]);
    D = double(p[3]);
    kvRows = double(p[0] * p[1]);
  } else if (n.inputs.size() > 1 && n.inputs[0] && n.inputs[1] && n.inputs[1]->shape.size() == 3) {
    double heads = double(std::max<int64_t>(1, n.attributes.getInt("heads", 1)));
    T = double(n.inputs[1]->shape[1]);
    D = double(n.inputs[0]->shape.back()) / heads;
    kvRows = double(n.inputs[1]->shape[0]) * heads;
  }
  w->params = {rows, T, D};
  w->flops = 4 * rows * T * D;
  w->bytes = (2 * rows * D + 2 * kvRows * T * D) * elemBytes(n);
}
// recurrent.comp: every step multiplies the input and the state by the gate weights.
void recurrentCost(const NodeDesc &n, const Dispatch &, DispatchWork *w) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  double steps = x && x->shape.size() == 3 ? double(x->shape[0]) : 1;
  double batch = x && x->shape.size() >= 2 ? double(x->shape[x->shape.size() - 2]) : 1;
  double weights = elements(n.inputs.size() > 1 ? n.inputs[1] : nullptr) +
                   elements(n.inputs.size() > 2 ? n.inputs[2] : nullptr);
  double hidden = n.inputs.size() > 2 && n.inputs[2] && !n.inputs[2]->shape.empty() ? double(n.inputs[2]->shape.back()) : 1;
  w->params = {steps * batch, hidden};
  w->flops = 2 * steps * batch * weights;
  w->bytes = steps * weights * elemBytes(n);
}

const std::vector<ShaderCost> &table() {
  static const std::vector<ShaderCost> t = {
      {&shaders::binary, "binary", "binary", binaryCost},
      {&shaders::binary_f64, "binary_f64", "binary", binaryCost},
      {&shaders::unary, "unary", "unary", unaryCost},
      {&shaders::where, "where", "where", whereCost},
      {&shaders::copy, "copy", "copy", copyCost},
      {&shaders::pad, "pad", "pad", copyCost},
      {&shaders::triangular, "triangular", "copy", copyCost},
      {&shaders::gather, "gather", "gather", gatherCost},
      {&shaders::gather_nd, "gather_nd", "gather", gatherCost},
      {&shaders::scatter_nd, "scatter_nd", "scatter", scatterCost},
      {&shaders::scatter_elements, "scatter_elements", "scatter", scatterCost},
      {&shaders::resample2d, "resample2d", "resample", resampleCost},
      {&shaders::quantize, "quantize", "quantize", quantizeCost},
      {&shaders::rotary, "rotary", "rotary", rotaryCost},
      {&shaders::gqa_present, "gqa_present", "kvCache", gqaPresentCost},
      {&shaders::matmul, "matmul", "matmul", matmulCost, true},
      // A grid of its own where the device has cooperative matrices
      // (calibration measures relaxed matmuls there), matmul's otherwise.
      {&shaders::matmul_coopmat, "matmul_coopmat", "matmul.coopmat", matmulCost, true},
      {&shaders::conv2d_gemm, "conv2d_gemm", "conv2d.gemm", convGemmCost, true},
      {&shaders::conv2d, "conv2d", "conv2d.direct", convDirectCost, true},
      {&shaders::depthwise_conv2d, "depthwise_conv2d", "conv2d.depthwise", convDirectCost, true},
      {&shaders::chain, "chain", "chain", chainCost},
      {&shaders::pool2d, "pool2d", "pool", poolCost, true},
      {&shaders::reduce, "reduce", "reduce", reduceCost, true},
      {&shaders::reduce_f64, "reduce_f64", "reduce", reduceCost, true},
      {&shaders::softmax, "softmax", "softmax", softmaxCost, true},
      {&shaders::cumsum, "cumsum", "cumsum", cumsumCost, true},
      {&shaders::cumsum_f64, "cumsum_f64", "cumsum", cumsumCost, true},
      {&shaders::normalization, "normalization", "normalization", normCost, true},
      {&shaders::rms_norm, "rms_norm", "rmsNorm", rmsNormCost, true},
      {&shaders::matmul_nbits, "matmul_nbits", "matmulNBits", matmulNBitsCost, true},
      {&shaders::quantized_matmul, "quantized_matmul", "quantizedMatmul", quantizedMatmulCost, true},
      {&shaders::attention, "attention", "attention", attentionCost},
      {&shaders::recurrent, "recurrent", "recurrent", recurrentCost, true},
  };
  return t;
}

const ShaderCost *find(const shaders::Spirv *s) {
  for (const ShaderCost &c : table())
    if (c.shader == s) return &c;
  return nullptr;
}

}  // namespace

Status dispatchWork(const NodeDesc &node, const Dispatch &d, DispatchWork *out) {
  const ShaderCost *c = find(d.shader);
  if (!c) return Status(StatusCode::kInternal, node.op + " '" + node.name + "': its GPU kernel dispatches a shader without a cost function");
  DispatchWork w;
  w.shader = c->name;
  w.family = c->family;
  c->fn(node, d, &w);
  *out = std::move(w);
  return Status::ok();
}

Status planWork(const NodeDesc &node, const KernelPlan &plan, std::vector<DispatchWork> *out) {
  out->clear();
  std::vector<const ShaderCost *> costs;
  for (const Dispatch &d : plan.dispatches) {
    DispatchWork w;
    WEBNN_RETURN_IF_ERROR(dispatchWork(node, d, &w));
    out->push_back(std::move(w));
    costs.push_back(find(d.shader));
  }
  for (size_t i = 0; i < out->size(); ++i) {
    if (!costs[i]->perNode) continue;
    double same = 0;
    for (const ShaderCost *c : costs) same += c == costs[i];
    (*out)[i].flops /= same;
    (*out)[i].bytes /= same;
  }
  return Status::ok();
}

const char *shaderName(const shaders::Spirv *shader) {
  const ShaderCost *c = find(shader);
  return c ? c->name : nullptr;
}

std::vector<std::string> costFamilies() {
  // The table's, and those a cost function picks by the node (unaryCost, chainCost).
  std::set<std::string> f = {"unary.transcendental", "chain.transcendental"};
  for (const ShaderCost &c : table()) f.insert(c.family);
  return {f.begin(), f.end()};
}

bool shaderHasCost(std::string_view name) {
  for (const ShaderCost &c : table())
    if (name == c.name) return true;
  return false;
}

}  // namespace webnn::vk
