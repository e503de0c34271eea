// `--wait spin|block|default`: the session's ThreadWait, shared by webnn-run
// and `webnn-run generate`.
#ifndef WEBNN_TOOLS_WEBNN_RUN_THREADWAIT_H
#define WEBNN_TOOLS_WEBNN_RUN_THREADWAIT_H

#include <CLI/CLI.hpp>

#include <map>
#include <string>

#include "webnn/runtime.h"

namespace webnnrun {

inline void addWaitOption(CLI::App &app, webnn::ThreadWait *wait) {
  static const std::map<std::string, webnn::ThreadWait> kNames = {
      {"default", webnn::ThreadWait::kDefault}, {"spin", webnn::ThreadWait::kSpin},
      {"block", webnn::ThreadWait::kBlock}};
  app.add_option("--wait", *wait,
                 "How idle kernel threads wait: 'default' (spin up to 1 ms, then block), 'spin' (until the next "
                 "parallel loop) or 'block' (at once)")
      ->transform(CLI::CheckedTransformer(kNames));
}

inline const char *waitName(webnn::ThreadWait wait) {
  switch (wait) {
    case webnn::ThreadWait::kSpin: return "spin";
    case webnn::ThreadWait::kBlock: return "block";
    case webnn::ThreadWait::kDefault: break;
  }
  return "default";
}

}  // namespace webnnrun

#endif
