// The estimator (runtime/estimate/): cost-function coverage of the kernel
// registry, calibration under a deadline, estimates of small and hostile
// graphs, tiers, the profile's JSON checks and warm refinement.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "../kernels/KernelChoices.h"
#include "TestArtifact.h"
#include "backends/cpu/CostFunctions.h"
#include "backends/cpu/PieceSplit.h"
#include "backends/cpu/ThreadPool.h"
#include "backends/cpu/kernels/PackedSgemm.h"
#include "backends/cpu/onednn/OneDnn.h"
#include "estimate/Calibrate.h"
#include "estimate/Estimate.h"
#include "webnn/webnn_c.h"

namespace webnn::test {
namespace {

using est::DeviceProfile;
using est::Estimate;
using est::Tier;

// A fixed profile, so estimates are deterministic: 100 GFLOP/s, 10-100 GB/s,
// and per family one point at ratio 2.
DeviceProfile syntheticProfile() {
  DeviceProfile p;
  p.cpuModel = "test";
  p.isa = "x86-64-v3";
  p.libraryVersion = "0";
  p.maxThreads = 1;
  p.l1Bytes = 32 << 10;
  p.l2Bytes = 1 << 20;
  p.l3Bytes = 16 << 20;
  p.firstTouchGBs = 5;
  p.jitMs = 1;
  p.complete = true;
  est::ThreadProfile t;
  t.threads = 1;
  t.peakGflops = 100;
  t.l1GBs = 100;
  t.l2GBs = 50;
  t.l3GBs = 30;
  t.dramGBs = 10;
  t.nodeOverheadUs = 1;
  t.runSpread = 0.02;
  for (const cpu::CostFamily &f : cpu::costFamilies()) {
    est::GridPoint gp;
    gp.params.assign(size_t(f.numParams), 64.0);
    gp.ratio = 2;
    t.families[std::string(f.name)].points.push_back(gp);
    t.families[std::string(f.name)].logSigma = 0.1;
  }
  p.threads.push_back(t);
  return p;
}

// syntheticProfile with a second thread count: 2 threads, the same figures.
DeviceProfile syntheticTwoThreadProfile() {
  DeviceProfile p = syntheticProfile();
  p.maxThreads = 2;
  est::ThreadProfile two = p.threads[0];
  two.threads = 2;
  p.threads.push_back(two);
  return p;
}

std::string writeArtifact(const std::string &tag, const TGraph &g, bool weightless = false) {
  std::string dir = tempDir(tag);
  Built b = buildArtifact(g, weightless);
  writeFile(dir + "/model.wnn", b.artifact);
  return dir + "/model.wnn";
}

TEST(CostFunctions, EveryKernelHasOne) {
  std::vector<std::string_view> families;
  for (const cpu::CostFamily &f : cpu::costFamilies()) families.push_back(f.name);
  for (std::string_view op : cpu::cpuKernelNames())
    EXPECT_NE(cpu::findCostFunction(op), nullptr) << "op '" << op << "' has no cost function (CostFunctions.cpp)";
  // Each family a cost function names is one the profile has a grid for.
  TGraph g = addReluGraph();
  for (std::string_view op : cpu::costFunctionNames()) {
    cpu::OperandDesc a{DataType::kFloat32, {2, 8, 8, 4}, nullptr}, b{DataType::kFloat32, {4, 3, 3, 4}, nullptr};
    cpu::OperandDesc y{DataType::kFloat32, {2, 8, 8, 4}, nullptr};
    cpu::NodeDesc n;
    n.op = std::string(op);
    n.inputs = {&a, &b, &a};
    n.outputs = {&y};
    cpu::NodeCost c = cpu::findCostFunction(op)(n, {false, true, false}, 1);
    EXPECT_NE(std::find(families.begin(), families.end(), c.family), families.end()) << op << " -> " << c.family;
    EXPECT_TRUE(std::isfinite(c.flops) && c.flops >= 0 && std::isfinite(c.bytes) && c.bytes > 0) << op;
    for (const cpu::CostFamily &f : cpu::costFamilies())
      if (f.name == c.family) EXPECT_EQ(int(c.params.size()), f.numParams) << op;
  }
}

// Every family a cost function can name has grid points of its own. A new
// kernel family must get grid points in Calibrate.cpp, or be listed here
// knowingly as priced on another family's grid (Estimate.cpp's fallbacks;
// none is today): it cannot fall outside the calibrated model unnoticed.
TEST(CostFunctions, EveryFamilyIsCalibratedOrBorrowsOnPurpose) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the grid's families are those of an AVX-512 CPU";
  const std::vector<std::string> grid = est::calibratedFamilies();
  const std::vector<std::string> borrowing = {};
  for (const cpu::CostFamily &f : cpu::costFamilies()) {
    bool measured = std::find(grid.begin(), grid.end(), f.name) != grid.end();
    bool borrows = std::find(borrowing.begin(), borrowing.end(), f.name) != borrowing.end();
    EXPECT_TRUE(measured || borrows) << "family " << f.name << " has no calibration grid points (Calibrate.cpp)";
    EXPECT_FALSE(measured && borrows) << "family " << f.name << " is calibrated now: take it off the list";
  }
  // Every op's cost function names a family of costFamilies().
  for (const std::string &f : grid) {
    bool known = false;
    for (const cpu::CostFamily &c : cpu::costFamilies()) known |= c.name == f;
    EXPECT_TRUE(known) << f;
  }
}

// A dilated convolution runs on oneDNN's direct kernel (Winograd takes no
// dilation), which skips the taps in the padding: a 3x3 dilated by 24 on a
// 16x16 map reads only its centre tap (and, near the middle, none other).
TEST(CostFunctions, DilatedConvolutionPricedAsTheDirectKernelItRuns) {
  auto dilated = [](int64_t d, int64_t groups) {
    cpu::NodeDesc n;
    n.op = "fusedConv2d";
    auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
    auto ints = [](std::vector<int64_t> v) {
      return cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", std::move(v)};
    };
    n.attributes.set("inputLayout", str("nhwc"));
    n.attributes.set("filterLayout", str("ohwi"));
    n.attributes.set("activation", str("relu"));
    n.attributes.set("dilations", ints({d, d}));
    n.attributes.set("padding", ints({d, d, d, d}));
    n.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, groups, 0, "", {}});
    return n;
  };
  cpu::OperandDesc x{DataType::kFloat32, {1, 16, 16, 320}, nullptr}, w{DataType::kFloat32, {128, 3, 3, 320}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {1, 16, 16, 128}, nullptr};
  const double nominal = 2.0 * 16 * 16 * 128 * 320 * 9;
  cpu::NodeDesc d24 = dilated(24, 1);
  d24.inputs = {&x, &w};
  d24.outputs = {&y};
  cpu::NodeCost c = cpu::findCostFunction("fusedConv2d")(d24, {false, true}, 1);
  EXPECT_EQ(c.family, "conv2d");
  EXPECT_TRUE(c.jit);
  EXPECT_DOUBLE_EQ(c.flops, nominal / 9);  // every off-centre tap is in the padding
  cpu::NodeDesc d2 = dilated(2, 1);
  d2.inputs = {&x, &w};
  d2.outputs = {&y};
  c = cpu::findCostFunction("fusedConv2d")(d2, {false, true}, 1);
  EXPECT_EQ(c.family, "conv2d");
  EXPECT_DOUBLE_EQ(c.flops, nominal * (44.0 / 48) * (44.0 / 48));  // per axis: 14 + 16 + 14 of 3 x 16 taps
  // Depthwise and dilated: oneDNN's jit_dw, not our 3x3 kernel.
  cpu::OperandDesc xd{DataType::kFloat32, {1, 64, 64, 64}, nullptr}, wd{DataType::kFloat32, {64, 3, 3, 1}, nullptr};
  cpu::OperandDesc yd{DataType::kFloat32, {1, 64, 64, 64}, nullptr};
  cpu::NodeDesc dw = dilated(2, 64);
  dw.inputs = {&xd, &wd};
  dw.outputs = {&yd};
  c = cpu::findCostFunction("fusedConv2d")(dw, {false, true}, 2);
  EXPECT_EQ(c.family, "conv2d.depthwise.onednn");
  EXPECT_TRUE(c.jit);
  cpu::NodeDesc plain = dilated(1, 64);
  plain.inputs = {&xd, &wd};
  plain.outputs = {&yd};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    EXPECT_EQ(cpu::findCostFunction("fusedConv2d")(plain, {false, true}, 1).family, "conv2d.depthwise");
}

// resample2d: by mode, and by the contiguous run its row walker copies or
// blends per output pixel (nhwc: the channels; nchw: one element).
TEST(CostFunctions, ResampleByModeAndRun) {
  cpu::OperandDesc x{DataType::kFloat32, {1, 16, 32, 32}, nullptr}, y{DataType::kFloat32, {1, 16, 64, 64}, nullptr};
  cpu::NodeDesc n;
  n.op = "resample2d";
  n.attributes.set("mode", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "linear", {}});
  n.inputs = {&x};
  n.outputs = {&y};
  cpu::NodeCost c = cpu::findCostFunction("resample2d")(n, {false}, 1);
  EXPECT_EQ(c.family, "resample.linear");
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_DOUBLE_EQ(c.params[0], 16 * 64 * 64);
  EXPECT_DOUBLE_EQ(c.params[1], 1);
  EXPECT_TRUE(c.instructionBound);
  cpu::OperandDesc xh{DataType::kFloat32, {1, 32, 32, 16}, nullptr}, yh{DataType::kFloat32, {1, 64, 64, 16}, nullptr};
  n.attributes.set("mode", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nearest-neighbor", {}});
  n.attributes.set("axes", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {1, 2}});
  n.inputs = {&xh};
  n.outputs = {&yh};
  c = cpu::findCostFunction("resample2d")(n, {false}, 1);
  EXPECT_EQ(c.family, "resample.nearest");
  EXPECT_DOUBLE_EQ(c.params[1], 16);
  EXPECT_FALSE(c.instructionBound);  // 64-byte runs: bound by the bytes
}

// A pool's third parameter, input elements per output, sets strided pools
// apart from stride-1 ones of the same output size (and depthwise layers).
TEST(CostFunctions, StridedPoolsAndDepthwiseApartFromStrideOne) {
  auto poolParams = [](int64_t H, int64_t stride) {
    int64_t OH = (H - 3) / stride + 1;
    cpu::OperandDesc x{DataType::kFloat32, {1, H, H, 64}, nullptr}, y{DataType::kFloat32, {1, OH, OH, 64}, nullptr};
    cpu::NodeDesc n;
    n.op = "maxPool2d";
    n.attributes.set("layout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
    n.attributes.set("windowDimensions", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {3, 3}});
    n.attributes.set("strides", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {stride, stride}});
    n.inputs = {&x};
    n.outputs = {&y};
    return cpu::findCostFunction("maxPool2d")(n, {false}, 1).params;
  };
  std::vector<double> s1 = poolParams(30, 1), s2 = poolParams(57, 2);
  ASSERT_EQ(s1.size(), 3u);
  EXPECT_DOUBLE_EQ(s1[0], s2[0]);  // 28 x 28 x 64 outputs both
  EXPECT_NEAR(s1[2], 30.0 * 30 / (28 * 28), 1e-9);
  EXPECT_NEAR(s2[2], 57.0 * 57 / (28 * 28), 1e-9);
  // A depthwise 3x3 stride 2 (oneDNN's jit_dw) reads about 4 inputs per output.
  cpu::OperandDesc x{DataType::kFloat32, {1, 56, 56, 96}, nullptr}, w{DataType::kFloat32, {96, 3, 3, 1}, nullptr},
      b{DataType::kFloat32, {96}, nullptr}, y{DataType::kFloat32, {1, 28, 28, 96}, nullptr};
  cpu::NodeDesc n;
  n.op = "conv2d";
  n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
  n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
  n.attributes.set("strides", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {2, 2}});
  n.attributes.set("padding", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {0, 1, 0, 1}});
  cpu::AttributeValue groups;
  groups.i = 96;
  n.attributes.set("groups", groups);
  n.inputs = {&x, &w, &b};
  n.outputs = {&y};
  cpu::NodeCost c = cpu::findCostFunction("conv2d")(n, {false, true, true}, 1);
  EXPECT_EQ(c.family.rfind("conv2d.depthwise", 0), 0u) << c.family;
  ASSERT_EQ(c.params.size(), 3u);
  EXPECT_NEAR(c.params[2], 56.0 * 56 / (28 * 28), 0.2);
}

// Four matmuls over 8 MB weights each: one fits the profile's 16 MB L3 and is
// priced on the grid alone; four exceed it together, so the share of their
// weights the L3 cannot keep streams from DRAM at the read bandwidth every
// run, a floor under each (a decode step's GEMVs); measured cold ratios
// blend in by the same share. The executor's fixed cost counts once per run.
TEST(Estimate, WeightsBeyondTheL3PricedAtDramBandwidth) {
  DeviceProfile p = syntheticProfile();
  p.threads[0].dramReadGBs = 4;
  auto chain = [](int layers) {
    TGraph g;
    g.name = "gemv chain";
    g.tensors.push_back({"x", DataType::kFloat32, {1, 2048}});
    for (int l = 0; l < layers; ++l) {
      int64_t K = l % 2 ? 1024 : 2048, N = l % 2 ? 2048 : 1024;
      g.tensors.push_back({"w" + std::to_string(l), DataType::kFloat32, {K, N}});
      g.tensors.push_back({l + 1 == layers ? "y" : "h" + std::to_string(l), DataType::kFloat32, {1, N}});
      uint32_t wi = uint32_t(g.tensors.size() - 2);
      g.constants.push_back({wi, std::vector<uint8_t>(64, 0), "w" + std::to_string(l), std::nullopt,
                             uint64_t(K * N * 4)});
      g.nodes.push_back({"matmul", {int32_t(wi) - (l == 0 ? int32_t(wi) : 1), int32_t(wi)}, {int32_t(wi) + 1},
                         "mm" + std::to_string(l)});
    }
    g.inputs = {0};
    g.outputs = {uint32_t(g.tensors.size() - 1)};
    g.segmentSize = uint64_t(layers) * (8u << 20);
    return g;
  };
  const double weightBytes = 8.0 * (1 << 20);
  Estimate one, four;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv1", chain(1), true), p, {}, &one).isOk());
  Status s = est::estimateArtifact(writeArtifact("est_gemv4", chain(4), true), p, {}, &four);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(one.nodes.size(), 1u);
  ASSERT_EQ(four.nodes.size(), 4u);
  EXPECT_EQ(four.nodes[0].family, "gemm");
  double roof = est::rooflineMs(p, p.threads[0], one.nodes[0].flops, one.nodes[0].bytes);
  EXPECT_NEAR(one.nodes[0].ms, 1e-3 + 2 * roof, 1e-9);  // in the L3: ratio 2 x roofline
  EXPECT_DOUBLE_EQ(one.nodes[0].dramBytes, 0);
  // Working set: the weights, the arena, the input and the output.
  double ws = double(four.weightsBytes) + double(four.arenaBytes) + (2048 + 2048) * 4.0;
  double share = 1 - double(p.l3Bytes) / ws;
  ASSERT_GT(share, 0.4);
  for (const est::NodeEstimate &n : four.nodes) {
    EXPECT_GE(n.dramBytes, weightBytes);
    // The last node also writes the caller's output (8 KB), at the copy bandwidth.
    double written = n.name == "mm3" ? 2048 * 4.0 : 0;
    double stream = share * ((n.dramBytes - written) / (4 * 1e6) + written / (10 * 1e6));
    EXPECT_GT(stream, 2 * roof);
    EXPECT_NEAR(n.ms, 1e-3 + stream, 1e-9) << n.name;
  }
  // Cold ratios measured (weights evicted from the L3 first) blend in.
  DeviceProfile cold = p;
  for (est::GridPoint &g : cold.threads[0].families["gemm"].points) g.coldRatio = 20;
  Estimate blended;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv4c", chain(4), true), cold, {}, &blended).isOk());
  double r = (1 - share) * 2 + share * 20;
  EXPECT_NEAR(blended.nodes[1].ms, 1e-3 + std::max(r * roof, share * blended.nodes[1].dramBytes / 4e6), 1e-9);
  EXPECT_DOUBLE_EQ(blended.dramShare, share);
  // In a graph what the weights from DRAM add takes graphColdFactor times
  // what it added to the kernels alone (calibration's decode chain): that
  // part and the DRAM floor scale, the L3 time does not.
  cold.threads[0].graphColdFactor = 1.5;
  Estimate slower;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv4f", chain(4), true), cold, {}, &slower).isOk());
  double rf = 2 + share * 1.5 * (20 - 2);
  EXPECT_NEAR(slower.nodes[1].ms, 1e-3 + std::max(rf * roof, 1.5 * share * slower.nodes[1].dramBytes / 4e6), 1e-9);
  Estimate fitsL3;
  cold.threads[0].graphColdFactor = 3;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv1f", chain(1), true), cold, {}, &fitsL3).isOk());
  EXPECT_DOUBLE_EQ(fitsL3.dramShare, 0);
  EXPECT_NEAR(fitsL3.nodes[0].ms, one.nodes[0].ms, 1e-12);  // weights in the L3: no DRAM term
  // The per-run fixed cost, once whatever the node count.
  p.threads[0].runOverheadUs = 7;
  Estimate withRun;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv4r", chain(4), true), p, {}, &withRun).isOk());
  EXPECT_DOUBLE_EQ(withRun.runOverheadMs, 7e-3);
  EXPECT_NEAR(withRun.medianMs, four.medianMs + 7e-3, 1e-12);
}

// A graph whose whole working set fits the L2 is priced on the hot reruns'
// ratios (nothing evicts a tiny model's tensors between its nodes).
TEST(Estimate, TinyGraphPricedOnHotRatios) {
  DeviceProfile p = syntheticProfile();
  Estimate l3, hot;
  std::string path = writeArtifact("est_hot", addReluGraph());
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &l3).isOk());
  for (auto &[name, g] : p.threads[0].families)
    for (est::GridPoint &pt : g.points) pt.hotRatio = 0.5;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &hot).isOk());
  ASSERT_EQ(hot.nodes.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_NEAR(hot.nodes[i].ms - 1e-3, (l3.nodes[i].ms - 1e-3) / 4, 1e-12);  // ratio 0.5 where 2
}

TEST(Tiers, BoundariesAndRequirement) {
  EXPECT_EQ(est::tierOf(15.99), Tier::kExcellent);
  EXPECT_EQ(est::tierOf(16), Tier::kGood);
  EXPECT_EQ(est::tierOf(99.9), Tier::kGood);
  EXPECT_EQ(est::tierOf(100), Tier::kFair);
  EXPECT_EQ(est::tierOf(999), Tier::kFair);
  EXPECT_EQ(est::tierOf(9999), Tier::kModerate);
  EXPECT_EQ(est::tierOf(29999), Tier::kSlow);
  EXPECT_EQ(est::tierOf(59999), Tier::kVerySlow);
  EXPECT_EQ(est::tierOf(60000), Tier::kPoor);
  Tier t;
  EXPECT_TRUE(est::parseTier("very-slow", &t));
  EXPECT_EQ(t, Tier::kVerySlow);
  EXPECT_FALSE(est::parseTier("fast", &t));
  // The median in "excellent", the p90 past it: does not meet "excellent".
  Estimate e;
  e.medianMs = 14;
  e.p10Ms = 12;
  e.p90Ms = 17;
  EXPECT_FALSE(est::meetsRequirement(e, Tier::kExcellent));
  EXPECT_TRUE(est::meetsRequirement(e, Tier::kGood));
  EXPECT_TRUE(est::meetsRequirement(e, Tier::kPoor));
}

TEST(Estimate, SmallGraphFullAndWeightless) {
  DeviceProfile p = syntheticProfile();
  for (bool weightless : {false, true}) {
    std::string path = writeArtifact(weightless ? "est_wl" : "est_full", addReluGraph(), weightless);
    Estimate e;
    Status s = est::estimateArtifact(path, p, {}, &e);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_EQ(e.nodes.size(), 2u);
    EXPECT_EQ(e.nodes[0].family, "binary");
    EXPECT_EQ(e.nodes[1].family, "unary");
    // add: 6 flops, 3 x 24 bytes; each node = 1 us overhead + 2 x roofline.
    EXPECT_DOUBLE_EQ(e.nodes[0].bytes, 72);
    EXPECT_NEAR(e.nodes[0].ms, 1e-3 + 2 * 72 / 100e6, 1e-9);
    EXPECT_NEAR(e.medianMs, e.nodes[0].ms + e.nodes[1].ms, 1e-12);
    EXPECT_LT(e.p10Ms, e.medianMs);
    EXPECT_GT(e.p90Ms, e.medianMs);
    EXPECT_EQ(e.tier, Tier::kExcellent);
    EXPECT_GE(e.coldMs, e.medianMs);
    EXPECT_GE(e.weightsBytes, 24u);  // the weight segment, 64-byte aligned
  }
}

TEST(Estimate, DynamicShapes) {
  DeviceProfile p = syntheticProfile();
  std::string path = writeArtifact("est_dyn", dynamicReluGraph());
  Estimate atMax, at2;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &atMax).isOk());
  est::EstimateOptions o;
  o.shapes = {{"x", {2, 2}}};
  Status s = est::estimateArtifact(path, p, o, &at2);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_LT(at2.nodes[0].bytes, atMax.nodes[0].bytes);
  o.shapes = {{"x", {9, 2}}};  // past the maximum of 8
  EXPECT_FALSE(est::estimateArtifact(path, p, o, &at2).isOk());
  o.shapes = {{"nope", {2, 2}}};
  s = est::estimateArtifact(path, p, o, &at2);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("no input of that name"), std::string::npos) << s.message();
  std::string fixed = writeArtifact("est_static", addReluGraph());
  o.shapes = {{"x", {4, 3}}};
  s = est::estimateArtifact(fixed, p, o, &at2);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("static"), std::string::npos) << s.message();
}

// A graph claiming 64 TB tensors: estimated from the shapes
// alone, without allocating them, in well under a second.
TEST(Estimate, HostileShapesAreNotAllocated) {
  TGraph g;
  g.name = "hostile";
  const int64_t n = int64_t(1) << 22;
  g.tensors = {{"x", DataType::kFloat32, {n, n}},
               {"w", DataType::kFloat32, {n, n}},
               {"y", DataType::kFloat32, {n, n}},
               {"z", DataType::kFloat32, {n, n}}};
  g.nodes = {{"matmul", {0, 1}, {2}, "mm"}, {"relu", {2}, {3}, "r"}};
  g.inputs = {0, 1};
  g.outputs = {3};
  std::string path = writeArtifact("est_hostile", g);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  auto t0 = std::chrono::steady_clock::now();
  Estimate e;
  Status s = est::estimateArtifact(path, syntheticProfile(), {}, &e);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of peak RSS grown";
  ASSERT_TRUE(s.isOk()) << s.message();  // the loader takes it: shapes within 2^56 elements
  {
    EXPECT_EQ(e.tier, Tier::kPoor);
    EXPECT_TRUE(std::isfinite(e.medianMs));
    EXPECT_GT(e.nodes[0].flops, 1e20);
  }
  EXPECT_LT(seconds, 1.0);
}

// A loop costs one iteration of its body, with a note saying so.
TEST(Estimate, ControlFlowCostsItsBody) {
  Estimate e;
  Status s = est::estimateArtifact(writeArtifact("est_loop", swapLoopGraph()), syntheticProfile(), {}, &e);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(e.nodes.size(), 1u);
  EXPECT_EQ(e.nodes[0].family, "control");
  EXPECT_GT(e.nodes[0].ms, 1e-3);  // its own overhead plus the body's add
  bool noted = false;
  for (const std::string &n : e.notes) noted |= n.find("loop") != std::string::npos;
  EXPECT_TRUE(noted);
}

// The pieces a 2-thread run cuts oneDNN convolutions and matmuls into
// (onednn/Conv2d.cpp and MatMul.cpp build theirs from these plans).
TEST(PieceSplit, ConvolutionImagesRowsChannels) {
  cpu::ConvSplitShape s;
  s.N = 1, s.C = 512, s.H = 7, s.O = 512, s.OH = 7, s.OW = 7, s.KH = 3, s.KW = 3;
  s.padTop = 1;
  cpu::ConvPiecePlan rows = cpu::planConv2dPieces(s, 2);
  ASSERT_EQ(rows.kind, cpu::PieceKind::kPieces);
  EXPECT_EQ(rows.by, cpu::ConvPiecePlan::By::kRows);
  ASSERT_EQ(rows.pieces.size(), 2u);  // 7 rows: 4 + 3, the first piece the larger
  EXPECT_EQ(rows.pieces[0].oh1 - rows.pieces[0].oh0, 4);
  EXPECT_EQ(rows.pieces[1].oh1 - rows.pieces[1].oh0, 3);
  s.N = 4;
  cpu::ConvPiecePlan images = cpu::planConv2dPieces(s, 2);
  ASSERT_EQ(images.pieces.size(), 2u);
  EXPECT_EQ(images.by, cpu::ConvPiecePlan::By::kImages);
  EXPECT_EQ(images.pieces[1].n0, 2);
  EXPECT_EQ(images.pieces[1].n, 2);
  // A Winograd layer with >= 64 output channels per piece: pieces of output
  // channels over all rows; a narrower one keeps its rows.
  s.N = 1, s.H = s.OH = s.OW = 14, s.O = 256, s.C = 256;
  s.winograd = true;
  cpu::ConvPiecePlan wide = cpu::planConv2dPieces(s, 2);
  ASSERT_EQ(wide.by, cpu::ConvPiecePlan::By::kChannels);
  ASSERT_EQ(wide.pieces.size(), 2u);
  EXPECT_EQ(wide.pieces[1].o0, 128);
  EXPECT_EQ(wide.pieces[1].oh1, 14);
  s.O = 96;
  EXPECT_EQ(cpu::planConv2dPieces(s, 2).by, cpu::ConvPiecePlan::By::kRows);
  s.winograd = false, s.O = 512, s.C = 512, s.H = s.OH = s.OW = 7;
  // One output pixel: pieces of whole 16-channel blocks.
  cpu::ConvSplitShape fc;
  fc.C = 2048, fc.O = 1000;
  cpu::ConvPiecePlan channels = cpu::planConv2dPieces(fc, 2);
  ASSERT_EQ(channels.by, cpu::ConvPiecePlan::By::kChannels);
  ASSERT_EQ(channels.pieces.size(), 2u);
  EXPECT_EQ(channels.pieces[0].o, 512);
  EXPECT_EQ(channels.pieces[1].o0, 512);
  EXPECT_EQ(channels.pieces[1].o, 488);
  // Too small to cut; a filter given at run time is not cut.
  cpu::ConvSplitShape tiny;
  tiny.C = 4, tiny.O = 4, tiny.H = 8, tiny.OH = 8, tiny.OW = 8;
  EXPECT_EQ(cpu::planConv2dPieces(tiny, 2).kind, cpu::PieceKind::kOneThread);
  s.constantFilter = false;
  EXPECT_EQ(cpu::planConv2dPieces(s, 2).kind, cpu::PieceKind::kOpenMp);
  EXPECT_EQ(cpu::planConv2dPieces(fc, 1).kind, cpu::PieceKind::kOneThread);
}

TEST(PieceSplit, MatMulBatchRowsColumns) {
  cpu::MatMulPiecePlan batch = cpu::planMatMulPieces({12, 128, 128}, 64, 2);
  ASSERT_EQ(batch.kind, cpu::PieceKind::kPieces);
  EXPECT_EQ(batch.axis, 0);
  EXPECT_EQ(batch.per, 6);
  EXPECT_EQ(batch.count, 2);
  cpu::MatMulPiecePlan rows = cpu::planMatMulPieces({1, 100, 768}, 768, 2);
  EXPECT_EQ(rows.axis, 1);
  EXPECT_EQ(rows.per, 50);
  cpu::MatMulPiecePlan cols = cpu::planMatMulPieces({1, 1000}, 2048, 2);
  EXPECT_EQ(cols.axis, 1);
  EXPECT_EQ(cols.per, 512);  // whole 64-column blocks: 512 + 488
  EXPECT_EQ(cols.count, 2);
  EXPECT_EQ(cpu::planMatMulPieces({4, 4}, 4, 2).kind, cpu::PieceKind::kOneThread);
}

// The cost functions name the piece the runtime's split makes: Winograd
// 3x3 layers cut by rows, the larger piece priced.
TEST(CostFunctions, ConvolutionFamiliesAndPieces) {
  auto conv = [](int64_t H, int64_t C, int64_t O, int64_t k, int64_t stride, const char *act) {
    cpu::NodeDesc n;
    n.op = "fusedConv2d";
    n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
    n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
    n.attributes.set("strides", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {stride, stride}});
    n.attributes.set("activation", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, act, {}});
    return n;
  };
  cpu::OperandDesc x{DataType::kFloat32, {1, 15, 15, 64}, nullptr}, w{DataType::kFloat32, {64, 3, 3, 64}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {1, 15, 15, 64}, nullptr}, ys2{DataType::kFloat32, {1, 7, 7, 64}, nullptr};
  cpu::NodeDesc n = conv(15, 64, 64, 3, 1, "relu");
  n.inputs = {&x, &w};
  n.outputs = {&y};
  cpu::NodeCost one = cpu::findCostFunction("fusedConv2d")(n, {false, true}, 1);
  EXPECT_EQ(one.family, "conv2d.winograd");
  EXPECT_EQ(one.threading, cpu::Threading::kPool);  // one thread: nothing to cut
  cpu::NodeCost two = cpu::findCostFunction("fusedConv2d")(n, {false, true}, 2);
  ASSERT_EQ(two.threading, cpu::Threading::kPieces);
  EXPECT_EQ(two.pieces, 2);
  EXPECT_EQ(two.piece.family, "conv2d.winograd");
  EXPECT_DOUBLE_EQ(two.piece.params[0], 8 * 15);  // 15 rows: 8 + 7
  EXPECT_DOUBLE_EQ(two.piece.flops, two.flops * 8 / 15);
  // 256 channels each way on 15-20 output columns stay on the direct kernel
  // (19cf035), its pieces too; 12 columns are Winograd's.
  auto wide = [&](int64_t hw, int threads) {
    cpu::OperandDesc xw{DataType::kFloat32, {1, hw, hw, 256}, nullptr}, ww{DataType::kFloat32, {256, 3, 3, 256}, nullptr};
    cpu::OperandDesc yw{DataType::kFloat32, {1, hw, hw, 256}, nullptr};
    cpu::NodeDesc d = conv(hw, 256, 256, 3, 1, "relu");
    d.inputs = {&xw, &ww};
    d.outputs = {&yw};
    return cpu::findCostFunction("fusedConv2d")(d, {false, true}, threads);
  };
  EXPECT_EQ(wide(16, 1).family, "conv2d");
  EXPECT_EQ(wide(16, 2).piece.family, "conv2d");
  EXPECT_EQ(wide(12, 1).family, "conv2d.winograd");
  // Stride 2: oneDNN's direct kernels, a family apart; SiLU is a pass after.
  cpu::NodeDesc s2 = conv(15, 64, 64, 3, 2, "silu");
  s2.inputs = {&x, &w};
  s2.outputs = {&ys2};
  cpu::NodeCost direct = cpu::findCostFunction("fusedConv2d")(s2, {false, true}, 1);
  EXPECT_EQ(direct.family, "conv2d");
  ASSERT_EQ(direct.after.size(), 1u);
  EXPECT_EQ(direct.after[0].family, "unary.sigmoid");
  EXPECT_DOUBLE_EQ(direct.after[0].params[0], 7 * 7 * 64);
  // Our depthwise 3x3 kernel applies SiLU row block by row block: no pass.
  cpu::NodeDesc dw = conv(15, 64, 64, 3, 1, "silu");
  dw.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, 64, 0, "", {}});
  cpu::OperandDesc wdw{DataType::kFloat32, {64, 3, 3, 1}, nullptr};
  dw.inputs = {&x, &wdw};
  dw.outputs = {&y};
  cpu::NodeCost depthwise = cpu::findCostFunction("fusedConv2d")(dw, {false, true}, 1);
  EXPECT_EQ(depthwise.family, "conv2d.depthwise");
  EXPECT_EQ(depthwise.after.size(), __builtin_cpu_supports("avx512f") ? 0u : 1u);
  // 5x5 depthwise: ours from 14 output columns up, oneDNN's jit_dw below.
  auto dw5 = [&](int64_t hw, int64_t ch) {
    cpu::NodeDesc d = conv(hw, ch, ch, 5, 1, "relu");
    d.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, ch, 0, "", {}});
    d.attributes.set("padding", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {2, 2, 2, 2}});
    cpu::OperandDesc in{DataType::kFloat32, {1, hw, hw, ch}, nullptr}, f{DataType::kFloat32, {ch, 5, 5, 1}, nullptr};
    cpu::OperandDesc out{DataType::kFloat32, {1, hw, hw, ch}, nullptr};
    d.inputs = {&in, &f};
    d.outputs = {&out};
    return cpu::findCostFunction("fusedConv2d")(d, {false, true}, 1).family;
  };
  if (__builtin_cpu_supports("avx512f")) EXPECT_EQ(dw5(28, 240), "conv2d.depthwise");
  EXPECT_EQ(dw5(7, 1152), "conv2d.depthwise.onednn");
}

// 1x1 layers go where Conv2dSelection.cpp sends them: a squeeze-and-
// excitation squeeze (few output channels) to our narrow pointwise kernel,
// its sigmoid expand (wide, under oneDNN's floor) to the portable kernel,
// whose epilogue calls std::exp per element (the exp family's pass), a
// wide 1x1 above the floor to oneDNN, still the pointwise family.
TEST(CostFunctions, SqueezeExcitationLayersOnTheKernelsThatRunThem) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "our pointwise kernels need AVX-512";
  auto conv1x1 = [](const char *act) {
    cpu::NodeDesc n;
    n.op = "fusedConv2d";
    n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
    n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
    n.attributes.set("activation", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, act, {}});
    return n;
  };
  auto cost = [&](int64_t hw, int64_t C, int64_t O, const char *act) {
    cpu::OperandDesc x{DataType::kFloat32, {1, hw, hw, C}, nullptr}, w{DataType::kFloat32, {O, 1, 1, C}, nullptr};
    cpu::OperandDesc y{DataType::kFloat32, {1, hw, hw, O}, nullptr};
    cpu::NodeDesc n = conv1x1(act);
    n.inputs = {&x, &w};
    n.outputs = {&y};
    return cpu::findCostFunction("fusedConv2d")(n, {false, true}, 1);
  };
  cpu::NodeCost squeeze = cost(1, 480, 20, "silu");
  EXPECT_EQ(squeeze.family, "conv2d.pointwise");
  EXPECT_TRUE(squeeze.after.empty());  // the narrow kernel applies SiLU in its tiles
  cpu::NodeCost wide = cost(4, 64, 512, "silu");  // the packed SGEMM, then the SiLU pass
  ASSERT_EQ(wide.after.size(), 1u);
  EXPECT_EQ(wide.after[0].family, "unary.sigmoid");
  // hardSwish: a pass after our kernels (7705d2a), inside oneDNN's.
  cpu::NodeCost hardSwish = cost(4, 64, 512, "hardSwish");
  EXPECT_EQ(hardSwish.family, "conv2d.pointwise");
  ASSERT_EQ(hardSwish.after.size(), 1u);
  EXPECT_EQ(hardSwish.after[0].family, "unary");
  EXPECT_DOUBLE_EQ(hardSwish.after[0].bytes, 2.0 * 4 * 4 * 512 * 4);
  EXPECT_TRUE(cost(4, 64, 512, "relu").after.empty());
  EXPECT_TRUE(cost(28, 96, 192, "hardSwish").after.empty());  // oneDNN's width: its post-op
  // Under oneDNN's floor the packed SGEMM after it (1233121, 3704786), the
  // sigmoid then in the portable kernel's epilogue pass.
  cpu::NodeCost expand = cost(1, 20, 480, "sigmoid");
  EXPECT_EQ(expand.family, "conv2d.pointwise");
  ASSERT_EQ(expand.after.size(), 1u);
  EXPECT_EQ(expand.after[0].family, "unary.sigmoid");  // the pass's vector exp (414fe61)
  EXPECT_DOUBLE_EQ(expand.after[0].params[0], 480);
  EXPECT_EQ(cost(1, 20, 480, "relu").family, "conv2d.pointwise");
  EXPECT_EQ(cost(1, 4, 96, "sigmoid").family, "conv2d.portable");  // fewer than 8 input channels
  EXPECT_EQ(cost(4, 64, 512, "relu").family, "conv2d.pointwise");  // the packed SGEMM's
  EXPECT_EQ(cost(56, 64, 256, "sigmoid").family, "conv2d.pointwise");  // oneDNN, above its floor
  EXPECT_EQ(cost(56, 64, 256, "sigmoid").after[0].family, "unary.sigmoid");
}

// A reshape whose output the arena plan put over its dying input copies
// nothing: its node costs the executor's per-node overhead alone. Read
// again later, its input keeps its bytes and the reshape is a copy.
TEST(Estimate, ReshapeOverItsDyingInputCopiesNothing) {
  auto chain = [](bool laterReader) { return reshapeChainGraph(laterReader, "relu", {64, 96}, {96, 64}); };
  DeviceProfile p = syntheticProfile();
  Estimate over, copied;
  Status s = est::estimateArtifact(writeArtifact("est_reshape_over", chain(false)), p, {}, &over);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = est::estimateArtifact(writeArtifact("est_reshape_copy", chain(true)), p, {}, &copied);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(over.nodes.size(), 3u);
  ASSERT_EQ(copied.nodes.size(), 4u);
  EXPECT_EQ(over.nodes[1].op, "reshape");
  EXPECT_DOUBLE_EQ(over.nodes[1].ms, p.threads[0].nodeOverheadUs * 1e-3);
  EXPECT_GT(copied.nodes[1].ms, 2 * p.threads[0].nodeOverheadUs * 1e-3);  // 24 KB moved at 30-100 GB/s, ratio 2
}

// batchNormalization + relu run as one kernel (BatchNormReluPair.cpp) when
// the relu alone reads the normalized tensor: the relu costs the per-node
// overhead alone. With a second reader the two run apart.
TEST(Estimate, BatchNormReluPairCostsOnePass) {
  auto graph = [](bool secondReader) {
    TGraph g;
    g.tensors = {{"x", DataType::kFloat32, {1, 16, 32, 32}}, {"mean", DataType::kFloat32, {16}},
                 {"var", DataType::kFloat32, {16}},          {"scale", DataType::kFloat32, {16}},
                 {"bias", DataType::kFloat32, {16}},         {"t", DataType::kFloat32, {1, 16, 32, 32}},
                 {"y", DataType::kFloat32, {1, 16, 32, 32}}};
    std::vector<float> ones(16, 1.f);
    for (uint32_t c = 1; c <= 4; ++c) g.constants.push_back({c, floatBytes(ones), g.tensors[c].name});
    g.nodes = {{"batchNormalization", {0, 1, 2, 3, 4}, {5}, "bn"}, {"relu", {5}, {6}, "relu"}};
    g.inputs = {0};
    g.outputs = {6};
    if (secondReader) {
      g.tensors.push_back({"w", DataType::kFloat32, {1, 16, 32, 32}});
      g.nodes.push_back({"relu", {5}, {7}, "relu2"});
      g.outputs.push_back(7);
    }
    return g;
  };
  DeviceProfile p = syntheticProfile();
  Estimate paired, apart;
  Status s = est::estimateArtifact(writeArtifact("est_bn_relu", graph(false), true), p, {}, &paired);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = est::estimateArtifact(writeArtifact("est_bn_relu_apart", graph(true), true), p, {}, &apart);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(paired.nodes.size(), 2u);
  EXPECT_EQ(paired.nodes[1].family, "paired");
  EXPECT_DOUBLE_EQ(paired.nodes[1].ms, p.threads[0].nodeOverheadUs * 1e-3);
  ASSERT_EQ(apart.nodes.size(), 3u);
  EXPECT_EQ(apart.nodes[1].family, "unary");
  EXPECT_GT(apart.nodes[1].ms, 2 * p.threads[0].nodeOverheadUs * 1e-3);
}

// nhwc instanceNormalization + the gelu that alone reads it run as one
// kernel on AVX-512 (Normalization.cpp's makeInstanceNormGeluPair): the gelu
// costs the per-node overhead alone, and the normalization its own price
// plus gelu's arithmetic at the unary.gelu grid's in-cache rate, no bytes.
// With a second reader the two run apart.
TEST(Estimate, InstanceNormGeluPairCostsOnePass) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the pair needs AVX-512";
  auto graph = [](bool secondReader) {
    TGraph g;
    g.tensors = {{"x", DataType::kFloat32, {1, 64, 64, 64}}, {"scale", DataType::kFloat32, {64}},
                 {"bias", DataType::kFloat32, {64}},         {"t", DataType::kFloat32, {1, 64, 64, 64}},
                 {"y", DataType::kFloat32, {1, 64, 64, 64}}};
    std::vector<float> ones(64, 1.f);
    for (uint32_t c = 1; c <= 2; ++c) g.constants.push_back({c, floatBytes(ones), g.tensors[c].name});
    TAttribute layout{"layout", 3, 0, 0, "nhwc", {}};
    g.nodes = {{"instanceNormalization", {0, 1, 2}, {3}, "norm", {layout}}, {"gelu", {3}, {4}, "gelu"}};
    g.inputs = {0};
    g.outputs = {4};
    if (secondReader) {
      g.tensors.push_back({"w", DataType::kFloat32, {1, 64, 64, 64}});
      g.nodes.push_back({"relu", {3}, {5}, "relu"});
      g.outputs.push_back(5);
    }
    return g;
  };
  DeviceProfile p = syntheticProfile();
  est::GridPoint gelu;
  gelu.params = {65536};
  gelu.ratio = 4;
  gelu.hotRatio = 2;
  gelu.ms = 0.04;
  p.threads[0].families["unary.gelu"].points = {gelu};
  const double perValueMs = 0.04 * 2 / 4 / 65536;
  Estimate paired, apart;
  Status s = est::estimateArtifact(writeArtifact("est_in_gelu", graph(false), true), p, {}, &paired);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = est::estimateArtifact(writeArtifact("est_in_gelu_apart", graph(true), true), p, {}, &apart);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(paired.nodes.size(), 2u);
  EXPECT_EQ(paired.nodes[1].family, "paired");
  EXPECT_DOUBLE_EQ(paired.nodes[1].ms, p.threads[0].nodeOverheadUs * 1e-3);
  ASSERT_EQ(apart.nodes.size(), 3u);
  EXPECT_EQ(apart.nodes[1].family, "unary.gelu");
  EXPECT_NEAR(paired.nodes[0].ms, apart.nodes[0].ms + 64 * 64 * 64 * perValueMs, 1e-9);
  EXPECT_LT(paired.nodes[0].ms + paired.nodes[1].ms, apart.nodes[0].ms + apart.nodes[1].ms);
}

// A squeeze-excitation channel scale (mul by [1,1,1,C]) feeding a 1x1 the
// narrow tiles take runs as one kernel (ScaledPointwisePair.cpp): the mul
// costs the per-node overhead alone, the 1x1 its own price.
TEST(Estimate, ScaledPointwisePairDropsTheMul) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the narrow 1x1 kernel needs AVX-512";
  auto graph = [](int64_t O) {
    TGraph g;
    g.tensors = {{"x", DataType::kFloat32, {1, 28, 28, 32}}, {"s", DataType::kFloat32, {1, 1, 1, 32}},
                 {"m", DataType::kFloat32, {1, 28, 28, 32}}, {"w", DataType::kFloat32, {O, 1, 1, 32}},
                 {"b", DataType::kFloat32, {O}},             {"y", DataType::kFloat32, {1, 28, 28, O}}};
    g.constants = {{3, floatBytes(std::vector<float>(size_t(O * 32), 0.5f)), "w"},
                   {4, floatBytes(std::vector<float>(size_t(O), 0.f)), "b"}};
    TAttribute in{"inputLayout", 3, 0, 0, "nhwc", {}}, fl{"filterLayout", 3, 0, 0, "ohwi", {}};
    g.nodes = {{"mul", {0, 1}, {2}, "scale"}, {"conv2d", {2, 3, 4}, {5}, "project", {in, fl}}};
    g.inputs = {0, 1};
    g.outputs = {5};
    return g;
  };
  DeviceProfile p = syntheticProfile();
  Estimate narrow, wide;
  Status s = est::estimateArtifact(writeArtifact("est_se_pair", graph(16), true), p, {}, &narrow);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = est::estimateArtifact(writeArtifact("est_se_wide", graph(64), true), p, {}, &wide);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(narrow.nodes.size(), 2u);
  EXPECT_EQ(narrow.nodes[0].family, "paired");
  EXPECT_DOUBLE_EQ(narrow.nodes[0].ms, p.threads[0].nodeOverheadUs * 1e-3);
  EXPECT_EQ(narrow.nodes[1].family, "conv2d.pointwise");
  // 64 output channels: the narrow tiles refuse it, so the two run apart.
  ASSERT_EQ(wide.nodes.size(), 2u);
  EXPECT_EQ(wide.nodes[0].family, "binary");
  // The 1x1 adding a residual that dies there: the plan writes y over it,
  // and the pair (which keeps it) still runs the mul inside the 1x1.
  TGraph res;
  res.tensors = {{"x", DataType::kFloat32, {1, 28, 28, 32}}, {"s", DataType::kFloat32, {1, 1, 1, 32}},
                 {"m", DataType::kFloat32, {1, 28, 28, 32}}, {"w", DataType::kFloat32, {16, 1, 1, 32}},
                 {"b", DataType::kFloat32, {16}},            {"y", DataType::kFloat32, {1, 28, 28, 16}},
                 {"x2", DataType::kFloat32, {1, 28, 28, 16}}, {"r", DataType::kFloat32, {1, 28, 28, 16}}};
  res.constants = {{3, floatBytes(std::vector<float>(size_t(16 * 32), 0.5f)), "w"},
                   {4, floatBytes(std::vector<float>(size_t(16), 0.f)), "b"}};
  TAttribute in{"inputLayout", 3, 0, 0, "nhwc", {}}, fl{"filterLayout", 3, 0, 0, "ohwi", {}};
  res.nodes = {{"relu", {6}, {7}, "shortcut"},
               {"mul", {0, 1}, {2}, "scale"},
               {"fusedConv2d", {2, 3, 4, 7}, {5}, "project", {in, fl}}};
  res.inputs = {0, 1, 6};
  res.outputs = {5};
  Estimate over;
  s = est::estimateArtifact(writeArtifact("est_se_pair_over_residual", res, true), p, {}, &over);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(over.nodes.size(), 3u);
  EXPECT_EQ(over.nodes[1].family, "paired");
  EXPECT_EQ(over.nodes[2].family, "conv2d.pointwise");
}

// A residual block end of 56x56 or more written over its dying residual
// runs oneDNN's 1x1 first (e3e2741: its sum post-op needs no copy), with
// SiLU as a pass after it; over a residual read later, the narrow tiles,
// which apply SiLU to rows still in cache.
TEST(CostFunctions, BlockEndOverItsResidualOnOneDnn) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the narrow 1x1 kernel needs AVX-512";
  cpu::OperandDesc x{DataType::kFloat32, {1, 56, 56, 64}, nullptr}, w{DataType::kFloat32, {256, 1, 1, 64}, nullptr};
  cpu::OperandDesc b{DataType::kFloat32, {256}, nullptr}, r{DataType::kFloat32, {1, 56, 56, 256}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {1, 56, 56, 256}, nullptr};
  cpu::NodeDesc n;
  n.op = "fusedConv2d";
  n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
  n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
  n.attributes.set("activation", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "silu", {}});
  n.inputs = {&x, &w, &b, &r};
  n.outputs = {&y};
  const cpu::NodeCost narrow = cpu::findCostFunction("fusedConv2d")(n, {false, true, true, false}, 1);
  EXPECT_EQ(narrow.family, "conv2d.pointwise");
  EXPECT_TRUE(narrow.after.empty());
  n.outputOverInput = 3;
  const cpu::NodeCost oneDnn = cpu::findCostFunction("fusedConv2d")(n, {false, true, true, false}, 1);
  EXPECT_EQ(oneDnn.family, "conv2d.pointwise");
  ASSERT_EQ(oneDnn.after.size(), 1u);
  EXPECT_EQ(oneDnn.after[0].family, "unary.sigmoid");
  // A narrow projection (72 -> 24) over its residual too (5fa0d59).
  cpu::OperandDesc x72{DataType::kFloat32, {1, 56, 56, 72}, nullptr}, w24{DataType::kFloat32, {24, 1, 1, 72}, nullptr};
  cpu::OperandDesc b24{DataType::kFloat32, {24}, nullptr}, r24{DataType::kFloat32, {1, 56, 56, 24}, nullptr};
  cpu::OperandDesc y24{DataType::kFloat32, {1, 56, 56, 24}, nullptr};
  n.inputs = {&x72, &w24, &b24, &r24};
  n.outputs = {&y24};
  EXPECT_EQ(cpu::findCostFunction("fusedConv2d")(n, {false, true, true, false}, 1).after.size(), 1u);
  // The scaled-pointwise pair makes the narrow tiles itself, whatever the
  // order of the single kernels: a squeeze-and-excitation mul before such an
  // end is still paired away.
  n.outputOverInput = 3;
  cpu::OperandDesc xs{DataType::kFloat32, {1, 56, 56, 72}, nullptr}, s{DataType::kFloat32, {1, 1, 1, 72}, nullptr};
  cpu::NodeDesc mul;
  mul.op = "mul";
  mul.inputs = {&xs, &s};
  mul.outputs = {&x72};
  EXPECT_EQ(cpu::pairedAway(mul, n, {false, true, true, false}), cpu::PairedAway::kProducer);
  n.outputOverInput = -1;
  EXPECT_TRUE(cpu::findCostFunction("fusedConv2d")(n, {false, true, true, false}, 1).after.empty());
}

// channelShuffle interleaves single elements `groups` at a time when its
// axis is innermost (a transpose with a side of `groups`), and copies rows
// when the runs after the axis are a cache line or longer.
TEST(CostFunctions, ChannelShuffleByItsRuns) {
  auto cost = [](Shape in, int64_t axis) {
    cpu::OperandDesc a{DataType::kFloat32, in, nullptr}, b{DataType::kFloat32, in, nullptr};
    Shape joined = in;
    joined[size_t(axis)] *= 2;
    cpu::OperandDesc y{DataType::kFloat32, joined, nullptr};
    cpu::NodeDesc n;
    n.op = "channelShuffle";
    n.attributes.set("axis", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, axis, 0, "", {}});
    n.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, 2, 0, "", {}});
    n.inputs = {&a, &b};
    n.outputs = {&y};
    return cpu::findCostFunction("channelShuffle")(n, {false, false}, 1);
  };
  cpu::NodeCost nhwc = cost({1, 28, 28, 58}, 3);
  EXPECT_EQ(nhwc.family, "copy.transpose");
  EXPECT_DOUBLE_EQ(nhwc.params[0], 2 * 28 * 28 * 58);
  EXPECT_DOUBLE_EQ(nhwc.params[1], 2);
  EXPECT_DOUBLE_EQ(nhwc.bytes, 4.0 * 4 * 28 * 28 * 58);  // read once, written once
  EXPECT_EQ(cost({1, 58, 28, 28}, 1).family, "copy.contiguous");
}

// convTranspose2d runs our SGEMM + col2im kernel, not oneDNN: a family of
// its own keyed by (output elements, taps, input channels per group), the
// column buffer among its bytes, and no JIT in the cold run.
TEST(CostFunctions, ConvTransposeOnItsOwnFamily) {
  cpu::OperandDesc x{DataType::kFloat32, {1, 40, 40, 24}, nullptr}, w{DataType::kFloat32, {16, 2, 2, 24}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {1, 80, 80, 16}, nullptr};
  cpu::NodeDesc n;
  n.op = "convTranspose2d";
  n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
  n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
  n.attributes.set("strides", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {2, 2}});
  n.inputs = {&x, &w};
  n.outputs = {&y};
  cpu::NodeCost c = cpu::findCostFunction("convTranspose2d")(n, {false, true}, 1);
  EXPECT_EQ(c.family, "conv2d.transpose");
  ASSERT_EQ(c.params.size(), 3u);
  EXPECT_DOUBLE_EQ(c.params[0], 80 * 80 * 16);
  EXPECT_DOUBLE_EQ(c.params[1], 4);
  EXPECT_DOUBLE_EQ(c.params[2], 24);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 40 * 40 * 24 * 16 * 4);
  double colBytes = 40.0 * 40 * 16 * 4 * 4;
  EXPECT_DOUBLE_EQ(c.bytes, (40.0 * 40 * 24 + 16 * 4 * 24 + 80 * 80 * 16) * 4 + 2 * colBytes);
  EXPECT_FALSE(c.jit);
  EXPECT_DOUBLE_EQ(c.packedBytes, 16 * 4 * 24 * 4);
  // Its col2im's scalar loop, cut by output rows, bounds it: priced on the
  // run's thread count, not as a byte-bound kernel on one thread's.
  EXPECT_TRUE(c.instructionBound);
}

// NCHW <-> NHWC transposes run the tiled kernel, a family apart from the
// index-map kernel's row copies (a {0, 2, 1, 3} swap of heads keeps rows of
// 64 contiguous floats: the copy family).
TEST(CostFunctions, LayoutTransposesApartFromRowCopies) {
  auto transpose = [](Shape in, std::vector<int64_t> perm) {
    Shape out(in.size());
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[size_t(perm[i])];
    cpu::OperandDesc x{DataType::kFloat32, in, nullptr}, y{DataType::kFloat32, out, nullptr};
    cpu::NodeDesc n;
    n.op = "transpose";
    n.attributes.set("permutation", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", perm});
    n.inputs = {&x};
    n.outputs = {&y};
    return cpu::findCostFunction("transpose")(n, {false}, 1);
  };
  cpu::NodeCost toNhwc = transpose({1, 96, 20, 20}, {0, 2, 3, 1});
  EXPECT_EQ(toNhwc.family, "copy.transpose");
  ASSERT_EQ(toNhwc.params.size(), 2u);
  EXPECT_DOUBLE_EQ(toNhwc.params[0], 96 * 400);
  EXPECT_DOUBLE_EQ(toNhwc.params[1], 96);  // [C, HW] = [96, 400]: the shorter side
  cpu::NodeCost image = transpose({1, 3, 224, 224}, {0, 2, 3, 1});
  EXPECT_EQ(image.family, "copy.transpose");
  EXPECT_DOUBLE_EQ(image.params[1], 3);  // the narrow loops
  cpu::NodeCost heads = transpose({1, 128, 12, 64}, {0, 2, 1, 3});
  EXPECT_EQ(heads.family, "copy");
  EXPECT_EQ(heads.params.size(), 1u);
  // A size-1 dim moves freely: [1, C, 1, W] to [1, 1, W, C] is still a swap.
  EXPECT_EQ(transpose({1, 8, 1, 50}, {0, 2, 3, 1}).family, "copy.transpose");
  // A 2-D transpose is the swap without a batch; a rotation of three dims of
  // more than one element each is not a swap: the index-map kernel.
  EXPECT_EQ(transpose({4, 5}, {1, 0}).family, "copy.transpose");
  EXPECT_EQ(transpose({4, 5, 6}, {1, 2, 0}).family, "copy.transpose");
  EXPECT_EQ(transpose({4, 5, 6}, {2, 0, 1}).family, "copy.transpose");
  EXPECT_EQ(transpose({4, 5, 6}, {0, 2, 1}).family, "copy.transpose");
  EXPECT_EQ(transpose({4, 5, 6}, {1, 0, 2}).family, "copy");
}

// Floating-point pow is a libm call per element, priced on its own grid
// (a spectrum's power by x ^ 2 had been priced as an add, 50x low); an
// integer pow's repeated squaring stays binary.
TEST(CostFunctions, FloatPowOnItsOwnFamily) {
  cpu::OperandDesc x{DataType::kFloat32, {1, 5, 257}, nullptr}, two{DataType::kFloat32, {1}, nullptr};
  cpu::NodeDesc n;
  n.op = "pow";
  n.inputs = {&x, &two};
  n.outputs = {&x};
  cpu::NodeCost c = cpu::findCostFunction("pow")(n, {false, true}, 1);
  EXPECT_EQ(c.family, "binary.pow");
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_DOUBLE_EQ(c.params[0], 5 * 257);
  EXPECT_DOUBLE_EQ(c.flops, 10 * 5 * 257);
  cpu::OperandDesc xi{DataType::kInt32, {1, 5, 257}, nullptr}, ti{DataType::kInt32, {1}, nullptr};
  n.inputs = {&xi, &ti};
  n.outputs = {&xi};
  EXPECT_EQ(cpu::findCostFunction("pow")(n, {false, true}, 1).family, "binary");
  EXPECT_EQ(cpu::findCostFunction("add")(n, {false, true}, 1).family, "binary");
}

// An lstm or gru layer whose weights a previous node computes packs them
// on every run: priced on the grid of such layers, the packed copy among
// its bytes; with constant weights (packed once) the recurrent family.
TEST(CostFunctions, RecurrentWeightsPackedEveryRunApart) {
  cpu::OperandDesc x{DataType::kFloat32, {1, 1, 128}, nullptr}, w{DataType::kFloat32, {1, 512, 128}, nullptr},
      r{DataType::kFloat32, {1, 512, 128}, nullptr}, h{DataType::kFloat32, {1, 1, 128}, nullptr};
  cpu::NodeDesc n;
  n.op = "lstm";
  n.attributes.set("hiddenSize", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, 128, 0, "", {}});
  n.inputs = {&x, &w, &r};
  n.outputs = {&h, &h};
  cpu::NodeCost packedOnce = cpu::findCostFunction("lstm")(n, {false, true, true}, 1);
  cpu::NodeCost everyRun = cpu::findCostFunction("lstm")(n, {false, false, false}, 1);
  EXPECT_EQ(packedOnce.family, "recurrent");
  EXPECT_EQ(everyRun.family, "recurrent.repacked");
  EXPECT_EQ(everyRun.params, packedOnce.params);
  EXPECT_DOUBLE_EQ(everyRun.flops, packedOnce.flops);
  EXPECT_DOUBLE_EQ(everyRun.bytes - packedOnce.bytes, 2.0 * 2 * 512 * 128 * 4);
  // The cells run Recurrent.cpp's kernels, which pack nothing.
  n.op = "lstmCell";
  EXPECT_EQ(cpu::findCostFunction("lstmCell")(n, {false, false, false}, 1).family, "recurrent");
}

// gemm (ONNX Gemm) under oneDNN's 1 MFLOP floor runs the portable SGEMM,
// which packs its strided B on every call: a family apart from the oneDNN
// and packed-SGEMM products of the gemm family (matmul under the floor too).
TEST(CostFunctions, SmallGemmOnThePortableFamily) {
  auto gemm = [](const char *op, int64_t K, int64_t N) {
    cpu::OperandDesc a{DataType::kFloat32, {1, K}, nullptr}, b{DataType::kFloat32, {N, K}, nullptr},
        bm{DataType::kFloat32, {K, N}, nullptr}, c{DataType::kFloat32, {N}, nullptr},
        y{DataType::kFloat32, {1, N}, nullptr};
    cpu::NodeDesc n;
    n.op = op;
    if (std::string(op) == "gemm") {
      n.attributes.set("bTranspose", cpu::AttributeValue{cpu::AttributeValue::Kind::kBool, 1, 0, "", {}});
      n.inputs = {&a, &b, &c};
    } else {
      n.inputs = {&a, &bm};
    }
    n.outputs = {&y};
    return cpu::findCostFunction(op)(n, {false, true, true}, 1);
  };
  cpu::NodeCost small = gemm("gemm", 440, 1000);  // 0.88 MFLOP
  EXPECT_EQ(small.family, "gemm.portable");
  EXPECT_EQ(small.params, (std::vector<double>{1, 440, 1000}));
  EXPECT_FALSE(small.jit);
  EXPECT_EQ(gemm("gemm", 1280, 1000).family, "gemm");  // 2.6 MFLOP: oneDNN
  EXPECT_TRUE(gemm("gemm", 1280, 1000).jit);
  EXPECT_EQ(gemm("matmul", 440, 1000).family, "gemm");
}

// A 1x1 whose output is a concat's slice (e589cc9): the narrow kernel takes
// it from <= 64 input channels at any width and writes it at the pitch;
// with SiLU (a pass after it) the CPU backend makes the layer again on a
// dense y (as CpuBackend.cpp does for a kernel that does not honour the
// pitch). The cost functions say the kernel writes its slice (no scatter
// after it) exactly where the narrow kernel made honours the pitch.
TEST(CostFunctions, NarrowPointwiseWritesAConcatSlice) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the narrow 1x1 kernel needs AVX-512";
  struct Layer {
    const char *what;
    int64_t C, O;
    bool slice;
    const char *act;
  };
  const Layer layers[] = {{"32 -> 128 into a slice", 32, 128, true, "relu"},
                          {"64 -> 256 into a slice", 64, 256, true, "none"},
                          {"16 -> 16 into a slice", 16, 16, true, "relu"},
                          {"96 -> 128 into a slice", 96, 128, true, "relu"},
                          {"32 -> 128 dense", 32, 128, false, "relu"},
                          {"32 -> 128 into a slice, silu", 32, 128, true, "silu"},
                          {"32 -> 16 into a slice, silu", 32, 16, true, "silu"}};
  auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
  int narrow = 0;
  for (const Layer &l : layers) {
    SCOPED_TRACE(l.what);
    std::vector<float> filter(size_t(l.O * l.C), 0.01f), bias(size_t(l.O), 0.f);
    cpu::OperandDesc x{DataType::kFloat32, {1, 28, 28, l.C}, nullptr};
    cpu::OperandDesc w{DataType::kFloat32, {l.O, 1, 1, l.C}, filter.data()}, b{DataType::kFloat32, {l.O}, bias.data()};
    cpu::OperandDesc y{DataType::kFloat32, {1, 28, 28, l.O}, nullptr};
    if (l.slice) y.rowPitch = l.O + 64;
    cpu::NodeDesc n;
    n.op = "fusedConv2d";
    n.name = l.what;
    n.attributes.set("inputLayout", str("nhwc"));
    n.attributes.set("filterLayout", str("ohwi"));
    n.attributes.set("activation", str(l.act));
    n.inputs = {&x, &w, &b};
    n.outputs = {&y};
    const cpu::NodeCost c = cpu::findCostFunction("fusedConv2d")(n, {false, true, true}, 1);
    cpu::test::ScopedKernelChoices choices;
    std::unique_ptr<cpu::Kernel> kernel;
    ASSERT_TRUE(rt::findKernelFactory("fusedConv2d")(n, &kernel).isOk());
    const bool honours = l.slice && kernel->honoursRowPitch();
    if (l.slice && !honours) {
      y.rowPitch = 0;
      ASSERT_TRUE(rt::findKernelFactory("fusedConv2d")(n, &kernel).isOk());
    }
    const bool made = cpu::test::convKernelOf(choices.last("fusedConv2d")) == "pointwise-narrow";
    EXPECT_EQ(c.writesPitch, made && honours) << choices.last("fusedConv2d").describe();
    narrow += made && honours;
  }
  EXPECT_EQ(narrow, 3);  // both sides of the conditions met
}

// gemm with a constant B runs the packed SGEMM before oneDNN (49948f6,
// MatMul.cpp's makeGemmImpl) where a is not transposed, M >= 16, K >= 8,
// N >= 8 and c is absent or, with beta 1, one row of N values; the cost
// functions price it so (no JIT, never the portable family) exactly where
// the gemm factory makes that kernel, for cases on both sides of each
// condition.
TEST(CostFunctions, PackedGemmMatchesTheKernelMade) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the packed SGEMM needs AVX-512";
  struct Case {
    const char *what;
    int64_t M, K, N;
    bool aT = false, bT = true;
    Shape c = {};  // empty: no c
    double beta = 1, alpha = 1;
  };
  const std::vector<Case> cases = {
      {"Linear, bias [N]", 197, 768, 768, false, true, {768}},
      {"b not transposed, no c", 64, 256, 512, false, false},
      {"bias [1, N], alpha 0.5", 32, 512, 256, false, true, {1, 256}, 1, 0.5},
      {"under oneDNN's floor", 16, 64, 64, false, true, {64}},
      {"a transposed", 64, 256, 512, true, true, {512}},
      {"c of M x N", 64, 256, 512, false, true, {64, 512}},
      {"beta 0.5", 64, 256, 512, false, true, {512}, 0.5},
      {"c of one column", 64, 256, 512, false, true, {64, 1}},
      {"one row (a GEMV)", 1, 1024, 1000, false, true, {1000}},
      {"M 15", 15, 1024, 1000, false, true, {1000}},
      {"K 4", 64, 4, 1000, false, true, {1000}},
  };
  auto boolean = [](bool v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kBool, v, 0, "", {}}; };
  auto real = [](double v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kFloat, 0, v, "", {}}; };
  int packed = 0;
  for (const Case &k : cases) {
    SCOPED_TRACE(k.what);
    std::vector<float> bData(size_t(k.K * k.N), 0.5f), cData(size_t(k.M * k.N + k.N), 0.25f);
    cpu::OperandDesc a{DataType::kFloat32, k.aT ? Shape{k.K, k.M} : Shape{k.M, k.K}, nullptr};
    cpu::OperandDesc b{DataType::kFloat32, k.bT ? Shape{k.N, k.K} : Shape{k.K, k.N}, bData.data()};
    cpu::OperandDesc c{DataType::kFloat32, k.c, cData.data()}, y{DataType::kFloat32, {k.M, k.N}, nullptr};
    cpu::NodeDesc n;
    n.op = "gemm";
    n.attributes.set("aTranspose", boolean(k.aT));
    n.attributes.set("bTranspose", boolean(k.bT));
    n.attributes.set("beta", real(k.beta));
    n.attributes.set("alpha", real(k.alpha));
    n.inputs = {&a, &b};
    if (!k.c.empty()) n.inputs.push_back(&c);
    n.outputs = {&y};
    std::unique_ptr<cpu::Kernel> kernel;
    ASSERT_TRUE(rt::findKernelFactory("gemm")(n, &kernel).isOk());
    const bool made = dynamic_cast<cpu::kernels::PackedSgemmWeightsKernel *>(kernel.get()) != nullptr;
    const cpu::NodeCost cost = cpu::findCostFunction("gemm")(n, {false, true, true}, 2);
    const double flops = 2.0 * k.M * k.K * k.N;
    EXPECT_EQ(cost.family, made || flops >= double(1 << 20) ? "gemm" : "gemm.portable");
    EXPECT_EQ(cost.jit, !made && flops >= double(1 << 20));
    if (made) EXPECT_EQ(cost.threading, cpu::Threading::kPool);
    packed += made;
  }
  EXPECT_EQ(packed, 4);  // both sides of the conditions met
}

#if WEBNN_HAVE_ONEDNN
// oneDNN's Winograd takes 4x4 output tiles (jit_wino_4x3) where
// onednn/Conv2d.cpp prefers them (3bf9310, 17fd123: whole 4-column tiles,
// >= 64 input channels, rows of >= 56 or of >= 28 into <= 64 channels),
// else 2x2 (jit_fp32_wino_2x3): the cost functions put a layer on
// conv2d.winograd4 exactly where the primitive built for it is the 4x4 one,
// for layers on both sides of each condition.
TEST(CostFunctions, Winograd4x4FamilyMatchesThePrimitive) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the Winograd kernels are AVX-512's";
  struct Layer {
    int64_t side, C, O;
  };
  const Layer layers[] = {{56, 64, 64},  {56, 128, 32}, {28, 128, 32}, {28, 128, 192}, {28, 64, 128},
                          {56, 32, 64},  {55, 64, 64},  {14, 256, 256}, {40, 64, 32},  {24, 96, 48}};
  int four = 0, winograd = 0;
  for (const Layer &l : layers) {
    SCOPED_TRACE(std::to_string(l.side) + " x " + std::to_string(l.C) + " -> " + std::to_string(l.O));
    cpu::onednn::Conv2dParams p;
    p.N = 1, p.C = l.C, p.H = p.W = p.OH = p.OW = l.side, p.O = l.O, p.KH = 3, p.KW = 3;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.nhwc = true;
    p.filterStrideO = 9 * l.C, p.filterStrideH = 3 * l.C, p.filterStrideW = l.C, p.filterStrideI = 1;
    p.constantFilter = true;
    std::string why;
    std::unique_ptr<cpu::onednn::Conv2d> conv = cpu::onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(conv) << why;
    std::vector<float> x(size_t(l.side * l.side * l.C), 0.5f), f(size_t(9 * l.C * l.O), 0.25f);
    std::vector<float> y(size_t(l.side * l.side * l.O));
    cpu::ThreadPool one(1);
    ASSERT_TRUE(conv->run(x.data(), f.data(), nullptr, y.data(), one).isOk());
    const std::string impl = conv->implementation();
    const bool wino4x4 = impl.find("wino_4x3") != std::string::npos;

    cpu::OperandDesc xd{DataType::kFloat32, {1, l.side, l.side, l.C}, nullptr};
    cpu::OperandDesc wd{DataType::kFloat32, {l.O, 3, 3, l.C}, nullptr};
    cpu::OperandDesc yd{DataType::kFloat32, {1, l.side, l.side, l.O}, nullptr};
    cpu::NodeDesc n;
    n.op = "conv2d";
    auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
    auto ints = [](std::vector<int64_t> v) {
      return cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", std::move(v)};
    };
    n.attributes.set("inputLayout", str("nhwc"));
    n.attributes.set("filterLayout", str("ohwi"));
    n.attributes.set("padding", ints({1, 1, 1, 1}));
    n.inputs = {&xd, &wd};
    n.outputs = {&yd};
    const std::string family = cpu::findCostFunction("conv2d")(n, {false, true}, 1).family;
    if (impl.find("wino") != std::string::npos) EXPECT_EQ(family, wino4x4 ? "conv2d.winograd4" : "conv2d.winograd") << impl;
    four += wino4x4;
    winograd += impl.find("wino") != std::string::npos;
  }
  EXPECT_GE(four, 3);  // both sides of the conditions met
  EXPECT_GE(winograd - four, 3);
}

// At 2 threads oneDNN builds each piece of a Winograd layer as a layer of
// its own: a piece of 64 output channels can take the 4x4 tiles its layer
// did not, and a piece of rows padded on one side takes them because the
// 2x2 kernel refuses it. The priced piece's family is the tile family of
// the piece oneDNN built (the first, as large as any other).
TEST(CostFunctions, WinogradPiecesOnTheirOwnTiles) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the Winograd kernels are AVX-512's";
  struct Layer {
    int64_t side, C, O;
  };
  // Which layers' pieces take other tiles than their layer depends on the
  // CPU (oneDNN's 2x2 kernel checks its cache sizes): the last three do on
  // a Zen 5 with 1 MiB of L2, the first ones on a Xeon with 2 MiB.
  const Layer layers[] = {{28, 96, 96}, {28, 128, 128}, {14, 256, 256}, {56, 64, 64},
                          {28, 128, 192}, {56, 32, 64}, {28, 32, 64}, {14, 64, 64}};
  int pieced = 0, differ = 0;
  for (const Layer &l : layers) {
    SCOPED_TRACE(std::to_string(l.side) + " x " + std::to_string(l.C) + " -> " + std::to_string(l.O));
    cpu::onednn::Conv2dParams p;
    p.N = 1, p.C = l.C, p.H = p.W = p.OH = p.OW = l.side, p.O = l.O, p.KH = 3, p.KW = 3;
    p.padTop = p.padBottom = p.padLeft = p.padRight = 1;
    p.nhwc = true;
    p.filterStrideO = 9 * l.C, p.filterStrideH = 3 * l.C, p.filterStrideW = l.C, p.filterStrideI = 1;
    p.constantFilter = true;
    std::string why;
    std::unique_ptr<cpu::onednn::Conv2d> conv = cpu::onednn::Conv2d::create(p, &why);
    ASSERT_TRUE(conv) << why;
    std::vector<float> x(size_t(l.side * l.side * l.C), 0.5f), f(size_t(9 * l.C * l.O), 0.25f);
    std::vector<float> y(size_t(l.side * l.side * l.O));
    cpu::ThreadPool two(2);
    ASSERT_TRUE(conv->run(x.data(), f.data(), nullptr, y.data(), two).isOk());
    const std::string impl = conv->implementation();

    cpu::OperandDesc xd{DataType::kFloat32, {1, l.side, l.side, l.C}, nullptr};
    cpu::OperandDesc wd{DataType::kFloat32, {l.O, 3, 3, l.C}, nullptr};
    cpu::OperandDesc yd{DataType::kFloat32, {1, l.side, l.side, l.O}, nullptr};
    cpu::NodeDesc n;
    n.op = "conv2d";
    auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
    auto ints = [](std::vector<int64_t> v) {
      return cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", std::move(v)};
    };
    n.attributes.set("inputLayout", str("nhwc"));
    n.attributes.set("filterLayout", str("ohwi"));
    n.attributes.set("padding", ints({1, 1, 1, 1}));
    n.inputs = {&xd, &wd};
    n.outputs = {&yd};
    const cpu::NodeCost c = cpu::findCostFunction("conv2d")(n, {false, true}, 2);
    if (c.threading != cpu::Threading::kPieces || impl.find("wino") == std::string::npos) continue;
    EXPECT_EQ(c.piece.family, impl.find("wino_4x3") != std::string::npos ? "conv2d.winograd4" : "conv2d.winograd")
        << impl;
    ++pieced;
    differ += c.piece.family != c.family;
  }
  EXPECT_GE(pieced, 4);
  EXPECT_GE(differ, 2);  // pieces on tiles their layer did not take
}
#endif

// A conv1d run as a conv2d with H = 1: the row-window packed SGEMM runs it,
// on its own family, in its own loop; in relaxed precision (oneDNN's)
// pieces of output columns.
TEST(CostFunctions, Conv1dCutIntoColumns) {
  cpu::OperandDesc x{DataType::kFloat32, {1, 1, 400, 512}, nullptr}, w{DataType::kFloat32, {512, 1, 3, 512}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {1, 1, 199, 512}, nullptr};
  cpu::NodeDesc n;
  n.op = "conv2d";
  n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
  n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
  n.attributes.set("strides", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {1, 2}});
  n.inputs = {&x, &w};
  n.outputs = {&y};
  if (__builtin_cpu_supports("avx512f")) {
    cpu::NodeCost packed = cpu::findCostFunction("conv2d")(n, {false, true}, 2);
    EXPECT_EQ(packed.family, "conv2d.rowwindow");
    EXPECT_EQ(packed.threading, cpu::Threading::kPool);
    EXPECT_EQ(packed.params, (std::vector<double>{199, 3 * 512, 512}));
  }
  n.relaxedPrecision = true;
  cpu::NodeCost c = cpu::findCostFunction("conv2d")(n, {false, true}, 2);
  EXPECT_EQ(c.family, "conv2d");
  ASSERT_EQ(c.threading, cpu::Threading::kPieces);
  EXPECT_EQ(c.pieces, 2);
  EXPECT_DOUBLE_EQ(c.piece.params[0], 100);  // 199 columns: 100 + 99
  EXPECT_DOUBLE_EQ(c.piece.flops, c.flops * 100 / 199);
  // Its input columns: 2 x 99 + 3 of the 400.
  EXPECT_DOUBLE_EQ(c.piece.bytes, (201 * 512 + 512 * 3 * 512 + 100 * 512 + 512) * 4.0);
}

// The portable kernel (under oneDNN's floor) cuts only its SGEMM's blocks
// of 96 rows x 256 columns: a conv1d of 3 output frames into 258 channels
// (Silero VAD v5's STFT) has two, 256 columns and 2, and runs as on one
// thread at 2; a 12x16 map's two row blocks of 96 pixels split evenly.
TEST(CostFunctions, PortableConvolutionOnOneThreadWhereItsGemmIsNotCut) {
  auto conv = [](std::vector<int64_t> xs, std::vector<int64_t> ws, std::vector<int64_t> ys, std::vector<int64_t> strides,
                 std::vector<int64_t> pads, int threads) {
    cpu::OperandDesc x{DataType::kFloat32, xs, nullptr}, w{DataType::kFloat32, ws, nullptr};
    cpu::OperandDesc y{DataType::kFloat32, ys, nullptr};
    cpu::NodeDesc n;
    n.op = "conv2d";
    n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
    n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
    n.attributes.set("strides", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", strides});
    n.attributes.set("padding", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", pads});
    n.inputs = {&x, &w};
    n.outputs = {&y};
    return cpu::findCostFunction("conv2d")(n, {false, true}, threads);
  };
  const cpu::NodeCost stft1 = conv({1, 1, 512, 1}, {258, 1, 256, 1}, {1, 1, 3, 258}, {1, 128}, {0, 0, 0, 0}, 1);
  const cpu::NodeCost stft2 = conv({1, 1, 512, 1}, {258, 1, 256, 1}, {1, 1, 3, 258}, {1, 128}, {0, 0, 0, 0}, 2);
  EXPECT_EQ(stft2.family, "conv2d.portable");
  EXPECT_EQ(stft2.threading, cpu::Threading::kOneThread);
  EXPECT_EQ(stft1.params, stft2.params);
  // 3 frames of 387 values into 128 channels: one block, one grain.
  EXPECT_EQ(conv({1, 1, 5, 129}, {128, 1, 3, 129}, {1, 1, 3, 128}, {1, 1}, {0, 0, 0, 0}, 2).threading,
            cpu::Threading::kOneThread);
  const cpu::NodeCost even = conv({1, 12, 16, 8}, {16, 3, 3, 8}, {1, 12, 16, 16}, {1, 1}, {1, 1, 1, 1}, 2);
  EXPECT_EQ(even.family, "conv2d.portable");
  EXPECT_EQ(even.threading, cpu::Threading::kPool);
}

// A grouped 3x3 layer of 4 channels per group (ResNeXt's first stage): our
// own kernel on its own family (pixels, channels, window x stride area), no
// JIT and its own row loop at 2 threads; 8 per group: oneDNN's.
TEST(CostFunctions, GroupedNarrowOnItsOwnLoop) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the grouped kernel needs AVX-512";
  cpu::OperandDesc x{DataType::kFloat32, {1, 56, 56, 128}, nullptr}, y{DataType::kFloat32, {1, 56, 56, 128}, nullptr};
  auto cost = [&](int64_t perGroup, cpu::OperandDesc *w) {
    *w = {DataType::kFloat32, {128, 3, 3, perGroup}, nullptr};
    cpu::NodeDesc n;
    n.op = "conv2d";
    n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
    n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
    n.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, 128 / perGroup, 0, "", {}});
    n.attributes.set("padding", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {1, 1, 1, 1}});
    n.inputs = {&x, w};
    n.outputs = {&y};
    return cpu::findCostFunction("conv2d")(n, {false, true}, 2);
  };
  cpu::OperandDesc w4, w8;
  cpu::NodeCost narrow = cost(4, &w4);
  EXPECT_EQ(narrow.family, "conv2d.grouped4");
  EXPECT_EQ(narrow.params, (std::vector<double>{56 * 56, 128, 9}));
  EXPECT_FALSE(narrow.jit);
  EXPECT_EQ(narrow.threading, cpu::Threading::kPool);
  // It skips the taps in the padding, as oneDNN's direct kernels do.
  // (along each axis 56 x 3 taps, 2 of them in the padding).
  EXPECT_DOUBLE_EQ(narrow.flops, 2.0 * 128 * 4 * 166 * 166);
  // 8 channels per group: oneDNN's direct kernel in 8-float blocks, a
  // family of its own (its pieces too); 16 fill a vector, as dense layers.
  cpu::NodeCost eight = cost(8, &w8);
  EXPECT_EQ(eight.family, "conv2d.grouped.onednn");
  EXPECT_TRUE(eight.jit);
  EXPECT_EQ(eight.threading, cpu::Threading::kPieces);
  EXPECT_EQ(eight.piece.family, "conv2d.grouped.onednn");
  EXPECT_EQ(eight.params, (std::vector<double>{56 * 56, 72, 8}));
  EXPECT_DOUBLE_EQ(eight.flops, 2.0 * 128 * 8 * 166 * 166);  // the taps in the padding skipped
  cpu::OperandDesc w16;
  EXPECT_EQ(cost(16, &w16).family, "conv2d");
}

// 3x3 stride-1 layers of few input channels on small maps run oneDNN's
// direct kernel, not Winograd (18d101a, PieceSplit.h's
// winogradLosesOnSmallMaps), as a whole layer and as a 2-thread piece.
TEST(CostFunctions, FewChannelsOnSmallMapsDirectNotWinograd) {
  auto family = [](int64_t side, int64_t C, int64_t O, int threads, bool piece) {
    cpu::OperandDesc x{DataType::kFloat32, {1, side, side, C}, nullptr}, w{DataType::kFloat32, {O, 3, 3, C}, nullptr};
    cpu::OperandDesc y{DataType::kFloat32, {1, side, side, O}, nullptr};
    cpu::NodeDesc n;
    n.op = "conv2d";
    n.attributes.set("inputLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "nhwc", {}});
    n.attributes.set("filterLayout", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "ohwi", {}});
    n.attributes.set("padding", cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", {1, 1, 1, 1}});
    n.inputs = {&x, &w};
    n.outputs = {&y};
    cpu::NodeCost c = cpu::findCostFunction("conv2d")(n, {false, true}, threads);
    return piece ? c.piece.family : c.family;
  };
  EXPECT_EQ(family(14, 24, 64, 1, false), "conv2d");   // GoogLeNet's inception4a branch3 3x3
  EXPECT_EQ(family(7, 48, 128, 1, false), "conv2d");   // 5a/5b's
  EXPECT_EQ(family(28, 24, 64, 1, false), "conv2d.winograd");
  EXPECT_EQ(family(14, 64, 128, 1, false), "conv2d.winograd");
  // 16x16 of 24 channels is Winograd whole; its 8-row pieces (128 pixels;
  // too few output channels to cut by them) are direct.
  EXPECT_EQ(family(16, 24, 32, 1, false), "conv2d.winograd");
  EXPECT_EQ(family(16, 24, 32, 2, true), "conv2d");
}

// A weightless graph has no filter bytes to make a kernel from, so the cost
// function restates Conv2dSelection.cpp's conditions for our own
// convolution kernels. For layers on either side of each condition of the
// row-window (conv1d), grouped (4 per group), im2col and portable kernels
// (oneDNN's floor), the kernel the CPU backend makes and the family the
// cost function names agree, and so does the SiLU or hardSwish pass after it.
TEST(CostFunctions, OwnConvolutionFamiliesMatchTheKernelChosen) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "our convolution kernels need AVX-512";
  struct Layer {
    const char *what;
    int64_t N, H, W, C, O, KH, KW, sh, sw, dw, groups;
    std::vector<int64_t> pad;  // top, bottom, left, right
    const char *act = "relu";
    bool residual = false, constantFilter = true, nchw = false, relaxed = false;
  };
  const std::vector<int64_t> none = {0, 0, 0, 0}, same = {1, 1, 1, 1};
  std::vector<Layer> layers = {
      // conv1d (H = 1): the row-window kernel from 64 output columns and 128
      // output channels, a window of 64 floats; 64 pixels and 256 channels
      // are the im2col kernel's first.
      {"conv1d 512 k3 s2", 1, 1, 400, 512, 512, 1, 3, 1, 2, 1, 1, none},
      {"conv1d 63 columns", 1, 1, 65, 512, 512, 1, 3, 1, 1, 1, 1, none},
      {"conv1d 64 columns 512 ch", 1, 1, 66, 512, 512, 1, 3, 1, 1, 1, 1, none},
      {"conv1d 64 columns 128 ch", 1, 1, 66, 512, 128, 1, 3, 1, 1, 1, 1, none},
      {"conv1d 127 ch", 1, 1, 200, 256, 127, 1, 3, 1, 1, 1, 1, none},
      {"conv1d window 63 floats", 1, 1, 200, 21, 128, 1, 3, 1, 1, 1, 1, none},
      {"conv1d window 64 floats", 1, 1, 200, 32, 128, 1, 2, 1, 1, 1, 1, none},
      {"conv1d padded rows", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, {1, 1, 0, 0}},
      {"conv1d padded columns", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, {0, 0, 1, 1}},
      {"conv1d dilated", 1, 1, 200, 64, 128, 1, 3, 1, 1, 2, 1, none},
      {"conv1d two images", 2, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none},
      {"1 x 3 over 2 rows", 1, 2, 200, 64, 128, 1, 3, 1, 1, 1, 1, none},
      {"2 x 3", 1, 2, 200, 64, 128, 2, 3, 1, 1, 1, 1, none},
      {"conv1d grouped", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 2, none},
      {"conv1d sigmoid", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "sigmoid"},
      {"conv1d silu", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "silu"},
      {"conv1d hardSwish", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "hardSwish"},
      {"conv1d residual", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "none", true},
      {"conv1d computed filter", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "relu", false, false},
      {"conv1d nchw", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "relu", false, true, true},
      {"conv1d relaxed", 1, 1, 200, 64, 128, 1, 3, 1, 1, 1, 1, none, "relu", false, true, false, true},
      // 4 channels per group, in and out, 16 channels at least.
      {"grouped 4 per group", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same},
      {"grouped 8 per group", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 16, same},
      {"grouped 4 in 8 out", 1, 28, 28, 64, 128, 3, 3, 1, 1, 1, 16, same},
      {"grouped 24 channels", 1, 28, 28, 24, 24, 3, 3, 1, 1, 1, 6, same},
      {"grouped 16 channels", 1, 28, 28, 16, 16, 3, 3, 1, 1, 1, 4, same},
      {"grouped stride 2", 1, 28, 28, 128, 128, 3, 3, 2, 2, 1, 32, same},
      {"grouped dilated", 1, 28, 28, 128, 128, 3, 3, 1, 1, 2, 32, {1, 1, 2, 2}},
      {"grouped 1x1", 1, 28, 28, 128, 128, 1, 1, 1, 1, 1, 32, none},
      {"grouped residual", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "none", true},
      {"grouped sigmoid", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "sigmoid"},
      {"grouped silu", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "silu"},
      {"grouped hardSwish", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "hardSwish"},
      {"grouped computed filter", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "relu", false, false},
      {"grouped nchw", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "relu", false, true, true},
      {"grouped relaxed", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 32, same, "relu", false, true, false, true},
      // im2col: 16..64 output pixels, 256 output channels; a strided 1x1
      // (a ResNet shortcut) too, not a plain one.
      {"im2col 7x7 3x3", 1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, same},
      {"im2col 9x9 3x3", 1, 9, 9, 256, 256, 3, 3, 1, 1, 1, 1, same},
      {"im2col 255 ch", 1, 7, 7, 256, 255, 3, 3, 1, 1, 1, 1, same},
      {"1x1 stride 2 to 7x7", 1, 14, 14, 1024, 2048, 1, 1, 2, 2, 1, 1, none},
      {"1x1 stride 1 7x7", 1, 7, 7, 512, 2048, 1, 1, 1, 1, 1, 1, none},
      {"im2col sigmoid", 1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, same, "sigmoid"},
      {"im2col hardSwish", 1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, same, "hardSwish"},
      // The packed 1x1 (hardSwish: a pass after our kernels, oneDNN's own
      // post-op): under 784 pixels, with a residual under 196.
      {"1x1 783 pixels hardSwish", 1, 27, 29, 256, 512, 1, 1, 1, 1, 1, 1, none, "hardSwish"},
      {"1x1 784 pixels hardSwish", 1, 28, 28, 256, 512, 1, 1, 1, 1, 1, 1, none, "hardSwish"},
      {"1x1 residual 195 pixels hardSwish", 1, 13, 15, 256, 512, 1, 1, 1, 1, 1, 1, none, "hardSwish", true},
      {"1x1 residual 196 pixels hardSwish", 1, 14, 14, 256, 512, 1, 1, 1, 1, 1, 1, none, "hardSwish", true},
      // Under oneDNN's 1 MFLOP floor, the portable kernel; one output pixel
      // with a filter of 64 KB or more (a squeeze-and-excitation layer) is
      // oneDNN's whatever its FLOPs.
      {"SE expand 20 -> 480", 1, 1, 1, 20, 480, 1, 1, 1, 1, 1, 1, none, "sigmoid"},
      {"SE expand 48 -> 1152", 1, 1, 1, 48, 1152, 1, 1, 1, 1, 1, 1, none, "sigmoid"},
      {"SE squeeze 1152 -> 48", 1, 1, 1, 1152, 48, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"SE squeeze 672 -> 24", 1, 1, 1, 672, 24, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"3x3 on one pixel, 64 KB", 1, 1, 1, 64, 32, 3, 3, 1, 1, 1, 1, same, "relu"},
      {"3x3 on 2x2, 1 MFLOP", 1, 2, 2, 64, 96, 3, 3, 1, 1, 1, 1, same, "relu"},
      // A plain 1x1 under the floor with 8 channels each way: the packed
      // SGEMM after oneDNN (1233121, 3704786), one pixel too unless oneDNN's
      // 64 KB rule takes it, a sigmoid as a pass after it; fewer than 8
      // channels, portable.
      {"1x1 under the floor 14x14 48 -> 48", 1, 14, 14, 48, 48, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"1x1 under the floor 7x7 96 -> 96", 1, 7, 7, 96, 96, 1, 1, 1, 1, 1, 1, none, "none"},
      {"1x1 under the floor sigmoid", 1, 14, 14, 48, 48, 1, 1, 1, 1, 1, 1, none, "sigmoid"},
      {"1x1 under the floor 15 pixels", 1, 3, 5, 64, 64, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"1x1 under the floor 4 outputs", 1, 14, 14, 48, 4, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"1x1 under the floor 4 inputs", 1, 14, 14, 4, 64, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"3x3 under the floor 8x8", 1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1, same, "relu"},
      {"SE squeeze 208 -> 52", 1, 1, 1, 208, 52, 1, 1, 1, 1, 1, 1, none, "relu"},
      {"SE expand 40 -> 120 no activation", 1, 1, 1, 40, 120, 1, 1, 1, 1, 1, 1, none, "none"},
      {"SE squeeze 440 -> 110, 190 KB", 1, 1, 1, 440, 110, 1, 1, 1, 1, 1, 1, none, "relu"},
  };
  auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
  auto ints = [](std::vector<int64_t> v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", v}; };
  auto ownFamily = [](const std::string &f) {
    return f == "conv2d.rowwindow" || f == "conv2d.grouped4" || f == "conv2d.im2col" || f == "conv2d.portable"
               ? f
               : std::string("other");
  };
  auto familyOfKernel = [](const std::string &k) -> std::string {
    if (k == "row-window-packed-sgemm") return "conv2d.rowwindow";
    if (k == "grouped-narrow-avx512") return "conv2d.grouped4";
    if (k == "im2col-packed-sgemm") return "conv2d.im2col";
    if (k == "portable") return "conv2d.portable";
    return "other";
  };
  int own[4] = {0, 0, 0, 0};
  for (const Layer &l : layers) {
    SCOPED_TRACE(l.what);
    const int64_t OH = (l.H + l.pad[0] + l.pad[1] - (l.KH - 1) - 1) / l.sh + 1;
    const int64_t OW = (l.W + l.pad[2] + l.pad[3] - l.dw * (l.KW - 1) - 1) / l.sw + 1;
    const int64_t Cg = l.C / l.groups;
    std::vector<float> filter(size_t(l.O * l.KH * l.KW * Cg), 0.01f), bias(size_t(l.O), 0.f);
    cpu::OperandDesc x{DataType::kFloat32, l.nchw ? Shape{l.N, l.C, l.H, l.W} : Shape{l.N, l.H, l.W, l.C}, nullptr};
    cpu::OperandDesc w{DataType::kFloat32, l.nchw ? Shape{l.O, Cg, l.KH, l.KW} : Shape{l.O, l.KH, l.KW, Cg},
                       l.constantFilter ? filter.data() : nullptr};
    cpu::OperandDesc b{DataType::kFloat32, {l.O}, bias.data()};
    const Shape ys = l.nchw ? Shape{l.N, l.O, OH, OW} : Shape{l.N, OH, OW, l.O};
    cpu::OperandDesc y{DataType::kFloat32, ys, nullptr}, r{DataType::kFloat32, ys, nullptr};
    cpu::NodeDesc n;
    n.op = "fusedConv2d";
    n.name = l.what;
    n.relaxedPrecision = l.relaxed;
    n.attributes.set("inputLayout", str(l.nchw ? "nchw" : "nhwc"));
    n.attributes.set("filterLayout", str(l.nchw ? "oihw" : "ohwi"));
    n.attributes.set("strides", ints({l.sh, l.sw}));
    n.attributes.set("dilations", ints({1, l.dw}));
    n.attributes.set("padding", ints(l.pad));
    n.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, l.groups, 0, "", {}});
    n.attributes.set("activation", str(l.act));
    n.inputs = {&x, &w, &b};
    if (l.residual) n.inputs.push_back(&r);
    n.outputs = {&y};
    std::vector<bool> constant = {false, l.constantFilter, true, false};
    constant.resize(n.inputs.size());
    cpu::test::ScopedKernelChoices choices;
    std::unique_ptr<cpu::Kernel> kernel;
    ASSERT_TRUE(rt::findKernelFactory("fusedConv2d")(n, &kernel).isOk());
    const cpu::kernels::KernelChoice choice = choices.last("fusedConv2d");
    const std::string kernelName = cpu::test::convKernelOf(choice);
    for (int threads : {1, 2}) {
      cpu::NodeCost c = cpu::findCostFunction("fusedConv2d")(n, constant, threads);
      EXPECT_EQ(ownFamily(c.family), familyOfKernel(kernelName)) << choice.describe();
      const bool wrapped = choice.chosen.rfind("silu-after", 0) == 0 || choice.chosen.rfind("hardswish-after", 0) == 0;
      if (std::string(l.act) == "silu" || std::string(l.act) == "hardSwish")
        EXPECT_EQ(c.after.size(), wrapped ? 1u : 0u) << choice.describe();
    }
    const std::string f = familyOfKernel(kernelName);
    own[0] += f == "conv2d.rowwindow", own[1] += f == "conv2d.grouped4", own[2] += f == "conv2d.im2col";
    own[3] += f == "conv2d.portable";
  }
  // Both sides of the conditions were met.
  EXPECT_GE(own[0], 5);
  EXPECT_GE(own[1], 5);
  EXPECT_GE(own[2], 2);
  EXPECT_GE(own[3], 2);
}

// A weightless graph can still make the instanceNormalization + gelu pair
// (its factory reads shapes only): for cases on either side of each of its
// conditions, the backend makes the pair exactly where the cost functions
// price the gelu away. The nhwc normalization alone on AVX-512 reads x
// twice and writes once, its channel groups on the pool.
TEST(CostFunctions, InstanceNormGeluPairMatchesTheKernelPair) {
  auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
  struct Case {
    const char *what;
    Shape x = {1, 50, 1, 64};
    int inputs = 3;
    Shape scale = {64};
    DataType scaleType = DataType::kFloat32, xType = DataType::kFloat32, normOutType = DataType::kFloat32;
    const char *layout = "nhwc";
    Shape geluOut = {1, 50, 1, 64};
    const char *consumer = "gelu";
    bool pitchedIn = false, pitchedOut = false, nullBias = false;
  };
  std::vector<Case> cases(14);
  cases[0].what = "scale and bias";
  cases[1].what = "x alone", cases[1].inputs = 1;
  cases[2].what = "scale alone", cases[2].inputs = 2;
  cases[3].what = "bias absent", cases[3].nullBias = true;
  cases[4].what = "3 channels", cases[4].x = cases[4].geluOut = {2, 7, 5, 3}, cases[4].scale = {3};
  cases[5].what = "scale of C + 1", cases[5].scale = {65};
  cases[6].what = "float16 scale", cases[6].scaleType = DataType::kFloat16;
  cases[7].what = "nchw", cases[7].layout = "nchw";
  cases[8].what = "rank 3", cases[8].x = cases[8].geluOut = {50, 1, 64};
  cases[9].what = "gelu of another shape", cases[9].geluOut = {1, 50, 64, 1};
  cases[10].what = "strided input", cases[10].pitchedIn = true;
  cases[11].what = "strided output", cases[11].pitchedOut = true;
  cases[12].what = "float16 normalized", cases[12].normOutType = DataType::kFloat16;
  cases[13].what = "relu", cases[13].consumer = "relu";
  int made = 0;
  for (const Case &k : cases) {
    SCOPED_TRACE(k.what);
    cpu::OperandDesc x{k.xType, k.x, nullptr}, sc{k.scaleType, k.scale, nullptr};
    cpu::OperandDesc b{DataType::kFloat32, {k.x.back()}, nullptr};
    cpu::OperandDesc t{k.normOutType, k.x, nullptr}, y{DataType::kFloat32, k.geluOut, nullptr};
    if (k.pitchedIn) x.rowPitch = 2 * 64 * 4;
    if (k.pitchedOut) y.rowPitch = 2 * 64 * 4;
    cpu::NodeDesc norm, gelu;
    norm.op = "instanceNormalization";
    norm.attributes.set("layout", str(k.layout));
    norm.inputs = {&x, &sc, k.nullBias ? nullptr : &b};
    norm.inputs.resize(size_t(k.inputs));
    norm.outputs = {&t};
    gelu.op = k.consumer;
    gelu.inputs = {&t};
    gelu.outputs = {&y};
    std::unique_ptr<cpu::Kernel> kernel;
    ASSERT_TRUE(cpu::makeCpuKernelPair(norm, gelu, &kernel).isOk());
    const bool priced = cpu::pairedAway(norm, gelu, {false}) == cpu::PairedAway::kConsumer;
    EXPECT_EQ(priced, kernel != nullptr);
    made += kernel != nullptr;
  }
  if (__builtin_cpu_supports("avx512f")) EXPECT_EQ(made, 5);  // both sides of the conditions met

  if (!__builtin_cpu_supports("avx512f")) return;
  for (int64_t C : {16, 512}) {
    SCOPED_TRACE(C);
    cpu::OperandDesc x{DataType::kFloat32, {1, 100, 1, C}, nullptr}, sc{DataType::kFloat32, {C}, nullptr};
    cpu::OperandDesc y{DataType::kFloat32, {1, 100, 1, C}, nullptr};
    cpu::NodeDesc norm;
    norm.op = "instanceNormalization";
    norm.attributes.set("layout", str("nhwc"));
    norm.inputs = {&x, &sc, &sc};
    norm.outputs = {&y};
    cpu::NodeCost one = cpu::findCostFunction(norm.op)(norm, {false, true, true}, 1);
    cpu::NodeCost two = cpu::findCostFunction(norm.op)(norm, {false, true, true}, 2);
    EXPECT_EQ(one.family, "norm.nhwc");
    EXPECT_DOUBLE_EQ(one.bytes, 3 * 100.0 * C * 4 + 2 * C * 4);
    // 16 channels are one group of one vector: the calling thread alone.
    EXPECT_EQ(two.threading, C == 16 ? cpu::Threading::kOneThread : cpu::Threading::kPool);
    norm.attributes.set("layout", str("nchw"));
    EXPECT_EQ(cpu::findCostFunction(norm.op)(norm, {false, true, true}, 1).family, "norm");
  }
}

// The packed SGEMM applies fusedMatmul's gelu in registers in its tile
// epilogue: that part has no bytes and is priced at the in-cache rate;
// elsewhere (a computed B, oneDNN) it stays a priced pass.
TEST(CostFunctions, PackedMatmulGeluInRegisters) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the packed SGEMM needs AVX-512";
  cpu::OperandDesc a{DataType::kFloat32, {64, 128}, nullptr}, b{DataType::kFloat32, {128, 256}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {64, 256}, nullptr};
  cpu::NodeDesc n;
  n.op = "fusedMatmul";
  n.attributes.set("activation", cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, "gelu", {}});
  n.inputs = {&a, &b};
  n.outputs = {&y};
  for (bool constantB : {true, false}) {
    cpu::NodeCost c = cpu::findCostFunction("fusedMatmul")(n, {false, constantB}, 1);
    ASSERT_GE(c.after.size(), 1u);
    EXPECT_EQ(c.after[0].family, "unary.gelu");
    EXPECT_EQ(c.after[0].inRegisters, constantB);
  }
}

// At 2 threads our depthwise kernel, the global average pool and the packed
// 1x1 of one row chunk give each thread contiguous rows where they split
// evenly (14x14 maps), as the convolutions around them do; 7x7 maps split
// channels (or panels). Those row splits are priced on the 2-thread grid
// even where bytes bound them: their reads stay on the core that wrote them.
TEST(CostFunctions, RowSplitsAtTwoThreads) {
  auto str = [](const char *v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kString, 0, 0, v, {}}; };
  auto ints = [](std::vector<int64_t> v) { return cpu::AttributeValue{cpu::AttributeValue::Kind::kInts, 0, 0, "", v}; };
  auto conv = [&](int64_t hw, int64_t C, int64_t O, int64_t k, int64_t groups, int threads) {
    cpu::OperandDesc x{DataType::kFloat32, {1, hw, hw, C}, nullptr}, w{DataType::kFloat32, {O, k, k, C / groups}, nullptr};
    cpu::OperandDesc y{DataType::kFloat32, {1, hw, hw, O}, nullptr};
    cpu::NodeDesc n;
    n.op = "fusedConv2d";
    n.attributes.set("inputLayout", str("nhwc"));
    n.attributes.set("filterLayout", str("ohwi"));
    n.attributes.set("activation", str("relu"));
    n.attributes.set("padding", ints({k / 2, k / 2, k / 2, k / 2}));
    n.attributes.set("groups", cpu::AttributeValue{cpu::AttributeValue::Kind::kInt, groups, 0, "", {}});
    n.inputs = {&x, &w};
    n.outputs = {&y};
    return cpu::findCostFunction("fusedConv2d")(n, {false, true}, threads);
  };
  auto pool = [&](int64_t hw, int64_t C, int threads) {
    cpu::OperandDesc x{DataType::kFloat32, {1, hw, hw, C}, nullptr}, y{DataType::kFloat32, {1, 1, 1, C}, nullptr};
    cpu::NodeDesc n;
    n.op = "averagePool2d";
    n.attributes.set("layout", str("nhwc"));
    n.attributes.set("windowDimensions", ints({hw, hw}));
    n.inputs = {&x};
    n.outputs = {&y};
    return cpu::findCostFunction("averagePool2d")(n, {false}, threads);
  };
  EXPECT_TRUE(pool(14, 576, 2).rowsPerThread);
  EXPECT_FALSE(pool(14, 576, 1).rowsPerThread);
  EXPECT_FALSE(pool(7, 960, 2).rowsPerThread);  // 4 + 3 rows: channel blocks
  EXPECT_FALSE(pool(14, 16, 2).rowsPerThread);  // 14 rows of 224 floats: under 8k a part
  if (!__builtin_cpu_supports("avx512f")) return;  // our depthwise and packed 1x1 kernels
  EXPECT_TRUE(conv(14, 576, 576, 3, 576, 2).rowsPerThread);
  EXPECT_FALSE(conv(14, 576, 576, 3, 576, 1).rowsPerThread);
  EXPECT_FALSE(conv(7, 960, 960, 3, 960, 2).rowsPerThread);
  EXPECT_TRUE(conv(7, 16, 16, 3, 16, 2).rowsPerThread);  // one channel block: rows
  EXPECT_TRUE(conv(14, 192, 576, 1, 1, 2).rowsPerThread);  // packed SGEMM, 25 tiles of 8 pixels
  EXPECT_FALSE(conv(14, 96, 576, 1, 1, 2).rowsPerThread);  // an expand of <= 160 inputs: oneDNN first (3b9179f)
  EXPECT_FALSE(conv(7, 160, 960, 1, 1, 2).rowsPerThread);  // 7 tiles: panels
  EXPECT_FALSE(conv(14, 256, 1024, 1, 1, 2).rowsPerThread);  // B larger than what rows save: panels
}

TEST(Estimate, RowSplitPoolPricedOnTwoThreads) {
  DeviceProfile p = syntheticTwoThreadProfile();
  auto graph = [](int64_t hw, int64_t C) {
    TGraph g;
    g.tensors = {{"x", DataType::kFloat32, {1, hw, hw, C}}, {"y", DataType::kFloat32, {1, 1, 1, C}}};
    TAttribute layout{"layout", 3, 0, 0, "nhwc", {}}, window{"windowDimensions", 4, 0, 0, "", {hw, hw}};
    g.nodes = {{"averagePool2d", {0}, {1}, "squeeze", {layout, window}}};
    g.inputs = {0};
    g.outputs = {1};
    return g;
  };
  est::EstimateOptions o2;
  o2.threads = 2;
  Estimate rows, blocks;
  Status s = est::estimateArtifact(writeArtifact("est_pool_rows", graph(14, 576)), p, o2, &rows);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = est::estimateArtifact(writeArtifact("est_pool_blocks", graph(7, 960)), p, o2, &blocks);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(rows.nodes.size(), 1u);
  ASSERT_EQ(blocks.nodes.size(), 1u);
  EXPECT_EQ(rows.nodes[0].pricedThreads, 2);
  EXPECT_EQ(blocks.nodes[0].pricedThreads, 1);  // bound by bytes, split by channels
}

// A b shared by every batch: oneDNN folds a's batch into rows and cuts rows.
TEST(CostFunctions, MatMulSharedBFoldsBatchIntoRows) {
  cpu::OperandDesc a{DataType::kFloat32, {4, 8, 512}, nullptr}, b{DataType::kFloat32, {512, 256}, nullptr};
  cpu::OperandDesc y{DataType::kFloat32, {4, 8, 256}, nullptr};
  cpu::NodeDesc n;
  n.op = "matmul";
  n.inputs = {&a, &b};
  n.outputs = {&y};
  cpu::NodeCost c = cpu::findCostFunction("matmul")(n, {false, false}, 2);
  EXPECT_EQ(c.family, "matmul.batched");
  ASSERT_EQ(c.threading, cpu::Threading::kPieces);
  EXPECT_EQ(c.pieces, 2);
  ASSERT_EQ(c.piece.params.size(), 4u);
  EXPECT_DOUBLE_EQ(c.piece.params[0], 16);  // 32 rows of the 4 batches: 16 each
  EXPECT_DOUBLE_EQ(c.piece.flops, c.flops / 2);
  EXPECT_DOUBLE_EQ(c.piece.bytes, (16 * 512 + 512 * 256 + 16 * 256) * 4.0);  // all of b, half of a and y
}

// At 2 threads a pieced matmul costs its larger piece on the one-thread
// grid, times the calibrated slowdown, plus one fork/join; a matmul too
// narrow to cut runs whole on the calling thread: what it costs on one.
TEST(Estimate, PiecesPricedOnOneThreadAtTwoThreads) {
  DeviceProfile p = syntheticProfile();
  p.maxThreads = 2;
  est::ThreadProfile two = p.threads[0];
  two.threads = 2;
  two.peakGflops = 150;  // not used by pieced or one-thread nodes
  two.forkJoinUs = 3;
  two.pieceSlowdown = 1.5;
  p.threads.push_back(two);
  auto graph = [](int64_t B, int64_t M, int64_t K, int64_t N) {
    TGraph g;
    g.name = "bmm";
    g.tensors = {{"a", DataType::kFloat32, {B, M, K}}, {"b", DataType::kFloat32, {B, K, N}},
                 {"y", DataType::kFloat32, {B, M, N}}};
    g.nodes = {{"matmul", {0, 1}, {2}, "mm"}};
    g.inputs = {0, 1};
    g.outputs = {2};
    return g;
  };
  est::EstimateOptions o1, o2;
  o2.threads = 2;
  Estimate big1, big2;
  std::string big = writeArtifact("est_bmm", graph(12, 128, 64, 128));
  ASSERT_TRUE(est::estimateArtifact(big, p, o1, &big1).isOk());
  ASSERT_TRUE(est::estimateArtifact(big, p, o2, &big2).isOk());
  ASSERT_EQ(big2.nodes.size(), 1u);
  EXPECT_EQ(big2.nodes[0].family, "matmul.batched");
  // 6 of the 12 matrices per piece: half of the one-thread work (ratio 2 on
  // every grid), 1.5x slower beside its neighbour, 3 us fork/join, 1 us node.
  const double bytes = (128 * 64 + 64 * 128 + 128 * 128) * 4.0;
  double piece = 2 * est::rooflineMs(p, p.threads[0], 2.0 * 6 * 128 * 128 * 64, 6 * bytes);
  double whole = 2 * est::rooflineMs(p, p.threads[0], 2.0 * 12 * 128 * 128 * 64, 12 * bytes);
  EXPECT_NEAR(big2.nodes[0].ms, 1e-3 + 1.5 * piece + 3e-3, 1e-9);
  EXPECT_NEAR(big1.nodes[0].ms, 1e-3 + whole, 1e-9);
  Estimate small1, small2;
  // 8 rows and 64 columns: oneDNN's (2 MFLOP), too narrow to cut.
  std::string small = writeArtifact("est_small_mm", graph(1, 8, 2048, 64));
  ASSERT_TRUE(est::estimateArtifact(small, p, o1, &small1).isOk());
  ASSERT_TRUE(est::estimateArtifact(small, p, o2, &small2).isOk());
  EXPECT_DOUBLE_EQ(small2.nodes[0].ms, small1.nodes[0].ms);
  // add and relu move bytes: inside a graph a second thread does not speed
  // them up, so they cost what they cost on one thread.
  Estimate relu1, relu2;
  std::string relu = writeArtifact("est_relu_2t", addReluGraph());
  ASSERT_TRUE(est::estimateArtifact(relu, p, o1, &relu1).isOk());
  ASSERT_TRUE(est::estimateArtifact(relu, p, o2, &relu2).isOk());
  ASSERT_EQ(relu2.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(relu2.nodes[0].ms, relu1.nodes[0].ms);
  EXPECT_DOUBLE_EQ(relu2.nodes[1].ms, relu1.nodes[1].ms);
}

// A memory-bound kernel whose bytes are mostly weights (a GEMV over a
// constant matrix) streams them with both threads' read rates: priced on
// the 2-thread grid, unlike add and relu above.
TEST(Estimate, WeightStreamingKernelPricedAtTheRunsThreads) {
  DeviceProfile p = syntheticProfile();
  p.maxThreads = 2;
  est::ThreadProfile two = p.threads[0];
  two.threads = 2;
  two.l2GBs = 100;
  for (auto &[name, g] : two.families)
    for (est::GridPoint &pt : g.points) pt.ratio = 1;
  p.threads.push_back(two);
  const int64_t K = 1024, N = 64;
  TGraph g;
  g.name = "gemv";
  g.tensors = {{"a", DataType::kFloat32, {1, K}}, {"b", DataType::kFloat32, {K, N}}, {"y", DataType::kFloat32, {1, N}}};
  g.constants = {{1, floatBytes(std::vector<float>(size_t(K * N), 0.5f)), "b"}};
  g.nodes = {{"matmul", {0, 1}, {2}, "gemv"}};
  g.inputs = {0};
  g.outputs = {2};
  est::EstimateOptions o2;
  o2.threads = 2;
  Estimate e;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv_2t", g), p, o2, &e).isOk());
  ASSERT_EQ(e.nodes.size(), 1u);
  EXPECT_EQ(e.nodes[0].family, "gemm");
  EXPECT_EQ(e.nodes[0].pricedThreads, 2);
  const double flops = 2.0 * K * N, bytes = (K + K * N + N) * 4.0;
  EXPECT_NEAR(e.nodes[0].ms, 1e-3 + est::rooflineMs(p, p.threads[1], flops, bytes), 1e-9);
  // Its 2-thread FMA peak equals the 1-thread one: the estimate says a core
  // was elsewhere during calibration; at twice the peak it says nothing.
  auto busyNote = [](const Estimate &x) {
    for (const std::string &n : x.notes)
      if (n.find("a core was busy elsewhere") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(busyNote(e));
  p.threads[1].peakGflops = 2 * p.threads[0].peakGflops;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv_2t_peak", g), p, o2, &e).isOk());
  EXPECT_FALSE(busyNote(e));
  est::EstimateOptions o1;
  p.threads[1].peakGflops = p.threads[0].peakGflops;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_gemv_1t", g), p, o1, &e).isOk());
  EXPECT_FALSE(busyNote(e));  // a 1-thread estimate does not use the 2-thread grid
}

// The profile's in-graph cost per node (calibration's mobile chain against
// its kernels alone) is added to every node that runs a kernel of its own,
// never taking a node below its executor overhead; the in-graph terms are
// saved with the profile and checked when read.
TEST(Estimate, InGraphCostPerNodeAdded) {
  DeviceProfile p = syntheticProfile();
  std::string path = writeArtifact("est_graph_node", addReluGraph());
  Estimate base, more, less;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &base).isOk());
  // add and relu over [2, 3] floats move 48 arena bytes each: 1.6 ns at
  // the L3's 30 GB/s, the most a cost per node adds to them.
  p.threads[0].graphNodeUs = 1e-3;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &more).isOk());
  ASSERT_EQ(more.nodes.size(), 2u);
  EXPECT_NEAR(more.medianMs, base.medianMs + 2 * 1e-6, 1e-12);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(more.nodes[i].graphMs, 1e-6);
    EXPECT_EQ(more.nodes[i].pricedThreads, 1);
    EXPECT_NEAR(more.nodes[i].ms, base.nodes[i].ms + 1e-6, 1e-12);
  }
  p.threads[0].graphNodeUs = 5;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &more).isOk());
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(more.nodes[i].graphMs, 48 / 30e9 * 1e3, 1e-15);
  // A node of 2 MB pays the whole 5 us.
  {
    TGraph g;
    g.name = "relu_2mb_cost";
    g.tensors = {{"x", DataType::kFloat32, {1, 262144}}, {"y", DataType::kFloat32, {1, 262144}}};
    g.nodes = {{"relu", {0}, {1}, "relu0"}};
    g.inputs = {0};
    g.outputs = {1};
    Estimate big;
    ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_graph_node_2mb", g), p, {}, &big).isOk());
    ASSERT_EQ(big.nodes.size(), 1u);
    EXPECT_DOUBLE_EQ(big.nodes[0].graphMs, 5e-3);
  }
  // A saving is at most the node's arena bytes moved at the L3's rate (30
  // GB/s) instead of the L2's (50): add (its constant operand is a weight)
  // and relu over [2, 3] floats move 48 bytes each.
  p.threads[0].graphNodeUs = -1e5;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &less).isOk());
  ASSERT_EQ(less.nodes.size(), 2u);
  const double perByteMs = (1.0 / 30 - 1.0 / 50) * 1e-6;
  EXPECT_NEAR(less.nodes[0].graphMs, -48 * perByteMs, 1e-15);
  EXPECT_NEAR(less.nodes[1].graphMs, -48 * perByteMs, 1e-15);
  // Without a slower L3 there is nothing to save.
  p.threads[0].l3GBs = p.threads[0].l2GBs;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &less).isOk());
  for (const est::NodeEstimate &n : less.nodes) EXPECT_DOUBLE_EQ(n.graphMs, 0);
  p.threads[0].l3GBs = 30;
  // Saved and read back; a value beyond a second per node is refused.
  p.threads[0].graphNodeUs = -0.25;
  p.threads[0].graphChainNodes = 35;
  p.threads[0].graphColdFactor = 1.25;
  std::string dir = tempDir("est_graph_node_json");
  ASSERT_TRUE(est::saveProfile(p, dir + "/p.json").isOk());
  DeviceProfile back;
  ASSERT_TRUE(est::loadProfile(dir + "/p.json", &back).isOk());
  EXPECT_DOUBLE_EQ(back.threads[0].graphNodeUs, -0.25);
  EXPECT_EQ(back.threads[0].graphChainNodes, 35);
  EXPECT_DOUBLE_EQ(back.threads[0].graphColdFactor, 1.25);
  std::ifstream in(dir + "/p.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"graph_node_us\": -0.25"), 22, "\"graph_node_us\": 2e9");
  std::ofstream(dir + "/bad.json") << text;
  Status s = est::loadProfile(dir + "/bad.json", &back);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("threads[0].graph_node_us"), std::string::npos) << s.message();
  text.replace(text.find("\"graph_node_us\": 2e9"), 20, "\"graph_node_us\": 1.0");
  text.replace(text.find("\"graph_cold_factor\": 1.25"), 25, "\"graph_cold_factor\": 0.0");
  std::ofstream(dir + "/bad.json") << text;
  s = est::loadProfile(dir + "/bad.json", &back);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("threads[0].graph_cold_factor"), std::string::npos) << s.message();
}

// A node saves in a graph no more than the grid's hot reruns of its kernel
// saved against its evicted runs: a kernel bound by its instructions (a
// GELU's erf) gains little from operands left in the L2 by the node before.
// A family whose grid has no hot reruns (older profiles) keeps the flat
// term; a graph priced hot throughout saves nothing more.
TEST(Estimate, InGraphSavingBoundedByTheGridsHotReruns) {
  DeviceProfile p = syntheticProfile();
  TGraph g;
  g.name = "relu_2mb";
  g.tensors = {{"x", DataType::kFloat32, {1, 262144}}, {"y", DataType::kFloat32, {1, 262144}}};
  g.nodes = {{"relu", {0}, {1}, "relu0"}};
  g.inputs = {0};
  g.outputs = {1};
  const std::string path = writeArtifact("est_graph_hot_bound", g);
  p.threads[0].graphNodeUs = -20;  // within the 28 us its 2 MB of arena bytes allow
  Estimate e;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  ASSERT_EQ(e.nodes.size(), 1u);
  ASSERT_EQ(e.nodes[0].family, "unary");
  EXPECT_NEAR(e.nodes[0].graphMs, -20e-3, 1e-12);
  est::GridPoint &point = p.threads[0].families["unary"].points[0];
  point.hotRatio = 1.9;  // against ratio 2: a twentieth of the kernel
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  // The point's ratios restated from the L1's 100 GB/s (its 512 bytes) to
  // the L3's 30 (the node's 2 MB): 0.3 times each.
  EXPECT_NEAR(e.nodes[0].graphMs, -0.1 * 0.3 * e.nodes[0].rooflineMs, 1e-12);
  EXPECT_GT(e.nodes[0].graphMs, -20e-3);
  point.hotRatio = 2;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  EXPECT_DOUBLE_EQ(e.nodes[0].graphMs, 0);
  // The whole working set in the L2: priced on the hot ratios already.
  point.hotRatio = 1.9;
  p.l2Bytes = 64 << 20;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  EXPECT_DOUBLE_EQ(e.nodes[0].graphMs, 0);
}

// A one-parameter family's grid points on either side of a cache's size
// are ratios over different bandwidths (the L2's 50 GB/s, the L3's 30);
// the grid timed both after evicting L1/L2. For a family its instructions
// bound (hot reruns at least half its evicted time) they are restated over
// the node's own level: a kernel that took 1 ns a value at both points is
// priced at 1 ns a value between them (interpolating the raw ratios, 6.25
// and 3.75, gave 22% less). Past the L3's size nothing is restated, nor for
// a family bound by moving bytes (hot reruns 0.3 of its evicted time).
TEST(Estimate, StreamingRatiosRestatedAtTheNodesCacheLevel) {
  DeviceProfile p = syntheticProfile();
  est::GridPoint small, large;
  small.params = {16384};  // 128 KB moved: the L2's level
  small.ms = 16384e-6;
  small.ratio = small.ms / (16384 * 8 / 50e6);
  large.params = {262144};  // 2 MB moved: the L3's level
  large.ms = 262144e-6;
  large.ratio = large.ms / (262144 * 8 / 30e6);
  small.hotRatio = 0.8 * small.ratio;
  p.threads[0].families["unary"].points = {small, large};
  // Beside it a relu over 1M values, so that the run's working set exceeds
  // the L2 and is not priced hot throughout.
  auto relu = [](int64_t n) {
    TGraph g;
    g.name = "relu_n";
    g.tensors = {{"x", DataType::kFloat32, {1, n}}, {"y", DataType::kFloat32, {1, n}},
                 {"u", DataType::kFloat32, {1, 1 << 20}}, {"v", DataType::kFloat32, {1, 1 << 20}}};
    g.nodes = {{"relu", {0}, {1}, "relu0"}, {"relu", {2}, {3}, "relu1"}};
    g.inputs = {0, 2};
    g.outputs = {1, 3};
    return g;
  };
  Estimate e;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_restated_mid", relu(65536)), p, {}, &e).isOk());
  ASSERT_EQ(e.nodes.size(), 2u);
  ASSERT_EQ(e.nodes[0].family, "unary");
  EXPECT_NEAR(e.nodes[0].ms - p.threads[0].nodeOverheadUs * 1e-3, 65536e-6, 1e-9);
  // 8M values (64 MB) exceed the 16 MB L3: the points' own ratios over DRAM's 10 GB/s, not restated.
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_restated_dram", relu(8 << 20)), p, {}, &e).isOk());
  const double dramRoof = (8 << 20) * 8.0 / 10e6, kernelMs = e.nodes[0].ms - p.threads[0].nodeOverheadUs * 1e-3;
  EXPECT_GE(kernelMs, large.ratio * dramRoof);
  EXPECT_LE(kernelMs, small.ratio * dramRoof);
  // Bound by moving bytes: the raw ratios' geometric mean over the L2's roofline.
  p.threads[0].families["unary"].points[0].hotRatio = 0.3 * small.ratio;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_restated_bytes", relu(65536)), p, {}, &e).isOk());
  EXPECT_NEAR(e.nodes[0].ms - p.threads[0].nodeOverheadUs * 1e-3,
              std::sqrt(small.ratio * large.ratio) * 65536 * 8 / 50e6, 1e-9);
}

// A node past the L2 reads from the L3, as every grid point that fits the
// L2 did (the grid evicts L1 and L2 first): such a point's ratio, taken
// over the L2's roofline, is restated over the L3's, for a family bound by
// moving bytes too; a point of an older profile (no bytes) is not.
TEST(Estimate, PointsInTheL2RestatedForANodePastIt) {
  DeviceProfile p = syntheticProfile();
  est::GridPoint small;
  small.params = {16384};  // 128 KB moved: the L2's level (50 GB/s)
  small.ms = 16384 * 8 / 30e6;  // as fast as the L3 reads it
  small.ratio = small.ms / (16384 * 8 / 50e6);
  small.hotRatio = 0.3 * small.ratio;  // bound by moving bytes
  small.bytes = 16384 * 8;
  small.flops = 16384;
  p.threads[0].families["unary"].points = {small};
  auto relu = [](int64_t n) {
    TGraph g;
    g.name = "relu_n";
    g.tensors = {{"x", DataType::kFloat32, {1, n}}, {"y", DataType::kFloat32, {1, n}}};
    g.nodes = {{"relu", {0}, {1}, "relu0"}};
    g.inputs = {0};
    g.outputs = {1};
    return g;
  };
  const int64_t n = 1 << 20;  // 8 MB moved: past the 1 MB L2, inside the 16 MB L3
  const std::string path = writeArtifact("est_restated_past_l2", relu(n));
  const double l3Roof = double(n) * 8 / 30e6;
  Estimate e;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  ASSERT_EQ(e.nodes.size(), 1u);
  EXPECT_NEAR(e.nodes[0].ms - p.threads[0].nodeOverheadUs * 1e-3, l3Roof, 1e-9);
  // Without the point's bytes: its ratio over the L2's roofline, 50 / 30 higher.
  p.threads[0].families["unary"].points[0].bytes = 0;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  EXPECT_NEAR(e.nodes[0].ms - p.threads[0].nodeOverheadUs * 1e-3, l3Roof * 50 / 30, 1e-9);
  // A node inside the L2 keeps the point's ratio over its own (the L2's)
  // roofline (the whole graph fits the L2: the point's hot rerun's ratio).
  p.threads[0].families["unary"].points[0].bytes = small.bytes;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_restated_in_l2", relu(32768)), p, {}, &e).isOk());
  EXPECT_NEAR(e.nodes[0].ms - p.threads[0].nodeOverheadUs * 1e-3, small.hotRatio * 32768 * 8 / 50e6, 1e-9);
}

// At 2 threads an elementwise kernel of contiguous ranges bound by moving
// bytes is priced on one thread's grid while it fits one core's L2, and on
// the run's thread count past it, where each core streams its own range.
TEST(Estimate, ElementwisePastOneL2PricedOnTheRunsThreads) {
  DeviceProfile p = syntheticTwoThreadProfile();
  auto add = [](int64_t n) {
    TGraph g;
    g.name = "add_n";
    g.tensors = {{"a", DataType::kFloat32, {1, n}}, {"b", DataType::kFloat32, {1, n}},
                 {"y", DataType::kFloat32, {1, n}}};
    g.nodes = {{"add", {0, 1}, {2}, "add0"}};
    g.inputs = {0, 1};
    g.outputs = {2};
    return g;
  };
  est::EstimateOptions o2;
  o2.threads = 2;
  Estimate inL2, past;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_add_in_l2", add(65536)), p, o2, &inL2).isOk());  // 768 KB
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_add_past_l2", add(262144)), p, o2, &past).isOk());  // 3 MB
  ASSERT_EQ(inL2.nodes.size(), 1u);
  ASSERT_EQ(past.nodes.size(), 1u);
  EXPECT_EQ(inL2.nodes[0].pricedThreads, 1);
  EXPECT_EQ(past.nodes[0].pricedThreads, 2);
  // A softmax along the last axis runs its rows so too; along another axis
  // it does not (blocks of columns).
  auto softmax = [](int64_t rows, int64_t axis) {
    TGraph g;
    g.name = "softmax_rows";
    g.tensors = {{"x", DataType::kFloat32, {rows, 256}}, {"y", DataType::kFloat32, {rows, 256}}};
    TAttribute a{"axis", 0, axis, 0, "", {}};
    g.nodes = {{"softmax", {0}, {1}, "softmax0", {a}}};
    g.inputs = {0};
    g.outputs = {1};
    return g;
  };
  Estimate last, first;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_softmax_last", softmax(2048, 1)), p, o2, &last).isOk());
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_softmax_first", softmax(2048, 0)), p, o2, &first).isOk());
  ASSERT_EQ(last.nodes.size(), 1u);
  ASSERT_EQ(first.nodes.size(), 1u);
  EXPECT_EQ(last.nodes[0].pricedThreads, 2);
  EXPECT_EQ(first.nodes[0].pricedThreads, 1);
  // A batchNormalization (one multiply-add per value over contiguous rows)
  // too, past one core's L2; a layerNormalization stays on one thread's.
  auto norm = [](const char *op, int64_t rows) {
    TGraph g;
    g.name = "norm_rows";
    g.tensors = {{"x", DataType::kFloat32, {1, rows, 16, 64}}, {"y", DataType::kFloat32, {1, rows, 16, 64}}};
    g.nodes = {{op, {0}, {1}, "norm0"}};
    if (std::string(op) == "batchNormalization") {
      for (const char *k : {"mean", "variance"}) {
        g.tensors.push_back({k, DataType::kFloat32, {64}});
        g.constants.push_back({uint32_t(g.tensors.size() - 1), std::vector<uint8_t>(64 * 4, 0), k, std::nullopt, std::nullopt});
        g.nodes[0].inputs.push_back(int32_t(g.tensors.size() - 1));
      }
      g.nodes[0].attributes = {TAttribute{"axis", 0, 3, 0, "", {}}};
    }
    g.inputs = {0};
    g.outputs = {1};
    return g;
  };
  Estimate bn, ln;
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_bn_rows", norm("batchNormalization", 512)), p, o2, &bn).isOk());
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_ln_rows", norm("layerNormalization", 512)), p, o2, &ln).isOk());
  ASSERT_EQ(bn.nodes.size(), 1u);
  ASSERT_EQ(ln.nodes.size(), 1u);
  EXPECT_EQ(bn.nodes[0].pricedThreads, 2);
  EXPECT_EQ(ln.nodes[0].pricedThreads, 1);
}

// A memory-bound node past one core's L2 reading mostly the caller's inputs
// (a decoder's KV cache into groupQueryAttention) is priced on the run's
// threads: no node before it left those bytes in one core's cache. The same
// reduction over a node's output stays on one thread's grid.
TEST(Estimate, NodeStreamingTheCallersInputsPricedAtTheRunsThreads) {
  DeviceProfile p = syntheticTwoThreadProfile();
  auto reduce = [](bool afterRelu) {
    TGraph g;
    g.name = "reduce_input";
    g.tensors = {{"x", DataType::kFloat32, {1024, 1024}}, {"y", DataType::kFloat32, {}}};
    if (afterRelu) {
      g.tensors.push_back({"h", DataType::kFloat32, {1024, 1024}});
      g.nodes = {{"relu", {0}, {2}, "relu0"}, {"reduceSum", {2}, {1}, "sum0"}};
    } else {
      g.nodes = {{"reduceSum", {0}, {1}, "sum0"}};
    }
    g.inputs = {0};
    g.outputs = {1};
    return g;
  };
  est::EstimateOptions o2;
  o2.threads = 2;
  Estimate direct, after;
  Status s = est::estimateArtifact(writeArtifact("est_reduce_input", reduce(false)), p, o2, &direct);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_TRUE(est::estimateArtifact(writeArtifact("est_reduce_relu", reduce(true)), p, o2, &after).isOk());
  ASSERT_EQ(direct.nodes.size(), 1u);
  ASSERT_EQ(after.nodes.size(), 2u);
  EXPECT_EQ(direct.nodes[0].family, "reduce");
  EXPECT_EQ(direct.nodes[0].pricedThreads, 2);
  EXPECT_EQ(after.nodes[1].pricedThreads, 1);
}

// A node whose input's producer moved more bytes than the L2 holds saves
// nothing in the graph: that stream flushed its operands as the grid's
// eviction does (the audio encoder's GELUs after conv1d layers of 1-3 MB
// of filters). The first relu reads the graph's input; the second reads
// the first's 2 MB pass over a 1 MB L2; with a 4 MB L2 both save.
TEST(Estimate, InGraphSavingNoneAfterAProducerBeyondTheL2) {
  DeviceProfile p = syntheticProfile();
  TGraph g;
  g.name = "relu_relu_2mb";
  g.tensors = {{"x", DataType::kFloat32, {1, 262144}},
               {"y", DataType::kFloat32, {1, 262144}},
               {"z", DataType::kFloat32, {1, 262144}}};
  g.nodes = {{"relu", {0}, {1}, "relu0"}, {"relu", {1}, {2}, "relu1"}};
  g.inputs = {0};
  g.outputs = {2};
  const std::string path = writeArtifact("est_graph_flushed", g);
  p.threads[0].graphNodeUs = -20;
  Estimate e;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  ASSERT_EQ(e.nodes.size(), 2u);
  EXPECT_NEAR(e.nodes[0].graphMs, -20e-3, 1e-12);
  EXPECT_DOUBLE_EQ(e.nodes[1].graphMs, 0);
  p.l2Bytes = 4 << 20;
  p.l3Bytes = 64 << 20;
  ASSERT_TRUE(est::estimateArtifact(path, p, {}, &e).isOk());
  EXPECT_NEAR(e.nodes[0].graphMs, -20e-3, 1e-12);
  EXPECT_NEAR(e.nodes[1].graphMs, -20e-3, 1e-12);
}

// Under the concat-view plan a concat copies only the inputs the plan did
// not place in its output (a graph input; an output another reader needs
// dense); a placed input's producer wrote it there: a pool in place, a
// convolution through the CPU backend's dense copy, priced with it once.
TEST(Estimate, ConcatCopiesOnlyInputsNotWrittenInPlace) {
  DeviceProfile p = syntheticProfile();
  auto nodeOf = [&](const ConcatSlice &k, const std::string &tag, const std::string &op) {
    Estimate e;
    Status s = est::estimateArtifact(writeArtifact(tag, concatSliceGraph(k)), p, {}, &e);
    EXPECT_TRUE(s.isOk()) << s.message();
    for (const est::NodeEstimate &n : e.nodes)
      if (n.op == op) return std::make_pair(n.ms, n.bytes);
    ADD_FAILURE() << tag << ": no " << op;
    return std::make_pair(0.0, 0.0);
  };
  auto concatMs = [&](const ConcatSlice &k, const std::string &tag) { return nodeOf(k, tag, "concat"); };
  // Every copy priced at ratio 2 over the L1 roofline (a graph this small fits it).
  auto fullMs = [&](double bytes) { return 1e-3 + 2 * est::rooflineMs(p, p.threads[0], 0, bytes); };
  // a (conv) and p (pool), 16 channels each: both placed, nothing copied.
  EXPECT_DOUBLE_EQ(concatMs({}, "est_concat_ap").first, 1e-3);
  ConcatSlice withInput;
  withInput.order = "apx";  // x, a graph input, is copied
  auto [apx, apxBytes] = concatMs(withInput, "est_concat_apx");
  EXPECT_NEAR(apx, 1e-3 + (fullMs(apxBytes) - 1e-3) / 3, 1e-12);
  // a read by a relu too: kept dense, copied by the concat. Placed (one
  // concat or two), the convolution pays the scatter of its 480 floats
  // into the slice.
  ConcatSlice relu;
  relu.reluReadsA = true;
  auto [ra, raBytes] = concatMs(relu, "est_concat_relu");
  EXPECT_NEAR(ra, 1e-3 + (fullMs(raBytes) - 1e-3) / 2, 1e-12);
  ConcatSlice wider;
  wider.widerConcat = true;
  EXPECT_DOUBLE_EQ(concatMs(wider, "est_concat_wider").first, 1e-3);
  const double scatter = 2 * est::rooflineMs(p, p.threads[0], 0, 2 * 480 * 4.0);
  const double denseConv = nodeOf(relu, "est_concat_relu_conv", "conv2d").first;
  // On AVX-512 the 1x1 (16 -> 16 channels) runs the narrow kernel, which
  // writes the slice at its pitch itself (e589cc9): no scatter.
  const double placedScatter = __builtin_cpu_supports("avx512f") ? 0 : scatter;
  EXPECT_NEAR(nodeOf(wider, "est_concat_wider_conv", "conv2d").first, denseConv + placedScatter, 1e-12);
  EXPECT_NEAR(nodeOf({}, "est_concat_ap_conv", "conv2d").first, denseConv + placedScatter, 1e-12);
}

// Sanitized builds (the asan preset: ASan, UBSan and fuzzer coverage) run
// calibration's fixed steps about 3x slower; the deadline scales with them so
// that the grid still gets its share.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kSanitizerSlowdown = 3;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kSanitizerSlowdown = 3;
#else
constexpr double kSanitizerSlowdown = 1;
#endif
#else
constexpr double kSanitizerSlowdown = 1;
#endif

TEST(Calibrate, ShortDeadlineWritesUsableProfile) {
  est::CalibrateOptions o;
  o.maxThreads = 1;
  o.deadlineSeconds = 2 * kSanitizerSlowdown;
  auto t0 = std::chrono::steady_clock::now();
  DeviceProfile p;
  ASSERT_TRUE(est::calibrate(o, &p).isOk());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The deadline plus the step under way when it passed, on a loaded or slow
  // machine; a calibration that ignored it would take its full ~30 s, more
  // when sanitized. Sanitized, the fixed steps before the grid (the first
  // touch of the L3 sweep's and the DRAM buffers, with ASan's shadow pages,
  // costly page faults on a Firecracker VM) run well past this 6 s
  // deadline: the bound leaves room for them.
  EXPECT_LT(seconds, kSanitizerSlowdown > 1 ? 30.0 : 5.0);
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_GT(p.threads[0].peakGflops, 1);
  EXPECT_GT(p.threads[0].dramGBs, 0.5);
  EXPECT_GT(p.threads[0].dramReadGBs, 0.5);
  EXPECT_GE(p.threads[0].runOverheadUs, 0);
  EXPECT_GT(p.threads[0].graphChainNodes, 0);  // the mobile chain ran before the grid
  EXPECT_LT(std::fabs(p.threads[0].graphNodeUs), 1000);
  EXPECT_FALSE(p.threads[0].families.empty());
  std::string path = tempDir("est_profile") + "/profile.json";
  ASSERT_TRUE(est::saveProfile(p, path).isOk());
  DeviceProfile back;
  Status s = est::loadProfile(path, &back);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(back.cpuModel, p.cpuModel);
  EXPECT_DOUBLE_EQ(back.threads[0].dramReadGBs, p.threads[0].dramReadGBs);
  EXPECT_DOUBLE_EQ(back.threads[0].runOverheadUs, p.threads[0].runOverheadUs);
  EXPECT_DOUBLE_EQ(back.threads[0].graphNodeUs, p.threads[0].graphNodeUs);
  EXPECT_LE(p.l3Bytes, p.l3ReportedBytes);
  EXPECT_EQ(back.l3Bytes, p.l3Bytes);
  EXPECT_EQ(back.l3ReportedBytes, p.l3ReportedBytes);
  EXPECT_EQ(back.threads[0].families.size(), p.threads[0].families.size());
  Estimate e;
  s = est::estimateArtifact(writeArtifact("est_cal", addReluGraph()), back, {}, &e);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_GT(e.medianMs, 0);
}

// The shortest deadline is spent before the grid (peaks, bandwidths, the L3
// sweep, the mobile chain) on this kind of machine: the grid still times its
// first point, so no profile prices every kernel from the peaks alone.
TEST(Calibrate, DeadlineSpentBeforeTheGridStillTimesOnePoint) {
  est::CalibrateOptions o;
  o.maxThreads = 2;  // both thread counts' measurements before the grid
  o.deadlineSeconds = 1;
  DeviceProfile p;
  ASSERT_TRUE(est::calibrate(o, &p).isOk());
  ASSERT_EQ(p.threads.size(), 2u);
  size_t points = 0;
  for (const auto &t : p.threads)
    for (const auto &[name, grid] : t.families) points += grid.points.size();
  EXPECT_GE(points, 1u);
}

// A 2-vCPU VM on a server whose sysfs reports a 300 MB L3: one thread's read
// rate holds ~21 GB/s to 45 MB, then falls to DRAM's ~9 GB/s.
TEST(Calibrate, EffectiveL3WhereTheReadRateFalls) {
  const uint64_t MB = 1 << 20;
  std::vector<std::pair<uint64_t, double>> vm = {
      {4 * MB, 21.1},   {6 * MB, 20.8},   {8 * MB, 20.2},    {11 * MB, 20.1},  {16 * MB, 20.3},
      {22 * MB, 21.3},  {32 * MB, 21.9},  {45 * MB, 18.2},   {64 * MB, 15.7},  {90 * MB, 11.8},
      {128 * MB, 13.9}, {181 * MB, 8.4},  {256 * MB, 10.2},  {362 * MB, 9.2},  {512 * MB, 9.1}};
  EXPECT_EQ(est::effectiveL3FromSweep(vm, 300 * MB), 64 * MB);
  // Never above what sysfs reports.
  EXPECT_EQ(est::effectiveL3FromSweep(vm, 32 * MB), 32 * MB);
  // No fall within the sweep (a cache as large as reported, or beyond it): kept as reported.
  std::vector<std::pair<uint64_t, double>> flat;
  for (const auto &[bytes, gbs] : vm) flat.push_back({bytes, 20.0 + double(bytes % 7) / 10});
  EXPECT_EQ(est::effectiveL3FromSweep(flat, 300 * MB), 300 * MB);
  // Too few sizes to tell: as reported.
  EXPECT_EQ(est::effectiveL3FromSweep({{4 * MB, 20}, {8 * MB, 5}}, 300 * MB), 300 * MB);
}

// Cache sizes from sysfs where it has them, else from the C library's CPUID
// reading: a VM without /sys/devices/system/cpu/cpu0/cache (Firecracker)
// calibrated with no cache sizes at all, its evictions too small to evict.
TEST(Calibrate, CacheSizesWithoutSysfs) {
  const std::string dir = ::testing::TempDir() + "/webnn_cache_sysfs";
  const std::string cacheDir = dir + "/cache/index2";
  ASSERT_EQ(std::system(("mkdir -p " + cacheDir).c_str()), 0);
  std::ofstream(cacheDir + "/size") << "2048K\n";
  EXPECT_EQ(est::cacheBytes(2, dir), uint64_t(2048) << 10);
  const std::string none = dir + "/absent";
#if defined(__x86_64__) && defined(__GLIBC__)
  EXPECT_EQ(est::cacheBytes(1, none), uint64_t(::sysconf(_SC_LEVEL1_DCACHE_SIZE)));
  EXPECT_EQ(est::cacheBytes(2, none), uint64_t(::sysconf(_SC_LEVEL2_CACHE_SIZE)));
  EXPECT_EQ(est::cacheBytes(3, none), uint64_t(::sysconf(_SC_LEVEL3_CACHE_SIZE)));
  EXPECT_GT(est::cacheBytes(2, none), 0u);
#endif
}

// Every point is visited once per pass, the passes in the same breadth-first
// order, so a point's visits lie a whole pass apart.
TEST(Calibrate, GridVisitsInterleavedOverPasses) {
  const std::vector<size_t> sizes = {3, 1, 2};
  const auto order = est::gridVisitOrder(sizes, 2, 3);
  const size_t perPass = (3 + 1 + 2) * 2;
  ASSERT_EQ(order.size(), perPass * 3);
  // The first pass: every family's i-th size before any family's (i+1)-th,
  // both thread counts of a point in a row.
  const std::vector<std::pair<size_t, size_t>> first = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}};
  for (size_t k = 0; k < first.size(); ++k)
    for (int T = 1; T <= 2; ++T) {
      const est::GridVisit &v = order[2 * k + size_t(T - 1)];
      EXPECT_EQ(v.family, first[k].first);
      EXPECT_EQ(v.index, first[k].second);
      EXPECT_EQ(v.threads, T);
      EXPECT_EQ(v.pass, 0);
    }
  // Each later pass repeats it, so each point's visits are perPass apart.
  for (size_t k = perPass; k < order.size(); ++k) {
    EXPECT_EQ(order[k].family, order[k - perPass].family);
    EXPECT_EQ(order[k].index, order[k - perPass].index);
    EXPECT_EQ(order[k].threads, order[k - perPass].threads);
    EXPECT_EQ(order[k].pass, int(k / perPass));
  }
  // One pass (a short deadline), one thread: the grid once, breadth first.
  EXPECT_EQ(est::gridVisitOrder(sizes, 1, 1).size(), 6u);
}

// A point's time: the median of its visits, so one visit in a slow spell
// of the host does not move it; two visits count alike.
TEST(Calibrate, VisitsCombinedByTheirMedian) {
  EXPECT_DOUBLE_EQ(est::combineVisits({}), 0);
  EXPECT_DOUBLE_EQ(est::combineVisits({5}), 5);
  EXPECT_DOUBLE_EQ(est::combineVisits({3.9, 6.0, 4.1}), 4.1);
  EXPECT_DOUBLE_EQ(est::combineVisits({6.0, 4.1, 3.9}), 4.1);
  EXPECT_DOUBLE_EQ(est::combineVisits({4, 9}), 6);
  EXPECT_DOUBLE_EQ(est::combineVisits({1, 4, 9, 100}), 6);
}

// Cold runs in every pass, pooled: one slow cold run (a 2-thread run
// without its second core) among a point's runs moves its cold time by no
// more than to a neighbouring run. Three runs, two in the first visit
// (kept at the slower of them) and one in the second, geometric-meaned,
// kept 128x768x768 at 2 threads at 1.33-2.72x its roofline.
TEST(Calibrate, ColdRunsInEveryPassPooled) {
  int total = 0;
  for (int pass = 0; pass < est::kGridPasses; ++pass) {
    EXPECT_GE(est::coldRunsPerVisit(pass, est::kGridPasses), 2) << "pass " << pass;
    total += est::coldRunsPerVisit(pass, est::kGridPasses);
  }
  EXPECT_GE(total, 5);
  EXPECT_EQ(est::coldRunsPerVisit(0, 1), 3);  // a short deadline's one pass
  EXPECT_DOUBLE_EQ(est::pooledColdMs({}, {}), 0);
  // One run of the first visit doubled: the pooled median is a fast run's.
  EXPECT_DOUBLE_EQ(est::pooledColdMs({{0.60, 1.30}, {0.62, 0.64}, {0.61, 0.66}}, {1, 1, 1}), std::sqrt(0.62 * 0.64));
  EXPECT_DOUBLE_EQ(est::pooledColdMs({{0.60, 1.30}, {0.62}}, {1, 1}), 0.62);
  // Each visit's runs scaled as the visit is; a missing scale counts as 1.
  EXPECT_DOUBLE_EQ(est::pooledColdMs({{1.0}, {2.0}, {4.0}}, {3, 1}), 3.0);
  EXPECT_DOUBLE_EQ(est::pooledColdMs({{1.0, 0.0}}, {1}), 1.0);  // no run: 0 is left out
}

// The mobile chain's in-graph term over the rounds of every moment it was
// timed at: one moment at which the chain ran as fast in a graph as alone
// (within its spread: no term) among others at +2 us a node no longer
// zeroes the term, and one moment at +4 us does not double it.
TEST(Calibrate, InGraphTermPooledOverMoments) {
  const int nodes = 35;
  auto moment = [&](double aloneMs, double perNodeUs) {
    std::vector<est::ChainRound> r;
    for (double wobble : {0.99, 1.0, 1.0, 1.01})
      r.push_back({(aloneMs + perNodeUs * 1e-3 * nodes) * wobble, aloneMs});
    return r;
  };
  const std::vector<est::ChainRound> quiet = moment(0.287, 0.27);
  est::InGraphTerm one = est::inGraphNodeUs(quiet, 0, nodes, 0.08);
  EXPECT_TRUE(one.withinSpread);
  std::vector<est::ChainRound> all = quiet;
  for (const auto &r : moment(0.32, 2.0)) all.push_back(r);
  for (const auto &r : moment(0.33, 2.1)) all.push_back(r);
  est::InGraphTerm pooled = est::inGraphNodeUs(all, 0, nodes, 0.08);
  EXPECT_FALSE(pooled.withinSpread);
  EXPECT_NEAR(pooled.perNodeUs, 2.0, 0.25);
  all = moment(0.32, 2.0);
  for (const auto &r : moment(0.33, 2.1)) all.push_back(r);
  for (const auto &r : moment(0.34, 4.0)) all.push_back(r);
  EXPECT_NEAR(est::inGraphNodeUs(all, 0, nodes, 0.08).perNodeUs, 2.1, 0.3);
  // The run overhead is not a node's; no rounds, no term.
  EXPECT_NEAR(est::inGraphNodeUs(moment(0.32, 2.0), 0.035, nodes, 0.08).perNodeUs, 1.0, 0.1);
  EXPECT_TRUE(est::inGraphNodeUs({}, 0, nodes, 0.08).withinSpread);
}

// The peaks and every rate, measured before the grid and again before its
// later passes, keep the median of their moments: a 2-vCPU VM's 2-thread
// L2 copy rate, measured once, ranged 131-399 GB/s across calibrations.
TEST(Calibrate, RatesKeepTheMedianOfTheirMoments) {
  est::RateMoments m;
  m.fma = {209, 407, 411};
  m.dramRead = {33.7, 86.8, 35.4};
  m.l1 = {208, 160, 175};
  m.l2 = {131, 357, 382};
  m.l3 = {81, 163, 150, 170};
  m.bf16 = {0, 780, 790};  // a moment that measured nothing (0) is left out
  est::ThreadProfile t;
  t.vnniGops = 1700;  // not measured at any moment: kept as it was
  est::keepMedianRates(m, &t);
  EXPECT_DOUBLE_EQ(t.peakGflops, 407);
  EXPECT_DOUBLE_EQ(t.dramReadGBs, 35.4);
  EXPECT_DOUBLE_EQ(t.l1GBs, 175);
  EXPECT_DOUBLE_EQ(t.l2GBs, 357);
  EXPECT_DOUBLE_EQ(t.l3GBs, 156.5);
  EXPECT_DOUBLE_EQ(t.bf16Gflops, 785);
  EXPECT_DOUBLE_EQ(t.vnniGops, 1700);
}

// A 2-thread visit timed while the host had taken the second vCPU (the
// speed reference no faster than 1.3x one thread's median) is left out
// where the point has a visit with both cores; with none, all are kept.
TEST(Calibrate, MultiThreadedVisitsWithoutTheirCoresLeftOut) {
  // One thread's reference 0.21 ms: 0.12 had both cores, 0.20 and 0.17 did not.
  EXPECT_EQ(est::visitsWithTheirCores({0.12, 0.20, 0.11}, 0.21), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(est::visitsWithTheirCores({0.20, 0.17, 0.13}, 0.21), (std::vector<size_t>{2}));
  EXPECT_EQ(est::visitsWithTheirCores({0.20, 0.19}, 0.21), (std::vector<size_t>{0, 1}));
  // No reference at a visit, or none at one thread: nothing to tell from.
  EXPECT_EQ(est::visitsWithTheirCores({0.0, 0.12}, 0.21), (std::vector<size_t>{1}));
  EXPECT_EQ(est::visitsWithTheirCores({0.12, 0.2}, 0.0), (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(est::visitsWithTheirCores({}, 0.21).empty());
}

// A 2-thread point none of whose visits had both cores is kept at its
// one-thread time over the speed-up the family's points with their cores
// showed (every family's where the family has fewer than 3), not at the
// one-thread speed it was timed at.
TEST(Calibrate, MultiThreadedPointWithoutItsCoresFromItsFamilysSpeedUp) {
  // Timed 0.95 ms at "2 threads" (one core), 1.0 ms at one thread; the
  // family's points with their cores ran 1.6x, 1.8x and 1.9x faster on two.
  EXPECT_DOUBLE_EQ(est::pointWithoutItsCoresMs(0.95, 1.0, {1.6, 1.9, 1.8}, {1.2, 1.3}), 1.0 / 1.8);
  // Fewer than 3 in the family: every family's median.
  EXPECT_DOUBLE_EQ(est::pointWithoutItsCoresMs(0.95, 1.0, {1.9}, {1.2, 1.5, 1.9}), 1.0 / 1.5);
  // Nothing to scale from: as timed.
  EXPECT_DOUBLE_EQ(est::pointWithoutItsCoresMs(0.95, 0.0, {1.6, 1.9, 1.8}, {1.8}), 0.95);
  EXPECT_DOUBLE_EQ(est::pointWithoutItsCoresMs(0.95, 1.0, {}, {}), 0.95);
}

// Scaling visits by the speed reference is kept only where it removes drift.
TEST(Calibrate, VisitsScaledOnlyWhereTheReferenceTracksTheDrift) {
  // The host 1.5x slower in the second visit: every kernel and the reference alike.
  std::vector<std::vector<std::pair<double, double>>> drifting = {
      {{4.0, 0.2}, {6.0, 0.3}, {4.1, 0.2}}, {{1.0, 0.2}, {1.5, 0.3}, {1.02, 0.2}}, {{0.1, 0.2}, {0.15, 0.3}}};
  est::VisitDrift d = est::visitDrift(drifting, 0.2);
  EXPECT_EQ(d.points, 3);
  EXPECT_TRUE(d.scale);
  EXPECT_LT(d.scaled, 0.5 * d.raw);
  // Kernels that vary on their own while the reference does not follow them.
  std::vector<std::vector<std::pair<double, double>>> noisy = {
      {{4.0, 0.2}, {6.0, 0.2}, {4.1, 0.3}}, {{1.5, 0.3}, {1.0, 0.2}, {1.02, 0.2}}, {{0.15, 0.2}, {0.1, 0.3}}};
  d = est::visitDrift(noisy, 0.2);
  EXPECT_FALSE(d.scale);
  // One visit per point (a cut grid): nothing to tell from.
  d = est::visitDrift({{{4.0, 0.2}}, {{1.0, 0.3}}}, 0.2);
  EXPECT_EQ(d.points, 0);
  EXPECT_FALSE(d.scale);
}

// The visits' budgets keep the grid within the deadline: timed as the grid
// is (each visit its budget plus a fixed cost of evictions, warm-up and
// probe building), a grid of the real one's size at 2 threads stops at the reserve
// (the time kept for the in-graph chains) whatever that fixed cost, every
// point visited once before any point twice. With a fixed cost a
// 30-s calibration cannot carry for every visit, the later passes are cut,
// never the first.
TEST(Calibrate, VisitBudgetsKeepTheDeadline) {
  EXPECT_DOUBLE_EQ(est::visitBudgetSeconds(30, 5, 1, 0), est::kMaxVisitSeconds);
  EXPECT_DOUBLE_EQ(est::visitBudgetSeconds(4, 5, 100, 0), est::kMinVisitSeconds);
  EXPECT_NEAR(est::visitBudgetSeconds(25, 5, 1000, 0), 0.02, 1e-12);
  // Each visit's cost beyond its budget is kept back for every visit to come.
  EXPECT_NEAR(est::visitBudgetSeconds(25, 5, 1000, 0.01), 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(est::visitBudgetSeconds(25, 5, 1000, 0.05), est::kMinVisitSeconds);
  const std::vector<size_t> sizes(30, 8);  // 240 points, as the grid's ~235
  const auto order = est::gridVisitOrder(sizes, 2, est::kGridPasses);
  const double deadline = 30, reserve = 5.3, before = 4;  // peaks, bandwidths and the L3 sweep before the grid
  for (double fixed : {0.001, 0.01, 0.03}) {
    double used = before;
    int lastPass = 0;
    size_t k = 0;
    for (; k < order.size() && deadline - used >= reserve; ++k) {
      used += est::visitBudgetSeconds(deadline - used, reserve, order.size() - k, fixed) + fixed;
      lastPass = order[k].pass;
    }
    // The visit under way when the reserve was reached finishes: at most one visit's overrun.
    EXPECT_LE(used, deadline - reserve + est::kMaxVisitSeconds + fixed) << fixed;
    if (fixed < 0.01) EXPECT_EQ(k, order.size()) << "a light grid is visited in full";
    if (fixed == 0.03) {
      EXPECT_LT(k, order.size());
      EXPECT_GE(k, order.size() / est::kGridPasses) << "the first pass is complete";
      EXPECT_GE(lastPass, 1);
    }
  }
}

TEST(Profile, BadJsonNamesFileAndField) {
  std::string dir = tempDir("est_badprofile");
  auto check = [&](const std::string &text, const std::string &want) {
    std::string path = dir + "/p.json";
    std::ofstream(path) << text;
    DeviceProfile p;
    Status s = est::loadProfile(path, &p);
    ASSERT_FALSE(s.isOk()) << text;
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  };
  check("not json", "not a JSON object");
  check(R"({"format": 1})", "calibrate again");  // an older profile's grid means other parameters
  DeviceProfile good = syntheticProfile();
  ASSERT_TRUE(est::saveProfile(good, dir + "/good.json").isOk());
  std::ifstream in(dir + "/good.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string bad = text;
  bad.replace(bad.find("\"peak_gflops\": 100"), 18, "\"peak_gflops\": -1");
  check(bad, "threads[0].peak_gflops");
  DeviceProfile missing;
  EXPECT_FALSE(est::loadProfile(dir + "/absent.json", &missing).isOk());
}

// A grid point's bytes and operations survive saving and loading (0 and
// absent in older profiles).
TEST(Profile, GridPointBytesAndFlopsRoundTrip) {
  DeviceProfile p = syntheticProfile();
  est::GridPoint &pt = p.threads[0].families["unary"].points[0];
  pt.bytes = 131072;
  pt.flops = 16384;
  const std::string path = tempDir("est_point_bytes") + "/p.json";
  ASSERT_TRUE(est::saveProfile(p, path).isOk());
  DeviceProfile back;
  ASSERT_TRUE(est::loadProfile(path, &back).isOk());
  EXPECT_DOUBLE_EQ(back.threads[0].families["unary"].points[0].bytes, 131072);
  EXPECT_DOUBLE_EQ(back.threads[0].families["unary"].points[0].flops, 16384);
  EXPECT_DOUBLE_EQ(back.threads[0].families["binary"].points[0].bytes, 0);
}

TEST(Profile, RunResultsFoldIn) {
  DeviceProfile p = syntheticProfile();
  std::string dir = tempDir("est_add");
  std::string art = writeArtifact("est_add_art", addReluGraph());
  std::string run = dir + "/run.json";
  std::ofstream(run) << R"({"artifact": ")" << art
                     << R"(", "threads": 1, "profile": {"nodes": [{"index": 0, "op": "add", "ms": 0.004},)"
                     << R"( {"index": 1, "op": "relu", "ms": 0.003}]}})";
  int added = 0;
  Status s = est::addRunResult(run, &p, &added);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(added, 2);
  const est::FamilyGrid &g = p.threads[0].families["binary"];
  ASSERT_EQ(g.points.size(), 2u);
  EXPECT_TRUE(g.points[1].warm);
  // The estimate now follows the measured node: 0.004 ms at its own parameters.
  Estimate e;
  ASSERT_TRUE(est::estimateArtifact(art, p, {}, &e).isOk());
  EXPECT_NEAR(e.nodes[0].ms, 0.004, 1e-9);
  std::ofstream(run) << R"({"artifact": ")" << art
                     << R"(", "threads": 1, "profile": {"nodes": [{"index": 0, "op": "conv2d", "ms": 1}]}})";
  s = est::addRunResult(run, &p, &added);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("different artifact"), std::string::npos) << s.message();
}

// Calibrations taken at different host speeds: per grid point the median
// of its times (not of its ratios, each over its own calibration's peak),
// restated over the merged peaks; the scalars their medians.
TEST(Profile, MergeTakesEachPointsMedianTime) {
  auto calibration = [](double peak, double ratio, double hotRatio, double referenceMs, double graphNodeUs) {
    DeviceProfile p = syntheticProfile();
    est::ThreadProfile &t = p.threads[0];
    t.peakGflops = peak;
    t.speedReferenceMs = referenceMs;
    t.graphNodeUs = graphNodeUs;
    est::GridPoint &g = t.families["gemm"].points[0];
    g.flops = 1e6;  // 0.01 ms at 100 GFLOP/s; no bytes: compute-bound at every peak
    g.ratio = ratio;
    g.hotRatio = hotRatio;
    return p;
  };
  // The point's times: 2 x 0.01 + 0.001 = 0.021 ms, 1.5 x 0.02 + 0.001 = 0.031, 6 x 0.005 + 0.001 = 0.031.
  std::vector<DeviceProfile> in = {calibration(100, 2, 1, 0.30, -4), calibration(50, 1.5, 1, 0.30, 0),
                                   calibration(200, 6, 4, 0.30, 2)};
  in[1].threads[0].families["unary"].points[0].ratio = 3;  // no bytes or flops: its ratios' median
  in[2].threads[0].families["unary"].points[0].ratio = 5;
  for (DeviceProfile &q : in) {  // two points of the same parameters (two kernels of one family) stay two
    est::GridPoint twin = q.threads[0].families["unary"].points[0];
    twin.ratio = 7;
    q.threads[0].families["unary"].points.push_back(twin);
  }
  est::GridPoint extra;  // measured by one calibration only: its time kept, over the merged roofline
  extra.params.assign(in[2].threads[0].families["gemm"].points[0].params.size(), 512.0);
  extra.flops = 1e8;
  extra.ratio = 1.2;
  in[2].threads[0].families["gemm"].points.push_back(extra);
  DeviceProfile m;
  Status s = est::mergeProfiles(in, {"a.json", "b.json", "c.json"}, &m);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(m.calibrations, 3);
  ASSERT_EQ(m.threads.size(), 1u);
  const est::ThreadProfile &t = m.threads[0];
  EXPECT_DOUBLE_EQ(t.peakGflops, 100);
  EXPECT_DOUBLE_EQ(t.speedReferenceMs, 0.30);
  EXPECT_DOUBLE_EQ(t.graphNodeUs, 0);  // -4, 0, 2: a zero term counts
  const est::FamilyGrid &gemm = t.families.at("gemm");
  ASSERT_EQ(gemm.points.size(), 2u);
  // The median time 0.031 ms over the merged roofline 0.01: 3, where the ratios' median is 2.
  EXPECT_NEAR(gemm.points[0].ratio, 3, 1e-9);
  // Hot: 0.011, 0.021, 0.021 ms -> 2.
  EXPECT_NEAR(gemm.points[0].hotRatio, 2, 1e-9);
  EXPECT_NEAR(gemm.points[1].ratio, 0.6, 1e-9);  // 1.2 x 0.5 ms at 200 GFLOP/s over 1 ms at 100
  EXPECT_DOUBLE_EQ(gemm.points[1].params[0], 512);
  ASSERT_EQ(t.families.at("unary").points.size(), 2u);
  EXPECT_DOUBLE_EQ(t.families.at("unary").points[0].ratio, 3);  // 2, 3, 5
  EXPECT_DOUBLE_EQ(t.families.at("unary").points[1].ratio, 7);
  // Two calibrations: the middle two's mean.
  DeviceProfile two;
  ASSERT_TRUE(est::mergeProfiles({in[0], in[2]}, {}, &two).isOk());
  EXPECT_DOUBLE_EQ(two.threads[0].peakGflops, 150);
  EXPECT_NEAR(two.threads[0].families.at("gemm").points[0].ratio, (0.026 - 0.001) / (1e6 / 150e6), 1e-9);
  // The count and the speed reference survive saving; a merged profile merges again.
  const std::string path = tempDir("est_merge") + "/m.json";
  ASSERT_TRUE(est::saveProfile(m, path).isOk());
  DeviceProfile back;
  ASSERT_TRUE(est::loadProfile(path, &back).isOk());
  EXPECT_EQ(back.calibrations, 3);
  EXPECT_DOUBLE_EQ(back.threads[0].speedReferenceMs, 0.30);
  DeviceProfile again;
  ASSERT_TRUE(est::mergeProfiles({back, in[0]}, {}, &again).isOk());
  EXPECT_EQ(again.calibrations, 4);
  // Calibrations at different host speeds (speed references 0.30, 0.36 and
  // 0.20 ms): with restateSpeed each one's times restated to the median
  // speed, 0.30, first: 0.021, 0.031 x 0.30 / 0.36 = 0.02583 and 0.031 x 1.5
  // = 0.0465 ms; without, as measured.
  in[1].threads[0].speedReferenceMs = 0.36;
  in[2].threads[0].speedReferenceMs = 0.20;
  DeviceProfile restated, asMeasured;
  ASSERT_TRUE(est::mergeProfiles(in, {}, &restated, true).isOk());
  ASSERT_TRUE(est::mergeProfiles(in, {}, &asMeasured).isOk());
  EXPECT_NEAR(asMeasured.threads[0].families.at("gemm").points[0].ratio, 3, 1e-9);
  EXPECT_DOUBLE_EQ(restated.threads[0].speedReferenceMs, 0.30);
  EXPECT_NEAR(restated.threads[0].families.at("gemm").points[0].ratio, (0.031 * 0.30 / 0.36 - 0.001) / 0.01, 1e-9);
  // One calibration without a speed reference (an older profile): the times as measured.
  in[2].threads[0].speedReferenceMs = 0;
  DeviceProfile plain;
  ASSERT_TRUE(est::mergeProfiles(in, {}, &plain, true).isOk());
  EXPECT_NEAR(plain.threads[0].families.at("gemm").points[0].ratio, 3, 1e-9);
}

// Profiles of another machine, build or thread count are not merged; the
// message names the file and what differs.
TEST(Profile, MergeRefusesAnotherMachine) {
  const DeviceProfile a = syntheticProfile();
  auto refused = [&](const DeviceProfile &b, const std::string &want) {
    DeviceProfile m;
    Status s = est::mergeProfiles({a, b}, {"a.json", "b.json"}, &m);
    ASSERT_FALSE(s.isOk()) << want;
    EXPECT_NE(s.message().find("b.json"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  };
  DeviceProfile b = a;
  b.cpuModel = "another";
  refused(b, "CPU model");
  b = a;
  b.isa = "x86-64-v4";
  refused(b, "ISA");
  b = a;
  b.libraryVersion = "1";
  refused(b, "library version");
  refused(syntheticTwoThreadProfile(), "thread counts");
  DeviceProfile m;
  EXPECT_FALSE(est::mergeProfiles({}, {}, &m).isOk());
}

// The C API's three forms over a saved profile, and its errors.
TEST(EstimateCApi, ReportTierAndMeets) {
  std::string dir = tempDir("est_capi");
  std::string profile = dir + "/profile.json";
  ASSERT_TRUE(est::saveProfile(syntheticProfile(), profile).isOk());
  std::string art = writeArtifact("est_capi_art", addReluGraph(), /*weightless=*/true);
  webnn_estimate_options o;
  webnn_estimate_options_init(&o);
  o.profile_path = profile.c_str();
  webnn_estimate_report r{};
  ASSERT_EQ(webnn_estimate(art.c_str(), &o, &r), WEBNN_OK) << webnn_last_error();
  EXPECT_GT(r.median_ms, 0);
  EXPECT_LE(r.p10_ms, r.median_ms);
  EXPECT_GE(r.p90_ms, r.median_ms);
  EXPECT_STREQ(r.tier, "excellent");
  const char *tier = nullptr;
  ASSERT_EQ(webnn_estimate_tier(art.c_str(), &o, &tier), WEBNN_OK);
  EXPECT_STREQ(tier, "excellent");
  int meets = -1;
  ASSERT_EQ(webnn_estimate_meets(art.c_str(), &o, "excellent", &meets), WEBNN_OK);
  EXPECT_EQ(meets, 1);
  EXPECT_EQ(webnn_estimate_meets(art.c_str(), &o, "speedy", &meets), WEBNN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(webnn_last_error()).find("not a tier"), std::string::npos);
  EXPECT_EQ(webnn_estimate((dir + "/absent.wnn").c_str(), &o, &r), WEBNN_IO_ERROR);
  EXPECT_NE(std::string(webnn_last_error()).find("absent.wnn"), std::string::npos) << webnn_last_error();
  o.threads = 0;
  EXPECT_EQ(webnn_estimate(art.c_str(), &o, &r), WEBNN_INVALID_ARGUMENT);
  EXPECT_EQ(webnn_estimate(nullptr, &o, &r), WEBNN_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace webnn::test
