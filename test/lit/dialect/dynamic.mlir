// RUN: webnn-opt %s | FileCheck %s
// Dynamic dimensions (issue 3) pass through the shape rules where trivial.

// CHECK-LABEL: func @dyn
func.func @dyn(%a: tensor<?x3xf32>, %b: tensor<3xf32>, %x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %m: tensor<?x4xf32>, %n: tensor<4x?xf32>) -> () {
  %0 = webnn.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: webnn.conv2d {{.*}} -> tensor<?x4x6x6xf32>
  %1 = webnn.conv2d %x, %w : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
  // CHECK: webnn.matmul {{.*}} -> tensor<?x?xf32>
  %2 = webnn.matmul %m, %n : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  %3 = webnn.reduceSum %a {axes = array<i64: 1>} : (tensor<?x3xf32>) -> tensor<?xf32>
  %4 = webnn.transpose %a : (tensor<?x3xf32>) -> tensor<3x?xf32>
  %5 = webnn.concat %a, %a {axis = 0 : i64} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}
