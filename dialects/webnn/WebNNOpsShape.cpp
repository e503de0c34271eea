// Shape inference and validation for the data-movement ops (WebNN spec
// "concat", "split", "reshape", "expand", "transpose", "slice", "gather",
// "pad", "tile", "triangular").
#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty()) return opError(loc, name, "expected at least one operand in 'inputs'");
  FailureOr<RankedTensorType> first = tensorOperand(loc, name, "inputs[0]", inputs[0]);
  if (failed(first)) return failure();
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first->getRank())
    return opError(loc, name, "expected axis in [0, ", first->getRank(),
                   ") for inputs of rank ", first->getRank(), " but got ", axis);
  SmallVector<int64_t> shape(first->getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    std::string operandName = "inputs[" + std::to_string(index + 1) + "]";
    FailureOr<RankedTensorType> type = tensorOperand(loc, name, operandName, value);
    if (failed(type) ||
        failed(checkSameElementType(loc, name, operandName, *type, "inputs[0]", *first)))
      return failure();
    bool sameOffAxis = type->getRank() == first->getRank();
    for (int64_t d = 0; sameOffAxis && d < first->getRank(); ++d)
      if (d != axis && type->getDimSize(d) != shape[d] && !isDynamic(type->getDimSize(d)) &&
          !isDynamic(shape[d]))
        sameOffAxis = false;
    if (!sameOffAxis)
      return opError(loc, name, "expected operand '", operandName,
                     "' to match the shape of 'inputs[0]' ", formatList(first->getShape()),
                     " except along axis ", axis, " but got ", formatList(type->getShape()));
    int64_t size = type->getDimSize(axis);
    if (isDynamic(shape[axis]) || isDynamic(size)) shape[axis] = ShapedType::kDynamic;
    else if (__builtin_add_overflow(shape[axis], size, &shape[axis]))
      return opError(loc, name, "expected the inputs' sizes along axis ", axis,
                     " to sum to a size but their sum overflows int64");
  }
  results.push_back(RankedTensorType::get(shape, first->getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t axis = adaptor.getAxis().value_or(0);
  if (failed(checkAxisInRange(loc, name, axis, input->getRank()))) return failure();
  ArrayRef<int64_t> splits = adaptor.getSplits();
  if (splits.empty()) return opError(loc, name, "expected at least one value in splits");
  int64_t sum = 0;
  for (int64_t size : splits) {
    if (size <= 0)
      return opError(loc, name, "expected every splits value to be > 0 but got ",
                     formatList(splits));
    if (__builtin_add_overflow(sum, size, &sum))
      return opError(loc, name, "expected splits ", formatList(splits),
                     " to sum to a size but their sum overflows int64");
  }
  int64_t dim = input->getDimSize(axis);
  if (!isDynamic(dim) && sum != dim)
    return opError(loc, name, "expected splits ", formatList(splits), " to sum to ", dim,
                   " (the input's size along axis ", axis, ") but they sum to ", sum);
  SmallVector<int64_t> shape(input->getShape());
  for (int64_t size : splits) {
    shape[axis] = size;
    results.push_back(RankedTensorType::get(shape, input->getElementType()));
  }
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  ArrayRef<int64_t> newShape = adaptor.getNewShape();
  // Beyond the spec, for graphs with dynamic dimensions (docs/OPS.md): one
  // newShape value may be `?`, the size that keeps the input's element count
  // (the artifact writes it as -1 and the runtime resolves it at each run);
  // several `?` each keep the input's dimension at the same index (an
  // exporter's [batch, seq, heads, dim] target over [batch, seq, hidden]).
  if (llvm::count_if(newShape, isDynamic) >= 2) {
    SmallVector<int64_t> shape(newShape);
    for (auto [i, d] : llvm::enumerate(newShape)) {
      if (isDynamic(d)) {
        if (int64_t(i) >= input->getRank())
          return opError(loc, name, "expected every dynamic newShape value to have an input dimension at its "
                         "index (several `?` copy them) but got ", formatList(newShape), " for input ",
                         formatList(input->getShape()));
        shape[i] = input->getDimSize(int64_t(i));
      } else if (d <= 0) {
        return opError(loc, name, "expected every newShape value to be > 0 (or dynamic) but got ",
                       formatList(newShape));
      }
    }
    int64_t inputCount = elementCount(input->getShape()), outputCount = elementCount(shape);
    if (!isDynamic(inputCount) && !isDynamic(outputCount) && inputCount != outputCount)
      return opError(loc, name, "expected newShape ", formatList(newShape), " (dynamic values copying the input's) "
                     "to hold ", inputCount, " elements like the input ", formatList(input->getShape()),
                     " but it holds ", outputCount);
    results.push_back(RankedTensorType::get(shape, input->getElementType()));
    return success();
  }
  int64_t dynamicAt = -1, staticCount = 1;
  for (auto [i, d] : llvm::enumerate(newShape)) {
    if (isDynamic(d) && dynamicAt < 0) {
      dynamicAt = int64_t(i);
      continue;
    }
    if (d <= 0)
      return opError(loc, name, "expected every newShape value to be > 0 (one may be dynamic) but got ",
                     formatList(newShape));
    staticCount *= d;
  }
  int64_t inputCount = elementCount(input->getShape());
  SmallVector<int64_t> shape(newShape);
  if (dynamicAt >= 0 && !isDynamic(inputCount)) {
    if (inputCount % staticCount != 0 || inputCount == 0)
      return opError(loc, name, "expected the input's ", inputCount, " elements ",
                     formatList(input->getShape()), " to fill newShape ", formatList(newShape),
                     " with a positive size for the dynamic value");
    shape[dynamicAt] = inputCount / staticCount;
  }
  int64_t outputCount = elementCount(shape);
  if (!isDynamic(inputCount) && inputCount != outputCount)
    return opError(loc, name, "expected newShape ", formatList(newShape), " to hold ",
                   inputCount, " elements like the input ", formatList(input->getShape()),
                   " but it holds ", outputCount);
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  ArrayRef<int64_t> newShape = adaptor.getNewShape();
  // Beyond the spec, for dynamic dimensions (docs/OPS.md): a newShape value
  // `?` keeps the input's dimension it aligns with (written -1 in the
  // artifact).
  const int64_t lead = int64_t(newShape.size()) - input->getRank();
  SmallVector<int64_t> shape(newShape);
  for (auto [i, d] : llvm::enumerate(newShape)) {
    if (isDynamic(d) && int64_t(i) >= lead) {
      shape[i] = input->getDimSize(int64_t(i) - lead);
      continue;
    }
    if (d <= 0)
      return opError(loc, name, "expected every newShape value to be > 0 (or dynamic where the input "
                     "has a dimension) but got ", formatList(newShape));
  }
  if (!isUnidirectionallyBroadcastable(input->getShape(), shape))
    return opError(loc, name, "expected the input shape ", formatList(input->getShape()),
                   " to broadcast to newShape ", formatList(newShape));
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t rank = input->getRank();
  SmallVector<int64_t> permutation;
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getPermutation()) {
    if (static_cast<int64_t>(given->size()) != rank)
      return opError(loc, name, "expected permutation of ", rank,
                     " values (the input's rank) but got ", formatList(*given));
    permutation.assign(given->begin(), given->end());
  } else {
    for (int64_t i = rank - 1; i >= 0; --i) permutation.push_back(i);
  }
  if (failed(checkAxes(loc, name, "permutation", permutation, rank))) return failure();
  SmallVector<int64_t> shape;
  for (int64_t axis : permutation) shape.push_back(input->getDimSize(axis));
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t rank = input->getRank();
  ArrayRef<int64_t> starts = adaptor.getStarts(), sizes = adaptor.getSizes();
  std::optional<ArrayRef<int64_t>> strides = adaptor.getStrides();
  if (static_cast<int64_t>(starts.size()) != rank || static_cast<int64_t>(sizes.size()) != rank ||
      (strides && static_cast<int64_t>(strides->size()) != rank))
    return opError(loc, name, "expected starts, sizes and strides to have ", rank,
                   " values (the input's rank) but got ", starts.size(), ", ", sizes.size(),
                   " and ", strides ? strides->size() : rank);
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t stride = strides ? (*strides)[i] : 1;
    int64_t dim = input->getDimSize(i);
    // Beyond the spec, for dynamic dimensions (docs/OPS.md): a size `?` spans
    // from the start to the end of the axis (written -1 in the artifact).
    if (isDynamic(sizes[i]) && starts[i] >= 0 && stride >= 1) {
      if (isDynamic(dim)) {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (starts[i] >= dim)
        return opError(loc, name, "expected starts[", i, "] = ", starts[i],
                       " to lie inside dimension ", i, " of size ", dim, " (size to the end)");
      shape.push_back((dim - starts[i] + stride - 1) / stride);
      continue;
    }
    if (sizes[i] <= 0 || starts[i] < 0 || stride < 1)
      return opError(loc, name, "expected starts >= 0, sizes > 0 and strides >= 1 but got "
                     "starts[", i, "] = ", starts[i], ", sizes[", i, "] = ", sizes[i],
                     ", strides[", i, "] = ", stride);
    if (!isDynamic(dim) && starts[i] + sizes[i] > dim)
      return opError(loc, name, "expected the window [", starts[i], ", ", starts[i] + sizes[i],
                     ") to lie inside dimension ", i, " of size ", dim);
    // ceil(size / stride): the strided window's element count.
    shape.push_back((sizes[i] + stride - 1) / stride);
  }
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

namespace {

// The gathers' and scatters' operands, after the adaptor's invariants:
// input and indices, and for the scatters (N = 3) updates.
template <size_t N, typename AdaptorT>
FailureOr<std::array<RankedTensorType, N>> indexedOperands(std::optional<Location> loc,
                                                           StringRef name, AdaptorT &adaptor) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  if constexpr (N == 2)
    return tensorOperands(loc, name,
                          {{"input", adaptor.getInput()}, {"indices", adaptor.getIndices()}});
  else
    return tensorOperands(loc, name,
                          {{"input", adaptor.getInput()},
                           {"indices", adaptor.getIndices()},
                           {"updates", adaptor.getUpdates()}});
}

}  // namespace

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto types = indexedOperands<2>(loc, name, adaptor);
  if (failed(types)) return failure();
  auto [input, indices] = *types;
  Type indexType = indices.getElementType();
  if (!indexType.isSignlessInteger(32) && !indexType.isUnsignedInteger(32) &&
      !indexType.isSignlessInteger(64))
    return opError(loc, name, "expected operand 'indices' of data type i32, ui32 or i64 but got ",
                   indexType);
  int64_t axis = adaptor.getAxis().value_or(0);
  if (failed(checkAxisInRange(loc, name, axis, input.getRank()))) return failure();
  ArrayRef<int64_t> inputShape = input.getShape();
  SmallVector<int64_t> shape(inputShape.take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, inputShape.drop_front(axis + 1));
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  int64_t rank = input->getRank();
  ArrayRef<int64_t> begin = adaptor.getBeginningPadding(), end = adaptor.getEndingPadding();
  if (static_cast<int64_t>(begin.size()) != rank || static_cast<int64_t>(end.size()) != rank)
    return opError(loc, name, "expected beginningPadding and endingPadding to have ", rank,
                   " values (the input's rank) but got ", begin.size(), " and ", end.size());
  StringRef mode = adaptor.getMode().value_or("constant");
  if (mode != "constant" && mode != "edge" && mode != "reflection")
    return opError(loc, name, "expected mode \"constant\", \"edge\" or \"reflection\" but got \"",
                   mode, "\"");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = input->getDimSize(i);
    if (begin[i] < 0 || end[i] < 0)
      return opError(loc, name, "expected non-negative padding but got beginningPadding ",
                     formatList(begin), " and endingPadding ", formatList(end));
    // Reflection mirrors interior elements, so it cannot reach past the edge.
    if (mode == "reflection" && !isDynamic(dim) && (begin[i] >= dim || end[i] >= dim))
      return opError(loc, name, "expected reflection padding smaller than dimension ", i,
                     " (size ", dim, ") but got ", begin[i], " and ", end[i]);
    shape.push_back(isDynamic(dim) ? dim : dim + begin[i] + end[i]);
  }
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  ArrayRef<int64_t> repetitions = adaptor.getRepetitions();
  if (static_cast<int64_t>(repetitions.size()) != input->getRank())
    return opError(loc, name, "expected repetitions to have ", input->getRank(),
                   " values (the input's rank) but got ", formatList(repetitions));
  SmallVector<int64_t> shape;
  for (auto [dim, times] : llvm::zip(input->getShape(), repetitions)) {
    if (times <= 0)
      return opError(loc, name, "expected every repetitions value to be > 0 but got ",
                     formatList(repetitions));
    shape.push_back(isDynamic(dim) ? dim : dim * times);
  }
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult TriangularOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  if (input->getRank() < 2)
    return opError(loc, name, "expected operand 'input' of rank >= 2 but got rank ",
                   input->getRank());
  results.push_back(*input);
  return success();
}

namespace {

// gather/scatter indices: int32, uint32 or int64 (spec tensor limits).
LogicalResult checkIndexType(std::optional<Location> loc, StringRef name,
                             RankedTensorType indices) {
  Type t = indices.getElementType();
  if (t.isSignlessInteger(32) || t.isUnsignedInteger(32) || t.isSignlessInteger(64))
    return success();
  return opError(loc, name, "expected operand 'indices' of data type i32, ui32 or i64 but got ", t);
}

bool sameShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size()) return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x != y && !isDynamic(x) && !isDynamic(y)) return false;
  return true;
}

// gatherElements/scatterElements: indices (and updates) take the input's
// shape except along `axis`.
LogicalResult checkElementsIndices(std::optional<Location> loc, StringRef name,
                                   RankedTensorType input, RankedTensorType indices,
                                   int64_t axis) {
  if (failed(checkIndexType(loc, name, indices))) return failure();
  if (input.getRank() < 1)
    return opError(loc, name, "expected operand 'input' of rank >= 1 but got rank 0");
  if (failed(checkAxisInRange(loc, name, axis, input.getRank()))) return failure();
  if (indices.getRank() != input.getRank())
    return opError(loc, name, "expected operand 'indices' of rank ", input.getRank(),
                   " (the input's rank) but got rank ", indices.getRank());
  SmallVector<int64_t> expected(input.getShape());
  expected[axis] = indices.getDimSize(axis);
  if (!sameShape(indices.getShape(), expected))
    return opError(loc, name, "expected operand 'indices' of shape ", formatList(expected),
                   " (the input's shape except along axis ", axis, ") but got ",
                   formatList(indices.getShape()));
  return success();
}

// gatherND/scatterND: indices.shape[:-1] + input.shape[indices.shape[-1]:].
FailureOr<SmallVector<int64_t>> ndSliceShape(std::optional<Location> loc, StringRef name,
                                             RankedTensorType input, RankedTensorType indices) {
  if (failed(checkIndexType(loc, name, indices))) return failure();
  if (input.getRank() < 1 || indices.getRank() < 1)
    return opError(loc, name, "expected operands 'input' and 'indices' of rank >= 1 but got ",
                   input.getRank(), " and ", indices.getRank());
  int64_t coordinateSize = indices.getShape().back();
  if (isDynamic(coordinateSize))
    return opError(loc, name, "expected a static last dimension of 'indices'");
  if (coordinateSize > input.getRank())
    return opError(loc, name, "expected the last dimension of 'indices' (", coordinateSize,
                   ") to be <= the input's rank ", input.getRank());
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, input.getShape().drop_front(coordinateSize));
  return shape;
}

}  // namespace

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto types = indexedOperands<2>(loc, name, adaptor);
  if (failed(types)) return failure();
  auto [input, indices] = *types;
  if (failed(checkElementsIndices(loc, name, input, indices, adaptor.getAxis().value_or(0))))
    return failure();
  results.push_back(RankedTensorType::get(indices.getShape(), input.getElementType()));
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto types = indexedOperands<2>(loc, name, adaptor);
  if (failed(types)) return failure();
  auto [input, indices] = *types;
  FailureOr<SmallVector<int64_t>> shape = ndSliceShape(loc, name, input, indices);
  if (failed(shape)) return failure();
  results.push_back(RankedTensorType::get(*shape, input.getElementType()));
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto types = indexedOperands<3>(loc, name, adaptor);
  if (failed(types)) return failure();
  auto [input, indices, updates] = *types;
  if (failed(checkSameElementType(loc, name, "updates", updates, "input", input)) ||
      failed(checkElementsIndices(loc, name, input, indices, adaptor.getAxis().value_or(0))))
    return failure();
  if (!sameShape(updates.getShape(), indices.getShape()))
    return opError(loc, name, "expected operand 'updates' of shape ",
                   formatList(indices.getShape()), " (the indices' shape) but got ",
                   formatList(updates.getShape()));
  results.push_back(input);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto types = indexedOperands<3>(loc, name, adaptor);
  if (failed(types)) return failure();
  auto [input, indices, updates] = *types;
  if (failed(checkSameElementType(loc, name, "updates", updates, "input", input)))
    return failure();
  FailureOr<SmallVector<int64_t>> expected = ndSliceShape(loc, name, input, indices);
  if (failed(expected)) return failure();
  if (!sameShape(updates.getShape(), *expected))
    return opError(loc, name, "expected operand 'updates' of shape ", formatList(*expected),
                   " (indices.shape[:-1] + input.shape[indices.shape[-1]:]) but got ",
                   formatList(updates.getShape()));
  results.push_back(input);
  return success();
}

LogicalResult ReverseOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  if (std::optional<ArrayRef<int64_t>> axes = adaptor.getAxes())
    if (failed(checkAxes(loc, name, "axes", *axes, input->getRank()))) return failure();
  results.push_back(*input);
  return success();
}
