// RUN: webnn-opt --webnn-decompose-fused %s -split-input-file -verify-diagnostics

// seqlensK is a graph input: where the new keys land in the present cache
// is decided at run time, which no fixed spec-op graph expresses. An error,
// not a silently kept op that a pure-WebNN target could not run.
func.func @runtime_seqlens() -> tensor<1x3x8xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x3x8xf32>
  %pk = webnn.input "pk" : tensor<1x2x1x4xf32>
  %sl = webnn.input "sl" : tensor<1xi32>
  %t = webnn.constant dense<4> : tensor<i32>
  // expected-error @+1 {{'webnn.groupQueryAttention' op has no expansion into WebNN spec ops here}}
  %y, %k, %v = webnn.groupQueryAttention %q key %q value %q, %pk, %pk, %sl, %t {numHeads = 2 : i64, kvNumHeads = 2 : i64} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x3x8xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
  return %y : tensor<1x3x8xf32>
}
