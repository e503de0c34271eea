// RUN: webnn-opt --webnn-fuse-conv -split-input-file %s | FileCheck %s

// ResNet's conv -> add(residual) -> relu, with a per-channel constant add
// first (folded into a bias): one fusedConv2d.
// CHECK-LABEL: func.func @bias_residual_relu
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x4x4x2xf32>
// CHECK-DAG: %[[R:.+]] = webnn.input "r" : tensor<1x4x4x3xf32>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<3x1x1x2xf32>
// CHECK-DAG: %[[B:.+]] = webnn.constant {{.*}} : tensor<1x1x1x3xf32>
// CHECK: %[[BR:.+]] = webnn.reshape %[[B]] {newShape = array<i64: 3>} : (tensor<1x1x1x3xf32>) -> tensor<3xf32>
// CHECK: %[[F:.+]] = webnn.fusedConv2d %[[X]], %[[W]] bias %[[BR]] residual %[[R]] {activation = "relu", filterLayout = "ohwi", inputLayout = "nhwc"}
// CHECK-SAME: -> tensor<1x4x4x3xf32>
// CHECK-NOT: webnn.add
// CHECK-NOT: webnn.relu
// CHECK: return %[[F]]
func.func @bias_residual_relu() -> tensor<1x4x4x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x4x2xf32>
  %r = webnn.input "r" : tensor<1x4x4x3xf32>
  %w = webnn.constant dense<1.0> : tensor<3x1x1x2xf32>
  %b = webnn.constant dense<[[[[0.5, 1.5, 2.5]]]]> : tensor<1x1x1x3xf32>
  %c = webnn.conv2d %x, %w {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>) -> tensor<1x4x4x3xf32>
  %cb = webnn.add %c, %b : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
  %s = webnn.add %r, %cb : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %y = webnn.relu %s : tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// -----

// MobileNetV2's conv -> clamp(0, 6): the bounds carry over; an existing
// bias stays.
// CHECK-LABEL: func.func @relu6
// CHECK: %[[F:.+]] = webnn.fusedConv2d %{{.+}}, %{{.+}} bias %{{.+}} {activation = "clamp", activationMaxValue = 6.000000e+00 : f64, activationMinValue = 0.000000e+00 : f64, groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>}
// CHECK: return %[[F]]
func.func @relu6() -> tensor<1x2x4x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x1x3x3xf32>
  %b = webnn.constant dense<0.5> : tensor<2xf32>
  %c = webnn.conv2d %x, %w bias %b {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = webnn.clamp %c {minValue = 0.0 : f64, maxValue = 6.0 : f64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// MobileNetV3's conv -> hardSwish, and conv -> add(residual) -> hardSwish:
// activation "hardSwish"; a hardSwish whose input has another use stays.
// CHECK-LABEL: func.func @hard_swish
// CHECK: %[[A:.+]] = webnn.fusedConv2d %{{.+}}, %{{.+}} bias %{{.+}} {activation = "hardSwish", groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>}
// CHECK: %[[B:.+]] = webnn.fusedConv2d %[[A]], %{{.+}} residual %[[A]] {activation = "hardSwish"}
// CHECK: %[[C:.+]] = webnn.conv2d %[[B]]
// CHECK: %[[H:.+]] = webnn.hardSwish %[[C]]
// CHECK: return %[[H]], %[[C]]
func.func @hard_swish() -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["y", "c"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x1x3x3xf32>
  %w1 = webnn.constant dense<0.5> : tensor<2x2x1x1xf32>
  %b = webnn.constant dense<0.5> : tensor<2xf32>
  %c = webnn.conv2d %x, %w bias %b {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %a = webnn.hardSwish %c : tensor<1x2x4x4xf32>
  %c2 = webnn.conv2d %a, %w1 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r2 = webnn.add %c2, %a : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a2 = webnn.hardSwish %r2 : tensor<1x2x4x4xf32>
  %c3 = webnn.conv2d %a2, %w1 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a3 = webnn.hardSwish %c3 : tensor<1x2x4x4xf32>
  return %a3, %c3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Negative: a conv whose output is also returned is not fused (its value
// must exist anyway); relu before the add fuses the relu only, the add of
// the activated value stays an add.
// CHECK-LABEL: func.func @does_not_fuse_shared_or_post_activation_add
// CHECK: %[[C:.+]] = webnn.conv2d
// CHECK: %[[R:.+]] = webnn.relu %[[C]]
// CHECK: %[[F:.+]] = webnn.fusedConv2d %{{.+}}, %{{.+}} {activation = "relu"}
// CHECK: %[[S:.+]] = webnn.add %[[F]], %[[R]]
// CHECK: return %[[C]], %[[S]]
func.func @does_not_fuse_shared_or_post_activation_add() -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["c", "s"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = webnn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = webnn.relu %c : tensor<1x2x4x4xf32>
  %c2 = webnn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r2 = webnn.relu %c2 : tensor<1x2x4x4xf32>
  %s = webnn.add %r2, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %s : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// EfficientNet's SiLU as ONNX exports it, mul(x, sigmoid(x)), after a conv
// (either operand order) and after a conv whose residual add fused first:
// activation "silu".
// CHECK-LABEL: func.func @silu
// CHECK: %[[A:.+]] = webnn.fusedConv2d %{{.+}}, %{{.+}} bias %{{.+}} {activation = "silu", groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>}
// CHECK: %[[B:.+]] = webnn.fusedConv2d %[[A]], %{{.+}} {activation = "silu"}
// CHECK: %[[C:.+]] = webnn.fusedConv2d %[[B]], %{{.+}} residual %[[A]] {activation = "silu"}
// CHECK-NOT: webnn.sigmoid
// CHECK-NOT: webnn.mul
// CHECK: return %[[C]]
func.func @silu() -> tensor<1x2x4x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x1x3x3xf32>
  %w1 = webnn.constant dense<0.5> : tensor<2x2x1x1xf32>
  %b = webnn.constant dense<0.5> : tensor<2xf32>
  %c = webnn.conv2d %x, %w bias %b {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %s = webnn.sigmoid %c : tensor<1x2x4x4xf32>
  %a = webnn.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = webnn.conv2d %a, %w1 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s2 = webnn.sigmoid %c2 : tensor<1x2x4x4xf32>
  %a2 = webnn.mul %s2, %c2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c3 = webnn.conv2d %a2, %w1 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r3 = webnn.add %c3, %a : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s3 = webnn.sigmoid %r3 : tensor<1x2x4x4xf32>
  %y = webnn.mul %r3, %s3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Negative: no silu when the conv's result or the gate has another use
// (returned, or read by a second mul), or when the mul's other operand is not
// the sigmoid's input (that sigmoid fuses alone, as a gate).
// CHECK-LABEL: func.func @silu_not_fused
// CHECK: %[[C:.+]] = webnn.conv2d
// CHECK: %[[S:.+]] = webnn.sigmoid %[[C]]
// CHECK: webnn.mul %[[C]], %[[S]]
// CHECK: %[[C2:.+]] = webnn.conv2d
// CHECK: %[[S2:.+]] = webnn.sigmoid %[[C2]]
// CHECK: webnn.mul %[[C2]], %[[S2]]
// CHECK: webnn.mul %[[S2]], %[[S2]]
// CHECK: %[[G:.+]] = webnn.fusedConv2d %{{.+}}, %{{.+}} {activation = "sigmoid"}
// CHECK: webnn.mul %{{.+}}, %[[G]]
// CHECK-NOT: silu
func.func @silu_not_fused() -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["c", "a", "a2", "g", "a3"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = webnn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = webnn.sigmoid %c : tensor<1x2x4x4xf32>
  %a = webnn.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = webnn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s2 = webnn.sigmoid %c2 : tensor<1x2x4x4xf32>
  %a2 = webnn.mul %c2, %s2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %g = webnn.mul %s2, %s2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c3 = webnn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s3 = webnn.sigmoid %c3 : tensor<1x2x4x4xf32>
  %a3 = webnn.mul %x, %s3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %a, %a2, %g, %a3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
