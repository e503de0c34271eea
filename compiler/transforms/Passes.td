#ifndef WEBNN_PASSES_TD
#define WEBNN_PASSES_TD

include "mlir/Pass/PassBase.td"

def WebNNFoldConstants : Pass<"webnn-fold-constants", "func::FuncOp"> {
  let summary = "Evaluate operations whose operands are all constants";
  let description = [{
    Runs every webnn op's folder and canonicalization pattern to a fixed
    point, so shape arithmetic and constant subgraphs become single
    `webnn.constant`s before the artifact is written.
  }];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNConvertLayout : Pass<"webnn-convert-layout", "func::FuncOp"> {
  let summary = "Run 2-D convolutions, pools and normalizations channels-last";
  let description = [{
    Rewrites nchw conv2d, convTranspose2d, averagePool2d, maxPool2d,
    l2Pool2d, instanceNormalization and batchNormalization (axis 1 of a 4-D
    input) to nhwc, with transposes at their boundaries; constant filters are
    permuted to "ohwi" at compile time. Transposes are then sunk through
    layout-agnostic ops (element-wise unary, clamp, binary ops whose other
    operand is transposed the same way or is a constant, concat, reductions)
    and cancelled in pairs, so a CNN runs nhwc from one transpose after its
    input to one before its output. Graph inputs and outputs keep their
    shapes. oneDNN's direct convolutions run at 97-100% of peak on nhwc and
    fall back to im2col+gemm on nchw (shared/notes/cpu-kernels.md).
  }];
  let options = [
    Option<"layout", "layout", "std::string", /*default=*/"\"nhwc\"",
           "Target activation layout (only \"nhwc\" is implemented)">,
  ];
  let statistics = [
    Statistic<"numOpsConverted", "ops-converted", "nchw ops rewritten to nhwc">,
    Statistic<"numFiltersPermuted", "filters-permuted", "constant filters permuted at compile time">,
    Statistic<"numOpsSunk", "ops-sunk", "layout-agnostic ops a transpose was moved below">,
    Statistic<"numTransposesCancelled", "transposes-removed", "transposes cancelled or turned into reshapes">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseConv : Pass<"webnn-fuse-conv", "func::FuncOp"> {
  let summary = "Fuse conv2d with its bias add, residual add and activation";
  let description = [{
    Forms webnn.fusedConv2d (docs/FUSED_OPS.md) from conv2d -> [add of a
    per-channel constant] -> [add of a residual tensor] -> [relu | clamp |
    sigmoid] chains whose intermediate results have no other use: the CPU
    backend runs these as one oneDNN convolution with post-ops, so the
    intermediate tensors are never written to memory.
  }];
  let statistics = [
    Statistic<"numBiasAddsFolded", "bias-adds-folded", "constant adds folded into a conv bias">,
    Statistic<"numResidualAddsFused", "residual-adds-fused", "residual adds fused">,
    Statistic<"numActivationsFused", "activations-fused", "activations fused">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFoldNormAffine : Pass<"webnn-fold-norm-affine", "func::FuncOp"> {
  let summary = "Fold per-channel constant muls and adds into an instanceNormalization's scale and bias";
  let description = [{
    Rewrites mul(instanceNormalization(x, s, b), c) to
    instanceNormalization(x, s * c, b * c) and add(instanceNormalization(x,
    s, b), d) to instanceNormalization(x, s, b + d) for an nhwc
    normalization, through single-use reshapes that keep the channels last,
    when c and d hold one value per channel: PyTorch's GroupNorm(C, C)
    export (wav2vec2's feature extractor) then costs one normalization
    instead of three passes over the map. Run before webnn-fold-constants,
    which evaluates the new scale and bias.
  }];
  let statistics = [
    Statistic<"numMulsFolded", "muls-folded", "constant muls folded into a scale and bias">,
    Statistic<"numAddsFolded", "adds-folded", "constant adds folded into a bias">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNSinkReshapes : Pass<"webnn-sink-reshapes", "func::FuncOp"> {
  let summary = "Move a reshape below the gelu that reads it";
  let description = [{
    Rewrites gelu(reshape(x)) to reshape(gelu(x)) for a single-use reshape
    with static shapes, the gelu placed right after the op that makes x, so
    the CPU runtime can run that op and the gelu as one kernel pair (nhwc
    instanceNormalization + gelu: wav2vec2's GroupNorm export has a reshape
    between them). Run before webnn-fold-constants, which merges the
    reshapes left in a row.
  }];
  let statistics = [
    Statistic<"numReshapesSunk", "reshapes-sunk", "reshapes moved below a gelu">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNBatchNormReluToDepthwise : Pass<"webnn-batchnorm-relu-to-depthwise", "func::FuncOp"> {
  let summary = "batchNormalization + relu before a 1x1 convolution as a depthwise 1x1 fusedConv2d";
  let description = [{
    Rewrites relu(batchNormalization(x)) with constant mean, variance, scale
    and bias over the last axis of a 4-D float32 tensor, whose only reader is
    a 1x1, stride-1, unpadded, ungrouped nhwc convolution, to
    fusedConv2d(x, m, bias a, groups = C, activation relu), a depthwise 1x1
    convolution with m = scale / sqrt(variance + epsilon) and
    a = bias - mean * m (float32 steps, as the CPU runtime folds them). The
    CPU runtime runs it and the 1x1 after it as one kernel pair that
    normalizes x in cache block by block (DenseNet's pre-activation layers).
    Only maps of at least `min-pixels` pixels: below 56x56 the normalized
    map the separate pass writes stays in L2 for the convolution, and the
    pair measured no faster (docs/PERFORMANCE.md, issue 19).
  }];
  let options = [
    Option<"minPixels", "min-pixels", "int64_t", /*default=*/"3136",
           "Rewrite only where H x W is at least this">,
  ];
  let statistics = [
    Statistic<"numRewritten", "batchnorm-relus", "batchNormalization + relu pairs rewritten">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNPoolBeforePointwise : Pass<"webnn-pool-before-pointwise", "func::FuncOp"> {
  let summary = "Average-pool before the 1x1 convolution that alone feeds the pool";
  let description = [{
    Rewrites averagePool2d(conv2d(x, w, b)) to conv2d(averagePool2d(x), w, b)
    for a 1x1, stride-1, undilated, unpadded convolution whose only reader is
    an unpadded average pool in the same layout that shrinks the map: both
    are linear per pixel, and every window averages real pixels only, so
    the bias passes through. The convolution then runs on the pooled map:
    DenseNet's transition layers (1x1 then 2x2 stride-2 pool) do a quarter
    of their multiplies. Values change only by rounding order.
  }];
  let statistics = [
    Statistic<"numPoolsMoved", "pools-moved", "average pools moved before a 1x1 convolution">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseChannelShuffle : Pass<"webnn-fuse-channel-shuffle", "func::FuncOp"> {
  let summary = "Fuse a channel shuffle with the concat before it and the split after it";
  let description = [{
    Forms webnn.channelShuffle (docs/FUSED_OPS.md) from reshape (one axis
    into [g, C/g]) -> transpose (the two factors swapped) -> reshape (back),
    absorbing a concat along that axis whose result nothing else reads and
    the slices that cut the result along it into consecutive pieces: one
    copy of the channels instead of up to five.
  }];
  let statistics = [
    Statistic<"numShufflesFused", "shuffles-fused", "channel shuffles fused">,
    Statistic<"numOpsReplaced", "ops-replaced", "ops the fused ops replaced">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNDecomposeFused : Pass<"webnn-decompose-fused", "func::FuncOp"> {
  let summary = "Turn fused macro ops back into WebNN spec ops";
  let description = [{
    Expands webnn.fusedConv2d into webnn.conv2d, webnn.add (residual) and
    webnn.relu / webnn.clamp / webnn.sigmoid, webnn.fusedMatmul and
    webnn.fusedAttention into matmul, mul, add, gelu / relu, reshape,
    transpose and softmax, and the decoder-LLM ops
    (matmulNBits, rmsNormalization, skipRmsNormalization, rotaryEmbedding,
    groupQueryAttention) into spec ops, for targets that take pure WebNN
    graphs. An op it cannot expand (a groupQueryAttention whose past length
    is only known at run time) is an error.
  }];
  let statistics = [
    Statistic<"numFusedOpsDecomposed", "fused-ops-decomposed", "fused ops expanded">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseMatmul : Pass<"webnn-fuse-matmul", "func::FuncOp"> {
  let summary = "Fuse matmul with its scale, bias add, residual add and activation";
  let description = [{
    Forms webnn.fusedMatmul (docs/FUSED_OPS.md) from matmul -> [mul/div by a
    uniform constant] -> [add of a per-column constant] -> [add of a residual
    tensor] -> [gelu | relu] chains whose intermediate results have no other
    use, after turning PyTorch's erf GELU (x * 0.5 * (1 + erf(x / sqrt 2)))
    into webnn.gelu. The CPU backend runs each as one oneDNN matmul plus one
    vectorized epilogue.
  }];
  let statistics = [
    Statistic<"numScalesFused", "scales-fused", "constant scales fused">,
    Statistic<"numBiasAddsFused", "bias-adds-fused", "bias adds fused">,
    Statistic<"numResidualAddsFused", "residual-adds-fused", "residual adds fused">,
    Statistic<"numActivationsFused", "activations-fused", "activations fused">,
    Statistic<"numErfGelusFormed", "erf-gelus-formed", "erf GELU chains turned into gelu">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseAttention : Pass<"webnn-fuse-attention", "func::FuncOp"> {
  let summary = "Fuse multi-head scaled dot-product attention";
  let description = [{
    Forms webnn.fusedAttention (docs/FUSED_OPS.md) from the head split
    (reshape + transpose) of query, key and value projections, the scaled
    Q K^T matmul, softmax, the P V matmul and the head merge (transpose +
    reshape), so the CPU backend reads the heads in place and never writes
    the scores.
  }];
  let statistics = [
    Statistic<"numAttentionsFused", "attentions-fused", "attention blocks fused">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseRmsNorm : Pass<"webnn-fuse-rms-norm", "func::FuncOp"> {
  let summary = "Fuse RMSNorm chains (and the residual add before them)";
  let description = [{
    Forms webnn.rmsNormalization (docs/LLM.md) from weight * (x /
    sqrt(reduceMean(x^2 | x * x, last axis, keepDims) + eps)) (or x *
    reciprocal(sqrt(...))), with or without the float32 casts around the
    statistics that fp16 exports carry, and webnn.skipRmsNormalization from a
    residual add feeding one, whose sum output takes the add's other uses.
  }];
  let statistics = [
    Statistic<"numRmsNormsFused", "rms-norms-fused", "RMSNorm chains fused">,
    Statistic<"numSkipRmsNormsFused", "skip-adds-fused", "residual adds fused into skipRmsNormalization">,
    Statistic<"numOpsReplaced", "ops-replaced", "ops the fused ops replaced">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseRotary : Pass<"webnn-fuse-rotary", "func::FuncOp"> {
  let summary = "Fuse rotary position embeddings (rotate-half or interleaved)";
  let description = [{
    Forms webnn.rotaryEmbedding (docs/LLM.md) from x * cos + rotate(x) * sin,
    rotate(x) being concat(-x[..., D/2:], x[..., :D/2]) (rotate-half) or the
    pairwise (-x[2i+1], x[2i]) interleave, with cos/sin constants whose two
    halves (or pairs) agree; they become [positions, D/2] caches read at
    constant positions.
  }];
  let statistics = [
    Statistic<"numRotariesFused", "rotaries-fused", "rotary embeddings fused">,
    Statistic<"numOpsReplaced", "ops-replaced", "ops the fused ops replaced">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseGroupQueryAttention : Pass<"webnn-fuse-gqa", "func::FuncOp"> {
  let summary = "Fuse causal grouped-query attention (with its rotary embeddings)";
  let description = [{
    Forms webnn.groupQueryAttention (docs/LLM.md) from the head split of the
    q, k, v projections, repeat_kv of k and v (reshape -> expand | tile ->
    reshape, or none when the head counts agree), the scaled Q K^T matmul, a
    constant causal mask (add of 0 / large negative, or where), softmax, the
    P V matmul and the head merge, for one prefill without a KV cache (an
    empty past). rotaryEmbeddings on q and k at positions 0.. are absorbed
    (doRotary). Runs after --webnn-fuse-rotary and before --webnn-fuse-attention.
  }];
  let statistics = [
    Statistic<"numAttentionsFused", "attentions-fused", "attention blocks fused">,
    Statistic<"numRotariesAbsorbed", "rotaries-absorbed", "q/k rotary pairs absorbed as doRotary">,
    Statistic<"numOpsReplaced", "ops-replaced", "ops the fused ops replaced">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNMergeMatmulNBits : Pass<"webnn-merge-matmul-nbits", "func::FuncOp"> {
  let summary = "Merge matmulNBits ops that share their input into one plus a split";
  let description = [{
    matmulNBits ops reading the same value with equal K, block size, bits,
    accuracy level, zero-point kind and no bias, whose weights, scales and
    zero points are constants (q/k/v or gate/up projections), become one
    matmulNBits over the weights concatenated along N and a split of its
    output: fewer passes over the activations and fewer parallel regions per
    decode step. When the pieces are exactly the query, key and value of one
    groupQueryAttention, it takes the merged output as packed QKV instead.
  }];
  let statistics = [
    Statistic<"numGroupsMerged", "groups-merged", "groups of matmulNBits merged">,
    Statistic<"numOpsReplaced", "ops-replaced", "matmulNBits ops merged away">,
    Statistic<"numAttentionsPacked", "qkv-packed", "groupQueryAttention ops given the merged q/k/v packed">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseMatmulNBits : Pass<"webnn-fuse-matmul-nbits", "func::FuncOp"> {
  let summary = "Fuse block-dequantized int4/uint4 weights and their matmul";
  let description = [{
    Forms webnn.matmulNBits (docs/LLM.md) from matmul(x, w) where w is
    dequantizeLinear of a constant int4/uint4 weight with constant scales and
    zero points in blocks along K (w [K, N], or transpose of a [N, K]
    dequantization), repacking the weight at compile time.
  }];
  let statistics = [
    Statistic<"numMatmulsFused", "matmuls-fused", "dequantize + matmul pairs fused">,
    Statistic<"numOpsReplaced", "ops-replaced", "ops the fused ops replaced">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

def WebNNFuseQdq : Pass<"webnn-fuse-qdq", "func::FuncOp"> {
  let summary = "Fold the quantize/dequantize pairs of int8 QDQ graphs into integer matmuls";
  let description = [{
    Forms webnn.quantizedMatmul (docs/FUSED_OPS.md) from matmul(dq(a), dq(b))
    where each dequantizeLinear reads an int8/uint8 tensor or a
    quantizeLinear with the same constant scale and zero point, a's
    parameters per tensor, b's per tensor or (an integer weight [K, N]) per
    column; absorbs a quantizeLinear of the result whose every user is a
    dequantizeLinear with its parameters, and a following add of a constant
    bias [N]. Forms webnn.quantizedConv2d from conv2d(dq(xi), dq(w) [, bias])
    [-> q], xi int8/uint8 per tensor, w an int8 constant with zero points 0
    and one scale or one per output channel (channels-last, transposes of
    the 8-bit tensors at its boundaries), then absorbs a residual block's
    q([relu](dq(conv) + dq(r))) into it, and quantizedMatmul from a gemm of
    a per-tensor dq and a constant 8-bit dq (its c a float add after), and
    turns q(maxPool2d(dq(xi))) with one positive scale and zero point into a
    maxPool2d of xi (every window holding a real element). Only
    exact matches fold (see FuseQdq.cpp). Other constant dequantizeLinear
    ops read only by conv2d filters/biases or gemm operands b/c are
    evaluated at compile time (those convolutions and gemms stay float).
  }];
  let options = [
    Option<"convs", "convs", "bool", /*default=*/"true",
           "Form quantizedConv2d (a CPU kernel only: off for GPU targets, whose "
           "convolutions then stay float)">,
  ];
  let statistics = [
    Statistic<"numMatmulsFused", "matmuls-fused", "QDQ matmuls folded into quantizedMatmul">,
    Statistic<"numConvsFused", "convs-fused", "QDQ conv2d folded into quantizedConv2d">,
    Statistic<"numGemmsFused", "gemms-fused", "QDQ gemm with a constant 8-bit b folded into quantizedMatmul">,
    Statistic<"numResidualsFused", "residuals-fused", "quantized residual adds (and relu) folded into quantizedConv2d">,
    Statistic<"numPoolsFolded", "max-pools-8bit", "q(maxPool2d(dq(x))) folded into a maxPool2d of the 8-bit x">,
    Statistic<"numWeightsDequantized", "conv-weights-dequantized",
              "constant conv2d filters/biases dequantized at compile time">,
    Statistic<"numOpsReplaced", "ops-replaced", "ops the fused ops replaced">,
  ];
  let dependentDialects = ["::mlir::webnn::WebNNDialect"];
}

#endif
