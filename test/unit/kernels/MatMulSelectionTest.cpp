// matmul's candidate table (kernels/MatMul.cpp): which kernel a node gets,
// and that every candidate before it says why it refused, oneDNN's own
// reason included; and oneDNN's switches as debug options (DebugOptions.h).
#include <gtest/gtest.h>

#include <string>

#include "KernelChoices.h"
#include "KernelTestUtil.h"
#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::test {
namespace {

// [M, K] x [K, N] float32, B constant or not.
OpCase matmul(int64_t M, int64_t K, int64_t N, bool constantB) {
  std::vector<float> a(size_t(M * K), 0.5f), b(size_t(K * N), 0.25f);
  return OpCase{"matmul", {f32({M, K}, a), f32({K, N}, b, constantB)}, {outSpec(DataType::kFloat32, {M, N})}};
}

#if WEBNN_HAVE_ONEDNN
// oneDNN switched off (as WEBNN_ONEDNN=0) while in scope.
struct NoOneDnn {
  NoOneDnn() : saved(onednn::policy()) {
    onednn::Policy off = saved;
    off.enabled = false;
    onednn::setPolicy(off);
  }
  ~NoOneDnn() { onednn::setPolicy(saved); }
  onednn::Policy saved;
};
#endif

// A run-time B: the packed GEMM refuses (it packs constants), oneDNN (here
// switched off) says its own reason, the portable kernel runs it.
TEST(MatMulSelection, EveryRefusalIsRecorded) {
  ScopedKernelChoices choices;
  OpCase c = matmul(24, 16, 16, /*constantB=*/false);
  Status s;
  {
#if WEBNN_HAVE_ONEDNN
    NoOneDnn off;
#endif
    s = runOp(c);
  }
  ASSERT_TRUE(s.isOk()) << s.message();
  const kernels::KernelChoice choice = choices.last("matmul");
  EXPECT_EQ(choice.chosen, "portable") << choice.describe();
  EXPECT_EQ(choice.whyRefused("packed-sgemm"), kernels::avx512Available() ? "B (the weights) not constant" : "no AVX-512")
      << choice.describe();
#if WEBNN_HAVE_ONEDNN
  EXPECT_NE(choice.whyRefused("onednn").find("disabled"), std::string::npos) << choice.describe();
  ASSERT_EQ(choice.refused.size(), 2u) << choice.describe();
#else
  ASSERT_EQ(choice.refused.size(), 1u) << choice.describe();
#endif
  EXPECT_EQ(choice.refused.front().first, "packed-sgemm");
  EXPECT_NE(choice.describe().find("matmul '"), std::string::npos) << choice.describe();
}

// A constant B with too few rows for the packed GEMM: the refusal gives the
// shape and the bound.
TEST(MatMulSelection, PackedGemmSaysWhichShapeBoundFailed) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed GEMM needs AVX-512";
  ScopedKernelChoices choices;
  OpCase c = matmul(4, 16, 16, /*constantB=*/true);
  ASSERT_TRUE(runOp(c).isOk());
  const kernels::KernelChoice choice = choices.last("matmul");
  EXPECT_EQ(choice.whyRefused("packed-sgemm"), "M 4, K 16, N 16: needs M >= 16, K >= 8, N >= 8")
      << choice.describe();
  EXPECT_NE(choice.chosen, "packed-sgemm");
  EXPECT_FALSE(choice.chosen.empty());
}

// Where it applies, the packed GEMM is first and nothing is refused.
TEST(MatMulSelection, FirstCandidateTakesConstantB) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the packed GEMM needs AVX-512";
  ScopedKernelChoices choices;
  OpCase c = matmul(32, 16, 16, /*constantB=*/true);
  ASSERT_TRUE(runOp(c).isOk());
  const kernels::KernelChoice choice = choices.last("matmul");
  EXPECT_EQ(choice.chosen, "packed-sgemm") << choice.describe();
  EXPECT_TRUE(choice.refused.empty()) << choice.describe();
}

// The packed GEMM's debug switch is its refusal.
TEST(MatMulSelection, DebugSwitchIsTheReason) {
  const bool saved = kernels::packedSgemmEnabled();
  kernels::setPackedSgemmEnabled(false);
  ScopedKernelChoices choices;
  OpCase c = matmul(32, 16, 16, /*constantB=*/true);
  Status s = runOp(c);
  kernels::setPackedSgemmEnabled(saved);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(choices.last("matmul").whyRefused("packed-sgemm"), "off (WEBNN_PACKED_SGEMM=0)");
}

#if WEBNN_HAVE_ONEDNN
// WEBNN_ONEDNN and WEBNN_BF16 are debug options: onednn::setPolicy and the
// options are one value, either way round.
TEST(MatMulSelection, OneDnnSwitchesAreDebugOptions) {
  const onednn::Policy saved = onednn::policy();
  EXPECT_EQ(saved.enabled, debugOptions().oneDnn.load());
  EXPECT_EQ(saved.bf16, debugOptions().bf16.load());
  onednn::Policy p = saved;
  p.enabled = !saved.enabled;
  p.bf16 = !saved.bf16;
  onednn::setPolicy(p);
  EXPECT_EQ(debugOptions().oneDnn.load(), !saved.enabled);
  EXPECT_EQ(debugOptions().bf16.load(), !saved.bf16);
  debugOptions().oneDnn.store(saved.enabled);
  debugOptions().bf16.store(saved.bf16);
  EXPECT_EQ(onednn::policy().enabled, saved.enabled);
  EXPECT_EQ(onednn::policy().bf16, saved.bf16);
  // A bf16 refusal names the switch.
  debugOptions().bf16.store(false);
  std::string why;
  EXPECT_FALSE(onednn::bf16Available(&why));
  debugOptions().bf16.store(saved.bf16);
  EXPECT_NE(why.find("WEBNN_"), std::string::npos) << why;
  onednn::setPolicy(saved);
}
#endif

}  // namespace
}  // namespace webnn::cpu::test
