// `--max-loop-iterations`, `--max-tensor-elements`, `--max-arena-bytes`,
// `--max-constant-bytes`, `--max-nodes`, `--max-nesting-depth`: the session's
// webnn::Limits (docs/SECURITY.md, "Limits"), shared by the run and generate
// commands.
#ifndef WEBNN_TOOLS_WEBNN_RUN_LIMITFLAGS_H
#define WEBNN_TOOLS_WEBNN_RUN_LIMITFLAGS_H

#include <CLI/CLI.hpp>

#include <string>

#include "webnn/runtime.h"

namespace webnnrun {

inline void addLimitFlags(CLI::App &app, webnn::Limits *limits) {
  const auto add = [&](const char *flag, uint64_t *field, const char *what) {
    app.add_option(flag, *field, std::string(what) + " (default " + std::to_string(*field) + ")")
        ->group("Limits");
  };
  add("--max-loop-iterations", &limits->maxLoopIterations, "Loop iterations per run, all loops together");
  add("--max-tensor-elements", &limits->maxTensorElements, "Elements of any one tensor, at most 2^56");
  add("--max-arena-bytes", &limits->maxArenaBytes, "Bytes of the arena of intermediate tensors");
  add("--max-constant-bytes", &limits->maxConstantBytes, "Bytes of the graph's constants");
  add("--max-nodes", &limits->maxNodes, "Nodes, subgraphs' included");
  add("--max-nesting-depth", &limits->maxNestingDepth, "Control-flow subgraphs nested in subgraphs, at most 256");
}

}  // namespace webnnrun

#endif
