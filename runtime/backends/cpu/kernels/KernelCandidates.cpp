#include "runtime/backends/cpu/kernels/KernelCandidates.h"

#include <atomic>
#include <mutex>

namespace webnn::cpu::kernels {
namespace {

std::mutex &observerMutex() {
  static std::mutex m;
  return m;
}
KernelChoiceObserver &observerStorage() {
  static KernelChoiceObserver o;
  return o;
}
std::atomic<KernelChoiceLog> gLog{nullptr};

}  // namespace

std::string KernelChoice::describe() const {
  std::string s = op + " '" + node + "': " + (chosen.empty() ? std::string("no kernel") : chosen);
  if (!detail.empty()) s += " [" + detail + "]";
  if (!refused.empty()) {
    s += " (refused:";
    for (size_t i = 0; i < refused.size(); ++i)
      s += (i ? "; " : " ") + refused[i].first + ": " + refused[i].second;
    s += ")";
  }
  return s;
}

std::string KernelChoice::whyRefused(const std::string &candidate) const {
  for (const auto &r : refused)
    if (r.first == candidate) return r.second;
  return {};
}

void reportKernelChoice(const KernelChoice &choice) {
  {
    std::lock_guard<std::mutex> lock(observerMutex());
    if (observerStorage()) observerStorage()(choice);
  }
  if (KernelChoiceLog log = gLog.load(std::memory_order_acquire)) log(choice);
}

void reportPairChoice(const NodeDesc &producer, const NodeDesc &consumer, const char *candidate, bool made,
                      const std::string &why) {
  KernelChoice choice;
  choice.op = producer.op + " + " + consumer.op;
  choice.node = producer.name + "' + '" + consumer.name;
  if (made)
    choice.chosen = candidate;
  else
    choice.refused.emplace_back(candidate, why);
  reportKernelChoice(choice);
}

void setKernelChoiceLog(KernelChoiceLog log) { gLog.store(log, std::memory_order_release); }

void setKernelChoiceObserver(KernelChoiceObserver observer) {
  std::lock_guard<std::mutex> lock(observerMutex());
  observerStorage() = std::move(observer);
}

}  // namespace webnn::cpu::kernels
