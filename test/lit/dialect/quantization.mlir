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
