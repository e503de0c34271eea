// gru, gruCell, lstm and lstmCell (WebNN spec sections of the same names):
// one dispatch of shaders/recurrent.comp, a workgroup per (direction, batch
// row) walking all steps with its state in shared memory. The checks mirror
// the CPU kernels (backends/cpu/kernels/Recurrent.cpp), which the tests hold
// this kernel to.
#include <sstream>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

constexpr uint32_t kInvocations = 64;
// Shared words per hidden unit: h, next h, z or c, r * h.
constexpr uint64_t kStateWords = 4;

bool present(const NodeDesc &node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }

struct RecurrentShape {
  bool lstm = false;
  int64_t steps = 1, batch = 0, inputSize = 0, hidden = 0, dirs = 1;
  bool backwardOnly = false, returnSequence = false;
  uint32_t gateRow[4] = {0, 1, 2, 3};
  uint32_t act[3] = {1, 2, 2};
  bool resetAfter = true;
};

Status parseActivations(const NodeDesc &node, const std::string &list, size_t count, uint32_t *out) {
  std::stringstream ss(list);
  std::string name;
  size_t n = 0;
  while (std::getline(ss, name, ',')) {
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    uint32_t code = name == "relu" ? 0 : name == "sigmoid" ? 1 : name == "tanh" ? 2 : 3;
    if (code == 3) return nodeUnsupported(node, "unknown activation '" + name + "' (expected relu, sigmoid or tanh)");
    if (n < count) out[n] = code;
    ++n;
  }
  if (n != count)
    return nodeUnsupported(node, "activations must list " + std::to_string(count) + " names, got '" + list + "'");
  return Status::ok();
}

// Operand i: absent when optional, else `shape` in the input's type.
Status checkOperand(const NodeDesc &node, size_t i, const char *what, const Shape &shape, bool optional) {
  if (!present(node, i)) return optional ? Status::ok() : nodeUnsupported(node, std::string("missing operand ") + what);
  const OperandDesc &o = *node.inputs[i];
  if (o.dtype != node.inputs[0]->dtype) return nodeUnsupported(node, std::string(what) + " must have the input's type");
  if (o.shape != shape)
    return nodeUnsupported(node, std::string(what) + " has shape " + shapeToString(o.shape) + ", expected " +
                                     shapeToString(shape));
  return Status::ok();
}

Status checkOutput(const NodeDesc &node, size_t i, const Shape &shape) {
  const OperandDesc *o = node.outputs[i];
  if (!o || o->dtype != node.inputs[0]->dtype || o->shape != shape)
    return nodeUnsupported(node, "output " + std::to_string(i) + " must be " + shapeToString(shape) +
                                     " in the input's type");
  return Status::ok();
}

// Options, hiddenSize and the input's dims, common to the four ops.
Status readShape(const NodeDesc &node, bool lstm, bool sequence, RecurrentShape *s) {
  s->lstm = lstm;
  size_t minIn = sequence ? 3 : (lstm ? 5 : 4), maxIn = lstm ? 8 : 6;
  if (node.inputs.size() < minIn || node.inputs.size() > maxIn || !node.inputs[0])
    return nodeUnsupported(node, "expects " + std::to_string(minIn) + ".." + std::to_string(maxIn) + " operands");
  const OperandDesc &x = *node.inputs[0];
  if (x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat16)
    return nodeUnsupported(node, "data type " + std::string(dataTypeName(x.dtype)) + " (float32 or float16 only)");
  if (!node.attributes.has("hiddenSize")) return nodeUnsupported(node, "missing required attribute 'hiddenSize'");
  s->hidden = node.attributes.getInt("hiddenSize", 0);
  std::string layout = node.attributes.getString("layout", lstm ? "iofg" : "zrn");
  std::string acts = node.attributes.getString("activations", lstm ? "sigmoid,tanh,tanh" : "sigmoid,tanh");
  if (!lstm) s->resetAfter = node.attributes.getBool("resetAfter", true);
  std::string direction = "forward";
  if (sequence) {
    if (!node.attributes.has("steps")) return nodeUnsupported(node, "missing required attribute 'steps'");
    s->steps = node.attributes.getInt("steps", 0);
    direction = node.attributes.getString("direction", "forward");
    s->returnSequence = node.attributes.getBool("returnSequence", false);
  }
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (s->hidden <= 0 || s->hidden > (int64_t(1) << 24)) return nodeUnsupported(node, "hiddenSize must be in 1..2^24");
  // Logical gates: GRU (z, r, n), LSTM (i, o, f, g).
  if (lstm && layout == "iofg") {
    s->gateRow[0] = 0, s->gateRow[1] = 1, s->gateRow[2] = 2, s->gateRow[3] = 3;
  } else if (lstm && layout == "ifgo") {
    s->gateRow[0] = 0, s->gateRow[1] = 3, s->gateRow[2] = 1, s->gateRow[3] = 2;
  } else if (!lstm && layout == "zrn") {
    s->gateRow[0] = 0, s->gateRow[1] = 1, s->gateRow[2] = 2;
  } else if (!lstm && layout == "rzn") {
    s->gateRow[0] = 1, s->gateRow[1] = 0, s->gateRow[2] = 2;
  } else {
    return nodeUnsupported(node, "unknown layout '" + layout + "'");
  }
  WEBNN_RETURN_IF_ERROR(parseActivations(node, acts, lstm ? 3 : 2, s->act));
  if (direction != "forward" && direction != "backward" && direction != "both")
    return nodeUnsupported(node, "unknown direction '" + direction + "' (expected forward, backward or both)");
  s->dirs = direction == "both" ? 2 : 1;
  s->backwardOnly = direction == "backward";
  if (sequence) {
    if (x.shape.size() != 3) return nodeUnsupported(node, "input must be 3-D [steps, batchSize, inputSize]");
    if (s->steps <= 0 || x.shape[0] != s->steps)
      return nodeUnsupported(node, "steps must be > 0 and equal input.shape[0]");
    s->batch = x.shape[1];
    s->inputSize = x.shape[2];
  } else {
    if (x.shape.size() != 2) return nodeUnsupported(node, "input must be 2-D [batchSize, inputSize]");
    s->batch = x.shape[0];
    s->inputSize = x.shape[1];
  }
  return Status::ok();
}

// Binding slots of recurrent.comp's optional operands, by the node's operand
// index (-1: the op has no such operand).
struct OperandSlots {
  int bias, rbias, peephole, h0, c0;
};

Status plan(const NodeDesc &node, const DeviceInfo &device, const RecurrentShape &s, const OperandSlots &slots,
            KernelPlan *result) {
  const int64_t H = s.hidden;
  const uint64_t sharedBytes = kStateWords * uint64_t(H) * 4;
  if (sharedBytes > device.maxSharedMemory)
    return nodeUnsupported(node, "hiddenSize " + std::to_string(H) + " needs " + std::to_string(sharedBytes) +
                                     " bytes of shared memory, the device has " +
                                     std::to_string(device.maxSharedMemory));
  if (s.dirs * s.batch > int64_t(65535) * 65535) return nodeUnsupported(node, "too many batch rows");
  if (s.batch == 0) return Status::ok();
  auto has = [&](int i) { return i >= 0 && present(node, size_t(i)); };
  Dispatch d;
  d.shader = &shaders::recurrent;
  d.localSize = kInvocations;
  uint32_t dt = 0;
  shaderDataType(node.inputs[0]->dtype, &dt);
  d.spec = {dt,
            s.lstm ? 1u : 0u,
            s.gateRow[0],
            s.gateRow[1],
            s.gateRow[2],
            s.gateRow[3],
            s.act[0],
            s.act[1],
            s.lstm ? s.act[2] : 2u,
            s.resetAfter ? 1u : 0u,
            has(slots.bias) ? 1u : 0u,
            has(slots.rbias) ? 1u : 0u,
            has(slots.peephole) ? 1u : 0u,
            has(slots.h0) ? 1u : 0u,
            has(slots.c0) ? 1u : 0u,
            s.returnSequence ? 1u : 0u,
            s.backwardOnly ? 1u : 0u,
            uint32_t(kStateWords * uint64_t(H))};
  // Absent operands alias the input (or the first output); the shader never
  // touches them.
  auto opt = [&](int i) { return has(i) ? in(uint32_t(i)) : in(0); };
  d.bindings = {in(0),
                in(1),
                in(2),
                opt(slots.bias),
                opt(slots.rbias),
                opt(slots.peephole),
                opt(slots.h0),
                opt(slots.c0),
                out(0),
                s.lstm ? out(1) : out(0),
                s.returnSequence ? out(s.lstm ? 2 : 1) : out(0)};
  d.pushU(uint32_t(s.steps)).pushU(uint32_t(s.batch)).pushU(uint32_t(s.inputSize)).pushU(uint32_t(H));
  d.pushU(uint32_t(s.dirs));
  d.coverElements(uint64_t(s.dirs * s.batch) * kInvocations);
  result->dispatches.push_back(std::move(d));
  return Status::ok();
}

Status makeGruCell(const NodeDesc &node, const DeviceInfo &device, KernelPlan *out) {
  RecurrentShape s;
  WEBNN_RETURN_IF_ERROR(readShape(node, false, false, &s));
  const int64_t H = s.hidden;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {3 * H, s.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {3 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "hiddenState", {s.batch, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "bias", {3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "recurrentBias", {3 * H}, true));
  if (node.outputs.size() != 1) return nodeUnsupported(node, "expects one output");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, {s.batch, H}));
  return plan(node, device, s, {4, 5, -1, 3, -1}, out);
}

Status makeLstmCell(const NodeDesc &node, const DeviceInfo &device, KernelPlan *out) {
  RecurrentShape s;
  WEBNN_RETURN_IF_ERROR(readShape(node, true, false, &s));
  const int64_t H = s.hidden;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {4 * H, s.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {4 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "hiddenState", {s.batch, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "cellState", {s.batch, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "bias", {4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 6, "recurrentBias", {4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 7, "peepholeWeight", {3 * H}, true));
  if (node.outputs.size() != 2) return nodeUnsupported(node, "expects two outputs");
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, {s.batch, H}));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 1, {s.batch, H}));
  return plan(node, device, s, {5, 6, 7, 3, 4}, out);
}

Status checkSequenceOutputs(const NodeDesc &node, const RecurrentShape &s, size_t states) {
  size_t want = states + (s.returnSequence ? 1 : 0);
  if (node.outputs.size() != want) return nodeUnsupported(node, "expects " + std::to_string(want) + " outputs");
  for (size_t i = 0; i < states; ++i) WEBNN_RETURN_IF_ERROR(checkOutput(node, i, {s.dirs, s.batch, s.hidden}));
  if (s.returnSequence) WEBNN_RETURN_IF_ERROR(checkOutput(node, states, {s.steps, s.dirs, s.batch, s.hidden}));
  return Status::ok();
}

Status makeGru(const NodeDesc &node, const DeviceInfo &device, KernelPlan *out) {
  RecurrentShape s;
  WEBNN_RETURN_IF_ERROR(readShape(node, false, true, &s));
  const int64_t H = s.hidden, D = s.dirs;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {D, 3 * H, s.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {D, 3 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "bias", {D, 3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "recurrentBias", {D, 3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "initialHiddenState", {D, s.batch, H}, true));
  WEBNN_RETURN_IF_ERROR(checkSequenceOutputs(node, s, 1));
  return plan(node, device, s, {3, 4, -1, 5, -1}, out);
}

Status makeLstm(const NodeDesc &node, const DeviceInfo &device, KernelPlan *out) {
  RecurrentShape s;
  WEBNN_RETURN_IF_ERROR(readShape(node, true, true, &s));
  const int64_t H = s.hidden, D = s.dirs;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {D, 4 * H, s.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {D, 4 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "bias", {D, 4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "recurrentBias", {D, 4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "peepholeWeight", {D, 3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 6, "initialHiddenState", {D, s.batch, H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 7, "initialCellState", {D, s.batch, H}, true));
  WEBNN_RETURN_IF_ERROR(checkSequenceOutputs(node, s, 2));
  return plan(node, device, s, {3, 4, 5, 6, 7}, out);
}

}  // namespace

void registerRecurrentKernels(std::vector<KernelEntry> *out) {
  out->push_back({"gru", makeGru});
  out->push_back({"gruCell", makeGruCell});
  out->push_back({"lstm", makeLstm});
  out->push_back({"lstmCell", makeLstmCell});
}

}  // namespace webnn::vk
