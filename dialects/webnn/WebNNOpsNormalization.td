#ifndef WEBNN_OPS_NORMALIZATION_TD
#define WEBNN_OPS_NORMALIZATION_TD

// Normalizations (WebNN spec "batchNormalization", "instanceNormalization",
// "layerNormalization"). Optional scale/bias are operands.

def WebNN_BatchNormalizationOp : WebNN_InferredOp<"batchNormalization",
    [AttrSizedOperandSegments]> {
  let summary = "batch normalization with given statistics";
  let description = [{
    Normalizes the input along channel `axis` with the precomputed 1-D `mean`
    and `variance`: (x - mean) / sqrt(variance + epsilon) * scale + bias.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$mean,
                       WebNN_FloatTensor:$variance,
                       Optional<WebNN_FloatTensor>:$scale,
                       Optional<WebNN_FloatTensor>:$bias,
                       OptionalAttr<I64Attr>:$axis, OptionalAttr<F64Attr>:$epsilon);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $mean `,` $variance (`scale` $scale^)? (`bias` $bias^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_InstanceNormalizationOp : WebNN_InferredOp<"instanceNormalization",
    [AttrSizedOperandSegments]> {
  let summary = "instance normalization";
  let description = [{
    Normalizes each channel of each batch item of the 4-D input over its
    spatial dimensions, then applies the per-channel 1-D scale and bias.
  }];
  let arguments = (ins WebNN_FloatTensor:$input,
                       Optional<WebNN_FloatTensor>:$scale,
                       Optional<WebNN_FloatTensor>:$bias,
                       OptionalAttr<F64Attr>:$epsilon, OptionalAttr<StrAttr>:$layout);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_LayerNormalizationOp : WebNN_InferredOp<"layerNormalization",
    [AttrSizedOperandSegments]> {
  let summary = "layer normalization";
  let description = [{
    Normalizes the input by the mean and variance computed over `axes`
    (default: every axis but the first), then applies scale and bias whose
    shape is the input's sizes along `axes`.
  }];
  let arguments = (ins WebNN_FloatTensor:$input,
                       Optional<WebNN_FloatTensor>:$scale,
                       Optional<WebNN_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       OptionalAttr<F64Attr>:$epsilon);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_NORMALIZATION_TD
