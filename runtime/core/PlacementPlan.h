// What a session of a placed artifact will do, worked out without making
// one (no device is opened, no kernel made): where each main-graph node runs,
// the copies the executor inserts where a tensor crosses between host and
// device memory, and each backend's memory. For `webnnc inspect --plan`; the
// rules are the executor's (Executor::placeNodes, prepareTransfers), and
// PlacementPlanTest checks the copy count against a real session's.
//
// It assumes every placed backend takes its nodes: one that refuses a node
// at session creation (Backend::supports) runs it on the default backend
// and the session copies accordingly (Executor::placementNotes says which).
#ifndef WEBNN_RUNTIME_CORE_PLACEMENTPLAN_H
#define WEBNN_RUNTIME_CORE_PLACEMENTPLAN_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/Executor.h"

namespace webnn::rt {

struct PlannedTransfer {
  uint32_t node = 0;        // the node it runs before (to a device) or after (to the host)
  bool beforeNode = true;
  uint32_t tensor = 0;
  std::string from, to;     // backend names
  uint64_t bytes = 0;
};

struct BackendMemory {
  std::string backend;
  // Intermediates; a device backend: those its nodes make and read, planned
  // apart (planDeviceArena) for the nodes one by one; a session plans for
  // the groups its backend runs as one step (Backend::groupPartitionNodes).
  uint64_t arenaBytes = 0;
  uint64_t constantBytes = 0;  // constants uploaded to it (0 for a host backend: mapped in place)
  uint64_t inputBytes = 0;     // a buffer per graph input its nodes read
};

struct PlacementPlan {
  std::vector<std::string> nodeBackend;  // per main-graph node: the backend it runs on
  std::vector<PlannedTransfer> transfers;  // per run, in run order
  std::vector<BackendMemory> memory;       // the default backend first
  // Placements this runtime cannot honour (no such backend or device), one
  // line per node, as the executor would note them.
  std::vector<std::string> notes;
};

// Per tensor of `g`: the type device backend `b` keeps that constant in
// (Backend::constantStorageType), where every main-graph node placed on it
// (`onB(i)`) that reads the constant answers one type other than its own;
// nullopt elsewhere. `nodes` are the descriptions b is asked with. The
// executor uploads constants so (Executor::chooseConstantStorage) and
// planPlacement counts their bytes so.
std::vector<std::optional<DataType>> narrowedConstants(const LoadedGraph &g, const std::vector<NodeDesc> &nodes,
                                                       const Backend &b, const std::function<bool(size_t)> &onB);

// `device` overrides every node's placement, as SessionOptions::device does.
Status planPlacement(const PreparedGraph &graph, PlacementPlan *out, std::string_view device = {});

}  // namespace webnn::rt

#endif
