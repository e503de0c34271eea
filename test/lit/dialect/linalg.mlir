// RUN: webnn-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %c: tensor<3x4xf16>,
                  %d: tensor<4x7xf16>) -> () {
  // Batch dimensions broadcast bidirectionally.
  // CHECK: webnn.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %0 = webnn.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  // CHECK: webnn.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf16>, tensor<4x7xf16>) -> tensor<3x7xf16>
  %1 = webnn.matmul %c, %d : (tensor<3x4xf16>, tensor<4x7xf16>) -> tensor<3x7xf16>
  return
}

// -----

// CHECK-LABEL: func @gemm
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> () {
  // CHECK: webnn.gemm %{{.*}}, %{{.*}} {aTranspose = true, bTranspose = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %0 = webnn.gemm %a, %b {aTranspose = true, bTranspose = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  // CHECK: webnn.gemm %{{.*}}, %{{.*}} c %{{.*}} {aTranspose = true, alpha = 2.000000e+00 : f64, bTranspose = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %1 = webnn.gemm %a, %b c %c {alpha = 2.0 : f64, aTranspose = true, bTranspose = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return
}
