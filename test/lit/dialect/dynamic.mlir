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

// The decoder-LLM ops keep a dynamic sequence (S) and past (P) length
// symbolic: present = P + S is dynamic too (the artifact writer derives it
// as an affine function, test/lit/artifact/dynamic.test).
// CHECK-LABEL: func @dyn_llm
func.func @dyn_llm(%x: tensor<1x?x64xf32>, %w: tensor<64x2x16xui8>, %s: tensor<64x2xf32>, %past: tensor<1x2x?x16xf32>, %sl: tensor<1xi32>, %g: tensor<64xf32>, %kv: tensor<1x?x32xf32>) -> () {
  // CHECK: webnn.matmulNBits {{.*}} -> tensor<1x?x64xf32>
  %h = webnn.matmulNBits %x, %w, %s {K = 64 : i64, N = 64 : i64, blockSize = 32 : i64} : (tensor<1x?x64xf32>, tensor<64x2x16xui8>, tensor<64x2xf32>) -> tensor<1x?x64xf32>
  // CHECK: webnn.rmsNormalization {{.*}} -> (tensor<1x?x64xf32>, tensor<1x?x1xf32>)
  %n:2 = webnn.rmsNormalization %h, %g {axis = 2 : i64} : (tensor<1x?x64xf32>, tensor<64xf32>) -> (tensor<1x?x64xf32>, tensor<1x?x1xf32>)
  // CHECK: webnn.groupQueryAttention {{.*}} -> (tensor<1x?x64xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>)
  %a:3 = webnn.groupQueryAttention %n#0 key %kv value %kv, %past, %past, %sl {numHeads = 4 : i64, kvNumHeads = 2 : i64} : (tensor<1x?x64xf32>, tensor<1x?x32xf32>, tensor<1x?x32xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1xi32>) -> (tensor<1x?x64xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>)
  return
}
