#ifndef WEBNN_OPS_LINALG_TD
#define WEBNN_OPS_LINALG_TD

// Matrix products (WebNN spec "matmul", "gemm").

def WebNN_MatmulOp : WebNN_InferredOp<"matmul"> {
  let summary = "batched matrix product";
  let description = [{
    Multiplies the last two dimensions of `a` [.., M, K] and `b` [.., K, N]
    (both of rank >= 2); the leading batch dimensions broadcast bidirectionally.
  }];
  let arguments = (ins WebNN_FloatTensor:$a, WebNN_FloatTensor:$b);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

def WebNN_GemmOp : WebNN_InferredOp<"gemm"> {
  let summary = "general matrix multiplication";
  let description = [{
    Computes alpha * A * B + beta * C for 2-D `a` and `b` (each optionally
    transposed first) and an optional `c` broadcastable to [M, N].
  }];
  let arguments = (ins WebNN_FloatTensor:$a, WebNN_FloatTensor:$b,
                       Optional<WebNN_FloatTensor>:$c,
                       OptionalAttr<F64Attr>:$alpha, OptionalAttr<F64Attr>:$beta,
                       OptionalAttr<BoolAttr>:$aTranspose,
                       OptionalAttr<BoolAttr>:$bTranspose);
  let results = (outs WebNN_FloatTensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`c` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // WEBNN_OPS_LINALG_TD
