// RUN: webnn-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: func @concat_split
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<10x4xi8>) -> () {
  // CHECK: webnn.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  %0 = webnn.concat %a, %b, %a {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  // CHECK: webnn.split %{{.*}} {splits = array<i64: 3, 3, 4>} : (tensor<10x4xi8>) -> (tensor<3x4xi8>, tensor<3x4xi8>, tensor<4x4xi8>)
  %1:3 = webnn.split %c {splits = array<i64: 3, 3, 4>} : (tensor<10x4xi8>) -> (tensor<3x4xi8>, tensor<3x4xi8>, tensor<4x4xi8>)
  // CHECK: webnn.split %{{.*}} {axis = 1 : i64, splits = array<i64: 4>} : (tensor<10x4xi8>) -> tensor<10x4xi8>
  %2 = webnn.split %c {axis = 1 : i64, splits = array<i64: 4>} : (tensor<10x4xi8>) -> tensor<10x4xi8>
  return
}

// -----

// CHECK-LABEL: func @reshape_expand_transpose
func.func @reshape_expand_transpose(%x: tensor<2x3x4xf32>, %s: tensor<f32>, %y: tensor<3x1xf32>) -> () {
  // CHECK: webnn.reshape %{{.*}} {newShape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %0 = webnn.reshape %x {newShape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: webnn.reshape %{{.*}} {newShape = array<i64: 1, 1>} : (tensor<f32>) -> tensor<1x1xf32>
  %1 = webnn.reshape %s {newShape = array<i64: 1, 1>} : (tensor<f32>) -> tensor<1x1xf32>
  %2 = webnn.reshape %1 {newShape = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
  // CHECK: webnn.expand %{{.*}} {newShape = array<i64: 2, 3, 5>} : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  %3 = webnn.expand %y {newShape = array<i64: 2, 3, 5>} : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  // CHECK: webnn.transpose %{{.*}} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %4 = webnn.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK: webnn.transpose %{{.*}} {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %5 = webnn.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

// Beyond the spec, for dynamic dimensions: one newShape value may be `?`
// (-9223372036854775808), the size that keeps the element count; a static
// input fixes it. Several `?` each copy the input's dimension at their index.
// CHECK-LABEL: func @reshape_dynamic
func.func @reshape_dynamic(%x: tensor<1x?x8xf32>, %y: tensor<2x3x4xf32>, %z: tensor<?x?x8xf32>) -> () {
  // CHECK: webnn.reshape %{{.*}} : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  %0 = webnn.reshape %x {newShape = array<i64: 1, -9223372036854775808, 2, 4>} : (tensor<1x?x8xf32>) -> tensor<1x?x2x4xf32>
  // CHECK: webnn.reshape %{{.*}} : (tensor<1x?x8xf32>) -> tensor<?x8xf32>
  %1 = webnn.reshape %x {newShape = array<i64: -9223372036854775808, 8>} : (tensor<1x?x8xf32>) -> tensor<?x8xf32>
  // CHECK: webnn.reshape %{{.*}} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = webnn.reshape %y {newShape = array<i64: -9223372036854775808, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // Several `?` each copy the input's dimension at the same index.
  // CHECK: webnn.reshape %{{.*}} : (tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32>
  %6 = webnn.reshape %z {newShape = array<i64: -9223372036854775808, -9223372036854775808, 2, 4>} : (tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32>
  // CHECK: webnn.reshape %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
  %7 = webnn.reshape %y {newShape = array<i64: -9223372036854775808, -9223372036854775808, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
  // An expand newShape `?` keeps the input's dimension.
  // CHECK: webnn.expand %{{.*}} : (tensor<1x?x8xf32>) -> tensor<2x3x?x8xf32>
  %5 = webnn.expand %x {newShape = array<i64: 2, 3, -9223372036854775808, 8>} : (tensor<1x?x8xf32>) -> tensor<2x3x?x8xf32>
  // A slice size `?` spans from the start to the end of the axis.
  // CHECK: webnn.slice %{{.*}} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  %3 = webnn.slice %x {starts = array<i64: 0, 1, 0>, sizes = array<i64: 1, -9223372036854775808, 8>} : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  // CHECK: webnn.slice %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %4 = webnn.slice %y {starts = array<i64: 0, 1, 2>, sizes = array<i64: 2, -9223372036854775808, -9223372036854775808>} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  return
}

// -----

// CHECK-LABEL: func @slice_gather
func.func @slice_gather(%x: tensor<5x6xf32>, %i: tensor<2x2xi32>, %u: tensor<3xui32>, %l: tensor<i64>) -> () {
  // CHECK: webnn.slice %{{.*}} {sizes = array<i64: 3, 2>, starts = array<i64: 1, 4>} : (tensor<5x6xf32>) -> tensor<3x2xf32>
  %0 = webnn.slice %x {starts = array<i64: 1, 4>, sizes = array<i64: 3, 2>} : (tensor<5x6xf32>) -> tensor<3x2xf32>
  // Strided: ceil(size / stride) elements.
  // CHECK: -> tensor<3x2xf32>
  %1 = webnn.slice %x {starts = array<i64: 0, 1>, sizes = array<i64: 5, 4>, strides = array<i64: 2, 3>} : (tensor<5x6xf32>) -> tensor<3x2xf32>
  // CHECK: webnn.gather %{{.*}}, %{{.*}} : (tensor<5x6xf32>, tensor<2x2xi32>) -> tensor<2x2x6xf32>
  %2 = webnn.gather %x, %i : (tensor<5x6xf32>, tensor<2x2xi32>) -> tensor<2x2x6xf32>
  // CHECK: webnn.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<5x6xf32>, tensor<3xui32>) -> tensor<5x3xf32>
  %3 = webnn.gather %x, %u {axis = 1 : i64} : (tensor<5x6xf32>, tensor<3xui32>) -> tensor<5x3xf32>
  // A scalar index drops the axis.
  // CHECK: -> tensor<6xf32>
  %4 = webnn.gather %x, %l : (tensor<5x6xf32>, tensor<i64>) -> tensor<6xf32>
  return
}

// -----

// CHECK-LABEL: func @pad_tile_triangular
func.func @pad_tile_triangular(%x: tensor<2x3xf32>, %b: tensor<4x2x3xui8>) -> () {
  // CHECK: webnn.pad %{{.*}} {beginningPadding = array<i64: 1, 0>, endingPadding = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<5x6xf32>
  %0 = webnn.pad %x {beginningPadding = array<i64: 1, 0>, endingPadding = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<5x6xf32>
  // CHECK: webnn.pad %{{.*}} {beginningPadding = array<i64: 1, 2>, endingPadding = array<i64: 1, 2>, mode = "reflection"}
  %1 = webnn.pad %x {beginningPadding = array<i64: 1, 2>, endingPadding = array<i64: 1, 2>, mode = "reflection"} : (tensor<2x3xf32>) -> tensor<4x7xf32>
  %2 = webnn.pad %x {beginningPadding = array<i64: 3, 3>, endingPadding = array<i64: 0, 0>, mode = "edge", value = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<5x6xf32>
  // CHECK: webnn.tile %{{.*}} {repetitions = array<i64: 2, 1, 3>} : (tensor<4x2x3xui8>) -> tensor<8x2x9xui8>
  %3 = webnn.tile %b {repetitions = array<i64: 2, 1, 3>} : (tensor<4x2x3xui8>) -> tensor<8x2x9xui8>
  // CHECK: webnn.triangular %{{.*}} {diagonal = -1 : i64, upper = false} : (tensor<4x2x3xui8>) -> tensor<4x2x3xui8>
  %4 = webnn.triangular %b {upper = false, diagonal = -1 : i64} : (tensor<4x2x3xui8>) -> tensor<4x2x3xui8>
  return
}

// -----

// CHECK-LABEL: func @indexing
func.func @indexing(%x: tensor<4x3xf32>, %i: tensor<2x3xui32>, %j: tensor<4x1xi64>,
                    %k: tensor<5x2xi32>, %u: tensor<2x3xf32>, %v: tensor<5x3xi8>,
                    %w: tensor<4x3x2xi8>) -> () {
  // CHECK: webnn.gatherElements %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<2x3xui32>) -> tensor<2x3xf32>
  %0 = webnn.gatherElements %x, %i : (tensor<4x3xf32>, tensor<2x3xui32>) -> tensor<2x3xf32>
  // CHECK: webnn.gatherElements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
  %1 = webnn.gatherElements %x, %j {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
  // CHECK: webnn.gatherND %{{.*}}, %{{.*}} : (tensor<4x3x2xi8>, tensor<5x2xi32>) -> tensor<5x2xi8>
  %2 = webnn.gatherND %w, %k : (tensor<4x3x2xi8>, tensor<5x2xi32>) -> tensor<5x2xi8>
  // CHECK: webnn.scatterElements %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<2x3xui32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %3 = webnn.scatterElements %x, %i, %u : (tensor<4x3xf32>, tensor<2x3xui32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: webnn.scatterND %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3x2xi8>, tensor<5x2xi32>, tensor<5x2xi8>) -> tensor<4x3x2xi8>
  %4 = webnn.scatterND %w, %k, %2 : (tensor<4x3x2xi8>, tensor<5x2xi32>, tensor<5x2xi8>) -> tensor<4x3x2xi8>
  // CHECK: webnn.reverse %{{.*}} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %5 = webnn.reverse %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: webnn.reverse %{{.*}} {axes = array<i64: 1>} : (tensor<4x3x2xi8>) -> tensor<4x3x2xi8>
  %6 = webnn.reverse %w {axes = array<i64: 1>} : (tensor<4x3x2xi8>) -> tensor<4x3x2xi8>
  return
}
