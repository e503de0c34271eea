// Each entry restates what the op's factory (kernels/*.cpp, kernels/conv/*)
// checks of types and ranks. test/unit/kernels/CpuOpSupportTest.cpp holds the
// two to each other: the same op set, and per op, data type and rank, the
// factory accepts a plain node exactly when the table does.
#include "runtime/backends/cpu/CpuOpSupport.h"

#include <algorithm>

namespace webnn::cpu {
namespace {

using rt::OpLimits;
using rt::OperandLimits;
using rt::TensorLimits;
using T = DataType;

// kernels/Common.h's lists: kAllTypes, kFloatTypes and their float64 forms.
constexpr rt::DataTypeSet kAll = rt::dataTypes(T::kFloat32, T::kFloat16, T::kInt32, T::kUint32, T::kInt64,
                                               T::kUint64, T::kInt8, T::kUint8);
constexpr rt::DataTypeSet kAllF64 = kAll | rt::dataTypeBit(T::kFloat64);
constexpr rt::DataTypeSet kFloat = rt::dataTypes(T::kFloat32, T::kFloat16);
constexpr rt::DataTypeSet kFloatF64 = kFloat | rt::dataTypeBit(T::kFloat64);
constexpr rt::DataTypeSet k4Bit = rt::dataTypes(T::kInt4, T::kUint4);
constexpr rt::DataTypeSet kEvery = kAllF64 | k4Bit;
// Floats and the signed integers (abs, neg, sign, relu; prelu without float64).
constexpr rt::DataTypeSet kSigned = rt::dataTypes(T::kFloat32, T::kFloat16, T::kFloat64, T::kInt32, T::kInt64, T::kInt8);
constexpr rt::DataTypeSet kPrelu = rt::dataTypes(T::kFloat32, T::kFloat16, T::kInt32, T::kInt64, T::kInt8);
// Sums and products: no 8-bit integers.
constexpr rt::DataTypeSet kSum = rt::dataTypes(T::kFloat32, T::kFloat16, T::kFloat64, T::kInt32, T::kUint32,
                                               T::kInt64, T::kUint64);
constexpr rt::DataTypeSet kUint8 = rt::dataTypeBit(T::kUint8);
// Indices of gather and the indexing ops.
constexpr rt::DataTypeSet kIndex = rt::dataTypes(T::kInt32, T::kUint32, T::kInt64, T::kUint64, T::kInt8, T::kUint8);
// quantizeLinear/dequantizeLinear's integer side.
constexpr rt::DataTypeSet kQuantized = rt::dataTypes(T::kInt8, T::kUint8, T::kInt32, T::kUint32, T::kInt4, T::kUint4);
constexpr uint32_t kRank = kCpuMaxRank;

OperandLimits operand(const char *name, rt::DataTypeSet types, uint32_t minRank, uint32_t maxRank,
                      bool repeated = false) {
  return {name, TensorLimits{types, minRank, maxRank}, repeated};
}

rt::OpSupportTable build() {
  rt::OpSupportTable t;
  t.backend = "cpu";
  t.preferredInputLayout = "nchw";
  t.input = t.output = t.constant = TensorLimits{kEvery, 0, kRank};
  auto add = [&](const char *op, std::vector<OperandLimits> in, std::vector<OperandLimits> out) {
    t.ops.push_back(OpLimits{op, std::move(in), std::move(out)});
  };
  auto unary = [&](const char *op, rt::DataTypeSet in, rt::DataTypeSet out, uint32_t minRank = 0,
                   uint32_t maxRank = kRank) {
    add(op, {operand("input", in, minRank, maxRank)}, {operand("output", out, minRank, maxRank)});
  };
  // Binary.cpp: bidirectional broadcasting, both operands of one type.
  for (const char *op : {"add", "sub", "mul", "div", "max", "min", "pow"})
    add(op, {operand("a", kAllF64, 0, kRank), operand("b", kAllF64, 0, kRank)},
        {operand("output", kAllF64, 0, kRank)});
  for (const char *op : {"equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual"})
    add(op, {operand("a", kAllF64, 0, kRank), operand("b", kAllF64, 0, kRank)},
        {operand("output", kUint8, 0, kRank)});
  for (const char *op : {"logicalAnd", "logicalOr", "logicalXor"})
    add(op, {operand("a", kUint8, 0, kRank), operand("b", kUint8, 0, kRank)}, {operand("output", kUint8, 0, kRank)});
  add("prelu", {operand("input", kPrelu, 0, kRank), operand("slope", kPrelu, 0, kRank)},
      {operand("output", kPrelu, 0, kRank)});
  // Elementwise.cpp
  for (const char *op : {"abs", "neg", "sign", "relu"}) unary(op, kSigned, kSigned);
  unary("identity", kEvery, kEvery);
  for (const char *op : {"ceil", "floor", "exp", "log", "sqrt", "sigmoid", "tanh", "erf", "reciprocal", "sin", "cos",
                         "tan", "roundEven"})
    unary(op, kFloatF64, kFloatF64);
  for (const char *op : {"hardSwish", "softsign", "softplus", "gelu", "elu", "leakyRelu", "hardSigmoid", "linear"})
    unary(op, kFloat, kFloat);
  for (const char *op : {"isNaN", "isInfinite"}) unary(op, kFloat, kUint8);
  unary("clamp", kAll, kAll);
  unary("logicalNot", kUint8, kUint8);
  unary("cast", kEvery, kEvery);
  add("where",
      {operand("condition", kUint8, 0, kRank), operand("trueValue", kAllF64, 0, kRank),
       operand("falseValue", kAllF64, 0, kRank)},
      {operand("output", kAllF64, 0, kRank)});
  // Reduction.cpp
  for (const char *op : {"reduceMean", "reduceL2", "reduceLogSum", "reduceLogSumExp"}) unary(op, kFloatF64, kFloatF64);
  for (const char *op : {"reduceMax", "reduceMin"}) unary(op, kAllF64, kAllF64);
  for (const char *op : {"reduceSum", "reduceProduct", "reduceL1", "reduceSumSquare"}) unary(op, kSum, kSum);
  for (const char *op : {"argMax", "argMin"})
    add(op, {operand("input", kAllF64, 1, kRank)}, {operand("output", rt::dataTypes(T::kInt32, T::kInt64), 0, kRank)});
  unary("cumulativeSum", kSum, kSum, 1);
  // Shape.cpp: data movement of whole elements (4-bit types only through reshape).
  unary("reshape", kEvery, kEvery);
  for (const char *op : {"expand", "transpose", "slice", "tile", "reverse", "pad"}) unary(op, kAllF64, kAllF64);
  unary("triangular", kAllF64, kAllF64, 2);
  add("concat", {operand("inputs", kAllF64, 1, kRank, true)}, {operand("output", kAllF64, 1, kRank)});
  add("split", {operand("input", kAllF64, 1, kRank)}, {operand("outputs", kAllF64, 1, kRank, true)});
  add("channelShuffle", {operand("inputs", kAllF64, 1, kRank, true)}, {operand("outputs", kAllF64, 1, kRank, true)});
  add("gather", {operand("input", kAllF64, 1, kRank), operand("indices", kIndex, 0, kRank)},
      {operand("output", kAllF64, 0, kRank)});
  // Indexing.cpp
  add("gatherElements", {operand("input", kAllF64, 1, kRank), operand("indices", kIndex, 1, kRank)},
      {operand("output", kAllF64, 1, kRank)});
  add("gatherND", {operand("input", kAllF64, 1, kRank), operand("indices", kIndex, 1, kRank)},
      {operand("output", kAllF64, 0, kRank)});
  add("scatterElements",
      {operand("input", kAllF64, 1, kRank), operand("indices", kIndex, 1, kRank),
       operand("updates", kAllF64, 1, kRank)},
      {operand("output", kAllF64, 1, kRank)});
  add("scatterND",
      {operand("input", kAllF64, 1, kRank), operand("indices", kIndex, 1, kRank),
       operand("updates", kAllF64, 0, kRank)},
      {operand("output", kAllF64, 1, kRank)});
  // MatMul.cpp, Transformer.cpp
  add("matmul", {operand("a", kFloat, 2, kRank), operand("b", kFloat, 2, kRank)}, {operand("output", kFloat, 2, kRank)});
  add("fusedMatmul", {operand("a", kFloat, 2, kRank), operand("b", kFloat, 2, kRank)},
      {operand("output", kFloat, 2, kRank)});
  add("gemm", {operand("a", kFloat, 2, 2), operand("b", kFloat, 2, 2), operand("c", kFloat, 0, 2)},
      {operand("output", kFloat, 2, 2)});
  add("fusedAttention",
      {operand("query", kFloat, 3, 3), operand("key", kFloat, 3, 3), operand("value", kFloat, 3, 3)},
      {operand("output", kFloat, 3, 3)});
  // conv/Conv2dSelection.cpp, conv/ConvTranspose2d.cpp
  for (const char *op : {"conv2d", "fusedConv2d", "convTranspose2d"})
    add(op, {operand("input", kFloat, 4, 4), operand("filter", kFloat, 4, 4), operand("bias", kFloat, 1, 1)},
        {operand("output", kFloat, 4, 4)});
  // Pooling.cpp (maxPool2d also on 8-bit data), Resample.cpp
  for (const char *op : {"averagePool2d", "l2Pool2d"}) unary(op, kFloat, kFloat, 4, 4);
  constexpr rt::DataTypeSet kMaxPool = kFloat | rt::dataTypes(T::kInt8, T::kUint8);
  unary("maxPool2d", kMaxPool, kMaxPool, 4, 4);
  constexpr rt::DataTypeSet kResample = kFloat | rt::dataTypes(T::kInt8, T::kUint8);
  add("resample2d", {operand("input", kResample, 4, 4)}, {operand("output", kResample, 4, 4)});
  // Softmax.cpp, Normalization.cpp
  unary("softmax", kFloat, kFloat, 1);
  add("batchNormalization",
      {operand("input", kFloat, 1, kRank), operand("mean", kFloat, 1, 1), operand("variance", kFloat, 1, 1),
       operand("scale", kFloat, 1, 1), operand("bias", kFloat, 1, 1)},
      {operand("output", kFloat, 1, kRank)});
  add("instanceNormalization",
      {operand("input", kFloat, 4, 4), operand("scale", kFloat, 1, 1), operand("bias", kFloat, 1, 1)},
      {operand("output", kFloat, 4, 4)});
  add("layerNormalization",
      {operand("input", kFloat, 0, kRank), operand("scale", kFloat, 0, kRank), operand("bias", kFloat, 0, kRank)},
      {operand("output", kFloat, 0, kRank)});
  // Quantization.cpp: the float side float32/float16, the integer side 4, 8 or 32 bits.
  add("quantizeLinear",
      {operand("input", kFloat, 0, kRank), operand("scale", kFloat, 0, kRank),
       operand("zeroPoint", kQuantized, 0, kRank)},
      {operand("output", kQuantized, 0, kRank)});
  add("dequantizeLinear",
      {operand("input", kQuantized, 0, kRank), operand("scale", kFloat, 0, kRank),
       operand("zeroPoint", kQuantized, 0, kRank)},
      {operand("output", kFloat, 0, kRank)});
  // Recurrent.cpp: operands past the weights share the input's type.
  add("gru",
      {operand("input", kFloat, 3, 3), operand("weight", kFloat, 3, 3), operand("recurrentWeight", kFloat, 3, 3)},
      {operand("outputs", kFloat, 3, 4, true)});
  add("lstm",
      {operand("input", kFloat, 3, 3), operand("weight", kFloat, 3, 3), operand("recurrentWeight", kFloat, 3, 3)},
      {operand("outputs", kFloat, 3, 4, true)});
  add("gruCell",
      {operand("input", kFloat, 2, 2), operand("weight", kFloat, 2, 2), operand("recurrentWeight", kFloat, 2, 2),
       operand("hiddenState", kFloat, 2, 2)},
      {operand("output", kFloat, 2, 2)});
  add("lstmCell",
      {operand("input", kFloat, 2, 2), operand("weight", kFloat, 2, 2), operand("recurrentWeight", kFloat, 2, 2),
       operand("hiddenState", kFloat, 2, 2), operand("cellState", kFloat, 2, 2)},
      {operand("outputs", kFloat, 2, 2, true)});
  // LLM.cpp, QdqMatmul.cpp (the fused ops of docs/FUSED_OPS.md): the leading
  // operand; the others' types and shapes follow from it and the options.
  add("rmsNormalization", {operand("input", kFloat, 1, kRank)}, {operand("output", kFloat, 1, kRank)});
  add("skipRmsNormalization", {operand("input", kFloat, 1, kRank)}, {operand("output", kFloat, 1, kRank)});
  add("rotaryEmbedding", {operand("input", kFloat, 3, 4)}, {operand("output", kFloat, 3, 4)});
  add("groupQueryAttention", {operand("query", kFloat, 3, 3)}, {operand("output", kFloat, 3, 3)});
  add("matmulNBits", {operand("input", kFloat, 1, kRank)}, {operand("output", kFloat, 1, kRank)});
  add("quantizedMatmul", {operand("a", rt::dataTypes(T::kFloat32, T::kInt8, T::kUint8), 2, kRank)},
      {operand("output", rt::dataTypeBit(T::kFloat32), 2, kRank)});
  // conv/QuantizedConv2d.cpp: nhwc 8-bit input; float32 or 8-bit output.
  add("quantizedConv2d", {operand("input", rt::dataTypes(T::kInt8, T::kUint8), 4, 4)},
      {operand("output", rt::dataTypes(T::kFloat32, T::kInt8, T::kUint8), 4, 4)});
  std::sort(t.ops.begin(), t.ops.end(), [](const OpLimits &a, const OpLimits &b) { return a.op < b.op; });
  return t;
}

}  // namespace

const rt::OpSupportTable &cpuOpSupport() {
  static const rt::OpSupportTable table = build();
  return table;
}

}  // namespace webnn::cpu
