// quantizeLinear and dequantizeLinear (WebNN spec sections of the same names).
//
// scale and zeroPoint have at most the input's rank (a lower rank aligns with
// the input's trailing dims) and are blockwise broadcast: along dimension d,
// input index i uses scale index i / (inputDim / scaleDim). The kernels walk
// the input row by row (all dims but the last), find the scale row once per
// row, and step through the last dimension in blocks.
//
// quantizeLinear: saturate(roundEven(x / scale) + zeroPoint) into the output
// type (zeroPoint's): the quotient in float (as ONNX computes it), the rest in
// double so int32 zero points stay exact; NaN
// quantizes to the zero point. dequantizeLinear: (x - zeroPoint) * scale, the
// difference taken exactly in int64. int4/uint4 (two per byte, low nibble
// first) are accepted beyond the spec's type list, like the dialect.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

constexpr std::initializer_list<DataType> kQuantizedTypes = {DataType::kInt8,  DataType::kUint8, DataType::kInt32,
                                                             DataType::kUint32, DataType::kInt4, DataType::kUint4};

bool is4Bit(DataType t) { return t == DataType::kInt4 || t == DataType::kUint4; }

// Integer element i of a tensor of type t, widened to int64.
inline int64_t loadInteger(const void *p, DataType t, int64_t i) {
  switch (t) {
    case DataType::kInt8: return static_cast<const int8_t *>(p)[i];
    case DataType::kUint8: return static_cast<const uint8_t *>(p)[i];
    case DataType::kInt32: return static_cast<const int32_t *>(p)[i];
    case DataType::kUint32: return static_cast<const uint32_t *>(p)[i];
    default: {
      uint8_t v = (static_cast<const uint8_t *>(p)[i >> 1] >> ((i & 1) * 4)) & 0xf;
      return t == DataType::kInt4 ? int64_t(int8_t(uint8_t(v << 4)) >> 4) : int64_t(v);
    }
  }
}

inline void integerRange(DataType t, int64_t *lo, int64_t *hi) {
  switch (t) {
    case DataType::kInt8: *lo = -128; *hi = 127; break;
    case DataType::kUint8: *lo = 0; *hi = 255; break;
    case DataType::kInt32: *lo = std::numeric_limits<int32_t>::min(); *hi = std::numeric_limits<int32_t>::max(); break;
    case DataType::kUint32: *lo = 0; *hi = std::numeric_limits<uint32_t>::max(); break;
    case DataType::kInt4: *lo = -8; *hi = 7; break;
    default: *lo = 0; *hi = 15; break;
  }
}

// Stores v (already in range) as element i. 4-bit stores touch one nibble;
// callers give each thread whole bytes.
inline void storeInteger(void *p, DataType t, int64_t i, int64_t v) {
  switch (t) {
    case DataType::kInt8: static_cast<int8_t *>(p)[i] = int8_t(v); break;
    case DataType::kUint8: static_cast<uint8_t *>(p)[i] = uint8_t(v); break;
    case DataType::kInt32: static_cast<int32_t *>(p)[i] = int32_t(v); break;
    case DataType::kUint32: static_cast<uint32_t *>(p)[i] = uint32_t(v); break;
    default: {
      uint8_t &byte = static_cast<uint8_t *>(p)[i >> 1];
      int shift = int(i & 1) * 4;
      byte = uint8_t((byte & ~(0xf << shift)) | ((uint8_t(v) & 0xf) << shift));
    }
  }
}

inline float loadFloat(const void *p, bool half, int64_t i) {
  return half ? halfToFloat(static_cast<const uint16_t *>(p)[i]) : static_cast<const float *>(p)[i];
}

// Row-wise walk of the blockwise broadcast: for input row r (all dims but the
// last), the offset of its scale row; along the last dim, the block length.
struct BlockPlan {
  int64_t rows = 0, cols = 0, block = 1;
  std::vector<int64_t> rowDims, rowBlock, scaleRowStride;  // per leading dim
  int64_t scaleCols = 1;

  Status init(const NodeDesc &node, const Shape &input, const Shape &givenScale) {
    if (givenScale.size() > input.size())
      return nodeError(node, "scale and zeroPoint must have at most the input's rank " +
                                 std::to_string(input.size()) + ", got " + shapeToString(givenScale));
    // A lower-rank scale aligns with the input's trailing dims (leading 1s).
    Shape scale(input.size() - givenScale.size(), 1);
    scale.insert(scale.end(), givenScale.begin(), givenScale.end());
    for (size_t d = 0; d < input.size(); ++d)
      if (scale[d] <= 0 || input[d] % scale[d] != 0)
        return nodeError(node, "scale shape " + shapeToString(givenScale) +
                                   " is not blockwise broadcastable to the input shape " + shapeToString(input));
    if (input.empty()) {
      rows = cols = 1;
      return Status::ok();
    }
    cols = input.back();
    scaleCols = scale.back();
    block = cols / scaleCols;
    rows = 1;
    int64_t stride = scaleCols;
    rowDims.resize(input.size() - 1);
    rowBlock.resize(input.size() - 1);
    scaleRowStride.resize(input.size() - 1);
    for (size_t d = input.size() - 1; d-- > 0;) {
      rowDims[d] = input[d];
      rowBlock[d] = input[d] / scale[d];
      scaleRowStride[d] = stride;
      stride *= scale[d];
      rows *= input[d];
    }
    return Status::ok();
  }

  int64_t scaleRowOffset(int64_t row) const {
    int64_t off = 0;
    for (size_t d = rowDims.size(); d-- > 0;) {
      int64_t c = row % rowDims[d];
      row /= rowDims[d];
      off += (c / rowBlock[d]) * scaleRowStride[d];
    }
    return off;
  }
};

Status checkOperands(const NodeDesc &node, const OperandDesc &x, const OperandDesc &scale, const OperandDesc &zp) {
  if (zp.shape != scale.shape)
    return nodeError(node, "zeroPoint shape " + shapeToString(zp.shape) + " differs from the scale shape " +
                               shapeToString(scale.shape));
  (void)x;
  return Status::ok();
}

class QuantizeKernel final : public Kernel {
 public:
  QuantizeKernel(BlockPlan p, bool half, DataType outType, bool oneScale)
      : p_(std::move(p)), half_(half), out_(outType), oneScale_(oneScale) {
    integerRange(out_, &lo_, &hi_);
  }
  Status run(const KernelContext &ctx) override {
    const void *x = ctx.inputs[0]->data;
    const void *scale = ctx.inputs[1]->data;
    const void *zp = ctx.inputs[2]->data;
    void *y = ctx.outputs[0]->data;
    DataType zpType = ctx.inputs[2]->dtype;
    if (perTensor8Bit()) {
      // One float32 scale, 8-bit output (QDQ activations): the same rule in
      // float, which the compiler vectorizes. Exact: a quotient too large for
      // q + zp to be exact in float saturates either way.
      const float *xf = static_cast<const float *>(x);
      const float s = *static_cast<const float *>(scale);
      const float z = float(loadInteger(zp, zpType, 0)), lo = float(lo_), hi = float(hi_);
      const bool isSigned = out_ == DataType::kInt8;
      parallelFor(ctx, p_.rows * p_.cols, 16384, [&](int64_t b, int64_t e) {
        int64_t i = b;
#if defined(__AVX2__)
        const __m256 vs = _mm256_set1_ps(s), vz = _mm256_set1_ps(z), vlo = _mm256_set1_ps(lo),
                     vhi = _mm256_set1_ps(hi);
        for (; i + 8 <= e; i += 8) {
          __m256 q = _mm256_div_ps(_mm256_loadu_ps(xf + i), vs);
          __m256 nan = _mm256_cmp_ps(q, q, _CMP_UNORD_Q);
          q = _mm256_add_ps(_mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
          q = _mm256_blendv_ps(_mm256_min_ps(_mm256_max_ps(q, vlo), vhi), vz, nan);
          __m256i qi = _mm256_cvtps_epi32(q);
          __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(qi), _mm256_extracti128_si256(qi, 1));
          w = isSigned ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
          _mm_storel_epi64(reinterpret_cast<__m128i *>(static_cast<uint8_t *>(y) + i), w);
        }
#endif
        for (; i < e; ++i) {
          float v = std::nearbyint(xf[i] / s) + z;
          float q = v != v ? z : std::min(std::max(v, lo), hi);
          if (isSigned) static_cast<int8_t *>(y)[i] = int8_t(q);
          else static_cast<uint8_t *>(y)[i] = uint8_t(q);
        }
      });
      return Status::ok();
    }
    auto rowsFn = [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        int64_t srow = p_.scaleRowOffset(r);
        for (int64_t j = 0; j < p_.cols; ++j) {
          int64_t i = r * p_.cols + j, s = srow + j / p_.block;
          // The quotient is rounded to float first, as ONNX (and its runtimes)
          // divide in float: a double quotient just below .5 would round the
          // other way (ONNX's DynamicQuantizeLinear expanded test: 25.5).
          double q = std::nearbyint(double(loadFloat(x, half_, i) / loadFloat(scale, half_, s)));
          double v = q + double(loadInteger(zp, zpType, s));
          int64_t out = std::isnan(v) ? loadInteger(zp, zpType, s)
                                      : int64_t(std::min(std::max(v, double(lo_)), double(hi_)));
          storeInteger(y, out_, i, out);
        }
      }
    };
    // 4-bit rows of odd length share bytes across rows: run those serially.
    if (is4Bit(out_) && (p_.cols & 1)) rowsFn(0, p_.rows);
    else parallelFor(ctx, p_.rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, p_.cols)), rowsFn);
    return Status::ok();
  }

 private:
  bool perTensor8Bit() const { return !half_ && oneScale_ && (out_ == DataType::kInt8 || out_ == DataType::kUint8); }

  BlockPlan p_;
  bool half_;
  DataType out_;
  int64_t lo_ = 0, hi_ = 0;
  bool oneScale_;
};

Status makeQuantizeLinear(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 3, 1));
  const OperandDesc &x = *node.inputs[0], &scale = *node.inputs[1], &zp = *node.inputs[2];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  if (scale.dtype != x.dtype) return nodeError(node, "scale must have the input's data type");
  WEBNN_RETURN_IF_ERROR(checkDataType(node, zp, "zeroPoint", kQuantizedTypes));
  WEBNN_RETURN_IF_ERROR(checkOperands(node, x, scale, zp));
  BlockPlan plan;
  WEBNN_RETURN_IF_ERROR(plan.init(node, x.shape, scale.shape));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, zp.dtype));
  *out = std::make_unique<QuantizeKernel>(std::move(plan), x.dtype == DataType::kFloat16, zp.dtype,
                                          numElements(scale.shape) == 1);
  return Status::ok();
}

class DequantizeKernel final : public Kernel {
 public:
  DequantizeKernel(BlockPlan p, DataType inType, bool half, bool oneScale)
      : p_(std::move(p)), in_(inType), half_(half), oneScale_(oneScale) {}
  Status run(const KernelContext &ctx) override {
    const void *x = ctx.inputs[0]->data;
    const void *scale = ctx.inputs[1]->data;
    const void *zp = ctx.inputs[2]->data;
    void *y = ctx.outputs[0]->data;
    if (!half_ && oneScale_ && (in_ == DataType::kInt8 || in_ == DataType::kUint8)) {
      // One scale, 8-bit input: (x - zp) is exact in float and the product
      // rounds once, as the double product rounded to float does.
      const float s = *static_cast<const float *>(scale);
      const float z = float(loadInteger(zp, in_, 0));
      float *yf = static_cast<float *>(y);
      const bool isSigned = in_ == DataType::kInt8;
      parallelFor(ctx, p_.rows * p_.cols, 16384, [&](int64_t b, int64_t e) {
        if (isSigned)
          for (int64_t i = b; i < e; ++i) yf[i] = (float(static_cast<const int8_t *>(x)[i]) - z) * s;
        else
          for (int64_t i = b; i < e; ++i) yf[i] = (float(static_cast<const uint8_t *>(x)[i]) - z) * s;
      });
      return Status::ok();
    }
    parallelFor(ctx, p_.rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, p_.cols)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        int64_t srow = p_.scaleRowOffset(r);
        for (int64_t j = 0; j < p_.cols; ++j) {
          int64_t i = r * p_.cols + j, s = srow + j / p_.block;
          double v = double(loadInteger(x, in_, i) - loadInteger(zp, in_, s)) * double(loadFloat(scale, half_, s));
          if (half_) static_cast<uint16_t *>(y)[i] = floatToHalf(float(v));
          else static_cast<float *>(y)[i] = float(v);
        }
      }
    });
    return Status::ok();
  }

 private:
  BlockPlan p_;
  DataType in_;
  bool half_;
  bool oneScale_;
};

Status makeDequantizeLinear(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 3, 3, 1));
  const OperandDesc &x = *node.inputs[0], &scale = *node.inputs[1], &zp = *node.inputs[2];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kQuantizedTypes));
  WEBNN_RETURN_IF_ERROR(checkDataType(node, scale, "scale", kFloatTypes));
  if (zp.dtype != x.dtype) return nodeError(node, "zeroPoint must have the input's data type");
  WEBNN_RETURN_IF_ERROR(checkOperands(node, x, scale, zp));
  BlockPlan plan;
  WEBNN_RETURN_IF_ERROR(plan.init(node, x.shape, scale.shape));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, x.shape, scale.dtype));
  *out = std::make_unique<DequantizeKernel>(std::move(plan), x.dtype, scale.dtype == DataType::kFloat16,
                                            numElements(scale.shape) == 1);
  return Status::ok();
}

}  // namespace

void registerQuantizationKernels(KernelTable &t) {
  t.add("quantizeLinear", &makeQuantizeLinear);
  t.add("dequantizeLinear", &makeDequantizeLinear);
}

}  // namespace webnn::cpu::kernels
