#ifndef WEBNN_OPS_RECURRENT_TD
#define WEBNN_OPS_RECURRENT_TD

// Recurrent networks (WebNN spec "gru", "gruCell", "lstm", "lstmCell").
// `activations` is one string of comma-separated names ("sigmoid,tanh"): the
// artifact has no list-of-strings option kind, and a joined string keeps the
// writer generic. Names: "relu", "sigmoid", "tanh".

def WebNN_GruOp : WebNN_InferredOp<"gru", [AttrSizedOperandSegments]> {
  let summary = "gated recurrent unit network";
  let description = [{
    Runs a GRU over `steps` time steps of input [steps, batchSize, inputSize]
    in `direction` ("forward", "backward" or "both"). Weights are
    [numDirections, 3 * hiddenSize, inputSize|hiddenSize] with gates ordered
    per `layout` ("zrn" or "rzn"). Results: the last hidden state
    [numDirections, batchSize, hiddenSize] and, with returnSequence, every
    step's hidden state [steps, numDirections, batchSize, hiddenSize].
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$weight,
                       WebNN_FloatTensor:$recurrentWeight,
                       Optional<WebNN_FloatTensor>:$bias,
                       Optional<WebNN_FloatTensor>:$recurrentBias,
                       Optional<WebNN_FloatTensor>:$initialHiddenState,
                       I64Attr:$steps, I64Attr:$hiddenSize,
                       OptionalAttr<BoolAttr>:$resetAfter,
                       OptionalAttr<BoolAttr>:$returnSequence,
                       OptionalAttr<StrAttr>:$direction,
                       OptionalAttr<StrAttr>:$layout,
                       OptionalAttr<StrAttr>:$activations);
  let results = (outs Variadic<WebNN_FloatTensor>:$outputs);
  let assemblyFormat = [{
    $input `,` $weight `,` $recurrentWeight (`bias` $bias^)?
    (`recurrentBias` $recurrentBias^)? (`initialHiddenState` $initialHiddenState^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_GruCellOp : WebNN_InferredOp<"gruCell", [AttrSizedOperandSegments]> {
  let summary = "one gated recurrent unit step";
  let description = [{
    One GRU step: input [batchSize, inputSize] and hiddenState
    [batchSize, hiddenSize] give the next hidden state [batchSize, hiddenSize].
    Weights are [3 * hiddenSize, inputSize|hiddenSize], gates per `layout`.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$weight,
                       WebNN_FloatTensor:$recurrentWeight, WebNN_FloatTensor:$hiddenState,
                       Optional<WebNN_FloatTensor>:$bias,
                       Optional<WebNN_FloatTensor>:$recurrentBias,
                       I64Attr:$hiddenSize,
                       OptionalAttr<BoolAttr>:$resetAfter,
                       OptionalAttr<StrAttr>:$layout,
                       OptionalAttr<StrAttr>:$activations);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight `,` $recurrentWeight `,` $hiddenState (`bias` $bias^)?
    (`recurrentBias` $recurrentBias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_LstmOp : WebNN_InferredOp<"lstm", [AttrSizedOperandSegments]> {
  let summary = "long short-term memory network";
  let description = [{
    Runs an LSTM over `steps` time steps of input [steps, batchSize,
    inputSize] in `direction`. Weights are [numDirections, 4 * hiddenSize,
    inputSize|hiddenSize] with gates ordered per `layout` ("iofg" or "ifgo");
    peepholeWeight is [numDirections, 3 * hiddenSize] (i, o, f). Results: last
    hidden state and last cell state [numDirections, batchSize, hiddenSize],
    and with returnSequence every step's hidden state.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$weight,
                       WebNN_FloatTensor:$recurrentWeight,
                       Optional<WebNN_FloatTensor>:$bias,
                       Optional<WebNN_FloatTensor>:$recurrentBias,
                       Optional<WebNN_FloatTensor>:$peepholeWeight,
                       Optional<WebNN_FloatTensor>:$initialHiddenState,
                       Optional<WebNN_FloatTensor>:$initialCellState,
                       I64Attr:$steps, I64Attr:$hiddenSize,
                       OptionalAttr<BoolAttr>:$returnSequence,
                       OptionalAttr<StrAttr>:$direction,
                       OptionalAttr<StrAttr>:$layout,
                       OptionalAttr<StrAttr>:$activations);
  let results = (outs Variadic<WebNN_FloatTensor>:$outputs);
  let assemblyFormat = [{
    $input `,` $weight `,` $recurrentWeight (`bias` $bias^)?
    (`recurrentBias` $recurrentBias^)? (`peepholeWeight` $peepholeWeight^)?
    (`initialHiddenState` $initialHiddenState^)? (`initialCellState` $initialCellState^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_LstmCellOp : WebNN_InferredOp<"lstmCell", [AttrSizedOperandSegments]> {
  let summary = "one long short-term memory step";
  let description = [{
    One LSTM step: input [batchSize, inputSize], hiddenState and cellState
    [batchSize, hiddenSize] give the next hidden state and cell state.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$weight,
                       WebNN_FloatTensor:$recurrentWeight, WebNN_FloatTensor:$hiddenState,
                       WebNN_FloatTensor:$cellState,
                       Optional<WebNN_FloatTensor>:$bias,
                       Optional<WebNN_FloatTensor>:$recurrentBias,
                       Optional<WebNN_FloatTensor>:$peepholeWeight,
                       I64Attr:$hiddenSize,
                       OptionalAttr<StrAttr>:$layout,
                       OptionalAttr<StrAttr>:$activations);
  let results = (outs WebNN_FloatTensor:$outputHiddenState, WebNN_FloatTensor:$outputCellState);
  let assemblyFormat = [{
    $input `,` $weight `,` $recurrentWeight `,` $hiddenState `,` $cellState
    (`bias` $bias^)? (`recurrentBias` $recurrentBias^)? (`peepholeWeight` $peepholeWeight^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_RECURRENT_TD
