// `webnn-run calibrate --device gpu`: the GPU profile (GpuProfile.h),
// measured through the Vulkan backend's own kernels and programs: each grid
// point is a real kernel (its factory, shaders and recording), timed as a
// program holding the node once and a program holding it 1 + R times, so
// the difference is R dispatches with their barriers and nothing else (the
// submit, the wait and the staging copies cancel). The bandwidth and peak
// probes and each family's probes grow until the device is full
// (GpuLadder.h): nothing here knows how large the device is.
#include "estimate/GpuEstimate.h"
#include "estimate/GpuLadder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <set>

#include "webnn/runtime.h"

#if defined(WEBNN_HAVE_VULKAN_BACKEND)
#include "backends/vulkan/ChainFusion.h"
#include "backends/vulkan/VulkanCost.h"
#include "backends/vulkan/VulkanDevice.h"
#include "backends/vulkan/VulkanProgram.h"
#include "estimate/GpuDeviceLimits.h"
#endif

namespace webnn::est {

#if !defined(WEBNN_HAVE_VULKAN_BACKEND)

Status calibrateGpu(const GpuCalibrateOptions &, GpuProfile *) {
  return unsupported("this build has no GPU (Vulkan) backend: calibrate --device cpu only");
}
std::vector<std::string> gpuGridFamilies() { return {}; }

#else

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct CalTensor {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  bool constant = false;
  std::vector<uint8_t> bytes;
};

// One calibration node: its op, options, operands.
struct Case {
  std::string op;
  // Elementwise steps fused into one chain dispatch (ChainFusion.h): each
  // unary step takes the running value, each binary one the running value
  // and the case's input 0. `op` is then "chain".
  std::vector<std::string> chain;
  rt::NodeAttributes attrs;
  // A relaxed-precision node (matmul_coopmat.comp where the device has
  // cooperative matrices).
  bool relaxed = false;
  std::vector<CalTensor> inputs;
  std::vector<std::pair<DataType, Shape>> outputs;
};

// The tensor's bytes are filled by fill(), once a ladder has accepted the
// case's size.
CalTensor tensor(Shape s, DataType t = DataType::kFloat32, bool constant = false) {
  CalTensor c;
  c.dtype = t;
  c.shape = std::move(s);
  c.constant = constant;
  return c;
}

void fill(CalTensor &c) {
  uint64_t bytes = 0;
  tensorByteSize(c.dtype, c.shape, &bytes);
  if (c.bytes.size() == bytes) return;
  c.bytes.assign(bytes, 0x11);
  // Small ordinary floats: no denormals or NaNs to slow a CPU device.
  if (c.dtype == DataType::kFloat32) {
    const float v = 0.25f;
    for (uint64_t i = 0; i + 4 <= bytes; i += 4) std::memcpy(c.bytes.data() + i, &v, 4);
  }
}

rt::AttributeValue ints(std::vector<int64_t> v) {
  rt::AttributeValue a;
  a.kind = rt::AttributeValue::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
rt::AttributeValue intValue(int64_t v) {
  rt::AttributeValue a;
  a.kind = rt::AttributeValue::Kind::kInt;
  a.i = v;
  return a;
}
rt::AttributeValue str(std::string v) {
  rt::AttributeValue a;
  a.kind = rt::AttributeValue::Kind::kString;
  a.s = std::move(v);
  return a;
}

Case elementwise(const std::string &op, int64_t n, int inputs) {
  Case c;
  c.op = op;
  for (int i = 0; i < inputs; ++i) c.inputs.push_back(tensor({n}));
  c.outputs.push_back({DataType::kFloat32, {n}});
  return c;
}

Case chain(std::vector<std::string> steps, int64_t n) {
  Case c;
  c.op = "chain";
  c.chain = std::move(steps);
  c.inputs.push_back(tensor({n}));
  c.outputs.push_back({DataType::kFloat32, {n}});
  return c;
}

Case matmul(int64_t M, int64_t K, int64_t N) {
  Case c;
  c.op = "matmul";
  c.inputs = {tensor({M, K}), tensor({K, N}, DataType::kFloat32, true)};
  c.outputs.push_back({DataType::kFloat32, {M, N}});
  return c;
}

// NHWC convolution with an OHWI filter, as webnnc's default pipeline emits.
Case conv(int64_t hw, int64_t C, int64_t O, int64_t k, int64_t stride, int64_t groups, int64_t batch = 1) {
  Case c;
  c.op = "conv2d";
  int64_t pad = k / 2, out = (hw + 2 * pad - k) / stride + 1;
  c.attrs.set("inputLayout", str("nhwc"));
  c.attrs.set("filterLayout", str("ohwi"));
  c.attrs.set("padding", ints({pad, pad, pad, pad}));
  c.attrs.set("strides", ints({stride, stride}));
  c.attrs.set("groups", intValue(groups));
  c.inputs = {tensor({batch, hw, hw, C}), tensor({O, k, k, C / groups}, DataType::kFloat32, true),
              tensor({O}, DataType::kFloat32, true)};
  c.outputs.push_back({DataType::kFloat32, {batch, out, out, O}});
  return c;
}

Case pool(const std::string &op, int64_t hw, int64_t C, int64_t window, int64_t stride, int64_t batch = 1) {
  Case c;
  c.op = op;
  int64_t out = (hw - window) / stride + 1;
  c.attrs.set("layout", str("nhwc"));
  c.attrs.set("windowDimensions", ints({window, window}));
  c.attrs.set("strides", ints({stride, stride}));
  c.inputs = {tensor({batch, hw, hw, C})};
  c.outputs.push_back({DataType::kFloat32, {batch, out, out, C}});
  return c;
}

Case rows(const std::string &op, int64_t r, int64_t len) {
  Case c;
  c.op = op;
  c.inputs = {tensor({r, len})};
  if (op == "reduceMean") {
    c.attrs.set("axes", ints({1}));
    c.outputs.push_back({DataType::kFloat32, {r}});
    return c;
  }
  if (op == "layerNormalization") c.attrs.set("axes", ints({1}));
  if (op == "rmsNormalization") c.inputs.push_back(tensor({len}, DataType::kFloat32, true));
  c.outputs.push_back({DataType::kFloat32, {r, len}});
  return c;
}

Case attention(int64_t S, int64_t T, int64_t heads, int64_t D) {
  Case c;
  c.op = "fusedAttention";
  c.attrs.set("heads", intValue(heads));
  c.inputs = {tensor({1, S, heads * D}), tensor({1, T, heads * D}), tensor({1, T, heads * D})};
  c.outputs.push_back({DataType::kFloat32, {1, S, heads * D}});
  return c;
}

Case matmulNBits(int64_t M, int64_t K, int64_t N) {
  Case c;
  c.op = "matmulNBits";
  const int64_t block = 32, blocks = K / block;
  c.attrs.set("K", intValue(K));
  c.attrs.set("N", intValue(N));
  c.attrs.set("bits", intValue(4));
  c.attrs.set("blockSize", intValue(block));
  c.inputs = {tensor({M, K}), tensor({N, blocks, block / 2}, DataType::kUint8, true),
              tensor({N * blocks}, DataType::kFloat32, true)};
  c.outputs.push_back({DataType::kFloat32, {M, N}});
  return c;
}

struct Measured {
  std::string family, shader;
  std::vector<double> params;
  double flops = 0, bytes = 0;
  double dispatchMs = 0;  // the node: its dispatches with their barriers
  double dispatches = 1;
  bool valid = true;  // the repeats took measurably longer than one run
  double programMs = 0;   // the one-node program's run: submit, transfers, dispatch
  double uploadMs = 0;
  uint64_t constantBytes = 0;
  double spread = 0;
  double pipelineMs = 0;  // pipelines this measurement created (once per shader variant)
};

// A case as the whole-graph program would hold it (a chain's steps fused
// into one node), and the work its kernel plans: what calibration times and
// what its grid point is keyed by. Needs no device.
struct CaseGraph {
  std::vector<vk::ProgramTensor> tensors;
  std::vector<rt::OperandDesc> operands, stepOperands;
  rt::NodeDesc node;
  std::vector<rt::NodeDesc> stepNodes;
  vk::FusedChains fused;
  vk::ProgramNode pn;
  vk::DispatchWork work;
  size_t dispatches = 1;

  CaseGraph() = default;
  CaseGraph(const CaseGraph &) = delete;
  CaseGraph &operator=(const CaseGraph &) = delete;

  Status make(Case &c, const vk::DeviceInfo &info) {
    for (CalTensor &t : c.inputs) fill(t);
    operands.resize(c.inputs.size() + c.outputs.size());
    node.op = c.op;
    node.name = "calibrate";
    node.attributes = c.attrs;
    node.relaxedPrecision = c.relaxed;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const CalTensor &t = c.inputs[i];
      operands[i] = {t.dtype, t.shape, t.constant ? t.bytes.data() : nullptr};
      node.inputs.push_back(&operands[i]);
      vk::ProgramTensor pt;
      pt.dtype = t.dtype;
      pt.shape = t.shape;
      pt.role = t.constant ? vk::ProgramTensor::Role::kConstant : vk::ProgramTensor::Role::kInput;
      pt.constantData = t.constant ? t.bytes.data() : nullptr;
      pn.inputs.push_back(int32_t(tensors.size()));
      tensors.push_back(pt);
    }
    for (size_t i = 0; i < c.outputs.size(); ++i) {
      rt::OperandDesc &od = operands[c.inputs.size() + i];
      od = {c.outputs[i].first, c.outputs[i].second, nullptr};
      node.outputs.push_back(&od);
      vk::ProgramTensor pt;
      pt.dtype = od.dtype;
      pt.shape = od.shape;
      pt.role = vk::ProgramTensor::Role::kOutput;
      pn.outputs.push_back(int32_t(tensors.size()));
      tensors.push_back(pt);
    }
    pn.desc = &node;
    // A chain case: its steps as nodes over intermediates, fused as the
    // whole-graph program fuses them.
    if (!c.chain.empty()) {
      const size_t n = c.chain.size();
      stepOperands.reserve(n);
      stepNodes.reserve(n);
      std::vector<vk::ProgramNode> steps;
      const rt::OperandDesc *x = node.inputs[0], *cur = x;
      int32_t curTensor = pn.inputs[0];
      for (size_t k = 0; k < n; ++k) {
        static const std::set<std::string> binary = {"add", "sub", "mul", "div", "max", "min"};
        rt::NodeDesc step;
        step.op = c.chain[k];
        step.name = "calibrate chain";
        vk::ProgramNode sp;
        step.inputs = {cur};
        sp.inputs = {curTensor};
        if (binary.count(step.op)) {
          step.inputs.push_back(x);
          sp.inputs.push_back(pn.inputs[0]);
        }
        if (k + 1 == n) {
          step.outputs = {node.outputs[0]};
          sp.outputs = {pn.outputs[0]};
        } else {
          stepOperands.push_back(*x);
          stepOperands.back().constantData = nullptr;
          vk::ProgramTensor pt;
          pt.dtype = x->dtype;
          pt.shape = x->shape;
          curTensor = int32_t(tensors.size());
          tensors.push_back(pt);
          step.outputs = {&stepOperands.back()};
          sp.outputs = {curTensor};
          cur = &stepOperands.back();
        }
        stepNodes.push_back(std::move(step));
        sp.desc = &stepNodes.back();
        steps.push_back(sp);
      }
      vk::fuseElementwiseChains(info, tensors, &steps, &fused);
      if (steps.size() != 1) return Status(StatusCode::kInternal, "calibration chain was not fused into one dispatch");
      pn = steps[0];
    }
    const rt::NodeDesc &desc = *pn.desc;
    {
      vk::KernelPlan plan;
      vk::VulkanKernelFactory f = vk::findVulkanKernel(desc.op);
      if (!f) return unsupported(desc.op + ": no GPU kernel");
      WEBNN_RETURN_IF_ERROR(f(desc, info, &plan));
      if (plan.dispatches.empty()) return Status(StatusCode::kInternal, c.op + ": no dispatch");
      // The family and parameters of the plan's first dispatch, the work of all.
      std::vector<vk::DispatchWork> works;
      WEBNN_RETURN_IF_ERROR(vk::planWork(desc, plan, &works));
      work = works[0];
      for (size_t k = 1; k < works.size(); ++k) {
        work.flops += works[k].flops;
        work.bytes += works[k].bytes;
      }
      dispatches = plan.dispatches.size();
    }
    return Status::ok();
  }
};

// A dispatch at least this long is timed from the one-node program alone.
constexpr double kLongDispatchMs = 20;
// The most repeats of a node in a timed program.
constexpr int kMaxRepeats = 256;

class Calibrator {
 public:
  explicit Calibrator(std::shared_ptr<vk::Device> d) : device_(std::move(d)) {}

  // A program holding the case's node `reps` times over the same tensors.
  Status build(Case &c, int reps, std::unique_ptr<vk::Program> *out, std::vector<int32_t> *inputs,
               vk::DispatchWork *work, size_t *dispatches) {
    CaseGraph g;
    WEBNN_RETURN_IF_ERROR(g.make(c, device_->info()));
    if (work) {
      *work = g.work;
      *dispatches = g.dispatches;
    }
    const vk::ProgramNode &pn = g.pn;
    std::vector<vk::ProgramNode> nodes(size_t(reps), pn);
    WEBNN_RETURN_IF_ERROR(vk::Program::create(device_, g.tensors, nodes, out));
    inputs->clear();
    for (size_t i = 0; i < c.inputs.size(); ++i)
      if (!c.inputs[i].constant) {
        WEBNN_RETURN_IF_ERROR((*out)->setInput(pn.inputs[i], c.inputs[i].bytes.data(), c.inputs[i].bytes.size()));
        inputs->push_back(pn.inputs[i]);
      }
    return Status::ok();
  }

  // The median of `n` runs after one untimed run (what webnn-run --bench
  // reports of a model); `all` gets every time, sorted.
  Status time(vk::Program &p, int n, double *median, std::vector<double> *all = nullptr) {
    WEBNN_RETURN_IF_ERROR(p.run());
    std::vector<double> t;
    for (int i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      WEBNN_RETURN_IF_ERROR(p.run());
      t.push_back(msSince(t0));
    }
    std::sort(t.begin(), t.end());
    *median = t[t.size() / 2];
    if (all) *all = t;
    return Status::ok();
  }

  Status measure(Case &c, Measured *out) {
    uint64_t pipelines0 = device_->pipelinesCreated();
    double pipelineMs0 = device_->pipelineMilliseconds();
    std::unique_ptr<vk::Program> one, many;
    std::vector<int32_t> inputs;
    vk::DispatchWork work;
    size_t dispatches = 1;
    WEBNN_RETURN_IF_ERROR(build(c, 1, &one, &inputs, &work, &dispatches));
    uint64_t created = device_->pipelinesCreated() - pipelines0;
    const double createdMs = device_->pipelineMilliseconds() - pipelineMs0;
    if (created) {
      double ms = createdMs / double(created);
      pipelineMs_[work.shader].push_back(ms);
      allPipelineMs_.push_back(ms);
    }
    Measured m;
    m.pipelineMs = createdMs;
    m.family = work.family;
    m.shader = work.shader;
    m.params = work.params;
    for (double &p : m.params) p = std::max(p, 1.0);
    m.flops = work.flops;
    m.bytes = work.bytes;
    m.uploadMs = one->stats().uploadMs;
    m.constantBytes = one->stats().constantBytes;
    double tOne = 0;
    std::vector<double> oneRuns;
    WEBNN_RETURN_IF_ERROR(time(*one, 3, &tOne, &oneRuns));
    // Short programs: more runs, so that one disturbed run is not the median.
    if (tOne < 2) WEBNN_RETURN_IF_ERROR(time(*one, 15, &tOne));
    // Enough repetitions that they take a few milliseconds: the one-node
    // run less its submit and its staging copies bounds the dispatch.
    double io = 0;
    for (const CalTensor &t : c.inputs)
      if (!t.constant) io += double(t.bytes.size());
    for (const auto &[dtype, shape] : c.outputs) {
      uint64_t b = 0;
      tensorByteSize(dtype, shape, &b);
      io += double(b);
    }
    // Never below a quarter of the run: a staging rate measured low (a
    // loaded CPU device) would otherwise ask for hundreds of repeats of a
    // long dispatch.
    const double ioMs = transferGBs_ > 0 ? io / (transferGBs_ * 1e6) : 0;
    double guess = std::max({tOne - submitMs_ - ioMs, 0.25 * (tOne - submitMs_), 0.01});
    // A dispatch far longer than the submit and the staging copies is the
    // one-node run less them: no repeated program (a large probe step on a
    // slow device would otherwise take seconds).
    if (transferGBs_ > 0 && guess > kLongDispatchMs) {
      m.programMs = tOne;
      m.dispatchMs = guess;
      m.dispatches = double(dispatches);
      m.spread = std::log(oneRuns.back() / std::max(oneRuns.front(), 1e-6)) / 2.56;
      *out = std::move(m);
      return Status::ok();
    }
    // A long kernel needs fewer: one more copy and three runs of it keep the
    // grid within the deadline.
    const bool longKernel = guess > 20;
    int reps = int(std::clamp(std::ceil(4.0 / guess), longKernel ? 1.0 : 2.0, 48.0));
    double tMany = 0;
    std::vector<double> runs;
    // A difference below half the dispatch cost is noise (another process
    // took the time): more repetitions once, else the point is dropped.
    const double floorMs = 0.5 * dispatchMs_ * double(dispatches);
    // The repeats must also stand out of the noise of the one-node run's
    // other parts (submit, staging copies; on a large probe step of a GPU
    // the copies take a hundred times the dispatch): at least half of them.
    // Too little: more repeats (at most twice more), sized from the try's
    // per-dispatch time.
    for (int attempt = 0;; ++attempt) {
      WEBNN_RETURN_IF_ERROR(build(c, 1 + reps, &many, &inputs, nullptr, nullptr));
      WEBNN_RETURN_IF_ERROR(time(*many, longKernel ? 3 : tOne < 2 ? 15 : 5, &tMany, &runs));
      const double signal = tMany - tOne;
      const double rest = std::max(0.0, tOne - signal / double(reps));
      if (signal / double(reps) > floorMs && signal >= 0.5 * rest) break;
      if (attempt == 2 || reps >= kMaxRepeats) break;
      const double per = std::max(signal / double(reps), floorMs);
      reps = int(std::clamp(std::ceil(std::max(4.0, tOne) / per), 2.0 * reps, double(kMaxRepeats)));
    }
    m.valid = (tMany - tOne) / double(reps) > floorMs;
    m.programMs = tOne;
    m.dispatchMs = std::max((tMany - tOne) / double(reps), 1e-5);
    m.dispatches = double(dispatches);
    m.spread = std::log(runs.back() / std::max(runs.front(), 1e-6)) / 2.56;
    *out = std::move(m);
    return Status::ok();
  }

  void setSubmitMs(double ms) { submitMs_ = ms; }
  void setDispatchMs(double ms) { dispatchMs_ = ms; }
  void setTransferGBs(double v) { transferGBs_ = v; }
  std::map<std::string, std::vector<double>> pipelineMs_;
  std::vector<double> allPipelineMs_;

 private:
  static Status internalErrorOf(const std::string &m) { return Status(StatusCode::kInternal, m); }
  std::shared_ptr<vk::Device> device_;
  double submitMs_ = 0, transferGBs_ = 0, dispatchMs_ = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

using Maker = std::function<Case()>;

// The grid's cases, per family.
std::vector<std::vector<Maker>> gridCases() {
  return {
      {[] { return elementwise("reshape", 4096, 1); }, [] { return elementwise("reshape", 262144, 1); }},
      {[] { return elementwise("add", 4096, 2); }, [] { return elementwise("add", 262144, 2); },
       [] { return elementwise("add", 2097152, 2); }},
      {[] { return elementwise("relu", 4096, 1); }, [] { return elementwise("relu", 262144, 1); },
       [] { return elementwise("relu", 2097152, 1); }},
      {[] { return elementwise("sigmoid", 4096, 1); }, [] { return elementwise("sigmoid", 262144, 1); },
       [] { return elementwise("sigmoid", 1048576, 1); }},
      {[] { return chain({"add", "relu"}, 262144); }, [] { return chain({"add", "relu"}, 4096); },
       [] { return chain({"mul", "add", "max"}, 1048576); }},
      {[] { return chain({"sigmoid", "mul"}, 262144); }, [] { return chain({"sigmoid", "mul"}, 4096); },
       [] { return chain({"tanh", "mul", "add"}, 1048576); }},
      {[] { return matmul(1, 512, 512); }, [] { return matmul(16, 64, 64); }, [] { return matmul(128, 512, 128); },
       [] { return matmul(32, 1024, 128); }, [] { return matmul(512, 64, 512); }, [] { return matmul(4, 256, 1024); },
       [] { return matmul(1, 64, 64); }},
      {[] { return conv(32, 32, 32, 3, 1, 1); }, [] { return conv(56, 16, 32, 1, 1, 1); },
       [] { return conv(14, 64, 64, 3, 1, 1); }, [] { return conv(64, 3, 16, 3, 2, 1); },
       [] { return conv(7, 160, 320, 1, 1, 1); }, [] { return conv(28, 32, 96, 1, 1, 1); },
       [] { return conv(112, 16, 16, 1, 1, 1); }},
      {[] { return conv(56, 32, 32, 3, 1, 32); }, [] { return conv(14, 192, 192, 3, 1, 192); },
       [] { return conv(28, 96, 96, 3, 2, 96); }, [] { return conv(7, 576, 576, 5, 1, 576); }},
      {[] { return pool("maxPool2d", 56, 64, 3, 2); }, [] { return pool("averagePool2d", 7, 512, 7, 1); },
       [] { return pool("averagePool2d", 14, 256, 14, 1); }, [] { return pool("maxPool2d", 28, 32, 2, 2); }},
      {[] { return rows("reduceMean", 64, 1024); }, [] { return rows("reduceMean", 1024, 64); },
       [] { return rows("reduceMean", 8, 16384); }},
      {[] { return rows("softmax", 128, 128); }, [] { return rows("softmax", 8, 1000); },
       [] { return rows("softmax", 1024, 32); }},
      {[] { return rows("layerNormalization", 128, 768); }, [] { return rows("layerNormalization", 16, 256); },
       [] { return rows("layerNormalization", 1024, 64); }},
      {[] { return rows("rmsNormalization", 1, 1024); }, [] { return rows("rmsNormalization", 128, 768); },
       [] { return rows("rmsNormalization", 16, 256); }},
      {[] { return attention(16, 16, 4, 64); }, [] { return attention(128, 128, 2, 32); },
       [] { return attention(1, 256, 4, 64); }, [] { return attention(64, 64, 12, 64); },
       [] { return attention(1, 16, 4, 16); }},
      {[] { return matmulNBits(1, 1024, 1024); }, [] { return matmulNBits(1, 256, 256); },
       [] { return matmulNBits(16, 512, 512); }, [] { return matmulNBits(1, 64, 128); },
       [] { return matmulNBits(8, 64, 256); }},
  };
}

// A probe grown step by step (GpuLadder.h): step k's case; `growth` is
// about how much more work each step does.
struct Probe {
  const char *name;
  std::function<Case(int)> make;
  double growth = 4;
  // The family its steps must plan (null: any); a step planned otherwise
  // ends the ladder unmeasured.
  const char *family = nullptr;
};

int64_t times4(int64_t v, int k) { return v << (2 * k); }
int64_t times2(int64_t v, int k) { return v << k; }

// The storage-buffer bandwidth: a copy from 1 MiB up.
Probe copyProbe() {
  return {"copy", [](int k) { return elementwise("reshape", times4(262144, k), 1); }, 4};
}
// The float32 peak: a square-ish matmul, every side doubled per step.
Probe peakProbe() {
  return {"matmul square", [](int k) { return matmul(times2(128, k), times2(256, k), times2(256, k)); }, 8};
}

// Per family, shapes of the fixed grid grown along what models grow
// (elements, rows, batch, channels, sequence) until the device is full. On
// a device that is full at the fixed grid's sizes already (lavapipe) each
// stops after a step or two.
std::vector<Probe> familyProbes() {
  return {
      {"add", [](int k) { return elementwise("add", times4(262144, k), 2); }},
      {"relu", [](int k) { return elementwise("relu", times4(262144, k), 1); }},
      {"sigmoid", [](int k) { return elementwise("sigmoid", times4(262144, k), 1); }},
      {"chain add+relu", [](int k) { return chain({"add", "relu"}, times4(262144, k)); }},
      {"chain silu", [](int k) { return chain({"sigmoid", "mul"}, times4(262144, k)); }},
      {"matmul rows", [](int k) { return matmul(times4(16, k), 768, 768); }},
      {"matmul vector", [](int k) { return matmul(1, times2(512, k), times2(512, k)); }},
      {"conv 3x3 batch", [](int k) { return conv(14, 64, 64, 3, 1, 1, times4(1, k)); }},
      {"conv 3x3 channels", [](int k) { return conv(14, times2(64, k), times2(64, k), 3, 1, 1); }},
      {"conv 1x1 batch", [](int k) { return conv(28, 32, 96, 1, 1, 1, times4(1, k)); }},
      // Many output channels and a long reduction (the late stages of a
      // CNN): the batch fills the device's workgroups, not the channels.
      {"conv 3x3 wide batch", [](int k) { return conv(14, 256, 256, 3, 1, 1, times4(1, k)); }},
      {"conv 1x1 wide batch", [](int k) { return conv(7, 512, 2048, 1, 1, 1, times4(1, k)); }},
      {"depthwise batch", [](int k) { return conv(28, 96, 96, 3, 2, 96, times4(1, k)); }},
      {"maxPool batch", [](int k) { return pool("maxPool2d", 56, 64, 3, 2, times4(1, k)); }},
      {"reduceMean rows", [](int k) { return rows("reduceMean", times4(64, k), 1024); }},
      {"softmax rows", [](int k) { return rows("softmax", times4(128, k), 128); }},
      {"layerNormalization rows", [](int k) { return rows("layerNormalization", times4(128, k), 768); }},
      {"rmsNormalization rows", [](int k) { return rows("rmsNormalization", times4(128, k), 768); }},
      {"attention sequence", [](int k) {
         const int64_t s = times2(64, k);
         return attention(s, s, 12, 64);
       }},
      {"matmulNBits vector", [](int k) { return matmulNBits(1, times2(1024, k), times2(1024, k)); }},
      {"matmulNBits rows", [](int k) { return matmulNBits(times4(16, k), 512, 512); }},
  };
}

// Relaxed-precision matmuls on a device with cooperative matrices: their
// own grid (tensor cores run them at other rates than matmul.comp).
std::vector<Probe> coopmatProbes() {
  auto relaxed = [](Case c) {
    c.relaxed = true;
    return c;
  };
  return {
      {"matmul coopmat square",
       [=](int k) { return relaxed(matmul(times2(128, k), times2(256, k), times2(256, k))); }, 8, "matmul.coopmat"},
      {"matmul coopmat rows", [=](int k) { return relaxed(matmul(times4(32, k), 768, 768)); }, 4, "matmul.coopmat"},
  };
}

uint64_t largestTensorBytes(const Case &c) {
  uint64_t most = 0, b = 0;
  for (const CalTensor &t : c.inputs)
    if (tensorByteSize(t.dtype, t.shape, &b)) most = std::max(most, b);
  for (const auto &[dtype, shape] : c.outputs)
    if (tensorByteSize(dtype, shape, &b)) most = std::max(most, b);
  return most;
}

}  // namespace

Status calibrateGpu(const GpuCalibrateOptions &options, GpuProfile *out) {
  auto start = Clock::now();
  auto elapsed = [&] { return msSince(start) / 1000.0; };
  auto say = [&](const std::string &s) {
    if (options.progress) options.progress(s);
  };
  int index = -1;
  if (!vk::parseGpuDeviceName(options.device, &index))
    return invalidArgument("--device '" + options.device + "': expected gpu or gpu:N");
  vk::Device::Options o = vk::Device::defaultOptions();
  o.index = index;
  // Pipelines created cold: the first run on a fresh machine, with neither
  // webnnc's pipeline cache nor the driver's own shader cache (else a second
  // calibration measures pipelines the first one compiled).
  o.cacheDir = "none";
  o.driverShaderCache = false;
  std::shared_ptr<vk::Device> device;
  WEBNN_RETURN_IF_ERROR(vk::Device::create(o, &device));
  GpuProfile p;
  p.device = limitsOf(device->info());
  p.libraryVersion = version();
  Calibrator cal(device);
  char line[320];

  // The fixed costs: a tiny copy gives the dispatch (by difference) and the
  // submit (what is left of its one-node run).
  // Three times, the median of each: every later ratio rests on them.
  Measured mt;
  std::vector<double> dispatchMs, submitMs;
  for (int k = 0; k < 3; ++k) {
    Case tiny = elementwise("reshape", 64, 1);
    WEBNN_RETURN_IF_ERROR(cal.measure(tiny, &mt));
    dispatchMs.push_back(mt.dispatchMs);
    submitMs.push_back(std::max(mt.programMs - mt.dispatchMs, 1e-6));
  }
  mt.dispatchMs = median(dispatchMs);
  p.dispatchUs = mt.dispatchMs * 1e3;
  p.submitUs = median(submitMs) * 1e3;
  cal.setSubmitMs(p.submitUs * 1e-3);
  cal.setDispatchMs(mt.dispatchMs);
  std::snprintf(line, sizeof line, "dispatch + barrier %.1f us, submit + wait %.1f us", p.dispatchUs, p.submitUs);
  say(line);
  auto netMs = [&](const Measured &m) { return std::max(m.dispatchMs - m.dispatches * p.dispatchUs * 1e-3, 1e-5); };

  // Every probe grows until the device is full (GpuLadder.h), within the
  // device's binding range and a share of its memory.
  LadderLimits limits;
  const vk::DeviceInfo &info = device->info();
  limits.maxStepBytes = std::min<uint64_t>(limits.maxStepBytes, info.maxStorageBufferRange);
  if (info.deviceLocalBytes) limits.maxStepBytes = std::min<uint64_t>(limits.maxStepBytes, info.deviceLocalBytes / 8);
  std::vector<Measured> points;
  bool complete = true;
  // One step of `probe`'s ladder: measured and recorded, or the ladder ends
  // (a step the device cannot allocate or run ends its ladder, not the
  // calibration).
  std::string lastFailure;
  auto step = [&](const Probe &probe, Ladder &ladder, const std::function<double(const Measured &)> &efficiency,
                  Measured *m) {
    Case c = probe.make(ladder.steps());
    if (!ladder.next(largestTensorBytes(c), options.deadlineSeconds - elapsed())) return false;
    if (probe.family) {
      CaseGraph g;
      if (Status s = g.make(c, info); !s || g.work.family != probe.family) {
        ladder.fail();
        say(std::string(probe.name) + ": stopped, step " + std::to_string(ladder.steps()) + " plans " +
            (s ? g.work.family : s.message()) + ", not " + probe.family);
        return false;
      }
    }
    auto t0 = Clock::now();
    if (Status s = cal.measure(c, m); !s) {
      ladder.fail();
      lastFailure = s.message();
      say(std::string(probe.name) + ": stopped, step " + std::to_string(ladder.steps()) + " failed: " + s.message());
      return false;
    }
    // A first pipeline of a shader variant is created once, not per step:
    // not counted in the step's time, which predicts the next step's.
    ladder.record({m->valid ? efficiency(*m) : 0, m->dispatchMs, std::max(0.0, msSince(t0) - m->pipelineMs) / 1000.0});
    return m->valid;
  };
  auto record = [&](const Probe &probe, const Ladder &ladder, const std::vector<Measured> &steps) {
    GpuProbe r;
    r.name = probe.name;
    r.steps = ladder.steps();
    r.stop = ladderStopName(ladder.stop());
    r.seconds = ladder.seconds();
    if (!steps.empty()) r.family = steps[0].family;
    if (ladder.bestStep() >= 0 && size_t(ladder.bestStep()) < steps.size()) r.bestParams = steps[size_t(ladder.bestStep())].params;
    if (ladder.stop() == LadderStop::kDeadline) complete = false;
    p.probes.push_back(std::move(r));
  };
  // One probe's ladder on its own (the copy, the matmul peak): its steps in
  // the ladder's order (unreliable ones too, so indices match), the valid
  // ones added to the grid, and in `*best` the best rate of the valid steps,
  // or of all of them where none stood out of the noise (a device shared
  // with other work) rather than no profile.
  auto climb = [&](const Probe &probe, const std::function<double(const Measured &)> &rate, double *best) {
    LadderLimits l = limits;
    l.probeSeconds = 2;
    l.growth = probe.growth;
    Ladder ladder(l);
    std::vector<Measured> steps;
    Measured m;
    while (!ladder.done()) {
      step(probe, ladder, rate, &m);
      if (ladder.steps() > int(steps.size())) steps.push_back(m);
    }
    for (const Measured &x : steps)
      if (x.valid) {
        *best = std::max(*best, rate(x));
        points.push_back(x);
      }
    record(probe, ladder, steps);
    if (*best <= 0)
      for (const Measured &x : steps) *best = std::max(*best, rate(x));
    return steps;
  };

  // The storage-buffer bandwidth: the best rate of the growing copy; its
  // largest step also gives the staging transfer rate (the one-node run
  // less its dispatch and submit).
  {
    std::vector<Measured> steps =
        climb(copyProbe(), [&](const Measured &x) { return x.bytes / (netMs(x) * 1e6); }, &p.bandwidthGBs);
    if (steps.empty())
      return Status(StatusCode::kInternal, "GPU calibration: the storage-buffer copy did not run: " + lastFailure);
    // The staging copies: what the largest step's one-node run spent beside
    // its dispatch and submit (the copy's input in, its output out), where
    // that is a visible part of the run; else (a device where they are lost
    // in the noise) the copy's own rate.
    p.transferGBs = p.bandwidthGBs;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      const double rest = it->programMs - it->dispatchMs - p.submitUs * 1e-3;
      if (it->valid && rest > 0.1 * it->programMs) {
        p.transferGBs = it->bytes / (rest * 1e6);
        break;
      }
    }
  }
  std::snprintf(line, sizeof line, "storage-buffer copy %.2f GB/s (%d steps, %s), staging transfers %.2f GB/s",
                p.bandwidthGBs, p.probes.back().steps, p.probes.back().stop.c_str(), p.transferGBs);
  say(line);
  cal.setTransferGBs(p.transferGBs);
  {
    Case add = elementwise("add", 1 << 20, 2);
    add.inputs[1].constant = true;
    Measured ma;
    WEBNN_RETURN_IF_ERROR(cal.measure(add, &ma));
    p.uploadGBs = double(ma.constantBytes) / (std::max(ma.uploadMs, 1e-3) * 1e6);
    points.push_back(std::move(ma));
  }
  // The float32 peak: the best rate of the growing matmul (its first step
  // also gives the run-to-run spread).
  double provisionalPeak = 0;
  {
    std::vector<Measured> steps =
        climb(peakProbe(), [&](const Measured &x) { return x.flops / (netMs(x) * 1e6); }, &provisionalPeak);
    if (steps.empty()) return Status(StatusCode::kInternal, "GPU calibration: the matmul did not run: " + lastFailure);
    p.runSpread = steps[0].spread;
  }
  std::snprintf(line, sizeof line, "constant upload %.2f GB/s, matmul %.2f GFLOP/s (%d steps, %s)", p.uploadGBs,
                provisionalPeak, p.probes.back().steps, p.probes.back().stop.c_str());
  say(line);

  // The fixed grid, per family; measured breadth first so that a deadline
  // leaves every family some points.
  std::vector<std::vector<Maker>> grid = gridCases();
  double lastPoint = 0;
  std::vector<double> pointSeconds;
  for (size_t round = 0; complete; ++round) {
    bool any = false;
    for (const auto &family : grid) {
      if (round >= family.size()) continue;
      any = true;
      if (elapsed() + std::max(0.5, 2 * lastPoint) > options.deadlineSeconds) {
        complete = false;
        break;
      }
      auto t0 = Clock::now();
      Case c = family[round]();
      Measured m;
      if (Status s = cal.measure(c, &m); !s) return Status(s.code(), "calibrating " + c.op + ": " + s.message());
      lastPoint = msSince(t0) / 1000.0;
      pointSeconds.push_back(lastPoint);
      if (m.valid) points.push_back(std::move(m));
    }
    if (!any) break;
  }

  // Then each family's probes, one step of each per round, grown until the
  // device is full: the points that price the large nodes of large models.
  // Their efficiency is against the roofline of the peaks measured so far.
  auto efficiency = [&](const Measured &x) {
    return std::max(x.flops / (provisionalPeak * 1e6), x.bytes / (p.bandwidthGBs * 1e6)) / netMs(x);
  };
  if (complete) {
    std::vector<Probe> probes = familyProbes();
    if (info.coopmat)
      for (Probe &pr : coopmatProbes()) probes.push_back(std::move(pr));
    std::vector<Ladder> ladders;
    std::vector<std::vector<Measured>> steps(probes.size());
    for (const Probe &pr : probes) {
      LadderLimits l = limits;
      l.growth = pr.growth;
      // A first step costs about what a fixed grid point did (its sizes
      // are the grid's).
      l.firstStepSeconds = median(pointSeconds);
      l.probeSeconds = 1.0;
      ladders.emplace_back(l);
    }
    for (bool any = true; any;) {
      any = false;
      for (size_t i = 0; i < probes.size(); ++i) {
        if (ladders[i].done()) continue;
        Measured m;
        if (step(probes[i], ladders[i], efficiency, &m)) points.push_back(m);
        if (ladders[i].steps() > int(steps[i].size())) steps[i].push_back(std::move(m));
        any = true;
      }
    }
    for (size_t i = 0; i < probes.size(); ++i) record(probes[i], ladders[i], steps[i]);
  }
  if (!complete) say("stopped at the deadline: the grid is partial but usable");

  // Ratios against the roofline of the final peaks: the best float32 rate
  // any matmul or implicit-GEMM convolution reached.
  p.peakGflops = provisionalPeak;
  for (const Measured &m : points)
    if (m.family == "matmul" || m.family == "conv2d.gemm") p.peakGflops = std::max(p.peakGflops, m.flops / (netMs(m) * 1e6));
  for (const Measured &m : points) {
    double roof = std::max(m.flops / (p.peakGflops * 1e6), m.bytes / (p.bandwidthGBs * 1e6));
    if (roof <= 0) continue;
    GridPoint g;
    g.params = m.params;
    g.ms = m.dispatchMs;
    g.ratio = std::max(netMs(m) / roof, 1e-3);
    FamilyGrid &fg = p.families[m.family];
    if (!fg.points.empty() && fg.points[0].params.size() != g.params.size()) continue;
    fg.points.push_back(std::move(g));
  }
  for (const auto &[shader, v] : cal.pipelineMs_) p.shaderPipelineMs[shader] = median(v);
  p.pipelineMs = median(cal.allPipelineMs_);
  updateGpuSigmas(&p);
  p.complete = complete;
  p.calibrationSeconds = elapsed();
  for (const GpuProbe &r : p.probes) {
    std::string best;
    for (double v : r.bestParams) best += (best.empty() ? "" : "x") + std::to_string(int64_t(v));
    std::snprintf(line, sizeof line, "  probe %-24s %d step(s), %s, best at %s, %.2f s", r.name.c_str(), r.steps,
                  r.stop.c_str(), best.empty() ? "-" : best.c_str(), r.seconds);
    say(line);
  }
  std::snprintf(line, sizeof line, "peak %.2f GFLOP/s (matmul / conv2d_gemm), pipeline %.1f ms cold, %.1f s",
                p.peakGflops, p.pipelineMs, p.calibrationSeconds);
  say(line);
  *out = std::move(p);
  return Status::ok();
}

std::vector<std::string> gpuGridFamilies() {
  vk::DeviceInfo info;
  info.maxStorageBufferRange = uint64_t(1) << 32;
  info.minStorageBufferOffsetAlignment = 64;
  info.maxSharedMemory = 32768;
  info.maxWorkGroupInvocations = 1024;
  info.maxWorkGroupCount[0] = info.maxWorkGroupCount[1] = info.maxWorkGroupCount[2] = 65535;
  info.maxPushConstantsSize = 128;
  info.subgroupSize = 32;
  // A device with cooperative matrices: their probes count too.
  info.coopmat = true;
  info.usable = true;
  std::set<std::string> families;
  auto add = [&](Case c) {
    CaseGraph g;
    if (g.make(c, info).isOk()) families.insert(g.work.family);
  };
  for (const auto &family : gridCases())
    for (const Maker &make : family) add(make());
  std::vector<Probe> probes = familyProbes();
  for (Probe &pr : coopmatProbes()) probes.push_back(std::move(pr));
  probes.push_back(copyProbe());
  probes.push_back(peakProbe());
  for (const Probe &pr : probes) add(pr.make(0));
  return {families.begin(), families.end()};
}

#endif

}  // namespace webnn::est
