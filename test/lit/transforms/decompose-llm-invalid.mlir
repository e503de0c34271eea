// RUN: webnn-opt --webnn-decompose-fused %s -split-input-file -verify-diagnostics

// A dynamic sequence length: the expansion's position and mask constants
// need static shapes. An error, not a silently kept op that a pure-WebNN
// target could not run.
func.func @dynamic_sequence() -> tensor<1x?x8xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x?x8xf32>
  %pk = webnn.input "pk" : tensor<1x2x1x4xf32>
  %sl = webnn.input "sl" : tensor<1xi32>
  // expected-error @+1 {{'webnn.groupQueryAttention' op has no expansion into WebNN spec ops here}}
  %y, %k, %v = webnn.groupQueryAttention %q key %q value %q, %pk, %pk, %sl {numHeads = 2 : i64, kvNumHeads = 2 : i64} : (tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>, tensor<1xi32>) -> (tensor<1x?x8xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>)
  return %y : tensor<1x?x8xf32>
}
