#include "BatchJobs.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace webnntools {
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

}  // namespace

int runBatchJobs(const BatchTool &tool, int argc, char **argv) {
  (void)argv;
  if (argc != 1) {
    std::cerr << tool.name << ": error: batch takes no arguments: jobs come on stdin, one JSON array of "
              << tool.name << " arguments per line\n";
    return 2;
  }
  std::string line;
  long job = 0;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json answer = {{"job", job++}};
    std::vector<std::string> args;
    std::string problem;
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_array() || parsed.empty()) {
      problem = "a job is a non-empty JSON array of " + tool.name + " arguments";
    } else {
      for (const auto &a : parsed) {
        if (!a.is_string()) {
          problem = "every argument of a job is a string";
          break;
        }
        args.push_back(a.get<std::string>());
      }
      if (problem.empty() && tool.refuse) problem = tool.refuse(args);
    }
    if (!problem.empty()) {
      answer["exit"] = 2;
      answer["stdout"] = "";
      answer["stderr"] = tool.name + ": error: batch job " + std::to_string(answer["job"].get<long>()) + ": " +
                         problem + "\n";
    } else {
      for (const std::string &a : tool.always)
        if (std::find(args.begin(), args.end(), a) == args.end()) args.push_back(a);
      std::vector<std::string> storage;
      storage.reserve(args.size() + 1);
      storage.push_back(tool.name);
      for (std::string &a : args) storage.push_back(std::move(a));
      std::vector<char *> cargv;
      for (std::string &s : storage) cargv.push_back(s.data());
      cargv.push_back(nullptr);
      int code;
      std::string out, err;
      {
        Capture capture;
        code = tool.run(int(storage.size()), cargv.data());
        std::cout.flush();
        out = capture.out();
        err = capture.err();
      }
      // A problem the job left behind (it would end with the process in a
      // single run) fails that job, not the next one.
      std::string late = tool.afterJob ? tool.afterJob() : std::string();
      if (!late.empty() && code == 0) {
        code = 1;
        err += tool.name + ": error: " + late + "\n";
      }
      answer["exit"] = code;
      answer["stdout"] = out;
      answer["stderr"] = err;
    }
    std::fputs((answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace webnntools
