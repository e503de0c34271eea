#include "backends/vulkan/VulkanGraph.h"

namespace webnn::vk {

Status GraphProgram::create(std::shared_ptr<Device> device, std::shared_ptr<const rt::PreparedGraph> graph,
                            std::unique_ptr<GraphProgram> *out) {
  const rt::LoadedGraph &g = graph->graph;
  if (!g.dynamicDims.empty()) return unsupported("the GPU backend does not run graphs with dynamic dimensions yet");
  if (!g.subgraphs.empty()) return unsupported("the GPU backend does not run control flow (if/loop) yet");
  std::vector<ProgramTensor> tensors(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const rt::LoadedTensor &lt = g.tensors[t];
    tensors[t].dtype = lt.dtype;
    tensors[t].shape = lt.shape;
    if (lt.role == rt::TensorRole::kConstant) {
      tensors[t].role = ProgramTensor::Role::kConstant;
      tensors[t].constantData = lt.constantData;
      if (!lt.constantData) return unsupported("constant '" + lt.name + "' has no bytes (weights not bound)");
    }
  }
  for (uint32_t t : g.inputs) tensors[t].role = ProgramTensor::Role::kInput;
  for (uint32_t t : g.outputs) {
    const rt::LoadedTensor &lt = g.tensors[t];
    if (lt.role != rt::TensorRole::kIntermediate)
      return unsupported("graph output '" + lt.name + "' is an input or constant: not on the GPU yet");
    tensors[t].role = ProgramTensor::Role::kOutput;
  }
  std::vector<ProgramNode> nodes(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    nodes[i].desc = &graph->nodes[i];
    nodes[i].inputs = g.nodes[i].inputs;
    nodes[i].outputs = g.nodes[i].outputs;
  }
  std::unique_ptr<GraphProgram> p(new GraphProgram());
  fuseElementwiseChains(device->info(), tensors, &nodes, &p->fused_);
  p->graph_ = std::move(graph);
  WEBNN_RETURN_IF_ERROR(Program::create(std::move(device), std::move(tensors), nodes, &p->program_));
  p->converted_.resize(g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const rt::LoadedTensor &lt = g.tensors[g.outputs[i]];
    if (lt.interfaceType != lt.dtype) p->converted_[i].resize(lt.interfaceByteSize);
  }
  *out = std::move(p);
  return Status::ok();
}

Status GraphProgram::setInput(size_t index, const void *data, uint64_t bytes) {
  if (index >= graph_->graph.inputs.size()) return invalidArgument("no graph input " + std::to_string(index));
  const rt::LoadedTensor &lt = graph_->graph.tensors[graph_->graph.inputs[index]];
  if (lt.interfaceType == lt.dtype) return program_->setInput(int32_t(graph_->graph.inputs[index]), data, bytes);
  if (bytes != lt.interfaceByteSize)
    return invalidArgument("input '" + lt.name + "': " + std::to_string(bytes) + " bytes, expected " +
                           std::to_string(lt.interfaceByteSize));
  int64_t count = 0;
  elementCount(lt.shape, &count);
  std::vector<uint8_t> buf(lt.byteSize);
  if (!convertElements(lt.interfaceType, data, lt.dtype, buf.data(), count))
    return unsupported("input '" + lt.name + "': no conversion from its interface type");
  return program_->setInput(int32_t(graph_->graph.inputs[index]), buf.data(), buf.size());
}

Status GraphProgram::run() {
  WEBNN_RETURN_IF_ERROR(program_->run());
  const rt::LoadedGraph &g = graph_->graph;
  for (size_t i = 0; i < converted_.size(); ++i) {
    if (converted_[i].empty()) continue;
    const rt::LoadedTensor &lt = g.tensors[g.outputs[i]];
    int64_t count = 0;
    elementCount(lt.shape, &count);
    if (!convertElements(lt.dtype, program_->outputData(int32_t(g.outputs[i])), lt.interfaceType,
                         converted_[i].data(), count))
      return unsupported("output '" + lt.name + "': no conversion to its interface type");
  }
  return Status::ok();
}

const void *GraphProgram::outputData(size_t index) const {
  if (index >= graph_->graph.outputs.size()) return nullptr;
  if (!converted_[index].empty()) return converted_[index].data();
  return program_->outputData(int32_t(graph_->graph.outputs[index]));
}

}  // namespace webnn::vk
