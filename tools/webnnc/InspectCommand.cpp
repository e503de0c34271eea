// webnnc inspect: what an artifact holds and what running it will need,
// without running it (and, for a weightless graph, without its weights).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>

#include "CLI/CLI.hpp"
#include "Commands.h"
#include "GraphRender.h"
#include "core/ArtifactLoader.h"
#include "core/Executor.h"
#include "core/PlacementPlan.h"
#include "nlohmann/json.hpp"

namespace webnnc {

void registerInspectCommand(CLI::App &app, InspectFlags &flags) {
  CLI::App *cmd = app.add_subcommand("inspect", "Describe a .wnn artifact");
  cmd->add_option("artifact", flags.artifact, "The .wnn artifact")->required();
  cmd->add_option("--weights", flags.weights, "Bind and verify a weightless artifact's weights");
  cmd->add_flag("--json", flags.json, "Print one JSON object");
  cmd->add_flag("--plan", flags.plan,
                "Print the intermediate-memory plan, each node's backend, the copies between host and "
                "device memory per run, and each backend's memory");
  cmd->add_option("--dot", flags.dot,
                  "Write the graph as Graphviz source to FILE (- for stdout): nodes, fused ops and what they "
                  "stand for, every tensor's shape and arena offset, each node's backend and the copies "
                  "between backends of a placed artifact; render with `dot -Tsvg`");
  cmd->add_option("--html", flags.html,
                  "Write the graph as one self-contained HTML page to FILE (- for stdout)");
}

namespace {

std::string humanBytes(uint64_t b) {
  char buf[32];
  if (b < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  else if (b < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else if (b < (1u << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  return buf;
}

// `dtype` is the WebNN type the graph computes in; `interface_dtype` (only
// when it differs) the one callers exchange, converted by the runtime.
nlohmann::json tensorJson(const webnn::rt::LoadedTensor &t) {
  nlohmann::json j{{"name", t.name}, {"dtype", std::string(webnn::dataTypeName(t.dtype))},
                   {"shape", t.shape}, {"bytes", t.byteSize}};
  if (!t.dims.empty()) {
    nlohmann::json dims = nlohmann::json::array();
    for (const webnn::rt::DimExpr &e : t.dims) dims.push_back(e.isStatic() ? nlohmann::json(nullptr) : nlohmann::json(e.spelling));
    j["dynamic_dims"] = dims;  // null for a static dimension; shape holds maxima
  }
  if (t.runLength) {
    nlohmann::json dims = nlohmann::json::array({"iterations"});
    for (size_t d = 1; d < t.shape.size(); ++d) dims.push_back(nullptr);
    j["dynamic_dims"] = dims;
  }
  if (t.interfaceType != t.dtype) {
    j["interface_dtype"] = std::string(webnn::dataTypeName(t.interfaceType));
    j["interface_bytes"] = t.interfaceByteSize;
  }
  return j;
}

// "float32 [1,3]", or "float64 [1,3] (computed as float32)".
std::string tensorText(const webnn::rt::LoadedTensor &t) {
  std::string s = std::string(webnn::dataTypeName(t.interfaceType)) + " " + shapeText(t);
  if (t.interfaceType != t.dtype) s += " (computed as " + std::string(webnn::dataTypeName(t.dtype)) + ")";
  return s;
}

// Writes `text` to `path`, or stdout for "-"; false (after the error) if it cannot.
bool writeOutput(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text;
    return bool(std::cout.flush());
  }
  std::ofstream out(path, std::ios::binary);
  if (out) out << text;
  if (!out || !out.flush()) {
    std::fprintf(stderr, "webnnc: error: %s: cannot write: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

std::string tensorLabel(const webnn::rt::LoadedGraph &g, uint32_t t) {
  return g.tensors[t].name.empty() ? "%" + std::to_string(t) : g.tensors[t].name;
}

nlohmann::json placementJson(const webnn::rt::PreparedGraph &p, const webnn::rt::PlacementPlan &plan) {
  const webnn::rt::LoadedGraph &g = p.graph;
  nlohmann::json j;
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t i = 0; i < g.nodes.size(); ++i)
    nodes.push_back({{"node", i}, {"op", g.nodes[i].op}, {"name", g.nodes[i].name},
                     {"placed", g.nodes[i].backend}, {"backend", plan.nodeBackend[i]}});
  j["nodes"] = nodes;
  nlohmann::json transfers = nlohmann::json::array();
  for (const webnn::rt::PlannedTransfer &x : plan.transfers)
    transfers.push_back({{"node", x.node}, {"when", x.beforeNode ? "before" : "after"}, {"tensor", tensorLabel(g, x.tensor)},
                         {"from", x.from}, {"to", x.to}, {"bytes", x.bytes}});
  j["transfers"] = transfers;
  nlohmann::json memory = nlohmann::json::array();
  for (const webnn::rt::BackendMemory &m : plan.memory)
    memory.push_back({{"backend", m.backend}, {"arena_bytes", m.arenaBytes}, {"constant_bytes", m.constantBytes},
                      {"input_bytes", m.inputBytes}});
  j["memory"] = memory;
  j["notes"] = plan.notes;
  return j;
}

std::string placementText(const webnn::rt::PreparedGraph &p, const webnn::rt::PlacementPlan &plan) {
  const webnn::rt::LoadedGraph &g = p.graph;
  std::string s = "placement\n";
  std::map<std::string, int> counts;
  for (const std::string &b : plan.nodeBackend) ++counts[b];
  for (const auto &[backend, count] : counts)
    s += "  " + backend + ": " + std::to_string(count) + (count == 1 ? " node\n" : " nodes\n");
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    char line[160];
    std::snprintf(line, sizeof line, "  #%-4zu %-8s %-22s", i, plan.nodeBackend[i].c_str(), g.nodes[i].op.c_str());
    s += line;
    if (!g.nodes[i].name.empty()) s += " '" + g.nodes[i].name + "'";
    // A placement this runtime cannot honour (the note below says why).
    s += placedElsewhere(g.nodes[i], plan.nodeBackend[i]) + "\n";
  }
  for (const std::string &note : plan.notes) s += "  note: " + note + "\n";
  uint64_t bytes = 0;
  for (const webnn::rt::PlannedTransfer &x : plan.transfers) bytes += x.bytes;
  s += "transfers per run: " + std::to_string(plan.transfers.size()) + ", " + humanBytes(bytes) + "\n";
  for (const webnn::rt::PlannedTransfer &x : plan.transfers)
    s += "  " + std::string(x.beforeNode ? "before" : "after ") + " #" + std::to_string(x.node) + "  " +
         tensorLabel(g, x.tensor) + "  " + x.from + " -> " + x.to + "  " + humanBytes(x.bytes) + "\n";
  s += "memory\n";
  for (const webnn::rt::BackendMemory &m : plan.memory) {
    s += "  " + m.backend + ": arena " + humanBytes(m.arenaBytes);
    if (m.constantBytes) s += ", constants " + humanBytes(m.constantBytes);
    if (m.inputBytes) s += ", inputs " + humanBytes(m.inputBytes);
    s += "\n";
  }
  return s;
}

}  // namespace

int runInspect(const InspectFlags &flags) {
  namespace rt = webnn::rt;
  int toStdout = (flags.dot == "-") + (flags.html == "-") + flags.json;
  if (toStdout > 1) {
    std::fprintf(stderr, "webnnc: error: only one of --json, --dot - and --html - may print to stdout\n");
    return 2;
  }
  rt::LoaderOptions options;
  options.weightsPath = flags.weights;
  options.allowUnboundWeights = true;
  options.hasKernel = [](std::string_view op) { return rt::findBackendForOp(op) != nullptr; };
  options.backends = rt::backendsText();
  rt::LoadedGraph loaded;
  if (webnn::Status s = rt::loadArtifact(flags.artifact, options, &loaded); !s) {
    std::fprintf(stderr, "webnnc: error: %s\n", s.message().c_str());
    return 1;
  }
  std::shared_ptr<rt::PreparedGraph> prepared;
  if (webnn::Status s = rt::prepareGraph(std::move(loaded), &prepared); !s) {
    std::fprintf(stderr, "webnnc: error: %s: %s\n", flags.artifact.c_str(), s.message().c_str());
    return 1;
  }
  const rt::LoadedGraph &g = prepared->graph;

  // The pictures show placements when the artifact records any (a CPU
  // artifact's would only repeat the default backend on every node).
  const bool pictures = !flags.dot.empty() || !flags.html.empty();
  bool placed = false;
  for (const rt::LoadedNode &n : g.nodes) placed |= !n.backend.empty();
  rt::PlacementPlan plan;
  if (flags.plan || (pictures && placed)) {
    if (webnn::Status s = rt::planPlacement(*prepared, &plan); !s) {
      std::fprintf(stderr, "webnnc: error: %s: %s\n", flags.artifact.c_str(), s.message().c_str());
      return 1;
    }
  }

  // The pictures replace the text summary (--json still prints).
  if (pictures) {
    const rt::PlacementPlan *shown = placed ? &plan : nullptr;
    if (!flags.dot.empty() && !writeOutput(flags.dot, renderDot(*prepared, flags.artifact, shown))) return 1;
    if (!flags.html.empty() && !writeOutput(flags.html, renderHtml(*prepared, flags.artifact, shown))) return 1;
    if (!flags.json) return 0;
  }

  std::map<std::string, int> opCounts;  // sorted, so the output is stable
  for (const rt::LoadedNode &n : g.nodes) ++opCounts[n.op];
  // Control flow: the nodes of If branches and Loop bodies count too.
  size_t subgraphNodes = 0;
  for (const rt::LoadedSubgraph &sub : g.subgraphs)
    for (const rt::LoadedNode &n : sub.nodes) ++opCounts[n.op], ++subgraphNodes;
  uint64_t constantCount = 0;
  for (const rt::LoadedTensor &t : g.tensors) constantCount += t.role == rt::TensorRole::kConstant;
  uint64_t packedCount = 0, packedBytes = 0;
  for (const rt::LoadedNode &n : g.nodes)
    for (const webnn::rt::PackedOperand &p : n.packed) ++packedCount, packedBytes += p.bytes;
  struct stat st {};
  stat(flags.artifact.c_str(), &st);

  if (flags.json) {
    nlohmann::json j;
    j["artifact"] = flags.artifact;
    j["file_bytes"] = static_cast<uint64_t>(st.st_size);
    j["producer"] = g.producer;
    j["graph"] = g.name;
    j["weightless"] = g.weightless;
    j["precision"] = g.relaxedPrecision ? "relaxed" : "exact";
    j["weights_bytes"] = g.weightsSize;
    j["constants"] = constantCount;
    j["nodes"] = g.nodes.size();
    j["subgraphs"] = g.subgraphs.size();
    j["subgraph_nodes"] = subgraphNodes;
    j["arena_bytes"] = prepared->arenaBytes;
    j["ops"] = opCounts;
    // file_offset: where the bytes lie in the .wnn (for tools and tests).
    j["packed_constants"] = nlohmann::json::array();
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (const webnn::rt::PackedOperand &p : g.nodes[i].packed)
        j["packed_constants"].push_back(
            {{"node", i}, {"input", p.input}, {"layout", p.layout}, {"bytes", p.bytes},
             {"file_offset", uint64_t(static_cast<const uint8_t *>(p.data) - g.artifact.data())}});
    for (const rt::DynamicDimension &d : g.dynamicDims)
      j["dynamic_dimensions"].push_back({{"name", d.name}, {"max_size", d.maxSize}});
    for (uint32_t i : g.inputs) j["inputs"].push_back(tensorJson(g.tensors[i]));
    for (uint32_t i : g.outputs) j["outputs"].push_back(tensorJson(g.tensors[i]));
    if (flags.plan) j["placement"] = placementJson(*prepared, plan);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("artifact  %s (%s)\n", flags.artifact.c_str(), humanBytes(st.st_size).c_str());
  std::printf("producer  %s\n", g.producer.c_str());
  std::printf("graph     \"%s\": %zu nodes, %llu constants\n", g.name.c_str(), g.nodes.size(),
              static_cast<unsigned long long>(constantCount));
  std::printf("weights   %s, %s\n", humanBytes(g.weightsSize).c_str(),
              g.weightless ? (flags.weights.empty() ? "weightless (not bound)"
                                                    : "weightless, bound and verified")
                           : "embedded");
  if (!g.subgraphs.empty())
    std::printf("control   %zu subgraphs (if branches, loop bodies) with %zu nodes\n", g.subgraphs.size(),
                subgraphNodes);
  if (packedCount)
    std::printf("prepacked %llu constants in CPU kernel layouts, %s (used where the runtime's kernels match)\n",
                static_cast<unsigned long long>(packedCount), humanBytes(packedBytes).c_str());
  std::printf("arena     %s for intermediates%s\n", humanBytes(prepared->arenaBytes).c_str(),
              g.dynamicDims.empty() ? "" : " (planned at the maximum sizes)");
  if (!g.dynamicDims.empty()) {
    std::printf("dynamic  ");
    for (size_t k = 0; k < g.dynamicDims.size(); ++k)
      std::printf("%s%s<=%lld", k ? ", " : " ", g.dynamicDims[k].name.c_str(),
                  static_cast<long long>(g.dynamicDims[k].maxSize));
    std::printf("\n");
  }
  std::printf("precision %s\n", g.relaxedPrecision ? "relaxed (conv2d/matmul/gemm may use bf16 with float32 accumulation)"
                                                    : "exact (every op in its operands' data type)");
  std::printf("inputs\n");
  for (uint32_t i : g.inputs)
    std::printf("  %-24s %s\n", g.tensors[i].name.c_str(), tensorText(g.tensors[i]).c_str());
  std::printf("outputs\n");
  for (uint32_t i : g.outputs)
    std::printf("  %-24s %s\n", g.tensors[i].name.c_str(), tensorText(g.tensors[i]).c_str());
  std::printf("ops\n");
  for (const auto &[op, count] : opCounts) std::printf("  %-24s %d\n", op.c_str(), count);
  if (flags.plan) std::printf("plan\n%s%s", prepared->planText.c_str(), placementText(*prepared, plan).c_str());
  return 0;
}

}  // namespace webnnc
