// RUN: webnn-opt --webnn-fuse-rms-norm -split-input-file %s | FileCheck %s

// PyTorch's Llama RMSNorm: pow(x, 2) -> mean -> + eps -> sqrt -> div -> * weight.
// CHECK-LABEL: func.func @pow_div
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x4x8xf32>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<8xf32>
// CHECK: %[[Y:.+]], %{{.+}} = webnn.rmsNormalization %[[X]], %[[W]] {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64}
// CHECK-NOT: webnn.pow
// CHECK-NOT: webnn.sqrt
// CHECK: return %[[Y]]
func.func @pow_div() -> tensor<1x4x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %x, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 2>, keepDimensions = true} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %r = webnn.sqrt %v : tensor<1x4x1xf32>
  %n = webnn.div %x, %r : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// x * x and reciprocal; the weight [1, 1, 8] is reshaped to [8].
// CHECK-LABEL: func.func @square_reciprocal
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<2x8xf32>
// CHECK-DAG: %[[W:.+]] = webnn.input "w" : tensor<1x8xf32>
// CHECK: %[[W8:.+]] = webnn.reshape %[[W]] {newShape = array<i64: 8>}
// CHECK: %[[Y:.+]], %{{.+}} = webnn.rmsNormalization %[[X]], %[[W8]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64}
// CHECK: return %[[Y]]
func.func @square_reciprocal() -> tensor<2x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x8xf32>
  %w = webnn.input "w" : tensor<1x8xf32>
  %eps = webnn.constant dense<1.0e-6> : tensor<1xf32>
  %sq = webnn.mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 1>, keepDimensions = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %v = webnn.add %eps, %m : (tensor<1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %r = webnn.sqrt %v : tensor<2x1xf32>
  %i = webnn.reciprocal %r : tensor<2x1xf32>
  %n = webnn.mul %x, %i : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = webnn.mul %n, %w : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// fp16 with HF's float32 statistics: cast up, normalize, cast back, * weight.
// CHECK-LABEL: func.func @fp16_casts
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x4x8xf16>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<8xf16>
// CHECK: %[[Y:.+]], %{{.+}} = webnn.rmsNormalization %[[X]], %[[W]] {{.*}} : (tensor<1x4x8xf16>, tensor<8xf16>) -> (tensor<1x4x8xf16>, tensor<1x4x1xf32>)
// CHECK-NOT: webnn.cast
// CHECK: return %[[Y]]
func.func @fp16_casts() -> tensor<1x4x8xf16> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x8xf16>
  %w = webnn.constant dense<1.5> : tensor<8xf16>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %xf = webnn.cast %x {type = f32} : (tensor<1x4x8xf16>) -> tensor<1x4x8xf32>
  %sq = webnn.pow %xf, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 2>, keepDimensions = true} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %r = webnn.sqrt %v : tensor<1x4x1xf32>
  %i = webnn.reciprocal %r : tensor<1x4x1xf32>
  %n = webnn.mul %xf, %i : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %nh = webnn.cast %n {type = f16} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf16>
  %y = webnn.mul %w, %nh : (tensor<8xf16>, tensor<1x4x8xf16>) -> tensor<1x4x8xf16>
  return %y : tensor<1x4x8xf16>
}

// -----

// A residual add feeding the norm: skipRmsNormalization, whose sum output
// replaces the add's other use (the next residual).
// CHECK-LABEL: func.func @skip
// CHECK-DAG: %[[A:.+]] = webnn.input "a"
// CHECK-DAG: %[[B:.+]] = webnn.input "b"
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<8xf32>
// CHECK: %[[Y:.+]], %{{.+}}, %[[SUM:.+]] = webnn.skipRmsNormalization %[[A]], %[[B]], %[[W]] {epsilon = 9.9999997473787516E-6 : f64}
// CHECK-NOT: webnn.add
// CHECK: return %[[Y]], %[[SUM]]
func.func @skip() -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) attributes {webnn.output_names = ["y", "h"]} {
  %a = webnn.input "a" : tensor<1x4x8xf32>
  %b = webnn.input "b" : tensor<1x4x8xf32>
  %h = webnn.add %a, %b : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %h, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 2>, keepDimensions = true} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %r = webnn.sqrt %v : tensor<1x4x1xf32>
  %n = webnn.div %h, %r : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y, %h : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// Not an RMSNorm: the mean runs over axis 1, not the last axis.
// CHECK-LABEL: func.func @wrong_axis
// CHECK-NOT: webnn.rmsNormalization
// CHECK: webnn.reduceMean
func.func @wrong_axis() -> tensor<4x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<4x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %x, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 0>, keepDimensions = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %v = webnn.add %m, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %r = webnn.sqrt %v : tensor<1x8xf32>
  %n = webnn.div %x, %r : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Not an RMSNorm: pow(x, 3), and the statistic divides another tensor.
// CHECK-LABEL: func.func @not_rms
// CHECK-NOT: webnn.rmsNormalization
// CHECK: webnn.pow
// CHECK: webnn.div
func.func @not_rms() -> (tensor<1x8xf32>, tensor<1x8xf32>) attributes {webnn.output_names = ["y", "z"]} {
  %x = webnn.input "x" : tensor<1x8xf32>
  %u = webnn.input "u" : tensor<1x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %three = webnn.constant dense<3.0> : tensor<f32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %x, %three : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 1>, keepDimensions = true} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %r = webnn.sqrt %v : tensor<1x1xf32>
  %n = webnn.div %x, %r : (tensor<1x8xf32>, tensor<1x1xf32>) -> tensor<1x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  %sq2 = webnn.pow %x, %two : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %m2 = webnn.reduceMean %sq2 {axes = array<i64: 1>, keepDimensions = true} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %v2 = webnn.add %m2, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %r2 = webnn.sqrt %v2 : tensor<1x1xf32>
  %n2 = webnn.div %u, %r2 : (tensor<1x8xf32>, tensor<1x1xf32>) -> tensor<1x8xf32>
  %z = webnn.mul %w, %n2 : (tensor<8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y, %z : tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// Not fused: the normalized value has another use, which would need it anyway.
// CHECK-LABEL: func.func @shared_intermediate
// CHECK-NOT: webnn.rmsNormalization
func.func @shared_intermediate() -> (tensor<1x8xf32>, tensor<1x8xf32>) attributes {webnn.output_names = ["y", "n"]} {
  %x = webnn.input "x" : tensor<1x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %x, %two : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 1>, keepDimensions = true} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  %r = webnn.sqrt %v : tensor<1x1xf32>
  %n = webnn.div %x, %r : (tensor<1x8xf32>, tensor<1x1xf32>) -> tensor<1x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y, %n : tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// torch.rsqrt as exported: div(1, sqrt(..)), then x * it.
// CHECK-LABEL: func.func @torch_rsqrt
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x4x8xf32>
// CHECK: %[[Y:.+]], %{{.+}} = webnn.rmsNormalization %[[X]], %{{.+}} {axis = 2 : i64
// CHECK-NOT: webnn.div
// CHECK: return %[[Y]]
func.func @torch_rsqrt() -> tensor<1x4x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %one = webnn.constant dense<1.0> : tensor<f32>
  %sq = webnn.pow %x, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 2>, keepDimensions = true} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %r = webnn.sqrt %v : tensor<1x4x1xf32>
  %i = webnn.div %one, %r : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %n = webnn.mul %x, %i : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Not an RMSNorm: div(2, sqrt(..)) is twice the inverse.
// CHECK-LABEL: func.func @two_over_rms
// CHECK-NOT: webnn.rmsNormalization
// CHECK: webnn.div
func.func @two_over_rms() -> tensor<1x4x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %x, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 2>, keepDimensions = true} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %r = webnn.sqrt %v : tensor<1x4x1xf32>
  %i = webnn.div %two, %r : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %n = webnn.mul %x, %i : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// The norm fuses, but its input add broadcasts (a [8] bias, not a residual
// of the same shape), so it stays an add: no skipRmsNormalization.
// CHECK-LABEL: func.func @broadcast_add
// CHECK: %[[H:.+]] = webnn.add
// CHECK: webnn.rmsNormalization %[[H]]
// CHECK-NOT: webnn.skipRmsNormalization
func.func @broadcast_add() -> tensor<1x4x8xf32> attributes {webnn.output_names = ["y"]} {
  %a = webnn.input "a" : tensor<1x4x8xf32>
  %c = webnn.constant dense<0.5> : tensor<8xf32>
  %h = webnn.add %a, %c : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %two = webnn.constant dense<2.0> : tensor<f32>
  %eps = webnn.constant dense<1.0e-5> : tensor<f32>
  %sq = webnn.pow %h, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %m = webnn.reduceMean %sq {axes = array<i64: 2>, keepDimensions = true} : (tensor<1x4x8xf32>) -> tensor<1x4x1xf32>
  %v = webnn.add %m, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %r = webnn.sqrt %v : tensor<1x4x1xf32>
  %n = webnn.div %h, %r : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %y = webnn.mul %w, %n : (tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}
