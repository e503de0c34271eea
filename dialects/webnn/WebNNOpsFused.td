#ifndef WEBNN_OPS_FUSED_TD
#define WEBNN_OPS_FUSED_TD

// Fused macro ops: NOT WebNN builder methods. The compiler forms them
// (--webnn-fuse-conv) so a backend runs a subgraph as one kernel, and
// --webnn-decompose-fused turns them back into spec ops for a pure-WebNN
// target. docs/FUSED_OPS.md is their contract (operands, options, meaning).

def WebNN_FusedConv2dOp : WebNN_InferredOp<"fusedConv2d", [AttrSizedOperandSegments]> {
  let summary = "conv2d + bias + residual add + activation (beyond the spec)";
  let description = [{
    Not a WebNN builder method: output = activation(conv2d(input, filter,
    bias) + residual), with conv2d's operands, options and shape rules. The
    optional `residual` has the output's type. `activation` is "none"
    (default), "relu", "clamp" (to [activationMinValue, activationMaxValue],
    defaults -inf and +inf), "sigmoid", "silu" (x * sigmoid(x)) or
    "hardSwish" (x * max(0, min(6, x + 3)) / 6).
    Decomposes into webnn.conv2d, webnn.add and the activation op(s).
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$filter,
                       Optional<WebNN_FloatTensor>:$bias,
                       Optional<WebNN_FloatTensor>:$residual,
                       OptionalAttr<DenseI64ArrayAttr>:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<I64Attr>:$groups,
                       OptionalAttr<StrAttr>:$inputLayout,
                       OptionalAttr<StrAttr>:$filterLayout,
                       OptionalAttr<StrAttr>:$activation,
                       OptionalAttr<F64Attr>:$activationMinValue,
                       OptionalAttr<F64Attr>:$activationMaxValue);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`bias` $bias^)? (`residual` $residual^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def WebNN_ChannelShuffleOp : WebNN_InferredOp<"channelShuffle"> {
  let summary = "concat + channel shuffle + split (beyond the spec)";
  let description = [{
    Not a WebNN builder method: x = concat(inputs, axis) with C = x's size
    along `axis`, C divisible by `groups`; y = x with that axis viewed as
    [groups, C / groups], the two factors swapped and merged back (output
    channel j * groups + i is input channel i * (C / groups) + j: the
    ShuffleNet channel shuffle); the results are y cut along `axis` into
    consecutive pieces of the sizes in `splits` (which add up to C).
    Decomposes into webnn.concat (one input: none), reshape, transpose,
    reshape and one webnn.slice per result (one result: none).
  }];
  let arguments = (ins Variadic<WebNN_TensorOrF64>:$inputs, I64Attr:$axis, I64Attr:$groups,
                       DenseI64ArrayAttr:$splits);
  let results = (outs Variadic<WebNN_TensorOrF64>:$outputs);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // WEBNN_OPS_FUSED_TD
