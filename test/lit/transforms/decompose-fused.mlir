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
