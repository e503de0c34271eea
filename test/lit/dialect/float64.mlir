// RUN: webnn-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: webnn-opt %s -split-input-file -verify-diagnostics --webnn-fold-constants | FileCheck %s --check-prefix=FOLD
// The float64 extension (WebNNBase.td): graph inputs and constants, data
// movement, arithmetic, comparisons, where, cast, the float unary ops and the
// reductions take f64; every other op keeps WebNN's types.

// CHECK-LABEL: func.func @main
// CHECK: webnn.input "x" : tensor<2x3xf64>
// CHECK: webnn.add %{{.*}}, %{{.*}} : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK: webnn.sqrt %{{.*}} : tensor<2x3xf64>
// CHECK: webnn.transpose %{{.*}} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK: webnn.reduceSum %{{.*}} : (tensor<3x2xf64>) -> tensor<3xf64>
// CHECK: webnn.greater %{{.*}}, %{{.*}} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xui8>
// CHECK: webnn.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3xui8>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK: webnn.cast %{{.*}} {type = f32} : (tensor<3xf64>) -> tensor<3xf32>
func.func @main() -> (tensor<3xf64>, tensor<3xf32>) attributes {webnn.output_names = ["w", "c"]} {
  %x = webnn.input "x" : tensor<2x3xf64>
  %b = webnn.constant dense<[1.0e+200, 1.0e-320, 2.0]> : tensor<3xf64>
  %s = webnn.add %x, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %r = webnn.sqrt %s : tensor<2x3xf64>
  %t = webnn.transpose %r {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
  %m = webnn.reduceSum %t {axes = array<i64: 1>} : (tensor<3x2xf64>) -> tensor<3xf64>
  %g = webnn.greater %m, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xui8>
  %w = webnn.where %g, %m, %b : (tensor<3xui8>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %c = webnn.cast %w {type = f32} : (tensor<3xf64>) -> tensor<3xf32>
  return %w, %c : tensor<3xf64>, tensor<3xf32>
}

// -----

// Constant folding computes in float64 too: 1e200 + 1e200 - 1e200 is 1e200,
// not inf, and a denormal survives.
// FOLD-LABEL: func.func @fold
// FOLD: %[[C:.+]] = webnn.constant dense<[9.9999999999999996E+199, 9.999880e-321]> : tensor<2xf64>
// FOLD: return %[[C]]
func.func @fold() -> tensor<2xf64> attributes {webnn.output_names = ["y"]} {
  %a = webnn.constant dense<[1.0e+200, 1.0e-320]> : tensor<2xf64>
  %s = webnn.add %a, %a : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %d = webnn.sub %s, %a : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  return %d : tensor<2xf64>
}

// -----

func.func @no_float64_form(%x: tensor<3xf64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float values, but got 'tensor<3xf64>'}}
  %0 = webnn.softmax %x {axis = 0 : i64} : (tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @no_float64_conv(%x: tensor<1x1x3x3xf64>, %w: tensor<1x1x1x1xf64>) {
  // expected-error @+1 {{must be ranked tensor of 32-bit float or 16-bit float values, but got 'tensor<1x1x3x3xf64>'}}
  %0 = webnn.conv2d %x, %w : (tensor<1x1x3x3xf64>, tensor<1x1x1x1xf64>) -> tensor<1x1x3x3xf64>
  return
}
