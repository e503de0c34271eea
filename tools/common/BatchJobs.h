// `webnn-run batch` and `webnnc batch`: many command lines in one process,
// for test harnesses that run thousands of small cases
// (test/conformance/batch_workers.py). A process start (libMLIR/libLLVM's
// dynamic linking for webnnc; a Vulkan instance with the validation layer and
// a device for webnn-run) costs more than such a case; here it is paid once.
#ifndef WEBNN_TOOLS_COMMON_BATCHJOBS_H
#define WEBNN_TOOLS_COMMON_BATCHJOBS_H

#include <functional>
#include <string>
#include <vector>

namespace webnntools {

struct BatchTool {
  std::string name;  // "webnn-run", "webnnc": argv[0] of each job, and the error prefix
  // Empty when `args` is a job this tool runs in a batch, else why not.
  std::function<std::string(const std::vector<std::string> &args)> refuse;
  // Arguments every job gets when it lacks them (webnn-run: --json).
  std::vector<std::string> always;
  // One command line (argv[0] the tool's name): its exit code; what it
  // prints goes to std::cout / std::cerr, which the loop captures.
  std::function<int(int argc, char **argv)> run;
  // After each job: a problem the job left behind (webnn-run: validation
  // messages from its teardown), charged to it; empty when none.
  std::function<std::string()> afterJob;
};

// Reads jobs from stdin, one per line: a JSON array of strings, the
// arguments of one command of the tool (without the program name). Answers
// each with one line on stdout, flushed before the next job is read:
//   {"job": N, "exit": CODE, "stdout": "...", "stderr": "..."}
// A line that is not such an array, or that `refuse` turns down, is
// answered with exit 2 and the reason. Returns 0 at the end of the input
// (whatever the jobs' codes), 2 when given arguments.
int runBatchJobs(const BatchTool &tool, int argc, char **argv);

}  // namespace webnntools

#endif
