// RUN: webnn-opt --webnn-fuse-matmul -split-input-file %s | FileCheck %s

// A BERT feed-forward layer: matmul + bias + PyTorch's erf GELU, then
// matmul + bias + residual. Both become single fusedMatmul ops.
// CHECK-LABEL: func.func @feed_forward
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x4x8xf32>
// CHECK-DAG: %[[W1:.+]] = webnn.constant {{.*}} : tensor<8x16xf32>
// CHECK-DAG: %[[B1:.+]] = webnn.constant {{.*}} : tensor<16xf32>
// CHECK-DAG: %[[W2:.+]] = webnn.constant {{.*}} : tensor<16x8xf32>
// CHECK-DAG: %[[B2:.+]] = webnn.constant {{.*}} : tensor<8xf32>
// CHECK: %[[H:.+]] = webnn.fusedMatmul %[[X]], %[[W1]] bias %[[B1]] {activation = "gelu"}
// CHECK: %[[Y:.+]] = webnn.fusedMatmul %[[H]], %[[W2]] bias %[[B2]] residual %[[X]]
// CHECK-NOT: activation
// CHECK-NOT: webnn.erf
// CHECK: return %[[Y]]
func.func @feed_forward() -> tensor<1x4x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x8xf32>
  %w1 = webnn.constant dense<0.5> : tensor<8x16xf32>
  %b1 = webnn.constant dense<0.25> : tensor<16xf32>
  %w2 = webnn.constant dense<0.125> : tensor<16x8xf32>
  %b2 = webnn.constant dense<1.0> : tensor<8xf32>
  %sqrt2 = webnn.constant dense<1.41421354> : tensor<f32>
  %one = webnn.constant dense<1.0> : tensor<f32>
  %half = webnn.constant dense<0.5> : tensor<f32>
  %m1 = webnn.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  %a1 = webnn.add %b1, %m1 : (tensor<16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %d = webnn.div %a1, %sqrt2 : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32>
  %e = webnn.erf %d : tensor<1x4x16xf32>
  %p = webnn.add %e, %one : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32>
  %g0 = webnn.mul %a1, %p : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %g = webnn.mul %g0, %half : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32>
  %m2 = webnn.matmul %g, %w2 : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  %a2 = webnn.add %b2, %m2 : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %y = webnn.add %x, %a2 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Attention scores: the division by sqrt(Dh) becomes alpha; relu fuses.
// CHECK-LABEL: func.func @scaled_scores
// CHECK-DAG: %[[Q:.+]] = webnn.input "q" : tensor<2x3x4xf32>
// CHECK-DAG: %[[K:.+]] = webnn.input "k" : tensor<2x4x5xf32>
// CHECK: %[[S:.+]] = webnn.fusedMatmul %[[Q]], %[[K]] {activation = "relu", alpha = 5.000000e-01 : f64}
// CHECK: return %[[S]]
func.func @scaled_scores() -> tensor<2x3x5xf32> attributes {webnn.output_names = ["s"]} {
  %q = webnn.input "q" : tensor<2x3x4xf32>
  %k = webnn.input "k" : tensor<2x4x5xf32>
  %two = webnn.constant dense<2.0> : tensor<1xf32>
  %m = webnn.matmul %q, %k : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %s = webnn.div %m, %two : (tensor<2x3x5xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  %r = webnn.relu %s : tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

// Negative: the matmul result has a second use, the add's constant is not
// per column, and the activation follows a value read elsewhere: nothing fuses.
// CHECK-LABEL: func.func @no_fusion
// CHECK: %[[M:.+]] = webnn.matmul
// CHECK: webnn.add %[[M]]
// CHECK-NOT: webnn.fusedMatmul
// CHECK: %[[N:.+]] = webnn.matmul
// CHECK: webnn.add %[[N]]
// CHECK-NOT: webnn.fusedMatmul
// CHECK: return
func.func @no_fusion() -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) attributes {webnn.output_names = ["a", "b", "c"]} {
  %x = webnn.input "x" : tensor<4x8xf32>
  %w = webnn.constant dense<0.5> : tensor<8x8xf32>
  %b = webnn.constant dense<1.0> : tensor<8xf32>
  %col = webnn.constant dense<1.0> : tensor<4x1xf32>
  %m = webnn.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %a = webnn.add %m, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %n = webnn.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %c = webnn.add %n, %col : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %a, %m, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Negative: 0.5 * x * (1 + erf(x / 2)) is not GELU (wrong divisor).
// CHECK-LABEL: func.func @not_gelu
// CHECK: webnn.erf
// CHECK-NOT: webnn.gelu
// CHECK: return
func.func @not_gelu() -> tensor<4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<4xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %one = webnn.constant dense<1.0> : tensor<f32>
  %half = webnn.constant dense<0.5> : tensor<f32>
  %d = webnn.div %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %e = webnn.erf %d : tensor<4xf32>
  %p = webnn.add %e, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %g0 = webnn.mul %x, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = webnn.mul %g0, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
