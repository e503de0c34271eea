#ifndef WEBNN_OPS_SHAPE_TD
#define WEBNN_OPS_SHAPE_TD

// Data movement and shape ops (WebNN spec "concat", "split", "reshape",
// "expand", "transpose", "slice", "gather", "pad", "tile", "triangular").

class WebNN_ShapeOp<string mnemonic, list<Trait> traits = []>
    : WebNN_InferredOp<mnemonic, traits> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def WebNN_ConcatOp : WebNN_ShapeOp<"concat"> {
  let summary = "join tensors along an axis";
  let description = [{
    Joins one or more tensors of equal rank and data type along `axis`; all
    other dimensions must match.
  }];
  let arguments = (ins Variadic<WebNN_TensorOrF64>:$inputs, I64Attr:$axis);
  let results = (outs WebNN_TensorOrF64:$output);
  let hasFolder = 1;
}

def WebNN_SplitOp : WebNN_ShapeOp<"split"> {
  let summary = "split a tensor along an axis";
  let description = [{
    Cuts the input along `axis` into consecutive pieces of the sizes in
    `splits` (which must add up to that dimension), one result per piece.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, DenseI64ArrayAttr:$splits,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs Variadic<WebNN_TensorOrF64>:$outputs);
}

def WebNN_ReshapeOp : WebNN_ShapeOp<"reshape"> {
  let summary = "reinterpret with a new shape";
  let description = [{
    Gives the elements, in row-major order, the shape `newShape`, which must
    hold the same number of elements ([] makes a scalar).
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, DenseI64ArrayAttr:$newShape);
  let results = (outs WebNN_TensorOrF64:$output);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def WebNN_ExpandOp : WebNN_ShapeOp<"expand"> {
  let summary = "broadcast to a new shape";
  let description = [{
    Repeats the input along its size-1 (or missing leading) dimensions so it
    takes the shape `newShape`, to which it must broadcast unidirectionally.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, DenseI64ArrayAttr:$newShape);
  let results = (outs WebNN_TensorOrF64:$output);
  let hasFolder = 1;
}

def WebNN_TransposeOp : WebNN_ShapeOp<"transpose"> {
  let summary = "permute dimensions";
  let description = [{
    Reorders the dimensions: output dimension i is input dimension
    permutation[i]; the default permutation reverses them.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$permutation);
  let results = (outs WebNN_TensorOrF64:$output);
  let hasFolder = 1;
}

def WebNN_SliceOp : WebNN_ShapeOp<"slice"> {
  let summary = "extract a strided window";
  let description = [{
    Takes, along every dimension i, `sizes[i]` elements starting at
    `starts[i]`, keeping every `strides[i]`-th one; the window must lie inside
    the input.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs WebNN_TensorOrF64:$output);
  let hasFolder = 1;
}

def WebNN_GatherOp : WebNN_ShapeOp<"gather"> {
  let summary = "gather slices by index";
  let description = [{
    Selects, along `axis`, the input slices named by `indices`; the indices'
    shape replaces that axis in the output shape.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, WebNN_IndexTensor:$indices,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_PadOp : WebNN_ShapeOp<"pad"> {
  let summary = "pad the edges";
  let description = [{
    Grows every dimension by beginningPadding[i] before and endingPadding[i]
    after, filling with `value` ("constant"), the edge value ("edge") or the
    mirrored interior ("reflection").
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, DenseI64ArrayAttr:$beginningPadding,
                       DenseI64ArrayAttr:$endingPadding,
                       OptionalAttr<StrAttr>:$mode, OptionalAttr<F64Attr>:$value);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_TileOp : WebNN_ShapeOp<"tile"> {
  let summary = "repeat the tensor";
  let description = [{
    Repeats the whole input repetitions[i] times along every dimension i.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, DenseI64ArrayAttr:$repetitions);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_TriangularOp : WebNN_ShapeOp<"triangular"> {
  let summary = "keep the upper or lower triangle";
  let description = [{
    Zeroes the elements of the last two dimensions outside the upper (or
    lower) triangle, the boundary shifted by `diagonal`.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, OptionalAttr<BoolAttr>:$upper,
                       OptionalAttr<I64Attr>:$diagonal);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_GatherElementsOp : WebNN_ShapeOp<"gatherElements"> {
  let summary = "gather elements along an axis";
  let description = [{
    output[i..., j, k...] = input[i..., indices[i..., j, k...], k...] along
    `axis`: indices has the input's shape except along `axis`, and the output
    has the indices' shape. Negative indices count from the end.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, WebNN_IndexTensor:$indices,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_GatherNDOp : WebNN_ShapeOp<"gatherND"> {
  let summary = "gather slices by coordinates";
  let description = [{
    The last dimension of `indices` holds coordinates into the leading
    dimensions of the input; each coordinate selects the slice of the
    remaining dimensions. Output shape: indices.shape[:-1] +
    input.shape[indices.shape[-1]:].
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, WebNN_IndexTensor:$indices);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_ScatterElementsOp : WebNN_ShapeOp<"scatterElements"> {
  let summary = "scatter elements along an axis";
  let description = [{
    A copy of the input where, along `axis`, the element at
    indices[i..., j, k...] takes updates[i..., j, k...]; indices and updates
    share a shape equal to the input's except along `axis`.
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, WebNN_IndexTensor:$indices,
                       WebNN_TensorOrF64:$updates, OptionalAttr<I64Attr>:$axis);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_ScatterNDOp : WebNN_ShapeOp<"scatterND"> {
  let summary = "scatter slices by coordinates";
  let description = [{
    A copy of the input where each coordinate in the last dimension of
    `indices` receives the matching slice of `updates` (shape
    indices.shape[:-1] + input.shape[indices.shape[-1]:]).
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, WebNN_IndexTensor:$indices,
                       WebNN_TensorOrF64:$updates);
  let results = (outs WebNN_TensorOrF64:$output);
}

def WebNN_ReverseOp : WebNN_ShapeOp<"reverse"> {
  let summary = "reverse along axes";
  let description = [{
    Reverses the order of the elements along every dimension in `axes`
    (absent: all dimensions; empty: none).
  }];
  let arguments = (ins WebNN_TensorOrF64:$input, OptionalAttr<DenseI64ArrayAttr>:$axes);
  let results = (outs WebNN_TensorOrF64:$output);
}

#endif // WEBNN_OPS_SHAPE_TD
