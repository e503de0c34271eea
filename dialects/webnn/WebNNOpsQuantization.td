#ifndef WEBNN_OPS_QUANTIZATION_TD
#define WEBNN_OPS_QUANTIZATION_TD

// Linear (de)quantization (WebNN spec "quantizeLinear", "dequantizeLinear").
// scale and zeroPoint have the input's rank and are blockwise broadcast: every
// input dimension is a whole multiple of theirs, and each scale element covers
// one block. int4/uint4 are accepted beyond the spec's current type list (the
// artifact format and runtime support them; ONNX models use them for weights).

def WebNN_QuantizeLinearOp : WebNN_InferredOp<"quantizeLinear"> {
  let summary = "float to integer linear quantization";
  let description = [{
    Computes saturate(roundEven(input / scale) + zeroPoint) in zeroPoint's data
    type (int8, uint8, int32, uint32, int4, uint4); scale has the input's float
    type.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$scale,
                       RankedTensorOf<[I8, UI8, I32, UI32, I<4>, UI<4>]>:$zeroPoint);
  let results = (outs RankedTensorOf<[I8, UI8, I32, UI32, I<4>, UI<4>]>:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zeroPoint attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_DequantizeLinearOp : WebNN_InferredOp<"dequantizeLinear"> {
  let summary = "integer to float linear dequantization";
  let description = [{
    Computes (input - zeroPoint) * scale in scale's float type; zeroPoint has
    the input's integer type (int8, uint8, int32, uint32, int4, uint4).
  }];
  let arguments = (ins RankedTensorOf<[I8, UI8, I32, UI32, I<4>, UI<4>]>:$input,
                       WebNN_FloatTensor:$scale,
                       RankedTensorOf<[I8, UI8, I32, UI32, I<4>, UI<4>]>:$zeroPoint);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zeroPoint attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_QUANTIZATION_TD
