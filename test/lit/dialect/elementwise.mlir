// RUN: webnn-opt %s -split-input-file | FileCheck %s
// Round trip; the declared result types are checked against inference by the
// verifier (InferTypeOpInterface), so every line here is also a shape test.

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>) -> () {
  // CHECK: webnn.abs %{{.*}} : tensor<2x3xf32>
  %0 = webnn.abs %x : tensor<2x3xf32>
  // CHECK: webnn.neg %{{.*}} : tensor<4xi32>
  %1 = webnn.neg %i : tensor<4xi32>
  %2 = webnn.relu %i : tensor<4xi32>
  %3 = webnn.sign %x : tensor<2x3xf32>
  %4 = webnn.ceil %x : tensor<2x3xf32>
  %5 = webnn.floor %x : tensor<2x3xf32>
  %6 = webnn.exp %x : tensor<2x3xf32>
  %7 = webnn.log %x : tensor<2x3xf32>
  %8 = webnn.sqrt %x : tensor<2x3xf32>
  %9 = webnn.sigmoid %x : tensor<2x3xf32>
  %10 = webnn.tanh %x : tensor<2x3xf32>
  %11 = webnn.hardSwish %x : tensor<2x3xf32>
  %12 = webnn.erf %x : tensor<2x3xf32>
  %13 = webnn.reciprocal %x : tensor<2x3xf32>
  %14 = webnn.sin %x : tensor<2x3xf32>
  %15 = webnn.cos %x : tensor<2x3xf32>
  %16 = webnn.softsign %x : tensor<2x3xf32>
  %17 = webnn.softplus %x : tensor<2x3xf32>
  %18 = webnn.roundEven %x : tensor<2x3xf32>
  %19 = webnn.gelu %x : tensor<2x3xf32>
  %20 = webnn.identity %u : tensor<4xui8>
  // CHECK: webnn.logicalNot %{{.*}} : tensor<4xui8>
  %21 = webnn.logicalNot %u : tensor<4xui8>
  return
}

// -----

// CHECK-LABEL: func @activations
func.func @activations(%x: tensor<2x3xf16>, %i: tensor<5xi8>) -> () {
  // CHECK: webnn.elu %{{.*}} {alpha = 1.500000e+00 : f64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %0 = webnn.elu %x {alpha = 1.5 : f64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %1 = webnn.leakyRelu %x : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %2 = webnn.hardSigmoid %x {alpha = 0.1 : f64, beta = 0.2 : f64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %3 = webnn.linear %x {beta = 2.0 : f64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  // CHECK: webnn.softmax %{{.*}} {axis = 1 : i64}
  %4 = webnn.softmax %x {axis = 1 : i64} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  // CHECK: webnn.clamp %{{.*}} {maxValue = 6.000000e+00 : f64, minValue = 0.000000e+00 : f64} : (tensor<5xi8>) -> tensor<5xi8>
  %5 = webnn.clamp %i {minValue = 0.0 : f64, maxValue = 6.0 : f64} : (tensor<5xi8>) -> tensor<5xi8>
  %6 = webnn.clamp %x : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %7 = webnn.prelu %x, %x : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  return
}

// -----

// CHECK-LABEL: func @prelu_broadcast
func.func @prelu_broadcast(%x: tensor<1x3x4x4xf32>, %s: tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32> {
  // CHECK: webnn.prelu %{{.*}}, %{{.*}} : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %0 = webnn.prelu %x, %s : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// CHECK-LABEL: func @cast
func.func @cast(%x: tensor<2x3xf32>, %u: tensor<7xui8>) -> () {
  // CHECK: webnn.cast %{{.*}} {type = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %0 = webnn.cast %x {type = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  // CHECK: webnn.cast %{{.*}} {type = i64} : (tensor<7xui8>) -> tensor<7xi64>
  %1 = webnn.cast %u {type = i64} : (tensor<7xui8>) -> tensor<7xi64>
  %2 = webnn.cast %x {type = ui4} : (tensor<2x3xf32>) -> tensor<2x3xui4>
  return
}

// -----

// Bidirectional broadcasting, including rank extension and scalars.
// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %s: tensor<f32>,
                  %i: tensor<5xi64>) -> () {
  // CHECK: webnn.add %{{.*}}, %{{.*}} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %0 = webnn.add %a, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = webnn.sub %a, %s : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
  %2 = webnn.mul %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = webnn.div %b, %a : (tensor<3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %4 = webnn.max %i, %i : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %5 = webnn.min %i, %i : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %6 = webnn.pow %a, %a : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

// Comparisons produce ui8 whatever the operand type.
// CHECK-LABEL: func @compare
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi32>) -> () {
  // CHECK: webnn.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xui8>
  %0 = webnn.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xui8>
  %1 = webnn.notEqual %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xui8>
  %2 = webnn.greater %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xui8>
  %3 = webnn.greaterOrEqual %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xui8>
  %4 = webnn.lesser %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xui8>
  %5 = webnn.lesserOrEqual %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xui8>
  return
}

// -----

// CHECK-LABEL: func @logical
func.func @logical(%a: tensor<2x3xui8>, %b: tensor<1x3xui8>) -> () {
  // CHECK: webnn.logicalAnd %{{.*}}, %{{.*}} : (tensor<2x3xui8>, tensor<1x3xui8>) -> tensor<2x3xui8>
  %0 = webnn.logicalAnd %a, %b : (tensor<2x3xui8>, tensor<1x3xui8>) -> tensor<2x3xui8>
  %1 = webnn.logicalOr %a, %b : (tensor<2x3xui8>, tensor<1x3xui8>) -> tensor<2x3xui8>
  %2 = webnn.logicalXor %b, %a : (tensor<1x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  return
}

// -----

// where broadcasts all three operands together.
// CHECK-LABEL: func @where
func.func @where(%c: tensor<4x1x1xui8>, %t: tensor<3x1xf32>, %f: tensor<5xf32>) -> tensor<4x3x5xf32> {
  // CHECK: webnn.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1x1xui8>, tensor<3x1xf32>, tensor<5xf32>) -> tensor<4x3x5xf32>
  %0 = webnn.where %c, %t, %f : (tensor<4x1x1xui8>, tensor<3x1xf32>, tensor<5xf32>) -> tensor<4x3x5xf32>
  return %0 : tensor<4x3x5xf32>
}

// -----

// CHECK-LABEL: func @float_predicates
func.func @float_predicates(%x: tensor<2x3xf32>, %h: tensor<4xf16>) -> () {
  // CHECK: webnn.isNaN %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %0 = webnn.isNaN %x : (tensor<2x3xf32>) -> tensor<2x3xui8>
  // CHECK: webnn.isInfinite %{{.*}} : (tensor<4xf16>) -> tensor<4xui8>
  %1 = webnn.isInfinite %h : (tensor<4xf16>) -> tensor<4xui8>
  // CHECK: webnn.tan %{{.*}} : tensor<4xf16>
  %2 = webnn.tan %h : tensor<4xf16>
  return
}
