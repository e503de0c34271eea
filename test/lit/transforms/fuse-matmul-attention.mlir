// RUN: webnn-opt --webnn-fuse-attention -split-input-file %s | FileCheck %s

// Multi-head attention as PyTorch exports it (B 1, S 4, H 2, Dh 3).
// CHECK-LABEL: func.func @self_attention
// CHECK-DAG: %[[Q:.+]] = webnn.input "q" : tensor<1x4x6xf32>
// CHECK-DAG: %[[K:.+]] = webnn.input "k" : tensor<1x4x6xf32>
// CHECK-DAG: %[[V:.+]] = webnn.input "v" : tensor<1x4x6xf32>
// CHECK: %[[A:.+]] = webnn.fusedAttention %[[Q]], %[[K]], %[[V]] {heads = 2 : i64, scale = 5.000000e-01 : f64}
// CHECK-NOT: webnn.softmax
// CHECK-NOT: webnn.transpose
// CHECK: return %[[A]]
func.func @self_attention() -> tensor<1x4x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x6xf32>
  %k = webnn.input "k" : tensor<1x4x6xf32>
  %v = webnn.input "v" : tensor<1x4x6xf32>
  %half = webnn.constant dense<0.5> : tensor<f32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 2, 3>} : (tensor<1x4x6xf32>) -> tensor<1x4x2x3xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x3xf32>) -> tensor<1x2x4x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 3>} : (tensor<1x4x6xf32>) -> tensor<1x4x2x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x3xf32>) -> tensor<1x2x3x4xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 3>} : (tensor<1x4x6xf32>) -> tensor<1x4x2x3xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x3xf32>) -> tensor<1x2x4x3xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x2x4x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x4x4xf32>
  %ss = webnn.mul %s, %half : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %p = webnn.softmax %ss {axis = 3 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = webnn.matmul %p, %v4 : (tensor<1x2x4x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x3xf32>) -> tensor<1x4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 1, 4, 6>} : (tensor<1x4x2x3xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

// Negative: the probabilities are a graph output too, so they must be
// materialized; the chain stays as it is.
// CHECK-LABEL: func.func @probabilities_used
// CHECK-NOT: webnn.fusedAttention
// CHECK: %[[P:.+]] = webnn.softmax
// CHECK: webnn.matmul %[[P]]
// CHECK: return
func.func @probabilities_used() -> (tensor<1x4x6xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["y", "p"]} {
  %q = webnn.input "q" : tensor<1x4x6xf32>
  %k = webnn.input "k" : tensor<1x4x6xf32>
  %v = webnn.input "v" : tensor<1x4x6xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 2, 3>} : (tensor<1x4x6xf32>) -> tensor<1x4x2x3xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x3xf32>) -> tensor<1x2x4x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 3>} : (tensor<1x4x6xf32>) -> tensor<1x4x2x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x3xf32>) -> tensor<1x2x3x4xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 3>} : (tensor<1x4x6xf32>) -> tensor<1x4x2x3xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x3xf32>) -> tensor<1x2x4x3xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x2x4x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x4x4xf32>
  %p = webnn.softmax %s {axis = 3 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = webnn.matmul %p, %v4 : (tensor<1x2x4x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x3xf32>) -> tensor<1x4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 1, 4, 6>} : (tensor<1x4x2x3xf32>) -> tensor<1x4x6xf32>
  return %y, %p : tensor<1x4x6xf32>, tensor<1x2x4x4xf32>
}
