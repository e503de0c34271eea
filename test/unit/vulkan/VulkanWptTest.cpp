// Every single-operator case of the WebNN WPT conformance vectors on the GPU,
// through the Vulkan kernels (a one-node program per case; no compiler),
// checked against the vectors' expected outputs with the tolerances of the
// CPU suite (test/unit/kernels/WptKernelTest.cpp). Prints pass counts per op;
// a failing case fails the test unless vulkan_wpt_expected_failures.txt
// lists it with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "VulkanTestUtil.h"
#include "backends/vulkan/VulkanKernel.h"
#include "runtime/backends/cpu/kernels/Float16.h"

namespace webnn::vk::test {
namespace {

using json = nlohmann::json;
using cpu::test::outSpec;

double parseNumber(const json &v) {
  if (v.is_number()) return v.get<double>();
  std::string s = v.get<std::string>();
  if (s == "NaN") return std::nan("");
  if (s == "Infinity") return INFINITY;
  if (s == "-Infinity") return -INFINITY;
  if (!s.empty() && s.back() == 'n') s.pop_back();
  return std::stod(s);
}

template <typename T>
T parseInt(const json &v) {
  if (v.is_number_integer()) return v.is_number_unsigned() ? T(v.get<uint64_t>()) : T(v.get<int64_t>());
  if (v.is_number()) return T(v.get<double>());
  std::string s = v.get<std::string>();
  if (!s.empty() && s.back() == 'n') s.pop_back();
  if (std::is_signed_v<T>) return T(std::stoll(s));
  return T(std::stoull(s));
}

template <typename T>
void append(std::vector<uint8_t> &b, T v) {
  size_t o = b.size();
  b.resize(o + sizeof(T));
  std::memcpy(b.data() + o, &v, sizeof(T));
}

TestTensor parseTensor(const json &t) {
  TestTensor r;
  const json &d = t["descriptor"];
  if (!parseDataTypeName(d["dataType"].get<std::string>(), &r.dtype)) throw std::runtime_error("bad dtype");
  r.shape = d["shape"].get<Shape>();
  r.constant = t.value("constant", false);
  json data = t["data"];
  if (!data.is_array()) data = json::array({data});
  int64_t n = r.count();
  for (int64_t i = 0; i < n; ++i) {
    const json &v = data.size() == 1 ? data[0] : data[size_t(i)];
    switch (r.dtype) {
      case DataType::kFloat32: append(r.bytes, float(parseNumber(v))); break;
      case DataType::kFloat16: append(r.bytes, cpu::kernels::floatToHalf(float(parseNumber(v)))); break;
      case DataType::kInt32: append(r.bytes, parseInt<int32_t>(v)); break;
      case DataType::kUint32: append(r.bytes, parseInt<uint32_t>(v)); break;
      case DataType::kInt64: append(r.bytes, parseInt<int64_t>(v)); break;
      case DataType::kUint64: append(r.bytes, parseInt<uint64_t>(v)); break;
      case DataType::kInt8: append(r.bytes, parseInt<int8_t>(v)); break;
      case DataType::kUint8: append(r.bytes, parseInt<uint8_t>(v)); break;
      default: throw std::runtime_error("unsupported dtype in vector");
    }
  }
  return r;
}

const std::map<std::string, std::vector<std::string>> kOperandOptions = {
    {"conv2d", {"bias"}}, {"convTranspose2d", {"bias"}}, {"gemm", {"c"}},
    {"batchNormalization", {"scale", "bias"}}, {"instanceNormalization", {"scale", "bias"}},
    {"layerNormalization", {"scale", "bias"}}};
const std::set<std::string> kIntAttrs = {"axis", "groups", "diagonal"};
const std::set<std::string> kBoolAttrs = {"keepDimensions", "aTranspose", "bTranspose", "upper"};

struct Tolerance {
  int64_t ulp = 0;
  double atol = 0, rtol = 0;
};

// The CPU suite's table (WptKernelTest.cpp), unchanged: the GPU is held to
// the same bar.
Tolerance toleranceFor(const std::string &op, DataType dt) {
  static const std::set<std::string> exact = {
      "abs", "neg", "relu", "ceil", "floor", "clamp", "max", "min", "equal", "notEqual", "greater",
      "greaterOrEqual", "lesser", "lesserOrEqual", "logicalNot", "logicalAnd", "logicalOr", "logicalXor",
      "cast", "concat", "split", "reshape", "expand", "transpose", "slice", "gather", "reduceMax",
      "reduceMin", "identity", "sign", "pad", "tile", "triangular", "where", "roundEven", "argMax",
      "argMin", "maxPool2d"};
  static const std::set<std::string> basic = {"add", "sub", "mul", "div", "sqrt", "reciprocal", "linear",
                                              "leakyRelu", "hardSigmoid", "hardSwish", "prelu"};
  static const std::set<std::string> transcendental = {"exp", "log", "tanh", "sigmoid", "erf", "elu", "gelu",
                                                       "softplus", "softsign", "sin", "cos", "pow"};
  bool half = dt == DataType::kFloat16;
  if (exact.count(op)) return {0, 0, 0};
  if (basic.count(op)) return {2, 0, 0};
  if (transcendental.count(op)) return {half ? 2 : 32, 0, 0};
  if (half) return {2, 1e-2, 5e-3};
  return {4, 1e-4, 1e-4};
}

int64_t ulpDistance(double got, double want, DataType dt) {
  if (dt == DataType::kFloat16) {
    auto key = [](uint16_t h) { return (h & 0x8000) ? -int64_t(h & 0x7fff) : int64_t(h); };
    return std::llabs(key(cpu::kernels::floatToHalf(float(got))) - key(cpu::kernels::floatToHalf(float(want))));
  }
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
  };
  return std::llabs(key(float(got)) - key(float(want)));
}

std::string compare(const std::string &op, const TestTensor &got, const TestTensor &want) {
  if (want.dtype == DataType::kInt64 || want.dtype == DataType::kUint64)
    return got.bytes == want.bytes ? "" : "64-bit integer mismatch";
  std::vector<double> g = got.values(), w = want.values();
  if (g.size() != w.size()) return "size mismatch";
  Tolerance tol = toleranceFor(op, want.dtype);
  bool isFloat = want.dtype == DataType::kFloat32 || want.dtype == DataType::kFloat16;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i]))) continue;
    if (isFloat && std::isfinite(w[i]) && std::isfinite(g[i])) {
      if (ulpDistance(g[i], w[i], want.dtype) <= tol.ulp) continue;
      if (std::fabs(g[i] - w[i]) <= tol.atol + tol.rtol * std::fabs(w[i])) continue;
    }
    return "element " + std::to_string(i) + ": got " + std::to_string(g[i]) + ", want " + std::to_string(w[i]);
  }
  return "";
}

struct CaseResult {
  bool noKernel = false;
  std::string failure;
};

CaseResult runCase(const std::shared_ptr<Device> &device, const json &test) {
  const json &g = test["graph"];
  std::map<std::string, TestTensor> inputs;
  for (auto &[name, t] : g["inputs"].items()) inputs[name] = parseTensor(t);
  const json &opj = g["operators"][0];
  OpCase c;
  c.op = opj["name"].get<std::string>();
  if (!findVulkanKernel(c.op)) return {true, ""};
  const Shape *firstShape = nullptr;
  json options = json::object();
  int64_t splitCount = -1;
  for (const json &arg : opj["arguments"]) {
    for (auto &[key, val] : arg.items()) {
      if (key == "options") {
        options = val;
      } else if (val.is_string() && inputs.count(val.get<std::string>())) {
        c.inputs.push_back(inputs[val.get<std::string>()]);
        if (!firstShape) firstShape = &inputs[val.get<std::string>()].shape;
      } else if (val.is_array() && !val.empty() && val[0].is_string() && inputs.count(val[0].get<std::string>())) {
        for (const json &n : val) c.inputs.push_back(inputs[n.get<std::string>()]);
      } else if (key == "splits" && val.is_number()) {
        splitCount = val.get<int64_t>();
      } else if (val.is_array()) {
        c.attrInts(key, val.get<std::vector<int64_t>>());
      } else if (val.is_string()) {
        c.attrString(key, val.get<std::string>());
      } else if (kIntAttrs.count(key)) {
        c.attrInt(key, val.get<int64_t>());
      } else {
        c.attrFloat(key, val.get<double>());
      }
    }
  }
  auto opOpts = kOperandOptions.find(c.op);
  if (opOpts != kOperandOptions.end())
    for (const std::string &name : opOpts->second) {
      if (options.contains(name)) c.inputs.push_back(inputs[options[name].get<std::string>()]);
      else c.inputs.push_back(std::nullopt);
    }
  for (auto &[key, val] : options.items()) {
    if (opOpts != kOperandOptions.end() &&
        std::find(opOpts->second.begin(), opOpts->second.end(), key) != opOpts->second.end())
      continue;
    if (val.is_array()) c.attrInts(key, val.get<std::vector<int64_t>>());
    else if (kBoolAttrs.count(key)) c.attrBool(key, val.get<bool>());
    else if (kIntAttrs.count(key)) c.attrInt(key, val.get<int64_t>());
    else if (val.is_string() && (key == "minValue" || key == "maxValue" || key == "value"))
      c.attrFloat(key, parseNumber(val));
    else if (val.is_string()) c.attrString(key, val.get<std::string>());
    else c.attrFloat(key, val.get<double>());
  }
  if (splitCount > 0) {
    int64_t axis = options.value("axis", int64_t(0));
    int64_t dim = (*firstShape)[size_t(axis)];
    c.attrInts("splits", std::vector<int64_t>(size_t(splitCount), dim / splitCount));
  }
  std::vector<std::string> outNames;
  if (opj["outputs"].is_array()) outNames = opj["outputs"].get<std::vector<std::string>>();
  else outNames.push_back(opj["outputs"].get<std::string>());
  std::vector<TestTensor> expected;
  for (const std::string &n : outNames) {
    expected.push_back(parseTensor(g["expectedOutputs"][n]));
    c.outputs.push_back(outSpec(expected.back().dtype, expected.back().shape));
  }
  Status s = runGpuOp(device, c);
  if (!s.isOk()) return {false, "GPU: " + s.message()};
  for (size_t i = 0; i < expected.size(); ++i) {
    std::string diff = compare(c.op, c.outputs[i], expected[i]);
    if (!diff.empty()) return {false, "output " + outNames[i] + ": " + diff};
  }
  return {false, ""};
}

// "file.json: case name  # why" lines.
std::set<std::string> readExpectedFailures(const std::string &path) {
  std::set<std::string> out;
  std::ifstream is(path);
  std::string line;
  while (std::getline(is, line)) {
    size_t hash = line.find("  #");
    if (line.empty() || line[0] == '#') continue;
    if (hash != std::string::npos) line = line.substr(0, hash);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.insert(line);
  }
  return out;
}

TEST(VulkanWpt, AllSingleOperatorCases) {
  const char *env = std::getenv("WEBNN_WPT_DIR");
  std::string dir = env && *env ? env : WEBNN_VULKAN_WPT_DIR;
  ASSERT_TRUE(!dir.empty() && std::filesystem::exists(dir)) << "WPT vectors not found (WEBNN_WPT_DIR)";
  std::string why;
  std::shared_ptr<Device> device = sharedDevice(&why);
  ASSERT_TRUE(device) << why;
  std::set<std::string> expectedFailures = readExpectedFailures(WEBNN_VULKAN_WPT_EXPECTED_FAILURES);
  std::map<std::string, std::array<int, 3>> perOp;  // pass, fail, no kernel
  std::vector<std::filesystem::path> files;
  for (auto &e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::set<std::string> seenExpected;
  for (const auto &f : files) {
    std::ifstream is(f);
    json doc = json::parse(is);
    for (const json &test : doc["tests"]) {
      if (test["graph"]["operators"].size() != 1) continue;
      std::string op = test["graph"]["operators"][0]["name"].get<std::string>();
      std::string id = f.filename().string() + ": " + test["name"].get<std::string>();
      CaseResult r;
      try {
        r = runCase(device, test);
      } catch (const std::exception &e) {
        r.failure = std::string("harness: ") + e.what();
      }
      if (r.noKernel) {
        perOp[op][2]++;
      } else if (r.failure.empty()) {
        perOp[op][0]++;
        EXPECT_FALSE(expectedFailures.count(id)) << id << " passes now: remove it from the expected failures";
      } else {
        perOp[op][1]++;
        if (expectedFailures.count(id)) seenExpected.insert(id);
        else ADD_FAILURE() << id << ": " << r.failure;
      }
    }
  }
  int pass = 0, fail = 0, none = 0;
  for (auto &[op, n] : perOp) {
    std::printf("  %-24s pass %3d  fail %3d  no-kernel %3d\n", op.c_str(), n[0], n[1], n[2]);
    pass += n[0];
    fail += n[1];
    none += n[2];
  }
  std::printf("  WPT single-op on %s: pass %d, fail %d, no GPU kernel %d\n", device->info().name.c_str(), pass,
              fail, none);
}

}  // namespace
}  // namespace webnn::vk::test
