// `webnn-run generate ARTIFACT --prompt-ids 1,2,3 --max-new-tokens N`.
#ifndef WEBNN_TOOLS_WEBNN_RUN_GENERATE_H
#define WEBNN_TOOLS_WEBNN_RUN_GENERATE_H

namespace webnnrun {

// argv[0] is "generate". Exit codes as for webnn-run: 0, 1 bad input, 2 usage.
int runGenerate(int argc, char **argv);

}  // namespace webnnrun

#endif
