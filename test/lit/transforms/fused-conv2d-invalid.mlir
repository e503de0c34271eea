// RUN: webnn-opt %s -split-input-file -verify-diagnostics

// webnn.fusedConv2d (docs/FUSED_OPS.md): the checks beyond conv2d's own.

func.func @bad_activation(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{expected activation "none", "relu", "clamp", "sigmoid", "silu" or "hardSwish" but got "gelu"}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = webnn.fusedConv2d %x, %w {activation = "gelu"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @bounds_without_clamp(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{activationMinValue/activationMaxValue apply to activation "clamp" only, not "relu"}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = webnn.fusedConv2d %x, %w {activation = "relu", activationMinValue = 0.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @residual_shape(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{expected operand 'residual' of the output's type 'tensor<1x2x4x4xf32>' but got 'tensor<1x2x2x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = webnn.fusedConv2d %x, %w residual %r : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
