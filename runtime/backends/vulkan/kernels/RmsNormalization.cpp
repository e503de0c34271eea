// rmsNormalization and skipRmsNormalization (docs/LLM.md, ONNX Runtime's
// SimplifiedLayerNormalization / SkipSimplifiedLayerNormalization):
// shaders/rms_norm.comp, one workgroup per normalized row.
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

// The reduction is a power-of-two tree over the workgroup.
constexpr uint32_t kRowInvocations = 64;

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }

bool floatType(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

Status checkFloat(const NodeDesc &node, const OperandDesc &o, const char *what) {
  if (!floatType(o.dtype))
    return nodeUnsupported(node, std::string(what) + " has data type " + std::string(dataTypeName(o.dtype)) +
                                     " (float32 or float16 only)");
  return Status::ok();
}

// One dispatch over `rows` rows of `n`. Bindings: x, skip, gamma, bias,
// y, invStdDev, sum (absent ones alias present operands, never touched).
Status emit(const NodeDesc &node, KernelPlan *plan, uint64_t rows, uint64_t n, uint64_t skipRows, bool skip) {
  double eps = node.attributes.getFloat("epsilon", 1e-5);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (rows == 0 || n == 0) return Status::ok();
  if (rows > UINT32_MAX || n > UINT32_MAX) return nodeUnsupported(node, "more than 2^32 rows or row elements");
  const size_t gammaIndex = skip ? 2 : 1;
  const bool hasBias = skip && present(node, 3);
  const bool hasStat = node.outputs.size() >= 2 && node.outputs[1];
  auto dt = [](const OperandDesc *o) {
    uint32_t code = 0;
    shaderDataType(o->dtype, &code);
    return code;
  };
  Dispatch d;
  d.shader = &shaders::rms_norm;
  d.localSize = kRowInvocations;
  d.spec = {dt(node.inputs[0]),
            dt(skip ? node.inputs[1] : node.inputs[0]),
            dt(node.inputs[gammaIndex]),
            dt(hasBias ? node.inputs[3] : node.inputs[0]),
            dt(node.outputs[0]),
            dt(hasStat ? node.outputs[1] : node.outputs[0]),
            dt(skip ? node.outputs[2] : node.outputs[0]),
            skip ? 1u : 0u,
            hasBias ? 1u : 0u,
            hasStat ? 1u : 0u};
  d.bindings = {in(0), in(skip ? 1 : 0), in(uint32_t(gammaIndex)), in(hasBias ? 3 : 0),
                out(0), out(hasStat ? 1 : 0), out(skip ? 2 : 0)};
  d.pushU(uint32_t(rows)).pushU(uint32_t(n)).pushU(uint32_t(skipRows)).pushF(float(eps));
  d.coverElements(rows * kRowInvocations);
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

Status makeRmsNorm(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() != 2 || !node.inputs[0] || !node.inputs[1] || node.outputs.empty() ||
      node.outputs.size() > 2 || !node.outputs[0])
    return nodeUnsupported(node, "expects input and scale, and output (and invStdDev)");
  const OperandDesc &x = *node.inputs[0], &scale = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkFloat(node, x, "input"));
  WEBNN_RETURN_IF_ERROR(checkFloat(node, scale, "scale"));
  WEBNN_RETURN_IF_ERROR(checkFloat(node, *node.outputs[0], "output"));
  if (node.outputs.size() == 2 && node.outputs[1]) WEBNN_RETURN_IF_ERROR(checkFloat(node, *node.outputs[1], "invStdDev"));
  int64_t rank = int64_t(x.shape.size());
  if (rank < 1) return nodeUnsupported(node, "input must have rank >= 1");
  int64_t axis = node.attributes.getInt("axis", rank - 1);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  Shape inner(x.shape.begin() + axis, x.shape.end());
  if (scale.shape != inner) return nodeUnsupported(node, "scale must have shape input.shape[axis:]");
  if (node.outputs[0]->shape != x.shape) return nodeUnsupported(node, "output must have the input's shape");
  int64_t n = elementsOf(inner);
  return emit(node, plan, n ? uint64_t(elementsOf(x.shape) / n) : 0, uint64_t(n), 1, false);
}

Status makeSkipRmsNorm(const NodeDesc &node, const DeviceInfo &, KernelPlan *plan) {
  if (node.inputs.size() < 3 || node.inputs.size() > 4 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2] ||
      node.outputs.size() != 3 || !node.outputs[0] || !node.outputs[2])
    return nodeUnsupported(node, "expects input, skip, gamma (and bias), and output, invStdDev and sum");
  const OperandDesc &x = *node.inputs[0], &skip = *node.inputs[1];
  WEBNN_RETURN_IF_ERROR(checkFloat(node, x, "input"));
  WEBNN_RETURN_IF_ERROR(checkFloat(node, skip, "skip"));
  if (x.shape.empty()) return nodeUnsupported(node, "input must have rank >= 1");
  int64_t hidden = x.shape.back(), total = elementsOf(x.shape), skipCount = elementsOf(skip.shape);
  if (skip.shape.empty() || skip.shape.back() != hidden || skipCount == 0 || total % skipCount)
    return nodeUnsupported(node, "skip must have the input's trailing dimensions");
  for (size_t i : {size_t(2), size_t(3)}) {
    if (!present(node, i)) continue;
    WEBNN_RETURN_IF_ERROR(checkFloat(node, *node.inputs[i], i == 2 ? "gamma" : "bias"));
    if (node.inputs[i]->shape != Shape{hidden}) return nodeUnsupported(node, "gamma/bias must be [hidden]");
  }
  for (size_t o = 0; o < 3; ++o)
    if (node.outputs[o]) WEBNN_RETURN_IF_ERROR(checkFloat(node, *node.outputs[o], "output"));
  if (node.outputs[0]->shape != x.shape || node.outputs[2]->shape != x.shape)
    return nodeUnsupported(node, "output and sum must have the input's shape");
  if (hidden == 0) return Status::ok();
  return emit(node, plan, uint64_t(total / hidden), uint64_t(hidden), uint64_t(skipCount / hidden), true);
}

}  // namespace

void registerRmsNormalizationKernels(std::vector<KernelEntry> *out) {
  out->push_back({"rmsNormalization", makeRmsNorm});
  out->push_back({"skipRmsNormalization", makeSkipRmsNorm});
}

}  // namespace webnn::vk
