// RUN: webnn-opt --webnn-fuse-gqa -split-input-file %s | FileCheck %s

// Llama's attention: q/k rotated at positions 0.. (rotaryEmbedding, as
// --webnn-fuse-rotary leaves them), repeat_kv by expand, * scale, + causal
// mask, softmax. One groupQueryAttention with doRotary and an empty past.
// CHECK-LABEL: func.func @gqa_expand_rotary
// CHECK-DAG: %[[Q:.+]] = webnn.input "q"
// CHECK-DAG: %[[K:.+]] = webnn.input "k"
// CHECK-DAG: %[[V:.+]] = webnn.input "v"
// CHECK-DAG: %[[COS:.+]] = webnn.constant dense<5.000000e-01> : tensor<16x4xf32>
// CHECK-DAG: %[[SIN:.+]] = webnn.constant dense<2.500000e-01> : tensor<16x4xf32>
// CHECK-DAG: %[[PAST:.+]] = webnn.constant dense<> : tensor<1x2x0x8xf32>
// CHECK-DAG: %[[SL:.+]] = webnn.constant dense<3> : tensor<1xi32>
// CHECK-DAG: %[[T:.+]] = webnn.constant dense<4> : tensor<i32>
// CHECK: %[[Y:.+]], %{{.+}}, %{{.+}} = webnn.groupQueryAttention %[[Q]] key %[[K]] value %[[V]], %[[PAST]], %[[PAST]], %[[SL]], %[[T]] cosCache %[[COS]] sinCache %[[SIN]] {doRotary = true, kvNumHeads = 2 : i64, numHeads = 4 : i64, scale = 0.353553{{[0-9]*}} : f64}
// CHECK-NOT: webnn.softmax
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: return %[[Y]]
func.func @gqa_expand_rotary() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x16xf32>
  %v = webnn.input "v" : tensor<1x4x16xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %pos = webnn.constant dense<0> : tensor<1xi64>
  %cos = webnn.constant dense<0.5> : tensor<16x4xf32>
  %sin = webnn.constant dense<0.25> : tensor<16x4xf32>
  %q4p = webnn.rotaryEmbedding %q4, %pos, %cos, %sin : (tensor<1x4x4x8xf32>, tensor<1xi64>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<1x4x4x8xf32>
  %k4p = webnn.rotaryEmbedding %k4, %pos, %cos, %sin : (tensor<1x2x4x8xf32>, tensor<1xi64>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<1x2x4x8xf32>
  %kku = webnn.reshape %k4p {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %kke = webnn.expand %kku {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kkx = webnn.reshape %kke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vvu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %vve = webnn.expand %vvu {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vvx = webnn.reshape %vve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %kkx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = webnn.matmul %q4p, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.constant dense<0.353553385> : tensor<f32>
  %ss = webnn.mul %s, %c : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %mask = webnn.constant dense<[[[[ 0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00]]]]> : tensor<1x1x4x4xf32>
  %m = webnn.add %mask, %ss : (tensor<1x1x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %vvx : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// Heads not grouped (no repeat), the mask as where(keep, s, -1e9), / sqrt(D).
// CHECK-LABEL: func.func @mha_where_div
// CHECK: %[[Y:.+]], %{{.+}}, %{{.+}} = webnn.groupQueryAttention %{{.+}} key %{{.+}} value %{{.+}} {kvNumHeads = 4 : i64, numHeads = 4 : i64, scale = 0.353553{{[0-9]*}} : f64}
// CHECK-NOT: webnn.where
// CHECK: return %[[Y]]
func.func @mha_where_div() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x32xf32>
  %v = webnn.input "v" : tensor<1x4x32xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %k4 {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.constant dense<2.82842708> : tensor<1xf32>
  %ss = webnn.div %s, %c : (tensor<1x4x4x4xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %keep = webnn.constant dense<[[1, 0, 0, 0],
 [1, 1, 0, 0],
 [1, 1, 1, 0],
 [1, 1, 1, 1]]> : tensor<4x4xui8>
  %fill = webnn.constant dense<-1.0e+09> : tensor<f32>
  %m = webnn.where %keep, %ss, %fill : (tensor<4x4xui8>, tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %v4 : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// repeat_kv written with tile on the unsqueezed axis (same order as expand).
// CHECK-LABEL: func.func @gqa_tile
// CHECK: webnn.groupQueryAttention {{.*}} {kvNumHeads = 2 : i64, numHeads = 4 : i64
// CHECK-NOT: webnn.tile
func.func @gqa_tile() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x16xf32>
  %v = webnn.input "v" : tensor<1x4x16xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %kku = webnn.reshape %k4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %kke = webnn.tile %kku {repetitions = array<i64: 1, 1, 2, 1, 1>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kkx = webnn.reshape %kke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vvu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %vve = webnn.tile %vvu {repetitions = array<i64: 1, 1, 2, 1, 1>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vvx = webnn.reshape %vve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %kkx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.constant dense<0.353553385> : tensor<f32>
  %ss = webnn.mul %s, %c : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %mask = webnn.constant dense<[[[[ 0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00]]]]> : tensor<1x1x4x4xf32>
  %m = webnn.add %mask, %ss : (tensor<1x1x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %vvx : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// Not fused: an all-zero mask is not causal (fusedAttention's job, not GQA's).
// CHECK-LABEL: func.func @not_causal
// CHECK-NOT: webnn.groupQueryAttention
// CHECK: webnn.softmax
func.func @not_causal() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x16xf32>
  %v = webnn.input "v" : tensor<1x4x16xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %kku = webnn.reshape %k4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %kke = webnn.expand %kku {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kkx = webnn.reshape %kke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vvu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %vve = webnn.expand %vvu {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vvx = webnn.reshape %vve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %kkx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.constant dense<0.353553385> : tensor<f32>
  %ss = webnn.mul %s, %c : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %mask = webnn.constant dense<[[[[0., 0., 0., 0.],
   [0., 0., 0., 0.],
   [0., 0., 0., 0.],
   [0., 0., 0., 0.]]]]> : tensor<1x1x4x4xf32>
  %m = webnn.add %mask, %ss : (tensor<1x1x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %vvx : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// Not fused: the mask hides the past instead of the future.
// CHECK-LABEL: func.func @anti_causal
// CHECK-NOT: webnn.groupQueryAttention
// CHECK: webnn.softmax
func.func @anti_causal() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x16xf32>
  %v = webnn.input "v" : tensor<1x4x16xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %kku = webnn.reshape %k4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %kke = webnn.expand %kku {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kkx = webnn.reshape %kke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vvu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %vve = webnn.expand %vvu {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vvx = webnn.reshape %vve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %kkx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.constant dense<0.353553385> : tensor<f32>
  %ss = webnn.mul %s, %c : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %mask = webnn.constant dense<[[[[ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00],
   [-3.4028235e+38,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00],
   [-3.4028235e+38, -3.4028235e+38,  0.0000000e+00,  0.0000000e+00],
   [-3.4028235e+38, -3.4028235e+38, -3.4028235e+38,  0.0000000e+00]]]]> : tensor<1x1x4x4xf32>
  %m = webnn.add %mask, %ss : (tensor<1x1x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %vvx : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// q and k rotated from position 3, not the positions 0.. that GQA's own
// rotary would use with an empty past: the rotations stay, moved onto the
// [B, S, N * D] projections (3-D rotaryEmbedding with numHeads), no doRotary.
// CHECK-LABEL: func.func @rotary_not_at_zero
// CHECK-DAG: %[[Q:.+]] = webnn.input "q"
// CHECK-DAG: %[[K:.+]] = webnn.input "k"
// CHECK-DAG: %[[V:.+]] = webnn.input "v"
// CHECK-DAG: %[[POS:.+]] = webnn.constant dense<3> : tensor<1xi64>
// CHECK: %[[QR:.+]] = webnn.rotaryEmbedding %[[Q]], %[[POS]], %{{.+}}, %{{.+}} {numHeads = 4 : i64} : (tensor<1x4x32xf32>
// CHECK: %[[KR:.+]] = webnn.rotaryEmbedding %[[K]], %[[POS]], %{{.+}}, %{{.+}} {numHeads = 2 : i64} : (tensor<1x4x16xf32>
// CHECK: %[[Y:.+]], %{{.+}}, %{{.+}} = webnn.groupQueryAttention %[[QR]] key %[[KR]] value %[[V]], {{.*}} {kvNumHeads = 2 : i64, numHeads = 4 : i64, scale
// CHECK-NOT: doRotary
// CHECK: return %[[Y]]
func.func @rotary_not_at_zero() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x16xf32>
  %v = webnn.input "v" : tensor<1x4x16xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %pos = webnn.constant dense<3> : tensor<1xi64>
  %cos = webnn.constant dense<0.5> : tensor<16x4xf32>
  %sin = webnn.constant dense<0.25> : tensor<16x4xf32>
  %q4p = webnn.rotaryEmbedding %q4, %pos, %cos, %sin : (tensor<1x4x4x8xf32>, tensor<1xi64>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<1x4x4x8xf32>
  %k4p = webnn.rotaryEmbedding %k4, %pos, %cos, %sin : (tensor<1x2x4x8xf32>, tensor<1xi64>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<1x2x4x8xf32>
  %kku = webnn.reshape %k4p {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %kke = webnn.expand %kku {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kkx = webnn.reshape %kke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vvu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %vve = webnn.expand %vvu {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vvx = webnn.reshape %vve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %kkx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %s = webnn.matmul %q4p, %kt : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.constant dense<0.353553385> : tensor<f32>
  %ss = webnn.mul %s, %c : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %mask = webnn.constant dense<[[[[ 0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00]]]]> : tensor<1x1x4x4xf32>
  %m = webnn.add %mask, %ss : (tensor<1x1x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %vvx : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// torch's scaled_dot_product_attention export: q and K^T each * sqrt(scale)
// (0.5946^2 = 1/sqrt(8)); the scales multiply.
// CHECK-LABEL: func.func @sdpa_prescaled
// CHECK: %[[Y:.+]], %{{.+}}, %{{.+}} = webnn.groupQueryAttention {{.*}} {kvNumHeads = 2 : i64, numHeads = 4 : i64, scale = 0.35355{{[0-9]*}} : f64}
// CHECK-NOT: webnn.mul
// CHECK: return %[[Y]]
func.func @sdpa_prescaled() -> tensor<1x4x32xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf32>
  %k = webnn.input "k" : tensor<1x4x16xf32>
  %v = webnn.input "v" : tensor<1x4x16xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf32>) -> tensor<1x4x4x8xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf32>) -> tensor<1x4x2x8xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %ku = webnn.reshape %k4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %ke = webnn.expand %ku {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %kx = webnn.reshape %ke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %vu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x1x4x8xf32>
  %ve = webnn.expand %vu {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x2x4x8xf32>
  %vx = webnn.reshape %ve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf32>) -> tensor<1x4x4x8xf32>
  %kt = webnn.transpose %kx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x8x4xf32>
  %sf = webnn.constant dense<0.594603539> : tensor<f32>
  %qs = webnn.mul %q4, %sf : (tensor<1x4x4x8xf32>, tensor<f32>) -> tensor<1x4x4x8xf32>
  %kts = webnn.mul %kt, %sf : (tensor<1x4x8x4xf32>, tensor<f32>) -> tensor<1x4x8x4xf32>
  %ss = webnn.matmul %qs, %kts : (tensor<1x4x4x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x4x4xf32>
  %mask = webnn.constant dense<[[ 0.e+00, -1.e+09, -1.e+09, -1.e+09],
 [ 0.e+00,  0.e+00, -1.e+09, -1.e+09],
 [ 0.e+00,  0.e+00,  0.e+00, -1.e+09],
 [ 0.e+00,  0.e+00,  0.e+00,  0.e+00]]> : tensor<4x4xf32>
  %m = webnn.add %ss, %mask : (tensor<1x4x4x4xf32>, tensor<4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %o = webnn.matmul %p, %vx : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// fp16 with HF's float32 softmax: cast up, softmax, cast back.
// CHECK-LABEL: func.func @fp16_softmax_casts
// CHECK: %[[Y:.+]], %{{.+}}, %{{.+}} = webnn.groupQueryAttention {{.*}} -> (tensor<1x4x32xf16>
// CHECK-NOT: webnn.cast
// CHECK-NOT: webnn.softmax
// CHECK: return %[[Y]]
func.func @fp16_softmax_casts() -> tensor<1x4x32xf16> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x4x32xf16>
  %k = webnn.input "k" : tensor<1x4x16xf16>
  %v = webnn.input "v" : tensor<1x4x16xf16>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x4x32xf16>) -> tensor<1x4x4x8xf16>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf16>) -> tensor<1x4x4x8xf16>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf16>) -> tensor<1x4x2x8xf16>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf16>) -> tensor<1x2x4x8xf16>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 4, 2, 8>} : (tensor<1x4x16xf16>) -> tensor<1x4x2x8xf16>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf16>) -> tensor<1x2x4x8xf16>
  %ku = webnn.reshape %k4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf16>) -> tensor<1x2x1x4x8xf16>
  %ke = webnn.expand %ku {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf16>) -> tensor<1x2x2x4x8xf16>
  %kx = webnn.reshape %ke {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf16>) -> tensor<1x4x4x8xf16>
  %vu = webnn.reshape %v4 {newShape = array<i64: 1, 2, 1, 4, 8>} : (tensor<1x2x4x8xf16>) -> tensor<1x2x1x4x8xf16>
  %ve = webnn.expand %vu {newShape = array<i64: 1, 2, 2, 4, 8>} : (tensor<1x2x1x4x8xf16>) -> tensor<1x2x2x4x8xf16>
  %vx = webnn.reshape %ve {newShape = array<i64: 1, 4, 4, 8>} : (tensor<1x2x2x4x8xf16>) -> tensor<1x4x4x8xf16>
  %kt = webnn.transpose %kx {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x4x8xf16>) -> tensor<1x4x8x4xf16>
  %s = webnn.matmul %q4, %kt : (tensor<1x4x4x8xf16>, tensor<1x4x8x4xf16>) -> tensor<1x4x4x4xf16>
  %c = webnn.constant dense<0.353553385> : tensor<f16>
  %ss = webnn.mul %s, %c : (tensor<1x4x4x4xf16>, tensor<f16>) -> tensor<1x4x4x4xf16>
  %mask = webnn.constant dense<[[     0., -65504., -65504., -65504.],
 [     0.,      0., -65504., -65504.],
 [     0.,      0.,      0., -65504.],
 [     0.,      0.,      0.,      0.]]> : tensor<4x4xf16>
  %m = webnn.add %ss, %mask : (tensor<1x4x4x4xf16>, tensor<4x4xf16>) -> tensor<1x4x4x4xf16>
  %mf = webnn.cast %m {type = f32} : (tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf32>
  %pf = webnn.softmax %mf {axis = 3 : i64} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = webnn.cast %pf {type = f16} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf16>
  %o = webnn.matmul %p, %vx : (tensor<1x4x4x4xf16>, tensor<1x4x4x8xf16>) -> tensor<1x4x4x8xf16>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x8xf16>) -> tensor<1x4x4x8xf16>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 4, 32>} : (tensor<1x4x4x8xf16>) -> tensor<1x4x32xf16>
  return %y : tensor<1x4x32xf16>
}

// -----

// A mask of S * S causal-looking values shaped [S, 1, S]: it broadcasts one
// row per head (head h hides keys > h from every query), not a causal mask.
// Left alone.
// CHECK-LABEL: func.func @mask_per_head
// CHECK-NOT: webnn.groupQueryAttention
// CHECK: webnn.softmax
func.func @mask_per_head() -> tensor<1x2x8xf32> attributes {webnn.output_names = ["y"]} {
  %q = webnn.input "q" : tensor<1x2x8xf32>
  %k = webnn.input "k" : tensor<1x2x8xf32>
  %v = webnn.input "v" : tensor<1x2x8xf32>
  %qr = webnn.reshape %q {newShape = array<i64: 1, 2, 2, 4>} : (tensor<1x2x8xf32>) -> tensor<1x2x2x4xf32>
  %q4 = webnn.transpose %qr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %kr = webnn.reshape %k {newShape = array<i64: 1, 2, 2, 4>} : (tensor<1x2x8xf32>) -> tensor<1x2x2x4xf32>
  %k4 = webnn.transpose %kr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %vr = webnn.reshape %v {newShape = array<i64: 1, 2, 2, 4>} : (tensor<1x2x8xf32>) -> tensor<1x2x2x4xf32>
  %v4 = webnn.transpose %vr {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %kt = webnn.transpose %k4 {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x4x2xf32>
  %s = webnn.matmul %q4, %kt : (tensor<1x2x2x4xf32>, tensor<1x2x4x2xf32>) -> tensor<1x2x2x2xf32>
  %mask = webnn.constant dense<[[[0.0, -3.4028235e+38]], [[0.0, 0.0]]]> : tensor<2x1x2xf32>
  %m = webnn.add %s, %mask : (tensor<1x2x2x2xf32>, tensor<2x1x2xf32>) -> tensor<1x2x2x2xf32>
  %p = webnn.softmax %m {axis = 3 : i64} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = webnn.matmul %p, %v4 : (tensor<1x2x2x2xf32>, tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %ot = webnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %y = webnn.reshape %ot {newShape = array<i64: 1, 2, 8>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x8xf32>
  return %y : tensor<1x2x8xf32>
}
