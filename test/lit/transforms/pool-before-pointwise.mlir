// RUN: webnn-opt --webnn-pool-before-pointwise -split-input-file %s | FileCheck %s

// DenseNet's transition: a 1x1 nhwc convolution (with a bias here) read
// only by a 2x2 stride-2 average pool. The pool moves onto the convolution's
// input (its channels) and the convolution runs on the pooled map.
// CHECK-LABEL: func.func @transition
// CHECK: %[[X:.+]] = webnn.input "x"
// CHECK: %[[P:.+]] = webnn.averagePool2d %[[X]] {layout = "nhwc", strides = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>} : (tensor<1x4x6x8xf32>) -> tensor<1x2x3x8xf32>
// CHECK-NEXT: %[[C:.+]] = webnn.conv2d %[[P]], %{{.+}} bias %{{.+}} {filterLayout = "ohwi", inputLayout = "nhwc"} : (tensor<1x2x3x8xf32>, tensor<4x1x1x8xf32>, tensor<4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @transition() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x4x6x8xf32>
  %w = webnn.constant dense<0.5> : tensor<4x1x1x8xf32>
  %b = webnn.constant dense<0.25> : tensor<4xf32>
  %c = webnn.conv2d %x, %w bias %b {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x6x8xf32>, tensor<4x1x1x8xf32>, tensor<4xf32>) -> tensor<1x4x6x4xf32>
  %y = webnn.averagePool2d %c {layout = "nhwc", windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// nchw (the default layouts), a global pool (no window given).
// CHECK-LABEL: func.func @nchw_global
// CHECK: %[[P:.+]] = webnn.averagePool2d %{{.+}} : (tensor<1x8x5x5xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT: webnn.conv2d %[[P]], %{{.+}} : (tensor<1x8x1x1xf32>, tensor<3x8x1x1xf32>) -> tensor<1x3x1x1xf32>
func.func @nchw_global() -> tensor<1x3x1x1xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x8x5x5xf32>
  %w = webnn.constant dense<0.5> : tensor<3x8x1x1xf32>
  %c = webnn.conv2d %x, %w : (tensor<1x8x5x5xf32>, tensor<3x8x1x1xf32>) -> tensor<1x3x5x5xf32>
  %y = webnn.averagePool2d %c : (tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32>
  return %y : tensor<1x3x1x1xf32>
}

// -----

// Not moved: a 3x3 filter; a padded pool (its edge windows average fewer
// real pixels, so a bias would not pass through); a convolution another op
// reads too; a max pool; a relu between them; a pool in another layout.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: webnn.conv2d %{{.+}}, %{{.+}} {{.*}}-> tensor<1x4x4x4xf32>
// CHECK-NOT: webnn.conv2d
func.func @kept() -> (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x4x2x2xf32>) attributes {webnn.output_names = ["a", "b", "c", "d", "e", "f", "g"]} {
  %x = webnn.input "x" : tensor<1x4x4x8xf32>
  %w1 = webnn.constant dense<0.5> : tensor<4x1x1x8xf32>
  %w3 = webnn.constant dense<0.5> : tensor<4x3x3x8xf32>
  %c3 = webnn.conv2d %x, %w3 {inputLayout = "nhwc", filterLayout = "ohwi", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x8xf32>, tensor<4x3x3x8xf32>) -> tensor<1x4x4x4xf32>
  %a = webnn.averagePool2d %c3 {layout = "nhwc", windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  %cp = webnn.conv2d %x, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x8xf32>, tensor<4x1x1x8xf32>) -> tensor<1x4x4x4xf32>
  %b = webnn.averagePool2d %cp {layout = "nhwc", windowDimensions = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 0>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  %cu = webnn.conv2d %x, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x8xf32>, tensor<4x1x1x8xf32>) -> tensor<1x4x4x4xf32>
  %c = webnn.averagePool2d %cu {layout = "nhwc", windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  %cm = webnn.conv2d %x, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x8xf32>, tensor<4x1x1x8xf32>) -> tensor<1x4x4x4xf32>
  %e = webnn.maxPool2d %cm {layout = "nhwc", windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  %cr = webnn.conv2d %x, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x8xf32>, tensor<4x1x1x8xf32>) -> tensor<1x4x4x4xf32>
  %r = webnn.relu %cr : tensor<1x4x4x4xf32>
  %f = webnn.averagePool2d %r {layout = "nhwc", windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  %cl = webnn.conv2d %x, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x8xf32>, tensor<4x1x1x8xf32>) -> tensor<1x4x4x4xf32>
  %g = webnn.averagePool2d %cl {windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  return %a, %b, %c, %cu, %e, %f, %g : tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x4x2x2xf32>
}
