// RUN: webnn-opt %s -split-input-file -verify-diagnostics
// Verifier errors of quantizedConv2d (WebNNOpsQuantized.td), and valid ops.

func.func @valid(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x3x3x2xi8>,
                 %sw: tensor<6xf32>, %bias: tensor<6xf32>, %zo: tensor<i8>) {
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %sw bias %bias outputScale %s outputZeroPoint %zo {groups = 2 : i64, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x3x3x2xi8>, tensor<6xf32>, tensor<6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x2x6xi8>
  %1 = webnn.quantizedConv2d %x, %s, %z, %w, %s {groups = 2 : i64} : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x3x3x2xi8>, tensor<f32>) -> tensor<1x3x3x6xf32>
  return
}

// -----

func.func @zero_point_type(%x: tensor<1x5x5x4xi8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected operand 'input' of its zero point's type 'ui8' but got 'i8'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s : (tensor<1x5x5x4xi8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @filter_channels(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x3xi8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected groups (1) dividing the input channels (4) and the filter's output channels (6), and filter shape [O, KH, KW, C / groups] but got [6, 1, 1, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x3xi8>, tensor<f32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @filter_scale(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>, %sw: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected operand 'filterScale' with 1 or 6 elements but got shape [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %sw : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<4xf32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @output_pairing(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected 'outputScale' and 'outputZeroPoint' together or neither}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s outputScale %s : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>, tensor<f32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @bias_shape(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected operand 'bias' of shape [6] but got [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s bias %b : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>, tensor<4xf32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @window(%x: tensor<1x2x2x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x3x3x4xi8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected the padded input (2 x 2) at least the dilated filter (3 x 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s : (tensor<1x2x2x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x3x3x4xi8>, tensor<f32>) -> tensor<1x1x1x6xf32>
  return
}

// -----

func.func @sum_too_long(%x: tensor<1x3x3x4096xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<2x3x3x4096xi8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected C / groups * KH * KW <= 32768 (an exact int32 sum) but got 36864}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s : (tensor<1x3x3x4096xui8>, tensor<f32>, tensor<ui8>, tensor<2x3x3x4096xi8>, tensor<f32>) -> tensor<1x1x1x2xf32>
  return
}

// -----

func.func @residual_valid(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>,
                          %r: tensor<1x5x5x6xui8>) {
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s outputScale %s outputZeroPoint %z residual %r residualScale %s residualZeroPoint %z convScale %s convZeroPoint %z {activation = "relu"} : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<1x5x5x6xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5x5x6xui8>
  return
}

// -----

func.func @residual_parameters(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>,
                               %r: tensor<1x5x5x6xui8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected 'residual' with 'residualScale', 'residualZeroPoint', 'convScale' and 'convZeroPoint', or none of them}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s outputScale %s outputZeroPoint %z residual %r residualScale %s residualZeroPoint %z : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<1x5x5x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5x5x6xui8>
  return
}

// -----

func.func @residual_type(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>,
                         %r: tensor<1x5x5x6xui8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected operand 'residual' of the 8-bit output's type 'tensor<1x5x5x6xf32>' but got 'tensor<1x5x5x6xui8>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s residual %r residualScale %s residualZeroPoint %z convScale %s convZeroPoint %z : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>, tensor<1x5x5x6xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5x5x6xf32>
  return
}

// -----

func.func @activation(%x: tensor<1x5x5x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<6x1x1x4xi8>) {
  // expected-error @+2 {{'webnn.quantizedConv2d' op expected activation "none" or "relu" but got "sigmoid"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedConv2d %x, %s, %z, %w, %s {activation = "sigmoid"} : (tensor<1x5x5x4xui8>, tensor<f32>, tensor<ui8>, tensor<6x1x1x4xi8>, tensor<f32>) -> tensor<1x5x5x6xf32>
  return
}
