// RUN: webnn-opt --webnn-decompose-fused -split-input-file %s | FileCheck %s
// RUN: webnn-opt --webnn-decompose-fused --webnn-fuse-rms-norm -split-input-file %s | FileCheck %s --check-prefix=ROUNDTRIP

// rmsNormalization -> statistics in float32: x * x, mean over the
// normalized axes, + eps, sqrt, reciprocal (the invStdDev result), x * it,
// * scale. Fusing the expansion gives the op back (invStdDev unused here:
// a used statistic keeps the chain apart).
// CHECK-LABEL: func.func @rms
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<2x3x8xf32>
// CHECK-DAG: %[[W:.+]] = webnn.constant {{.*}} : tensor<8xf32>
// CHECK: %[[SQ:.+]] = webnn.mul %[[X]], %[[X]]
// CHECK: %[[M:.+]] = webnn.reduceMean %[[SQ]] {axes = array<i64: 2>, keepDimensions = true}
// CHECK: %[[V:.+]] = webnn.add %[[M]], %{{.+}}
// CHECK: %[[R:.+]] = webnn.sqrt %[[V]]
// CHECK: %[[INV:.+]] = webnn.reciprocal %[[R]]
// CHECK: %[[N:.+]] = webnn.mul %[[X]], %[[INV]]
// CHECK: %[[Y:.+]] = webnn.mul %[[N]], %[[W]]
// CHECK-NOT: webnn.rmsNormalization
// CHECK: return %[[Y]]
// ROUNDTRIP-LABEL: func.func @rms
// ROUNDTRIP: webnn.rmsNormalization
// ROUNDTRIP-NOT: webnn.reduceMean
func.func @rms() -> tensor<2x3x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x3x8xf32>
  %w = webnn.constant dense<1.5> : tensor<8xf32>
  %y, %inv = webnn.rmsNormalization %x, %w {epsilon = 1.0e-5 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x1xf32>)
  return %y : tensor<2x3x8xf32>
}

// -----

// fp16 skipRmsNormalization with bias: the sum (+ bias) in fp16, the
// statistics in float32 between casts.
// CHECK-LABEL: func.func @skip_fp16
// CHECK-DAG: %[[A:.+]] = webnn.input "a" : tensor<1x2x8xf16>
// CHECK-DAG: %[[B:.+]] = webnn.input "b" : tensor<2x8xf16>
// CHECK: %[[S0:.+]] = webnn.add %[[A]], %[[B]]
// CHECK: %[[S:.+]] = webnn.add %[[S0]], %{{.+}} : (tensor<1x2x8xf16>, tensor<8xf16>)
// CHECK: %[[SF:.+]] = webnn.cast %[[S]] {type = f32}
// CHECK: webnn.reduceMean
// CHECK: %[[NF:.+]] = webnn.mul %[[SF]], %{{.+}} : (tensor<1x2x8xf32>, tensor<1x2x1xf32>)
// CHECK: %[[N:.+]] = webnn.cast %[[NF]] {type = f16}
// CHECK: %[[Y:.+]] = webnn.mul %[[N]], %{{.+}}
// CHECK: return %[[Y]], %[[S]]
// ROUNDTRIP-LABEL: func.func @skip_fp16
// ROUNDTRIP: webnn.rmsNormalization
func.func @skip_fp16() -> (tensor<1x2x8xf16>, tensor<1x2x8xf16>) attributes {webnn.output_names = ["y", "sum"]} {
  %a = webnn.input "a" : tensor<1x2x8xf16>
  %b = webnn.input "b" : tensor<2x8xf16>
  %g = webnn.constant dense<1.5> : tensor<8xf16>
  %bias = webnn.constant dense<0.25> : tensor<8xf16>
  %y, %inv, %sum = webnn.skipRmsNormalization %a, %b, %g bias %bias : (tensor<1x2x8xf16>, tensor<2x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<1x2x8xf16>, tensor<1x2x1xf32>, tensor<1x2x8xf16>)
  return %y, %sum : tensor<1x2x8xf16>, tensor<1x2x8xf16>
}

// -----

// rotaryEmbedding on [B, S, N * D] (numHeads 2, D 4) at positions 5..7 of
// the caches: the rows are a constant gather, the heads split by a reshape,
// x1 * cos - x2 * sin and x2 * cos + x1 * sin concatenated.
// CHECK-LABEL: func.func @rotary_3d
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<1x3x8xf32>
// CHECK-DAG: %[[IDX:.+]] = webnn.constant dense<[5, 6, 7]> : tensor<3xi64>
// CHECK: %[[X4:.+]] = webnn.reshape %[[X]] {newShape = array<i64: 1, 3, 2, 4>}
// CHECK: webnn.gather %{{.+}}, %[[IDX]] {axis = 0 : i64} : (tensor<16x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
// CHECK: webnn.sub
// CHECK: webnn.add
// CHECK: %[[R:.+]] = webnn.concat %{{.+}}, %{{.+}} {axis = 3 : i64} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>) -> tensor<1x3x2x4xf32>
// CHECK: %[[Y:.+]] = webnn.reshape %[[R]] {newShape = array<i64: 1, 3, 8>}
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: return %[[Y]]
func.func @rotary_3d() -> tensor<1x3x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x3x8xf32>
  %pos = webnn.constant dense<5> : tensor<1xi64>
  %cos = webnn.constant dense<[[ 1.        ,  1.        ],
 [ 0.5403023 ,  0.9950042 ],
 [-0.41614684,  0.9800666 ],
 [-0.9899925 ,  0.9553365 ],
 [-0.6536436 ,  0.921061  ],
 [ 0.2836622 ,  0.87758255],
 [ 0.96017027,  0.8253356 ],
 [ 0.75390226,  0.7648422 ],
 [-0.14550003,  0.6967067 ],
 [-0.91113025,  0.62161   ],
 [-0.8390715 ,  0.5403023 ],
 [ 0.0044257 ,  0.45359612],
 [ 0.84385395,  0.36235777],
 [ 0.9074468 ,  0.26749882],
 [ 0.13673721,  0.16996714],
 [-0.7596879 ,  0.0707372 ]]> : tensor<16x2xf32>
  %sin = webnn.constant dense<[[ 0.        ,  0.        ],
 [ 0.84147096,  0.09983341],
 [ 0.9092974 ,  0.19866933],
 [ 0.14112   ,  0.29552022],
 [-0.7568025 ,  0.38941833],
 [-0.9589243 ,  0.47942555],
 [-0.2794155 ,  0.5646425 ],
 [ 0.6569866 ,  0.64421767],
 [ 0.98935825,  0.7173561 ],
 [ 0.4121185 ,  0.7833269 ],
 [-0.5440211 ,  0.84147096],
 [-0.9999902 ,  0.89120734],
 [-0.53657293,  0.9320391 ],
 [ 0.42016703,  0.9635582 ],
 [ 0.9906074 ,  0.98544973],
 [ 0.65028787,  0.997495  ]]> : tensor<16x2xf32>
  %y = webnn.rotaryEmbedding %x, %pos, %cos, %sin {numHeads = 2 : i64} : (tensor<1x3x8xf32>, tensor<1xi64>, tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<1x3x8xf32>
  return %y : tensor<1x3x8xf32>
}

// -----

// Interleaved, [B, N, S, D], run-time positions [B, S]: gathered as they are;
// pairs split by a [.., D/2, 2] reshape.
// CHECK-LABEL: func.func @rotary_interleaved_4d
// CHECK-DAG: %[[P:.+]] = webnn.input "p" : tensor<1x3xi64>
// CHECK: webnn.gather %{{.+}}, %[[P]] {axis = 0 : i64} : (tensor<16x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
// CHECK: webnn.reshape %{{.+}} {newShape = array<i64: 1, 2, 3, 2, 2>}
// CHECK: webnn.concat %{{.+}}, %{{.+}} {axis = 4 : i64}
// CHECK-NOT: webnn.rotaryEmbedding
func.func @rotary_interleaved_4d() -> tensor<1x2x3x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x3x4xf32>
  %p = webnn.input "p" : tensor<1x3xi64>
  %cos = webnn.constant dense<[[ 1.        ,  1.        ],
 [ 0.5403023 ,  0.9950042 ],
 [-0.41614684,  0.9800666 ],
 [-0.9899925 ,  0.9553365 ],
 [-0.6536436 ,  0.921061  ],
 [ 0.2836622 ,  0.87758255],
 [ 0.96017027,  0.8253356 ],
 [ 0.75390226,  0.7648422 ],
 [-0.14550003,  0.6967067 ],
 [-0.91113025,  0.62161   ],
 [-0.8390715 ,  0.5403023 ],
 [ 0.0044257 ,  0.45359612],
 [ 0.84385395,  0.36235777],
 [ 0.9074468 ,  0.26749882],
 [ 0.13673721,  0.16996714],
 [-0.7596879 ,  0.0707372 ]]> : tensor<16x2xf32>
  %sin = webnn.constant dense<[[ 0.        ,  0.        ],
 [ 0.84147096,  0.09983341],
 [ 0.9092974 ,  0.19866933],
 [ 0.14112   ,  0.29552022],
 [-0.7568025 ,  0.38941833],
 [-0.9589243 ,  0.47942555],
 [-0.2794155 ,  0.5646425 ],
 [ 0.6569866 ,  0.64421767],
 [ 0.98935825,  0.7173561 ],
 [ 0.4121185 ,  0.7833269 ],
 [-0.5440211 ,  0.84147096],
 [-0.9999902 ,  0.89120734],
 [-0.53657293,  0.9320391 ],
 [ 0.42016703,  0.9635582 ],
 [ 0.9906074 ,  0.98544973],
 [ 0.65028787,  0.997495  ]]> : tensor<16x2xf32>
  %y = webnn.rotaryEmbedding %x, %p, %cos, %sin {interleaved = true} : (tensor<1x2x3x4xf32>, tensor<1x3xi64>, tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// groupQueryAttention continuing a 2-token past with 3 tokens (seqlensK 4,
// total 5: past 2): heads split, q and k rotated at positions 2..4, the
// present caches are past ++ new keys, the 2 KV heads repeated for 4 query
// heads, a causal [3, 5] mask, softmax, heads merged.
// CHECK-LABEL: func.func @gqa_past_rotary
// CHECK-DAG: %[[PK:.+]] = webnn.input "pk" : tensor<1x2x2x4xf32>
// CHECK-DAG: %[[PV:.+]] = webnn.input "pv" : tensor<1x2x2x4xf32>
// CHECK: %[[PKEY:.+]] = webnn.concat %[[PK]], %{{.+}} {axis = 2 : i64} : (tensor<1x2x2x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x5x4xf32>
// CHECK: %[[PVAL:.+]] = webnn.concat %[[PV]], %{{.+}} {axis = 2 : i64}
// CHECK: webnn.expand %{{.+}} {newShape = array<i64: 1, 2, 2, 5, 4>}
// CHECK: webnn.matmul %{{.+}}, %{{.+}} : (tensor<1x4x3x4xf32>, tensor<1x4x4x5xf32>) -> tensor<1x4x3x5xf32>
// CHECK: webnn.add %{{.+}}, %{{.+}} : (tensor<1x4x3x5xf32>, tensor<3x5xf32>)
// CHECK: webnn.softmax
// CHECK: %[[Y:.+]] = webnn.reshape %{{.+}} {newShape = array<i64: 1, 3, 16>}
// CHECK-NOT: webnn.groupQueryAttention
// CHECK: return %[[Y]], %[[PKEY]], %[[PVAL]]
func.func @gqa_past_rotary() -> (tensor<1x3x16xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>) attributes {webnn.output_names = ["y", "k", "v"]} {
  %q = webnn.input "q" : tensor<1x3x16xf32>
  %k = webnn.input "k" : tensor<1x3x8xf32>
  %v = webnn.input "v" : tensor<1x3x8xf32>
  %pk = webnn.input "pk" : tensor<1x2x2x4xf32>
  %pv = webnn.input "pv" : tensor<1x2x2x4xf32>
  %sl = webnn.constant dense<4> : tensor<1xi32>
  %t = webnn.constant dense<5> : tensor<i32>
  %cos = webnn.constant dense<[[ 1.        ,  1.        ],
 [ 0.5403023 ,  0.9950042 ],
 [-0.41614684,  0.9800666 ],
 [-0.9899925 ,  0.9553365 ],
 [-0.6536436 ,  0.921061  ],
 [ 0.2836622 ,  0.87758255],
 [ 0.96017027,  0.8253356 ],
 [ 0.75390226,  0.7648422 ],
 [-0.14550003,  0.6967067 ],
 [-0.91113025,  0.62161   ],
 [-0.8390715 ,  0.5403023 ],
 [ 0.0044257 ,  0.45359612],
 [ 0.84385395,  0.36235777],
 [ 0.9074468 ,  0.26749882],
 [ 0.13673721,  0.16996714],
 [-0.7596879 ,  0.0707372 ]]> : tensor<16x2xf32>
  %sin = webnn.constant dense<[[ 0.        ,  0.        ],
 [ 0.84147096,  0.09983341],
 [ 0.9092974 ,  0.19866933],
 [ 0.14112   ,  0.29552022],
 [-0.7568025 ,  0.38941833],
 [-0.9589243 ,  0.47942555],
 [-0.2794155 ,  0.5646425 ],
 [ 0.6569866 ,  0.64421767],
 [ 0.98935825,  0.7173561 ],
 [ 0.4121185 ,  0.7833269 ],
 [-0.5440211 ,  0.84147096],
 [-0.9999902 ,  0.89120734],
 [-0.53657293,  0.9320391 ],
 [ 0.42016703,  0.9635582 ],
 [ 0.9906074 ,  0.98544973],
 [ 0.65028787,  0.997495  ]]> : tensor<16x2xf32>
  %y, %pres_k, %pres_v = webnn.groupQueryAttention %q key %k value %v, %pk, %pv, %sl, %t cosCache %cos sinCache %sin {numHeads = 4 : i64, kvNumHeads = 2 : i64, doRotary = true} : (tensor<1x3x16xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1xi32>, tensor<i32>, tensor<16x2xf32>, tensor<16x2xf32>) -> (tensor<1x3x16xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>)
  return %y, %pres_k, %pres_v : tensor<1x3x16xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>
}

// -----

// First prompt into a 4-row cache with a sliding window of 1 and softcap:
// present = new keys ++ a row of zeros; tanh soft-capping; the window in the mask.
// CHECK-LABEL: func.func @gqa_window_softcap
// CHECK: webnn.concat %{{.+}}, %{{.+}} {axis = 2 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: webnn.tanh
// CHECK: webnn.softmax
// CHECK-NOT: webnn.groupQueryAttention
func.func @gqa_window_softcap() -> (tensor<1x3x8xf32>, tensor<1x2x4x4xf32>) attributes {webnn.output_names = ["y", "k"]} {
  %q = webnn.input "q" : tensor<1x3x8xf32>
  %k = webnn.input "k" : tensor<1x3x8xf32>
  %v = webnn.input "v" : tensor<1x3x8xf32>
  %pk = webnn.input "pk" : tensor<1x2x1x4xf32>
  %pv = webnn.input "pv" : tensor<1x2x1x4xf32>
  %sl = webnn.constant dense<2> : tensor<1xi32>
  %t = webnn.constant dense<3> : tensor<i32>
  %y, %pres_k, %pres_v = webnn.groupQueryAttention %q key %k value %v, %pk, %pv, %sl, %t {numHeads = 2 : i64, kvNumHeads = 2 : i64, localWindowSize = 1 : i64, softcap = 2.0 : f64} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x3x8xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
  return %y, %pres_k : tensor<1x3x8xf32>, tensor<1x2x4x4xf32>
}

// -----

// matmulNBits (uint8 zero points packed two per byte) -> uint4 weight and
// zero points unpacked at compile time, dequantizeLinear per block of 16,
// [N, K] -> transpose -> matmul, + bias.
// CHECK-LABEL: func.func @matmul_nbits
// CHECK-DAG: %[[X:.+]] = webnn.input "x" : tensor<2x32xf32>
// CHECK-DAG: %[[Q:.+]] = webnn.constant {{.*}} : tensor<4x2x16xui4>
// CHECK-DAG: %[[Z:.+]] = webnn.constant {{.*}} : tensor<4x2x1xui4>
// CHECK: %[[S:.+]] = webnn.reshape %{{.+}} {newShape = array<i64: 4, 2, 1>}
// CHECK: %[[W:.+]] = webnn.dequantizeLinear %[[Q]], %[[S]], %[[Z]]
// CHECK: %[[W2:.+]] = webnn.reshape %[[W]] {newShape = array<i64: 4, 32>}
// CHECK: %[[WT:.+]] = webnn.transpose %[[W2]] {permutation = array<i64: 1, 0>}
// CHECK: %[[M:.+]] = webnn.matmul %[[X]], %[[WT]]
// CHECK: %[[Y:.+]] = webnn.add %[[M]], %{{.+}}
// CHECK-NOT: webnn.matmulNBits
// CHECK: return %[[Y]]
func.func @matmul_nbits() -> tensor<2x4xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<2x32xf32>
  %w = webnn.constant dense<[[[207,  21,  45,  60,  46, 205, 222, 149],
  [ 10,  24,  85, 110, 159, 122,  67,  40]],

 [[177, 188,   8,  29, 115, 100, 227, 132],
  [107, 110, 170, 150,  44, 188, 193, 244]],

 [[201,  72,  81, 166, 166, 178, 222,  74],
  [240,   0,  19, 249, 241,  76,  35,  80]],

 [[ 11, 228, 169, 149,  62, 120,  48, 197],
  [121,   7,  65, 180, 133,  95,  64,  23]]]> : tensor<4x2x8xui8>
  %s = webnn.constant dense<[[0.03071912, 0.07300902],
 [0.03981631, 0.08417567],
 [0.08221648, 0.03187154],
 [0.09298868, 0.07576522]]> : tensor<4x2xf32>
  %z = webnn.constant dense<[[155],
 [169],
 [133],
 [238]]> : tensor<4x1xui8>
  %b = webnn.constant dense<0.5> : tensor<4xf32>
  %y = webnn.matmulNBits %x, %w, %s zeroPoints %z bias %b {K = 32 : i64, N = 4 : i64, blockSize = 16 : i64} : (tensor<2x32xf32>, tensor<4x2x8xui8>, tensor<4x2xf32>, tensor<4x1xui8>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// No totalSequenceLength: past = seqlensK + 1 - S = 2 of a 3-row cache, so
// present = past[:, :, :2] ++ new ++ one zero row.
// CHECK-LABEL: func.func @gqa_no_total
// CHECK-DAG: %[[PK:.+]] = webnn.input "pk" : tensor<1x2x3x4xf32>
// CHECK: %[[KEPT:.+]] = webnn.slice %[[PK]] {sizes = array<i64: 1, 2, 2, 4>, starts = array<i64: 0, 0, 0, 0>}
// CHECK: %[[PKEY:.+]] = webnn.concat %[[KEPT]], %{{.+}}, %{{.+}} {axis = 2 : i64} : (tensor<1x2x2x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x6x4xf32>
// CHECK-NOT: webnn.groupQueryAttention
// CHECK: return %{{.+}}, %[[PKEY]]
func.func @gqa_no_total() -> (tensor<1x3x8xf32>, tensor<1x2x6x4xf32>) attributes {webnn.output_names = ["y", "k"]} {
  %q = webnn.input "q" : tensor<1x3x8xf32>
  %k = webnn.input "k" : tensor<1x3x8xf32>
  %v = webnn.input "v" : tensor<1x3x8xf32>
  %pk = webnn.input "pk" : tensor<1x2x3x4xf32>
  %pv = webnn.input "pv" : tensor<1x2x3x4xf32>
  %sl = webnn.constant dense<4> : tensor<1xi32>
  %y, %pres_k, %pres_v = webnn.groupQueryAttention %q key %k value %v, %pk, %pv, %sl {numHeads = 2 : i64, kvNumHeads = 2 : i64} : (tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1xi32>) -> (tensor<1x3x8xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>)
  return %y, %pres_k : tensor<1x3x8xf32>, tensor<1x2x6x4xf32>
}

// -----

// groupQueryAttention whose seqlensK and totalSequenceLength are graph
// inputs, as in a decode loop, with two batch entries at different past
// lengths. The past lengths clamp(seqlensK + 1 - S, 0, P), or 0 when
// total == S, are computed in the graph; they pick the rotary rows (gather),
// each present row from the past, the new keys (gatherElements) or zero, and
// a [B, 1, S, T] causal mask. The run-with lines are the values
// check_rewrite_numerics.py compares the kernel and the expansion at: a first
// prompt, then pasts [1, 2] and [3 (clamped), 0].
// run-with sl=[1,1] t=2
// run-with sl=[2,3] t=5
// run-with sl=[4,0] t=3
// CHECK-LABEL: func.func @gqa_runtime_seqlens_batch
// CHECK-DAG: %[[SL:.+]] = webnn.input "sl" : tensor<2xi32>
// CHECK-DAG: %[[T:.+]] = webnn.input "t" : tensor<i32>
// CHECK: webnn.cast %[[SL]]
// CHECK: webnn.equal
// CHECK: webnn.where
// CHECK: webnn.gather %{{.+}}, %{{.+}} {axis = 0 : i64} : (tensor<16x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
// CHECK: webnn.lesser
// CHECK: webnn.gatherElements %{{.+}}, %{{.+}} {axis = 2 : i64} : (tensor<2x2x2x4xf32>, tensor<2x2x5x4xi64>) -> tensor<2x2x5x4xf32>
// CHECK: %[[PKEY:.+]] = webnn.where %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2x1x5x1xui8>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x5x4xf32>
// CHECK: webnn.lesserOrEqual
// CHECK: webnn.softmax
// CHECK-NOT: webnn.groupQueryAttention
// CHECK: return %{{.+}}, %[[PKEY]], %{{.+}}
func.func @gqa_runtime_seqlens_batch() -> (tensor<2x2x16xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) attributes {webnn.output_names = ["y", "k", "v"]} {
  %q = webnn.input "q" : tensor<2x2x16xf32>
  %k = webnn.input "k" : tensor<2x2x8xf32>
  %v = webnn.input "v" : tensor<2x2x8xf32>
  %pk = webnn.input "pk" : tensor<2x2x3x4xf32>
  %pv = webnn.input "pv" : tensor<2x2x3x4xf32>
  %sl = webnn.input "sl" : tensor<2xi32>
  %t = webnn.input "t" : tensor<i32>
  %cos = webnn.constant dense<[[1.0, 1.0], [0.5403023, 0.9950042], [-0.4161468, 0.9800666], [-0.9899925, 0.9553365], [-0.6536436, 0.921061], [0.2836622, 0.8775826], [0.9601703, 0.8253356], [0.7539023, 0.7648422], [-0.1455, 0.6967067], [-0.9111303, 0.62161], [-0.8390715, 0.5403023], [0.004425698, 0.4535961], [0.843854, 0.3623578], [0.9074468, 0.2674988], [0.1367372, 0.1699671], [-0.7596879, 0.0707372]]> : tensor<16x2xf32>
  %sin = webnn.constant dense<[[0.0, 0.0], [0.841471, 0.09983342], [0.9092974, 0.1986693], [0.14112, 0.2955202], [-0.7568025, 0.3894183], [-0.9589243, 0.4794255], [-0.2794155, 0.5646425], [0.6569866, 0.6442177], [0.9893582, 0.7173561], [0.4121185, 0.7833269], [-0.5440211, 0.841471], [-0.9999902, 0.8912074], [-0.5365729, 0.9320391], [0.420167, 0.9635582], [0.9906074, 0.9854497], [0.6502878, 0.997495]]> : tensor<16x2xf32>
  %y, %pres_k, %pres_v = webnn.groupQueryAttention %q key %k value %v, %pk, %pv, %sl, %t cosCache %cos sinCache %sin {numHeads = 4 : i64, kvNumHeads = 2 : i64, doRotary = true} : (tensor<2x2x16xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>, tensor<2x2x3x4xf32>, tensor<2x2x3x4xf32>, tensor<2xi32>, tensor<i32>, tensor<16x2xf32>, tensor<16x2xf32>) -> (tensor<2x2x16xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>)
  return %y, %pres_k, %pres_v : tensor<2x2x16xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>
}

// -----

// Run-time seqlensK, packed QKV, no totalSequenceLength, a local window of
// one key back: the window joins the mask (greaterOrEqual, logicalAnd).
// run-with sl=[2,4]
// run-with sl=[0,1]
// CHECK-LABEL: func.func @gqa_runtime_seqlens_window
// CHECK: webnn.greaterOrEqual
// CHECK: webnn.logicalAnd
// CHECK-NOT: webnn.groupQueryAttention
func.func @gqa_runtime_seqlens_window() -> (tensor<2x1x8xf32>, tensor<2x1x5x4xf32>) attributes {webnn.output_names = ["y", "k"]} {
  %qkv = webnn.input "qkv" : tensor<2x1x16xf32>
  %pk = webnn.input "pk" : tensor<2x1x4x4xf32>
  %pv = webnn.input "pv" : tensor<2x1x4x4xf32>
  %sl = webnn.input "sl" : tensor<2xi32>
  %y, %pres_k, %pres_v = webnn.groupQueryAttention %qkv, %pk, %pv, %sl {numHeads = 2 : i64, kvNumHeads = 1 : i64, localWindowSize = 1 : i64} : (tensor<2x1x16xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2xi32>) -> (tensor<2x1x8xf32>, tensor<2x1x5x4xf32>, tensor<2x1x5x4xf32>)
  return %y, %pres_k : tensor<2x1x8xf32>, tensor<2x1x5x4xf32>
}

// -----

// numHeads = 0 on a 3-D input passes the verifier as "absent" (head size
// 2 * cosCache.shape[1], ORT's rule): expanded with 4-wide heads.
// CHECK-LABEL: func.func @rotary_num_heads_zero
// CHECK-NOT: webnn.rotaryEmbedding
// CHECK: webnn.reshape %{{.+}} {newShape = array<i64: 1, 2, 2, 4>}
// CHECK: return
func.func @rotary_num_heads_zero() -> tensor<1x2x8xf32> attributes {webnn.output_names = ["y"]} {
  %x = webnn.input "x" : tensor<1x2x8xf32>
  %pos = webnn.constant dense<0> : tensor<1xi64>
  %cos = webnn.constant dense<0.5> : tensor<4x2xf32>
  %sin = webnn.constant dense<0.25> : tensor<4x2xf32>
  %y = webnn.rotaryEmbedding %x, %pos, %cos, %sin {numHeads = 0 : i64} : (tensor<1x2x8xf32>, tensor<1xi64>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<1x2x8xf32>
  return %y : tensor<1x2x8xf32>
}
