// RUN: webnnc compile --verify-each %s --emit mlir -o - | FileCheck %s
// The whole cpu pipeline over fusible chains inside webnn.if branches and a
// webnn.loop body, reading values of the enclosing block: each region is
// rewritten on its own, a value read in both branches (the matmul) stays
// unfused, and the graph verifies after every pass.
// CHECK-LABEL: func.func @main
// CHECK: %[[OUTER:.+]] = webnn.conv2d
// CHECK: %[[MM:.+]] = webnn.matmul
// CHECK: webnn.if
// CHECK: webnn.fusedConv2d {{.*}} residual %[[OUTER]] {activation = "relu"
// CHECK: webnn.add %[[MM]]
// CHECK: webnn.gelu
// CHECK: } else {
// CHECK: webnn.averagePool2d {{.*}}layout = "nhwc"
// CHECK: webnn.mul %[[MM]]
// CHECK: webnn.loop
// CHECK: webnn.fusedMatmul {{.*}} {activation = "relu"}
// CHECK: webnn.yield
func.func @main() -> (tensor<1x3x8x8xf32>, tensor<1x4x16xf32>, tensor<4xf32>) attributes {webnn.output_names = ["a", "b", "l"]} {
  %x = webnn.input "x" : tensor<1x3x8x8xf32>
  %c = webnn.input "c" : tensor<ui8>
  %h = webnn.input "h" : tensor<1x4x8xf32>
  %m = webnn.input "m" : tensor<i64>
  %l0 = webnn.input "l0" : tensor<4xf32>
  %w = webnn.constant dense<0.125> : tensor<3x3x3x3xf32>
  %b = webnn.constant dense<[[[[0.5]], [[0.25]], [[-0.5]]]]> : tensor<1x3x1x1xf32>
  %w1 = webnn.constant dense<0.0625> : tensor<8x16xf32>
  %b1 = webnn.constant dense<0.5> : tensor<16xf32>
  %s = webnn.constant dense<2.0> : tensor<f32>
  // A conv outside, read once inside a branch: fusions may pull it in.
  %outer = webnn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  %mm = webnn.matmul %h, %w1 : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  %r:2 = webnn.if %c : tensor<ui8> -> (tensor<1x3x8x8xf32>, tensor<1x4x16xf32>) then {
    %cv = webnn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x8x8xf32>
    %a = webnn.add %cv, %b : (tensor<1x3x8x8xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x8x8xf32>
    %ad = webnn.add %a, %outer : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %re = webnn.relu %ad : tensor<1x3x8x8xf32>
    %mb = webnn.add %mm, %b1 : (tensor<1x4x16xf32>, tensor<16xf32>) -> tensor<1x4x16xf32>
    %g = webnn.gelu %mb : tensor<1x4x16xf32>
    webnn.yield %re, %g : tensor<1x3x8x8xf32>, tensor<1x4x16xf32>
  } else {
    %p = webnn.averagePool2d %x {windowDimensions = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %sc = webnn.mul %mm, %s : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32>
    webnn.yield %p, %sc : tensor<1x3x8x8xf32>, tensor<1x4x16xf32>
  }
  %lp = webnn.loop trip %m : tensor<i64> carried(%l0 : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<ui8>, %v: tensor<4xf32>):
    %t = webnn.reshape %v {newShape = array<i64: 1, 4>} : (tensor<4xf32>) -> tensor<1x4xf32>
    %wl = webnn.constant dense<0.5> : tensor<4x4xf32>
    %ml = webnn.matmul %t, %wl : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
    %bl = webnn.constant dense<1.0> : tensor<4xf32>
    %al = webnn.add %ml, %bl : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    %rl = webnn.relu %al : tensor<1x4xf32>
    %o = webnn.reshape %rl {newShape = array<i64: 4>} : (tensor<1x4xf32>) -> tensor<4xf32>
    webnn.yield %cond, %o : tensor<ui8>, tensor<4xf32>
  }
  return %r#0, %r#1, %lp : tensor<1x3x8x8xf32>, tensor<1x4x16xf32>, tensor<4xf32>
}
