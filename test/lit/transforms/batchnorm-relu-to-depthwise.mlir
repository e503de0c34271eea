// RUN: webnn-opt --webnn-batchnorm-relu-to-depthwise="min-pixels=1" -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-batchnorm-relu-to-depthwise -split-input-file %s | FileCheck %s --check-prefix=DEFAULT

// The default min-pixels (56x56) keeps the small maps below as they are
// and rewrites the last one.
// DEFAULT-LABEL: func.func @dense_layer
// DEFAULT: webnn.batchNormalization
// DEFAULT-NOT: groups =
// DEFAULT-LABEL: func.func @fused_reader
// DEFAULT: webnn.batchNormalization
// DEFAULT-NOT: groups =
// DEFAULT-LABEL: func.func @kept
// DEFAULT-COUNT-5: webnn.batchNormalization
// DEFAULT-NOT: groups =
// DEFAULT-LABEL: func.func @at_56x56
// DEFAULT-NOT: webnn.batchNormalization
// DEFAULT: webnn.fusedConv2d {{.*}}groups = 2 : i64

// DenseNet's pre-activation: batchNormalization (constant statistics, nhwc)
// and relu, read only by a 1x1 convolution. They become one depthwise 1x1
// fusedConv2d with m = scale / sqrt(var + eps) and a = bias - mean * m:
// channel 0: 2 / sqrt(3 + 1) = 1, 0.5 - 1 * 1 = -0.5;
// channel 1: 1 / sqrt(0 + 1) = 1, 0 - 2 * 1 = -2.
// CHECK-LABEL: func.func @dense_layer
// CHECK-DAG: %[[M:.+]] = webnn.constant dense<1.000000e+00> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[A:.+]] = webnn.constant dense<[-5.000000e-01, -2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[X:.+]] = webnn.input "x"
// CHECK: %[[D:.+]] = webnn.fusedConv2d %[[X]], %[[M]] bias %[[A]] {activation = "relu", dilations = array<i64: 1, 1>, filterLayout = "ohwi", groups = 2 : i64, inputLayout = "nhwc", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
// CHECK-NEXT: %[[C:.+]] = webnn.conv2d %[[D]], %{{.+}} {filterLayout = "ohwi", inputLayout = "nhwc"}
// CHECK-NOT: webnn.batchNormalization
// CHECK-NOT: webnn.relu
func.func @dense_layer() -> tensor<1x3x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x3x3x2xf32>
  %mean = webnn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = webnn.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %scale = webnn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %bias = webnn.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %n = webnn.batchNormalization %x, %mean, %var scale %scale bias %bias {axis = 3 : i64, epsilon = 1.0 : f64} : (tensor<1x3x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  %r = webnn.relu %n : tensor<1x3x3x2xf32>
  %w = webnn.constant dense<0.5> : tensor<4x1x1x2xf32>
  %y = webnn.conv2d %r, %w {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x3x3x2xf32>, tensor<4x1x1x2xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// -----

// A fusedConv2d reader, no scale or bias (1 and 0), the default epsilon.
// CHECK-LABEL: func.func @fused_reader
// CHECK: %[[D:.+]] = webnn.fusedConv2d %{{.+}}, %{{.+}} bias %{{.+}} {activation = "relu", {{.*}}groups = 3 : i64
// CHECK-NEXT: webnn.fusedConv2d %[[D]], %{{.+}} {activation = "relu", filterLayout = "ohwi", inputLayout = "nhwc"}
func.func @fused_reader() -> tensor<1x2x2x5xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x2x3xf32>
  %mean = webnn.constant dense<0.0> : tensor<3xf32>
  %var = webnn.constant dense<1.0> : tensor<3xf32>
  %n = webnn.batchNormalization %x, %mean, %var {axis = 3 : i64} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
  %r = webnn.relu %n : tensor<1x2x2x3xf32>
  %w = webnn.constant dense<0.5> : tensor<5x1x1x3xf32>
  %y = webnn.fusedConv2d %r, %w {inputLayout = "nhwc", filterLayout = "ohwi", activation = "relu"} : (tensor<1x2x2x3xf32>, tensor<5x1x1x3xf32>) -> tensor<1x2x2x5xf32>
  return %y : tensor<1x2x2x5xf32>
}

// -----

// Kept: the relu read by a 3x3 convolution; by a pool (DenseNet's
// transitions after --webnn-pool-before-pointwise); by two 1x1s; a
// normalization over axis 1 (nchw); statistics that are inputs.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: webnn.batchNormalization
// CHECK-NOT: groups = 4
func.func @kept(%mv: tensor<4xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x2x2x4xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x2x4x4xf32>, tensor<1x4x4x2xf32>) attributes {webnn.output_names = ["a", "b", "c", "d", "e", "f"]} {
  %x = webnn.input "x" : tensor<1x4x4x4xf32>
  %mean = webnn.constant dense<0.5> : tensor<4xf32>
  %var = webnn.constant dense<2.0> : tensor<4xf32>
  %w1 = webnn.constant dense<0.5> : tensor<2x1x1x4xf32>
  %w3 = webnn.constant dense<0.5> : tensor<2x3x3x4xf32>
  %n1 = webnn.batchNormalization %x, %mean, %var {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r1 = webnn.relu %n1 : tensor<1x4x4x4xf32>
  %a = webnn.conv2d %r1, %w3 {inputLayout = "nhwc", filterLayout = "ohwi", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x3x3x4xf32>) -> tensor<1x4x4x2xf32>
  %n2 = webnn.batchNormalization %x, %mean, %var {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r2 = webnn.relu %n2 : tensor<1x4x4x4xf32>
  %b = webnn.averagePool2d %r2 {layout = "nhwc", windowDimensions = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  %n3 = webnn.batchNormalization %x, %mean, %var {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r3 = webnn.relu %n3 : tensor<1x4x4x4xf32>
  %c = webnn.conv2d %r3, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>) -> tensor<1x4x4x2xf32>
  %d = webnn.conv2d %r3, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>) -> tensor<1x4x4x2xf32>
  %wn = webnn.constant dense<0.5> : tensor<2x4x1x1xf32>
  %n4 = webnn.batchNormalization %x, %mean, %var {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r4 = webnn.relu %n4 : tensor<1x4x4x4xf32>
  %e = webnn.conv2d %r4, %wn : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n5 = webnn.batchNormalization %x, %mv, %mv {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r5 = webnn.relu %n5 : tensor<1x4x4x4xf32>
  %f = webnn.conv2d %r5, %w1 {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>) -> tensor<1x4x4x2xf32>
  return %a, %b, %c, %d, %e, %f : tensor<1x4x4x2xf32>, tensor<1x2x2x4xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x2x4x4xf32>, tensor<1x4x4x2xf32>
}

// -----

// A 56x56 map: rewritten with the default min-pixels too.
// CHECK-LABEL: func.func @at_56x56
// CHECK: webnn.fusedConv2d {{.*}}groups = 2 : i64
func.func @at_56x56() -> tensor<1x56x56x16xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x56x56x2xf32>
  %mean = webnn.constant dense<0.0> : tensor<2xf32>
  %var = webnn.constant dense<1.0> : tensor<2xf32>
  %n = webnn.batchNormalization %x, %mean, %var {axis = 3 : i64} : (tensor<1x56x56x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x56x56x2xf32>
  %r = webnn.relu %n : tensor<1x56x56x2xf32>
  %w = webnn.constant dense<0.5> : tensor<16x1x1x2xf32>
  %y = webnn.conv2d %r, %w {inputLayout = "nhwc", filterLayout = "ohwi"} : (tensor<1x56x56x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x56x56x16xf32>
  return %y : tensor<1x56x56x16xf32>
}
