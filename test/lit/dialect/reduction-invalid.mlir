// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.reduceSum' op expected every axes value in [0, 2) for an input of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reduceSum %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expected every axes value in [0, 2) for an input of rank 2 but got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reduceMax %x {axes = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @duplicate_axes(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.reduceMean' op expected unique axes values but 1 appears more than once in [1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reduceMean %x {axes = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @mean_is_float_only(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float values}}
  %0 = webnn.reduceMean %x : (tensor<2x3xi32>) -> tensor<i32>
  return
}

// -----

func.func @sum_rejects_int8(%x: tensor<2x3xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values}}
  %0 = webnn.reduceSum %x : (tensor<2x3xi8>) -> tensor<i8>
  return
}

// -----

func.func @wrong_keep_dims_shape(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.reduceSum %x {axes = array<i64: 1>, keepDimensions = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @arg_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.argMax' op expected every axis value in [0, 2) for an input of rank 2 but got 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.argMax %x {axis = 5 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @arg_output_type(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.argMin' op expected outputDataType i32 or i64 but got 'ui32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.argMin %x {axis = 0 : i64, outputDataType = ui32} : (tensor<2x3xf32>) -> tensor<3xi32>
  return
}

// -----

func.func @arg_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{'webnn.argMin' op expected operand 'input' of rank >= 1 but got a scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.argMin %x {axis = 0 : i64} : (tensor<f32>) -> tensor<i32>
  return
}

// -----

func.func @cumulative_sum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.cumulativeSum' op expected axis in [0, 2) for an input of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.cumulativeSum %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cumulative_sum_int8(%x: tensor<3xi8>) {
  // expected-error @+1 {{'webnn.cumulativeSum' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float or 32-bit signless integer or 32-bit unsigned integer or 64-bit signless integer or 64-bit unsigned integer values, but got 'tensor<3xi8>'}}
  %0 = webnn.cumulativeSum %x {axis = 0 : i64} : (tensor<3xi8>) -> tensor<3xi8>
  return
}
