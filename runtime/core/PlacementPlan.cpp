#include "core/PlacementPlan.h"

#include <algorithm>

#include "core/Backend.h"
#include "core/ControlFlow.h"

namespace webnn::rt {
namespace {

void addSubgraphReads(const LoadedGraph &g, uint32_t s, std::vector<int32_t> *out) {
  const LoadedSubgraph &sub = g.subgraphs[s];
  for (const LoadedNode &n : sub.nodes) {
    out->insert(out->end(), n.inputs.begin(), n.inputs.end());
    for (uint32_t nested : n.subgraphs) addSubgraphReads(g, nested, out);
  }
  out->insert(out->end(), sub.outputs.begin(), sub.outputs.end());
}

}  // namespace

std::vector<std::optional<DataType>> narrowedConstants(const LoadedGraph &g, const std::vector<NodeDesc> &nodes,
                                                       const Backend &b, const std::function<bool(size_t)> &onB) {
  constexpr int kNone = -1, kMixed = -2;
  std::vector<int> answer(g.tensors.size(), kNone);  // the type every reader answered, kMixed where two differ
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!onB(i)) continue;
    const std::vector<int32_t> &ins = g.nodes[i].inputs;
    for (size_t j = 0; j < ins.size(); ++j) {
      if (ins[j] < 0 || g.tensors[size_t(ins[j])].role != TensorRole::kConstant || !nodes[i].inputs[j]) continue;
      const int a = int(b.constantStorageType(nodes[i], j));
      int &t = answer[size_t(ins[j])];
      t = t == kNone || t == a ? a : kMixed;
    }
  }
  std::vector<std::optional<DataType>> out(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (answer[t] >= 0 && DataType(answer[t]) != g.tensors[t].dtype) out[t] = DataType(answer[t]);
  return out;
}

Status planPlacement(const PreparedGraph &p, PlacementPlan *out, std::string_view device) {
  const LoadedGraph &g = p.graph;
  *out = PlacementPlan();
  Backend *host = defaultBackend();
  if (!host) return unsupported("this runtime was built without backends");
  const size_t numNodes = g.nodes.size(), numTensors = g.tensors.size();
  std::vector<Backend *> where(numNodes, host);
  // Dynamic graphs and control flow run on the default backend.
  if (g.dynamicDims.empty())
    for (size_t i = 0; i < numNodes; ++i) {
      const std::string want = device.empty() ? g.nodes[i].backend : std::string(device);
      if (want.empty() || isControlFlowOp(g.nodes[i].op)) continue;
      Backend *b = findBackend(want);
      for (Backend *c : backends())
        if (!b && c->deviceType() == want) b = c;
      if (b) {
        where[i] = b;
        continue;
      }
      std::string label = "node " + std::to_string(i);
      if (!g.nodes[i].name.empty()) label += " '" + g.nodes[i].name + "'";
      out->notes.push_back(label + " (" + g.nodes[i].op + "): placed on '" + want + "', runs on '" +
                           std::string(host->name()) + "': this runtime has no backend or device '" + want + "' (" +
                           backendsText() + ")");
    }
  for (Backend *b : where) out->nodeBackend.emplace_back(b->name());

  // Who reads each tensor: a device backend, or the host (null) for host
  // backends, subgraphs and graph outputs.
  auto side = [&](Backend *b) -> Backend * { return b->hostAddressable() ? nullptr : b; };
  std::vector<std::vector<Backend *>> readers(numTensors);
  auto addReader = [&](int32_t t, Backend *b) {
    if (t < 0) return;
    auto &r = readers[size_t(t)];
    if (std::find(r.begin(), r.end(), b) == r.end()) r.push_back(b);
  };
  for (size_t i = 0; i < numNodes; ++i) {
    for (int32_t t : g.nodes[i].inputs) addReader(t, side(where[i]));
    std::vector<int32_t> sub;
    for (uint32_t s : g.nodes[i].subgraphs) addSubgraphReads(g, s, &sub);
    for (int32_t t : sub) addReader(t, nullptr);
  }
  for (uint32_t o : g.outputs) addReader(int32_t(o), nullptr);

  // A constant's bytes on device backend b: in the type it keeps it in
  // (narrowedConstants), as a session uploads it.
  std::vector<std::pair<Backend *, std::vector<std::optional<DataType>>>> narrowed;  // per device backend
  auto constantBytesOn = [&](size_t t, Backend *b) {
    auto it = std::find_if(narrowed.begin(), narrowed.end(), [&](const auto &n) { return n.first == b; });
    if (it == narrowed.end()) {
      narrowed.emplace_back(b, narrowedConstants(g, p.nodes, *b, [&](size_t i) { return where[i] == b; }));
      it = narrowed.end() - 1;
    }
    const LoadedTensor &lt = g.tensors[t];
    uint64_t bytes = lt.byteSize;
    if (it->second[t] && !tensorByteSize(*it->second[t], lt.shape, &bytes)) return lt.byteSize;
    return bytes;
  };

  out->memory.push_back({std::string(host->name()), p.arenaBytes, 0, 0});
  auto memoryOf = [&](Backend *b) -> BackendMemory & {
    for (BackendMemory &m : out->memory)
      if (m.backend == b->name()) return m;
    uint64_t arena = 0;
    if (!b->hostAddressable()) {
      // The tensors its nodes make and read, planned for the nodes one by
      // one (a session whose backend groups nodes plans for the groups).
      std::vector<bool> touched(numTensors, false);
      for (size_t i = 0; i < numNodes; ++i) {
        if (where[i] != b) continue;
        for (int32_t t : g.nodes[i].inputs)
          if (t >= 0) touched[size_t(t)] = true;
        for (int32_t t : g.nodes[i].outputs) touched[size_t(t)] = true;
      }
      std::vector<int64_t> position(numNodes);
      for (size_t i = 0; i < numNodes; ++i) position[i] = int64_t(i);
      std::vector<uint64_t> offsets;
      if (!planDeviceArena(g, touched, position, {}, &offsets, &arena).isOk()) arena = p.arenaBytes;
    }
    out->memory.push_back({std::string(b->name()), arena, 0, 0});
    return out->memory.back();
  };
  std::vector<Backend *> home(numTensors, nullptr);  // the device a tensor is made on, null: host
  std::vector<std::vector<Backend *>> sentTo(numTensors), uploadedTo(numTensors);
  auto contains = [](const std::vector<Backend *> &v, Backend *b) { return std::find(v.begin(), v.end(), b) != v.end(); };
  for (size_t i = 0; i < numNodes; ++i) {
    Backend *b = side(where[i]);
    if (where[i] != host) memoryOf(where[i]);
    if (!b) {
      for (int32_t t : g.nodes[i].outputs) home[size_t(t)] = nullptr;
      continue;
    }
    BackendMemory &mem = memoryOf(b);
    for (int32_t t : g.nodes[i].inputs) {
      if (t < 0) continue;
      const LoadedTensor &lt = g.tensors[size_t(t)];
      if (lt.role == TensorRole::kConstant) {
        if (!contains(uploadedTo[size_t(t)], b))
          uploadedTo[size_t(t)].push_back(b), mem.constantBytes += constantBytesOn(size_t(t), b);
        continue;
      }
      if (home[size_t(t)] == b || contains(sentTo[size_t(t)], b)) continue;
      if (lt.role == TensorRole::kInput) mem.inputBytes += lt.byteSize;
      out->transfers.push_back({uint32_t(i), true, uint32_t(t), std::string(host->name()), std::string(b->name()),
                                lt.byteSize});
      sentTo[size_t(t)].push_back(b);
    }
    for (int32_t t : g.nodes[i].outputs) {
      home[size_t(t)] = b;
      const auto &r = readers[size_t(t)];
      if (std::any_of(r.begin(), r.end(), [&](Backend *x) { return x != b; }))
        out->transfers.push_back({uint32_t(i), false, uint32_t(t), std::string(b->name()), std::string(host->name()),
                                  g.tensors[size_t(t)].byteSize});
    }
  }
  return Status::ok();
}

}  // namespace webnn::rt
