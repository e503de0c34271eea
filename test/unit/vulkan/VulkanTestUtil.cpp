#include "VulkanTestUtil.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace webnn::vk::test {

std::shared_ptr<Device> sharedDevice(std::string *why) {
  static std::shared_ptr<Device> device;
  static Status status = [] {
    Device::Options o = Device::defaultOptions();
    o.validation = true;
    return Device::create(o, &device);
  }();
  if (why) *why = status.message();
  return device;
}

Status runGpuOp(const std::shared_ptr<Device> &device, OpCase &c, ProgramStats *stats) {
  std::vector<ProgramTensor> tensors;
  std::vector<cpu::OperandDesc> operands(c.inputs.size() + c.outputs.size());
  ProgramNode pn;
  cpu::NodeDesc node;
  node.op = c.op;
  node.name = "test";
  node.attributes = c.attrs;
  node.relaxedPrecision = c.relaxed;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      node.inputs.push_back(nullptr);
      pn.inputs.push_back(-1);
      continue;
    }
    const TestTensor &t = *c.inputs[i];
    operands[i] = {t.dtype, t.shape, t.constant ? t.bytes.data() : nullptr};
    node.inputs.push_back(&operands[i]);
    ProgramTensor pt;
    pt.dtype = t.dtype;
    pt.shape = t.shape;
    pt.role = t.constant ? ProgramTensor::Role::kConstant : ProgramTensor::Role::kInput;
    pt.constantData = t.constant ? t.bytes.data() : nullptr;
    pn.inputs.push_back(int32_t(tensors.size()));
    tensors.push_back(pt);
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    cpu::OperandDesc &od = operands[c.inputs.size() + i];
    od = {c.outputs[i].dtype, c.outputs[i].shape, nullptr};
    node.outputs.push_back(&od);
    ProgramTensor pt;
    pt.dtype = od.dtype;
    pt.shape = od.shape;
    pt.role = ProgramTensor::Role::kOutput;
    pn.outputs.push_back(int32_t(tensors.size()));
    tensors.push_back(pt);
  }
  pn.desc = &node;
  std::unique_ptr<Program> program;
  WEBNN_RETURN_IF_ERROR(Program::create(device, tensors, {pn}, &program));
  for (size_t i = 0; i < c.inputs.size(); ++i)
    if (c.inputs[i] && !c.inputs[i]->constant)
      WEBNN_RETURN_IF_ERROR(program->setInput(pn.inputs[i], c.inputs[i]->bytes.data(), c.inputs[i]->bytes.size()));
  WEBNN_RETURN_IF_ERROR(program->run());
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    uint64_t bytes = 0;
    tensorByteSize(c.outputs[i].dtype, c.outputs[i].shape, &bytes);
    const uint8_t *p = static_cast<const uint8_t *>(program->outputData(pn.outputs[i]));
    c.outputs[i].bytes.assign(p, p + bytes);
  }
  if (stats) *stats = program->stats();
  return Status::ok();
}

std::string compareWithCpu(const std::shared_ptr<Device> &device, const OpCase &c, double rtol, double atol) {
  OpCase gpu = c, cpuCase = c;
  Status s = runGpuOp(device, gpu);
  if (!s.isOk()) return "GPU: " + s.message();
  s = cpu::test::runOp(cpuCase);
  if (!s.isOk()) return "CPU: " + s.message();
  std::ostringstream os;
  for (size_t o = 0; o < c.outputs.size(); ++o) {
    std::vector<double> g = gpu.outputs[o].values(), r = cpuCase.outputs[o].values();
    if (g.size() != r.size()) return "output sizes differ";
    bool isFloat = c.outputs[o].dtype == DataType::kFloat32 || c.outputs[o].dtype == DataType::kFloat16;
    int bad = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      bool same = std::isnan(g[i]) ? std::isnan(r[i])
                  : isFloat       ? (g[i] == r[i] || std::abs(g[i] - r[i]) <= atol + rtol * std::abs(r[i]))
                                  : g[i] == r[i];
      if (!same && bad++ < 3) os << c.op << " output " << o << "[" << i << "]: GPU " << g[i] << " CPU " << r[i] << "\n";
    }
    if (bad) os << c.op << ": " << bad << " of " << g.size() << " elements differ\n";
  }
  return os.str();
}

}  // namespace webnn::vk::test
