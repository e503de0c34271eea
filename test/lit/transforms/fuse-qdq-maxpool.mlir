// RUN: webnn-opt --webnn-fuse-qdq -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-fuse-qdq --webnn-convert-layout -split-input-file %s | FileCheck %s --check-prefix=LAYOUT
// RUN: webnn-opt --webnn-fuse-qdq="convs=false" -split-input-file %s | FileCheck %s --check-prefix=NOCONV

// A ResNet stem: q(conv) -> dq -> maxPool2d -> q (the same scale and zero
// point) -> dq -> conv. The pool runs on the uint8 tensor and the second
// conv reads it; after convert-layout the pool is nhwc between the two
// quantizedConv2d with no transpose around it.
// CHECK-LABEL: func.func @stem
// CHECK: %[[C:.+]] = webnn.quantizedConv2d {{.+}} -> tensor<1x4x4x2xui8>
// CHECK: %[[T:.+]] = webnn.transpose %[[C]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK: webnn.maxPool2d %[[T]] {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, windowDimensions = array<i64: 3, 3>} : (tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8>
// CHECK-NOT: webnn.dequantizeLinear
// CHECK: webnn.quantizedConv2d {{.+}} -> tensor<1x2x2x2xf32>
// CHECK-NOT: webnn.maxPool2d
// CHECK-NOT: webnn.quantizeLinear
// LAYOUT-LABEL: func.func @stem
// LAYOUT: webnn.quantizedConv2d {{.+}} -> tensor<1x4x4x2xui8>
// LAYOUT-NEXT: webnn.maxPool2d %{{.+}} {layout = "nhwc", {{.+}}} : (tensor<1x4x4x2xui8>) -> tensor<1x2x2x2xui8>
// LAYOUT-NEXT: webnn.quantizedConv2d {{.+}} -> tensor<1x2x2x2xf32>
// convs=false (GPU targets): the pool stays float with its q/dq.
// NOCONV-LABEL: func.func @stem
// NOCONV: webnn.dequantizeLinear
// NOCONV: webnn.maxPool2d {{.+}} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// NOCONV: webnn.quantizeLinear
func.func @stem() -> tensor<1x2x2x2xf32> attributes {webnn.output_names = ["y"]} {
  %x0 = webnn.input "x" : tensor<1x2x4x4xf32>
  %s = webnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %z = webnn.constant dense<128> : tensor<1x1x1x1xui8>
  %w = webnn.constant dense<1> : tensor<2x2x1x1xi8>
  %sw = webnn.constant dense<0.1> : tensor<2x1x1x1xf32>
  %zw = webnn.constant dense<0> : tensor<2x1x1x1xi8>
  %s1 = webnn.constant dense<0.25> : tensor<1x1x1x1xf32>
  %z1 = webnn.constant dense<0> : tensor<1x1x1x1xui8>
  %x = webnn.quantizeLinear %x0, %s, %z : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xui8>
  %xd = webnn.dequantizeLinear %x, %s, %z : (tensor<1x2x4x4xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xf32>
  %wd = webnn.dequantizeLinear %w, %sw, %zw : (tensor<2x2x1x1xi8>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xi8>) -> tensor<2x2x1x1xf32>
  %c = webnn.conv2d %xd, %wd {padding = array<i64: 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %cq = webnn.quantizeLinear %c, %s1, %z1 : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xui8>
  %cd = webnn.dequantizeLinear %cq, %s1, %z1 : (tensor<1x2x4x4xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x4x4xf32>
  %p = webnn.maxPool2d %cd {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, windowDimensions = array<i64: 3, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %pq = webnn.quantizeLinear %p, %s1, %z1 : (tensor<1x2x2x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x2x2xui8>
  %pd = webnn.dequantizeLinear %pq, %s1, %z1 : (tensor<1x2x2x2xui8>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xui8>) -> tensor<1x2x2x2xf32>
  %w2 = webnn.constant dense<-1> : tensor<2x2x1x1xi8>
  %w2d = webnn.dequantizeLinear %w2, %sw, %zw : (tensor<2x2x1x1xi8>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xi8>) -> tensor<2x2x1x1xf32>
  %y = webnn.conv2d %pd, %w2d {padding = array<i64: 0, 0, 0, 0>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// The dequantizeLinear has another user (returned): it stays for it, the
// pool still folds (int8 here).
// CHECK-LABEL: func.func @shared_dq
// CHECK: %[[D:.+]] = webnn.dequantizeLinear %[[X:[^,]+]],
// CHECK: %[[P:.+]] = webnn.maxPool2d %[[X]] {{.+}} : (tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8>
// CHECK: webnn.dequantizeLinear %[[P]]
// CHECK-NOT: webnn.quantizeLinear
func.func @shared_dq() -> (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) attributes {webnn.output_names = ["a", "b"]} {
  %x = webnn.input "x" : tensor<1x1x4x4xi8>
  %s = webnn.constant dense<0.5> : tensor<f32>
  %z = webnn.constant dense<-3> : tensor<i8>
  %d = webnn.dequantizeLinear %x, %s, %z : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xf32>
  %p = webnn.maxPool2d %d {strides = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %q = webnn.quantizeLinear %p, %s, %z : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xi8>
  %y = webnn.dequantizeLinear %q, %s, %z : (tensor<1x1x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xf32>
  return %d, %y : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>
}

// -----

// Not folded: the quantizeLinear's scale differs from the dequantizeLinear's;
// a negative scale (dq decreasing: max would become min); ceil rounding and
// padding as large as the window (a window could hold padding alone, whose
// float max is 0, not dq's 0); a dilated window.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-5: webnn.maxPool2d {{.+}} : (tensor<1x1x4x4xf32>) -> tensor<1x1x{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK-NOT: webnn.maxPool2d
func.func @not_folded(%x: tensor<1x1x4x4xui8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xui8>, tensor<1x1x3x3xui8>, tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>) attributes {webnn.output_names = ["a", "b", "c", "d", "e"]} {
  %s = webnn.constant dense<0.5> : tensor<f32>
  %s2 = webnn.constant dense<0.25> : tensor<f32>
  %sn = webnn.constant dense<-0.5> : tensor<f32>
  %z = webnn.constant dense<7> : tensor<ui8>
  %d = webnn.dequantizeLinear %x, %s, %z : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xf32>
  %p1 = webnn.maxPool2d %d {strides = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %a = webnn.quantizeLinear %p1, %s2, %z : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  %dn = webnn.dequantizeLinear %x, %sn, %z : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xf32>
  %p2 = webnn.maxPool2d %dn {strides = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %b = webnn.quantizeLinear %p2, %sn, %z : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  %p3 = webnn.maxPool2d %d {roundingType = "ceil", strides = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>, padding = array<i64: 0, 1, 0, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  %c = webnn.quantizeLinear %p3, %s, %z : (tensor<1x1x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xui8>
  %p4 = webnn.maxPool2d %d {strides = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>, padding = array<i64: 2, 0, 2, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  %e = webnn.quantizeLinear %p4, %s, %z : (tensor<1x1x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xui8>
  %p5 = webnn.maxPool2d %d {dilations = array<i64: 2, 2>, windowDimensions = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %f = webnn.quantizeLinear %p5, %s, %z : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  return %a, %b, %c, %e, %f : tensor<1x1x2x2xui8>, tensor<1x1x2x2xui8>, tensor<1x1x3x3xui8>, tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>
}
