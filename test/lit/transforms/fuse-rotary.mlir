// RUN: webnn-opt --webnn-fuse-rotary -split-input-file %s | FileCheck %s

// Rotate-half (Llama) on [B, N, S, D] with cos/sin [1, 1, S, D]: the halves
// agree, so the caches are [S, D/2] and positions 0.. ([1] = 0). cos is read
// through a reshape (fold-constants keeps those on resource constants).
// CHECK-LABEL: func.func @rotate_half
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x2x3x4xf32>
// CHECK-DAG: %[[POS:.+]] = webnn.constant dense<0> : tensor<1xi64>
// CHECK-DAG: %[[COS:.+]] = webnn.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00], [0.540302277, {{.*}} : tensor<3x2xf32>
// CHECK-DAG: %[[SIN:.+]] = webnn.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [0.841470957, {{.*}} : tensor<3x2xf32>
// CHECK: %[[Y:.+]] = webnn.rotaryEmbedding %[[X]], %[[POS]], %[[COS]], %[[SIN]] {interleaved = false}
// CHECK-NOT: webnn.concat
// CHECK-NOT: webnn.neg
// CHECK: return %[[Y]]
func.func @rotate_half() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %cos2 = webnn.constant dense<[[ 1.        ,  1.        ,  1.        ,  1.        ],   [ 0.5403023 ,  0.99995   ,  0.5403023 ,  0.99995   ],   [-0.41614684,  0.9998    , -0.41614684,  0.9998    ]]> : tensor<3x4xf32>
  %cos = webnn.reshape %cos2 {newShape = array<i64: 1, 1, 3, 4>} : (tensor<3x4xf32>) -> tensor<1x1x3x4xf32>
  %sin = webnn.constant dense<[[[[0.         , 0.         , 0.         , 0.         ],   [0.84147096 , 0.009999833, 0.84147096 , 0.009999833],   [0.9092974  , 0.019998666, 0.9092974  , 0.019998666]]]]> : tensor<1x1x3x4xf32>
  %x1 = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %x2 = webnn.slice %x {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %n = webnn.neg %x2 : tensor<1x2x3x2xf32>
  %rot = webnn.concat %n, %x1 {axis = 3 : i64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %a = webnn.mul %x, %cos : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = webnn.mul %sin, %rot : (tensor<1x1x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = webnn.add %b, %a : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// Interleaved (GPT-J) on [B, S, N, D]: strided slices, pairs stacked on a new
// last axis; cos/sin [S, 1, D] repeat each angle twice. The heads are merged
// into [B, S, N * D] for the op and split again.
// CHECK-LABEL: func.func @interleaved_bsnd
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x3x2x4xf32>
// CHECK: %[[X3:.+]] = webnn.reshape %[[X]] {{.*}} -> tensor<1x3x8xf32>
// CHECK: %[[R:.+]] = webnn.rotaryEmbedding %[[X3]], %{{.+}}, %{{.+}}, %{{.+}} {interleaved = true, numHeads = 2 : i64}
// CHECK: %[[Y:.+]] = webnn.reshape %[[R]] {{.*}} -> tensor<1x3x2x4xf32>
// CHECK: return %[[Y]]
func.func @interleaved_bsnd() -> tensor<1x3x2x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x3x2x4xf32>
  %cos = webnn.constant dense<[[[ 1.        ,  1.        ,  1.        ,  1.        ]], [[ 0.5403023 ,  0.5403023 ,  0.99995   ,  0.99995   ]], [[-0.41614684, -0.41614684,  0.9998    ,  0.9998    ]]]> : tensor<3x1x4xf32>
  %sin = webnn.constant dense<[[[0.         , 0.         , 0.         , 0.         ]], [[0.84147096 , 0.84147096 , 0.009999833, 0.009999833]], [[0.9092974  , 0.9092974  , 0.019998666, 0.019998666]]]> : tensor<3x1x4xf32>
  %even = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 3, 2, 4>, strides = array<i64: 1, 1, 1, 2>} : (tensor<1x3x2x4xf32>) -> tensor<1x3x2x2xf32>
  %odd = webnn.slice %x {starts = array<i64: 0, 0, 0, 1>, sizes = array<i64: 1, 3, 2, 3>, strides = array<i64: 1, 1, 1, 2>} : (tensor<1x3x2x4xf32>) -> tensor<1x3x2x2xf32>
  %n = webnn.neg %odd : tensor<1x3x2x2xf32>
  %n5 = webnn.reshape %n {newShape = array<i64: 1, 3, 2, 2, 1>} : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2x1xf32>
  %e5 = webnn.reshape %even {newShape = array<i64: 1, 3, 2, 2, 1>} : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2x1xf32>
  %st = webnn.concat %n5, %e5 {axis = 4 : i64} : (tensor<1x3x2x2x1xf32>, tensor<1x3x2x2x1xf32>) -> tensor<1x3x2x2x2xf32>
  %rot = webnn.reshape %st {newShape = array<i64: 1, 3, 2, 4>} : (tensor<1x3x2x2x2xf32>) -> tensor<1x3x2x4xf32>
  %a = webnn.mul %cos, %x : (tensor<3x1x4xf32>, tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  %b = webnn.mul %rot, %sin : (tensor<1x3x2x4xf32>, tensor<3x1x4xf32>) -> tensor<1x3x2x4xf32>
  %y = webnn.add %a, %b : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>) -> tensor<1x3x2x4xf32>
  return %y : tensor<1x3x2x4xf32>
}

// -----

// Not rotary: cos's halves differ in one element (no [S, D/2] cache holds it).
// CHECK-LABEL: func.func @halves_differ
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: webnn.concat
func.func @halves_differ() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %cos = webnn.constant dense<[[[[ 1.        ,  1.        ,  1.        ,  1.        ],   [ 0.5403023 ,  0.99995   ,  0.5403023 ,  1.49995   ],   [-0.41614684,  0.9998    , -0.41614684,  0.9998    ]]]]> : tensor<1x1x3x4xf32>
  %sin = webnn.constant dense<[[[[0.         , 0.         , 0.         , 0.         ],   [0.84147096 , 0.009999833, 0.84147096 , 0.009999833],   [0.9092974  , 0.019998666, 0.9092974  , 0.019998666]]]]> : tensor<1x1x3x4xf32>
  %x1 = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %x2 = webnn.slice %x {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %n = webnn.neg %x2 : tensor<1x2x3x2xf32>
  %rot = webnn.concat %n, %x1 {axis = 3 : i64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %a = webnn.mul %x, %cos : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = webnn.mul %rot, %sin : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = webnn.add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// Not rotary: the negated half is the first (concat(-x1, x2) is a reflection,
// not rotate-half), and cos/sin are graph inputs (no cache to build).
// CHECK-LABEL: func.func @wrong_half_and_runtime_tables
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: webnn.neg
func.func @wrong_half_and_runtime_tables() -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) attributes {webnn.output_names = ["y", "z"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %c = webnn.input "cos" : tensor<1x1x3x4xf32>
  %s = webnn.input "sin" : tensor<1x1x3x4xf32>
  %cos = webnn.constant dense<[[[[ 1.        ,  1.        ,  1.        ,  1.        ],   [ 0.5403023 ,  0.99995   ,  0.5403023 ,  0.99995   ],   [-0.41614684,  0.9998    , -0.41614684,  0.9998    ]]]]> : tensor<1x1x3x4xf32>
  %sin = webnn.constant dense<[[[[0.         , 0.         , 0.         , 0.         ],   [0.84147096 , 0.009999833, 0.84147096 , 0.009999833],   [0.9092974  , 0.019998666, 0.9092974  , 0.019998666]]]]> : tensor<1x1x3x4xf32>
  %x1 = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %x2 = webnn.slice %x {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %n = webnn.neg %x1 : tensor<1x2x3x2xf32>
  %rot = webnn.concat %n, %x2 {axis = 3 : i64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %a = webnn.mul %x, %cos : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = webnn.mul %rot, %sin : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = webnn.add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y1 = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %y2 = webnn.slice %x {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %m = webnn.neg %y2 : tensor<1x2x3x2xf32>
  %rot2 = webnn.concat %m, %y1 {axis = 3 : i64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %a2 = webnn.mul %x, %c : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b2 = webnn.mul %rot2, %s : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %z = webnn.add %a2, %b2 : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %y, %z : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// Tables computed at run time (positions as a graph input): cos/sin of
// concat(f, f). The caches are cos(f) and sin(f) as [S, D/2], computed in the
// graph; positions 0.. index their rows.
// CHECK-LABEL: func.func @runtime_tables
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x2x3x4xf32>
// CHECK-DAG: %[[F:.+]] = webnn.input "f" : tensor<1x3x2xf32>
// CHECK: %[[C:.+]] = webnn.cos %[[F]]
// CHECK: %[[C2:.+]] = webnn.reshape %[[C]] {newShape = array<i64: 3, 2>}
// CHECK: %[[S:.+]] = webnn.sin %[[F]]
// CHECK: %[[S2:.+]] = webnn.reshape %[[S]] {newShape = array<i64: 3, 2>}
// CHECK: %[[Y:.+]] = webnn.rotaryEmbedding %[[X]], %{{.+}}, %[[C2]], %[[S2]] {interleaved = false}
// CHECK: return %[[Y]]
func.func @runtime_tables() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %f = webnn.input "f" : tensor<1x3x2xf32>
  %emb = webnn.concat %f, %f {axis = 2 : i64} : (tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x4xf32>
  %c = webnn.cos %emb : tensor<1x3x4xf32>
  %s = webnn.sin %emb : tensor<1x3x4xf32>
  %cos = webnn.reshape %c {newShape = array<i64: 1, 1, 3, 4>} : (tensor<1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %sin = webnn.reshape %s {newShape = array<i64: 1, 1, 3, 4>} : (tensor<1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %x1 = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %x2 = webnn.slice %x {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %n = webnn.neg %x2 : tensor<1x2x3x2xf32>
  %rot = webnn.concat %n, %x1 {axis = 3 : i64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %a = webnn.mul %x, %cos : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = webnn.mul %rot, %sin : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = webnn.add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// Not fused: run-time tables whose halves are different angles (concat(f, g)).
// CHECK-LABEL: func.func @runtime_tables_differ
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: webnn.neg
func.func @runtime_tables_differ() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %f = webnn.input "f" : tensor<1x3x2xf32>
  %g = webnn.input "g" : tensor<1x3x2xf32>
  %emb = webnn.concat %f, %g {axis = 2 : i64} : (tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x4xf32>
  %c = webnn.cos %emb : tensor<1x3x4xf32>
  %s = webnn.sin %emb : tensor<1x3x4xf32>
  %cos = webnn.reshape %c {newShape = array<i64: 1, 1, 3, 4>} : (tensor<1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %sin = webnn.reshape %s {newShape = array<i64: 1, 1, 3, 4>} : (tensor<1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %x1 = webnn.slice %x {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %x2 = webnn.slice %x {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 2, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x2xf32>
  %n = webnn.neg %x2 : tensor<1x2x3x2xf32>
  %rot = webnn.concat %n, %x1 {axis = 3 : i64} : (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x4xf32>
  %a = webnn.mul %x, %cos : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = webnn.mul %rot, %sin : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = webnn.add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// baddbmm as torch exports an attention mask fed at run time (nn.Transformer
// with a tgt_mask input): scores * alpha + mask * beta, alpha and beta rank-0
// constants. Neither factor can be a rotation (a scalar has no last axis):
// left alone.
// CHECK-LABEL: func.func @scalar_factors
// CHECK: %[[A:.+]] = webnn.mul
// CHECK: %[[B:.+]] = webnn.mul
// CHECK: %[[Y:.+]] = webnn.add %[[A]], %[[B]]
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: return %[[Y]]
func.func @scalar_factors() -> tensor<4x7x7xf32> attributes {webnn.output_names = ["y"]} {
  %scores = webnn.input "scores" : tensor<4x7x7xf32>
  %mask = webnn.input "mask" : tensor<1x7x7xf32>
  %alpha = webnn.constant dense<1.0> : tensor<f32>
  %beta = webnn.constant dense<1.0> : tensor<f32>
  %a = webnn.mul %scores, %alpha : (tensor<4x7x7xf32>, tensor<f32>) -> tensor<4x7x7xf32>
  %b = webnn.mul %mask, %beta : (tensor<1x7x7xf32>, tensor<f32>) -> tensor<1x7x7xf32>
  %y = webnn.add %a, %b : (tensor<4x7x7xf32>, tensor<1x7x7xf32>) -> tensor<4x7x7xf32>
  return %y : tensor<4x7x7xf32>
}

// -----

// The rotation read through a broadcast: rot is [1, 1, S, D] (one row for
// every head) while x is [B, N, S, D]. Not x's rotation: left alone.
// CHECK-LABEL: func.func @broadcast_rotation
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: return
func.func @broadcast_rotation() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %z = webnn.input "z" : tensor<1x1x3x4xf32>
  %cos = webnn.input "cos" : tensor<1x1x3x4xf32>
  %sin = webnn.input "sin" : tensor<1x2x3x4xf32>
  %z1 = webnn.slice %z {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 3, 2>} : (tensor<1x1x3x4xf32>) -> tensor<1x1x3x2xf32>
  %z2 = webnn.slice %z {starts = array<i64: 0, 0, 0, 2>, sizes = array<i64: 1, 1, 3, 2>} : (tensor<1x1x3x4xf32>) -> tensor<1x1x3x2xf32>
  %n = webnn.neg %z2 : tensor<1x1x3x2xf32>
  %rot = webnn.concat %n, %z1 {axis = 3 : i64} : (tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x3x4xf32>
  %a = webnn.mul %x, %cos : (tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x2x3x4xf32>
  %b = webnn.mul %rot, %sin : (tensor<1x1x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %y = webnn.add %a, %b : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}
