// RUN: webnn-opt --webnn-fuse-attention -split-input-file %s | FileCheck %s

// nn.MultiheadAttention as PyTorch exports it, sequence first (L 4, N 1,
// H 2, Dh 3): q divided by a constant before its head transpose, k
// transposed to [H, Dh, L] in one transpose, softmax over axis 2.
// CHECK-LABEL: func.func @mha_seq_first
// CHECK-DAG: %[[Q:.+]] = webnn.input "q" : tensor<4x1x6xf32>
// CHECK-DAG: %[[K:.+]] = webnn.input "k" : tensor<4x1x6xf32>
// CHECK-DAG: %[[V:.+]] = webnn.input "v" : tensor<4x1x6xf32>
// CHECK-DAG: %[[Q3:.+]] = webnn.reshape %[[Q]] {newShape = array<i64: 1, 4, 6>}
// CHECK-DAG: %[[K3:.+]] = webnn.reshape %[[K]] {newShape = array<i64: 1, 4, 6>}
// CHECK-DAG: %[[V3:.+]] = webnn.reshape %[[V]] {newShape = array<i64: 1, 4, 6>}
// CHECK: %[[A:.+]] = webnn.fusedAttention %[[Q3]], %[[K3]], %[[V3]] {heads = 2 : i64, scale = 5.000000e-01 : f64} : {{.*}} -> tensor<1x4x6xf32>
// CHECK: %[[Y:.+]] = webnn.reshape %[[A]] {newShape = array<i64: 4, 6>} : (tensor<1x4x6xf32>) -> tensor<4x6xf32>
// CHECK-NOT: webnn.softmax
// CHECK-NOT: webnn.transpose
// CHECK-NOT: webnn.div
// CHECK: return %[[Y]]
func.func @mha_seq_first() -> tensor<4x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<4x1x6xf32>
  %k = webnn.input "k" : tensor<4x1x6xf32>
  %v = webnn.input "v" : tensor<4x1x6xf32>
  %two = webnn.constant dense<2.0> : tensor<1x1x1xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %qs = webnn.div %qr, %two : (tensor<4x2x3xf32>, tensor<1x1x1xf32>) -> tensor<4x2x3xf32>
  %q3 = webnn.transpose %qs {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %s = webnn.matmul %q3, %kt : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  %p = webnn.softmax %s {axis = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Batch N 2 folded into the heads (L 4, N 2, H 2, Dh 3 -> 4 heads over rows
// of 12), k transposed in two steps and scaled by a mul after its transpose,
// the scores scaled too: the scales multiply (0.5 * 0.25).
// CHECK-LABEL: func.func @mha_seq_first_batch2
// CHECK: %[[A:.+]] = webnn.fusedAttention {{.*}} {heads = 4 : i64, scale = 1.250000e-01 : f64} : (tensor<1x4x12xf32>, tensor<1x4x12xf32>, tensor<1x4x12xf32>) -> tensor<1x4x12xf32>
// CHECK: %[[Y:.+]] = webnn.reshape %[[A]] {newShape = array<i64: 8, 6>}
// CHECK-NOT: webnn.softmax
// CHECK-NOT: webnn.mul
// CHECK: return %[[Y]]
func.func @mha_seq_first_batch2() -> tensor<8x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<4x2x6xf32>
  %k = webnn.input "k" : tensor<4x2x6xf32>
  %v = webnn.input "v" : tensor<4x2x6xf32>
  %half = webnn.constant dense<0.5> : tensor<f32>
  %quarter = webnn.constant dense<0.25> : tensor<f32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 4, 3>} : (tensor<4x2x6xf32>) -> tensor<4x4x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 4, 3>} : (tensor<4x2x6xf32>) -> tensor<4x4x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 4, 3>} : (tensor<4x2x6xf32>) -> tensor<4x4x3xf32>
  %q3 = webnn.transpose %qr {permutation = array<i64: 1, 0, 2>} : (tensor<4x4x3xf32>) -> tensor<4x4x3xf32>
  %k3 = webnn.transpose %kr {permutation = array<i64: 1, 0, 2>} : (tensor<4x4x3xf32>) -> tensor<4x4x3xf32>
  %kt = webnn.transpose %k3 {permutation = array<i64: 0, 2, 1>} : (tensor<4x4x3xf32>) -> tensor<4x3x4xf32>
  %kts = webnn.mul %half, %kt : (tensor<f32>, tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<4x4x3xf32>) -> tensor<4x4x3xf32>
  %s = webnn.matmul %q3, %kts : (tensor<4x4x3xf32>, tensor<4x3x4xf32>) -> tensor<4x4x4xf32>
  %ss = webnn.mul %s, %quarter : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4x4xf32>
  %p = webnn.softmax %ss {axis = 2 : i64} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<4x4x4xf32>, tensor<4x4x3xf32>) -> tensor<4x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<4x4x3xf32>) -> tensor<4x4x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 8, 6>} : (tensor<4x4x3xf32>) -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

// -----

// Negative: softmax over axis 1 (across heads), not over the keys.
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT: webnn.fusedAttention
// CHECK: webnn.softmax {{.*}} {axis = 1 : i64}
// CHECK: return
func.func @softmax_wrong_axis() -> tensor<4x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<4x1x6xf32>
  %k = webnn.input "k" : tensor<4x1x6xf32>
  %v = webnn.input "v" : tensor<4x1x6xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %q3 = webnn.transpose %qr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %s = webnn.matmul %q3, %kt : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  %p = webnn.softmax %s {axis = 1 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Negative: k split with q's permutation [1, 0, 2] and then not transposed
// to [H, Dh, L] (the matmul reads k's columns as keys: 3 == 3 only by the
// shapes chosen here).
// CHECK-LABEL: func.func @k_not_transposed
// CHECK-NOT: webnn.fusedAttention
// CHECK: webnn.softmax
// CHECK: return
func.func @k_not_transposed() -> tensor<3x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<3x1x6xf32>
  %k = webnn.input "k" : tensor<3x1x6xf32>
  %v = webnn.input "v" : tensor<3x1x6xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 3, 2, 3>} : (tensor<3x1x6xf32>) -> tensor<3x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 3, 2, 3>} : (tensor<3x1x6xf32>) -> tensor<3x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 3, 2, 3>} : (tensor<3x1x6xf32>) -> tensor<3x2x3xf32>
  %q3 = webnn.transpose %qr {permutation = array<i64: 1, 0, 2>} : (tensor<3x2x3xf32>) -> tensor<2x3x3xf32>
  %k3 = webnn.transpose %kr {permutation = array<i64: 1, 0, 2>} : (tensor<3x2x3xf32>) -> tensor<2x3x3xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<3x2x3xf32>) -> tensor<2x3x3xf32>
  %s = webnn.matmul %q3, %k3 : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %p = webnn.softmax %s {axis = 2 : i64} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x3xf32>) -> tensor<3x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 3, 6>} : (tensor<3x2x3xf32>) -> tensor<3x6xf32>
  return %y : tensor<3x6xf32>
}

// -----

// Negative: the division scales v, not q or k, so it is not a score scale.
// CHECK-LABEL: func.func @scale_on_v
// CHECK-NOT: webnn.fusedAttention
// CHECK: webnn.div
// CHECK: webnn.softmax
// CHECK: return
func.func @scale_on_v() -> tensor<4x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<4x1x6xf32>
  %k = webnn.input "k" : tensor<4x1x6xf32>
  %v = webnn.input "v" : tensor<4x1x6xf32>
  %two = webnn.constant dense<2.0> : tensor<1x1x1xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vs = webnn.div %vr, %two : (tensor<4x2x3xf32>, tensor<1x1x1xf32>) -> tensor<4x2x3xf32>
  %q3 = webnn.transpose %qr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %v3 = webnn.transpose %vs {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %s = webnn.matmul %q3, %kt : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  %p = webnn.softmax %s {axis = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Negative: the constant divided by q (c / q is no scale).
// CHECK-LABEL: func.func @constant_over_q
// CHECK-NOT: webnn.fusedAttention
// CHECK: webnn.div
// CHECK: webnn.softmax
// CHECK: return
func.func @constant_over_q() -> tensor<4x6xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<4x1x6xf32>
  %k = webnn.input "k" : tensor<4x1x6xf32>
  %v = webnn.input "v" : tensor<4x1x6xf32>
  %two = webnn.constant dense<2.0> : tensor<1x1x1xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %qs = webnn.div %two, %qr : (tensor<1x1x1xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %q3 = webnn.transpose %qs {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %s = webnn.matmul %q3, %kt : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  %p = webnn.softmax %s {axis = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Negative: the scaled q is also a graph output, so the division must stay
// and the chain is left as it is.
// CHECK-LABEL: func.func @scaled_q_read_twice
// CHECK-NOT: webnn.fusedAttention
// CHECK: webnn.softmax
// CHECK: return
func.func @scaled_q_read_twice() -> (tensor<4x6xf32>, tensor<4x2x3xf32>) attributes {webnn.output_names = ["y", "qs"]} {
  %q = webnn.input "q" : tensor<4x1x6xf32>
  %k = webnn.input "k" : tensor<4x1x6xf32>
  %v = webnn.input "v" : tensor<4x1x6xf32>
  %two = webnn.constant dense<2.0> : tensor<1x1x1xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %qs = webnn.div %qr, %two : (tensor<4x2x3xf32>, tensor<1x1x1xf32>) -> tensor<4x2x3xf32>
  %q3 = webnn.transpose %qs {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %s = webnn.matmul %q3, %kt : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  %p = webnn.softmax %s {axis = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y, %qs : tensor<4x6xf32>, tensor<4x2x3xf32>
}

// -----

// Negative: the probabilities are read twice (a graph output too).
// CHECK-LABEL: func.func @probabilities_read_twice
// CHECK-NOT: webnn.fusedAttention
// CHECK: %[[P:.+]] = webnn.softmax
// CHECK: webnn.matmul %[[P]]
// CHECK: return
func.func @probabilities_read_twice() -> (tensor<4x6xf32>, tensor<2x4x4xf32>) attributes {webnn.output_names = ["y", "p"]} {
  %q = webnn.input "q" : tensor<4x1x6xf32>
  %k = webnn.input "k" : tensor<4x1x6xf32>
  %v = webnn.input "v" : tensor<4x1x6xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 4, 2, 3>} : (tensor<4x1x6xf32>) -> tensor<4x2x3xf32>
  %q3 = webnn.transpose %qr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %kt = webnn.transpose %kr {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %v3 = webnn.transpose %vr {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x3xf32>) -> tensor<2x4x3xf32>
  %s = webnn.matmul %q3, %kt : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  %p = webnn.softmax %s {axis = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = webnn.matmul %p, %v3 : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %ct = webnn.transpose %c {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  %y = webnn.reshape %ct {newShape = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y, %p : tensor<4x6xf32>, tensor<2x4x4xf32>
}
