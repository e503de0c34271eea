#include "Profile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace webnnrun {

nlohmann::json profileJson(const webnn::Session &session) {
  uint64_t runs = 0;
  std::vector<webnn::Session::NodeProfile> nodes = session.profile(&runs);
  double per = runs ? 1.0 / double(runs) : 0.0, total = 0;
  std::map<std::string, std::pair<double, int>> byOp;
  for (const auto &n : nodes) {
    byOp[n.op].first += n.totalMs * per;
    ++byOp[n.op].second;
    total += n.totalMs * per;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> ops(byOp.begin(), byOp.end());
  std::sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) { return a.second.first > b.second.first; });
  nlohmann::json j;
  j["runs"] = runs;
  j["total_ms"] = total;
  for (const auto &[op, v] : ops) j["by_op"].push_back({{"op", op}, {"ms", v.first}, {"nodes", v.second}});
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return nodes[a].totalMs > nodes[b].totalMs; });
  // A node whose kernel also ran the next one carries the pair's time.
  auto entry = [&](size_t i) {
    nlohmann::json e = {{"index", i}, {"op", nodes[i].op}, {"name", nodes[i].name}, {"ms", nodes[i].totalMs * per}};
    if (nodes[i].runBy >= 0) e["run_by"] = nodes[i].runBy;
    if (i + 1 < nodes.size() && nodes[i + 1].runBy == int64_t(i)) e["also_runs"] = i + 1;
    return e;
  };
  for (size_t k = 0; k < order.size() && k < 15; ++k) j["slowest_nodes"].push_back(entry(order[k]));
  // Every node in execution order (JSON only): per-layer comparisons across runs.
  for (size_t i = 0; i < nodes.size(); ++i) j["nodes"].push_back(entry(i));
  return j;
}

void printProfile(const nlohmann::json &p) {
  double total = p["total_ms"].get<double>();
  std::fprintf(stderr, "profile: %.4g ms per run in kernels, over %llu run(s)\n", total,
               static_cast<unsigned long long>(p["runs"].get<uint64_t>()));
  for (const auto &o : p["by_op"])
    std::fprintf(stderr, "  %-24s %9.4f ms %5.1f%%  %4d node(s)\n", o["op"].get<std::string>().c_str(),
                 o["ms"].get<double>(), total > 0 ? 100.0 * o["ms"].get<double>() / total : 0.0,
                 o["nodes"].get<int>());
  std::fprintf(stderr, "  slowest nodes:\n");
  for (const auto &n : p["slowest_nodes"]) {
    std::string with = n.contains("also_runs") ? " + node " + std::to_string(n["also_runs"].get<size_t>()) : "";
    std::fprintf(stderr, "  %9.4f ms  node %zu%s %s '%s'\n", n["ms"].get<double>(), n["index"].get<size_t>(),
                 with.c_str(), n["op"].get<std::string>().c_str(), n["name"].get<std::string>().c_str());
  }
}

}  // namespace webnnrun
