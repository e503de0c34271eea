// Verifiers of the control-flow ops (beyond the spec; WebNNOpsControlFlow.td):
// what the runtime relies on when it binds a region's inputs and copies its
// yielded values, checked once here so a malformed region never reaches the
// artifact.
#include "dialects/webnn/WebNNOps.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

bool isOneElement(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape() && r.getNumElements() == 1;
}

// The region's yielded types must be `expected` exactly; `what` names the region.
LogicalResult checkYield(Operation *op, Region &region, StringRef what, TypeRange expected,
                         StringRef valueName) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield) return op->emitOpError() << "the " << what << " must end with webnn.yield";
  if (yield.getValues().size() != expected.size())
    return op->emitOpError() << "the " << what << " yields " << yield.getValues().size()
                             << " values, expected " << expected.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(yield.getValues().getTypes(), expected))) {
    auto [got, want] = pair;
    if (got != want)
      return op->emitOpError() << "the " << what << " yields " << got << " as " << valueName << " #"
                               << i << ", expected " << want;
  }
  return success();
}

}  // namespace

LogicalResult IfOp::verifyRegions() {
  if (!isOneElement(getCondition().getType()))
    return emitOpError() << "condition must hold one element, got " << getCondition().getType();
  if (failed(checkYield(*this, getThenRegion(), "then region", getResultTypes(), "result")))
    return failure();
  return checkYield(*this, getElseRegion(), "else region", getResultTypes(), "result");
}

LogicalResult LoopOp::verifyRegions() {
  if (!getTripCount() && !getCondition())
    return emitOpError() << "needs a trip count, a condition or both (else it never ends)";
  if (Value trip = getTripCount()) {
    auto t = cast<RankedTensorType>(trip.getType());
    if (!t.getElementType().isSignlessInteger(64) || !isOneElement(t))
      return emitOpError() << "trip count must be a one-element int64 tensor, got " << t;
  }
  if (Value cond = getCondition(); cond && !isOneElement(cond.getType()))
    return emitOpError() << "condition must hold one element, got " << cond.getType();
  TypeRange carried = getInitialValues().getTypes();
  TypeRange results = getResultTypes();
  if (results.size() < carried.size() || results.take_front(carried.size()) != carried)
    return emitOpError() << "results must start with the carried values' types";
  TypeRange scans = results.drop_front(carried.size());
  Block &body = getBody().front();
  MLIRContext *ctx = getContext();
  SmallVector<Type> args = {RankedTensorType::get({}, IntegerType::get(ctx, 64)),
                            RankedTensorType::get({}, IntegerType::get(ctx, 8, IntegerType::Unsigned))};
  llvm::append_range(args, carried);
  if (body.getArgumentTypes() != TypeRange(args)) {
    std::string expected;
    llvm::raw_string_ostream os(expected);
    llvm::interleaveComma(args, os);
    return emitOpError() << "the body's arguments must be (iteration, condition, carried values...) "
                         << "of types (" << expected << ")";
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield) return emitOpError() << "the body must end with webnn.yield";
  if (yield.getValues().empty() || !isOneElement(yield.getValues()[0].getType()) ||
      cast<RankedTensorType>(yield.getValues()[0].getType()).getElementType() != cast<RankedTensorType>(args[1]).getElementType())
    return emitOpError() << "the body must yield a one-element uint8 condition first";
  SmallVector<Type> rest(yield.getValues().drop_front().getTypes());
  if (rest.size() != carried.size() + scans.size())
    return emitOpError() << "the body yields " << rest.size() << " values after the condition, expected "
                         << carried.size() << " carried and " << scans.size() << " scan values";
  for (auto [k, pair] : llvm::enumerate(llvm::zip(ArrayRef<Type>(rest).drop_front(carried.size()), scans))) {
    auto [value, result] = pair;
    auto v = cast<RankedTensorType>(value);
    auto r = cast<RankedTensorType>(result);
    if (r.getRank() != v.getRank() + 1 || ShapedType::isDynamic(r.getDimSize(0)) ||
        r.getShape().drop_front() != v.getShape() || r.getElementType() != v.getElementType())
      return emitOpError() << "scan result #" << k << " is " << r << ", expected its bound followed by the "
                           << "scan value's type " << v;
  }
  rest.resize(carried.size());
  for (auto [i, pair] : llvm::enumerate(llvm::zip(rest, carried))) {
    auto [got, want] = pair;
    if (got != want)
      return emitOpError() << "the body yields " << got << " as carried value #" << i
                           << ", which enters as " << want
                           << " (carried values keep their type across iterations)";
  }
  return success();
}
