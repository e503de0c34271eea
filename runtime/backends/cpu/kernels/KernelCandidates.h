// Ordered candidate tables: an op family's kernels in the order they are
// tried for a node; the first that takes it runs it. Each candidate that
// refuses says why, and the choice (which ran, why the ones before it did
// not) is reported once per kernel made: to the runtime log at debug level
// (`webnn-run --verbose`; CpuBackend.cpp routes it) and to an observer tests
// install. Nothing is recorded on the run path.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_KERNELCANDIDATES_H
#define WEBNN_RUNTIME_BACKENDS_CPU_KERNELS_KERNELCANDIDATES_H

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"

namespace webnn::cpu::kernels {

// Why a kernel was made as it was.
struct KernelChoice {
  std::string op, node;  // the node's op and name
  std::string chosen;    // the candidate that made the kernel; empty if none did
  std::string detail;    // what the chosen candidate said about its kernel (a wrapper: the kernel inside)
  std::vector<std::pair<std::string, std::string>> refused;  // (candidate, why), in table order
  // "conv2d 'name': <chosen> [detail] (refused: a: why; b: why)".
  std::string describe() const;
  // The refusal reason of `candidate`, or empty if it did not refuse.
  std::string whyRefused(const std::string &candidate) const;
};

// One row of a table: makes the kernel for `request`, or returns null with
// *note saying what the node lacks for it. A candidate that made a kernel
// may leave a note too (a wrapper names the kernel it wraps).
template <class Request>
struct KernelCandidate {
  const char *name;
  std::unique_ptr<Kernel> (*make)(const Request &request, std::string *note);
};

// Tries `table` in order; the first kernel made is returned, with *choice
// naming its candidate after the refusals before it.
template <class Request, size_t N>
std::unique_ptr<Kernel> chooseKernel(const KernelCandidate<Request> (&table)[N], const Request &request,
                                     KernelChoice *choice) {
  for (const KernelCandidate<Request> &c : table) {
    std::string note;
    if (std::unique_ptr<Kernel> k = c.make(request, &note)) {
      choice->chosen = c.name;
      choice->detail = std::move(note);
      return k;
    }
    choice->refused.emplace_back(c.name, note.empty() ? std::string("does not apply") : std::move(note));
  }
  return nullptr;
}

// Sends a finished choice to the observer and the log, where they are set.
void reportKernelChoice(const KernelChoice &choice);

// The choice for a pair kernel (makeCpuKernelPair) of `producer` and
// `consumer`: `candidate` chosen where `made`, else refused for `why`.
void reportPairChoice(const NodeDesc &producer, const NodeDesc &consumer, const char *candidate, bool made,
                      const std::string &why);

// Where choices are logged: set by the CPU backend to the runtime log (the
// kernels alone, as the kernel tests link them, have no log). The function
// checks the log level itself.
using KernelChoiceLog = void (*)(const KernelChoice &choice);
void setKernelChoiceLog(KernelChoiceLog log);

// Receives every choice reported while installed (tests: which kernel a node
// got and why). One for the process; empty removes it. Called on the thread
// that makes the kernel.
using KernelChoiceObserver = std::function<void(const KernelChoice &)>;
void setKernelChoiceObserver(KernelChoiceObserver observer);

}  // namespace webnn::cpu::kernels

#endif
