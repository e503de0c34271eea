// Small matchers and builders shared by the LLM fusion passes
// (FuseRmsNorm, FuseRotary, FuseGroupQueryAttention, FuseMatmulNBits) and
// their decomposition (DecomposeFused).
#ifndef WEBNN_TRANSFORMS_MATCHUTILS_H
#define WEBNN_TRANSFORMS_MATCHUTILS_H

#include <cstring>
#include <optional>

#include "dialects/webnn/WebNNOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::webnn {

// The bytes behind a resource-backed constant (large ONNX initializers and
// DSL weights), sub-byte types packed two per byte, low nibble first.
inline std::optional<ArrayRef<char>> resourceBytes(Attribute value) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  if (!resource) return std::nullopt;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob) return std::nullopt;
  return blob->getData();
}

// The constant under any reshapes of `v` (a reshape keeps the row-major
// order, so its elements are the constant's; fold-constants leaves reshapes
// of resource-backed constants in place).
inline ConstantOp constantThroughReshapes(Value v) {
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) v = reshape.getInput();
  return v.getDefiningOp<ConstantOp>();
}

// The elements of a float constant as doubles (row-major), or nullopt.
inline std::optional<SmallVector<double>> floatConstantValues(Value v) {
  ConstantOp constant = constantThroughReshapes(v);
  if (!constant) return std::nullopt;
  auto type = cast<RankedTensorType>(constant.getType());
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (!floatType || !type.hasStaticShape()) return std::nullopt;
  SmallVector<double> out;
  out.reserve(type.getNumElements());
  if (auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue())) {
    for (APFloat x : dense.getValues<APFloat>()) out.push_back(x.convertToDouble());
    return out;
  }
  std::optional<ArrayRef<char>> bytes = resourceBytes(constant.getValue());
  unsigned width = floatType.getWidth();
  if (!bytes || (width != 16 && width != 32 && width != 64) ||
      int64_t(bytes->size()) != type.getNumElements() * int64_t(width / 8))
    return std::nullopt;
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes->data() + i * (width / 8), width / 8);
    out.push_back(APFloat(floatType.getFloatSemantics(), APInt(width, raw)).convertToDouble());
  }
  return out;
}

// The value of a float constant whose elements are all equal (a scalar, a [1]
// or a splat tensor); nullopt otherwise.
inline std::optional<double> uniformFloatConstant(Value v) {
  if (auto constant = v.getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue()); dense && dense.isSplat())
      return dense.getSplatValue<APFloat>().convertToDouble();
  std::optional<SmallVector<double>> values = floatConstantValues(v);
  if (!values || values->empty()) return std::nullopt;
  for (double x : *values)
    if (x != values->front()) return std::nullopt;
  return values->front();
}

// The elements of an integer constant as int64 (sign- or zero-extended by
// the element type's signedness), or nullopt.
inline std::optional<SmallVector<int64_t>> intConstantValues(Value v) {
  ConstantOp constant = constantThroughReshapes(v);
  if (!constant) return std::nullopt;
  auto type = cast<RankedTensorType>(constant.getType());
  auto intType = dyn_cast<IntegerType>(type.getElementType());
  if (!intType || !type.hasStaticShape()) return std::nullopt;
  bool isUnsigned = intType.isUnsigned();
  SmallVector<int64_t> out;
  out.reserve(type.getNumElements());
  if (auto dense = dyn_cast<DenseIntElementsAttr>(constant.getValue())) {
    for (APInt x : dense.getValues<APInt>()) out.push_back(isUnsigned ? int64_t(x.getZExtValue()) : x.getSExtValue());
    return out;
  }
  std::optional<ArrayRef<char>> bytes = resourceBytes(constant.getValue());
  unsigned width = intType.getWidth();
  int64_t n = type.getNumElements();
  if (!bytes || (width != 4 && width % 8 != 0) ||
      int64_t(bytes->size()) != (width == 4 ? (n + 1) / 2 : n * int64_t(width / 8)))
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t raw = 0;
    if (width == 4) raw = (uint8_t((*bytes)[i / 2]) >> (4 * (i % 2))) & 0xF;
    else std::memcpy(&raw, bytes->data() + i * (width / 8), width / 8);
    APInt x(width, raw);
    out.push_back(isUnsigned ? int64_t(x.getZExtValue()) : x.getSExtValue());
  }
  return out;
}

inline Value otherOperand(Operation *binary, Value v) {
  return binary->getOperand(0) == v ? binary->getOperand(1) : binary->getOperand(0);
}

// Whether every element of an optional array attribute equals v; an absent
// one is the op's default (0 padding, 1 stride or dilation) and counts as v.
inline bool allEqual(std::optional<ArrayRef<int64_t>> values, int64_t v) {
  if (!values) return true;
  for (int64_t x : *values)
    if (x != v) return false;
  return true;
}

inline bool hasPermutation(TransposeOp t, ArrayRef<int64_t> perm) {
  std::optional<ArrayRef<int64_t>> p = t.getPermutation();
  return p && *p == perm;
}

// A float constant of `shape` and element type `elem` from doubles.
inline Value floatConstant(PatternRewriter &rewriter, Location loc, ArrayRef<int64_t> shape, Type elem,
                           ArrayRef<double> values) {
  auto type = RankedTensorType::get(shape, elem);
  auto floatType = cast<FloatType>(elem);
  SmallVector<APFloat> elems;
  elems.reserve(values.size());
  for (double d : values) {
    APFloat x(d);
    bool lost = false;
    x.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    elems.push_back(x);
  }
  auto attr = DenseElementsAttr::get(type, elems);
  return ConstantOp::create(rewriter, loc, type, attr, StringAttr()).getResult();
}

inline Value scalarConstant(PatternRewriter &rewriter, Location loc, Type elem, double value) {
  return floatConstant(rewriter, loc, {}, elem, {value});
}

// An integer constant (signless/signed/unsigned per `elem`) from int64s.
inline Value intConstant(PatternRewriter &rewriter, Location loc, ArrayRef<int64_t> shape, Type elem,
                         ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, elem);
  unsigned width = elem.getIntOrFloatBitWidth();
  SmallVector<APInt> elems;
  elems.reserve(values.size());
  for (int64_t v : values) elems.push_back(APInt(width, uint64_t(v), /*isSigned=*/!elem.isUnsignedInteger(), true));
  auto attr = DenseElementsAttr::get(type, elems);
  return ConstantOp::create(rewriter, loc, type, attr, StringAttr()).getResult();
}

inline Value reshapeTo(PatternRewriter &rewriter, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape) return v;
  return ReshapeOp::create(rewriter, loc, RankedTensorType::get(shape, type.getElementType()), v,
                           rewriter.getDenseI64ArrayAttr(shape))
      .getResult();
}

inline Value sliceLastAxis(PatternRewriter &rewriter, Location loc, Value v, int64_t start, int64_t size,
                           int64_t stride = 1) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts(rank, 0), sizes(type.getShape()), strides(rank, 1);
  starts.back() = start;
  sizes.back() = size;
  strides.back() = stride;
  return SliceOp::create(rewriter, loc, v, rewriter.getDenseI64ArrayAttr(starts), rewriter.getDenseI64ArrayAttr(sizes),
                         rewriter.getDenseI64ArrayAttr(strides))
      .getResult();
}

// Erases the ops of a matched chain that are left without uses, users
// before producers whatever the list's order; returns how many.
inline int64_t eraseDeadOps(PatternRewriter &rewriter, ArrayRef<Operation *> chain) {
  SmallVector<Operation *> live;
  for (Operation *op : chain)
    if (!llvm::is_contained(live, op)) live.push_back(op);
  int64_t erased = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *&op : live)
      if (op && op->use_empty()) {
        rewriter.eraseOp(op);
        op = nullptr;
        ++erased;
        changed = true;
      }
  }
  return erased;
}

}  // namespace mlir::webnn

#endif
