// RUN: webnn-opt %s -split-input-file | FileCheck %s
// Reductions: absent axes reduce everything; keepDimensions keeps size 1.

// CHECK-LABEL: func @reduce
func.func @reduce(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>, %u: tensor<5xui8>) -> () {
  // CHECK: webnn.reduceSum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %0 = webnn.reduceSum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: webnn.reduceMean %{{.*}} {axes = array<i64: 2, 0>, keepDimensions = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %1 = webnn.reduceMean %x {axes = array<i64: 2, 0>, keepDimensions = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: webnn.reduceMax %{{.*}} : (tensor<2x3x4xf32>) -> tensor<f32>
  %2 = webnn.reduceMax %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = webnn.reduceMin %x {keepDimensions = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %4 = webnn.reduceL1 %i {axes = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
  %5 = webnn.reduceL2 %x {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %6 = webnn.reduceLogSum %x {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  %7 = webnn.reduceLogSumExp %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %8 = webnn.reduceProduct %i : (tensor<2x3xi32>) -> tensor<i32>
  %9 = webnn.reduceSumSquare %i {axes = array<i64: 1>, keepDimensions = true} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  %10 = webnn.reduceMax %u : (tensor<5xui8>) -> tensor<ui8>
  return
}

// -----

// CHECK-LABEL: func @arg
func.func @arg(%x: tensor<2x3x4xf32>) -> () {
  // CHECK: webnn.argMax %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xi32>
  %0 = webnn.argMax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xi32>
  // CHECK: webnn.argMin %{{.*}} {axis = 2 : i64, keepDimensions = true, outputDataType = i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  %1 = webnn.argMin %x {axis = 2 : i64, keepDimensions = true, outputDataType = i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  return
}

// -----

// CHECK-LABEL: func @cumulative_sum
func.func @cumulative_sum(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> () {
  // CHECK: webnn.cumulativeSum %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = webnn.cumulativeSum %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: webnn.cumulativeSum %{{.*}} {axis = 0 : i64, exclusive = true, reversed = true} : (tensor<4xi64>) -> tensor<4xi64>
  %1 = webnn.cumulativeSum %i {axis = 0 : i64, exclusive = true, reversed = true} : (tensor<4xi64>) -> tensor<4xi64>
  return
}
