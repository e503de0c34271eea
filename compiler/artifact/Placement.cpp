#include "compiler/artifact/Placement.h"

#include <numeric>
#include <set>

#include "backends/vulkan/VulkanOpSupport.h"
#include "core/ArtifactLoader.h"
#include "core/ControlFlow.h"
#include "core/OpSupport.h"

namespace webnn::placement {
namespace {

// The ops whose arithmetic per byte moved is high enough to pay for copies
// to and from device memory: dot products (conv, matmul, gemm and their
// fused forms).
bool heavyOp(const std::string &op) {
  static const std::set<std::string, std::less<>> kHeavy = {"conv2d",      "fusedConv2d", "convTranspose2d",
                                                            "matmul",      "fusedMatmul", "gemm"};
  return kHeavy.count(op) != 0;
}

// Union-find over node indices.
struct Groups {
  std::vector<uint32_t> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

}  // namespace

bool isTarget(const std::string &target) { return target == "cpu" || target == "gpu" || target == "auto"; }

Status placeNodes(const rt::PreparedGraph &graph, const std::string &target, Result *out) {
  if (!isTarget(target)) return invalidArgument("unknown target '" + target + "' (expected cpu, gpu or auto)");
  const rt::LoadedGraph &g = graph.graph;
  const size_t n = graph.nodes.size();
  *out = Result();
  out->target = target;
  out->nodeBackends.assign(n, "");
  if (target == "cpu" || n == 0) {
    out->counts["cpu"] = n;
    return Status::ok();
  }
  if (!g.dynamicDims.empty()) {
    // The executor runs dynamic graphs on its default backend only.
    out->counts["cpu"] = n;
    out->notes.push_back("the graph has dynamic dimensions: every node stays on the CPU");
    return Status::ok();
  }
  const rt::OpSupportTable &gpu = vk::vulkanOpSupport();
  std::vector<bool> onGpu(n, false);
  std::vector<std::string> why(n);
  for (size_t i = 0; i < n; ++i) {
    if (rt::isControlFlowOp(graph.nodes[i].op))
      why[i] = "control flow runs on the CPU";
    else
      onGpu[i] = rt::withinLimits(gpu, graph.nodes[i], &why[i]);
  }
  if (target == "auto") {
    // Groups of GPU-able nodes joined by the tensors between them.
    Groups groups(n);
    for (size_t i = 0; i < n; ++i) {
      if (!onGpu[i]) continue;
      for (int32_t t : g.nodes[i].inputs) {
        if (t < 0) continue;
        int32_t p = g.tensors[size_t(t)].producer;
        if (g.tensors[size_t(t)].role == rt::TensorRole::kIntermediate && p >= 0 && onGpu[size_t(p)])
          groups.join(uint32_t(i), uint32_t(p));
      }
    }
    std::vector<bool> heavy(n, false);
    std::vector<uint32_t> size(n, 0);
    for (size_t i = 0; i < n; ++i)
      if (onGpu[i]) {
        uint32_t root = groups.find(uint32_t(i));
        heavy[root] = heavy[root] || heavyOp(graph.nodes[i].op);
        ++size[root];
      }
    for (size_t i = 0; i < n; ++i) {
      if (!onGpu[i]) continue;
      uint32_t root = groups.find(uint32_t(i));
      if (heavy[root]) continue;
      onGpu[i] = false;
      why[i] = "auto: in a group of " + std::to_string(size[root]) +
               " GPU-able node(s) with no conv, matmul or gemm (kept on the CPU, saving the copies)";
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (onGpu[i]) {
      out->nodeBackends[i] = "gpu";
      ++out->counts["gpu"];
      continue;
    }
    ++out->counts["cpu"];
    out->fallbacks.push_back({uint32_t(i), graph.nodes[i].name, graph.nodes[i].op, why[i]});
  }
  return Status::ok();
}

Status placeArtifact(const std::string &path, const std::string &target, Result *out) {
  rt::LoaderOptions options;
  options.allowUnboundWeights = true;  // shapes and types are enough
  rt::LoadedGraph loaded;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, options, &loaded));
  std::shared_ptr<rt::PreparedGraph> prepared;
  WEBNN_RETURN_IF_ERROR(rt::prepareGraph(std::move(loaded), &prepared));
  return placeNodes(*prepared, target, out);
}

std::string summaryText(const Result &r) {
  std::string s = "webnnc: placement (--target " + r.target + "):";
  bool first = true;
  for (const auto &[device, count] : r.counts) {
    s += (first ? " " : ", ") + std::to_string(count) + " node" + (count == 1 ? "" : "s") + " on " + device;
    first = false;
  }
  s += "\n";
  for (const std::string &note : r.notes) s += "webnnc:   " + note + "\n";
  // One line per op and reason, in order of first appearance.
  struct Line {
    std::string op, reason;
    std::vector<uint32_t> nodes;
  };
  std::vector<Line> lines;
  for (const Fallback &f : r.fallbacks) {
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const Line &l) { return l.op == f.op && l.reason == f.reason; });
    if (it == lines.end()) lines.push_back({f.op, f.reason, {}}), it = lines.end() - 1;
    it->nodes.push_back(f.node);
  }
  for (const Line &l : lines) {
    s += "webnnc:   cpu " + l.op + " x" + std::to_string(l.nodes.size()) + " (node";
    s += l.nodes.size() == 1 ? " " : "s ";
    for (size_t k = 0; k < l.nodes.size() && k < 4; ++k) s += (k ? ", " : "") + std::to_string(l.nodes[k]);
    if (l.nodes.size() > 4) s += ", ...";
    s += "): " + l.reason + "\n";
  }
  return s;
}

}  // namespace webnn::placement
