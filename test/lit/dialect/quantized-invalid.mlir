// RUN: webnn-opt %s -split-input-file -verify-diagnostics
// Verifier errors of quantizedMatmul (WebNNOpsQuantized.td), and one valid op.

func.func @valid(%a: tensor<2x3x4xf32>, %sa: tensor<f32>, %za: tensor<ui8>, %w: tensor<4x5xi8>,
                 %sw: tensor<1x5xf32>, %zw: tensor<1x5xi8>, %bias: tensor<5xf32>) {
  %0 = webnn.quantizedMatmul %a, %sa, %za, %w, %sw, %zw outputScale %sa outputZeroPoint %za bias %bias : (tensor<2x3x4xf32>, tensor<f32>, tensor<ui8>, tensor<4x5xi8>, tensor<1x5xf32>, tensor<1x5xi8>, tensor<f32>, tensor<ui8>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @k_mismatch(%a: tensor<3x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<5x5xi8>, %zw: tensor<i8>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected operand 'b' with K = 4 rows but got shape [5, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %w, %s, %zw : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>, tensor<5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<3x5xf32>
  return
}

// -----

func.func @zero_point_type(%a: tensor<3x4xi8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<4x5xi8>, %zw: tensor<i8>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected operand 'a' of type f32 or its zero point's type 'ui8' but got 'i8'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %w, %s, %zw : (tensor<3x4xi8>, tensor<f32>, tensor<ui8>, tensor<4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<3x5xf32>
  return
}

// -----

func.func @per_column_activation(%a: tensor<3x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %b: tensor<4x5xf32>,
                                 %sb: tensor<5xf32>, %zb: tensor<5xui8>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected operand 'bScale' with one element but got shape [5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %b, %sb, %zb : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>, tensor<4x5xf32>, tensor<5xf32>, tensor<5xui8>) -> tensor<3x5xf32>
  return
}

// -----

func.func @broadcast_b(%a: tensor<2x3x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %b: tensor<1x4x5xf32>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected operand 'b' of rank 2 or with a's batch dimensions [2] but got shape [1, 4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %b, %s, %z : (tensor<2x3x4xf32>, tensor<f32>, tensor<ui8>, tensor<1x4x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @output_pair(%a: tensor<3x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<4x5xi8>, %zw: tensor<i8>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected 'outputScale' and 'outputZeroPoint' together or neither}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %w, %s, %zw outputScale %s : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>, tensor<4x5xi8>, tensor<f32>, tensor<i8>, tensor<f32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @bias_shape(%a: tensor<3x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<4x5xi8>, %zw: tensor<i8>, %bias: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected operand 'bias' of shape [5] but got [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %w, %s, %zw bias %bias : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>, tensor<4x5xi8>, tensor<f32>, tensor<i8>, tensor<4xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @k_too_large(%a: tensor<1x40000xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<40000x2xi8>, %zw: tensor<i8>) {
  // expected-error @+2 {{'webnn.quantizedMatmul' op expected K <= 32768 (an exact int32 sum) but got 40000}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizedMatmul %a, %s, %z, %w, %s, %zw : (tensor<1x40000xui8>, tensor<f32>, tensor<ui8>, tensor<40000x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2xf32>
  return
}
