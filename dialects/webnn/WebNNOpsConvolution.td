#ifndef WEBNN_OPS_CONVOLUTION_TD
#define WEBNN_OPS_CONVOLUTION_TD

// 2-D convolutions and pooling (WebNN spec "conv2d", "convTranspose2d",
// "Pooling operations"). padding is [beginH, endH, beginW, endW]. A single
// optional operand (bias) needs no operandSegmentSizes.

def WebNN_Conv2dOp : WebNN_InferredOp<"conv2d"> {
  let summary = "2-D convolution";
  let description = [{
    Slides `filter` over the spatial dimensions of the 4-D `input` (layout
    `inputLayout`, filter layout `filterLayout`), with optional padding,
    strides, dilations and `groups` channel groups, then adds the 1-D `bias`.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$filter,
                       Optional<WebNN_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<I64Attr>:$groups,
                       OptionalAttr<StrAttr>:$inputLayout,
                       OptionalAttr<StrAttr>:$filterLayout);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_ConvTranspose2dOp : WebNN_InferredOp<"convTranspose2d"> {
  let summary = "2-D transposed convolution";
  let description = [{
    The gradient of conv2d with respect to its input: every input element
    scatters a filter-sized window into an output enlarged by `strides`;
    `outputSizes` (or `outputPadding`) resolves the ambiguity of the size.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$filter,
                       Optional<WebNN_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$outputPadding,
                       OptionalAttr<DenseI64ArrayAttr>:$outputSizes,
                       OptionalAttr<I64Attr>:$groups,
                       OptionalAttr<StrAttr>:$inputLayout,
                       OptionalAttr<StrAttr>:$filterLayout);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

class WebNN_Pool2dOp<string mnemonic, Type inputType, string what>
    : WebNN_InferredOp<mnemonic> {
  let summary = "2-D " # what # " pooling";
  let description = "Reduces every `windowDimensions` window (the whole "
    # "spatial extent when absent) of the 4-D input to its " # what # "; the "
    # "output size is rounded per `roundingType` unless `outputSizes` gives it.";
  let arguments = (ins inputType:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$windowDimensions,
                       OptionalAttr<DenseI64ArrayAttr>:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<StrAttr>:$layout,
                       OptionalAttr<StrAttr>:$roundingType,
                       OptionalAttr<DenseI64ArrayAttr>:$outputSizes);
  let results = (outs inputType:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def WebNN_AveragePool2dOp : WebNN_Pool2dOp<"averagePool2d", WebNN_FloatTensor,
  "average">;
def WebNN_L2Pool2dOp : WebNN_Pool2dOp<"l2Pool2d", WebNN_FloatTensor, "L2 norm">;
def WebNN_MaxPool2dOp : WebNN_Pool2dOp<"maxPool2d", WebNN_Tensor, "maximum">;

def WebNN_Resample2dOp : WebNN_InferredOp<"resample2d"> {
  let summary = "2-D nearest-neighbor or bilinear resampling";
  let description = [{
    Resizes the two dimensions `axes` (default [2, 3]) of a 4-D tensor to
    `sizes`, or to floor(size * scale) with `scales` (default [1, 1]),
    sampling at half-pixel centres: input = clamp((output + 0.5) / scale - 0.5,
    0, size - 1) with scale = outputSize / inputSize; `mode` picks
    "nearest-neighbor" (default; ceil(input - 0.5)) or "linear" (bilinear).
  }];
  let arguments = (ins RankedTensorOf<[F32, F16, UI8, I8]>:$input,
                       OptionalAttr<StrAttr>:$mode,
                       OptionalAttr<DenseF64ArrayAttr>:$scales,
                       OptionalAttr<DenseI64ArrayAttr>:$sizes,
                       OptionalAttr<DenseI64ArrayAttr>:$axes);
  let results = (outs RankedTensorOf<[F32, F16, UI8, I8]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // WEBNN_OPS_CONVOLUTION_TD
