// RUN: webnn-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: func @batch_norm
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %y: tensor<2x5xf16>,
                      %d: tensor<5xf16>) -> () {
  // CHECK: webnn.batchNormalization %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}} bias %{{.*}} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %0 = webnn.batchNormalization %x, %c, %c scale %c bias %c : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // Only bias: operandSegmentSizes records which optional operand is present.
  // CHECK: webnn.batchNormalization %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} {axis = 1 : i64, epsilon = 1.000000e-03 : f64}
  %1 = webnn.batchNormalization %y, %d, %d bias %d {axis = 1 : i64, epsilon = 1.0e-3 : f64} : (tensor<2x5xf16>, tensor<5xf16>, tensor<5xf16>, tensor<5xf16>) -> tensor<2x5xf16>
  return
}

// -----

// CHECK-LABEL: func @instance_norm
func.func @instance_norm(%x: tensor<2x3x4x5xf32>, %c: tensor<3xf32>, %s: tensor<5xf32>) -> () {
  // CHECK: webnn.instanceNormalization %{{.*}} scale %{{.*}} bias %{{.*}} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  %0 = webnn.instanceNormalization %x scale %c bias %c : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  // CHECK: webnn.instanceNormalization %{{.*}} scale %{{.*}} {layout = "nhwc"}
  %1 = webnn.instanceNormalization %x scale %s {layout = "nhwc"} : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %2 = webnn.instanceNormalization %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  return
}

// -----

// CHECK-LABEL: func @layer_norm
func.func @layer_norm(%x: tensor<2x3x4xf32>, %p: tensor<3x4xf32>, %q: tensor<4x2xf32>,
                      %s: tensor<f32>) -> () {
  // Default axes: all but the first.
  // CHECK: webnn.layerNormalization %{{.*}} scale %{{.*}} bias %{{.*}} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %0 = webnn.layerNormalization %x scale %p bias %p : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  // scale follows the order of `axes`.
  // CHECK: webnn.layerNormalization %{{.*}} scale %{{.*}} {axes = array<i64: 2, 0>}
  %1 = webnn.layerNormalization %x scale %q {axes = array<i64: 2, 0>} : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x4xf32>
  // A scalar input normalizes over no axes.
  %2 = webnn.layerNormalization %s scale %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}
