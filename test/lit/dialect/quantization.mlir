// RUN: webnn-opt %s -split-input-file | FileCheck %s
// quantizeLinear / dequantizeLinear round trips; result types are checked
// against inference, so each line is also a shape and data-type test.

// CHECK-LABEL: func @per_tensor
func.func @per_tensor(%x: tensor<2x3xf32>, %s: tensor<1x1xf32>, %z: tensor<1x1xui8>) -> () {
  // CHECK: webnn.quantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xui8>
  %0 = webnn.quantizeLinear %x, %s, %z : (tensor<2x3xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xui8>
  // CHECK: webnn.dequantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xf32>
  %1 = webnn.dequantizeLinear %0, %s, %z : (tensor<2x3xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xf32>
  return
}

// -----

// CHECK-LABEL: func @blockwise
func.func @blockwise(%w: tensor<8x64xi4>, %s: tensor<8x2xf16>, %z: tensor<8x2xi4>,
                     %x: tensor<4x6xf16>, %s2: tensor<2x3xf16>, %z2: tensor<2x3xi32>) -> () {
  // CHECK: webnn.dequantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x64xi4>, tensor<8x2xf16>, tensor<8x2xi4>) -> tensor<8x64xf16>
  %0 = webnn.dequantizeLinear %w, %s, %z : (tensor<8x64xi4>, tensor<8x2xf16>, tensor<8x2xi4>) -> tensor<8x64xf16>
  // CHECK: webnn.quantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x6xf16>, tensor<2x3xf16>, tensor<2x3xi32>) -> tensor<4x6xi32>
  %1 = webnn.quantizeLinear %x, %s2, %z2 : (tensor<4x6xf16>, tensor<2x3xf16>, tensor<2x3xi32>) -> tensor<4x6xi32>
  return
}

// -----

// Lower-rank scale and zeroPoint align with the input's trailing dimensions
// (WPT: a [2, 1] scale on a [1, 1, 2, 2] input; implicit block sizes [1, 2]).
// CHECK-LABEL: func @lower_rank
func.func @lower_rank(%x: tensor<1x1x2x2xi8>, %s: tensor<2x1xf32>, %z: tensor<2x1xi8>,
                      %y: tensor<1x1x4xf32>, %s2: tensor<1x2xf32>, %z2: tensor<1x2xui8>,
                      %s0: tensor<f32>, %z0: tensor<ui8>) -> () {
  // CHECK: webnn.dequantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x2x2xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<1x1x2x2xf32>
  %0 = webnn.dequantizeLinear %x, %s, %z : (tensor<1x1x2x2xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<1x1x2x2xf32>
  // CHECK: webnn.quantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x4xf32>, tensor<1x2xf32>, tensor<1x2xui8>) -> tensor<1x1x4xui8>
  %1 = webnn.quantizeLinear %y, %s2, %z2 : (tensor<1x1x4xf32>, tensor<1x2xf32>, tensor<1x2xui8>) -> tensor<1x1x4xui8>
  // CHECK: webnn.quantizeLinear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4xui8>
  %2 = webnn.quantizeLinear %y, %s0, %z0 : (tensor<1x1x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4xui8>
  return
}
