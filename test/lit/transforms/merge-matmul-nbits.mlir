// RUN: webnn-opt --webnn-merge-matmul-nbits -split-input-file %s | FileCheck %s

// q/k/v-like projections of one input (N = 4, 2, 2), no zero points: one
// matmulNBits with N = 8 over the concatenated weights and scales, split
// back along the last axis; the per-projection constants are gone.
// CHECK-LABEL: func.func @qkv
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<3x32xf32>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<8x2x8xui8>
// CHECK-DAG: %[[S:.+]] = webnn.constant {{.*}} : tensor<8x2xf32>
// CHECK: %[[Y:.+]] = webnn.matmulNBits %[[X]], %[[W]], %[[S]] {K = 32 : i64, N = 8 : i64, blockSize = 16 : i64}
// CHECK: %[[P:.+]]:3 = webnn.split %[[Y]] {axis = 1 : i64, splits = array<i64: 4, 2, 2>}
// CHECK-NOT: webnn.matmulNBits
// CHECK: return %[[P]]#0, %[[P]]#1, %[[P]]#2
func.func @qkv() -> (tensor<3x4xf32>, tensor<3x2xf32>, tensor<3x2xf32>) attributes {webnn.output_names = ["q", "k", "v"]} {
  %x = webnn.input "x" : tensor<3x32xf32>
  %w0 = webnn.constant dense<[[[171, 206,   5, 206, 120, 131, 161,  73],  [250,  13,  71,  98, 146, 104,  33,  11]], [[  0,  12,  38, 255,  48, 167, 192,  60],  [ 72, 111,  67, 249,  45, 229, 204, 216]], [[ 29, 100, 160, 126, 170, 173, 169,  15],  [245, 142, 231,  69,  92, 225,  47,  16]], [[ 95, 173,  31, 222,  87,  58, 139, 229],  [226, 223,  78,   4, 199, 181, 197,   0]]]> : tensor<4x2x8xui8>
  %s0 = webnn.constant dense<[[0.0603364 , 0.0536667 ], [0.03032528, 0.04249426], [0.09062153, 0.04164521], [0.02490386, 0.0798512 ]]> : tensor<4x2xf32>
  %w1 = webnn.constant dense<[[[148, 114,  43, 204, 204,  60,  15,  81],  [ 37, 204, 133, 129,  74, 129, 247,  60]], [[196,   3,  80, 238, 223,  21, 215, 216],  [116,  94, 250, 243, 173, 102,  53, 239]]]> : tensor<2x2x8xui8>
  %s1 = webnn.constant dense<[[0.06561597, 0.03401353], [0.08414216, 0.07743897]]> : tensor<2x2xf32>
  %w2 = webnn.constant dense<[[[241, 175, 165, 118, 247,  56,  91, 164],  [167,  27,  41, 177, 215, 162, 238,  96]], [[ 84, 204,  10,  49,  49,  99,  40, 204],  [216,  97,   7, 182,  27, 156,  43, 240]]]> : tensor<2x2x8xui8>
  %s2 = webnn.constant dense<[[0.10916767, 0.08236763], [0.09088438, 0.0252865 ]]> : tensor<2x2xf32>
  %y0 = webnn.matmulNBits %x, %w0, %s0 {K = 32 : i64, N = 4 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<4x2x8xui8>, tensor<4x2xf32>) -> tensor<3x4xf32>
  %y1 = webnn.matmulNBits %x, %w1, %s1 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %y2 = webnn.matmulNBits %x, %w2, %s2 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y0, %y1, %y2 : tensor<3x4xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// gate/up with packed zero points merge (rows concatenated); a projection
// with another block size and one whose weight is not a constant do not.
// CHECK-LABEL: func.func @gate_up
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x2x32xf32>
// CHECK-DAG: %[[Z:.+]] = webnn.constant {{.*}} : tensor<6x1xui8>
// CHECK: %[[M:.+]] = webnn.matmulNBits %[[X]], %{{.+}}, %{{.+}} zeroPoints %[[Z]] {K = 32 : i64, N = 6 : i64, blockSize = 16 : i64}
// CHECK: webnn.split %[[M]] {axis = 2 : i64, splits = array<i64: 3, 3>}
// CHECK: webnn.matmulNBits %[[X]], %{{.+}}, %{{.+}} {K = 32 : i64, N = 2 : i64, blockSize = 32 : i64}
// CHECK: webnn.matmulNBits %[[X]], %{{.+}}, %{{.+}} zeroPoints %{{.+}} {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64}
func.func @gate_up() -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) attributes {webnn.output_names = ["g", "u", "other", "runtime"]} {
  %x = webnn.input "x" : tensor<1x2x32xf32>
  %rw = webnn.input "rw" : tensor<2x2x8xui8>
  %w0 = webnn.constant dense<[[[ 92, 182, 124, 216, 241, 102, 108, 141],  [165, 122, 154, 245, 187,  81, 108, 102]], [[ 38,   0, 202, 107,  90, 161, 144, 239],  [157, 236, 148,  83,  82, 253, 150,  48]], [[212, 210,   2,  40, 177, 103,  87,  18],  [ 48, 219, 213, 212, 146,  35,  82, 134]]]> : tensor<3x2x8xui8>
  %s0 = webnn.constant dense<[[0.03581415, 0.05917757], [0.0653206 , 0.02062621], [0.09643756, 0.03786963]]> : tensor<3x2xf32>
  %z0 = webnn.constant dense<[[112], [114], [ 79]]> : tensor<3x1xui8>
  %w1 = webnn.constant dense<[[[ 14, 190,   0, 195,  49, 164,  87,  60],  [237, 121, 227,  48, 123,  88, 116,   3]], [[170,  88, 219,  54,  86,  11, 203, 136],  [102, 234, 152, 246, 188, 149, 128,  51]], [[176, 202, 178, 105,   1, 188,  10, 205],  [ 38,  78,  54, 138,  52,  66,  12, 251]]]> : tensor<3x2x8xui8>
  %s1 = webnn.constant dense<[[0.07009473, 0.09860752], [0.04495038, 0.04664048], [0.05167417, 0.07803418]]> : tensor<3x2xf32>
  %z1 = webnn.constant dense<[[ 55], [ 35], [201]]> : tensor<3x1xui8>
  %wo = webnn.constant dense<[[[109, 240,  66,  96, 223, 180,  10,  87,   4, 210, 106,  59, 185, 222,  26, 129]], [[ 93, 185, 238, 136, 191,  80, 148, 126, 187,  12,  60,  11, 250, 135, 125, 122]]]> : tensor<2x1x16xui8>
  %so = webnn.constant dense<[[0.09331373], [0.01201226]]> : tensor<2x1xf32>
  %zr = webnn.constant dense<[[7], [9]]> : tensor<2x1xui8>
  %sr = webnn.constant dense<[[0.06568838, 0.05906371], [0.06979971, 0.08295786]]> : tensor<2x2xf32>
  %y0 = webnn.matmulNBits %x, %w0, %s0 zeroPoints %z0 {K = 32 : i64, N = 3 : i64, blockSize = 16 : i64} : (tensor<1x2x32xf32>, tensor<3x2x8xui8>, tensor<3x2xf32>, tensor<3x1xui8>) -> tensor<1x2x3xf32>
  %y1 = webnn.matmulNBits %x, %w1, %s1 zeroPoints %z1 {K = 32 : i64, N = 3 : i64, blockSize = 16 : i64} : (tensor<1x2x32xf32>, tensor<3x2x8xui8>, tensor<3x2xf32>, tensor<3x1xui8>) -> tensor<1x2x3xf32>
  %o = webnn.matmulNBits %x, %wo, %so {K = 32 : i64, N = 2 : i64, blockSize = 32 : i64} : (tensor<1x2x32xf32>, tensor<2x1x16xui8>, tensor<2x1xf32>) -> tensor<1x2x2xf32>
  %r = webnn.matmulNBits %x, %rw, %sr zeroPoints %zr {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<1x2x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x1xui8>) -> tensor<1x2x2xf32>
  return %y0, %y1, %o, %r : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>
}
