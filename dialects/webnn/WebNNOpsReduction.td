#ifndef WEBNN_OPS_REDUCTION_TD
#define WEBNN_OPS_REDUCTION_TD

// Reductions and argMin/argMax (WebNN spec "Reduction operations",
// "argMin/argMax operations").

class WebNN_ReduceOp<string mnemonic, Type inputType, string what>
    : WebNN_InferredOp<mnemonic> {
  let summary = "reduce with " # what;
  let description = "Reduces the input over `axes` (all axes when absent) with "
    # what # "; reduced axes are dropped unless keepDimensions is true, in "
    # "which case they stay with size 1.";
  let arguments = (ins inputType:$input, OptionalAttr<DenseI64ArrayAttr>:$axes,
                       OptionalAttr<BoolAttr>:$keepDimensions);
  let results = (outs WebNN_TensorOrF64:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def WebNN_ReduceL1Op : WebNN_ReduceOp<"reduceL1", WebNN_Numeric32or64TensorOrF64,
  "the sum of absolute values">;
def WebNN_ReduceL2Op : WebNN_ReduceOp<"reduceL2", WebNN_FloatTensorOrF64,
  "the square root of the sum of squares">;
def WebNN_ReduceLogSumOp : WebNN_ReduceOp<"reduceLogSum", WebNN_FloatTensorOrF64,
  "the natural log of the sum">;
def WebNN_ReduceLogSumExpOp : WebNN_ReduceOp<"reduceLogSumExp", WebNN_FloatTensorOrF64,
  "the natural log of the sum of exponentials">;
def WebNN_ReduceMaxOp : WebNN_ReduceOp<"reduceMax", WebNN_TensorOrF64, "the maximum">;
def WebNN_ReduceMeanOp : WebNN_ReduceOp<"reduceMean", WebNN_FloatTensorOrF64,
  "the arithmetic mean">;
def WebNN_ReduceMinOp : WebNN_ReduceOp<"reduceMin", WebNN_TensorOrF64, "the minimum">;
def WebNN_ReduceProductOp : WebNN_ReduceOp<"reduceProduct",
  WebNN_Numeric32or64TensorOrF64, "the product">;
def WebNN_ReduceSumOp : WebNN_ReduceOp<"reduceSum", WebNN_Numeric32or64TensorOrF64,
  "the sum">;
def WebNN_ReduceSumSquareOp : WebNN_ReduceOp<"reduceSumSquare",
  WebNN_Numeric32or64TensorOrF64, "the sum of squares">;

class WebNN_ArgReduceOp<string mnemonic, string what>
    : WebNN_InferredOp<mnemonic> {
  let summary = "index of the " # what # " along an axis";
  let description = "Yields, along `axis`, the index of the " # what
    # " element (ties: implementation-defined which) as outputDataType (int32 "
    # "by default, or int64); the axis is dropped unless keepDimensions is true.";
  let arguments = (ins WebNN_TensorOrF64:$input, I64Attr:$axis,
                       OptionalAttr<BoolAttr>:$keepDimensions,
                       OptionalAttr<TypeAttr>:$outputDataType);
  let results = (outs RankedTensorOf<[I32, I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def WebNN_ArgMaxOp : WebNN_ArgReduceOp<"argMax", "largest">;
def WebNN_ArgMinOp : WebNN_ArgReduceOp<"argMin", "smallest">;

def WebNN_CumulativeSumOp : WebNN_InferredOp<"cumulativeSum"> {
  let summary = "prefix sum along an axis";
  let description = [{
    Running sum of the input along `axis`: inclusive by default, exclusive
    (the current element left out) when `exclusive` is true, from the high
    end of the axis when `reversed` is true. Output shape = input shape.
  }];
  let arguments = (ins WebNN_Numeric32or64TensorOrF64:$input, I64Attr:$axis,
                       OptionalAttr<BoolAttr>:$exclusive,
                       OptionalAttr<BoolAttr>:$reversed);
  let results = (outs WebNN_Numeric32or64TensorOrF64:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // WEBNN_OPS_REDUCTION_TD
