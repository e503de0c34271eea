#include "GraphRender.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/Backend.h"

namespace webnnc {
namespace rt = webnn::rt;

std::string shapeText(const rt::LoadedTensor &t) {
  if (t.runLength) {
    std::string s = "[iterations<=" + std::to_string(t.shape[0]);
    for (size_t d = 1; d < t.shape.size(); ++d) s += "," + std::to_string(t.shape[d]);
    return s + "]";
  }
  if (t.dims.empty()) return webnn::shapeToString(t.shape);
  std::string s = "[";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (d) s += ",";
    s += t.dims[d].isStatic() ? std::to_string(t.shape[d]) : t.dims[d].spelling + "<=" + std::to_string(t.shape[d]);
  }
  return s + "]";
}

namespace {

bool hasOperand(const rt::LoadedNode &n, size_t i) { return n.inputs.size() > i && n.inputs[i] >= 0; }

std::string bytesText(uint64_t b) {
  char buf[32];
  if (b < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  else if (b < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else if (b < (1u << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  return buf;
}

// "float32 [1,3]"; a graph input or output exchanged in a type WebNN lacks
// as `inspect` shows it: "bool [1,8] (computed as uint8)".
std::string typeText(const rt::LoadedTensor &t) {
  if (t.interfaceType == t.dtype) return std::string(webnn::dataTypeName(t.dtype)) + " " + shapeText(t);
  return std::string(webnn::dataTypeName(t.interfaceType)) + " " + shapeText(t) + " (computed as " +
         std::string(webnn::dataTypeName(t.dtype)) + ")";
}

// Intermediates are usually unnamed in the artifact: "%INDEX" then.
std::string tensorName(const rt::LoadedGraph &g, int32_t t) {
  return g.tensors[t].name.empty() ? "%" + std::to_string(t) : g.tensors[t].name;
}

const char *roleText(rt::TensorRole role) {
  switch (role) {
    case rt::TensorRole::kInput: return "input";
    case rt::TensorRole::kConstant: return "constant";
    case rt::TensorRole::kSubgraphInput: return "subgraph input";
    case rt::TensorRole::kIntermediate: return "intermediate";
  }
  return "";
}

// Where a tensor lives: "arena @OFFSET", or why it is not in the arena.
std::string placeText(const rt::PreparedGraph &p, int32_t t) {
  if (p.arenaOffset[t] != rt::kNotInArena) return "arena @" + std::to_string(p.arenaOffset[t]);
  switch (p.graph.tensors[t].role) {
    case rt::TensorRole::kInput: return "caller's memory";
    case rt::TensorRole::kConstant: return "weights";
    case rt::TensorRole::kSubgraphInput: return "bound by its node";
    case rt::TensorRole::kIntermediate: return "not in the arena";
  }
  return "";
}

const std::vector<rt::LoadedNode> &nodesOf(const rt::LoadedGraph &g, int32_t scope) {
  return scope < 0 ? g.nodes : g.subgraphs[scope].nodes;
}

// Graphviz ids: main-graph nodes n3, subgraph 1's nodes s1n3; the tensors
// that no node produces have nodes of their own.
std::string nodeId(int32_t scope, size_t i) {
  return (scope < 0 ? "n" : "s" + std::to_string(scope) + "n") + std::to_string(i);
}

std::string sourceId(const rt::LoadedGraph &g, int32_t t) {
  const rt::LoadedTensor &tensor = g.tensors[t];
  switch (tensor.role) {
    case rt::TensorRole::kInput: return "in" + std::to_string(t);
    case rt::TensorRole::kConstant: return "c" + std::to_string(t);
    case rt::TensorRole::kSubgraphInput: return "si" + std::to_string(t);
    case rt::TensorRole::kIntermediate: return nodeId(tensor.scope, size_t(tensor.producer));
  }
  return "";
}

std::string dotEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string htmlEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string joinParts(const std::vector<std::string> &parts, const char *sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

// "then", "else" or "body": what a control-flow node's k-th subgraph is.
std::string subgraphRole(const rt::LoadedNode &owner, size_t k) {
  if (owner.op == "if") return k == 0 ? "then" : "else";
  return "body";
}

// Per subgraph: the node that runs it and which of its subgraphs it is.
struct SubgraphOwner {
  int32_t scope = -1;
  size_t node = 0;
  size_t position = 0;
};

std::vector<SubgraphOwner> subgraphOwners(const rt::LoadedGraph &g) {
  std::vector<SubgraphOwner> owners(g.subgraphs.size());
  auto visit = [&](int32_t scope) {
    const auto &nodes = nodesOf(g, scope);
    for (size_t i = 0; i < nodes.size(); ++i)
      for (size_t k = 0; k < nodes[i].subgraphs.size(); ++k)
        if (nodes[i].subgraphs[k] < owners.size()) owners[nodes[i].subgraphs[k]] = {scope, i, k};
  };
  visit(-1);
  for (size_t s = 0; s < g.subgraphs.size(); ++s) visit(int32_t(s));
  return owners;
}

// A placement plan as the renderers read it: where each node runs, and the
// copy (if any) that brings a tensor to the backend of the node reading it.
struct PlacementView {
  const rt::PlacementPlan *plan = nullptr;
  std::string host;  // the default backend: subgraph nodes run there, outputs are read there

  explicit PlacementView(const rt::PlacementPlan *p) : plan(p) {
    if (p && !p->memory.empty()) host = p->memory.front().backend;
  }
  explicit operator bool() const { return plan != nullptr; }

  const std::string &backendOf(int32_t scope, size_t node) const {
    return scope < 0 && node < plan->nodeBackend.size() ? plan->nodeBackend[node] : host;
  }
  // The copy of tensor `t` to backend `to`, made before a node reads it
  // (`before`) or after the node that made it; -1 if there is none.
  int copy(int32_t t, const std::string &to, bool before) const {
    for (size_t k = 0; k < plan->transfers.size(); ++k) {
      const rt::PlannedTransfer &x = plan->transfers[k];
      if (int32_t(x.tensor) == t && x.to == to && x.beforeNode == before) return int(k);
    }
    return -1;
  }
  // The copy a node on `backend` reads `t` from: one made for that backend
  // before its first reader there, else one made after the producer.
  int copyFor(int32_t t, const std::string &backend) const {
    int k = copy(t, backend, true);
    return k >= 0 ? k : copy(t, backend, false);
  }
  // A backend's outline colour; empty for the default backend.
  std::string colour(const std::string &backend) const {
    static const char *kPalette[] = {"#1f6fb2", "#2e8b57", "#b03a7a", "#8a6d1f"};
    if (backend == host) return "";
    size_t index = 0;
    for (size_t k = 1; k < plan->memory.size(); ++k)
      if (plan->memory[k].backend == backend) index = k - 1;
    return kPalette[index % 4];
  }
  // "cpu: 1 node, vulkan: 2 nodes; 4 copies per run, 112 B".
  std::string summary() const {
    std::map<std::string, int> counts;
    for (const std::string &b : plan->nodeBackend) ++counts[b];
    std::string s;
    for (const auto &[backend, count] : counts)
      s += (s.empty() ? "" : ", ") + backend + ": " + std::to_string(count) + (count == 1 ? " node" : " nodes");
    uint64_t bytes = 0;
    for (const rt::PlannedTransfer &x : plan->transfers) bytes += x.bytes;
    return s + "; " + std::to_string(plan->transfers.size()) +
           (plan->transfers.size() == 1 ? " copy" : " copies") + " per run, " + bytesText(bytes);
  }
};

// "copy before #2: %5 cpu -> vulkan, 32 B".
std::string copyText(const rt::LoadedGraph &g, const rt::PlannedTransfer &x) {
  return std::string("copy ") + (x.beforeNode ? "before" : "after") + " #" + std::to_string(x.node) + ": " +
         tensorName(g, int32_t(x.tensor)) + " " + x.from + " -> " + x.to + ", " + bytesText(x.bytes);
}

}  // namespace

std::string placedElsewhere(const rt::LoadedNode &node, const std::string &runsOn) {
  if (node.backend.empty() || node.backend == runsOn) return "";
  const rt::Backend *runs = rt::findBackend(runsOn);
  if (runs && runs->deviceType() == node.backend) return "";
  return " (placed on " + node.backend + ")";
}

std::vector<std::string> fusedOpParts(const rt::LoadedNode &n) {
  const webnn::rt::NodeAttributes &a = n.attributes;
  std::vector<std::string> parts;
  if (n.op == "fusedConv2d") {
    parts.push_back(hasOperand(n, 2) ? "conv2d (with bias)" : "conv2d");
    if (hasOperand(n, 3)) parts.push_back("add (residual)");
    std::string activation = a.getString("activation", "none");
    if (activation != "none") parts.push_back(activation);
  } else if (n.op == "fusedMatmul") {
    parts.push_back("matmul");
    if (a.has("alpha") && a.getFloat("alpha", 1.0) != 1.0) parts.push_back("mul (alpha)");
    if (hasOperand(n, 2)) parts.push_back("add (bias)");
    if (hasOperand(n, 3)) parts.push_back("add (residual)");
    std::string activation = a.getString("activation", "none");
    if (!activation.empty() && activation != "none") parts.push_back(activation);
  } else if (n.op == "fusedAttention") {
    parts = {"reshape x3", "transpose x3 (head splits)", "matmul (q k^T)", "mul (scale)", "softmax",
             "matmul (v)", "transpose", "reshape (heads merged)"};
  } else if (n.op == "matmulNBits") {
    parts = {"dequantizeLinear (" + std::to_string(a.getInt("bits", 4)) + "-bit weight)", "matmul"};
    if (hasOperand(n, 4)) parts.push_back("add (bias)");
  } else if (n.op == "rmsNormalization" || n.op == "skipRmsNormalization") {
    if (n.op == "skipRmsNormalization") parts.push_back(hasOperand(n, 3) ? "add (skip, bias)" : "add (skip)");
    for (const char *p : {"mul (x*x)", "reduceMean", "add (epsilon)", "sqrt", "div", "mul (scale)"}) parts.push_back(p);
  } else if (n.op == "rotaryEmbedding") {
    parts = {"gather (cos/sin rows)", "slice (halves)", "neg", "concat", "mul (cos)", "mul (sin)", "add"};
  } else if (n.op == "groupQueryAttention") {
    parts = {"head splits (reshape, transpose)", "concat (KV cache)", "repeat KV heads (reshape, expand)",
             "matmul (q k^T)", "mul (scale)", "add (causal mask)", "softmax", "matmul (v)",
             "heads merged (transpose, reshape)"};
    if (a.getBool("doRotary", false)) parts.insert(parts.begin() + 1, "rotaryEmbedding (q, k)");
  }
  return parts;
}

std::string renderDot(const rt::PreparedGraph &p, const std::string &artifact, const rt::PlacementPlan *plan) {
  const rt::LoadedGraph &g = p.graph;
  const PlacementView placement(plan);
  std::ostringstream os;
  os << "digraph \"" << dotEscape(g.name) << "\" {\n"
     << "  graph [rankdir=TB, fontname=\"Helvetica\", labelloc=t, label=\"" << dotEscape(g.name) << " ("
     << dotEscape(artifact) << "): " << g.nodes.size() << " nodes, arena " << dotEscape(bytesText(p.arenaBytes));
  if (placement) {
    os << "\\nplacement: " << dotEscape(placement.summary());
    for (const std::string &note : plan->notes) os << "\\nnote: " << dotEscape(note);
  }
  os << "\"];\n"
     << "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", fillcolor=\"#eef2f7\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8];\n";

  auto tensorLabel = [&](int32_t t) {
    return dotEscape(tensorName(g, t)) + "\\n" + dotEscape(typeText(g.tensors[t])) + "\\n" + dotEscape(placeText(p, t));
  };
  // Tensors no node produces: graph inputs, constants, subgraph inputs.
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const rt::LoadedTensor &tensor = g.tensors[t];
    if (tensor.role == rt::TensorRole::kInput)
      os << "  in" << t << " [shape=ellipse, fillcolor=\"#d8f0d8\", label=\"input " << tensorLabel(int32_t(t))
         << "\"];\n";
    else if (tensor.role == rt::TensorRole::kConstant)
      os << "  c" << t << " [shape=note, fontsize=8, fillcolor=\"#f4f4f4\", label=\"" << dotEscape(tensorName(g, int32_t(t)))
         << "\\n" << dotEscape(typeText(tensor)) << "\\nconstant, " << dotEscape(bytesText(tensor.byteSize)) << "\"];\n";
  }

  // Edges go after every cluster: an edge written inside a cluster would pull
  // its other end (an outer tensor's producer) into the cluster.
  std::ostringstream edges;
  auto emitNodes = [&](int32_t scope, const std::string &indent) {
    const auto &nodes = nodesOf(g, scope);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const rt::LoadedNode &n = nodes[i];
      std::vector<std::string> parts = fusedOpParts(n);
      const std::string backend = placement ? placement.backendOf(scope, i) : std::string();
      const std::string colour = placement ? placement.colour(backend) : std::string();
      os << indent << nodeId(scope, i) << " [label=\"#" << i << " " << dotEscape(n.op);
      if (!n.name.empty()) os << "\\n" << dotEscape(n.name);
      if (!parts.empty()) os << "\\nfused: " << dotEscape(joinParts(parts, " + "));
      if (!n.packed.empty()) os << "\\n" << n.packed.size() << " prepacked operand(s)";
      if (placement) os << "\\non " << dotEscape(backend + placedElsewhere(n, backend));
      os << "\"";
      if (!parts.empty()) os << ", fillcolor=\"#fde3c8\"";
      if (!colour.empty()) os << ", color=\"" << colour << "\", penwidth=3";
      else if (!parts.empty()) os << ", penwidth=2";
      if (n.op == "if" || n.op == "loop") os << ", shape=diamond, fillcolor=\"#e6dcf5\"";
      os << "];\n";
      for (int32_t t : n.inputs) {
        if (t < 0) continue;
        // A constant's node already says what it is; a device backend has
        // it uploaded once per session, not copied per run.
        if (g.tensors[t].role == rt::TensorRole::kConstant) {
          edges << "  " << sourceId(g, t) << " -> " << nodeId(scope, i) << " [color=\"#999999\"";
          if (!colour.empty()) edges << ", fontcolor=\"#777777\", label=\"uploaded to " << dotEscape(backend) << "\"";
          edges << "];\n";
          continue;
        }
        int k = placement ? placement.copyFor(t, backend) : -1;
        edges << "  " << (k >= 0 ? "x" + std::to_string(k) : sourceId(g, t)) << " -> " << nodeId(scope, i)
              << " [label=\"" << tensorLabel(t) << "\"];\n";
      }
    }
  };
  emitNodes(-1, "  ");

  std::vector<SubgraphOwner> owners = subgraphOwners(g);
  for (size_t s = 0; s < g.subgraphs.size(); ++s) {
    const rt::LoadedSubgraph &sub = g.subgraphs[s];
    const SubgraphOwner &owner = owners[s];
    const rt::LoadedNode &ownerNode = nodesOf(g, owner.scope)[owner.node];
    os << "  subgraph cluster_s" << s << " {\n"
       << "    label=\"subgraph " << s << ": " << subgraphRole(ownerNode, owner.position) << " of #" << owner.node << " "
       << dotEscape(ownerNode.op) << (ownerNode.name.empty() ? "" : " " + dotEscape(ownerNode.name)) << "\";\n"
       << "    style=dashed; color=\"#7a5ea8\";\n"
       << "    s" << s << "entry [shape=point];\n";
    for (uint32_t t : sub.inputs)
      os << "    si" << t << " [shape=ellipse, fillcolor=\"#ece4f7\", label=\"" << tensorLabel(int32_t(t)) << "\"];\n";
    emitNodes(int32_t(s), "    ");
    os << "    s" << s << "yield [shape=ellipse, fillcolor=\"#ece4f7\", label=\"yield\"];\n  }\n";
    for (uint32_t t : sub.outputs)
      edges << "  " << sourceId(g, int32_t(t)) << " -> s" << s << "yield [label=\"" << tensorLabel(int32_t(t)) << "\"];\n";
    edges << "  " << nodeId(owner.scope, owner.node) << " -> s" << s << "entry [style=dashed, arrowhead=none, label=\""
          << subgraphRole(ownerNode, owner.position) << "\"];\n";
  }
  // Each copy per run sits on the edges it serves: producer (or the copy
  // that brought the tensor to the host) -> copy -> the readers on `to`.
  if (placement)
    for (size_t k = 0; k < plan->transfers.size(); ++k) {
      const rt::PlannedTransfer &x = plan->transfers[k];
      const int32_t t = int32_t(x.tensor);
      os << "  x" << k << " [shape=cds, fillcolor=\"#fff1b8\", label=\"" << dotEscape(copyText(g, x)) << "\"];\n";
      int from = x.beforeNode ? placement.copy(t, x.from, false) : -1;
      edges << "  " << (from >= 0 ? "x" + std::to_string(from) : sourceId(g, t)) << " -> x" << k << " [label=\""
            << tensorLabel(t) << "\"];\n";
    }
  os << edges.str();

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    int32_t t = int32_t(g.outputs[k]);
    int copied = placement ? placement.copyFor(t, placement.host) : -1;
    os << "  out" << k << " [shape=ellipse, fillcolor=\"#f7dada\", label=\"output " << dotEscape(tensorName(g, t))
       << "\"];\n"
       << "  " << (copied >= 0 ? "x" + std::to_string(copied) : sourceId(g, t)) << " -> out" << k << " [label=\""
       << tensorLabel(t);
    if (k < p.outputCopyOffset.size() && p.outputCopyOffset[k] != rt::kNotInArena)
      os << "\\ncopied to arena @" << p.outputCopyOffset[k];
    os << "\"];\n";
  }
  os << "}\n";
  return os.str();
}

namespace {

// The main graph drawn in layers (inline SVG, no script): a node one layer
// below the deepest node or graph input it reads; graph inputs on top,
// outputs at the bottom. Hovering a box or edge shows its details (<title>).
std::string svgGraph(const rt::PreparedGraph &p, const PlacementView &placement) {
  const rt::LoadedGraph &g = p.graph;
  constexpr int kBoxW = 150, kBoxH = 34, kColW = 170, kRowH = 64, kMargin = 10;
  std::vector<int> layer(g.nodes.size(), 1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int32_t t : g.nodes[i].inputs)
      if (t >= 0 && g.tensors[t].role == rt::TensorRole::kIntermediate && g.tensors[t].scope < 0 &&
          g.tensors[t].producer >= 0 && size_t(g.tensors[t].producer) < i)
        layer[i] = std::max(layer[i], layer[g.tensors[t].producer] + 1);
  int outputLayer = 1;
  for (int l : layer) outputLayer = std::max(outputLayer, l + 1);
  // Positions: boxes for graph inputs (layer 0), nodes, graph outputs.
  struct Box { int x, y; };
  std::map<int, int> used;  // layer -> boxes placed
  auto place = [&](int l) { return Box{kMargin + kColW * used[l]++, kMargin + kRowH * l}; };
  std::map<int32_t, Box> inputBox;
  for (uint32_t t : g.inputs) inputBox[int32_t(t)] = place(0);
  std::vector<Box> nodeBox;
  for (size_t i = 0; i < g.nodes.size(); ++i) nodeBox.push_back(place(layer[i]));
  std::vector<Box> outputBox;
  for (size_t k = 0; k < g.outputs.size(); ++k) outputBox.push_back(place(outputLayer));
  int columns = 1;
  for (const auto &[l, n] : used) columns = std::max(columns, n);
  const int width = 2 * kMargin + kColW * columns, height = 2 * kMargin + kRowH * outputLayer + kBoxH;

  std::ostringstream os;
  auto e = htmlEscape;
  os << "<svg width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  auto source = [&](int32_t t, Box *b) {
    const rt::LoadedTensor &tensor = g.tensors[t];
    if (tensor.role == rt::TensorRole::kInput && inputBox.count(t)) return *b = inputBox[t], true;
    if (tensor.role == rt::TensorRole::kIntermediate && tensor.scope < 0 && tensor.producer >= 0)
      return *b = nodeBox[tensor.producer], true;
    return false;  // constants: listed in the node table, not drawn
  };
  // An edge a copy per run serves is dashed orange, the copy in its title.
  auto edge = [&](const Box &from, const Box &to, int32_t t, const std::string &readerBackend) {
    int k = placement ? placement.copyFor(t, readerBackend) : -1;
    std::string copied = k >= 0 ? ", " + copyText(g, placement.plan->transfers[k]) : "";
    os << "<line x1=\"" << from.x + kBoxW / 2 << "\" y1=\"" << from.y + kBoxH << "\" x2=\"" << to.x + kBoxW / 2
       << "\" y2=\"" << to.y << "\" stroke=\"" << (k >= 0 ? "#e08a00\" stroke-dasharray=\"5,3" : "#888")
       << "\" stroke-width=\"1.2\"><title>" << e(tensorName(g, t)) << " " << e(typeText(g.tensors[t])) << ", "
       << e(placeText(p, t)) << e(copied) << "</title></line>\n"
       << "<circle cx=\"" << to.x + kBoxW / 2 << "\" cy=\"" << to.y << "\" r=\"2.5\" fill=\"#888\"/>\n";
  };
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int32_t t : g.nodes[i].inputs) {
      Box from{};
      if (t >= 0 && source(t, &from))
        edge(from, nodeBox[i], t, placement ? placement.backendOf(-1, i) : std::string());
    }
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    Box from{};
    if (source(int32_t(g.outputs[k]), &from)) edge(from, outputBox[k], int32_t(g.outputs[k]), placement.host);
  }
  // `backend`: a node's, written in the box's corner when it has a colour.
  auto box = [&](const Box &b, const char *fill, const std::string &line1, const std::string &line2,
                 const std::string &tooltip, const std::string &backend = "") {
    const std::string colour = placement && !backend.empty() ? placement.colour(backend) : "";
    os << "<g><title>" << e(tooltip) << "</title><rect x=\"" << b.x << "\" y=\"" << b.y << "\" width=\"" << kBoxW
       << "\" height=\"" << kBoxH << "\" rx=\"6\" fill=\"" << fill << "\" stroke=\""
       << (colour.empty() ? "#556\"" : colour + "\" stroke-width=\"3\"") << "/>"
       << "<text x=\"" << b.x + kBoxW / 2 << "\" y=\"" << b.y + 14 << "\" text-anchor=\"middle\">" << e(line1.substr(0, 24))
       << "</text><text x=\"" << b.x + kBoxW / 2 << "\" y=\"" << b.y + 27 << "\" text-anchor=\"middle\" fill=\"#555\">"
       << e(line2.substr(0, 26)) << "</text>";
    if (!colour.empty())
      os << "<text x=\"" << b.x + kBoxW - 4 << "\" y=\"" << b.y - 2 << "\" text-anchor=\"end\" font-size=\"9\" fill=\""
         << colour << "\">" << e(backend) << "</text>";
    os << "</g>\n";
  };
  for (const auto &[t, b] : inputBox)
    box(b, "#d8f0d8", "input " + tensorName(g, t), typeText(g.tensors[t]), tensorName(g, t) + " " + typeText(g.tensors[t]));
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const rt::LoadedNode &n = g.nodes[i];
    std::vector<std::string> parts = fusedOpParts(n);
    std::string tooltip = "#" + std::to_string(i) + " " + n.op + (n.name.empty() ? "" : " (" + n.name + ")");
    if (!parts.empty()) tooltip += "\nfused: " + joinParts(parts, " + ");
    const std::string backend = placement ? placement.backendOf(-1, i) : std::string();
    if (placement) tooltip += "\non " + backend + placedElsewhere(n, backend);
    box(nodeBox[i], !parts.empty() ? "#fde3c8" : (n.op == "if" || n.op == "loop") ? "#e6dcf5" : "#eef2f7",
        "#" + std::to_string(i) + " " + n.op, parts.empty() ? n.name : "fused: " + joinParts(parts, "+"), tooltip,
        backend);
  }
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    int32_t t = int32_t(g.outputs[k]);
    box(outputBox[k], "#f7dada", "output " + tensorName(g, t), typeText(g.tensors[t]),
        tensorName(g, t) + " " + typeText(g.tensors[t]));
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace

std::string renderHtml(const rt::PreparedGraph &p, const std::string &artifact, const rt::PlacementPlan *plan) {
  const rt::LoadedGraph &g = p.graph;
  const PlacementView placement(plan);
  std::ostringstream os;
  auto e = htmlEscape;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" << e(g.name) << " - "
     << e(artifact) << "</title>\n"
     << "<style>\n"
        "body { font-family: sans-serif; font-size: 14px; margin: 1.5em; color: #222; }\n"
        "table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }\n"
        "th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }\n"
        "th { background: #eef2f7; }\n"
        "code { font-size: 12px; }\n"
        "tr.fused td { background: #fdf1e3; }\n"
        "span.fused { background: #f5b971; border-radius: 3px; padding: 0 4px; font-size: 11px; }\n"
        "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
        "div.arena { position: relative; height: 14px; width: 600px; background: #f4f4f4; border: 1px solid #ccc; }\n"
        "div.arena div { position: absolute; top: 0; height: 14px; background: #7fa7d9; }\n"
        "</style>\n</head>\n<body>\n";
  os << "<h1>" << e(g.name) << "</h1>\n<table>\n"
     << "<tr><th>artifact</th><td><code>" << e(artifact) << "</code></td></tr>\n"
     << "<tr><th>producer</th><td>" << e(g.producer) << "</td></tr>\n"
     << "<tr><th>nodes</th><td>" << g.nodes.size() << (g.subgraphs.empty() ? "" : " (and " + std::to_string(g.subgraphs.size()) + " subgraphs)") << "</td></tr>\n"
     << "<tr><th>weights</th><td>" << e(bytesText(g.weightsSize)) << (g.weightless ? ", weightless" : ", embedded") << "</td></tr>\n"
     << "<tr><th>arena</th><td>" << e(bytesText(p.arenaBytes)) << " (" << p.arenaBytes << " bytes) for intermediates</td></tr>\n"
     << "<tr><th>precision</th><td>" << (g.relaxedPrecision ? "relaxed" : "exact") << "</td></tr>\n";
  if (placement) {
    os << "<tr><th>placement</th><td>" << e(placement.summary());
    for (const std::string &note : plan->notes) os << "<br/>note: " << e(note);
    os << "</td></tr>\n";
  }
  os << "</table>\n";

  auto tensorCell = [&](int32_t t) {
    return "<code>" + e(tensorName(g, t)) + "</code> " + e(typeText(g.tensors[t])) + "<br/><small>" + e(placeText(p, t)) +
           "</small>";
  };
  auto ioTable = [&](const char *title, const std::vector<uint32_t> &tensors) {
    os << "<h2>" << title << "</h2>\n<table>\n<tr><th>name</th><th>type</th><th>bytes</th><th>where</th></tr>\n";
    for (uint32_t t : tensors)
      os << "<tr><td><code>" << e(tensorName(g, int32_t(t))) << "</code></td><td>" << e(typeText(g.tensors[t]))
         << "</td><td class=\"num\">" << g.tensors[t].byteSize << "</td><td>" << e(placeText(p, int32_t(t)))
         << "</td></tr>\n";
    os << "</table>\n";
  };
  ioTable("Inputs", g.inputs);
  ioTable("Outputs", g.outputs);

  os << "<h2>Graph</h2>\n" << svgGraph(p, placement);

  std::vector<SubgraphOwner> owners = subgraphOwners(g);
  auto nodeTable = [&](int32_t scope) {
    const auto &nodes = nodesOf(g, scope);
    os << "<table>\n<tr><th>#</th><th>op</th><th>name</th>" << (placement ? "<th>backend</th>" : "")
       << "<th>inputs</th><th>outputs</th></tr>\n";
    for (size_t i = 0; i < nodes.size(); ++i) {
      const rt::LoadedNode &n = nodes[i];
      std::vector<std::string> parts = fusedOpParts(n);
      os << "<tr id=\"" << nodeId(scope, i) << "\"" << (parts.empty() ? "" : " class=\"fused\"") << "><td class=\"num\">"
         << i << "</td><td><code>" << e(n.op) << "</code>";
      if (!parts.empty()) os << " <span class=\"fused\">fused</span><br/><small>= " << e(joinParts(parts, " + ")) << "</small>";
      for (size_t k = 0; k < n.subgraphs.size(); ++k)
        os << "<br/><small>" << subgraphRole(n, k) << ": subgraph " << n.subgraphs[k] << "</small>";
      if (!n.packed.empty()) os << "<br/><small>" << n.packed.size() << " prepacked operand(s)</small>";
      os << "</td><td>" << e(n.name) << "</td><td>";
      if (placement) {
        const std::string backend = placement.backendOf(scope, i), colour = placement.colour(backend);
        os << (colour.empty() ? "" : "<b style=\"color: " + colour + "\">") << e(backend) << (colour.empty() ? "" : "</b>")
           << e(placedElsewhere(n, backend)) << "</td><td>";
      }
      bool first = true;
      for (int32_t t : n.inputs) {
        os << (first ? "" : "<br/>") << (t >= 0 ? tensorCell(t) : "<small>(absent)</small>");
        first = false;
      }
      os << "</td><td>";
      first = true;
      for (int32_t t : n.outputs) {
        os << (first ? "" : "<br/>") << tensorCell(t);
        first = false;
      }
      os << "</td></tr>\n";
    }
    os << "</table>\n";
  };
  os << "<h2>Nodes</h2>\n";
  nodeTable(-1);
  for (size_t s = 0; s < g.subgraphs.size(); ++s) {
    const SubgraphOwner &owner = owners[s];
    const rt::LoadedNode &ownerNode = nodesOf(g, owner.scope)[owner.node];
    os << "<h3>Subgraph " << s << ": " << subgraphRole(ownerNode, owner.position) << " of node #" << owner.node << " <code>"
       << e(ownerNode.op) << "</code> " << e(ownerNode.name) << "</h3>\n";
    std::vector<std::string> ins, outs;
    for (uint32_t t : g.subgraphs[s].inputs) ins.push_back(tensorCell(int32_t(t)));
    for (uint32_t t : g.subgraphs[s].outputs) outs.push_back(tensorCell(int32_t(t)));
    os << "<p>inputs: " << (ins.empty() ? "none" : joinParts(ins, ", ")) << "<br/>yields: "
       << (outs.empty() ? "none" : joinParts(outs, ", ")) << "</p>\n";
    nodeTable(int32_t(s));
  }

  if (placement) {
    os << "<h2>Copies per run</h2>\n<table>\n<tr><th>when</th><th>tensor</th><th>from</th><th>to</th><th>bytes</th></tr>\n";
    for (const rt::PlannedTransfer &x : plan->transfers)
      os << "<tr class=\"copy\"><td>" << (x.beforeNode ? "before" : "after")  << " #" << x.node << " "
         << e(g.nodes[x.node].op) << "</td><td><code>" << e(tensorName(g, int32_t(x.tensor)))
         << "</code> " << e(typeText(g.tensors[x.tensor])) << "</td><td>" << e(x.from) << "</td><td>" << e(x.to)
         << "</td><td class=\"num\">" << x.bytes << "</td></tr>\n";
    os << "</table>\n<h2>Memory per backend</h2>\n<table>\n"
       << "<tr><th>backend</th><th>arena</th><th>constants uploaded</th><th>input buffers</th></tr>\n";
    for (const rt::BackendMemory &m : plan->memory)
      os << "<tr><td>" << e(m.backend) << "</td><td class=\"num\">" << m.arenaBytes << "</td><td class=\"num\">"
         << m.constantBytes << "</td><td class=\"num\">" << m.inputBytes << "</td></tr>\n";
    os << "</table>\n";
  }

  // The arena plan: every tensor placed in it, by offset, drawn to scale.
  std::vector<int32_t> placed;
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (p.arenaOffset[t] != rt::kNotInArena) placed.push_back(int32_t(t));
  std::stable_sort(placed.begin(), placed.end(),
                   [&](int32_t a, int32_t b) { return p.arenaOffset[a] < p.arenaOffset[b]; });
  os << "<h2>Arena</h2>\n<p>" << placed.size() << " tensors in " << p.arenaBytes << " bytes.</p>\n"
     << "<table>\n<tr><th>offset</th><th>bytes</th><th>tensor</th><th>made by</th><th>place</th></tr>\n";
  const double scale = p.arenaBytes ? 100.0 / double(p.arenaBytes) : 0;
  for (int32_t t : placed) {
    const rt::LoadedTensor &tensor = g.tensors[t];
    std::string producer = "-";
    if (tensor.role == rt::TensorRole::kIntermediate && tensor.producer >= 0) {
      const rt::LoadedNode &n = nodesOf(g, tensor.scope)[tensor.producer];
      producer = (tensor.scope < 0 ? "" : "subgraph " + std::to_string(tensor.scope) + " ") + "#" +
                 std::to_string(tensor.producer) + " " + n.op;
    } else {
      producer = roleText(tensor.role);
    }
    char bar[160];
    std::snprintf(bar, sizeof bar, "<div class=\"arena\"><div style=\"left: %.2f%%; width: %.2f%%;\"></div></div>",
                  double(p.arenaOffset[t]) * scale, std::max(0.3, double(tensor.byteSize) * scale));
    os << "<tr><td class=\"num\">" << p.arenaOffset[t] << "</td><td class=\"num\">" << tensor.byteSize
       << "</td><td><code>" << e(tensorName(g, t)) << "</code> " << e(typeText(tensor)) << "</td><td>" << e(producer)
       << "</td><td>" << bar << "</td></tr>\n";
  }
  os << "</table>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace webnnc
