// Binding: where each tensor's bytes are. Constants in the mapped artifact,
// intermediates in the arena, inputs in caller memory (in place when 64-byte
// aligned) or staging, outputs in the arena or caller memory (bindOutput), an
// output in place over an input (bindOutputInPlace), and each node's view of
// its tensors in its backend's memory.
#include <algorithm>
#include <cstring>

#include "core/Executor.h"

namespace webnn::rt {

void Executor::bindTensors(const MappedFile *const mappings[2]) {
  const LoadedGraph &g = graph_->graph;
  tensors_.resize(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    TensorBuffer &b = tensors_[t];
    b.dtype = g.tensors[t].dtype;
    b.shape = &operands_[t].shape;
    if (g.tensors[t].role == TensorRole::kConstant) {
      b.data = const_cast<uint8_t *>(g.tensors[t].constantData);  // kernels only read inputs
      for (int m = 0; m < 2; ++m) {
        const uint8_t *base = mappings[m]->data();
        if (base && b.data >= base && static_cast<uint8_t *>(b.data) < base + mappings[m]->size())
          b.buffer = constantBuffers_[m].get(), b.offset = uint64_t(static_cast<uint8_t *>(b.data) - base);
      }
    }
    else if (arenaOffset(t) != kNotInArena)
      b.data = arena_ + arenaOffset(t), b.buffer = arenaBuffer_.get(), b.offset = arenaOffset(t);
    else
      b.data = nullptr;  // graph input, bound by setInput
  }
}

// A pair's kernel gets both nodes' inputs and the second node's outputs.
void Executor::bindNodeIo(size_t i) {
  const LoadedGraph &g = graph_->graph;
  auto bind = [&](size_t n, std::vector<const TensorBuffer *> *ins, std::vector<TensorBuffer *> *outs) {
    const uint8_t slot = nodeSlot_.empty() ? 0 : nodeSlot_[n];
    std::vector<TensorBuffer> &view = slot == 0 || placed_[slot - 1].tensors.empty() ? tensors_ : placed_[slot - 1].tensors;
    for (int32_t in : g.nodes[n].inputs) ins->push_back(in < 0 ? nullptr : &view[in]);
    outs->clear();
    for (int32_t o : g.nodes[n].outputs) outs->push_back(&view[o]);
  };
  nodeInputs_[i].clear();
  bind(i, &nodeInputs_[i], &nodeOutputs_[i]);
  if (pairedAway(i + 1)) bind(i + 1, &nodeInputs_[i], &nodeOutputs_[i]);
}

Status Executor::setInput(size_t index, const void *data, uint64_t bytes, bool copy, const Shape *shape) {
  const LoadedGraph &g = graph_->graph;
  if (index >= g.inputs.size()) return invalidArgument("input index " + std::to_string(index) + " out of range");
  const LoadedTensor &t = g.tensors[g.inputs[index]];
  uint64_t expected = t.byteSize;
  if (!t.dims.empty()) {
    // Checked against the other inputs at run(); here only what this one fixes.
    if (!shape)
      return invalidArgument("input '" + t.name + "' has dynamic dimensions; give its shape with its data");
    if (shape->size() != t.dims.size())
      return invalidArgument("input '" + t.name + "': expected rank " + std::to_string(t.dims.size()) + ", got shape " +
                             shapeToString(*shape));
    for (size_t d = 0; d < shape->size(); ++d) {
      const DimExpr &e = t.dims[d];
      if ((*shape)[d] < 0 || (*shape)[d] > t.shape[d] || (e.isStatic() && (*shape)[d] != e.offset))
        return invalidArgument("input '" + t.name + "': shape " + shapeToString(*shape) + " does not fit " +
                               shapeToString(t.shape) + " (dimension " + std::to_string(d) +
                               (e.isStatic() ? " is static" : " '" + e.spelling + "' is at most " +
                                                                   std::to_string(t.shape[d])) + ")");
    }
    if (!tensorByteSize(t.dtype, *shape, &expected)) return invalidArgument("input '" + t.name + "': shape overflows");
  } else if (shape && *shape != t.shape) {
    return invalidArgument("input '" + t.name + "': expected shape " + shapeToString(t.shape) + ", got " +
                           shapeToString(*shape));
  }
  if (bytes != expected)
    return invalidArgument("input '" + t.name + "': expected " + std::to_string(expected) + " bytes (" +
                           std::string(dataTypeName(t.dtype)) + " " +
                           shapeToString(t.dims.empty() ? t.shape : *shape) + "), got " + std::to_string(bytes));
  if (!data && bytes) return invalidArgument("input '" + t.name + "': null data");
  TensorBuffer &b = tensors_[g.inputs[index]];
  if (!copy && data && reinterpret_cast<uintptr_t>(data) % kArenaAlignment == 0) {
    b.data = const_cast<void *>(data);  // kernels only read inputs (but see bindOutputInPlace)
    b.buffer = nullptr, b.offset = 0;
    inputInPlace_[index] = true;
  } else {
    inputInPlace_[index] = false;
    auto &staging = inputStaging_[index];
    if (!staging) {
      Status s = backend_->allocate(t.byteSize, &staging);  // the maximum, for every later shape
      if (!s.isOk()) return Status(s.code(), "input '" + t.name + "': cannot allocate staging buffer: " + s.message());
    }
    if (bytes) std::memcpy(staging->hostPointer(), data, bytes);
    b.data = staging->hostPointer(), b.buffer = staging.get(), b.offset = 0;
  }
  if (!t.dims.empty()) inputShapes_[index] = *shape;
  inputBound_[index] = true;
  return Status::ok();
}

void Executor::setRunRows(uint32_t tensor, int64_t rows) {
  const std::vector<uint32_t> &outputs = graph_->graph.outputs;
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k] != tensor) continue;
    runShapes_[k] = graph_->graph.tensors[tensor].shape;
    runShapes_[k][0] = rows;
    hasRunShape_[k] = true;
  }
}

const Shape &Executor::outputShape(size_t index) const {
  if (hasRunShape_[index]) return runShapes_[index];
  uint32_t t = graph_->graph.outputs[index];
  return operands_[t].shape;
}

uint64_t Executor::outputBytes(size_t index) const {
  const LoadedTensor &t = graph_->graph.tensors[graph_->graph.outputs[index]];
  if (!dynamic() && !hasRunShape_[index]) return t.byteSize;
  uint64_t bytes = 0;
  tensorByteSize(t.dtype, outputShape(index), &bytes);
  return bytes;
}

Status Executor::bindOutput(size_t index, void *data, uint64_t capacity) {
  const LoadedGraph &g = graph_->graph;
  if (index >= g.outputs.size()) return invalidArgument("output index " + std::to_string(index) + " out of range");
  const uint32_t t = g.outputs[index];
  const LoadedTensor &lt = g.tensors[t];
  if (outputCopyOffset(index) != kNotInArena || arenaOffset(t) == kNotInArena)
    return invalidArgument("output '" + lt.name + "' is not computed by a node and cannot be bound");
  if (inPlaceInput_[index] >= 0) {
    inPlaceInput_[index] = -1;
    resolved_ = false;  // the output's shape is its own again
  }
  if (!data) {
    tensors_[t].data = arena_ + arenaOffset(t);
    tensors_[t].buffer = arenaBuffer_.get(), tensors_[t].offset = arenaOffset(t);
    return Status::ok();
  }
  if (reinterpret_cast<uintptr_t>(data) % kArenaAlignment != 0)
    return invalidArgument("output '" + lt.name + "': a bound buffer must be 64-byte aligned");
  if (capacity < lt.byteSize)
    return invalidArgument("output '" + lt.name + "': a bound buffer needs " + std::to_string(lt.byteSize) +
                           " bytes (its maximum shape " + shapeToString(lt.shape) + "), got " + std::to_string(capacity));
  tensors_[t].data = data, tensors_[t].buffer = nullptr, tensors_[t].offset = 0;
  return Status::ok();
}

Status Executor::bindOutputInPlace(size_t output, size_t input) {
  const LoadedGraph &g = graph_->graph;
  if (output >= g.outputs.size()) return invalidArgument("output index " + std::to_string(output) + " out of range");
  if (input >= g.inputs.size()) return invalidArgument("input index " + std::to_string(input) + " out of range");
  const uint32_t ot = g.outputs[output], it = g.inputs[input];
  const LoadedTensor &o = g.tensors[ot], &in = g.tensors[it];
  auto refuse = [&](const std::string &why) {
    return invalidArgument("output '" + o.name + "' cannot be computed in place over input '" + in.name + "': " + why);
  };
  if (outputCopyOffset(output) != kNotInArena || o.role != TensorRole::kIntermediate || o.producer < 0 ||
      o.scope != -1)
    return refuse("it is not computed by a node of the main graph");
  if (std::find(g.outputs.begin(), g.outputs.end(), it) != g.outputs.end()) return refuse("the input is also an output");
  if (o.dtype != in.dtype || o.shape.size() != in.shape.size())
    return refuse("their types differ (" + std::string(dataTypeName(o.dtype)) + " " + shapeToString(o.shape) + " vs " +
                  std::string(dataTypeName(in.dtype)) + " " + shapeToString(in.shape) + ")");
  if (!dynamic() && o.shape != in.shape)
    return refuse("their shapes differ (" + shapeToString(o.shape) + " vs " + shapeToString(in.shape) + ")");
  if (!nodeSlot_.empty() && nodeSlot_[size_t(o.producer)] != 0 && !nodeBackend(size_t(o.producer)).hostAddressable())
    return refuse("its node runs on backend '" + std::string(nodeBackend(size_t(o.producer)).name()) +
                  "', whose memory is not the host's");
  // The producer must be the input's only reader (a later reader would see
  // the output's values), and nothing may read the output (its shape is the
  // input's, not the one the graph derived).
  bool producerReads = false;
  auto scan = [&](const std::vector<LoadedNode> &nodes, bool main) -> Status {
    for (size_t n = 0; n < nodes.size(); ++n)
      for (int32_t x : nodes[n].inputs) {
        if (x == int32_t(ot)) return refuse("node '" + nodes[n].name + "' reads the output");
        if (x != int32_t(it)) continue;
        if (!main || int32_t(n) != o.producer) return refuse("node '" + nodes[n].name + "' also reads the input");
        producerReads = true;
      }
    return Status::ok();
  };
  WEBNN_RETURN_IF_ERROR(scan(g.nodes, true));
  for (const LoadedSubgraph &sg : g.subgraphs) WEBNN_RETURN_IF_ERROR(scan(sg.nodes, false));
  if (!producerReads) return refuse("its node does not read the input");
  inPlaceInput_[output] = int64_t(input);
  resolved_ = false;  // re-derive shapes and kernels at the next run
  return Status::ok();
}

Status Executor::applyInPlace() {
  const LoadedGraph &g = graph_->graph;
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (inPlaceInput_[k] < 0) continue;
    const size_t input = size_t(inPlaceInput_[k]);
    const uint32_t ot = g.outputs[k], it = g.inputs[input];
    // Every decode step passes here: the message is built only on failure.
    auto refuse = [&](const std::string &why) {
      return invalidArgument("output '" + g.tensors[ot].name + "' in place over input '" + g.tensors[it].name +
                             "': " + why);
    };
    if (!inputInPlace_[input]) return refuse("the input must be bound to 64-byte aligned caller memory, not copied");
    const size_t node = size_t(g.tensors[ot].producer);
    const LoadedNode &ln = g.nodes[node];
    size_t o = size_t(std::find(ln.outputs.begin(), ln.outputs.end(), int32_t(ot)) - ln.outputs.begin());
    for (size_t i = 0; i < ln.inputs.size(); ++i)
      if (ln.inputs[i] == int32_t(it) && !active_[node]->allowsInPlace(o, i))
        return refuse("node '" + ln.name + "' (" + ln.op + ") cannot compute it in place" +
                      (dynamic() ? " with " + dynamicSizesText(g.dynamicDims, sizes_) : std::string()));
    tensors_[ot].data = tensors_[it].data;
    tensors_[ot].buffer = tensors_[it].buffer, tensors_[ot].offset = tensors_[it].offset;
  }
  return Status::ok();
}

const void *Executor::outputData(size_t index) const {
  const LoadedGraph &g = graph_->graph;
  if (index >= g.outputs.size()) return nullptr;
  uint64_t off = outputCopyOffset(index);
  if (off != kNotInArena) return arena_ + off;
  return tensors_[g.outputs[index]].data;
}


}  // namespace webnn::rt
