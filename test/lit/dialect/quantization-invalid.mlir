// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @not_blockwise(%x: tensor<4x6xf32>, %s: tensor<3x3xf32>, %z: tensor<3x3xi8>) {
  // expected-error @+2 {{'webnn.quantizeLinear' op expected every input dimension to be a multiple of the 'scale' dimension aligned with it (blockwise broadcast) but got input [4, 6] and scale [3, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizeLinear %x, %s, %z : (tensor<4x6xf32>, tensor<3x3xf32>, tensor<3x3xi8>) -> tensor<4x6xi8>
  return
}

// -----

func.func @scale_rank(%x: tensor<6xf32>, %s: tensor<1x6xf32>, %z: tensor<1x6xi8>) {
  // expected-error @+2 {{'webnn.quantizeLinear' op expected 'scale' of rank at most 1 (the input's rank) but got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizeLinear %x, %s, %z : (tensor<6xf32>, tensor<1x6xf32>, tensor<1x6xi8>) -> tensor<6xi8>
  return
}

// -----

// A lower-rank scale aligns with the input's trailing dimensions: [4] against
// the trailing [6] of [4, 6] is not blockwise.
func.func @lower_rank_not_blockwise(%x: tensor<4x6xi8>, %s: tensor<4xf32>, %z: tensor<4xi8>) {
  // expected-error @+2 {{'webnn.dequantizeLinear' op expected every input dimension to be a multiple of the 'scale' dimension aligned with it (blockwise broadcast) but got input [4, 6] and scale [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.dequantizeLinear %x, %s, %z : (tensor<4x6xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x6xf32>
  return
}

// -----

func.func @scale_type(%x: tensor<4xf32>, %s: tensor<1xf16>, %z: tensor<1xi8>) {
  // expected-error @+2 {{'webnn.quantizeLinear' op expected operand 'scale' to have the data type of 'input' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.quantizeLinear %x, %s, %z : (tensor<4xf32>, tensor<1xf16>, tensor<1xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @zero_point_shape(%x: tensor<4xi8>, %s: tensor<2xf32>, %z: tensor<1xi8>) {
  // expected-error @+2 {{'webnn.dequantizeLinear' op expected 'zeroPoint' of the shape of 'scale' [2] but got [1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.dequantizeLinear %x, %s, %z : (tensor<4xi8>, tensor<2xf32>, tensor<1xi8>) -> tensor<4xf32>
  return
}

// -----

func.func @zero_point_type(%x: tensor<4xi8>, %s: tensor<1xf32>, %z: tensor<1xui8>) {
  // expected-error @+2 {{'webnn.dequantizeLinear' op expected operand 'zeroPoint' to have the data type of 'input' ('i8') but got 'ui8'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.dequantizeLinear %x, %s, %z : (tensor<4xi8>, tensor<1xf32>, tensor<1xui8>) -> tensor<4xf32>
  return
}

// -----

func.func @int64_input(%x: tensor<4xi64>, %s: tensor<1xf32>, %z: tensor<1xi64>) {
  // expected-error @+1 {{'webnn.dequantizeLinear' op operand #0 must be ranked tensor of 8-bit signless integer or 8-bit unsigned integer or 32-bit signless integer or 32-bit unsigned integer or 4-bit signless integer or 4-bit unsigned integer values, but got 'tensor<4xi64>'}}
  %0 = webnn.dequantizeLinear %x, %s, %z : (tensor<4xi64>, tensor<1xf32>, tensor<1xi64>) -> tensor<4xf32>
  return
}
