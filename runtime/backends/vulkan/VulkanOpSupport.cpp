// Each entry restates what the op's kernel factory (kernels/*.cpp) checks of
// types and ranks; test/unit/vulkan/VulkanOpSupportTest.cpp holds the two to
// each other (the same op set; per op and data type, the factory accepts a
// plain node exactly when the table does).
#include "backends/vulkan/VulkanOpSupport.h"

#include <algorithm>

namespace webnn::vk {
namespace {

using rt::OpLimits;
using rt::OperandLimits;
using rt::TensorLimits;
using T = DataType;

// shaderDataType(): what TENSOR_IN/TENSOR_OUT read and write.
constexpr rt::DataTypeSet kShader = rt::dataTypes(T::kFloat32, T::kFloat16, T::kInt32, T::kUint32, T::kInt64,
                                                  T::kUint64, T::kInt8, T::kUint8);
// elementBytes() != 0: what the byte-copying shaders move (float64 too).
constexpr rt::DataTypeSet kBytes = kShader | rt::dataTypeBit(T::kFloat64);
constexpr rt::DataTypeSet kFloat = rt::dataTypes(T::kFloat32, T::kFloat16);
constexpr rt::DataTypeSet kIndex = kShader & ~kFloat;
// Kernels that treat a tensor as flat (or split it by one axis) have no rank
// limit of their own; the table advertises up to 8.
constexpr uint32_t kFlatRank = 8;
// Shaders carrying six dimensions of strides (pad, reductions, quantize).
constexpr uint32_t kStridedRank = 6;
// Broadcasting ops and strided copies merge the dims every operand walks as
// one (coalesceDims) and copies walk what remains beyond six in dispatches of
// their own: the table advertises kFlatRank, and a binary op whose dims do
// not merge to six is refused by its factory.
constexpr uint32_t kMergedRank = kFlatRank;

OperandLimits operand(const char *name, rt::DataTypeSet types, uint32_t minRank, uint32_t maxRank,
                      bool repeated = false) {
  return {name, TensorLimits{types, minRank, maxRank}, repeated};
}

rt::OpSupportTable build() {
  rt::OpSupportTable t;
  t.backend = "vulkan";
  t.preferredInputLayout = "nchw";
  t.input = t.output = TensorLimits{kBytes, 0, kFlatRank};
  t.constant = TensorLimits{kBytes, 0, kFlatRank};
  auto add = [&](const char *op, std::vector<OperandLimits> in, std::vector<OperandLimits> out) {
    t.ops.push_back(OpLimits{op, std::move(in), std::move(out)});
  };
  // Elementwise.cpp
  for (const char *op : {"add", "sub", "mul", "div", "max", "min", "pow", "equal", "greater", "greaterOrEqual",
                         "lesser", "lesserOrEqual", "notEqual", "logicalAnd", "logicalOr", "logicalXor"})
    add(op, {operand("a", kShader, 0, kMergedRank), operand("b", kShader, 0, kMergedRank)},
        {operand("output", kShader, 0, kMergedRank)});
  add("prelu", {operand("input", kShader, 0, kMergedRank), operand("slope", kShader, 0, kMergedRank)},
      {operand("output", kShader, 0, kMergedRank)});
  for (const char *op : {"identity", "abs", "ceil", "floor", "exp", "log", "neg", "relu", "sigmoid", "sqrt", "tanh",
                         "erf", "gelu", "elu", "hardSigmoid", "hardSwish", "leakyRelu", "linear", "clamp",
                         "logicalNot", "reciprocal", "sin", "cos", "softplus", "softsign", "sign", "roundEven", "tan",
                         "cast", "isNaN", "isInfinite"})
    add(op, {operand("input", kShader, 0, kFlatRank)}, {operand("output", kShader, 0, kFlatRank)});
  add("where",
      {operand("condition", kShader, 0, kMergedRank), operand("trueValue", kBytes, 0, kMergedRank),
       operand("falseValue", kBytes, 0, kMergedRank)},
      {operand("output", kBytes, 0, kMergedRank)});
  // Copy.cpp
  add("reshape", {operand("input", kBytes, 0, kFlatRank)}, {operand("output", kBytes, 0, kFlatRank)});
  for (const char *op : {"transpose", "expand", "slice", "reverse", "tile"})
    add(op, {operand("input", kBytes, 0, kMergedRank)}, {operand("output", kBytes, 0, kMergedRank)});
  add("pad", {operand("input", kBytes, 0, kStridedRank)}, {operand("output", kBytes, 0, kStridedRank)});
  add("concat", {operand("inputs", kBytes, 1, kMergedRank, true)}, {operand("output", kBytes, 1, kMergedRank)});
  add("split", {operand("input", kBytes, 1, kMergedRank)}, {operand("outputs", kBytes, 1, kMergedRank, true)});
  add("triangular", {operand("input", kBytes, 2, kFlatRank)}, {operand("output", kBytes, 2, kFlatRank)});
  // ChannelShuffle.cpp: strided copies over [outer, j, g, inner], any rank.
  add("channelShuffle", {operand("inputs", kBytes, 1, kFlatRank, true)},
      {operand("outputs", kBytes, 1, kFlatRank, true)});
  // Gather.cpp
  for (const char *op : {"gather", "gatherElements"})
    add(op, {operand("input", kBytes, 1, kFlatRank), operand("indices", kIndex, 0, kFlatRank)},
        {operand("output", kBytes, 0, kFlatRank)});
  add("gatherND", {operand("input", kBytes, 1, kFlatRank), operand("indices", kIndex, 1, kFlatRank)},
      {operand("output", kBytes, 0, kFlatRank)});
  // Scatter.cpp
  for (const char *op : {"scatterND", "scatterElements"})
    add(op,
        {operand("input", kBytes, 1, kFlatRank), operand("indices", kIndex, 1, kFlatRank),
         operand("updates", kBytes, 0, kFlatRank)},
        {operand("output", kBytes, 1, kFlatRank)});
  // Resample.cpp
  constexpr rt::DataTypeSet kResample = kFloat | rt::dataTypes(T::kInt8, T::kUint8);
  add("resample2d", {operand("input", kResample, 4, 4)}, {operand("output", kResample, 4, 4)});
  // Quantization.cpp: the float side float32/float16, the integer side 4, 8 or 32 bits.
  constexpr rt::DataTypeSet kQuantized =
      rt::dataTypes(T::kInt4, T::kUint4, T::kInt8, T::kUint8, T::kInt32, T::kUint32);
  add("quantizeLinear",
      {operand("input", kFloat, 0, kStridedRank), operand("scale", kFloat, 0, kStridedRank),
       operand("zeroPoint", kQuantized, 0, kStridedRank)},
      {operand("output", kQuantized, 0, kStridedRank)});
  add("dequantizeLinear",
      {operand("input", kQuantized, 0, kStridedRank), operand("scale", kFloat, 0, kStridedRank),
       operand("zeroPoint", kQuantized, 0, kStridedRank)},
      {operand("output", kFloat, 0, kStridedRank)});
  // QuantizedMatmul.cpp: a float32 or already quantized; the other operands
  // follow from it (docs/FUSED_OPS.md).
  add("quantizedMatmul", {operand("a", rt::dataTypes(T::kFloat32, T::kInt8, T::kUint8), 2, kFlatRank)},
      {operand("output", rt::dataTypeBit(T::kFloat32), 2, kFlatRank)});
  // MatMul.cpp: up to four batch dimensions.
  for (const char *op : {"matmul", "fusedMatmul"})
    add(op, {operand("a", kFloat, 2, 6), operand("b", kFloat, 2, 6)}, {operand("output", kFloat, 2, 6)});
  add("gemm", {operand("a", kFloat, 2, 2), operand("b", kFloat, 2, 2), operand("c", kFloat, 0, 2)},
      {operand("output", kFloat, 2, 2)});
  // FusedAttention.cpp
  add("fusedAttention",
      {operand("query", kFloat, 3, 3), operand("key", kFloat, 3, 3), operand("value", kFloat, 3, 3)},
      {operand("output", kFloat, 3, 3)});
  // Convolution.cpp
  for (const char *op : {"conv2d", "fusedConv2d", "convTranspose2d"})
    add(op, {operand("input", kFloat, 4, 4), operand("filter", kFloat, 4, 4), operand("bias", kFloat, 1, 1)},
        {operand("output", kFloat, 4, 4)});
  // Pooling.cpp
  for (const char *op : {"averagePool2d", "maxPool2d", "l2Pool2d"})
    add(op, {operand("input", kFloat, 4, 4)}, {operand("output", kFloat, 4, 4)});
  // Reduction.cpp
  for (const char *op : {"reduceSum", "reduceMean", "reduceMax", "reduceMin", "reduceProduct", "reduceL1", "reduceL2",
                         "reduceLogSum", "reduceLogSumExp", "reduceSumSquare"})
    add(op, {operand("input", kShader, 0, kStridedRank)}, {operand("output", kShader, 0, kStridedRank)});
  for (const char *op : {"argMax", "argMin"})
    add(op, {operand("input", kShader, 1, kStridedRank)}, {operand("output", kShader, 0, kStridedRank)});
  // Softmax.cpp
  add("softmax", {operand("input", kFloat, 1, kFlatRank)}, {operand("output", kFloat, 1, kFlatRank)});
  add("cumulativeSum", {operand("input", kShader, 1, kFlatRank)}, {operand("output", kShader, 1, kFlatRank)});
  // Normalization.cpp
  add("layerNormalization",
      {operand("input", kFloat, 0, kFlatRank), operand("scale", kFloat, 0, kFlatRank),
       operand("bias", kFloat, 0, kFlatRank)},
      {operand("output", kFloat, 0, kFlatRank)});
  add("instanceNormalization",
      {operand("input", kFloat, 4, 4), operand("scale", kFloat, 1, 1), operand("bias", kFloat, 1, 1)},
      {operand("output", kFloat, 4, 4)});
  add("batchNormalization",
      {operand("input", kFloat, 1, kFlatRank), operand("mean", kFloat, 1, 1), operand("variance", kFloat, 1, 1),
       operand("scale", kFloat, 1, 1), operand("bias", kFloat, 1, 1)},
      {operand("output", kFloat, 1, kFlatRank)});
  // RmsNormalization.cpp, MatMulNBits.cpp, GroupQueryAttention.cpp,
  // RotaryEmbedding.cpp (the decoder-LLM ops of docs/LLM.md): the leading
  // operand; the others' types and shapes follow from it and the options.
  for (const char *op : {"rmsNormalization", "skipRmsNormalization"})
    add(op, {operand("input", kFloat, 1, kFlatRank)}, {operand("output", kFloat, 1, kFlatRank)});
  add("matmulNBits", {operand("input", kFloat, 1, kFlatRank)}, {operand("output", kFloat, 1, kFlatRank)});
  add("groupQueryAttention", {operand("query", kFloat, 3, 3)}, {operand("output", kFloat, 3, 3)});
  add("rotaryEmbedding", {operand("input", kFloat, 3, 4)}, {operand("output", kFloat, 3, 4)});
  // Recurrent.cpp: the input's type and rank (2 for the cells, 3 for the
  // layers); the other operands' shapes follow from hiddenSize. hiddenSize
  // is bounded by shared memory (16 bytes per hidden unit), which the table
  // cannot state: the factory refuses a larger one.
  add("gruCell", {operand("input", kFloat, 2, 2)}, {operand("output", kFloat, 2, 2)});
  add("lstmCell", {operand("input", kFloat, 2, 2)}, {operand("outputs", kFloat, 2, 2, true)});
  for (const char *op : {"gru", "lstm"})
    add(op, {operand("input", kFloat, 3, 3)}, {operand("outputs", kFloat, 3, 4, true)});
  std::sort(t.ops.begin(), t.ops.end(), [](const OpLimits &a, const OpLimits &b) { return a.op < b.op; });
  return t;
}

}  // namespace

const rt::OpSupportTable &vulkanOpSupport() {
  static const rt::OpSupportTable table = build();
  return table;
}

}  // namespace webnn::vk
