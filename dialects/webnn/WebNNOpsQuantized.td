#ifndef WEBNN_OPS_QUANTIZED_TD
#define WEBNN_OPS_QUANTIZED_TD

// Integer kernels for QDQ graphs: NOT WebNN builder methods. The compiler
// forms them (--webnn-fuse-qdq) from the quantizeLinear / dequantizeLinear
// pairs an int8 QDQ export puts around each matmul, so a backend runs the
// products on 8-bit integers. docs/FUSED_OPS.md is their contract.

def WebNN_QuantizedMatmulOp : WebNN_InferredOp<"quantizedMatmul", [AttrSizedOperandSegments]> {
  let summary = "matmul of two linearly quantized operands (beyond the spec)";
  let description = [{
    Not a WebNN builder method. Each operand X of (a, b) is either a float
    tensor, which stands for dequantizeLinear(quantizeLinear(X, s, z), s, z)
    (the op quantizes it itself), or an int8/uint8 tensor of zero point z's
    type, which stands for dequantizeLinear(X, s, z). The scale s and zero
    point z of `a` have one element; those of an integer `b` of rank 2 [K, N]
    have 1 or N elements (one per column), otherwise one. y = matmul of the
    dequantized operands, with the products summed exactly in 32-bit
    integers, then scaled by s_a * s_b[n]. With outputScale / outputZeroPoint
    (one element each), result = dequantizeLinear(quantizeLinear(y,
    outputScale, outputZeroPoint), outputScale, outputZeroPoint), else y;
    then + bias[n] (float32 [N]) when given. `b` of rank 2 serves every
    batch of `a`; otherwise its leading dimensions equal a's. K <= 32768
    (the exact int32 sum).
  }];
  let arguments = (ins RankedTensorOf<[F32, I8, UI8]>:$a, RankedTensorOf<[F32]>:$aScale,
                       RankedTensorOf<[I8, UI8]>:$aZeroPoint,
                       RankedTensorOf<[F32, I8, UI8]>:$b, RankedTensorOf<[F32]>:$bScale,
                       RankedTensorOf<[I8, UI8]>:$bZeroPoint,
                       Optional<RankedTensorOf<[F32]>>:$outputScale,
                       Optional<RankedTensorOf<[I8, UI8]>>:$outputZeroPoint,
                       Optional<RankedTensorOf<[F32]>>:$bias);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $a `,` $aScale `,` $aZeroPoint `,` $b `,` $bScale `,` $bZeroPoint
    (`outputScale` $outputScale^)? (`outputZeroPoint` $outputZeroPoint^)? (`bias` $bias^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_QuantizedConv2dOp : WebNN_InferredOp<"quantizedConv2d", [AttrSizedOperandSegments]> {
  let summary = "conv2d of a quantized activation and an int8 filter (beyond the spec)";
  let description = [{
    Not a WebNN builder method. `input` (int8/uint8, nhwc [N, H, W, C], of
    inputZeroPoint's type) stands for dequantizeLinear(input, inputScale,
    inputZeroPoint), one element each. `filter` (int8, ohwi [O, KH, KW,
    C / groups]) stands for dequantizeLinear(filter, filterScale, 0), the
    scale with 1 or O elements (one per output channel). y = conv2d of the
    dequantized operands with conv2d's padding, strides, dilations and
    groups, the products summed exactly in 32-bit integers and scaled by
    inputScale * filterScale[o], + bias[o] (float32 [O]) when given. With
    outputScale / outputZeroPoint (one element each) the result is
    quantizeLinear(y, outputScale, outputZeroPoint), of the zero point's
    type; otherwise y (float32). With `residual` (of the 8-bit output's
    shape and type, with residualScale / residualZeroPoint and convScale /
    convZeroPoint, one element each), y is first replaced by
    dequantizeLinear(quantizeLinear(y, convScale, convZeroPoint), ...) +
    dequantizeLinear(residual, residualScale, residualZeroPoint): a residual
    block's add of two quantized tensors. `activation` "relu" then takes
    max(y, 0) before the output's quantization. C / groups * KH * KW <=
    32768 (the exact int32 sum).
  }];
  let arguments = (ins RankedTensorOf<[I8, UI8]>:$input, RankedTensorOf<[F32]>:$inputScale,
                       RankedTensorOf<[I8, UI8]>:$inputZeroPoint,
                       RankedTensorOf<[I8]>:$filter, RankedTensorOf<[F32]>:$filterScale,
                       Optional<RankedTensorOf<[F32]>>:$bias,
                       Optional<RankedTensorOf<[F32]>>:$outputScale,
                       Optional<RankedTensorOf<[I8, UI8]>>:$outputZeroPoint,
                       Optional<RankedTensorOf<[I8, UI8]>>:$residual,
                       Optional<RankedTensorOf<[F32]>>:$residualScale,
                       Optional<RankedTensorOf<[I8, UI8]>>:$residualZeroPoint,
                       Optional<RankedTensorOf<[F32]>>:$convScale,
                       Optional<RankedTensorOf<[I8, UI8]>>:$convZeroPoint,
                       OptionalAttr<DenseI64ArrayAttr>:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<I64Attr>:$groups,
                       OptionalAttr<StrAttr>:$activation);
  let results = (outs RankedTensorOf<[F32, I8, UI8]>:$output);
  let assemblyFormat = [{
    $input `,` $inputScale `,` $inputZeroPoint `,` $filter `,` $filterScale
    (`bias` $bias^)? (`outputScale` $outputScale^)? (`outputZeroPoint` $outputZeroPoint^)?
    (`residual` $residual^)? (`residualScale` $residualScale^)? (`residualZeroPoint` $residualZeroPoint^)?
    (`convScale` $convScale^)? (`convZeroPoint` $convZeroPoint^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_QUANTIZED_TD
