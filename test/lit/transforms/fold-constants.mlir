// RUN: webnn-opt --webnn-fold-constants -split-input-file %s | FileCheck %s

// Shape arithmetic on constants collapses into one constant.
// CHECK-LABEL: func.func @folds_constant_chain
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<2x3xf32>
// CHECK-DAG: %[[C:.+]] = webnn.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<1x3xf32>
// CHECK: %[[R:.+]] = webnn.add %[[X]], %[[C]]
// CHECK: return %[[R]]
func.func @folds_constant_chain() -> tensor<2x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x3xf32>
  %a = webnn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = webnn.add %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = webnn.reshape %b {newShape = array<i64: 1, 3>} : (tensor<3xf32>) -> tensor<1x3xf32>
  %y = webnn.add %x, %c : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Ops on graph inputs are left alone.
// CHECK-LABEL: func.func @keeps_runtime_ops
// CHECK: webnn.transpose
// CHECK: webnn.relu
func.func @keeps_runtime_ops() -> tensor<3x2xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x3xf32>
  %t = webnn.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = webnn.relu %t : tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A weight (a resource blob) reshaped for its only user becomes the weight
// with the new shape, keeping its name and blob; one read by another op too
// keeps its reshape.
// CHECK-LABEL: func.func @reshapes_weight_in_place
// CHECK-DAG: %[[W:.+]] = webnn.constant {name = "w"} dense_resource<w> : tensor<4x2x1x3xf32>
// CHECK-DAG: %[[S:.+]] = webnn.constant {name = "s"} dense_resource<s> : tensor<6xf32>
// CHECK-DAG: webnn.reshape %[[S]]
// CHECK-NOT: webnn.reshape %[[W]]
func.func @reshapes_weight_in_place() -> (tensor<4x2x1x3xf32>, tensor<2x3xf32>, tensor<6xf32>)
    attributes {webnn.output_names = ["y", "z", "s2"]} {
  %w = webnn.constant {name = "w"} dense_resource<w> : tensor<4x2x3xf32>
  %r = webnn.reshape %w {newShape = array<i64: 4, 2, 1, 3>} : (tensor<4x2x3xf32>) -> tensor<4x2x1x3xf32>
  %s = webnn.constant {name = "s"} dense_resource<s> : tensor<6xf32>
  %t = webnn.reshape %s {newShape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
  %u = webnn.relu %s : tensor<6xf32>
  return %r, %t, %u : tensor<4x2x1x3xf32>, tensor<2x3xf32>, tensor<6xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      s: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}
