// A small backend for tests (docs/BACKENDS.md): "test", device type "test".
// It keeps its tensors in its own "device" memory (buffers with no host
// address, reached only through its copy functions and kernels), supports
// float32 add, mul and relu on equal shapes, runs consecutive nodes placed
// on it as one partition kernel (Backend::makePartitionKernel), an add and
// the relu of its sum as one step when asked (groupAddRelu), and counts what
// crosses and how many partitions and groups ran.
#ifndef WEBNN_TEST_UNIT_RUNTIME_TESTBACKEND_H
#define WEBNN_TEST_UNIT_RUNTIME_TESTBACKEND_H

#include <atomic>
#include <cstdint>

#include "core/Backend.h"

namespace webnn::test {

struct TestBackendCounters {
  std::atomic<uint64_t> toDevice{0}, toHost{0}, uploads{0}, kernelRuns{0}, partitionRuns{0}, groupRuns{0};
  // While set, the backend proposes every add and a relu reading its output
  // in a partition as one group (Backend::groupPartitionNodes), whether or
  // not anything else reads the sum: the executor keeps the ones it can
  // honour. A kept group runs as one step, relu(a + b), which fails if the
  // sum has memory.
  std::atomic<bool> groupAddRelu{false};
  // While set, makePartitionKernel refuses any groups (a backend whose
  // proposal its kernel then cannot run).
  std::atomic<bool> refuseGroups{false};
  void reset() {
    toDevice = 0, toHost = 0, uploads = 0, kernelRuns = 0, partitionRuns = 0, groupRuns = 0;
    groupAddRelu = false, refuseGroups = false;
  }
};

// Registers the backend once per process (later calls return the same
// counters).
TestBackendCounters &registerTestBackend();

}  // namespace webnn::test

#endif
