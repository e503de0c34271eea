// RUN: webnn-opt --webnn-convert-layout -split-input-file %s | FileCheck %s

// A conv -> bias add -> relu -> conv -> residual add chain runs nhwc between
// one transpose after the input and one before the output; constant filters
// are permuted to ohwi and the per-channel constant to [1, 1, 1, C].
// CHECK-LABEL: func.func @resnet_block
// CHECK-DAG: %[[B:.+]] = webnn.constant {name = "b.nhwc"} dense<{{\[\[\[\[}}5.000000e-01, 1.500000e+00, 2.500000e+00, 3.500000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK-DAG: %[[W2:.+]] = webnn.constant {name = "w2.ohwi"} {{.*}} : tensor<4x3x3x4xf32>
// CHECK-DAG: %[[W1:.+]] = webnn.constant {name = "w1.ohwi"} dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00]]], {{\[\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00]]], {{.*}} : tensor<4x1x1x3xf32>
// CHECK: %[[X:.+]] = webnn.input "x" : tensor<1x3x8x8xf32>
// CHECK: %[[XT:.+]] = webnn.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK: %[[C1:.+]] = webnn.conv2d %[[XT]], %[[W1]] {filterLayout = "ohwi", inputLayout = "nhwc"} : {{.*}} -> tensor<1x8x8x4xf32>
// CHECK: %[[A:.+]] = webnn.add %[[C1]], %[[B]] : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[R:.+]] = webnn.relu %[[A]] : tensor<1x8x8x4xf32>
// CHECK: %[[C2:.+]] = webnn.conv2d %[[R]], %[[W2]] {filterLayout = "ohwi", inputLayout = "nhwc", padding = array<i64: 1, 1, 1, 1>}
// CHECK: %[[S:.+]] = webnn.add %[[C2]], %[[R]] : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[Y:.+]] = webnn.transpose %[[S]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: return %[[Y]] : tensor<1x4x8x8xf32>
// CHECK-NOT: webnn.transpose
func.func @resnet_block() -> tensor<1x4x8x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x3x8x8xf32>
  %w1 = webnn.constant {name = "w1"} dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[4.0]], [[5.0]], [[6.0]]], [[[7.0]], [[8.0]], [[9.0]]], [[[10.0]], [[11.0]], [[12.0]]]]> : tensor<4x3x1x1xf32>
  %w2 = webnn.constant {name = "w2"} dense<1.0> : tensor<4x4x3x3xf32>
  %b = webnn.constant {name = "b"} dense<[[[0.5]], [[1.5]], [[2.5]], [[3.5]]]> : tensor<4x1x1xf32>
  %c1 = webnn.conv2d %x, %w1 : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a = webnn.add %c1, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = webnn.relu %a : tensor<1x4x8x8xf32>
  %c2 = webnn.conv2d %r, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %s = webnn.add %c2, %r : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %s : tensor<1x4x8x8xf32>
}

// -----

// Pools go nhwc; clamp, concat (axis 1 -> 3) and reduceMean (axes [2, 3] ->
// [1, 2], no transpose after: the kept dims stay in order) take the nhwc
// values; the global pool's transpose only moves size-1 dims and the
// flattening reshape after it only drops them: one reshape is left.
// CHECK-LABEL: func.func @pool_concat_reduce_head
// CHECK: %[[X:.+]] = webnn.input "x"
// CHECK: %[[XT:.+]] = webnn.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[P:.+]] = webnn.maxPool2d %[[XT]] {layout = "nhwc", {{.*}}} : (tensor<1x6x6x8xf32>) -> tensor<1x3x3x8xf32>
// CHECK: %[[C:.+]] = webnn.clamp %[[P]] {{.*}} : (tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
// CHECK: %[[A:.+]] = webnn.averagePool2d %[[P]] {layout = "nhwc", {{.*}}} : (tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
// CHECK: %[[CAT:.+]] = webnn.concat %[[C]], %[[A]] {axis = 3 : i64} : {{.*}} -> tensor<1x3x3x16xf32>
// CHECK: %[[G:.+]] = webnn.averagePool2d %[[CAT]] {layout = "nhwc"} : (tensor<1x3x3x16xf32>) -> tensor<1x1x1x16xf32>
// CHECK: %[[F:.+]] = webnn.reshape %[[G]] {newShape = array<i64: 1, 16>}
// CHECK: %[[M:.+]] = webnn.reduceMean %[[CAT]] {axes = array<i64: 1, 2>} : (tensor<1x3x3x16xf32>) -> tensor<1x16xf32>
// CHECK: return %[[F]], %[[M]]
func.func @pool_concat_reduce_head() -> (tensor<1x16xf32>, tensor<1x16xf32>) attributes {webnn.output_names = ["logits", "mean"]} {
  %x = webnn.input "x" : tensor<1x8x6x6xf32>
  %p = webnn.maxPool2d %x {windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
  %c = webnn.clamp %p {minValue = 0.0 : f64, maxValue = 6.0 : f64} : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %a = webnn.averagePool2d %p {windowDimensions = array<i64: 1, 1>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %cat = webnn.concat %c, %a {axis = 1 : i64} : (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) -> tensor<1x16x3x3xf32>
  %g = webnn.averagePool2d %cat : (tensor<1x16x3x3xf32>) -> tensor<1x16x1x1xf32>
  %f = webnn.reshape %g {newShape = array<i64: 1, 16>} : (tensor<1x16x1x1xf32>) -> tensor<1x16xf32>
  %m = webnn.reduceMean %cat {axes = array<i64: 2, 3>} : (tensor<1x16x3x3xf32>) -> tensor<1x16xf32>
  return %f, %m : tensor<1x16xf32>, tensor<1x16xf32>
}

// -----

// batchNormalization over axis 1 becomes axis 3; its 1-D parameters stay.
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[XT:.+]] = webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[BN:.+]] = webnn.batchNormalization %[[XT]], %{{.+}}, %{{.+}} {axis = 3 : i64} : {{.*}} -> tensor<1x5x5x2xf32>
// CHECK: webnn.transpose %[[BN]] {permutation = array<i64: 0, 3, 1, 2>}
func.func @batch_norm() -> tensor<1x2x5x5xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x5x5xf32>
  %mean = webnn.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %var = webnn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = webnn.batchNormalization %x, %mean, %var : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// -----

// Negative: an nhwc conv is left alone, and an add with a non-constant
// nchw operand stops the transpose from sinking (it stays before the add).
// CHECK-LABEL: func.func @stops_at_nchw_operand
// CHECK: %[[X:.+]] = webnn.input "x"
// CHECK: %[[Z:.+]] = webnn.input "z"
// CHECK: %[[C:.+]] = webnn.conv2d %[[X]], %{{.+}} {inputLayout = "nhwc"} : (tensor<1x4x4x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x4x2xf32>
// CHECK: %[[P:.+]] = webnn.maxPool2d
// CHECK: %[[T:.+]] = webnn.transpose %[[P]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK: %[[S:.+]] = webnn.add %[[T]], %[[Z]] : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
// CHECK: return %[[C]], %[[S]]
func.func @stops_at_nchw_operand() -> (tensor<1x4x4x2xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["c", "s"]} {
  %x = webnn.input "x" : tensor<1x4x4x2xf32>
  %z = webnn.input "z" : tensor<1x2x4x4xf32>
  %w = webnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = webnn.conv2d %x, %w {inputLayout = "nhwc"} : (tensor<1x4x4x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x4x2xf32>
  %p = webnn.maxPool2d %z {windowDimensions = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = webnn.add %p, %z : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %s : tensor<1x4x4x2xf32>, tensor<1x2x4x4xf32>
}

// -----

// A channel shuffle (reshape to [N,g,C/g,H,W], swap the channel factors,
// reshape back) and the channel split after it stay nhwc: the shuffle is one
// permute of the two innermost dimensions, the slices take channel windows,
// and only the graph's input and output keep a layout transpose.
// CHECK-LABEL: func.func @channel_shuffle
// CHECK: %[[XT:.+]] = webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[C:.+]] = webnn.conv2d %[[XT]], %{{.+}} {filterLayout = "ohwi", inputLayout = "nhwc"} : {{.*}} -> tensor<1x8x8x4xf32>
// CHECK: %[[S5:.+]] = webnn.reshape %[[C]] {newShape = array<i64: 1, 8, 8, 2, 2>}
// CHECK: %[[P:.+]] = webnn.transpose %[[S5]] {permutation = array<i64: 0, 1, 2, 4, 3>}
// CHECK: %[[M:.+]] = webnn.reshape %[[P]] {newShape = array<i64: 1, 8, 8, 4>}
// CHECK-DAG: webnn.slice %[[M]] {sizes = array<i64: 1, 8, 8, 2>, starts = array<i64: 0, 0, 0, 0>}
// CHECK-DAG: webnn.slice %[[M]] {sizes = array<i64: 1, 8, 8, 2>, starts = array<i64: 0, 0, 0, 2>}
// CHECK: webnn.concat {{.*}} {axis = 3 : i64}
// CHECK: %[[Y:.+]] = webnn.transpose %{{.+}} {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: webnn.transpose
func.func @channel_shuffle() -> tensor<1x4x8x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x8x8xf32>
  %w = webnn.constant {name = "w"} dense<1.0> : tensor<4x4x1x1xf32>
  %wa = webnn.constant {name = "wa"} dense<2.0> : tensor<2x2x1x1xf32>
  %c = webnn.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r5 = webnn.reshape %c {newShape = array<i64: 1, 2, 2, 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x2x2x8x8xf32>
  %t5 = webnn.transpose %r5 {permutation = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x2x8x8xf32>) -> tensor<1x2x2x8x8xf32>
  %sh = webnn.reshape %t5 {newShape = array<i64: 1, 4, 8, 8>} : (tensor<1x2x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %lo = webnn.slice %sh {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x2x8x8xf32>
  %hi = webnn.slice %sh {starts = array<i64: 0, 2, 0, 0>, sizes = array<i64: 1, 2, 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x2x8x8xf32>
  %b = webnn.conv2d %hi, %wa : (tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x8x8xf32>
  %y = webnn.concat %lo, %b {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// A conv1d run as a conv2d with H = 1 (the ONNX importer's form: reshape to
// [N,C,1,W], conv2d, reshape back) between two such layers: the layout
// transposes move through the reshapes that drop or insert the unit
// dimension and through the gelu, and cancel; only the graph's input and
// output keep one.
// CHECK-LABEL: func.func @conv1d_stack
// CHECK: webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x1x16xf32>) -> tensor<1x1x16x4xf32>
// CHECK: webnn.conv2d {{.*}} -> tensor<1x1x16x4xf32>
// CHECK: webnn.gelu {{.*}} : tensor<1x16x4xf32>
// CHECK: webnn.conv2d {{.*}} -> tensor<1x1x16x4xf32>
// CHECK: webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x16x4xf32>) -> tensor<1x4x16xf32>
// CHECK-NOT: webnn.transpose
func.func @conv1d_stack() -> tensor<1x4x16xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x16xf32>
  %w = webnn.constant {name = "w"} dense<1.0> : tensor<4x4x1x3xf32>
  %x4 = webnn.reshape %x {newShape = array<i64: 1, 4, 1, 16>} : (tensor<1x4x16xf32>) -> tensor<1x4x1x16xf32>
  %c1 = webnn.conv2d %x4, %w {padding = array<i64: 0, 0, 1, 1>} : (tensor<1x4x1x16xf32>, tensor<4x4x1x3xf32>) -> tensor<1x4x1x16xf32>
  %r1 = webnn.reshape %c1 {newShape = array<i64: 1, 4, 16>} : (tensor<1x4x1x16xf32>) -> tensor<1x4x16xf32>
  %g = webnn.gelu %r1 : tensor<1x4x16xf32>
  %g4 = webnn.reshape %g {newShape = array<i64: 1, 4, 1, 16>} : (tensor<1x4x16xf32>) -> tensor<1x4x1x16xf32>
  %c2 = webnn.conv2d %g4, %w {padding = array<i64: 0, 0, 1, 1>} : (tensor<1x4x1x16xf32>, tensor<4x4x1x3xf32>) -> tensor<1x4x1x16xf32>
  %y = webnn.reshape %c2 {newShape = array<i64: 1, 4, 16>} : (tensor<1x4x1x16xf32>) -> tensor<1x4x16xf32>
  return %y : tensor<1x4x16xf32>
}
