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

#endif // WEBNN_OPS_QUANTIZED_TD
