// RUN: webnn-opt --webnn-sink-reshapes -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-sink-reshapes --webnn-fold-constants -split-input-file %s | FileCheck %s --check-prefix=FOLD

// A conv1d export: conv2d -> reshape to 3-D -> gelu -> reshape back to 4-D
// -> conv2d. The gelu moves right after the first convolution; the two
// reshapes then meet and fold away (the shapes match).
// CHECK-LABEL: func.func @conv1d_gelu
// CHECK: %[[C:.+]] = webnn.conv2d
// CHECK-NEXT: %[[G:.+]] = webnn.gelu %[[C]] : tensor<1x1x8x4xf32>
// CHECK-NEXT: %[[R:.+]] = webnn.reshape %[[G]] {newShape = array<i64: 1, 8, 4>}
// CHECK: webnn.reshape %[[R]] {newShape = array<i64: 1, 1, 8, 4>}
// FOLD-LABEL: func.func @conv1d_gelu
// FOLD: %[[C:.+]] = webnn.conv2d
// FOLD-NEXT: %[[G:.+]] = webnn.gelu %[[C]] : tensor<1x1x8x4xf32>
// FOLD-NEXT: webnn.conv2d %[[G]]
// FOLD-NOT: webnn.reshape
func.func @conv1d_gelu() -> tensor<1x1x8x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x1x8x4xf32>
  %w = webnn.constant dense<0.5> : tensor<4x1x1x4xf32>
  %c = webnn.conv2d %x, %w {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x1x8x4xf32>, tensor<4x1x1x4xf32>) -> tensor<1x1x8x4xf32>
  %r = webnn.reshape %c {newShape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %g = webnn.gelu %r : tensor<1x8x4xf32>
  %b = webnn.reshape %g {newShape = array<i64: 1, 1, 8, 4>} : (tensor<1x8x4xf32>) -> tensor<1x1x8x4xf32>
  %y = webnn.conv2d %b, %w {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x1x8x4xf32>, tensor<4x1x1x4xf32>) -> tensor<1x1x8x4xf32>
  return %y : tensor<1x1x8x4xf32>
}

// -----

// The gelu goes right after its input's producer even with other ops in
// between; a reshape another op also reads stays where it is.
// CHECK-LABEL: func.func @placement
// FOLD-LABEL: func.func @placement
// CHECK: %[[N:.+]] = webnn.instanceNormalization
// CHECK-NEXT: %[[G:.+]] = webnn.gelu %[[N]] : tensor<1x3x1x2xf32>
// CHECK: webnn.reshape %[[G]] {newShape = array<i64: 1, 3, 2>}
// CHECK: %[[S:.+]] = webnn.reshape %{{.+}} {newShape = array<i64: 6>}
// CHECK: webnn.gelu %[[S]] : tensor<6xf32>
func.func @placement() -> (tensor<1x3x2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>) attributes {webnn.output_names = ["a", "b", "s", "e"]} {
  %x = webnn.input "x" : tensor<1x3x1x2xf32>
  %n = webnn.instanceNormalization %x {layout = "nhwc"} : (tensor<1x3x1x2xf32>) -> tensor<1x3x1x2xf32>
  %e = webnn.exp %x : tensor<1x3x1x2xf32>
  %r = webnn.reshape %n {newShape = array<i64: 1, 3, 2>} : (tensor<1x3x1x2xf32>) -> tensor<1x3x2xf32>
  %a = webnn.gelu %r : tensor<1x3x2xf32>
  %s = webnn.reshape %e {newShape = array<i64: 6>} : (tensor<1x3x1x2xf32>) -> tensor<6xf32>
  %b = webnn.gelu %s : tensor<6xf32>
  %m = webnn.reduceMean %s {axes = array<i64: 0>, keepDimensions = true} : (tensor<6xf32>) -> tensor<1xf32>
  %m2 = webnn.expand %m {newShape = array<i64: 2>} : (tensor<1xf32>) -> tensor<2xf32>
  return %a, %b, %s, %m2 : tensor<1x3x2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>
}
