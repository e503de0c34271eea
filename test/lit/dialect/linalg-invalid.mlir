// RUN: webnn-opt %s -split-input-file -verify-diagnostics

func.func @matmul_rank1(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{'webnn.matmul' op expected operands 'a' and 'b' of rank >= 2 but got ranks 1 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmul %a, %b : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_inner_dims(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+2 {{'webnn.matmul' op expected the columns of 'a' (4) to equal the rows of 'b' (5) but got shapes [3, 4] and [5, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmul %a, %b : (tensor<3x4xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x2xf32>) {
  // expected-error @+2 {{'webnn.matmul' op expected broadcastable batch dimensions but got shapes [2, 3, 4] and [3, 4, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x2xf32>) -> tensor<2x3x2xf32>
  return
}

// -----

func.func @matmul_types(%a: tensor<3x4xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+2 {{'webnn.matmul' op expected operand 'b' to have the data type of 'a' ('f32') but got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x2xf16>) -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_ints(%a: tensor<3x4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float values}}
  %0 = webnn.matmul %a, %a : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{'webnn.gemm' op expected operands 'a' and 'b' of rank 2 but got ranks 3 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gemm %a, %b : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @gemm_inner(%a: tensor<3x4xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+2 {{'webnn.gemm' op expected the columns of 'a' (4) to equal the rows of 'b' (3) after the aTranspose/bTranspose options}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gemm %a, %b : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @gemm_c(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>, %c: tensor<3x1x2xf32>) {
  // expected-error @+2 {{'webnn.gemm' op expected operand 'c' to broadcast to [3, 2] but got shape [3, 1, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.gemm %a, %b c %c : (tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x1x2xf32>) -> tensor<3x2xf32>
  return
}
