// Elementwise binary ops (with broadcasting, prelu among them), unary ops and
// activations, cast, and where: shaders/binary.comp, unary.comp, where.comp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"
#include "backends/vulkan/kernels/ElementwiseChain.h"

namespace webnn::vk {
namespace {

constexpr int kMaxRank = 6;

const std::map<std::string, uint32_t, std::less<>> kBinaryOps = {
    {"add", 0}, {"sub", 1}, {"mul", 2}, {"div", 3}, {"max", 4}, {"min", 5}, {"pow", 6},
    {"equal", 7}, {"greater", 8}, {"greaterOrEqual", 9}, {"lesser", 10}, {"lesserOrEqual", 11},
    {"notEqual", 12}, {"logicalAnd", 13}, {"logicalOr", 14}, {"logicalXor", 15}, {"prelu", 16}};

// Elements per dispatch when a tensor exceeds maxStorageBufferRange: a
// multiple of 256, so every chunk's byte offset is 256-aligned.
uint64_t chunkElements(const DeviceInfo &device, uint32_t widestElement) {
  return std::max<uint64_t>(256, device.maxStorageBufferRange / widestElement / 256 * 256);
}

// A binary op over tensors too large for one binding: one dispatch per
// chunk of the output, each binding its slice of every operand. Operands
// must be the output's size or single elements (broadcasting otherwise
// would need the chunk's multi-index).
Status splitBinary(const NodeDesc &node, const DeviceInfo &device, const shaders::Spirv *shader, uint32_t dtIn,
                   uint32_t dtOut, KernelPlan *plan) {
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1], &c = *node.outputs[0];
  int64_t count = elementsOf(c.shape);
  for (const OperandDesc *x : {&a, &b})
    if (elementsOf(x->shape) != count && elementsOf(x->shape) != 1)
      return nodeUnsupported(node, "broadcasting over a tensor larger than maxStorageBufferRange");
  uint32_t ea = elementBytes(a.dtype), ec = elementBytes(c.dtype);
  uint64_t chunk = chunkElements(device, std::max(ea, ec));
  for (uint64_t start = 0; start < uint64_t(count); start += chunk) {
    uint64_t n = std::min<uint64_t>(chunk, uint64_t(count) - start);
    auto slice = [&](uint32_t i, const OperandDesc &x) {
      return elementsOf(x.shape) == 1 ? in(i) : in(i, start * ea, n * ea);
    };
    Dispatch d;
    d.shader = shader;
    d.spec = {dtIn, dtOut, kBinaryOps.find(node.op)->second, 1};
    d.bindings = {slice(0, a), slice(1, b), out(0, start * ec, n * ec)};
    d.pushU(uint32_t(n));
    for (int i = 0; i < kMaxRank; ++i) d.pushU(i == kMaxRank - 1 ? uint32_t(n) : 1);
    for (const OperandDesc *x : {&a, &b})
      for (int i = 0; i < kMaxRank; ++i) d.pushU(i == kMaxRank - 1 && elementsOf(x->shape) != 1 ? 1 : 0);
    d.coverElements(n);
    plan->dispatches.push_back(std::move(d));
  }
  return Status::ok();
}

Status makeBinary(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || !node.inputs[0] || !node.inputs[1])
    return nodeUnsupported(node, "expects two inputs and one output");
  const OperandDesc &a = *node.inputs[0], &b = *node.inputs[1], &c = *node.outputs[0];
  uint32_t dtIn, dtOut;
  if (a.dtype != b.dtype) return nodeUnsupported(node, "operand data types differ");
  // float64: the double variant (no pow: GLSL has no double pow).
  const shaders::Spirv *shader = nullptr, *outShader = nullptr;
  const shaders::Spirv *f64 = node.op == "pow" ? nullptr : &shaders::binary_f64;
  WEBNN_RETURN_IF_ERROR(pickFloat64Variant(node, device, &shaders::binary, f64, a.dtype, &shader, &dtIn));
  WEBNN_RETURN_IF_ERROR(pickFloat64Variant(node, device, shader, f64, c.dtype, &outShader, &dtOut));
  if (a.shape.size() > c.shape.size() || b.shape.size() > c.shape.size())
    return nodeUnsupported(node, "input rank above the output's");
  int64_t count = elementsOf(c.shape);
  if (count == 0) return Status::ok();
  uint64_t largest = std::max({elementsOf(a.shape) * elementBytes(a.dtype), elementsOf(b.shape) * elementBytes(b.dtype),
                               count * elementBytes(c.dtype)});
  if (largest > device.maxStorageBufferRange) return splitBinary(node, device, shader, dtIn, dtOut, plan);
  Dispatch d;
  d.shader = shader;
  d.bindings = {in(0), in(1), out(0)};
  Shape dims = c.shape;
  std::vector<uint64_t> sa = vk::broadcastStrides(a.shape, dims.size()), sb = vk::broadcastStrides(b.shape, dims.size());
  coalesceDims(&dims, {&sa, &sb});
  if (dims.size() > kMaxRank) return nodeUnsupported(node, "rank above 6 after merging dims");
  // Operands of the output's shape or of one element merge to one dim
  // (stride 1 or 0): binary.comp's FLAT skips decomposing the index.
  bool flat = dims.size() == 1;
  d.spec = {dtIn, dtOut, kBinaryOps.find(node.op)->second, flat ? 1u : 0u};
  d.pushU(uint32_t(count));
  size_t off = kMaxRank - dims.size();
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 1 : uint32_t(dims[i - off]));
  for (const auto *st : {&sa, &sb})
    for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 0 : uint32_t((*st)[i - off]));
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

// `v` saturated to integer type `t`, as its two's-complement bits; NaN is
// the type's lowest (isMin) or highest value.
uint64_t saturatedBits(DataType t, double v, bool isMin) {
  double lo, hi;
  bool isSigned = t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kInt8;
  switch (t) {
    case DataType::kInt8: lo = -128; hi = 127; break;
    case DataType::kUint8: lo = 0; hi = 255; break;
    case DataType::kInt32: lo = -2147483648.0; hi = 2147483647.0; break;
    case DataType::kUint32: lo = 0; hi = 4294967295.0; break;
    case DataType::kInt64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case DataType::kUint64: lo = 0; hi = 18446744073709551615.0; break;
    default: return 0;
  }
  if (std::isnan(v)) v = isMin ? lo : hi;
  if (v <= lo) v = lo;
  if (v >= hi) {
    if (t == DataType::kInt64) return uint64_t(INT64_MAX);
    if (t == DataType::kUint64) return UINT64_MAX;
    v = hi;
  }
  if (isSigned) return uint64_t(int64_t(std::trunc(v)));
  return uint64_t(std::trunc(v));
}

struct UnaryOp {
  uint32_t code;
  double alphaDefault, betaDefault;
};
const std::map<std::string, UnaryOp, std::less<>> kUnaryOps = {
    {"identity", {0, 0, 0}}, {"abs", {1, 0, 0}}, {"ceil", {2, 0, 0}}, {"floor", {3, 0, 0}},
    {"exp", {4, 0, 0}}, {"log", {5, 0, 0}}, {"neg", {6, 0, 0}}, {"relu", {7, 0, 0}},
    {"sigmoid", {8, 0, 0}}, {"sqrt", {9, 0, 0}}, {"tanh", {10, 0, 0}}, {"erf", {11, 0, 0}},
    {"gelu", {12, 0, 0}}, {"elu", {13, 1.0, 0}}, {"hardSigmoid", {14, 0.2, 0.5}}, {"hardSwish", {15, 0, 0}},
    {"leakyRelu", {16, 0.01, 0}}, {"linear", {17, 1.0, 0.0}}, {"clamp", {18, 0, 0}},
    {"logicalNot", {19, 0, 0}}, {"reciprocal", {20, 0, 0}}, {"sin", {21, 0, 0}}, {"cos", {22, 0, 0}},
    {"softplus", {23, 0, 0}}, {"softsign", {24, 0, 0}}, {"sign", {25, 0, 0}}, {"roundEven", {26, 0, 0}},
    {"tan", {27, 0, 0}}, {"cast", {0, 0, 0}}, {"isNaN", {28, 0, 0}}, {"isInfinite", {29, 0, 0}}};

// unary.comp's alpha and beta push constants for `node`.
void unaryParameters(const NodeDesc &node, const UnaryOp &op, float *alpha, float *beta) {
  *alpha = float(node.attributes.getFloat("alpha", op.alphaDefault));
  *beta = float(node.attributes.getFloat("beta", op.betaDefault));
  if (node.op == "clamp") {
    *alpha = float(node.attributes.getFloat("minValue", -std::numeric_limits<double>::infinity()));
    *beta = float(node.attributes.getFloat("maxValue", std::numeric_limits<double>::infinity()));
  }
}

Status makeUnary(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || !node.inputs[0])
    return nodeUnsupported(node, "expects one input and one output");
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  uint32_t dtIn, dtOut;
  // float64 <-> float32/float16 casts: common.glsl converts float64 words
  // exactly (to float32 rounding to nearest even, as the CPU kernel does);
  // other float64 pairs would go through float32 and lose bits.
  auto isHalfOrSingle = [](DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; };
  bool f64Cast = node.op == "cast" && ((x.dtype == DataType::kFloat64 && isHalfOrSingle(y.dtype)) ||
                                       (y.dtype == DataType::kFloat64 && isHalfOrSingle(x.dtype)));
  if (f64Cast) {
    dtIn = uint32_t(x.dtype);
    dtOut = uint32_t(y.dtype);
  } else if (!shaderDataType(x.dtype, &dtIn) || !shaderDataType(y.dtype, &dtOut)) {
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)) + " -> " +
                                     std::string(dataTypeName(y.dtype)));
  }
  if (node.op != "cast" && x.dtype != y.dtype && node.op != "logicalNot" && node.op != "isNaN" &&
      node.op != "isInfinite")
    return nodeUnsupported(node, "output type differs from the input's");
  const UnaryOp &op = kUnaryOps.find(node.op)->second;
  float alpha, beta;
  unaryParameters(node, op, &alpha, &beta);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  int64_t count = elementsOf(y.shape);
  if (count == 0) return Status::ok();
  uint32_t ex = elementBytes(x.dtype), ey = elementBytes(y.dtype);
  // Over maxStorageBufferRange: one dispatch per chunk, each binding its slices.
  uint64_t chunk = chunkElements(device, std::max(ex, ey));
  for (uint64_t start = 0; start < uint64_t(count); start += chunk) {
    uint64_t n = std::min<uint64_t>(chunk, uint64_t(count) - start);
    Dispatch d;
    d.shader = &shaders::unary;
    d.spec = {dtIn, dtOut, op.code};
    d.bindings = {in(0, start * ex, n * ex), out(0, start * ey, n * ey)};
    d.pushU(uint32_t(n)).pushF(alpha).pushF(beta);
    // Integer clamp bounds, saturated to the element type (what the CPU
    // kernel does: -inf/+inf mean no bound).
    uint64_t lo = 0, hi = 0;
    if (node.op == "clamp") {
      double minV = node.attributes.getFloat("minValue", -std::numeric_limits<double>::infinity());
      double maxV = node.attributes.getFloat("maxValue", std::numeric_limits<double>::infinity());
      lo = saturatedBits(x.dtype, minV, true);
      hi = saturatedBits(x.dtype, maxV, false);
  }
  d.pushU(uint32_t(lo)).pushU(uint32_t(lo >> 32)).pushU(uint32_t(hi)).pushU(uint32_t(hi >> 32));
  d.coverElements(n);
  plan->dispatches.push_back(std::move(d));
  }
  return Status::ok();
}

// where(condition, trueValue, falseValue): shaders/where.comp.
Status makeWhere(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  (void)device;
  if (node.inputs.size() != 3 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects condition, trueValue, falseValue and one output");
  const OperandDesc &c = *node.inputs[0], &t = *node.inputs[1], &f = *node.inputs[2], &y = *node.outputs[0];
  uint32_t dtCond, bytes = elementBytes(y.dtype);
  if (!shaderDataType(c.dtype, &dtCond) || bytes == 0 || t.dtype != y.dtype || f.dtype != y.dtype)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(y.dtype)));
  size_t rank = y.shape.size();
  if (c.shape.size() > rank || t.shape.size() > rank || f.shape.size() > rank)
    return nodeUnsupported(node, "input rank above the output's");
  int64_t count = elementsOf(y.shape);
  if (count == 0) return Status::ok();
  Shape dims = y.shape;
  std::vector<uint64_t> sc = vk::broadcastStrides(c.shape, rank), stv = vk::broadcastStrides(t.shape, rank),
                        sf = vk::broadcastStrides(f.shape, rank);
  coalesceDims(&dims, {&sc, &stv, &sf});
  if (dims.size() > kMaxRank) return nodeUnsupported(node, "rank above 6 after merging dims");
  Dispatch d;
  d.shader = &shaders::where;
  d.spec = {bytes, dtCond};
  d.bindings = {in(0), in(1), in(2), out(0)};
  d.pushU(uint32_t(count));
  size_t off = kMaxRank - dims.size();
  for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 1 : uint32_t(dims[i - off]));
  for (const auto *st : {&sc, &stv, &sf})
    for (size_t i = 0; i < kMaxRank; ++i) d.pushU(i < off ? 0 : uint32_t((*st)[i - off]));
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

bool chainStepOf(const NodeDesc &node, ChainStep *out) {
  auto isF32 = [](const OperandDesc *o) { return o && o->dtype == DataType::kFloat32; };
  if (node.outputs.size() != 1 || !isF32(node.outputs[0])) return false;
  if (node.inputs.size() == 2) {
    static const char *const kChainable[] = {"add", "sub", "mul", "div", "max", "min", "prelu"};
    if (std::find(std::begin(kChainable), std::end(kChainable), node.op) == std::end(kChainable)) return false;
    if (!isF32(node.inputs[0]) || !isF32(node.inputs[1])) return false;
    out->code = kChainBinary + kBinaryOps.find(node.op)->second;
    out->alpha = out->beta = 0;
    return true;
  }
  if (node.inputs.size() != 1 || !isF32(node.inputs[0])) return false;
  auto it = kUnaryOps.find(node.op);
  if (it == kUnaryOps.end() || node.op == "cast" || node.op == "logicalNot" || node.op == "isNaN" ||
      node.op == "isInfinite")
    return false;
  unaryParameters(node, it->second, &out->alpha, &out->beta);
  if (!node.attributes.status().isOk()) return false;
  out->code = it->second.code;
  return true;
}

void registerElementwiseKernels(std::vector<KernelEntry> *out) {
  for (const auto &[name, code] : kBinaryOps) out->push_back({name.c_str(), makeBinary});
  for (const auto &[name, op] : kUnaryOps) out->push_back({name.c_str(), makeUnary});
  out->push_back({"where", makeWhere});
}

}  // namespace webnn::vk
