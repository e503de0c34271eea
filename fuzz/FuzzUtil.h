// Shared by the runtime's libFuzzer targets: one bounded run of a loaded
// model on generated inputs.
#ifndef WEBNN_FUZZ_FUZZUTIL_H
#define WEBNN_FUZZ_FUZZUTIL_H

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "MemFile.h"
#include "webnn/runtime.h"

namespace webnn::fuzz {

// What one execution may spend on a graph the loader accepted: past these,
// the model is valid but too big to be worth running in a fuzzer (the
// fuzzer's own memory limit would report it as a crash).
constexpr uint64_t kMaxArenaBytes = 64ull << 20;
constexpr uint64_t kMaxInputBytes = 16ull << 20;

// Small values of the input's type: floats in [-2, 2), integers in [0, 4)
// (valid indices for most gathers), so the run reaches the kernels'
// arithmetic rather than stopping at the first index check.
inline void fillInput(DataType t, uint8_t *p, uint64_t bytes, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  auto next = [&] { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; };
  switch (t) {
    case DataType::kFloat32:
      for (uint64_t i = 0; i + 4 <= bytes; i += 4) {
        float v = float(int(next() % 16) - 8) * 0.25f;
        std::memcpy(p + i, &v, 4);
      }
      return;
    case DataType::kFloat64:
      for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
        double v = double(int(next() % 16) - 8) * 0.25;
        std::memcpy(p + i, &v, 8);
      }
      return;
    case DataType::kFloat16:
    case DataType::kBfloat16: {
      // 0.5, 1, -0.5, -1 in either 16-bit float format.
      static const uint16_t kHalf[4] = {0x3800, 0x3C00, 0xB800, 0xBC00};
      static const uint16_t kBf16[4] = {0x3F00, 0x3F80, 0xBF00, 0xBF80};
      const uint16_t *vals = t == DataType::kFloat16 ? kHalf : kBf16;
      for (uint64_t i = 0; i + 2 <= bytes; i += 2) std::memcpy(p + i, &vals[next() % 4], 2);
      return;
    }
    default: {
      // Little-endian integers of any width (and packed int4 pairs, bool):
      // a value in [0, 4) in the low byte of each element.
      int width = dataTypeBits(t) >= 8 ? dataTypeBits(t) / 8 : 1;
      std::memset(p, 0, bytes);
      for (uint64_t i = 0; i < bytes; i += uint64_t(width))
        p[i] = t == DataType::kBool ? uint8_t(next() % 2) : uint8_t(next() % 4);
      return;
    }
  }
}

// Binds every input at its largest shape and runs once on one thread.
// Failures are fine (bad graphs must fail cleanly); crashes are what the
// sanitizers look for.
inline void runOnce(const Model &model) {
  if (model.arenaBytes() > kMaxArenaBytes) return;
  for (const TensorInfo &in : model.inputs())
    if (in.byteSize > kMaxInputBytes) return;
  std::unique_ptr<Session> session;
  if (!Session::create(model, SessionOptions{}, &session).isOk()) return;
  std::vector<std::vector<uint8_t>> buffers;
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    const TensorInfo &in = model.inputs()[i];
    buffers.emplace_back(in.byteSize ? in.byteSize : 1);
    fillInput(in.dtype, buffers.back().data(), in.byteSize, uint32_t(i));
    if (!session->copyInput(in.name, buffers.back().data(), in.byteSize, in.shape).isOk()) return;
  }
  if (!session->run().isOk()) return;
  for (size_t i = 0; i < model.outputs().size(); ++i) {
    const uint8_t *data = static_cast<const uint8_t *>(session->outputData(i));
    size_t bytes = session->outputBytes(i);
    // Touch the outputs: a wrong size or pointer shows up under ASan here.
    volatile uint8_t sink = 0;
    for (size_t b = 0; data && b < bytes; b += 61) sink = sink ^ data[b];
    if (data && bytes) sink = sink ^ data[bytes - 1];
    (void)sink;
  }
}

}  // namespace webnn::fuzz

#endif
