#include "Batch.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "GpuRun.h"

namespace webnnrun {
namespace {

// Sends std::cout and std::cerr to buffers while it lives.
class Capture {
 public:
  Capture() : out_(std::cout.rdbuf(outText_.rdbuf())), err_(std::cerr.rdbuf(errText_.rdbuf())) {}
  ~Capture() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  Capture(const Capture &) = delete;
  Capture &operator=(const Capture &) = delete;
  std::string out() const { return outText_.str(); }
  std::string err() const { return errText_.str(); }

 private:
  std::ostringstream outText_, errText_;
  std::streambuf *out_, *err_;
};

bool isSubcommand(const std::string &a) {
  return a == "batch" || a == "generate" || a == "calibrate" || a == "limits" || a == "--list-devices";
}

}  // namespace

int runBatch(int argc, char **argv, CommandLine run) {
  if (argc != 1) {
    std::cerr << "webnn-run: error: batch takes no arguments: jobs come on stdin, one JSON array of "
                 "webnn-run arguments per line\n";
    return 2;
  }
  (void)argv;
  // Jobs share the process's GPU devices: the executor's is process-wide
  // already; --device gpu jobs keep theirs between jobs here.
  keepGpuDevicesBetweenRuns(true);
  std::string line;
  for (long job = 0; std::getline(std::cin, line); ++job) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      --job;
      continue;
    }
    nlohmann::json answer = {{"job", job}};
    std::vector<std::string> args;
    std::string problem;
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_array() || parsed.empty()) {
      problem = "a job is a non-empty JSON array of webnn-run arguments";
    } else {
      for (const auto &a : parsed) {
        if (!a.is_string()) {
          problem = "every argument of a job is a string";
          break;
        }
        args.push_back(a.get<std::string>());
      }
      if (problem.empty() && isSubcommand(args.front()))
        problem = "'" + args.front() + "' is not run in a batch: a job is one artifact's run";
    }
    if (!problem.empty()) {
      answer["exit"] = 2;
      answer["stdout"] = "";
      answer["stderr"] = "webnn-run: error: batch job " + std::to_string(job) + ": " + problem + "\n";
    } else {
      bool hasJson = false;
      for (const std::string &a : args) hasJson = hasJson || a == "--json";
      if (!hasJson) args.push_back("--json");  // no job prints anything but its one JSON object
      std::vector<std::string> storage;
      storage.reserve(args.size() + 1);
      storage.push_back("webnn-run");
      for (std::string &a : args) storage.push_back(std::move(a));
      std::vector<char *> cargv;
      for (std::string &s : storage) cargv.push_back(s.data());
      cargv.push_back(nullptr);
      int code;
      std::string out, err;
      {
        Capture capture;
        code = run(int(storage.size()), cargv.data());
        std::cout.flush();
        out = capture.out();
        err = capture.err();
      }
      // What a run's teardown made the validation layer say would end with
      // the process in a single run; here it fails the run that caused it,
      // not the next one.
      std::vector<std::string> late = takeValidationMessagesBetweenRuns();
      if (!late.empty() && code == 0) {
        code = 1;
        err += "webnn-run: error: Vulkan validation after the run: " + late.front() + "\n";
      }
      answer["exit"] = code;
      answer["stdout"] = out;
      answer["stderr"] = err;
    }
    std::fputs((answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
  keepGpuDevicesBetweenRuns(false);
  return 0;
}

}  // namespace webnnrun
