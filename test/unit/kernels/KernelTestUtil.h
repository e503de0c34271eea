// Runs one op through the CPU kernel registry on test tensors.
#ifndef WEBNN_TEST_UNIT_KERNELS_KERNELTESTUTIL_H
#define WEBNN_TEST_UNIT_KERNELS_KERNELTESTUTIL_H

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/kernels/Float16.h"

namespace webnn::cpu::test {

struct TestTensor {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  std::vector<uint8_t> bytes;
  bool constant = false;

  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  template <typename T>
  const T *as() const { return reinterpret_cast<const T *>(bytes.data()); }
  // Every element as double (float16 decoded).
  std::vector<double> values() const;
};

template <typename T>
TestTensor tensor(DataType dt, Shape shape, const std::vector<T> &v, bool constant = false) {
  TestTensor t{dt, std::move(shape), {}, constant};
  t.bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}
inline TestTensor f32(Shape s, const std::vector<float> &v, bool c = false) {
  return tensor(DataType::kFloat32, std::move(s), v, c);
}
TestTensor f16(Shape s, const std::vector<float> &v, bool c = false);
// A tensor of any dtype from doubles (saturating/truncating like a C cast).
TestTensor fromDoubles(DataType dt, Shape s, const std::vector<double> &v, bool c = false);
inline TestTensor outSpec(DataType dt, Shape s) { return TestTensor{dt, std::move(s), {}, false}; }

// n floats uniform in [-1, 1), the same for the same seed.
std::vector<float> uniformFloats(int64_t n, uint32_t seed);
// v rounded through float16 when dt is float16, so a reference computed
// from it sees exactly the operands the kernel sees.
std::vector<float> roundFor(DataType dt, std::vector<float> v);
// A float32 or float16 tensor of v.
TestTensor makeTensor(DataType dt, Shape s, const std::vector<float> &v, bool constant = false);

struct OpCase {
  std::string op;
  std::vector<std::optional<TestTensor>> inputs;
  std::vector<TestTensor> outputs;  // dtype + shape; bytes filled by runOp
  NodeAttributes attrs;
  bool relaxed = false;  // NodeDesc::relaxedPrecision (artifact compiled with --precision relaxed)
  std::vector<PackedOperand> packed;  // NodeDesc::packed (an artifact's prepacked constants)
  // Output 0 written over this input's bytes, as the memory planner places an
  // in-place output (the input's bytes then hold the result; runOp copies it
  // into outputs[0]), or -1.
  int outputOverInput = -1;

  OpCase &attrInt(const std::string &n, int64_t v);
  OpCase &attrFloat(const std::string &n, double v);
  OpCase &attrBool(const std::string &n, bool v);
  OpCase &attrString(const std::string &n, const std::string &v);
  OpCase &attrInts(const std::string &n, const std::vector<int64_t> &v);
};

// Kernel run counts (packedSgemmRuns) kept while in scope: off otherwise,
// so normal runs pay no atomic increment (DebugOptions::countRuns).
class ScopedRunCounting {
 public:
  ScopedRunCounting();
  ~ScopedRunCounting();
  ScopedRunCounting(const ScopedRunCounting &) = delete;
  ScopedRunCounting &operator=(const ScopedRunCounting &) = delete;

 private:
  bool saved_;
};

// Switches the packed-B SGEMM (kernels/PackedSgemm.h) for a scope: tests of
// the oneDNN and portable matmul paths turn it off, as it would take their
// constant-B products.
class ScopedPackedSgemm {
 public:
  explicit ScopedPackedSgemm(bool enabled);
  ~ScopedPackedSgemm();
  ScopedPackedSgemm(const ScopedPackedSgemm &) = delete;
  ScopedPackedSgemm &operator=(const ScopedPackedSgemm &) = delete;

 private:
  bool saved_;
};

// Builds the kernel (factory status returned) and runs it with `threads`.
Status runOp(OpCase &c, int threads = 1);

// Runs `producer` and `consumer` (whose first input is the producer's
// output) as the backend's pair kernel (Kernel.h makeCpuKernelPair), filling
// the consumer's outputs; *fused says whether the backend made one (when
// not, nothing ran). `warmUpBeside`: another thread calls the pair's
// Kernel::warmUp while the first run runs, as a session's warm-up helper may
// (core/WarmUp.h); the tsan preset reports a race between the two.
Status runPair(OpCase &producer, OpCase &consumer, int threads, bool *fused, bool warmUpBeside = false);
// The same pair with its output where the arena plan may put it: over the
// producer's first input, which dies at the producer (the plan knows nothing
// of pairs). y starts `yOffset` floats after x (0: x's own bytes; either
// sign: a partial overlap); the intermediate gets a buffer of its own, as
// the executor binds it. Float32 x and y; *out is y, *intermediate (when
// given) the intermediate's bytes after the run.
Status runPairOverInput(OpCase &producer, OpCase &consumer, int threads, std::vector<float> *out, bool *fused,
                        int64_t yOffset = 0, std::vector<float> *intermediate = nullptr);
// Index into `in` (right-aligned broadcast) for output element `o` of `out`.
int64_t broadcastIndex(const Shape &out, const Shape &in, int64_t o);

// For a reference matmul: the matrix index in an operand of shape `operand`
// ([..., rows, cols]) that batch index `bi` of the output batch `batch` reads,
// batch dimensions broadcast right-aligned.
int64_t broadcastMatrixIndex(const Shape &operand, const Shape &batch, int64_t bi);

}  // namespace webnn::cpu::test

#endif
