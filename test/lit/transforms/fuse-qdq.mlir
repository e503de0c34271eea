// RUN: webnn-opt --webnn-fuse-qdq -split-input-file %s | FileCheck %s

// A QDQ linear layer as ONNX Runtime's quantizer writes it: the float input
// quantized and dequantized (uint8, per tensor), an int8 weight with one
// scale per column, the result quantized and dequantized again, then the
// bias added: one quantizedMatmul reading the float input, with the output
// round trip and the bias.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[X:.+]] = webnn.input "x"
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<4x3xi8>
// CHECK: %[[Y:.+]] = webnn.quantizedMatmul %[[X]], %{{.+}}, %{{.+}}, %[[W]], %{{.+}}, %{{.+}} outputScale %{{.+}} outputZeroPoint %{{.+}} bias %{{.+}} : (tensor<2x4xf32>, tensor<1x1xf32>, tensor<1x1xui8>, tensor<4x3xi8>, tensor<1x3xf32>, tensor<1x3xi8>, tensor<1x1xf32>, tensor<1x1xui8>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: webnn.quantizeLinear
// CHECK-NOT: webnn.dequantizeLinear
// CHECK-NOT: webnn.add
// CHECK: return %[[Y]]
func.func @linear() -> tensor<2x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x4xf32>
  %sx = webnn.constant dense<0.05> : tensor<1x1xf32>
  %zx = webnn.constant dense<128> : tensor<1x1xui8>
  %w = webnn.constant dense<[[1, -2, 3], [-4, 5, -6], [7, -8, 9], [-10, 11, -127]]> : tensor<4x3xi8>
  %sw = webnn.constant dense<[[0.01, 0.02, 0.03]]> : tensor<1x3xf32>
  %zw = webnn.constant dense<0> : tensor<1x3xi8>
  %sy = webnn.constant dense<0.1> : tensor<1x1xf32>
  %zy = webnn.constant dense<3> : tensor<1x1xui8>
  %bias = webnn.constant dense<[0.5, -0.5, 0.25]> : tensor<3xf32>
  %xq = webnn.quantizeLinear %x, %sx, %zx : (tensor<2x4xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x4xui8>
  %xd = webnn.dequantizeLinear %xq, %sx, %zx : (tensor<2x4xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x4xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<4x3xi8>, tensor<1x3xf32>, tensor<1x3xi8>) -> tensor<4x3xf32>
  %y = webnn.matmul %xd, %wd : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %yq = webnn.quantizeLinear %y, %sy, %zy : (tensor<2x3xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xui8>
  %yd = webnn.dequantizeLinear %yq, %sy, %zy : (tensor<2x3xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xf32>
  %r = webnn.add %bias, %yd : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Attention scores: both operands are activations (int8 with zero point
// -3 and uint8 with zero point 0), batched; the quantized input also feeds a
// residual, so its quantizeLinear / dequantizeLinear stay for that user;
// no quantizeLinear after the matmul: a float result.
// CHECK-LABEL: func.func @activations
// CHECK-DAG: %[[A:.+]] = webnn.input "a"
// CHECK-DAG: %[[B:.+]] = webnn.input "b"
// CHECK: %[[AQ:.+]] = webnn.quantizeLinear %[[A]]
// CHECK: %[[AD:.+]] = webnn.dequantizeLinear %[[AQ]]
// CHECK: %[[Y:.+]] = webnn.quantizedMatmul %[[A]], %{{.+}}, %{{.+}}, %[[B]], %{{.+}}, %{{.+}} : (tensor<2x3x4xf32>, tensor<f32>, tensor<i8>, tensor<2x4x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3x5xf32>
// CHECK-NOT: webnn.matmul
// CHECK: return %[[Y]], %[[AD]]
func.func @activations() -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>) attributes {webnn.output_names = ["y", "r"]} {
  %a = webnn.input "a" : tensor<2x3x4xf32>
  %b = webnn.input "b" : tensor<2x4x5xf32>
  %sa = webnn.constant dense<0.02> : tensor<f32>
  %za = webnn.constant dense<-3> : tensor<i8>
  %sb = webnn.constant dense<0.04> : tensor<f32>
  %zb = webnn.constant dense<0> : tensor<ui8>
  %aq = webnn.quantizeLinear %a, %sa, %za : (tensor<2x3x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3x4xi8>
  %ad = webnn.dequantizeLinear %aq, %sa, %za : (tensor<2x3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3x4xf32>
  %bq = webnn.quantizeLinear %b, %sb, %zb : (tensor<2x4x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4x5xui8>
  %bd = webnn.dequantizeLinear %bq, %sb, %zb : (tensor<2x4x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4x5xf32>
  %y = webnn.matmul %ad, %bd : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %y, %ad : tensor<2x3x5xf32>, tensor<2x3x4xf32>
}

// -----

// Not exact, left alone: the quantizeLinear before a uses another scale
// than its dequantizeLinear (a reads the uint8 tensor instead, which is
// exact); the quantized result also feeds a graph output (float result,
// the quantizeLinear stays on it).
// CHECK-LABEL: func.func @mismatch
// CHECK: %[[XQ:.+]] = webnn.quantizeLinear
// CHECK: %[[Y:.+]] = webnn.quantizedMatmul %[[XQ]],
// CHECK: %[[YQ:.+]] = webnn.quantizeLinear %[[Y]]
// CHECK: return %[[YQ]]
func.func @mismatch() -> tensor<2x3xui8> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x4xf32>
  %s1 = webnn.constant dense<0.05> : tensor<1x1xf32>
  %s2 = webnn.constant dense<0.06> : tensor<1x1xf32>
  %zx = webnn.constant dense<128> : tensor<1x1xui8>
  %w = webnn.constant dense<1> : tensor<4x3xi8>
  %sw = webnn.constant dense<0.01> : tensor<1x1xf32>
  %zw = webnn.constant dense<0> : tensor<1x1xi8>
  %xq = webnn.quantizeLinear %x, %s1, %zx : (tensor<2x4xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x4xui8>
  %xd = webnn.dequantizeLinear %xq, %s2, %zx : (tensor<2x4xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x4xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<4x3xi8>, tensor<1x1xf32>, tensor<1x1xi8>) -> tensor<4x3xf32>
  %y = webnn.matmul %xd, %wd : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %yq = webnn.quantizeLinear %y, %s1, %zx : (tensor<2x3xf32>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x3xui8>
  return %yq : tensor<2x3xui8>
}

// -----

// Left alone: a per-column scale on the activation side, an int32 weight,
// and a weight whose scale varies along K (blocks, not columns).
// CHECK-LABEL: func.func @unfusable
// CHECK-NOT: webnn.quantizedMatmul
// CHECK-COUNT-3: webnn.matmul
func.func @unfusable() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) attributes {webnn.output_names = ["y1", "y2", "y3"]} {
  %x = webnn.input "x" : tensor<2x4xui8>
  %sxc = webnn.constant dense<[[0.1, 0.2, 0.3, 0.4]]> : tensor<1x4xf32>
  %zxc = webnn.constant dense<0> : tensor<1x4xui8>
  %sx = webnn.constant dense<0.1> : tensor<1x1xf32>
  %zx = webnn.constant dense<0> : tensor<1x1xui8>
  %w = webnn.constant dense<1> : tensor<4x3xi8>
  %sw = webnn.constant dense<0.01> : tensor<1x1xf32>
  %zw = webnn.constant dense<0> : tensor<1x1xi8>
  %w32 = webnn.constant dense<1> : tensor<4x3xi32>
  %zw32 = webnn.constant dense<0> : tensor<1x1xi32>
  %swk = webnn.constant dense<[[0.01], [0.02]]> : tensor<2x1xf32>
  %zwk = webnn.constant dense<0> : tensor<2x1xi8>
  %xd1 = webnn.dequantizeLinear %x, %sxc, %zxc : (tensor<2x4xui8>, tensor<1x4xf32>, tensor<1x4xui8>) -> tensor<2x4xf32>
  %xd = webnn.dequantizeLinear %x, %sx, %zx : (tensor<2x4xui8>, tensor<1x1xf32>, tensor<1x1xui8>) -> tensor<2x4xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<4x3xi8>, tensor<1x1xf32>, tensor<1x1xi8>) -> tensor<4x3xf32>
  %wd32 = webnn.dequantizeLinear %w32, %sw, %zw32 : (tensor<4x3xi32>, tensor<1x1xf32>, tensor<1x1xi32>) -> tensor<4x3xf32>
  %wdk = webnn.dequantizeLinear %w, %swk, %zwk : (tensor<4x3xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<4x3xf32>
  %y1 = webnn.matmul %xd1, %wd : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y2 = webnn.matmul %xd, %wd32 : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y3 = webnn.matmul %xd, %wdk : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y1, %y2, %y3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A conv2d's constant int8 filter (one scale per output channel, axis 0)
// and int32 bias are dequantized at compile time: (q - zp) * scale.
// CHECK-LABEL: func.func @conv_weights
// CHECK-DAG: webnn.constant dense<{{\[\[\[\[}}1.000000e-01]], {{\[\[}}-2.000000e-01]]], {{\[\[\[}}6.000000e-01]], {{\[\[}}-8.000000e-01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: webnn.constant dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK-NOT: webnn.dequantizeLinear %{{.+}} : (tensor<2x2x1x1xi8>
// CHECK: webnn.conv2d
func.func @conv_weights() -> tensor<1x2x3x3xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x3xf32>
  %w = webnn.constant dense<[[[[1]], [[-2]]], [[[3]], [[-4]]]]> : tensor<2x2x1x1xi8>
  %sw = webnn.constant dense<[[[[0.1]]], [[[0.2]]]]> : tensor<2x1x1x1xf32>
  %zw = webnn.constant dense<0> : tensor<2x1x1x1xi8>
  %b = webnn.constant dense<[2, -1]> : tensor<2xi32>
  %sb = webnn.constant dense<0.25> : tensor<1xf32>
  %zb = webnn.constant dense<0> : tensor<1xi32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<2x2x1x1xi8>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xi8>) -> tensor<2x2x1x1xf32>
  %bd = webnn.dequantizeLinear %b, %sb, %zb : (tensor<2xi32>, tensor<1xf32>, tensor<1xi32>) -> tensor<2xf32>
  %y = webnn.conv2d %x, %wd bias %bd : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
