#include "WptCase.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "runtime/backends/cpu/kernels/Float16.h"

namespace webnn::cpu::test {
namespace {

using json = nlohmann::json;

double parseNumber(const json &v) {
  if (v.is_number()) return v.get<double>();
  std::string s = v.get<std::string>();
  if (s == "NaN") return std::nan("");
  if (s == "Infinity") return INFINITY;
  if (s == "-Infinity") return -INFINITY;
  if (!s.empty() && s.back() == 'n') s.pop_back();
  return std::stod(s);
}

// Exact for 64-bit integers written as "123n".
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
void appendInt(std::vector<uint8_t> &b, T v) {
  size_t o = b.size();
  b.resize(o + sizeof(T));
  std::memcpy(b.data() + o, &v, sizeof(T));
}

// One element of `dt` from a vector value, appended to b.
void appendValue(std::vector<uint8_t> &b, DataType dt, const json &v) {
  switch (dt) {
    case DataType::kFloat32: appendInt(b, float(parseNumber(v))); break;
    case DataType::kFloat16: appendInt(b, kernels::floatToHalf(float(parseNumber(v)))); break;
    case DataType::kInt32: appendInt(b, parseInt<int32_t>(v)); break;
    case DataType::kUint32: appendInt(b, parseInt<uint32_t>(v)); break;
    case DataType::kInt64: appendInt(b, parseInt<int64_t>(v)); break;
    case DataType::kUint64: appendInt(b, parseInt<uint64_t>(v)); break;
    case DataType::kInt8: appendInt(b, parseInt<int8_t>(v)); break;
    case DataType::kUint8: appendInt(b, parseInt<uint8_t>(v)); break;
    default: throw std::runtime_error("unsupported dtype in vector");
  }
}

TestTensor parseTensor(const json &t) {
  TestTensor r;
  const json &d = t["descriptor"];
  if (!parseDataTypeName(d["dataType"].get<std::string>(), &r.dtype)) throw std::runtime_error("bad dtype");
  r.shape = d["shape"].get<Shape>();
  r.constant = t.value("constant", false);
  const json &data = t["data"];
  const size_t n = size_t(r.count());
  // A single value stands for a filled tensor (some of tens of millions of
  // elements): encoded once, then copied.
  if (!data.is_array() || data.size() == 1) {
    appendValue(r.bytes, r.dtype, data.is_array() ? data[0] : data);
    const size_t elem = r.bytes.size(), total = elem * n;
    r.bytes.resize(total);
    for (size_t have = elem; have < total; have *= 2)
      std::memcpy(r.bytes.data() + have, r.bytes.data(), std::min(have, total - have));
    return r;
  }
  for (size_t i = 0; i < n; ++i) appendValue(r.bytes, r.dtype, data.at(i));
  return r;
}

// Operand-valued options, in docs/OPS.md operand order.
const std::map<std::string, std::vector<std::string>> kOperandOptions = {
    {"conv2d", {"bias"}},
    {"convTranspose2d", {"bias"}},
    {"gemm", {"c"}},
    {"batchNormalization", {"scale", "bias"}},
    {"instanceNormalization", {"scale", "bias"}},
    {"layerNormalization", {"scale", "bias"}},
    {"gru", {"bias", "recurrentBias", "initialHiddenState"}},
    {"gruCell", {"bias", "recurrentBias"}},
    {"lstm", {"bias", "recurrentBias", "peepholeWeight", "initialHiddenState", "initialCellState"}},
    {"lstmCell", {"bias", "recurrentBias", "peepholeWeight"}},
};
const std::set<std::string> kIntAttrs = {"axis", "groups", "diagonal", "hiddenSize", "steps"};
const std::set<std::string> kBoolAttrs = {"keepDimensions", "aTranspose", "bTranspose", "upper", "resetAfter",
                                          "returnSequence"};

// ---- Tolerances: the one table. Each entry says why.
struct Tolerance {
  int64_t ulp = 0;    // units in the last place of the result type
  double atol = 0;    // or |got - want| <= atol + rtol * |want|
  double rtol = 0;
};

Tolerance toleranceFor(const std::string &op, DataType dt) {
  static const std::set<std::string> exact = {
      "abs", "neg", "relu", "ceil", "floor", "clamp", "max", "min", "equal", "notEqual", "greater",
      "greaterOrEqual", "lesser", "lesserOrEqual", "logicalNot", "logicalAnd", "logicalOr", "logicalXor",
      "cast", "concat", "split", "reshape", "expand", "transpose", "slice", "gather", "reduceMax",
      "reduceMin", "identity", "sign", "pad", "tile", "triangular", "where", "roundEven", "argMax",
      "argMin", "maxPool2d"};
  // One rounding of a correctly rounded basic operation (plus one for the
  // float16 path's float32 intermediate).
  static const std::set<std::string> basic = {"add", "sub", "mul", "div", "sqrt", "reciprocal", "linear",
                                              "leakyRelu", "hardSigmoid", "hardSwish", "prelu"};
  // libm transcendental functions: WPT allows ~32 ULP in float32.
  static const std::set<std::string> transcendental = {"exp", "log", "tanh", "sigmoid", "erf", "elu", "gelu",
                                                       "softplus", "softsign", "sin", "cos", "pow"};
  bool half = dt == DataType::kFloat16;
  if (exact.count(op)) return {0, 0, 0};
  if (basic.count(op)) return {2, 0, 0};
  if (transcendental.count(op)) return {half ? 2 : 32, 0, 0};
  // Accumulations (reductions, matmul, conv, pooling, normalization, softmax):
  // a different summation order changes the result by a few ULP per term, so
  // bound the error relative to the magnitude, float16 rounding ~ 1e-3.
  if (half) return {2, 1e-2, 5e-3};
  return {4, 1e-4, 1e-4};
}

int64_t ulpDistance(double got, double want, DataType dt) {
  if (dt == DataType::kFloat16) {
    auto key = [](uint16_t h) { return (h & 0x8000) ? -int64_t(h & 0x7fff) : int64_t(h); };
    return std::llabs(key(kernels::floatToHalf(float(got))) - key(kernels::floatToHalf(float(want))));
  }
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
  };
  return std::llabs(key(float(got)) - key(float(want)));
}

// Empty string when equal within tolerance, else a description.
std::string compare(const std::string &op, const TestTensor &got, const TestTensor &want, double scale) {
  if (got.dtype != want.dtype || got.shape != want.shape) return "descriptor mismatch";
  if (got.bytes == want.bytes) return "";  // the common case, without decoding every element
  if (want.dtype == DataType::kInt64 || want.dtype == DataType::kUint64) {
    if (got.bytes != want.bytes) return "64-bit integer mismatch";
    return "";
  }
  std::vector<double> g = got.values(), w = want.values();
  Tolerance tol = toleranceFor(op, want.dtype);
  tol.ulp = int64_t(double(tol.ulp) * scale), tol.atol *= scale, tol.rtol *= scale;
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

}  // namespace

bool parseWptCase(const json &test, const std::function<bool(const std::string &)> &hasKernel, WptCase *out) {
  const json &g = test["graph"];
  const json &opj = g["operators"][0];
  OpCase &c = out->op;
  c.op = opj["name"].get<std::string>();
  if (!hasKernel(c.op)) return false;
  std::map<std::string, TestTensor> inputs;
  for (auto &[name, t] : g["inputs"].items()) inputs[name] = parseTensor(t);
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
    if (val.is_array() && !val.empty() && val[0].is_string()) {
      // The recurrent ops' activations: the runtime's "a,b,c" form.
      std::string joined;
      for (const json &v : val) joined += (joined.empty() ? "" : ",") + v.get<std::string>();
      c.attrString(key, joined);
    } else if (val.is_array()) c.attrInts(key, val.get<std::vector<int64_t>>());
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
  std::vector<std::string> &outNames = out->outputNames;
  if (opj["outputs"].is_array()) outNames = opj["outputs"].get<std::vector<std::string>>();
  else outNames.push_back(opj["outputs"].get<std::string>());
  std::vector<TestTensor> &expected = out->expected;
  for (const std::string &n : outNames) {
    expected.push_back(parseTensor(g["expectedOutputs"][n]));
    c.outputs.push_back(outSpec(expected.back().dtype, expected.back().shape));
  }
  return true;
}

std::string compareWptOutputs(const WptCase &c, double toleranceScale) {
  for (size_t i = 0; i < c.expected.size(); ++i) {
    std::string diff = compare(c.op.op, c.op.outputs[i], c.expected[i], toleranceScale);
    if (!diff.empty()) return "output " + c.outputNames[i] + ": " + diff;
  }
  return "";
}

}  // namespace webnn::cpu::test
