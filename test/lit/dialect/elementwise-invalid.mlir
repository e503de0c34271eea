// RUN: webnn-opt %s -split-input-file -verify-diagnostics
// Validation steps of the element-wise family. Errors found while inferring
// the result type are followed by the interface's "failed to infer returned
// types" on the same op.

func.func @float_only(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float values}}
  %0 = webnn.exp %x : tensor<4xi32>
  return
}

// -----

func.func @relu_unsigned(%x: tensor<4xui32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float or 64-bit signless integer or 32-bit signless integer or 8-bit signless integer values}}
  %0 = webnn.relu %x : tensor<4xui32>
  return
}

// -----

func.func @logical_not_wants_ui8(%x: tensor<4xf32>) {
  // expected-error @+1 {{must be ranked tensor of 8-bit unsigned integer values}}
  %0 = webnn.logicalNot %x : tensor<4xf32>
  return
}

// -----

func.func @binary_mixed_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'webnn.add' op expected operand 'b' to have the data type of 'a' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.mul' op expected broadcastable shapes but got [2, 3] for 'a' and [4] for 'b'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.mul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @compare_result_is_ui8(%a: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3xui8>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.greater %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @logical_and_wants_ui8(%a: tensor<3xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit unsigned integer values}}
  %0 = webnn.logicalAnd %a, %a : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xui8>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'webnn.softmax' op expected axis in [0, 2) for an input of rank 2 but got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @clamp_bounds(%x: tensor<3xf32>) {
  // expected-error @+2 {{'webnn.clamp' op expected minValue <= maxValue but got minValue 2.000000e+00 and maxValue 1.000000e+00}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.clamp %x {minValue = 2.0 : f64, maxValue = 1.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @cast_to_non_webnn_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float or 32-bit signless integer}}
  %0 = webnn.cast %x {type = bf16} : (tensor<3xf32>) -> tensor<3xbf16>
  return
}

// -----

func.func @where_condition_ui8(%c: tensor<3xi8>, %x: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit unsigned integer values}}
  %0 = webnn.where %c, %x, %x : (tensor<3xi8>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_value_types(%c: tensor<3xui8>, %x: tensor<3xf32>, %y: tensor<3xi32>) {
  // expected-error @+2 {{'webnn.where' op expected operand 'falseValue' to have the data type of 'trueValue' ('f32') but got 'i32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.where %c, %x, %y : (tensor<3xui8>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @prelu_slope(%x: tensor<2x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.prelu' op expected 'slope' shape [4] to broadcast with 'input' shape [2, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.prelu %x, %s : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @is_nan_integer(%x: tensor<3xi32>) {
  // expected-error @+1 {{'webnn.isNaN' op operand #0 must be ranked tensor of 32-bit float or 16-bit float values, but got 'tensor<3xi32>'}}
  %0 = webnn.isNaN %x : (tensor<3xi32>) -> tensor<3xui8>
  return
}

// -----

func.func @is_infinite_result(%x: tensor<3xf32>) {
  // expected-error @+1 {{'webnn.isInfinite' op result #0 must be ranked tensor of 8-bit unsigned integer values, but got 'tensor<3xf32>'}}
  %0 = webnn.isInfinite %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// cos/sin/tan/erf/reciprocal: float32/float16 only (the spec), plus the
// float64 extension.
func.func @cos_float_only(%x: tensor<4xi32>) {
  // expected-error @+1 {{'webnn.cos' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = webnn.cos %x : tensor<4xi32>
  return
}

// -----

// softplus/softsign: float32/float16 only; no float64 kernel, so no extension.
func.func @softplus_no_f64(%x: tensor<4xf64>) {
  // expected-error @+1 {{'webnn.softplus' op operand #0 must be ranked tensor of 32-bit float or 16-bit float values, but got 'tensor<4xf64>'}}
  %0 = webnn.softplus %x : tensor<4xf64>
  return
}
