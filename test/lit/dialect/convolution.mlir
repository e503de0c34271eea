// RUN: webnn-opt %s -split-input-file | FileCheck %s
// Output sizes follow the spec: floor((in - ((k - 1) * d + 1) + pb + pe) / s) + 1
// for conv2d and pools (ceil with roundingType "ceil"), and
// (in - 1) * s + (k - 1) * d + 1 - pb - pe + outputPadding for convTranspose2d.

// CHECK-LABEL: func @conv2d
func.func @conv2d(%x: tensor<1x3x224x224xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>,
                  %xn: tensor<1x10x10x4xf16>, %wn: tensor<6x3x3x2xf16>,
                  %xd: tensor<1x4x5x5xf32>, %wd: tensor<3x3x1x4xf32>,
                  %xs: tensor<2x3x6x7xf32>, %ws: tensor<3x2x2x5xf32>) -> () {
  // CHECK: webnn.conv2d %{{.*}}, %{{.*}} bias %{{.*}} {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x112x112xf32>
  %0 = webnn.conv2d %x, %w bias %b {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x112x112xf32>
  // Grouped, dilated, channels-last.
  // CHECK: -> tensor<1x6x6x6xf16>
  %1 = webnn.conv2d %xn, %wn {groups = 2 : i64, dilations = array<i64: 2, 2>, inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x10x10x4xf16>, tensor<6x3x3x2xf16>) -> tensor<1x6x6x6xf16>
  // Depthwise with an hwio filter.
  // CHECK: -> tensor<1x4x3x3xf32>
  %2 = webnn.conv2d %xd, %wd {groups = 4 : i64, filterLayout = "hwio"} : (tensor<1x4x5x5xf32>, tensor<3x3x1x4xf32>) -> tensor<1x4x3x3xf32>
  // Asymmetric padding and strides, ihwo filter.
  // CHECK: -> tensor<2x5x3x2xf32>
  %3 = webnn.conv2d %xs, %ws {padding = array<i64: 0, 1, 0, 0>, strides = array<i64: 2, 3>, filterLayout = "ihwo"} : (tensor<2x3x6x7xf32>, tensor<3x2x2x5xf32>) -> tensor<2x5x3x2xf32>
  return
}

// -----

// CHECK-LABEL: func @conv_transpose2d
func.func @conv_transpose2d(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<4xf32>,
                            %xn: tensor<1x5x5x4xf32>, %wn: tensor<3x3x3x4xf32>) -> () {
  // CHECK: -> tensor<1x4x7x7xf32>
  %0 = webnn.convTranspose2d %x, %w bias %b {strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x7x7xf32>
  // CHECK: -> tensor<1x4x8x7xf32>
  %1 = webnn.convTranspose2d %x, %w {strides = array<i64: 2, 2>, outputPadding = array<i64: 1, 0>} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x8x7xf32>
  // CHECK: -> tensor<1x4x8x8xf32>
  %2 = webnn.convTranspose2d %x, %w {strides = array<i64: 2, 2>, outputSizes = array<i64: 8, 8>} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  // Output channels = filter output channels * groups.
  // CHECK: -> tensor<1x5x5x6xf32>
  %3 = webnn.convTranspose2d %xn, %wn {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x5x5x4xf32>, tensor<3x3x3x4xf32>) -> tensor<1x5x5x6xf32>
  return
}

// -----

// CHECK-LABEL: func @pools
func.func @pools(%x: tensor<1x3x7x7xf32>, %y: tensor<1x3x8x8xf32>, %i: tensor<1x3x7x7xi8>,
                 %n: tensor<1x7x7x3xf16>) -> () {
  // CHECK: webnn.averagePool2d %{{.*}} {strides = array<i64: 2, 2>, windowDimensions = array<i64: 3, 3>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  %0 = webnn.averagePool2d %x {windowDimensions = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  // CHECK: -> tensor<1x3x3x3xf32>
  %1 = webnn.averagePool2d %y {windowDimensions = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32>
  // CHECK: -> tensor<1x3x4x4xf32>
  %2 = webnn.averagePool2d %y {windowDimensions = array<i64: 3, 3>, strides = array<i64: 2, 2>, roundingType = "ceil"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: -> tensor<1x3x4x4xf32>
  %3 = webnn.maxPool2d %y {windowDimensions = array<i64: 3, 3>, strides = array<i64: 2, 2>, outputSizes = array<i64: 4, 4>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // No window: the whole spatial extent (global pooling); maxPool2d takes any type.
  // CHECK: -> tensor<1x3x1x1xi8>
  %4 = webnn.maxPool2d %i : (tensor<1x3x7x7xi8>) -> tensor<1x3x1x1xi8>
  // CHECK: -> tensor<1x5x5x3xf16>
  %5 = webnn.l2Pool2d %n {windowDimensions = array<i64: 2, 2>, dilations = array<i64: 2, 2>, layout = "nhwc"} : (tensor<1x7x7x3xf16>) -> tensor<1x5x5x3xf16>
  return
}

// -----

// CHECK-LABEL: func @resample2d
func.func @resample2d(%x: tensor<1x3x4x6xf32>, %q: tensor<2x5x5x2xui8>) -> () {
  // CHECK: webnn.resample2d %{{.*}} : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x6xf32>
  %0 = webnn.resample2d %x : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x6xf32>
  // CHECK: webnn.resample2d %{{.*}} {mode = "linear", scales = array<f64: 2.000000e+00, 1.500000e+00>} : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x9xf32>
  %1 = webnn.resample2d %x {mode = "linear", scales = array<f64: 2.0, 1.5>} : (tensor<1x3x4x6xf32>) -> tensor<1x3x8x9xf32>
  // floor(5 * 0.5) = 2
  // CHECK: webnn.resample2d %{{.*}} {axes = array<i64: 1, 2>, scales = array<f64: 5.000000e-01, 1.000000e+00>} : (tensor<2x5x5x2xui8>) -> tensor<2x2x5x2xui8>
  %2 = webnn.resample2d %q {axes = array<i64: 1, 2>, scales = array<f64: 0.5, 1.0>} : (tensor<2x5x5x2xui8>) -> tensor<2x2x5x2xui8>
  // sizes win over scales
  // CHECK: webnn.resample2d %{{.*}} {scales = array<f64: 3.000000e+00, 3.000000e+00>, sizes = array<i64: 7, 1>} : (tensor<1x3x4x6xf32>) -> tensor<1x3x7x1xf32>
  %3 = webnn.resample2d %x {scales = array<f64: 3.0, 3.0>, sizes = array<i64: 7, 1>} : (tensor<1x3x4x6xf32>) -> tensor<1x3x7x1xf32>
  return
}
