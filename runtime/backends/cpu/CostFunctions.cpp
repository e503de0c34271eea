// The CPU backend's cost functions (CostFunctions.h), one per op, grouped
// by the kernel family that runs the op: the same grouping as
// kernels/*.cpp, where the families' factories live.
#include "backends/cpu/CostFunctions.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace webnn::cpu {
namespace {

double count(const Shape &s) {
  double n = 1;
  for (int64_t d : s) n *= double(std::max<int64_t>(d, 0));
  return n;
}
double bytesOf(const OperandDesc *o) { return o ? count(o->shape) * double(dataTypeBits(o->dtype)) / 8.0 : 0.0; }
double allBytes(const NodeDesc &n) {
  double b = 0;
  for (const OperandDesc *o : n.inputs) b += bytesOf(o);
  for (const OperandDesc *o : n.outputs) b += bytesOf(o);
  return b;
}
double outCount(const NodeDesc &n) { return n.outputs.empty() || !n.outputs[0] ? 0.0 : count(n.outputs[0]->shape); }
double inCount(const NodeDesc &n, size_t i) {
  return i < n.inputs.size() && n.inputs[i] ? count(n.inputs[i]->shape) : 0.0;
}
int64_t dim(const OperandDesc *o, int64_t i) {  // negative i counts from the end; 1 when absent
  if (!o) return 1;
  int64_t r = int64_t(o->shape.size());
  if (i < 0) i += r;
  return i >= 0 && i < r ? std::max<int64_t>(o->shape[size_t(i)], 1) : 1;
}
double atLeast1(double v) { return v < 1 ? 1 : v; }
bool isConstant(const std::vector<bool> &c, size_t i) { return i < c.size() && c[i]; }

NodeCost make(std::string family, std::vector<double> params, double flops, double bytes) {
  NodeCost c;
  c.family = std::move(family);
  for (double &p : params) p = atLeast1(p);
  c.params = std::move(params);
  c.flops = flops;
  c.bytes = bytes;
  return c;
}

// ---- elementwise (kernels/Elementwise.cpp, Binary.cpp): one pass over the
// elements; transcendental functions cost an order more per element.
NodeCost unaryCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = outCount(n);
  return make("unary", {e}, e, allBytes(n));
}
// Each transcendental op is a family of its own: their kernels differ by
// more than an order of magnitude per element (tanh vs sigmoid).
NodeCost mathCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = outCount(n);
  return make("unary." + n.op, {e}, 10 * e, allBytes(n));
}
NodeCost binaryCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = outCount(n);
  return make("binary", {e}, e, allBytes(n));
}

// ---- data movement (kernels/Shape.cpp, Indexing.cpp, Resample.cpp).
NodeCost copyCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = std::max(outCount(n), 1.0);
  for (const OperandDesc *o : n.outputs) e = std::max(e, o ? count(o->shape) : 0.0);
  return make("copy", {e}, 0, allBytes(n));
}
// reshape moves its bytes only when the executor cannot alias them; cost it
// as a copy (the planner gives it an arena slot of its own).
NodeCost reshapeCost(const NodeDesc &n, const std::vector<bool> &c) { return copyCost(n, c); }
NodeCost splitCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = inCount(n, 0);
  return make("copy", {e}, 0, allBytes(n));
}

// ---- reductions (kernels/Reduction.cpp): read everything, write little.
NodeCost reduceCost(const NodeDesc &n, const std::vector<bool> &) {
  double in = inCount(n, 0), out = outCount(n);
  return make("reduce", {in, in / atLeast1(out)}, 2 * in, allBytes(n));
}
NodeCost cumsumCost(const NodeDesc &n, const std::vector<bool> &) {
  double in = inCount(n, 0);
  return make("reduce", {in, 1}, in, allBytes(n));
}

// ---- softmax and normalizations (kernels/Softmax.cpp, Normalization.cpp,
// LLM.cpp's RMS norms): a few passes over each row.
NodeCost softmaxCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = inCount(n, 0);
  int64_t axis = n.attributes.getInt("axis", -1);
  double row = double(dim(n.inputs.empty() ? nullptr : n.inputs[0], axis));
  return make("softmax", {e, row}, 12 * e, allBytes(n));
}
NodeCost normCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = inCount(n, 0);
  double row = double(dim(n.inputs.empty() ? nullptr : n.inputs[0], -1));
  return make("norm", {e, row}, 6 * e, allBytes(n));
}

// ---- GEMM-shaped kernels: oneDNN matmul/conv, the packed-B SGEMM, ours.
// Parameters (M, K, N): rows of the output, the reduction, columns.
NodeCost matmulCost(const NodeDesc &n, const std::vector<bool> &constant) {
  const OperandDesc *a = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *b = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  bool gemm = n.op == "gemm";
  double M = double(dim(a, gemm && n.attributes.getBool("aTranspose", false) ? -1 : -2));
  double K = double(dim(a, gemm && n.attributes.getBool("aTranspose", false) ? -2 : -1));
  double N = double(dim(n.outputs.empty() ? nullptr : n.outputs[0], -1));
  double out = outCount(n);
  double batch = out / atLeast1(M * N);
  NodeCost c;
  if (isConstant(constant, 1) && b) {
    // Constant weights: one GEMM over every row of the batch.
    c = make("gemm", {M * batch, K, N}, 2 * out * K, allBytes(n));
    c.packedBytes = bytesOf(b);
  } else {
    c = make("matmul.batched", {M, K, N, batch}, 2 * out * K, allBytes(n));
  }
  c.jit = true;
  return c;
}

// conv2d/fusedConv2d (kernels/conv/Conv2dSelection.cpp): the factory picks depthwise,
// 1x1 (pointwise) or general kernels; each is a family of its own.
NodeCost convCost(const NodeDesc &n, const std::vector<bool> &constant) {
  const OperandDesc *x = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *w = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  bool nhwc = n.attributes.getString("inputLayout", "nchw") == "nhwc";
  int64_t groups = std::max<int64_t>(n.attributes.getInt("groups", 1), 1);
  double C = double(dim(x, nhwc ? -1 : 1)), O = double(dim(y, nhwc ? -1 : 1));
  double out = outCount(n), filter = w ? count(w->shape) : 0.0;
  double window = filter / atLeast1(O * (C / double(groups)));  // kh * kw
  double pixels = out / atLeast1(O);
  double flops = 2 * out * filter / atLeast1(O);
  NodeCost c;
  if (groups > 1 && groups == int64_t(C) && int64_t(O) == groups)
    c = make("conv2d.depthwise", {out, window}, flops, allBytes(n));
  else if (window <= 1 && groups == 1)
    c = make("conv2d.pointwise", {pixels, C, O}, flops, allBytes(n));
  else
    c = make("conv2d", {pixels, C / double(groups) * window, O / double(groups)}, flops, allBytes(n));
  if (isConstant(constant, 1)) c.packedBytes = bytesOf(w);
  c.jit = true;
  return c;
}
NodeCost convTransposeCost(const NodeDesc &n, const std::vector<bool> &constant) {
  const OperandDesc *x = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *w = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  bool nhwc = n.attributes.getString("inputLayout", "nchw") == "nhwc";
  int64_t groups = std::max<int64_t>(n.attributes.getInt("groups", 1), 1);
  double C = double(dim(x, nhwc ? -1 : 1));
  double in = inCount(n, 0), filter = w ? count(w->shape) : 0.0;
  double pixels = in / atLeast1(C);
  double perPixel = filter / atLeast1(C);  // (O / groups) * kh * kw
  NodeCost c = make("conv2d", {pixels, C / double(groups), perPixel}, 2 * in * perPixel, allBytes(n));
  if (isConstant(constant, 1)) c.packedBytes = bytesOf(w);
  c.jit = true;
  return c;
}

// ---- pooling (kernels/Pooling.cpp): the window's reads per output.
NodeCost poolCost(const NodeDesc &n, const std::vector<bool> &) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  bool nhwc = n.attributes.getString("layout", "nchw") == "nhwc";
  std::vector<int64_t> win =
      n.attributes.getInts("windowDimensions", {dim(x, nhwc ? 1 : 2), dim(x, nhwc ? 2 : 3)});
  double window = 1;
  for (int64_t v : win) window *= double(std::max<int64_t>(v, 1));
  double out = outCount(n);
  return make("pool", {out, window}, out * window, allBytes(n));
}

// ---- attention (kernels/Transformer.cpp, GqaAttention*): QK^T and PV.
NodeCost attentionCost(const NodeDesc &n, const std::vector<bool> &) {
  const OperandDesc *q = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *k = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  double heads = double(std::max<int64_t>(n.attributes.getInt("heads", 1), 1));
  double S = double(dim(q, 1)), D = double(dim(q, 2)), T = double(dim(k, 1)), B = double(dim(q, 0));
  double flops = 4 * B * S * T * D;
  NodeCost c = make("attention", {S, T, heads, heads}, flops, allBytes(n) + 4.0 * B * heads * S * T);
  c.jit = true;
  return c;
}
NodeCost gqaCost(const NodeDesc &n, const std::vector<bool> &) {
  const OperandDesc *q = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *pk = n.inputs.size() > 3 ? n.inputs[3] : nullptr;
  double H = double(std::max<int64_t>(n.attributes.getInt("numHeads", 1), 1));
  double KvH = double(std::max<int64_t>(n.attributes.getInt("kvNumHeads", 1), 1));
  bool packedQkv = n.inputs.size() < 2 || !n.inputs[1];
  double B = double(dim(q, 0)), S = double(dim(q, 1));
  double D = double(dim(q, 2)) / (packedQkv ? H + 2 * KvH : H);
  // The cache holds past and new rows; attention reads up to its length.
  double T = std::max(double(dim(pk, 2)), S);
  double flops = 4 * B * H * S * T * D;
  double bytes = bytesOf(q) + 2 * B * KvH * T * D * 4 + (n.outputs.empty() ? 0 : bytesOf(n.outputs[0]));
  return make("attention", {S, T, H, KvH}, flops, bytes);
}

// ---- quantized (kernels/QuantizedMatMul*): bound by the packed weights.
NodeCost matmulNBitsCost(const NodeDesc &n, const std::vector<bool> &constant) {
  double K = double(std::max<int64_t>(n.attributes.getInt("K", 1), 1));
  double N = double(std::max<int64_t>(n.attributes.getInt("N", 1), 1));
  double M = outCount(n) / N;
  NodeCost c = make("matmulNBits", {M, K, N}, 2 * M * K * N, allBytes(n));
  if (isConstant(constant, 1)) c.packedBytes = bytesOf(n.inputs.size() > 1 ? n.inputs[1] : nullptr);
  return c;
}
// quantizedMatmul (kernels/QdqMatmul.cpp): u8 x s8 products on VNNI, four
// multiply-adds per 32-bit lane where float32 does one, so the "gemm"
// family's float32 rate at a quarter of the work; a float operand is
// quantized first (one pass over it). Operands: a, its scale and zero
// point, then b (inputs[3]).
NodeCost quantizedMatmulCost(const NodeDesc &n, const std::vector<bool> &constant) {
  const OperandDesc *a = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *b = n.inputs.size() > 3 ? n.inputs[3] : nullptr;
  double K = double(dim(a, -1)), N = double(dim(n.outputs.empty() ? nullptr : n.outputs[0], -1));
  double out = outCount(n), M = out / atLeast1(N);
  NodeCost c = make("gemm", {M, K, N}, 2 * out * K / 4 + inCount(n, 0), allBytes(n));
  if (isConstant(constant, 3)) c.packedBytes = bytesOf(b);
  return c;
}
NodeCost quantizeCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = outCount(n);
  return make("unary", {e}, 2 * e, allBytes(n));
}

// ---- recurrent (kernels/Recurrent.cpp): per step a GEMV/GEMM of the gates.
NodeCost recurrentCost(const NodeDesc &n, const std::vector<bool> &) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  bool cell = n.op == "gruCell" || n.op == "lstmCell";
  double steps = cell ? 1 : double(dim(x, 0));
  double batch = double(dim(x, cell ? 0 : 1)), input = double(dim(x, -1));
  double hidden = double(std::max<int64_t>(n.attributes.getInt("hiddenSize", 0), 0));
  if (hidden < 1 && n.inputs.size() > 2 && n.inputs[2]) hidden = double(dim(n.inputs[2], -1));
  double gates = (n.op == "lstm" || n.op == "lstmCell") ? 4 : 3;
  std::string dir = n.attributes.getString("direction", "forward");
  double dirs = dir == "both" ? 2 : 1;
  double flops = 2 * dirs * steps * batch * gates * hidden * (input + hidden);
  return make("recurrent", {steps * dirs, batch, hidden, input}, flops, allBytes(n));
}

NodeCost rotaryCost(const NodeDesc &n, const std::vector<bool> &) {
  double e = inCount(n, 0);
  return make("binary", {e}, 3 * e, allBytes(n));
}

const std::vector<std::pair<std::string_view, CostFunction>> &table() {
  static const auto *entries = [] {
    auto *t = new std::vector<std::pair<std::string_view, CostFunction>>;
    auto add = [&](std::initializer_list<std::string_view> ops, CostFunction f) {
      for (std::string_view op : ops) t->emplace_back(op, f);
    };
    add({"abs", "neg", "sign", "relu", "identity", "ceil", "floor", "roundEven", "linear", "clamp", "leakyRelu",
         "hardSigmoid", "hardSwish", "logicalNot", "cast", "isNaN", "isInfinite", "softsign", "reciprocal"},
        &unaryCost);
    add({"exp", "log", "sqrt", "sigmoid", "tanh", "erf", "sin", "cos", "tan", "softplus", "gelu", "elu"}, &mathCost);
    add({"add", "sub", "mul", "div", "max", "min", "pow", "equal", "notEqual", "greater", "greaterOrEqual", "lesser",
         "lesserOrEqual", "logicalAnd", "logicalOr", "logicalXor", "prelu", "where"},
        &binaryCost);
    add({"concat", "expand", "transpose", "slice", "gather", "pad", "tile", "reverse", "triangular", "gatherElements",
         "gatherND", "scatterElements", "scatterND", "resample2d"},
        &copyCost);
    add({"reshape"}, &reshapeCost);
    add({"split"}, &splitCost);
    add({"reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceMean", "reduceMin",
         "reduceProduct", "reduceSum", "reduceSumSquare", "argMax", "argMin"},
        &reduceCost);
    add({"cumulativeSum"}, &cumsumCost);
    add({"softmax"}, &softmaxCost);
    add({"batchNormalization", "instanceNormalization", "layerNormalization", "rmsNormalization",
         "skipRmsNormalization"},
        &normCost);
    add({"matmul", "gemm", "fusedMatmul"}, &matmulCost);
    add({"conv2d", "fusedConv2d"}, &convCost);
    add({"convTranspose2d"}, &convTransposeCost);
    add({"averagePool2d", "maxPool2d", "l2Pool2d"}, &poolCost);
    add({"fusedAttention"}, &attentionCost);
    add({"groupQueryAttention"}, &gqaCost);
    add({"matmulNBits"}, &matmulNBitsCost);
    add({"quantizedMatmul"}, &quantizedMatmulCost);
    add({"quantizeLinear", "dequantizeLinear"}, &quantizeCost);
    add({"gru", "gruCell", "lstm", "lstmCell"}, &recurrentCost);
    add({"rotaryEmbedding"}, &rotaryCost);
    std::sort(t->begin(), t->end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    return t;
  }();
  return *entries;
}

}  // namespace

CostFunction findCostFunction(std::string_view op) {
  const auto &t = table();
  auto it = std::lower_bound(t.begin(), t.end(), op, [](const auto &e, std::string_view k) { return e.first < k; });
  return (it != t.end() && it->first == op) ? it->second : nullptr;
}

std::vector<std::string_view> costFunctionNames() {
  std::vector<std::string_view> names;
  for (const auto &e : table()) names.push_back(e.first);
  return names;
}

const std::vector<CostFamily> &costFamilies() {
  static const std::vector<CostFamily> families = {
      {"unary", 1},    {"unary.exp", 1},  {"unary.log", 1},  {"unary.sqrt", 1}, {"unary.sigmoid", 1},
      {"unary.tanh", 1}, {"unary.erf", 1}, {"unary.sin", 1},  {"unary.cos", 1},  {"unary.tan", 1},
      {"unary.softplus", 1}, {"unary.gelu", 1}, {"unary.elu", 1}, {"binary", 1}, {"copy", 1},
      {"reduce", 2},   {"softmax", 2},        {"norm", 2},           {"gemm", 3},
      {"matmul.batched", 4}, {"conv2d", 3},   {"conv2d.pointwise", 3}, {"conv2d.depthwise", 2},
      {"pool", 2},     {"attention", 4},      {"matmulNBits", 3},    {"recurrent", 4},
  };
  return families;
}

}  // namespace webnn::cpu
