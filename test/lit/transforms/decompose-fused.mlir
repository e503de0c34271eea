// RUN: webnn-opt --webnn-decompose-fused -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-fuse-conv --webnn-decompose-fused -split-input-file %s | FileCheck %s --check-prefix=ROUNDTRIP

// fusedConv2d with a residual and clamp -> conv2d (keeping bias and
// options), add, clamp with the activation bounds.
// CHECK-LABEL: func.func @residual_clamp
// CHECK-DAG: %[[X:.+]] = webnn.input "x"
// CHECK-DAG: %[[R:.+]] = webnn.input "r"
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<3x1x1x2xf32>
// CHECK-DAG: %[[B:.+]] = webnn.constant {{.*}} : tensor<3xf32>
// CHECK: %[[C:.+]] = webnn.conv2d %[[X]], %[[W]] bias %[[B]] {filterLayout = "ohwi", inputLayout = "nhwc"} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[S:.+]] = webnn.add %[[C]], %[[R]]
// CHECK: %[[Y:.+]] = webnn.clamp %[[S]] {maxValue = 6.000000e+00 : f64, minValue = 0.000000e+00 : f64}
// CHECK: return %[[Y]]
// ROUNDTRIP-LABEL: func.func @residual_clamp
// ROUNDTRIP: webnn.conv2d
// ROUNDTRIP: webnn.add
// ROUNDTRIP: webnn.clamp
// ROUNDTRIP-NOT: webnn.fusedConv2d
func.func @residual_clamp() -> tensor<1x4x4x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x4x2xf32>
  %r = webnn.input "r" : tensor<1x4x4x3xf32>
  %w = webnn.constant dense<1.0> : tensor<3x1x1x2xf32>
  %b = webnn.constant dense<0.5> : tensor<3xf32>
  %y = webnn.fusedConv2d %x, %w bias %b residual %r {activation = "clamp", activationMinValue = 0.0 : f64, activationMaxValue = 6.0 : f64, inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// -----

// No residual, relu; and no activation at all: conv2d alone.
// CHECK-LABEL: func.func @relu_and_plain
// CHECK: %[[C1:.+]] = webnn.conv2d %{{.+}}, %{{.+}} {strides = array<i64: 2, 2>}
// CHECK: %[[Y1:.+]] = webnn.relu %[[C1]]
// CHECK: %[[C2:.+]] = webnn.conv2d
// CHECK-NOT: webnn.relu
// CHECK-NOT: webnn.add
// CHECK: return %[[Y1]], %[[C2]]
func.func @relu_and_plain() -> (tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["a", "b"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %a = webnn.fusedConv2d %x, %w {activation = "relu", strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %b = webnn.fusedConv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %a, %b : tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>
}

// -----

// fusedMatmul with alpha, bias, residual and gelu -> matmul, mul, add, add, gelu.
// CHECK-LABEL: func.func @fused_matmul
// CHECK-DAG: %[[A:.+]] = webnn.input "a" : tensor<2x3x8xf32>
// CHECK-DAG: %[[R:.+]] = webnn.input "r" : tensor<2x3x4xf32>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<8x4xf32>
// CHECK-DAG: %[[B:.+]] = webnn.constant {{.*}} : tensor<4xf32>
// CHECK-DAG: %[[AL:.+]] = webnn.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[M:.+]] = webnn.matmul %[[A]], %[[W]]
// CHECK: %[[S:.+]] = webnn.mul %[[M]], %[[AL]]
// CHECK: %[[P:.+]] = webnn.add %[[S]], %[[B]]
// CHECK: %[[Q:.+]] = webnn.add %[[P]], %[[R]]
// CHECK: %[[Y:.+]] = webnn.gelu %[[Q]]
// CHECK-NOT: webnn.fusedMatmul
// CHECK: return %[[Y]]
func.func @fused_matmul() -> tensor<2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %a = webnn.input "a" : tensor<2x3x8xf32>
  %r = webnn.input "r" : tensor<2x3x4xf32>
  %w = webnn.constant dense<0.5> : tensor<8x4xf32>
  %b = webnn.constant dense<0.125> : tensor<4xf32>
  %y = webnn.fusedMatmul %a, %w bias %b residual %r {alpha = 0.25 : f64, activation = "gelu"} : (tensor<2x3x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// fusedAttention (2 heads of 4) -> head splits, scaled scores, softmax, P V, head merge.
// CHECK-LABEL: func.func @fused_attention
// CHECK-DAG: %[[Q:.+]] = webnn.input "q" : tensor<1x3x8xf32>
// CHECK-DAG: %[[K:.+]] = webnn.input "k" : tensor<1x5x8xf32>
// CHECK: %[[KR:.+]] = webnn.reshape %[[K]] {newShape = array<i64: 1, 5, 2, 4>}
// CHECK: %[[KT:.+]] = webnn.transpose %[[KR]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[S:.+]] = webnn.matmul %{{.+}}, %[[KT]] : (tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x3x5xf32>
// CHECK: %[[SS:.+]] = webnn.mul %[[S]], %{{.+}}
// CHECK: %[[P:.+]] = webnn.softmax %[[SS]] {axis = 3 : i64}
// CHECK: %[[O:.+]] = webnn.matmul %[[P]], %{{.+}} : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK: %[[OT:.+]] = webnn.transpose %[[O]] {permutation = array<i64: 0, 2, 1, 3>}
// CHECK: %[[Y:.+]] = webnn.reshape %[[OT]] {newShape = array<i64: 1, 3, 8>}
// CHECK-NOT: webnn.fusedAttention
// CHECK: return %[[Y]]
func.func @fused_attention() -> tensor<1x3x8xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x3x8xf32>
  %k = webnn.input "k" : tensor<1x5x8xf32>
  %v = webnn.input "v" : tensor<1x5x8xf32>
  %y = webnn.fusedAttention %q, %k, %v {heads = 2 : i64, scale = 0.5 : f64} : (tensor<1x3x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>) -> tensor<1x3x8xf32>
  return %y : tensor<1x3x8xf32>
}

// -----

// silu -> conv2d, sigmoid, mul(conv, sigmoid).
// CHECK-LABEL: func.func @silu
// CHECK: %[[C:.+]] = webnn.conv2d %{{.+}}, %{{.+}} bias %{{.+}} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[S:.+]] = webnn.sigmoid %[[C]]
// CHECK: %[[Y:.+]] = webnn.mul %[[C]], %[[S]]
// CHECK-NOT: webnn.fusedConv2d
// CHECK: return %[[Y]]
func.func @silu() -> tensor<1x2x4x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = webnn.constant dense<0.5> : tensor<2xf32>
  %y = webnn.fusedConv2d %x, %w bias %b {activation = "silu"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// hardSwish -> conv2d, hardSwish.
// CHECK-LABEL: func.func @hard_swish
// CHECK: %[[C:.+]] = webnn.conv2d %{{.+}}, %{{.+}} bias %{{.+}} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[Y:.+]] = webnn.hardSwish %[[C]]
// CHECK-NOT: webnn.fusedConv2d
// CHECK: return %[[Y]]
func.func @hard_swish() -> tensor<1x2x4x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = webnn.constant dense<0.5> : tensor<2xf32>
  %y = webnn.fusedConv2d %x, %w bias %b {activation = "hardSwish"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
