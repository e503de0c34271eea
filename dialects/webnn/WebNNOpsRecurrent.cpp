// Shape inference and validation for gru, gruCell, lstm and lstmCell (WebNN
// spec sections of the same names). Every operand shape is fixed by
// steps/batchSize/inputSize/hiddenSize/numDirections; each check names the
// operand and the shape it must have.
#include <limits>

#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// What tells the gru ops from the lstm ops in the checks they share.
struct Family {
  int64_t hiddenFactor;  // hiddenSize * this must be a valid dimension
  StringRef defaultLayout, otherLayout;
  size_t activations;  // how many names `activations` lists
};
const Family kGru{6, "zrn", "rzn", 2};
const Family kLstm{8, "iofg", "ifgo", 3};

struct RecurrentChecker {
  std::optional<Location> loc;
  StringRef name;
  Type elementType;  // the input's; every other operand must match

  FailureOr<RankedTensorType> operand(StringRef operandName, Value value,
                                      ArrayRef<int64_t> expected) const {
    FailureOr<RankedTensorType> type = tensorOperand(loc, name, operandName, value);
    if (failed(type)) return failure();
    if (elementType && type->getElementType() != elementType)
      return opError(loc, name, "expected operand '", operandName, "' to have the data type of ",
                     "'input' (", elementType, ") but got ", type->getElementType());
    bool same = type->getRank() == static_cast<int64_t>(expected.size());
    for (size_t i = 0; same && i < expected.size(); ++i)
      if (type->getDimSize(i) != expected[i] && !isDynamic(type->getDimSize(i)) &&
          !isDynamic(expected[i]))
        same = false;
    if (!same)
      return opError(loc, name, "expected operand '", operandName, "' of shape ",
                     formatList(expected), " but got ", formatList(type->getShape()));
    return type;
  }

  LogicalResult optional(StringRef operandName, Value value, ArrayRef<int64_t> expected) const {
    if (!value) return success();
    return failure(failed(operand(operandName, value, expected)));
  }

  // weight [dirs..., gateRows, inputSize] and recurrentWeight [dirs...,
  // gateRows, hiddenSize]; `dirs` is empty for the cells.
  template <typename AdaptorT>
  LogicalResult weights(AdaptorT &adaptor, ArrayRef<int64_t> dirs, int64_t gateRows, int64_t inputSize,
                        int64_t hiddenSize) const {
    if (failed(operand("weight", adaptor.getWeight(), withDirs(dirs, {gateRows, inputSize}))) ||
        failed(operand("recurrentWeight", adaptor.getRecurrentWeight(),
                       withDirs(dirs, {gateRows, hiddenSize}))))
      return failure();
    return success();
  }

  // The optional bias and recurrentBias, [dirs..., gateRows] each.
  template <typename AdaptorT>
  LogicalResult biases(AdaptorT &adaptor, ArrayRef<int64_t> dirs, int64_t gateRows) const {
    if (failed(optional("bias", adaptor.getBias(), withDirs(dirs, {gateRows}))) ||
        failed(optional("recurrentBias", adaptor.getRecurrentBias(), withDirs(dirs, {gateRows}))))
      return failure();
    return success();
  }

  static SmallVector<int64_t, 3> withDirs(ArrayRef<int64_t> dirs, ArrayRef<int64_t> shape) {
    SmallVector<int64_t, 3> out(dirs.begin(), dirs.end());
    out.append(shape.begin(), shape.end());
    return out;
  }

  // `hiddenSize * gates` must be a valid dimension (the spec checks 6x for
  // GRU and 8x for LSTM: some platforms concatenate both biases).
  LogicalResult hiddenSize(int64_t size, int64_t factor) const {
    if (size <= 0 || size > std::numeric_limits<uint32_t>::max() / factor)
      return opError(loc, name, "expected hiddenSize > 0 with hiddenSize * ", factor,
                     " a valid dimension but got ", size);
    return success();
  }

  LogicalResult oneOf(StringRef option, StringRef value, ArrayRef<StringRef> allowed) const {
    if (llvm::is_contained(allowed, value)) return success();
    std::string list;
    for (StringRef a : allowed) list += (list.empty() ? "\"" : ", \"") + a.str() + "\"";
    return opError(loc, name, "expected ", option, " to be one of ", list, " but got \"", value,
                   "\"");
  }

  // The adaptor, then 'input' (every op's first operand): its element type
  // becomes the one every other operand must have.
  template <typename AdaptorT>
  FailureOr<RankedTensorType> input(AdaptorT &adaptor) {
    if (failed(verifyAdaptor(loc, adaptor))) return failure();
    FailureOr<RankedTensorType> type = tensorOperand(loc, name, "input", adaptor.getInput());
    if (succeeded(type)) elementType = type->getElementType();
    return type;
  }

  // The options after the input's shape: hiddenSize, the direction (the
  // sequence ops'), the layout and the activations.
  template <typename AdaptorT>
  LogicalResult options(const Family &f, AdaptorT &adaptor,
                        std::optional<StringRef> direction) const {
    if (failed(hiddenSize(adaptor.getHiddenSize(), f.hiddenFactor)) ||
        (direction && failed(oneOf("direction", *direction, {"forward", "backward", "both"}))) ||
        failed(oneOf("layout", adaptor.getLayout().value_or(f.defaultLayout),
                     {f.defaultLayout, f.otherLayout})) ||
        failed(activations(adaptor.getActivations(), f.activations)))
      return failure();
    return success();
  }

  // "sigmoid,tanh": exactly `count` names of MLRecurrentNetworkActivation.
  LogicalResult activations(std::optional<StringRef> list, size_t count) const {
    if (!list) return success();
    SmallVector<StringRef> names;
    llvm::SplitString(*list, names, ",");
    if (names.size() != count)
      return opError(loc, name, "expected activations to list ", count,
                     " comma-separated names but got \"", *list, "\"");
    for (StringRef n : names)
      if (failed(oneOf("every activation", n.trim(), {"relu", "sigmoid", "tanh"})))
        return failure();
    return success();
  }
};

// input [steps, batchSize, inputSize] for gru/lstm; sets batch/inputSize.
LogicalResult checkSequenceInput(const RecurrentChecker &c, RankedTensorType input, int64_t steps,
                                 int64_t &batchSize, int64_t &inputSize) {
  if (input.getRank() != 3)
    return opError(c.loc, c.name, "expected a 3-D operand 'input' [steps, batchSize, inputSize] ",
                   "but got rank ", input.getRank());
  if (steps <= 0) return opError(c.loc, c.name, "expected steps > 0 but got ", steps);
  if (!isDynamic(input.getDimSize(0)) && input.getDimSize(0) != steps)
    return opError(c.loc, c.name, "expected input.shape[0] to equal steps (", steps, ") but got ",
                   input.getDimSize(0));
  batchSize = input.getDimSize(1);
  inputSize = input.getDimSize(2);
  return success();
}

LogicalResult checkCellInput(const RecurrentChecker &c, RankedTensorType input,
                             int64_t &batchSize, int64_t &inputSize) {
  if (input.getRank() != 2)
    return opError(c.loc, c.name, "expected a 2-D operand 'input' [batchSize, inputSize] but got rank ",
                   input.getRank());
  batchSize = input.getDimSize(0);
  inputSize = input.getDimSize(1);
  return success();
}

// A sequence op's start: the adaptor, input [steps, batchSize, inputSize]
// (sets batchSize and inputSize) and the options; dirs from the direction.
template <typename AdaptorT>
LogicalResult checkSequenceStart(RecurrentChecker &c, const Family &f, AdaptorT &adaptor, int64_t &dirs,
                                 int64_t &batchSize, int64_t &inputSize) {
  FailureOr<RankedTensorType> input = c.input(adaptor);
  if (failed(input)) return failure();
  StringRef direction = adaptor.getDirection().value_or("forward");
  if (failed(checkSequenceInput(c, *input, adaptor.getSteps(), batchSize, inputSize)) ||
      failed(c.options(f, adaptor, direction)))
    return failure();
  dirs = direction == "both" ? 2 : 1;
  return success();
}

// A cell's start: the adaptor, input [batchSize, inputSize] (sets both) and
// the options.
template <typename AdaptorT>
LogicalResult checkCellStart(RecurrentChecker &c, const Family &f, AdaptorT &adaptor, int64_t &batchSize,
                             int64_t &inputSize) {
  FailureOr<RankedTensorType> input = c.input(adaptor);
  if (failed(input) || failed(checkCellInput(c, *input, batchSize, inputSize)) ||
      failed(c.options(f, adaptor, std::nullopt)))
    return failure();
  return success();
}

// A sequence op's results: `states` [dirs, batchSize, hiddenSize] tensors
// (the last hidden state, and for lstm the cell state), then with
// returnSequence the [steps, dirs, batchSize, hiddenSize] sequence.
template <typename AdaptorT>
void sequenceResults(const RecurrentChecker &c, AdaptorT &adaptor, int states, int64_t dirs, int64_t batchSize,
                     int64_t hiddenSize, SmallVectorImpl<Type> &results) {
  for (int i = 0; i < states; ++i)
    results.push_back(RankedTensorType::get({dirs, batchSize, hiddenSize}, c.elementType));
  if (adaptor.getReturnSequence().value_or(false))
    results.push_back(
        RankedTensorType::get({int64_t(adaptor.getSteps()), dirs, batchSize, hiddenSize}, c.elementType));
}

}  // namespace

LogicalResult GruOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  RecurrentChecker c{loc, getOperationName(), Type()};
  int64_t h = adaptor.getHiddenSize(), dirs, batch, inputSize;
  if (failed(checkSequenceStart(c, kGru, adaptor, dirs, batch, inputSize)) ||
      failed(c.weights(adaptor, dirs, 3 * h, inputSize, h)) || failed(c.biases(adaptor, dirs, 3 * h)) ||
      failed(c.optional("initialHiddenState", adaptor.getInitialHiddenState(), {dirs, batch, h})))
    return failure();
  sequenceResults(c, adaptor, 1, dirs, batch, h, results);
  return success();
}

LogicalResult GruCellOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  RecurrentChecker c{loc, getOperationName(), Type()};
  int64_t h = adaptor.getHiddenSize(), batch, inputSize;
  if (failed(checkCellStart(c, kGru, adaptor, batch, inputSize)) ||
      failed(c.weights(adaptor, {}, 3 * h, inputSize, h)) ||
      failed(c.operand("hiddenState", adaptor.getHiddenState(), {batch, h})) ||
      failed(c.biases(adaptor, {}, 3 * h)))
    return failure();
  results.push_back(RankedTensorType::get({batch, h}, c.elementType));
  return success();
}

LogicalResult LstmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  RecurrentChecker c{loc, getOperationName(), Type()};
  int64_t h = adaptor.getHiddenSize(), dirs, batch, inputSize;
  if (failed(checkSequenceStart(c, kLstm, adaptor, dirs, batch, inputSize)) ||
      failed(c.weights(adaptor, dirs, 4 * h, inputSize, h)) || failed(c.biases(adaptor, dirs, 4 * h)) ||
      failed(c.optional("peepholeWeight", adaptor.getPeepholeWeight(), {dirs, 3 * h})) ||
      failed(c.optional("initialHiddenState", adaptor.getInitialHiddenState(), {dirs, batch, h})) ||
      failed(c.optional("initialCellState", adaptor.getInitialCellState(), {dirs, batch, h})))
    return failure();
  sequenceResults(c, adaptor, 2, dirs, batch, h, results);
  return success();
}

LogicalResult LstmCellOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor, SmallVectorImpl<Type> &results) {
  RecurrentChecker c{loc, getOperationName(), Type()};
  int64_t h = adaptor.getHiddenSize(), batch, inputSize;
  if (failed(checkCellStart(c, kLstm, adaptor, batch, inputSize)) ||
      failed(c.weights(adaptor, {}, 4 * h, inputSize, h)) ||
      failed(c.operand("hiddenState", adaptor.getHiddenState(), {batch, h})) ||
      failed(c.operand("cellState", adaptor.getCellState(), {batch, h})) ||
      failed(c.biases(adaptor, {}, 4 * h)) ||
      failed(c.optional("peepholeWeight", adaptor.getPeepholeWeight(), {3 * h})))
    return failure();
  results.push_back(RankedTensorType::get({batch, h}, c.elementType));
  results.push_back(RankedTensorType::get({batch, h}, c.elementType));
  return success();
}
