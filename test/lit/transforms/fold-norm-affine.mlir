// RUN: webnn-opt --webnn-fold-norm-affine -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-fold-norm-affine --webnn-fold-constants -split-input-file %s | FileCheck %s --check-prefix=FOLD

// wav2vec2's GroupNorm(C, C) after layout conversion: instanceNormalization
// (unit scale, zero bias), a reshape that drops the width, then mul and add
// by [1, 1, C] constants: both into the normalization's scale and bias.
// CHECK-LABEL: func.func @group_norm_affine
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x5x1x3xf32>
// CHECK-DAG: %[[S:.+]] = webnn.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[B:.+]] = webnn.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK-DAG: %[[C:.+]] = webnn.constant dense<{{\[\[\[}}2.000000e+00{{.*}} : tensor<1x1x3xf32>
// CHECK-DAG: %[[D:.+]] = webnn.constant dense<{{\[\[\[}}5.000000e-01{{.*}} : tensor<1x1x3xf32>
// CHECK-DAG: %[[C3:.+]] = webnn.reshape %[[C]] {newShape = array<i64: 3>}
// CHECK-DAG: %[[SC:.+]] = webnn.mul %[[S]], %[[C3]]
// CHECK-DAG: %[[BC:.+]] = webnn.mul %[[B]], %[[C3]]
// CHECK-DAG: %[[D3:.+]] = webnn.reshape %[[D]] {newShape = array<i64: 3>}
// CHECK-DAG: %[[BD:.+]] = webnn.add %[[BC]], %[[D3]]
// CHECK: %[[N:.+]] = webnn.instanceNormalization %[[X]] scale %[[SC]] bias %[[BD]] {epsilon = 1.000000e-05 : f64, layout = "nhwc"}
// CHECK: %[[R:.+]] = webnn.reshape %[[N]] {newShape = array<i64: 1, 5, 3>}
// CHECK-NOT: webnn.mul
// CHECK-NOT: webnn.add
// CHECK: return %[[R]]
// FOLD-LABEL: func.func @group_norm_affine
// FOLD-DAG: %[[S:.+]] = webnn.constant dense<[2.000000e+00, 6.000000e+00, 1.200000e+01]> : tensor<3xf32>
// FOLD-DAG: %[[B:.+]] = webnn.constant dense<[1.500000e+00, 4.500000e+00, 7.500000e+00]> : tensor<3xf32>
// FOLD: webnn.instanceNormalization %{{.+}} scale %[[S]] bias %[[B]]
// FOLD-NOT: webnn.mul
// FOLD-NOT: webnn.add
func.func @group_norm_affine() -> tensor<1x5x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x5x1x3xf32>
  %s = webnn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = webnn.constant dense<[0.5, 0.5, 0.5]> : tensor<3xf32>
  %c = webnn.constant dense<[[[2.0, 3.0, 4.0]]]> : tensor<1x1x3xf32>
  %d = webnn.constant dense<[[[0.5, 3.0, 5.5]]]> : tensor<1x1x3xf32>
  %n = webnn.instanceNormalization %x scale %s bias %b {epsilon = 1.0e-5 : f64, layout = "nhwc"} : (tensor<1x5x1x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x5x1x3xf32>
  %r = webnn.reshape %n {newShape = array<i64: 1, 5, 3>} : (tensor<1x5x1x3xf32>) -> tensor<1x5x3xf32>
  %m = webnn.mul %r, %c : (tensor<1x5x3xf32>, tensor<1x1x3xf32>) -> tensor<1x5x3xf32>
  %y = webnn.add %d, %m : (tensor<1x1x3xf32>, tensor<1x5x3xf32>) -> tensor<1x5x3xf32>
  return %y : tensor<1x5x3xf32>
}

// -----

// Without scale and bias: the constants become them.
// CHECK-LABEL: func.func @no_scale_bias
// FOLD-LABEL: func.func @no_scale_bias
// CHECK-DAG: %[[C3:.+]] = webnn.reshape %{{.+}} {newShape = array<i64: 2>} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK: %[[N:.+]] = webnn.instanceNormalization %{{.+}} scale %[[C3]] {layout = "nhwc"}
// CHECK-NOT: webnn.mul
// CHECK: return %[[N]]
func.func @no_scale_bias() -> tensor<1x2x2x2xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x2x2xf32>
  %c = webnn.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %n = webnn.instanceNormalization %x {layout = "nhwc"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = webnn.mul %n, %c : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Left alone: an nchw normalization (its channels are not last), a constant
// that varies along the pixels, an input that is not constant, and a
// normalization whose result has another use.
// CHECK-LABEL: func.func @not_folded
// FOLD-LABEL: func.func @not_folded
// CHECK: %[[A:.+]] = webnn.instanceNormalization %{{.+}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: webnn.mul %[[A]], %{{.+}} : (tensor<1x2x2x2xf32>, tensor<2xf32>)
// CHECK: %[[B:.+]] = webnn.instanceNormalization %{{.+}} {layout = "nhwc"}
// CHECK: webnn.mul %[[B]], %{{.+}} : (tensor<1x2x2x2xf32>, tensor<2x1x2xf32>)
// CHECK: %[[C:.+]] = webnn.instanceNormalization %{{.+}} {layout = "nhwc"}
// CHECK: webnn.add %[[C]], %{{.+}} : (tensor<1x2x2x2xf32>, tensor<2xf32>)
// CHECK: %[[D:.+]] = webnn.instanceNormalization %{{.+}} {layout = "nhwc"}
// CHECK: webnn.mul %[[D]], %{{.+}} : (tensor<1x2x2x2xf32>, tensor<2xf32>)
func.func @not_folded() -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>)
    attributes {webnn.output_names = ["a", "b", "c", "d", "n"]} {
  %x = webnn.input "x" : tensor<1x2x2x2xf32>
  %v = webnn.input "v" : tensor<2xf32>
  %c = webnn.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %p = webnn.constant dense<[[[2.0, 3.0]], [[4.0, 5.0]]]> : tensor<2x1x2xf32>
  %n0 = webnn.instanceNormalization %x : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %a = webnn.mul %n0, %c : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %n1 = webnn.instanceNormalization %x {layout = "nhwc"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %b = webnn.mul %n1, %p : (tensor<1x2x2x2xf32>, tensor<2x1x2xf32>) -> tensor<1x2x2x2xf32>
  %n2 = webnn.instanceNormalization %x {layout = "nhwc"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %e = webnn.add %n2, %v : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %n3 = webnn.instanceNormalization %x {layout = "nhwc"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %d = webnn.mul %n3, %c : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %a, %b, %e, %d, %n3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
