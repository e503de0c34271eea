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

// -----

// The merged q/k/v read only by one groupQueryAttention: it takes the
// merged projection as packed QKV, and no split is left.
// CHECK-LABEL: func.func @packed_qkv
// CHECK: %[[M:.+]] = webnn.matmulNBits %{{.+}}, %{{.+}}, %{{.+}} {K = 32 : i64, N = 64 : i64, blockSize = 16 : i64}
// CHECK-NOT: webnn.split
// CHECK: %[[A:[^,]+]], %{{.+}}, %{{.+}} = webnn.groupQueryAttention %[[M]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {kvNumHeads = 1 : i64, numHeads = 2 : i64}
// CHECK: return %[[A]]
func.func @packed_qkv() -> (tensor<1x2x32xf32>) attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x32xf32>
  %past = webnn.input "past" : tensor<1x1x3x16xf32>
  %sl = webnn.constant dense<[4]> : tensor<1xi32>
  %t = webnn.constant dense<5> : tensor<i32>
  %wq = webnn.constant dense<[[[107, 222, 246,  73,  29, 154, 170, 199],  [164, 183, 234, 234, 237, 220, 184, 235]], [[  3,   6, 204, 111, 191, 124, 230,  16],  [172,   1,  37, 212,  74, 251,  89, 200]], [[245,  80, 250, 180, 247,  76, 131, 189],  [247,  71, 123, 200, 214, 252,  54, 252]], [[ 29, 226, 223, 233, 223, 181, 148, 141],  [ 20, 236, 235,  22, 152,  94, 190, 155]], [[150, 122,  28, 202, 227,  49, 119,  15],  [111,  32, 105, 246,  36,  33, 180,  57]], [[  1,  96,  45, 159, 141, 200, 155,  20],  [ 15, 238, 188, 195, 208,  82, 135,  48]], [[  0, 152,  57, 152, 228,  68,  65,  43],  [ 85, 196, 169, 172,  10, 204, 189,  56]], [[152, 185,  13,  19,  56,   1, 156,  45],  [147, 200,  67, 138, 164, 157,  66, 151]], [[ 59, 162,  73,  82, 244, 184,  35,   3],  [ 24,  96, 228,  13,  29,  32,  67, 231]], [[ 80, 154,   3, 202, 142, 155, 244, 146],  [ 18, 203, 140, 159,  11, 130, 227, 142]], [[105, 145,  10,  87, 218, 170,  71, 104],  [ 17, 167, 202, 124, 161, 191, 203, 177]], [[178,  10,  83, 200, 199, 229,  76,  84],  [248, 187,   9, 216,  81, 127, 194,  33]], [[165, 187, 167, 214, 252,  79,  38,  55],  [124, 196, 146, 132, 228,   3, 219,  50]], [[217,  55, 197, 148, 128, 143, 199, 132],  [  1,  87, 164, 100,  27, 128,  21, 145]], [[144, 144, 195, 183, 146, 254, 194, 191],  [134, 125, 181, 250, 173,  32, 203, 243]], [[ 78, 128, 223, 123,  56, 217,   7, 155],  [117, 210,  39,  94, 165, 141, 227, 166]], [[137,  60, 183, 195, 163,  39, 146,  34],  [223,  69, 110, 207,  39, 121, 184,   8]], [[238,  50, 147, 144, 160,  15, 238,  80],  [132,  54, 244, 176,  30,  37, 195,  94]], [[ 69, 115,  72, 230, 127, 103,  67,  34],  [233, 107, 165,  95, 200, 145,  41,  31]], [[194, 108,  63, 167, 157, 104,  54, 242],  [195,  93, 121, 223, 162,  85,  60, 102]], [[ 64, 180,  48, 137,  50, 238,  97, 226],  [ 35,  72, 185,  82,  91, 165, 255, 202]], [[233,  28, 198, 231, 226,  90, 190,  36],  [199,  67,  92, 204, 180,  65,  59,  30]], [[165, 152,  54, 233, 148,  80, 208, 130],  [159,  99, 229, 241, 149, 221, 216, 124]], [[ 55, 250, 108,  57,  88, 106, 174, 144],  [219, 197, 154, 180, 100, 106,  33, 240]], [[ 13, 251,  37, 217, 141, 116,   0, 209],  [211,  68, 249,  44,  35,  19, 118, 205]], [[  1, 249,  64,  76, 128, 184,  82,  67],  [ 61, 197, 251,  42,  52, 132,  89, 202]], [[ 77, 248, 180, 172, 167, 176, 179, 103],  [175,  43, 184, 206, 177,  20,   6, 191]], [[ 77,  79, 145,  13, 115,  37, 206, 136],  [157,  81,  48,  33, 194,  82, 131, 204]], [[157, 186,  46, 118, 165,  94, 112, 253],  [  9, 130, 138, 172,  41, 214, 240, 129]], [[233, 160,  91, 114,  28, 214, 134, 195],  [162, 114, 157, 212,  31,  60, 174,  89]], [[106, 172,   3,  32, 157, 237,  20,   5],  [ 27, 238,  48,  73, 183, 228, 254,  78]], [[121, 200, 246, 136, 158, 111, 202, 138],  [146, 254,  61, 230,  56,  77, 252,  61]]]> : tensor<32x2x8xui8>
  %sq = webnn.constant dense<[[0.1033726 , 0.02219854], [0.01848166, 0.07580825], [0.02883012, 0.01074029], [0.07458371, 0.02020745], [0.03329981, 0.08329753], [0.10578304, 0.05529927], [0.05705211, 0.01564377], [0.06043438, 0.02960427], [0.06397568, 0.02048652], [0.03844497, 0.09680983], [0.04347134, 0.090342  ], [0.07625335, 0.02096626], [0.05567805, 0.06206773], [0.05793324, 0.02947723], [0.04033098, 0.08482232], [0.06863344, 0.05092374], [0.05542959, 0.05529091], [0.05934743, 0.06580272], [0.1001531 , 0.01179049], [0.07111365, 0.01755174], [0.01881893, 0.10548639], [0.07288759, 0.06065919], [0.0900361 , 0.06227544], [0.09748241, 0.09877937], [0.10818549, 0.01597196], [0.04878517, 0.02970436], [0.08017842, 0.07224546], [0.04531766, 0.02420608], [0.06117695, 0.02119359], [0.08563719, 0.05847846], [0.01907121, 0.08601078], [0.03538734, 0.06031417]]> : tensor<32x2xf32>
  %wk = webnn.constant dense<[[[153, 182,  70,  97, 209,  52,  35, 143],  [108, 188, 124, 221,  13,  50, 159, 106]], [[ 25, 182, 244,  26, 228,   7, 175, 228],  [ 22,  92, 168, 217, 165, 211, 200, 177]], [[155, 250,  32,  54, 175, 118, 116,  56],  [ 64,  45,  88,  70, 117,  86,  97,  47]], [[ 34, 136, 154, 227,  89, 129, 130,  39],  [245,  36,  13, 193, 235,  84,  67,  18]], [[170, 214, 115, 244, 172, 152,  45,  16],  [242,  61,  60, 179,  35, 190,  11,  21]], [[ 77, 248,  66,  32, 161, 255,  75, 160],  [194, 120,  71, 206, 191, 206,  17,  26]], [[  5,  46,   3, 240,  91, 237, 218, 214],  [155,   0,  65, 138,  54,  72,  37, 145]], [[250,  28,  67, 194, 161,  28,  75,  70],  [ 54,  58, 204, 227, 237,  86, 228,  65]], [[204,  83,  28, 108,  58, 136, 182, 164],  [ 50,  98, 142, 178, 170, 175,  33, 121]], [[ 85,  60, 176, 205,  43, 116, 107, 110],  [ 58, 113, 100, 217, 130, 188,  81, 235]], [[165,  23,  80,  74, 179, 107,   8,  80],  [167, 221,  52,  10, 142,  46, 247, 228]], [[252,  26, 244, 252,  15, 120, 153, 234],  [123, 184, 164, 163, 145,  72, 177, 191]], [[166,  61,  54,  11, 231,  77,  97, 105],  [ 35,  15,  96, 113, 244, 134, 224, 176]], [[237, 158, 109,   9,  59, 202,  39,  10],  [144, 125, 219,  16, 247, 110, 157,  35]], [[172, 223, 198, 229, 146,  62, 139,  24],  [ 20, 151,   5, 155, 185, 168, 253,  69]], [[145, 220, 125,  18,  16,  74,  88, 243],  [114,  49, 186,  59, 235, 186, 204,  67]]]> : tensor<16x2x8xui8>
  %sk = webnn.constant dense<[[0.0836202 , 0.01592933], [0.04047297, 0.09098312], [0.07386968, 0.06340513], [0.09004309, 0.02113952], [0.03059126, 0.03340761], [0.02492763, 0.03491295], [0.07912379, 0.04694619], [0.09317148, 0.03190606], [0.05408945, 0.08925207], [0.04753955, 0.07672949], [0.079381  , 0.08809928], [0.01716764, 0.08888291], [0.03416143, 0.01516314], [0.02372388, 0.07932277], [0.02727383, 0.07804845], [0.07017227, 0.03901606]]> : tensor<16x2xf32>
  %wv = webnn.constant dense<[[[128, 247, 240,  28, 169, 204, 123, 127],  [ 80, 141,  44, 208,  12, 121, 114, 201]], [[ 54,  30, 164,  94,  82, 224, 158,  53],  [182, 219, 229, 175, 199, 101,  60, 189]], [[145,  94, 218,  81, 232, 164,  36, 124],  [216,  52, 153,  92, 158, 118,   5,  68]], [[236,  64,  40,  70,  29, 214, 231,   6],  [140, 157, 231, 100, 190, 215, 151,  42]], [[198,  29, 255, 229,  81, 177, 203, 172],  [ 72, 159, 213, 169,  14,  68,  75, 188]], [[170,  22,  11,  85, 144, 104, 238,  97],  [231,   8,  63,   3, 218, 149, 161, 176]], [[139, 132,   1, 115, 218,  53,  30,  94],  [ 89, 184,  11, 221, 210, 101, 162, 188]], [[134,   2,  58,  60, 179, 126, 196, 196],  [151, 215,  65,  83, 216,  27, 167, 206]], [[143, 185,   1, 183,  42,  37,  16, 242],  [ 54, 200,  97, 174, 216,  92,   4,  99]], [[ 65, 184,  95, 145, 160,   6, 135, 227],  [184, 118, 218,  68, 252, 210, 199,   1]], [[188, 175, 202,  61, 207,  79, 162, 196],  [144, 115, 209, 238, 126, 194, 206, 218]], [[160, 230, 195, 134,  83, 170, 107, 121],  [186, 124, 250,  75, 210,   5,  75,  95]], [[198, 247,  27, 144, 189, 211, 130, 205],  [  7, 174,  55,  47,  93,  58,  16, 200]], [[  0, 225, 120, 253,  19,  97,   2,  21],  [ 61, 238,  43, 155, 165, 115, 252,  41]], [[250,  37,  51,  55,  32, 200,  70, 184],  [ 72, 121,  43, 230, 137, 227,  71,  33]], [[ 97, 211, 151, 102, 213, 198, 238, 167],  [236,   9,  63,  52,  10, 242,  95,  29]]]> : tensor<16x2x8xui8>
  %sv = webnn.constant dense<[[0.06625747, 0.07397924], [0.10408339, 0.0345279 ], [0.07355256, 0.03155803], [0.04506622, 0.09534924], [0.03565852, 0.08879644], [0.09724778, 0.05787818], [0.0498676 , 0.09815469], [0.04957152, 0.10759209], [0.03166552, 0.06224561], [0.06128886, 0.04407477], [0.02831543, 0.0426732 ], [0.03271828, 0.03829764], [0.01524931, 0.07065289], [0.0439088 , 0.1031456 ], [0.03746827, 0.03475798], [0.05718342, 0.01130253]]> : tensor<16x2xf32>
  %q = webnn.matmulNBits %x, %wq, %sq {K = 32 : i64, N = 32 : i64, blockSize = 16 : i64} : (tensor<1x2x32xf32>, tensor<32x2x8xui8>, tensor<32x2xf32>) -> tensor<1x2x32xf32>
  %k = webnn.matmulNBits %x, %wk, %sk {K = 32 : i64, N = 16 : i64, blockSize = 16 : i64} : (tensor<1x2x32xf32>, tensor<16x2x8xui8>, tensor<16x2xf32>) -> tensor<1x2x16xf32>
  %v = webnn.matmulNBits %x, %wv, %sv {K = 32 : i64, N = 16 : i64, blockSize = 16 : i64} : (tensor<1x2x32xf32>, tensor<16x2x8xui8>, tensor<16x2xf32>) -> tensor<1x2x16xf32>
  %a:3 = webnn.groupQueryAttention %q key %k value %v, %past, %past, %sl, %t {numHeads = 2 : i64, kvNumHeads = 1 : i64} : (tensor<1x2x32xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>, tensor<1x1x3x16xf32>, tensor<1x1x3x16xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x2x32xf32>, tensor<1x1x5x16xf32>, tensor<1x1x5x16xf32>)
  return %a#0 : tensor<1x2x32xf32>
}

// -----

// Two projections sharing one scale and one zero-point constant: merged, and
// each shared constant dropped once.
// CHECK-LABEL: func.func @shared_scales
// CHECK-DAG: %[[S:.+]] = webnn.constant dense<5.000000e-01> : tensor<4x2xf32>
// CHECK-DAG: %[[Z:.+]] = webnn.constant dense<{{\[\[}}136], [119], [136], [119]]> : tensor<4x1xui8>
// CHECK: %[[M:.+]] = webnn.matmulNBits %{{.+}}, %{{.+}}, %[[S]] zeroPoints %[[Z]] {K = 32 : i64, N = 4 : i64, blockSize = 16 : i64}
// CHECK: %[[P:.+]]:2 = webnn.split %[[M]]
// CHECK-NOT: webnn.matmulNBits
// CHECK: return %[[P]]#0, %[[P]]#1
func.func @shared_scales() -> (tensor<3x2xf32>, tensor<3x2xf32>) attributes {webnn.output_names = ["a", "b"]} {
  %x = webnn.input "x" : tensor<3x32xf32>
  %w0 = webnn.constant dense<17> : tensor<2x2x8xui8>
  %w1 = webnn.constant dense<34> : tensor<2x2x8xui8>
  %s = webnn.constant dense<0.5> : tensor<2x2xf32>
  %z = webnn.constant dense<[[136], [119]]> : tensor<2x1xui8>
  %y0 = webnn.matmulNBits %x, %w0, %s zeroPoints %z {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x1xui8>) -> tensor<3x2xf32>
  %y1 = webnn.matmulNBits %x, %w1, %s zeroPoints %z {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x1xui8>) -> tensor<3x2xf32>
  return %y0, %y1 : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Float zero points ([N, blocks] of the scale's type): rows are counted in
// elements, so the merged tensor is [N0 + N1, blocks].
// CHECK-LABEL: func.func @float_zero_points
// CHECK: %[[Z:.+]] = webnn.constant dense<{{\[\[}}8.000000e+00, 7.500000e+00], [8.500000e+00, 8.000000e+00], [7.000000e+00, 9.000000e+00], [8.000000e+00, 6.500000e+00]]> : tensor<4x2xf32>
// CHECK: webnn.matmulNBits %{{.+}}, %{{.+}}, %{{.+}} zeroPoints %[[Z]] {K = 32 : i64, N = 4 : i64, blockSize = 16 : i64}
// CHECK: webnn.split
func.func @float_zero_points() -> (tensor<3x2xf32>, tensor<3x2xf32>) attributes {webnn.output_names = ["a", "b"]} {
  %x = webnn.input "x" : tensor<3x32xf32>
  %w0 = webnn.constant dense<17> : tensor<2x2x8xui8>
  %w1 = webnn.constant dense<34> : tensor<2x2x8xui8>
  %s0 = webnn.constant dense<0.5> : tensor<2x2xf32>
  %s1 = webnn.constant dense<0.25> : tensor<2x2xf32>
  %z0 = webnn.constant dense<[[8.0, 7.5], [8.5, 8.0]]> : tensor<2x2xf32>
  %z1 = webnn.constant dense<[[7.0, 9.0], [8.0, 6.5]]> : tensor<2x2xf32>
  %y0 = webnn.matmulNBits %x, %w0, %s0 zeroPoints %z0 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %y1 = webnn.matmulNBits %x, %w1, %s1 zeroPoints %z1 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y0, %y1 : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// One input read by projections in both branches of a webnn.if and after it:
// no group spans two blocks (the merged op would not dominate the other
// block's uses), and each block has one projection, so nothing merges.
// CHECK-LABEL: func.func @across_regions
// CHECK: webnn.if
// CHECK: webnn.matmulNBits {{.*}} N = 2 : i64
// CHECK: webnn.matmulNBits {{.*}} N = 2 : i64
// CHECK: webnn.matmulNBits {{.*}} N = 2 : i64
// CHECK-NOT: webnn.split
func.func @across_regions() -> (tensor<3x2xf32>, tensor<3x2xf32>) attributes {webnn.output_names = ["a", "b"]} {
  %c = webnn.input "c" : tensor<ui8>
  %x = webnn.input "x" : tensor<3x32xf32>
  %w0 = webnn.constant dense<17> : tensor<2x2x8xui8>
  %w1 = webnn.constant dense<34> : tensor<2x2x8xui8>
  %s0 = webnn.constant dense<0.5> : tensor<2x2xf32>
  %s1 = webnn.constant dense<0.25> : tensor<2x2xf32>
  %r = webnn.if %c : tensor<ui8> -> (tensor<3x2xf32>) then {
    %y1 = webnn.matmulNBits %x, %w1, %s1 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
    webnn.yield %y1 : tensor<3x2xf32>
  } else {
    %y2 = webnn.matmulNBits %x, %w0, %s0 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
    webnn.yield %y2 : tensor<3x2xf32>
  }
  %y0 = webnn.matmulNBits %x, %w0, %s0 {K = 32 : i64, N = 2 : i64, blockSize = 16 : i64} : (tensor<3x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y0, %r : tensor<3x2xf32>, tensor<3x2xf32>
}
