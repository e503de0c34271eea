#ifndef WEBNN_OPS_FUSED_TRANSFORMER_TD
#define WEBNN_OPS_FUSED_TRANSFORMER_TD

// Fused transformer ops: NOT WebNN builder methods. --webnn-fuse-matmul and
// --webnn-fuse-attention form them so the CPU backend runs an encoder's
// linear layers and attention heads as single kernels. docs/FUSED_OPS.md is
// their contract.

def WebNN_FusedMatmulOp : WebNN_InferredOp<"fusedMatmul", [AttrSizedOperandSegments]> {
  let summary = "matmul + scale + bias + residual add + activation (beyond the spec)";
  let description = [{
    Not a WebNN builder method: output = activation(alpha * matmul(a, b) +
    bias + residual), with matmul's operands and shape rules. `bias` is 1-D
    with one value per output column (N); `residual` has the output's type.
    `alpha` defaults to 1. `activation` is "none" (default), "relu" or
    "gelu" (the spec's erf-based gelu). Decomposes into webnn.matmul,
    webnn.mul, webnn.add and the activation op.
  }];
  let arguments = (ins WebNN_FloatTensor:$a, WebNN_FloatTensor:$b,
                       Optional<WebNN_FloatTensor>:$bias,
                       Optional<WebNN_FloatTensor>:$residual,
                       OptionalAttr<F64Attr>:$alpha,
                       OptionalAttr<StrAttr>:$activation);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`bias` $bias^)? (`residual` $residual^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def WebNN_FusedAttentionOp : WebNN_InferredOp<"fusedAttention"> {
  let summary = "multi-head scaled dot-product attention (beyond the spec)";
  let description = [{
    Not a WebNN builder method. `query`, `key` and `value` are [B, S, D]
    and [B, T, D] with D = heads * Dh: the projections before the heads are
    split. For each batch b and head h, with Q = query[b, :, h*Dh:(h+1)*Dh]
    (likewise K, V): output[b, :, h*Dh:(h+1)*Dh] = softmax(scale * Q K^T,
    last axis) V. The output is [B, S, D], heads concatenated again.
    Decomposes into reshape, transpose, matmul, mul and softmax.
  }];
  let arguments = (ins WebNN_FloatTensor:$query, WebNN_FloatTensor:$key,
                       WebNN_FloatTensor:$value, I64Attr:$heads, F64Attr:$scale);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $query `,` $key `,` $value attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_FUSED_TRANSFORMER_TD
