// Shape rules shared by the op families: broadcasting, axis validation and
// the diagnostics inference emits. Inference runs before an op exists (front
// ends call it to learn result types), so errors go to an optional Location
// and are phrased like emitOpError: "'webnn.<op>' op expected ... but got ...".
#ifndef WEBNN_SHAPE_UTILS_H
#define WEBNN_SHAPE_UTILS_H

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

namespace mlir::webnn {

// Result-type inference runs before the op exists (GraphBuilder builds ops by
// name), so check the ODS invariants on the adaptor first: a missing required
// option or a mis-sized operand segment is then a diagnostic, not a null
// attribute dereferenced by the shape rules.
template <typename AdaptorT>
LogicalResult verifyAdaptor(std::optional<Location> loc, AdaptorT &adaptor) {
  return loc ? adaptor.verify(*loc) : success();
}


// "[1, 3, ?, 4]": shapes and integer lists in diagnostics.
std::string formatList(ArrayRef<int64_t> values);

// Emits "'<opName>' op <args...>" at `loc` (if any) and returns failure.
template <typename... Args>
LogicalResult opError(std::optional<Location> loc, StringRef opName, Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ", std::forward<Args>(args)...);
}

// Spec "bidirectionally broadcast the shapes" (numpy rules). Returns false if
// two dimensions differ and neither is 1. Dynamic dimensions are tolerated.
bool broadcastBidirectional(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                            SmallVectorImpl<int64_t> &out);

// Spec "unidirectionally broadcastable": `from` can be repeated into `to`
// without changing `to` (from's rank <= to's, every dim equal or 1).
bool isUnidirectionallyBroadcastable(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

// Checks every axis lies in [0, rank) and none repeats; `what` names the
// attribute in the message.
LogicalResult checkAxes(std::optional<Location> loc, StringRef opName, StringRef what,
                        ArrayRef<int64_t> axes, int64_t rank);

// Product of dims, or ShapedType::kDynamic if any is dynamic.
int64_t elementCount(ArrayRef<int64_t> shape);

// The operand's ranked tensor type, or a diagnostic naming the operand.
FailureOr<RankedTensorType> tensorOperand(std::optional<Location> loc, StringRef opName,
                                          StringRef operandName, Value value);

// The usual start of an inference: the adaptor's invariants, then operand
// 'input'.
template <typename AdaptorT>
FailureOr<RankedTensorType> verifiedInput(std::optional<Location> loc, StringRef opName,
                                          AdaptorT &adaptor) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  return tensorOperand(loc, opName, "input", adaptor.getInput());
}

// Requires 0 <= axis < rank, the rank of the input the axis indexes.
LogicalResult checkAxisInRange(std::optional<Location> loc, StringRef opName, int64_t axis,
                               int64_t rank);

// tensorOperand for several operands at once: each bad one gets its
// diagnostic, and the result fails if any was bad. Unpack it with
// `auto [a, b] = *types;`.
template <size_t N>
FailureOr<std::array<RankedTensorType, N>>
tensorOperands(std::optional<Location> loc, StringRef opName,
               const std::pair<StringRef, Value> (&operands)[N]) {
  std::array<RankedTensorType, N> types;
  bool ok = true;
  for (size_t i = 0; i < N; ++i) {
    FailureOr<RankedTensorType> type =
        tensorOperand(loc, opName, operands[i].first, operands[i].second);
    if (failed(type)) ok = false;
    else types[i] = *type;
  }
  if (!ok) return failure();
  return types;
}

// Requires `actual` to have `expected`'s element type ("same type as" in the
// spec's tensor limits tables).
LogicalResult checkSameElementType(std::optional<Location> loc, StringRef opName,
                                   StringRef operandName, RankedTensorType actual,
                                   StringRef referenceName, RankedTensorType expected);

// One of MLOperandDataType: f32, f16, i32, ui32, i64, ui64, i8, ui8, i4, ui4
// (signless integers are the signed WebNN types).
bool isWebNNElementType(Type type);

inline bool isDynamic(int64_t d) { return ShapedType::isDynamic(d); }

// A WebNN "valid dimension": a positive size (dynamic sizes pass).
inline bool isValidDimension(int64_t d) { return isDynamic(d) || d > 0; }

}  // namespace mlir::webnn

#endif  // WEBNN_SHAPE_UTILS_H
