// RUN: webnn-opt %s -split-input-file -canonicalize | FileCheck %s
// Folders: identities and small-constant folding.

// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = webnn.reshape %x {newShape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = webnn.transpose %x {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = webnn.identity %x : tensor<2x3xf32>
  %3 = webnn.cast %x {type = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = webnn.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = webnn.expand %x {newShape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NOT: webnn.
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Not identities: a real permutation and a strided full-size window stay.
// CHECK-LABEL: func @not_identities
func.func @not_identities(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<2x3xf32>) {
  // CHECK: webnn.transpose
  %0 = webnn.transpose %x : (tensor<3x3xf32>) -> tensor<3x3xf32>
  // CHECK: webnn.slice
  %1 = webnn.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 3, 3>, strides = array<i64: 2, 1>} : (tensor<3x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<3x3xf32>, tensor<2x3xf32>
}

// -----

// A window from start 1 to the end of a dynamic axis has the input's type
// (1x?x8) but drops a row: no identity. From start 0 it is one.
// CHECK-LABEL: func @dynamic_windows
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x8xf32>)
func.func @dynamic_windows(%x: tensor<1x?x8xf32>) -> (tensor<1x?x8xf32>, tensor<1x?x8xf32>) {
  // CHECK: %[[S:.+]] = webnn.slice %[[X]]
  %0 = webnn.slice %x {starts = array<i64: 0, 1, 0>, sizes = array<i64: 1, -9223372036854775808, 8>} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  %1 = webnn.slice %x {starts = array<i64: 0, 0, 0>, sizes = array<i64: 1, -9223372036854775808, 8>} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  // CHECK: return %[[S]], %[[X]]
  return %0, %1 : tensor<1x?x8xf32>, tensor<1x?x8xf32>
}

// -----

// CHECK-LABEL: func @reshape_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @reshape_chain(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[R:.+]] = webnn.reshape %[[X]] {newShape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = webnn.reshape %x {newShape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = webnn.reshape %0 {newShape = array<i64: 3, 2>} : (tensor<6xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @arith
func.func @arith() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<3xi32>, tensor<3xi32>, tensor<2xui8>) {
  %a = webnn.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = webnn.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %i = webnn.constant dense<[7, -7, 9]> : tensor<3xi32>
  %j = webnn.constant dense<2> : tensor<3xi32>
  %u = webnn.constant dense<[250, 7]> : tensor<2xui8>
  %v = webnn.constant dense<2> : tensor<2xui8>
  // Broadcast [2] against [2, 2].
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
  %0 = webnn.add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1.000000e+01, 4.000000e+01], [3.000000e+01, 8.000000e+01]]> : tensor<2x2xf32>
  %1 = webnn.mul %b, %a : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // Signed division truncates toward zero.
  // CHECK-DAG: webnn.constant dense<[3, -3, 4]> : tensor<3xi32>
  %2 = webnn.div %i, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  // CHECK-DAG: webnn.constant dense<[5, -9, 7]> : tensor<3xi32>
  %3 = webnn.sub %i, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  // Unsigned division of values above the signed range.
  // CHECK-DAG: webnn.constant dense<[125, 3]> : tensor<2xui8>
  %4 = webnn.div %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  // CHECK-NOT: webnn.add
  // CHECK-NOT: webnn.mul
  // CHECK-NOT: webnn.div
  // CHECK-NOT: webnn.sub
  return %0, %1, %2, %3, %4 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<3xi32>, tensor<3xi32>, tensor<2xui8>
}

// -----

// Integer division by zero is left to the runtime.
// CHECK-LABEL: func @div_by_zero
func.func @div_by_zero() -> tensor<2xi32> {
  %a = webnn.constant dense<[1, 2]> : tensor<2xi32>
  %b = webnn.constant dense<[1, 0]> : tensor<2xi32>
  // CHECK: webnn.div
  %0 = webnn.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func @data_movement
func.func @data_movement() -> (tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x2xi32>, tensor<2x2x3xi32>, tensor<4x3xi32>, tensor<2x6xi32>) {
  %c = webnn.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %r = webnn.constant dense<[[7, 8, 9]]> : tensor<1x3xi32>
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
  %0 = webnn.transpose %c : (tensor<2x3xi32>) -> tensor<3x2xi32>
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1, 4, 2], [5, 3, 6]]> : tensor<2x3xi32>
  %1 = webnn.reshape %0 {newShape = array<i64: 2, 3>} : (tensor<3x2xi32>) -> tensor<2x3xi32>
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1, 3], [4, 6]]> : tensor<2x2xi32>
  %2 = webnn.slice %c {starts = array<i64: 0, 0>, sizes = array<i64: 2, 3>, strides = array<i64: 1, 2>} : (tensor<2x3xi32>) -> tensor<2x2xi32>
  // CHECK-DAG: webnn.constant dense<{{\[\[\[}}7, 8, 9], [7, 8, 9]], {{\[\[}}7, 8, 9], [7, 8, 9]]]> : tensor<2x2x3xi32>
  %3 = webnn.expand %r {newShape = array<i64: 2, 2, 3>} : (tensor<1x3xi32>) -> tensor<2x2x3xi32>
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6], [7, 8, 9], [7, 8, 9]]> : tensor<4x3xi32>
  %4 = webnn.concat %c, %r, %r {axis = 0 : i64} : (tensor<2x3xi32>, tensor<1x3xi32>, tensor<1x3xi32>) -> tensor<4x3xi32>
  // CHECK-DAG: webnn.constant dense<{{\[\[}}1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]]> : tensor<2x6xi32>
  %5 = webnn.concat %c, %c {axis = 1 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x6xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x2xi32>, tensor<2x2x3xi32>, tensor<4x3xi32>, tensor<2x6xi32>
}

// -----

// CHECK-LABEL: func @cast
func.func @cast() -> (tensor<3xi32>, tensor<2xf16>, tensor<2xf32>, tensor<2xui8>) {
  %f = webnn.constant dense<[1.7, -1.7, 2.5]> : tensor<3xf32>
  %g = webnn.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %u = webnn.constant dense<[255, 1]> : tensor<2xui8>
  %i = webnn.constant dense<[-1, 300]> : tensor<2xi32>
  // Float to integer truncates toward zero.
  // CHECK-DAG: webnn.constant dense<[1, -1, 2]> : tensor<3xi32>
  %0 = webnn.cast %f {type = i32} : (tensor<3xf32>) -> tensor<3xi32>
  // CHECK-DAG: webnn.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf16>
  %1 = webnn.cast %g {type = f16} : (tensor<2xf32>) -> tensor<2xf16>
  // Unsigned source: 255 stays 255.
  // CHECK-DAG: webnn.constant dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf32>
  %2 = webnn.cast %u {type = f32} : (tensor<2xui8>) -> tensor<2xf32>
  // CHECK-DAG: webnn.constant dense<[255, 44]> : tensor<2xui8>
  %3 = webnn.cast %i {type = ui8} : (tensor<2xi32>) -> tensor<2xui8>
  // CHECK-NOT: webnn.cast
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<2xf16>, tensor<2xf32>, tensor<2xui8>
}

// -----

// Splats fold at any size without materializing elements.
// CHECK-LABEL: func @splat
func.func @splat() -> tensor<64x64x64xf32> {
  %a = webnn.constant dense<1.5> : tensor<64x64x64xf32>
  // CHECK: webnn.constant dense<3.750000e+00> : tensor<64x64x64xf32>
  // CHECK-NOT: webnn.mul
  %0 = webnn.transpose %a : (tensor<64x64x64xf32>) -> tensor<64x64x64xf32>
  %1 = webnn.mul %0, %a : (tensor<64x64x64xf32>, tensor<64x64x64xf32>) -> tensor<64x64x64xf32>
  %2 = webnn.add %1, %a : (tensor<64x64x64xf32>, tensor<64x64x64xf32>) -> tensor<64x64x64xf32>
  return %2 : tensor<64x64x64xf32>
}

// -----

// reshape(reshape(x)) folds when the outer reshape's several `?` copy
// dimensions the inner one copied from x at the same indices; not when the
// inner one inferred its `?` from the element count.
// CHECK-LABEL: func @reshape_chain_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x8xf32>, %[[Y:.+]]: tensor<?x8xf32>)
func.func @reshape_chain_dynamic(%x: tensor<?x?x8xf32>, %y: tensor<?x8xf32>) -> (tensor<?x?x4x2xf32>, tensor<?x4x1x2xf32>) {
  // CHECK: %[[A:.+]] = webnn.reshape %[[X]] {newShape = array<i64: -9223372036854775808, -9223372036854775808, 4, 2>}
  %0 = webnn.reshape %x {newShape = array<i64: -9223372036854775808, -9223372036854775808, 2, 4>} : (tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32>
  %1 = webnn.reshape %0 {newShape = array<i64: -9223372036854775808, -9223372036854775808, 4, 2>} : (tensor<?x?x2x4xf32>) -> tensor<?x?x4x2xf32>
  // CHECK: %[[B:.+]] = webnn.reshape %[[Y]] {newShape = array<i64: -9223372036854775808, 4, 2>}
  // CHECK: %[[C:.+]] = webnn.reshape %[[B]] {newShape = array<i64: -9223372036854775808, -9223372036854775808, 1, 2>}
  %2 = webnn.reshape %y {newShape = array<i64: -9223372036854775808, 4, 2>} : (tensor<?x8xf32>) -> tensor<?x4x2xf32>
  %3 = webnn.reshape %2 {newShape = array<i64: -9223372036854775808, -9223372036854775808, 1, 2>} : (tensor<?x4x2xf32>) -> tensor<?x4x1x2xf32>
  // CHECK: return %[[A]], %[[C]]
  return %1, %3 : tensor<?x?x4x2xf32>, tensor<?x4x1x2xf32>
}
