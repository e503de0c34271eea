#ifndef WEBNN_OPS_LLM_TD
#define WEBNN_OPS_LLM_TD

// Decoder-LLM ops beyond the WebNN spec, with the meaning of ONNX Runtime's
// com.microsoft contrib ops (docs/ContribOperators.md in microsoft/onnxruntime)
// and ONNX opset 23's RMSNormalization. docs/LLM.md is their contract
// (operands, options, defaults); the ONNX front end imports them from
// MatMulNBits, (Skip)SimplifiedLayerNormalization, RMSNormalization,
// RotaryEmbedding and GroupQueryAttention.

def WebNN_MatMulNBitsOp : WebNN_InferredOp<"matmulNBits", [AttrSizedOperandSegments]> {
  let summary = "matmul with a block-quantized (2/4/8-bit) weight (beyond the spec)";
  let description = [{
    Not a WebNN builder method: output[..., n] = sum_k input[..., k] *
    (q[n, k] - zeroPoint[n, k / blockSize]) * scales[n, k / blockSize]
    (+ bias[n]). `weight` is uint8 [N, kBlocks, blockSize * bits / 8] with
    the `bits`-wide values packed low bits first; `scales` has N * kBlocks
    elements ([N, kBlocks] or flat); `zeroPoints` is either packed uint8
    [N, ceil(kBlocks * bits / 8)] or of the input's type with N * kBlocks
    elements; absent, the zero point is 2^(bits-1). `accuracyLevel` 4 lets a
    backend quantize the input to int8 per block.
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_Uint8Tensor:$weight,
                       WebNN_FloatTensor:$scales,
                       Optional<WebNN_Tensor>:$zeroPoints,
                       Optional<WebNN_FloatTensor>:$bias,
                       I64Attr:$K, I64Attr:$N, I64Attr:$blockSize,
                       OptionalAttr<I64Attr>:$bits,
                       OptionalAttr<I64Attr>:$accuracyLevel);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight `,` $scales (`zeroPoints` $zeroPoints^)? (`bias` $bias^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_RmsNormalizationOp : WebNN_InferredOp<"rmsNormalization"> {
  let summary = "root-mean-square normalization (beyond the spec)";
  let description = [{
    Not a WebNN builder method (ONNX RMSNormalization, SimplifiedLayerNormalization):
    output = input / sqrt(mean(input^2 over axes [axis, rank)) + epsilon) * scale,
    with `scale` of shape input.shape[axis:]. The statistics are computed in
    float32 whatever the input type. Results: output (input's type) and
    invStdDev (float32, input.shape[:axis] followed by ones).
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$scale,
                       OptionalAttr<I64Attr>:$axis, OptionalAttr<F64Attr>:$epsilon);
  let results = (outs WebNN_FloatTensor:$output, WebNN_FloatTensor:$invStdDev);
  let assemblyFormat = [{
    $input `,` $scale attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_SkipRmsNormalizationOp : WebNN_InferredOp<"skipRmsNormalization"> {
  let summary = "residual add + RMS normalization (beyond the spec)";
  let description = [{
    Not a WebNN builder method (com.microsoft SkipSimplifiedLayerNormalization):
    sum = input + skip (+ bias), output = sum / sqrt(mean(sum^2 over the last
    axis) + epsilon) * gamma. `skip` has the input's trailing dimensions
    (leading ones may be missing or 1); gamma and bias are [hidden]. Results:
    output, invStdDev (float32, input.shape[:-1] + [1]) and inputSkipBiasSum
    (the input's type and shape).
  }];
  let arguments = (ins WebNN_FloatTensor:$input, WebNN_FloatTensor:$skip,
                       WebNN_FloatTensor:$gamma, Optional<WebNN_FloatTensor>:$bias,
                       OptionalAttr<F64Attr>:$epsilon);
  let results = (outs WebNN_FloatTensor:$output, WebNN_FloatTensor:$invStdDev,
                      WebNN_FloatTensor:$inputSkipBiasSum);
  let assemblyFormat = [{
    $input `,` $skip `,` $gamma (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def WebNN_RotaryEmbeddingOp : WebNN_InferredOp<"rotaryEmbedding"> {
  let summary = "rotary position embedding (beyond the spec)";
  let description = [{
    Not a WebNN builder method (com.microsoft RotaryEmbedding): rotates the
    first rotaryEmbeddingDim features of every head of input [B, S, N*D] or
    [B, N, S, D] by the angles of cosCache/sinCache [maxSeq, rotaryDim / 2]
    at position positionIds[b, s] (int64 [B, S]), or positionIds[0] + s for a
    [1] positionIds. `interleaved` pairs features (2i, 2i+1) instead of
    (i, i + rotaryDim/2). `numHeads` is required for a 3-D input when
    rotaryEmbeddingDim is set (else D = rotaryDim = 2 * cosCache.shape[1]).
  }];
  let arguments = (ins WebNN_FloatTensor:$input, RankedTensorOf<[I64]>:$positionIds,
                       WebNN_FloatTensor:$cosCache, WebNN_FloatTensor:$sinCache,
                       OptionalAttr<BoolAttr>:$interleaved,
                       OptionalAttr<I64Attr>:$numHeads,
                       OptionalAttr<I64Attr>:$rotaryEmbeddingDim);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $positionIds `,` $cosCache `,` $sinCache attr-dict `:`
    functional-type(operands, results)
  }];
}

def WebNN_GroupQueryAttentionOp : WebNN_InferredOp<"groupQueryAttention",
    [AttrSizedOperandSegments]> {
  let summary = "grouped-query causal self-attention over a KV cache (beyond the spec)";
  let description = [{
    Not a WebNN builder method (com.microsoft GroupQueryAttention):
    query [B, S, numHeads*D] (or packed QKV [B, S, (numHeads + 2*kvNumHeads)*D]
    when key and value are absent), key/value [B, S, kvNumHeads*D], pastKey /
    pastValue [B, kvNumHeads, P, D] (BNSH), seqlensK int32 [B] (total length
    - 1 per batch entry), totalSequenceLength int32 scalar (optional: the
    cached length is seqlensK + 1 - S either way; a graph with a dynamic
    sequence length has no shape value to give it). With doRotary the
    new queries and keys are rotated by cosCache/sinCache [maxSeq, rotaryDim/2]
    at their absolute positions. Query head h reads KV head h / (numHeads /
    kvNumHeads), causally (and within localWindowSize when >= 0), scores
    scaled by `scale` (default 1/sqrt(D)) and soft-capped by softcap > 0.
    Results: output [B, S, numHeads*D], presentKey / presentValue
    [B, kvNumHeads, P + S, D].
  }];
  let arguments = (ins WebNN_FloatTensor:$query,
                       Optional<WebNN_FloatTensor>:$key,
                       Optional<WebNN_FloatTensor>:$value,
                       WebNN_FloatTensor:$pastKey, WebNN_FloatTensor:$pastValue,
                       RankedTensorOf<[I32]>:$seqlensK,
                       Optional<RankedTensorOf<[I32]>>:$totalSequenceLength,
                       Optional<WebNN_FloatTensor>:$cosCache,
                       Optional<WebNN_FloatTensor>:$sinCache,
                       I64Attr:$numHeads, I64Attr:$kvNumHeads,
                       OptionalAttr<F64Attr>:$scale,
                       OptionalAttr<F64Attr>:$softcap,
                       OptionalAttr<I64Attr>:$localWindowSize,
                       OptionalAttr<BoolAttr>:$doRotary,
                       OptionalAttr<BoolAttr>:$rotaryInterleaved);
  let results = (outs WebNN_FloatTensor:$output, WebNN_FloatTensor:$presentKey,
                      WebNN_FloatTensor:$presentValue);
  let assemblyFormat = [{
    $query (`key` $key^)? (`value` $value^)? `,` $pastKey `,` $pastValue `,`
    $seqlensK (`,` $totalSequenceLength^)? (`cosCache` $cosCache^)? (`sinCache` $sinCache^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_LLM_TD
