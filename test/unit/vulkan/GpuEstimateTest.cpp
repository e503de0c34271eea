// The GPU estimate (estimate/GpuEstimate.h) on a synthetic GPU profile: the
// arithmetic of a dispatch's price, the run's fixed costs, cold start and
// device memory; the profile's JSON round trip and its refusals; the C API's
// device option. No device: an estimate needs the profile alone.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "TestArtifact.h"
#include "estimate/GpuEstimate.h"
#include "estimate/GpuProfile.h"
#include "webnn/webnn_c.h"

namespace webnn::test {
namespace {

est::GpuProfile syntheticGpuProfile() {
  est::GpuProfile p;
  p.device.name = "synthetic";
  p.device.type = "discrete";
  p.device.maxStorageBufferRange = uint64_t(1) << 30;
  p.device.minStorageBufferOffsetAlignment = 256;
  p.device.maxSharedMemory = 49152;
  p.device.maxWorkGroupInvocations = 1024;
  p.device.maxWorkGroupCount[0] = p.device.maxWorkGroupCount[1] = p.device.maxWorkGroupCount[2] = 65535;
  p.device.maxPushConstantsSize = 128;
  p.device.subgroupSize = 32;
  p.libraryVersion = "test";
  p.dispatchUs = 10;
  p.submitUs = 100;
  p.transferGBs = 1;
  p.bandwidthGBs = 1;
  p.peakGflops = 1;
  p.uploadGBs = 1;
  p.pipelineMs = 5;
  p.shaderPipelineMs["unary"] = 7;
  p.complete = true;
  return p;
}

std::string writeArtifact(const std::string &tag, const TGraph &g, bool weightless) {
  std::string dir = tempDir(tag);
  writeFile(dir + "/model.wnn", buildArtifact(g, weightless).artifact);
  return dir + "/model.wnn";
}

TEST(GpuEstimate, PricesEachDispatchOnItsFamily) {
  // Node by node: add and relu not fused into one chain dispatch.
  ::setenv("WEBNN_VULKAN_CHAIN_FUSION", "0", 1);
  est::GpuProfile p = syntheticGpuProfile();
  std::string art = writeArtifact("gpu_est_addrelu", addReluGraph(), /*weightless=*/true);
  est::Estimate e;
  Status s = est::estimateArtifactGpu(art, p, {}, &e);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(e.nodes.size(), 2u);
  EXPECT_EQ(e.nodes[0].family, "binary");
  EXPECT_EQ(e.nodes[1].family, "unary");
  // No grid point: every family is priced at its roofline, said in notes.
  double sum = 0;
  for (const est::NodeEstimate &n : e.nodes) {
    EXPECT_GT(n.bytes, 0);
    EXPECT_NEAR(n.rooflineMs, std::max(n.flops / 1e6, n.bytes / 1e6), 1e-12);
    EXPECT_NEAR(n.ms, 0.010 + n.rooflineMs, 1e-12);
    sum += n.ms;
  }
  EXPECT_FALSE(e.notes.empty());
  // The run: one submit (0.1 ms) and the input and output through staging
  // (24 bytes each at 1 GB/s).
  EXPECT_NEAR(e.medianMs, sum + 0.1 + 48 / 1e6, 1e-9);
  EXPECT_LE(e.p10Ms, e.medianMs);
  EXPECT_GE(e.p90Ms, e.medianMs);
  EXPECT_EQ(e.tier, est::tierOf(e.medianMs));
  // Cold: two pipelines (binary at the mean 5 ms, unary at its own 7 ms) and
  // the constant buffer uploaded.
  EXPECT_NEAR(e.coldMs, e.medianMs + 12 + double(e.weightsBytes) / 1e6, 1e-9);
  EXPECT_GE(e.weightsBytes, 24u);
  EXPECT_EQ(e.peakBytes % 256, 0u);
  EXPECT_GT(e.peakBytes, e.arenaBytes + e.weightsBytes);

  // A grid point twice its roofline doubles that part of the node.
  est::GridPoint gp;
  gp.params = {64};
  gp.ratio = 2;
  p.families["binary"].points.push_back(gp);
  est::Estimate e2;
  ASSERT_TRUE(est::estimateArtifactGpu(art, p, {}, &e2).isOk());
  EXPECT_NEAR(e2.nodes[0].ms, 0.010 + 2 * e2.nodes[0].rooflineMs, 1e-12);
  // The unary family borrows binary's grid (Estimate notes say so).
  EXPECT_NEAR(e2.nodes[1].ms, 0.010 + 2 * e2.nodes[1].rooflineMs, 1e-12);
  bool borrowed = false;
  for (const std::string &n : e2.notes) borrowed |= n.find("unary (as binary)") != std::string::npos;
  EXPECT_TRUE(borrowed);
  ::unsetenv("WEBNN_VULKAN_CHAIN_FUSION");
}

// A relaxed-precision matmul on a device with cooperative matrices plans
// matmul_coopmat.comp, priced on its own grid (calibration measures it
// there), borrowing matmul's where the profile has none; exact artifacts
// and devices without them keep matmul.comp.
TEST(GpuEstimate, CoopmatMatmulsPriceOnTheirOwnGrid) {
  TGraph g;
  g.name = "relaxed_matmul";
  g.tensors = {{"a", DataType::kFloat32, {256, 512}},
               {"b", DataType::kFloat32, {512, 256}},
               {"y", DataType::kFloat32, {256, 256}}};
  g.constants = {{1, std::vector<uint8_t>(512 * 256 * 4, 0), "b"}};
  g.nodes = {{"matmul", {0, 1}, {2}, "mm"}};
  g.inputs = {0};
  g.outputs = {2};
  g.precision = 1;
  const std::string relaxed = writeArtifact("gpu_est_coopmat", g, true);
  g.precision = 0;
  const std::string exact = writeArtifact("gpu_est_exact", g, true);

  est::GpuProfile p = syntheticGpuProfile();
  est::GridPoint mm;
  mm.params = {256, 512, 256};
  mm.ratio = 4;
  p.families["matmul"].points.push_back(mm);
  auto family = [&](const std::string &art, est::Estimate *e) {
    Status s = est::estimateArtifactGpu(art, p, {}, e);
    EXPECT_TRUE(s.isOk()) << s.message();
    return e->nodes.empty() ? std::string() : e->nodes[0].family;
  };
  est::Estimate e;
  EXPECT_EQ(family(relaxed, &e), "matmul");  // no cooperative matrices
  p.device.coopmat = true;
  EXPECT_EQ(family(exact, &e), "matmul");
  EXPECT_EQ(family(relaxed, &e), "matmul.coopmat");
  bool borrowed = false;
  for (const std::string &n : e.notes) borrowed |= n.find("matmul.coopmat (as matmul)") != std::string::npos;
  EXPECT_TRUE(borrowed);
  EXPECT_NEAR(e.nodes[0].ms, 0.010 + 4 * e.nodes[0].rooflineMs, 1e-9);
  // Its own points, four times faster than matmul.comp's.
  est::GridPoint cm = mm;
  cm.ratio = 1;
  p.families["matmul.coopmat"].points.push_back(cm);
  EXPECT_EQ(family(relaxed, &e), "matmul.coopmat");
  EXPECT_NEAR(e.nodes[0].ms, 0.010 + e.nodes[0].rooflineMs, 1e-9);
  // The device's cooperative matrices travel in the profile.
  const std::string path = tempDir("gpu_est_coopmat_profile") + "/p.json";
  ASSERT_TRUE(est::saveGpuProfile(p, path).isOk());
  est::GpuProfile q;
  ASSERT_TRUE(est::loadGpuProfile(path, &q).isOk());
  EXPECT_TRUE(q.device.coopmat);
}

// A grid point that is mostly its dispatch cost (its ratio the difference
// of two near-equal times) is not counted in its family's error.
TEST(GpuEstimate, MostlyDispatchPointsLeaveTheSigmaAlone) {
  est::GpuProfile p = syntheticGpuProfile();  // dispatch 10 us
  auto point = [](double elements, double ratio, double ms) {
    est::GridPoint g;
    g.params = {elements};
    g.ratio = ratio;
    g.ms = ms;
    return g;
  };
  auto &pts = p.families["binary"].points;
  pts = {point(1 << 18, 0.6, 0.020), point(1 << 20, 0.62, 0.060), point(1 << 22, 0.65, 0.200)};
  est::updateGpuSigmas(&p);
  const double clean = p.families["binary"].logSigma;
  EXPECT_LT(clean, 0.1);
  pts.push_back(point(4096, 1e-3, 0.011));  // 11 us: the 10 us dispatch and noise
  est::updateGpuSigmas(&p);
  EXPECT_LT(p.families["binary"].logSigma, 1.0);
  // Measured well above the dispatch, the same point counts.
  pts.back().ms = 0.050;
  est::updateGpuSigmas(&p);
  EXPECT_GT(p.families["binary"].logSigma, 2.0);
}

TEST(GpuEstimate, RefusesWhatTheGpuProgramRefuses) {
  est::GpuProfile p = syntheticGpuProfile();
  std::string art = writeArtifact("gpu_est_dyn", dynamicReluGraph(), true);
  est::Estimate e;
  Status s = est::estimateArtifactGpu(art, p, {}, &e);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("dynamic dimensions"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("model.wnn"), std::string::npos) << s.message();
}

// A graph claiming 64 TB tensors: refused from the shapes alone (no tensor
// allocated, no dispatch per binding-sized slice planned), at once.
TEST(GpuEstimate, HostileShapesAreRefusedWithoutPlanning) {
  TGraph g;
  g.name = "hostile";
  const int64_t n = int64_t(1) << 22;
  g.tensors = {{"x", DataType::kFloat32, {n, n}}, {"y", DataType::kFloat32, {n, n}}};
  g.nodes = {{"relu", {0}, {1}, "r"}};
  g.inputs = {0};
  g.outputs = {1};
  std::string art = writeArtifact("gpu_est_hostile", g, true);
  est::GpuProfile p = syntheticGpuProfile();
  p.device.deviceLocalBytes = uint64_t(16) << 30;
  auto t0 = std::chrono::steady_clock::now();
  est::Estimate e;
  Status s = est::estimateArtifactGpu(art, p, {}, &e);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("tensor 'x'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("device-local heap"), std::string::npos) << s.message();
}

TEST(GpuEstimate, ProfileRoundTripAndRefusals) {
  est::GpuProfile p = syntheticGpuProfile();
  est::GpuProbe probe;
  probe.name = "matmul square";
  probe.family = "matmul";
  probe.stop = "plateau";
  probe.steps = 5;
  probe.bestParams = {1024, 2048, 2048};
  probe.seconds = 0.75;
  p.probes.push_back(probe);
  est::GridPoint gp;
  gp.params = {16, 64, 64};
  gp.ratio = 1.5;
  gp.ms = 0.25;
  p.families["matmul"].points.push_back(gp);
  std::string dir = tempDir("gpu_profile");
  std::string path = dir + "/p.json";
  ASSERT_TRUE(est::saveGpuProfile(p, path).isOk());
  est::GpuProfile q;
  Status s = est::loadGpuProfile(path, &q);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(q.device.name, "synthetic");
  EXPECT_EQ(q.device.maxWorkGroupCount[2], 65535u);
  EXPECT_EQ(q.device.minStorageBufferOffsetAlignment, 256u);
  EXPECT_DOUBLE_EQ(q.submitUs, 100);
  EXPECT_DOUBLE_EQ(q.shaderPipelineMs["unary"], 7);
  ASSERT_EQ(q.families["matmul"].points.size(), 1u);
  EXPECT_DOUBLE_EQ(q.families["matmul"].points[0].ratio, 1.5);
  ASSERT_EQ(q.probes.size(), 1u);
  EXPECT_EQ(q.probes[0].name, "matmul square");
  EXPECT_EQ(q.probes[0].stop, "plateau");
  EXPECT_EQ(q.probes[0].steps, 5);
  EXPECT_EQ(q.probes[0].bestParams, (std::vector<double>{1024, 2048, 2048}));
  EXPECT_EQ(est::defaultGpuProfilePath(p.device).find("/gpu-"), est::defaultGpuProfilePath(p.device).rfind("/"));

  auto refused = [&](const std::string &json, const std::string &want) {
    std::string bad = dir + "/bad.json";
    std::ofstream(bad) << json;
    est::GpuProfile r;
    Status st = est::loadGpuProfile(bad, &r);
    EXPECT_FALSE(st.isOk()) << json;
    EXPECT_NE(st.message().find(want), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("bad.json"), std::string::npos) << st.message();
  };
  refused("[1, 2]", "not a JSON object");
  refused(R"({"format": 2, "cpu_model": "x"})", "not a GPU profile");
  refused(R"({"kind": "gpu", "format": 9})", "format");
  std::ifstream in(path);
  std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A profile of the first format (fixed, small probes): refused, saying
  // why and what to run.
  std::string old = good;
  old.replace(old.find("\"format\": 4"), 11, "\"format\": 1");
  refused(old, "format: 1");
  refused(old, "webnn-run calibrate --device gpu again");
  old.replace(old.find("\"format\": 1"), 11, "\"format\": 3");
  refused(old, "format: 3");
  std::string badProbe = good;
  badProbe.replace(badProbe.find("\"steps\": 5"), 10, "\"steps\": \"x\"");
  refused(badProbe, "probes[0].steps");
  std::string noPeak = good;
  noPeak.replace(noPeak.find("\"peak_gflops\""), 13, "\"peak_gflopz\"");
  refused(noPeak, "peak_gflops");
  std::string badRatio = good;
  badRatio.replace(badRatio.find("\"ratio\": 1.5"), 12, "\"ratio\": -1.5");
  refused(badRatio, "ratio");
}

TEST(GpuEstimate, CApiDeviceOption) {
  est::GpuProfile p = syntheticGpuProfile();
  std::string profile = tempDir("gpu_capi") + "/gpu.json";
  ASSERT_TRUE(est::saveGpuProfile(p, profile).isOk());
  std::string art = writeArtifact("gpu_capi_art", addReluGraph(), true);
  webnn_estimate_options o;
  webnn_estimate_options_init(&o);
  EXPECT_EQ(o.device, nullptr);
  o.profile_path = profile.c_str();
  o.device = "gpu";
  webnn_estimate_report r{};
  ASSERT_EQ(webnn_estimate(art.c_str(), &o, &r), WEBNN_OK) << webnn_last_error();
  est::Estimate e;
  ASSERT_TRUE(est::estimateArtifactGpu(art, p, {}, &e).isOk());
  EXPECT_DOUBLE_EQ(r.median_ms, e.medianMs);
  EXPECT_DOUBLE_EQ(r.cold_ms, e.coldMs);
  EXPECT_EQ(r.peak_bytes, e.peakBytes);
  EXPECT_STREQ(r.tier, "excellent");
  int meets = -1;
  ASSERT_EQ(webnn_estimate_meets(art.c_str(), &o, "excellent", &meets), WEBNN_OK);
  EXPECT_EQ(meets, 1);
  // The GPU profile is not a CPU one, and the reverse.
  o.device = "cpu";
  EXPECT_NE(webnn_estimate(art.c_str(), &o, &r), WEBNN_OK);
  o.device = "npu";
  EXPECT_EQ(webnn_estimate(art.c_str(), &o, &r), WEBNN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(webnn_last_error()).find("npu"), std::string::npos);
  // A caller built before `device` existed: a shorter struct is the CPU.
  o.device = "gpu";
  o.struct_size = offsetof(webnn_estimate_options, device);
  EXPECT_NE(webnn_estimate(art.c_str(), &o, &r), WEBNN_OK);  // the GPU profile read as a CPU one
  EXPECT_NE(std::string(webnn_last_error()).find("format"), std::string::npos) << webnn_last_error();
}

}  // namespace
}  // namespace webnn::test
