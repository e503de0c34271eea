// reduce{Sum,Mean,Max,Min,Product,L1,L2,LogSum,LogSumExp,SumSquare} over any
// set of axes, argMax/argMin along one: shaders/reduce.comp.
#include <map>
#include <string>

#include "Shaders.h"
#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

const std::map<std::string, uint32_t, std::less<>> kReduceOps = {
    {"reduceSum", 0}, {"reduceMean", 1}, {"reduceMax", 2}, {"reduceMin", 3}, {"reduceProduct", 4},
    {"reduceL1", 5}, {"reduceL2", 6}, {"reduceLogSum", 7}, {"reduceLogSumExp", 8}, {"reduceSumSquare", 9},
    {"argMax", 10}, {"argMin", 11}};

Status makeReduce(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.size() != 1 || !node.inputs[0] || node.outputs.size() != 1)
    return nodeUnsupported(node, "expects one input and one output");
  const OperandDesc &x = *node.inputs[0], &y = *node.outputs[0];
  uint32_t dtIn, dtOut;
  const shaders::Spirv *shader = nullptr, *outShader = nullptr;
  bool transcendental = node.op == "reduceLogSum" || node.op == "reduceLogSumExp";
  WEBNN_RETURN_IF_ERROR(pickFloat64Variant(node, device, &shaders::reduce, transcendental ? nullptr : &shaders::reduce_f64,
                                           x.dtype, &shader, &dtIn));
  WEBNN_RETURN_IF_ERROR(pickFloat64Variant(node, device, shader, transcendental ? nullptr : &shaders::reduce_f64,
                                           y.dtype, &outShader, &dtOut));
  size_t rank = x.shape.size();
  std::vector<int64_t> all(rank);
  for (size_t i = 0; i < rank; ++i) all[i] = int64_t(i);
  bool arg = node.op == "argMax" || node.op == "argMin";
  std::vector<int64_t> axes = arg ? std::vector<int64_t>{node.attributes.getInt("axis", 0)}
                                  : node.attributes.getInts("axes", all);
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  if (arg && x.shape.empty()) return nodeUnsupported(node, "argMin/argMax of a scalar");
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (a < 0) a += int64_t(rank);
    if (a < 0 || a >= int64_t(rank)) return nodeUnsupported(node, "axis out of range");
    reduced[size_t(a)] = true;
  }
  std::vector<uint64_t> xs = contiguousStrides(x.shape);
  std::vector<uint32_t> od, os, id, is;
  for (size_t d = 0; d < rank; ++d) {
    (reduced[d] ? id : od).push_back(uint32_t(x.shape[d]));
    (reduced[d] ? is : os).push_back(uint32_t(xs[d]));
  }
  if (od.size() > 6 || id.size() > 6) return nodeUnsupported(node, "rank above 6");
  int64_t count = elementsOf(y.shape), innerCount = 1;
  for (uint32_t v : id) innerCount *= v;
  if (count == 0) return Status::ok();
  if (arg && innerCount == 0) return nodeUnsupported(node, "argMin/argMax along an empty axis");
  Dispatch d;
  d.shader = shader;
  d.spec = {dtIn, dtOut, kReduceOps.find(node.op)->second};
  d.bindings = {in(0), out(0)};
  d.pushU(uint32_t(count)).pushU(uint32_t(innerCount));
  auto pad = [&](const std::vector<uint32_t> &v, uint32_t fill) {
    for (size_t i = v.size(); i < 6; ++i) d.pushU(fill);
    for (uint32_t e : v) d.pushU(e);
  };
  pad(od, 1);
  pad(os, 0);
  pad(id, 1);
  pad(is, 0);
  d.coverElements(uint64_t(count));
  plan->dispatches.push_back(std::move(d));
  return Status::ok();
}

}  // namespace

void registerReductionKernels(std::vector<KernelEntry> *out) {
  for (const auto &[name, code] : kReduceOps) out->push_back({name.c_str(), makeReduce});
}

}  // namespace webnn::vk
