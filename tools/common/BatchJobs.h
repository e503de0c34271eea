// `webnn-run batch`: many runs in one process, for test harnesses that run
// thousands of small artifacts (test/conformance/webnn_run_batch.py). A
// process start, a Vulkan instance with the validation layer and a device
// cost more than a conformance case's run; here they are paid once and the
// device's pipelines are reused by every job that needs them.
#ifndef WEBNN_TOOLS_WEBNN_RUN_BATCH_H
#define WEBNN_TOOLS_WEBNN_RUN_BATCH_H

namespace webnnrun {

// One webnn-run command line (argv[0] is the program name): its exit code;
// what it prints goes to std::cout / std::cerr.
using CommandLine = int (*)(int argc, char **argv);

// Reads jobs from stdin, one per line: a JSON array of strings, the
// arguments of one `webnn-run` command (artifact and options, no
// subcommand). Each job runs as that command would with --json, and one line
// answers it on stdout, flushed before the next job is read:
//   {"job": N, "exit": CODE, "stdout": "...", "stderr": "..."}
// A line that is not such an array is answered with exit 2 and the reason.
// Returns 0 at the end of the input (whatever the jobs' codes), 2 for usage.
int runBatch(int argc, char **argv, CommandLine run);

}  // namespace webnnrun

#endif
