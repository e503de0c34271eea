// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @batch_norm_mean_shape(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %m: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.batchNormalization' op expected operand 'mean' of shape [3] but got [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.batchNormalization %x, %m, %c : (tensor<2x3x4x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @batch_norm_variance_rank(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %v: tensor<1x3xf32>) {
  // expected-error @+2 {{'webnn.batchNormalization' op expected operand 'variance' of shape [3] but got [1, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.batchNormalization %x, %c, %v : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @batch_norm_axis(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{'webnn.batchNormalization' op expected axis in [0, 2) for an input of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.batchNormalization %x, %c, %c {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_scale_type(%x: tensor<2x3xf32>, %c: tensor<3xf32>, %h: tensor<3xf16>) {
  // expected-error @+2 {{'webnn.batchNormalization' op expected operand 'scale' to have the data type of 'input' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.batchNormalization %x, %c, %c scale %h : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_int(%x: tensor<2x3xi32>, %c: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float values}}
  %0 = webnn.batchNormalization %x, %c, %c : (tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @instance_norm_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'webnn.instanceNormalization' op expected operand 'input' of rank 4 but got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.instanceNormalization %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @instance_norm_scale(%x: tensor<2x3x4x5xf32>, %s: tensor<5xf32>) {
  // expected-error @+2 {{'webnn.instanceNormalization' op expected operand 'bias' of shape [3] but got [5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.instanceNormalization %x bias %s : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return
}

// -----

func.func @instance_norm_layout(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+2 {{'webnn.instanceNormalization' op expected layout "nchw" or "nhwc" but got "ncw"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.instanceNormalization %x {layout = "ncw"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x3x4xf32>, %p: tensor<4x3xf32>) {
  // expected-error @+2 {{'webnn.layerNormalization' op expected operand 'scale' of shape [3, 4] (the input's sizes along axes [1, 2]) but got [4, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.layerNormalization %x scale %p : (tensor<2x3x4xf32>, tensor<4x3xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @layer_norm_axes(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'webnn.layerNormalization' op expected unique axes values but 2 appears more than once in [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.layerNormalization %x {axes = array<i64: 2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}
