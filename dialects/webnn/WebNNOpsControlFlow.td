#ifndef WEBNN_OPS_CONTROL_FLOW_TD
#define WEBNN_OPS_CONTROL_FLOW_TD


// Control flow: NOT WebNN builder methods (WebNN graphs are acyclic and
// branch-free). ONNX If and Loop whose condition or trip count is known only
// at run time become these ops; the compiler still inlines or unrolls the
// compile-time cases. Regions may read any value defined before the op
// (captured values); the artifact stores them as nested subgraphs
// (docs/ARTIFACT.md, "Subgraphs") and the runtime runs them (docs/RUNTIME.md).

def WebNN_IfOp : WebNN_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "runs one of two regions by a run-time condition (beyond the spec)";
  let description = [{
    Not a WebNN builder method. `condition` is a one-element uint8 tensor: when
    it is nonzero the `then` region runs, else the `else` region, and the op's
    results are the values that region yields with `webnn.yield`. Both regions
    yield exactly the result types (static shapes: a branch whose outputs
    differ in shape is rejected).
  }];
  let arguments = (ins WebNN_Uint8Tensor:$condition);
  let results = (outs Variadic<WebNN_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$thenRegion, SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $condition `:` type($condition) (`->` `(` type($outputs)^ `)`)? `then` $thenRegion
    `else` $elseRegion attr-dict
  }];
  let hasRegionVerifier = 1;
}

def WebNN_LoopOp : WebNN_Op<"loop", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "repeats a region with loop-carried values (beyond the spec)";
  let description = [{
    Not a WebNN builder method; ONNX Loop. The body's block arguments are
    (iteration: tensor<i64>, condition: tensor<ui8>, carried values...) and it
    yields (condition, carried values..., scan values...) with the carried
    values' types unchanged. The body runs while the iteration number
    is below `tripCount` (an int64 one-element tensor; absent = unbounded) and
    the condition is nonzero: first `condition` (true when absent), then what
    the body yielded (as ONNX Runtime does). The results are the carried
    values after the last iteration (the initial values after none), then one
    result per scan value: the values of every iteration stacked along a new
    leading dimension. Its static size B bounds the iterations (at most B run);
    the result's run-time length is the number that ran, so a scan result may
    only be a graph output. One of `tripCount` and `condition` must be given.
  }];
  let arguments = (ins Optional<WebNN_Tensor>:$tripCount,
                       Optional<WebNN_Uint8Tensor>:$condition,
                       Variadic<WebNN_Tensor>:$initialValues);
  let results = (outs Variadic<WebNN_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`trip` $tripCount^ `:` type($tripCount))? (`while` $condition^ `:` type($condition))?
    (`carried` `(` $initialValues^ `:` type($initialValues) `)`)? (`->` `(` type($outputs)^ `)`)?
    $body attr-dict
  }];
  let hasRegionVerifier = 1;
}

def WebNN_YieldOp : WebNN_Op<"yield", [Pure, Terminator,
    ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "a control-flow region's results (beyond the spec)";
  let description = [{
    Ends a `webnn.if` branch (its results) or a `webnn.loop` body (the next
    condition, then the next carried values).
  }];
  let arguments = (ins Variadic<WebNN_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // WEBNN_OPS_CONTROL_FLOW_TD
