// RUN: webnn-opt --webnn-fuse-matmul-nbits -split-input-file %s | FileCheck %s

// uint4 weight [K, N] with zero points, blocks of 16 along K: one
// matmulNBits with the weight repacked [N, K/16, 8] and the zero points
// packed [N, 1]; the constant scales are transposed to [N, K/16] at compile
// time (a constant, so merge-matmul-nbits can merge such projections).
// CHECK-LABEL: func.func @uint4_kn
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<3x32xf32>
// CHECK-DAG: %[[ST:.+]] = webnn.constant dense<{{\[\[}}0.04651102{{[0-9]*}}, 0.0540377{{[0-9]*}}], [0.02054953{{[0-9]*}}, 0.105459{{[0-9]*}}], [0.0729108{{[0-9]*}}, 0.0599895{{[0-9]*}}], [0.102715{{[0-9]*}}, 0.0525228{{[0-9]*}}]]> : tensor<4x2xf32>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<4x2x8xui8>
// CHECK-DAG: %[[Z:.+]] = webnn.constant {{.*}} : tensor<4x1xui8>
// CHECK-NOT: webnn.transpose
// CHECK: %[[Y:.+]] = webnn.matmulNBits %[[X]], %[[W]], %[[ST]] zeroPoints %[[Z]] {K = 32 : i64, N = 4 : i64, bits = 4 : i64, blockSize = 16 : i64}
// CHECK-NOT: webnn.dequantizeLinear
// CHECK: return %[[Y]]
func.func @uint4_kn() -> tensor<3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<3x32xf32>
  %q = webnn.constant dense<[[13, 10,  8,  4],
 [ 4,  0,  1,  0],
 [ 2, 13, 10, 14],
 [ 8,  9, 15, 11],
 [10,  8,  8, 14],
 [ 4, 13, 10,  0],
 [ 6, 13,  8,  0],
 [12, 11, 13,  2],
 [ 1, 13,  0,  8],
 [ 1,  4,  7,  6],
 [ 6,  0,  0,  1],
 [ 0, 10,  8, 10],
 [ 4,  9, 12,  6],
 [ 7, 15, 12, 15],
 [ 6, 10, 15, 10],
 [13, 11, 11,  6],
 [14,  2,  9, 11],
 [13,  8,  6,  4],
 [ 6,  7, 11, 14],
 [ 1, 14,  8,  5],
 [10,  9,  4,  5],
 [11,  9,  8,  5],
 [12,  6,  5, 14],
 [ 4,  3, 11,  9],
 [ 0,  1,  6, 13],
 [ 6, 12,  5,  3],
 [12, 14,  1,  0],
 [10,  5,  9,  2],
 [13,  7, 14, 12],
 [11,  3, 12,  0],
 [ 9,  6, 15,  3],
 [15,  1,  9,  9]]> : tensor<32x4xui4>
  %s = webnn.constant dense<[[0.04651102, 0.02054953, 0.07291082, 0.10271545],
 [0.05403772, 0.10545905, 0.05998958, 0.05252286]]> : tensor<2x4xf32>
  %z = webnn.constant dense<[[14,  4, 14, 10],
 [14,  3, 12, 15]]> : tensor<2x4xui4>
  %w = webnn.dequantizeLinear %q, %s, %z : (tensor<32x4xui4>, tensor<2x4xf32>, tensor<2x4xui4>) -> tensor<32x4xf32>
  %y = webnn.matmul %x, %w : (tensor<3x32xf32>, tensor<32x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// int4 weight [N, K] used through a transpose, zero points 0: shifted by 8
// to uint4, whose zero point 8 is matmulNBits' default (no operand).
// CHECK-LABEL: func.func @int4_nk_transposed
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x2x32xf32>
// CHECK-DAG: %[[S:.+]] = webnn.constant {{.*}} : tensor<4x2xf32>
// CHECK: %[[Y:.+]] = webnn.matmulNBits %[[X]], %{{.+}}, %[[S]] {K = 32 : i64, N = 4 : i64, bits = 4 : i64, blockSize = 16 : i64}
// CHECK-NOT: webnn.transpose
// CHECK: return %[[Y]]
func.func @int4_nk_transposed() -> tensor<1x2x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x32xf32>
  %q = webnn.constant dense<[[ 7,  1, -3,  7,  1,  7, -8, -1,  5,  4, -2, -1, -2,  0, -5,  4, -7, -2, -4,  3,  3,  3,  6,  6, -6, -7, -6,  3,  7,  6,  2,  7],
 [ 5, -8, -7,  5, -7,  7,  5,  7, -3, -6,  0,  7, -3,  6, -2,  5, -5, -1, -3, -5,  6,  4, -6,  6,  7, -4, -2,  0,  2, -1, -6,  6],
 [ 3, -8,  5,  3, -6,  1,  0, -8,  6,  3, -4, -8, -7,  4, -6,  0,  6,  6, -4, -7, -1,  5,  1, -7,  2, -3, -5, -2,  5,  7, -6,  0],
 [ 4, -4, -4, -5, -5,  6, -5, -5, -6, -7,  4, -4,  4,  1,  5,  0,  4,  4, -8,  0, -1, -4, -1, -2, -1,  5,  5,  2,  3,  7,  2, -3]]> : tensor<4x32xi4>
  %s = webnn.constant dense<[[0.06526115, 0.06939242],
 [0.09482912, 0.02454735],
 [0.05065103, 0.1009959 ],
 [0.01430669, 0.09227063]]> : tensor<4x2xf32>
  %z = webnn.constant dense<0> : tensor<4x2xi4>
  %w = webnn.dequantizeLinear %q, %s, %z : (tensor<4x32xi4>, tensor<4x2xf32>, tensor<4x2xi4>) -> tensor<4x32xf32>
  %wt = webnn.transpose %w {permutation = array<i64: 1, 0>} : (tensor<4x32xf32>) -> tensor<32x4xf32>
  %y = webnn.matmul %x, %wt : (tensor<1x2x32xf32>, tensor<32x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// Not fused: blocks of 8 (matmulNBits takes powers of 2 >= 16).
// CHECK-LABEL: func.func @block_8
// CHECK-NOT: webnn.matmulNBits
// CHECK: webnn.dequantizeLinear
func.func @block_8() -> tensor<3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<3x32xf32>
  %q = webnn.constant dense<[[13, 10,  8,  4],
 [ 4,  0,  1,  0],
 [ 2, 13, 10, 14],
 [ 8,  9, 15, 11],
 [10,  8,  8, 14],
 [ 4, 13, 10,  0],
 [ 6, 13,  8,  0],
 [12, 11, 13,  2],
 [ 1, 13,  0,  8],
 [ 1,  4,  7,  6],
 [ 6,  0,  0,  1],
 [ 0, 10,  8, 10],
 [ 4,  9, 12,  6],
 [ 7, 15, 12, 15],
 [ 6, 10, 15, 10],
 [13, 11, 11,  6],
 [14,  2,  9, 11],
 [13,  8,  6,  4],
 [ 6,  7, 11, 14],
 [ 1, 14,  8,  5],
 [10,  9,  4,  5],
 [11,  9,  8,  5],
 [12,  6,  5, 14],
 [ 4,  3, 11,  9],
 [ 0,  1,  6, 13],
 [ 6, 12,  5,  3],
 [12, 14,  1,  0],
 [10,  5,  9,  2],
 [13,  7, 14, 12],
 [11,  3, 12,  0],
 [ 9,  6, 15,  3],
 [15,  1,  9,  9]]> : tensor<32x4xui4>
  %s = webnn.constant dense<[[0.0515384 , 0.0929804 , 0.01099546, 0.04650462],
 [0.017863  , 0.07526146, 0.03738491, 0.08026521],
 [0.10438015, 0.02268171, 0.09647783, 0.01594641],
 [0.04807705, 0.05297741, 0.05888496, 0.10764623]]> : tensor<4x4xf32>
  %z = webnn.constant dense<[[11, 12,  0,  4],
 [15,  4,  8, 13],
 [10, 14,  2,  8],
 [10,  5,  9, 15]]> : tensor<4x4xui4>
  %w = webnn.dequantizeLinear %q, %s, %z : (tensor<32x4xui4>, tensor<4x4xf32>, tensor<4x4xui4>) -> tensor<32x4xf32>
  %y = webnn.matmul %x, %w : (tensor<3x32xf32>, tensor<32x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// Not fused: the quantized weight is a graph input (nothing to repack at
// compile time), and an int8 weight is not 4-bit.
// CHECK-LABEL: func.func @runtime_or_int8_weight
// CHECK-NOT: webnn.matmulNBits
// CHECK: webnn.dequantizeLinear
// CHECK: webnn.dequantizeLinear
func.func @runtime_or_int8_weight() -> (tensor<3x4xf32>, tensor<3x4xf32>) attributes {webnn.output_names = ["y", "z"]} {
  %x = webnn.input "x" : tensor<3x32xf32>
  %q = webnn.input "q" : tensor<32x4xui4>
  %s = webnn.constant dense<[[0.04651102, 0.02054953, 0.07291082, 0.10271545],
 [0.05403772, 0.10545905, 0.05998958, 0.05252286]]> : tensor<2x4xf32>
  %z = webnn.constant dense<[[14,  4, 14, 10],
 [14,  3, 12, 15]]> : tensor<2x4xui4>
  %w = webnn.dequantizeLinear %q, %s, %z : (tensor<32x4xui4>, tensor<2x4xf32>, tensor<2x4xui4>) -> tensor<32x4xf32>
  %y = webnn.matmul %x, %w : (tensor<3x32xf32>, tensor<32x4xf32>) -> tensor<3x4xf32>
  %q8 = webnn.constant dense<[[13, 10,  8,  4],
 [ 4,  0,  1,  0],
 [ 2, 13, 10, 14],
 [ 8,  9, 15, 11],
 [10,  8,  8, 14],
 [ 4, 13, 10,  0],
 [ 6, 13,  8,  0],
 [12, 11, 13,  2],
 [ 1, 13,  0,  8],
 [ 1,  4,  7,  6],
 [ 6,  0,  0,  1],
 [ 0, 10,  8, 10],
 [ 4,  9, 12,  6],
 [ 7, 15, 12, 15],
 [ 6, 10, 15, 10],
 [13, 11, 11,  6],
 [14,  2,  9, 11],
 [13,  8,  6,  4],
 [ 6,  7, 11, 14],
 [ 1, 14,  8,  5],
 [10,  9,  4,  5],
 [11,  9,  8,  5],
 [12,  6,  5, 14],
 [ 4,  3, 11,  9],
 [ 0,  1,  6, 13],
 [ 6, 12,  5,  3],
 [12, 14,  1,  0],
 [10,  5,  9,  2],
 [13,  7, 14, 12],
 [11,  3, 12,  0],
 [ 9,  6, 15,  3],
 [15,  1,  9,  9]]> : tensor<32x4xui8>
  %z8 = webnn.constant dense<[[14,  4, 14, 10],
 [14,  3, 12, 15]]> : tensor<2x4xui8>
  %w8 = webnn.dequantizeLinear %q8, %s, %z8 : (tensor<32x4xui8>, tensor<2x4xf32>, tensor<2x4xui8>) -> tensor<32x4xf32>
  %y8 = webnn.matmul %x, %w8 : (tensor<3x32xf32>, tensor<32x4xf32>) -> tensor<3x4xf32>
  return %y, %y8 : tensor<3x4xf32>, tensor<3x4xf32>
}
