// RUN: webnn-opt --webnn-fuse-qdq -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-fuse-qdq --webnn-convert-layout -split-input-file %s | FileCheck %s --check-prefix=LAYOUT
// RUN: webnn-opt --webnn-fuse-qdq="convs=false" -split-input-file %s | FileCheck %s --check-prefix=NOCONV

// dq(x) -> conv2d(dq(w) per output channel, dq(int32 bias)) -> q becomes one
// quantizedConv2d: channels-last with transposes of the uint8 tensors, the
// oihw filter permuted to ohwi, one scale per output channel, the bias
// dequantized, the output uint8 with q's parameters.
// CHECK-LABEL: func.func @conv_q
// CHECK-DAG: %[[W:.+]] = webnn.constant dense<{{\[\[\[\[}}1, 2]]], {{\[\[\[}}-3, -4]]]]> : tensor<2x1x1x2xi8>
// CHECK-DAG: %[[SW:.+]] = webnn.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[B:.+]] = webnn.constant dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK: %[[XT:.+]] = webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x3xui8>) -> tensor<1x3x3x2xui8>
// CHECK: %[[Y:.+]] = webnn.quantizedConv2d %[[XT]], %{{.+}}, %{{.+}}, %[[W]], %[[SW]] bias %[[B]] outputScale %{{.+}} outputZeroPoint %{{.+}} {padding = array<i64: 0, 0, 0, 0>} : {{.+}} -> tensor<1x3x3x2xui8>
// CHECK: %[[YT:.+]] = webnn.transpose %[[Y]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x3x3x2xui8>) -> tensor<1x2x3x3xui8>
// CHECK: webnn.dequantizeLinear %[[YT]]
// CHECK-NOT: webnn.conv2d
// CHECK-NOT: webnn.quantizeLinear
// convs=false (GPU targets, where no kernel runs quantizedConv2d): float.
// NOCONV-LABEL: func.func @conv_q
// NOCONV-NOT: webnn.quantizedConv2d
// NOCONV: webnn.conv2d
// NOCONV-NOT: webnn.quantizedConv2d
// NOCONV-LABEL: func.func @chain
func.func @conv_q() -> tensor<1x2x3x3xf32> attributes {webnn.output_names = ["y"]} {
  %x0 = webnn.input "x" : tensor<1x2x3x3xf32>
  %sx = webnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %zx = webnn.constant dense<128> : tensor<1x1x1x1xui8>
  %x = webnn.quantizeLinear %x0, %sx, %zx : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xui8>
  %w = webnn.constant dense<[[[[1]], [[2]]], [[[-3]], [[-4]]]]> : tensor<2x2x1x1xi8>
  %sw = webnn.constant dense<[[[[0.1]]], [[[0.2]]]]> : tensor<2x1x1x1xf32>
  %zw = webnn.constant dense<0> : tensor<2x1x1x1xi8>
  %b = webnn.constant dense<[2, -1]> : tensor<2xi32>
  %sb = webnn.constant dense<0.25> : tensor<1xf32>
  %zb = webnn.constant dense<0> : tensor<1xi32>
  %so = webnn.constant dense<0.05> : tensor<1x1x1x1xf32>
  %zo = webnn.constant dense<3> : tensor<1x1x1x1xui8>
  %xd = webnn.dequantizeLinear %x, %sx, %zx : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<2x2x1x1xi8>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xi8>) -> tensor<2x2x1x1xf32>
  %bd = webnn.dequantizeLinear %b, %sb, %zb : (tensor<2xi32>, tensor<1xf32>, tensor<1xi32>) -> tensor<2xf32>
  %c = webnn.conv2d %xd, %wd bias %bd {padding = array<i64: 0, 0, 0, 0>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %q = webnn.quantizeLinear %c, %so, %zo : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xui8>
  %y = webnn.dequantizeLinear %q, %so, %zo : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Two quantized convs (a depthwise 3x3 with padding, then a pointwise one)
// hand uint8 to each other; the first input is quantized by a standalone
// quantizeLinear; no q after the second conv: float32 output. After
// convert-layout the transposes between them are gone (the 8-bit tensor
// stays nhwc) and one pair remains at the graph's edges, on the 8-bit
// input and the float32 output.
// CHECK-LABEL: func.func @chain
// CHECK: webnn.quantizeLinear
// CHECK: webnn.quantizedConv2d %{{.+}} {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : {{.+}} -> tensor<1x4x4x2xui8>
// CHECK: webnn.quantizedConv2d {{.+}} -> tensor<1x4x4x3xf32>
// CHECK-NOT: webnn.conv2d
// LAYOUT-LABEL: func.func @chain
// LAYOUT: webnn.quantizeLinear {{.+}} -> tensor<1x2x4x4xui8>
// LAYOUT-NEXT: webnn.transpose %{{.+}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xui8>)
// LAYOUT-NEXT: webnn.quantizedConv2d {{.+}} -> tensor<1x4x4x2xui8>
// LAYOUT-NEXT: webnn.quantizedConv2d {{.+}} -> tensor<1x4x4x3xf32>
// LAYOUT-NEXT: webnn.transpose %{{.+}} {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>)
// LAYOUT-NOT: webnn.transpose
func.func @chain() -> tensor<1x3x4x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x4x4xf32>
  %s = webnn.constant dense<0.1> : tensor<1x1x1x1xf32>
  %z = webnn.constant dense<10> : tensor<1x1x1x1xui8>
  %s2 = webnn.constant dense<0.2> : tensor<1x1x1x1xf32>
  %z2 = webnn.constant dense<0> : tensor<1x1x1x1xui8>
  %w1 = webnn.constant dense<1> : tensor<2x1x3x3xi8>
  %sw1 = webnn.constant dense<0.01> : tensor<1xf32>
  %zw1 = webnn.constant dense<0> : tensor<1xi8>
  %w2 = webnn.constant dense<[[[[1]], [[-1]]], [[[2]], [[0]]], [[[3]], [[5]]]]> : tensor<3x2x1x1xi8>
  %sw2 = webnn.constant dense<[[[[0.1]]], [[[0.2]]], [[[0.3]]]]> : tensor<3x1x1x1xf32>
  %zw2 = webnn.constant dense<0> : tensor<3x1x1x1xi8>
  %q0 = webnn.quantizeLinear %x, %s, %z : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xui8>
  %d0 = webnn.dequantizeLinear %q0, %s, %z : (tensor<1x2x4x4xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xf32>
  %wd1 = webnn.dequantizeLinear %w1, %sw1, %zw1 : (tensor<2x1x3x3xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<2x1x3x3xf32>
  %c1 = webnn.conv2d %d0, %wd1 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  %q1 = webnn.quantizeLinear %c1, %s2, %z2 : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xui8>
  %d1 = webnn.dequantizeLinear %q1, %s2, %z2 : (tensor<1x2x4x4xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xf32>
  %wd2 = webnn.dequantizeLinear %w2, %sw2, %zw2 : (tensor<3x2x1x1xi8>, tensor<3x1x1x1xf32>, tensor<3x1x1x1xi8>) -> tensor<3x2x1x1xf32>
  %y = webnn.conv2d %d1, %wd2 : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// Left float: a filter zero point other than 0 (oneDNN's int8 filters are
// symmetric), and an input dequantized with a scale per channel.
// CHECK-LABEL: func.func @not_fused
// LAYOUT-LABEL: func.func @not_fused
// CHECK-NOT: webnn.quantizedConv2d
// CHECK: webnn.conv2d
// CHECK: webnn.conv2d
func.func @not_fused() -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) attributes {webnn.output_names = ["a", "b"]} {
  %x = webnn.input "x" : tensor<1x2x3x3xui8>
  %sx = webnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %zx = webnn.constant dense<128> : tensor<1x1x1x1xui8>
  %sxc = webnn.constant dense<[[[[0.5]], [[0.25]]]]> : tensor<1x2x1x1xf32>
  %zxc = webnn.constant dense<0> : tensor<1x2x1x1xui8>
  %w = webnn.constant dense<1> : tensor<2x2x1x1xi8>
  %sw = webnn.constant dense<0.1> : tensor<1xf32>
  %zw1 = webnn.constant dense<1> : tensor<1xi8>
  %zw0 = webnn.constant dense<0> : tensor<1xi8>
  %xd = webnn.dequantizeLinear %x, %sx, %zx : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  %xdc = webnn.dequantizeLinear %x, %sxc, %zxc : (tensor<1x2x3x3xui8>, tensor<1x2x1x1xf32>, tensor<1x2x1x1xui8>) -> tensor<1x2x3x3xf32>
  %wd1 = webnn.dequantizeLinear %w, %sw, %zw1 : (tensor<2x2x1x1xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<2x2x1x1xf32>
  %wd0 = webnn.dequantizeLinear %w, %sw, %zw0 : (tensor<2x2x1x1xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<2x2x1x1xf32>
  %a = webnn.conv2d %xd, %wd1 : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %b = webnn.conv2d %xdc, %wd0 : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %a, %b : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// A classifier's Gemm (bTranspose, per-row int8 weight, int32 bias, output
// quantized and dequantized): quantizedMatmul on the transposed weight with
// per-column parameters, the bias a float add before the output's q/dq.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[B:.+]] = webnn.constant dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi8>
// CHECK-DAG: %[[SB:.+]] = webnn.constant dense<{{\[\[}}1.000000e-01, 2.000000e-01]]> : tensor<1x2xf32>
// CHECK-DAG: %[[C:.+]] = webnn.constant dense<{{\[\[}}5.000000e-01, -2.500000e-01]]> : tensor<1x2xf32>
// CHECK: %[[M:.+]] = webnn.quantizedMatmul %{{.+}}, %{{.+}}, %{{.+}}, %[[B]], %[[SB]], %{{.+}} : {{.+}} -> tensor<1x2xf32>
// CHECK: %[[Y:.+]] = webnn.add %[[M]], %[[C]]
// CHECK: webnn.quantizeLinear %[[Y]]
// CHECK-NOT: webnn.gemm
func.func @gemm() -> tensor<1x2xf32> attributes {webnn.output_names = ["y"]} {
  %x0 = webnn.input "x" : tensor<1x2xf32>
  %sx = webnn.constant dense<0.5> : tensor<1x1xf32>
  %zx = webnn.constant dense<128> : tensor<1x1xui8>
  %x = webnn.quantizeLinear %x0, %sx, %zx : (tensor<1x2xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<1x2xui8>
  %w = webnn.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %sw = webnn.constant dense<[[0.1], [0.2]]> : tensor<2x1xf32>
  %zw = webnn.constant dense<0> : tensor<2x1xi8>
  %b = webnn.constant dense<[2, -1]> : tensor<2xi32>
  %sb = webnn.constant dense<0.25> : tensor<1xf32>
  %zb = webnn.constant dense<0> : tensor<1xi32>
  %so = webnn.constant dense<0.05> : tensor<1x1xf32>
  %zo = webnn.constant dense<3> : tensor<1x1xui8>
  %xd = webnn.dequantizeLinear %x, %sx, %zx : (tensor<1x2xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<1x2xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<2x2xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x2xf32>
  %bd = webnn.dequantizeLinear %b, %sb, %zb : (tensor<2xi32>, tensor<1xf32>, tensor<1xi32>) -> tensor<2xf32>
  %g = webnn.gemm %xd, %wd c %bd {bTranspose = true} : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %q = webnn.quantizeLinear %g, %so, %zo : (tensor<1x2xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<1x2xui8>
  %y = webnn.dequantizeLinear %q, %so, %zo : (tensor<1x2xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// A residual block's join: q(relu(dq(q(conv)) + dq(skip))) becomes one
// quantizedConv2d with the skip as its residual (transposed to nhwc), the
// conv's own q parameters, relu and the final q's parameters; after
// convert-layout no transpose is left between the skip's producer and it.
// CHECK-LABEL: func.func @residual
// CHECK: %[[SKIP:.+]] = webnn.transpose %{{.+}} {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x3x3x2xui8>) -> tensor<1x2x3x3xui8>
// CHECK: webnn.transpose %[[SKIP]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[R:.+]] = webnn.transpose %[[SKIP]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: %[[Y:.+]] = webnn.quantizedConv2d {{.+}} outputScale %{{.+}} outputZeroPoint %{{.+}} residual %[[R]] residualScale %{{.+}} residualZeroPoint %{{.+}} convScale %{{.+}} convZeroPoint %{{.+}} {activation = "relu"{{.*}}} : {{.+}} -> tensor<1x3x3x2xui8>
// CHECK: webnn.transpose %[[Y]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: webnn.add
// CHECK-NOT: webnn.relu
// LAYOUT-LABEL: func.func @residual
// LAYOUT: %[[C:.+]] = webnn.quantizedConv2d
// LAYOUT-NEXT: webnn.quantizedConv2d %[[C]], {{.+}} residual %[[C]]
// LAYOUT-NEXT: webnn.dequantizeLinear
// LAYOUT-NEXT: webnn.transpose
func.func @residual() -> tensor<1x2x3x3xf32> attributes {webnn.output_names = ["y"]} {
  %x0 = webnn.input "x" : tensor<1x2x3x3xf32>
  %sx = webnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %zx = webnn.constant dense<128> : tensor<1x1x1x1xui8>
  %x = webnn.quantizeLinear %x0, %sx, %zx : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xui8>
  %s1 = webnn.constant dense<0.25> : tensor<1x1x1x1xf32>
  %z1 = webnn.constant dense<3> : tensor<1x1x1x1xui8>
  %s2 = webnn.constant dense<0.125> : tensor<1x1x1x1xf32>
  %z2 = webnn.constant dense<7> : tensor<1x1x1x1xui8>
  %so = webnn.constant dense<0.05> : tensor<1x1x1x1xf32>
  %zo = webnn.constant dense<0> : tensor<1x1x1x1xui8>
  %w = webnn.constant dense<[[[[1]], [[2]]], [[[-3]], [[-4]]]]> : tensor<2x2x1x1xi8>
  %sw = webnn.constant dense<0.1> : tensor<1xf32>
  %zw = webnn.constant dense<0> : tensor<1xi8>
  %xd = webnn.dequantizeLinear %x, %sx, %zx : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<2x2x1x1xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<2x2x1x1xf32>
  // The first conv's output is the skip.
  %c1 = webnn.conv2d %xd, %wd : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %q1 = webnn.quantizeLinear %c1, %s1, %z1 : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xui8>
  %d1 = webnn.dequantizeLinear %q1, %s1, %z1 : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  %d1b = webnn.dequantizeLinear %q1, %s1, %z1 : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  %c2 = webnn.conv2d %d1, %wd : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %q2 = webnn.quantizeLinear %c2, %s2, %z2 : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xui8>
  %d2 = webnn.dequantizeLinear %q2, %s2, %z2 : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  %a = webnn.add %d2, %d1b : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %r = webnn.relu %a : tensor<1x2x3x3xf32>
  %q3 = webnn.quantizeLinear %r, %so, %zo : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xui8>
  %y = webnn.dequantizeLinear %q3, %so, %zo : (tensor<1x2x3x3xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
