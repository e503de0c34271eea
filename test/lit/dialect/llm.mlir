// RUN: webnn-opt %s -split-input-file | FileCheck %s
// The decoder-LLM ops beyond the spec (docs/LLM.md): round trips with their
// inferred result types.

// CHECK-LABEL: func @matmul_nbits
func.func @matmul_nbits(%a: tensor<1x3x64xf32>, %w: tensor<8x2x16xui8>, %s: tensor<8x2xf32>,
                        %zp: tensor<8x1xui8>, %b: tensor<8xf32>, %sf: tensor<16xf32>) {
  // CHECK: webnn.matmulNBits %{{.*}}, %{{.*}}, %{{.*}} zeroPoints %{{.*}} bias %{{.*}} {K = 64 : i64, N = 8 : i64, accuracyLevel = 4 : i64, bits = 4 : i64, blockSize = 32 : i64} : (tensor<1x3x64xf32>, tensor<8x2x16xui8>, tensor<8x2xf32>, tensor<8x1xui8>, tensor<8xf32>) -> tensor<1x3x8xf32>
  %0 = webnn.matmulNBits %a, %w, %s zeroPoints %zp bias %b {K = 64 : i64, N = 8 : i64, blockSize = 32 : i64, bits = 4 : i64, accuracyLevel = 4 : i64} : (tensor<1x3x64xf32>, tensor<8x2x16xui8>, tensor<8x2xf32>, tensor<8x1xui8>, tensor<8xf32>) -> tensor<1x3x8xf32>
  // Flat scales, no zero points (2^(bits-1)), bias only.
  // CHECK: webnn.matmulNBits %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} {K = 64 : i64, N = 8 : i64, blockSize = 32 : i64}
  %1 = webnn.matmulNBits %a, %w, %sf bias %b {K = 64 : i64, N = 8 : i64, blockSize = 32 : i64} : (tensor<1x3x64xf32>, tensor<8x2x16xui8>, tensor<16xf32>, tensor<8xf32>) -> tensor<1x3x8xf32>
  return
}

// -----

// CHECK-LABEL: func @rms_norms
func.func @rms_norms(%x: tensor<2x3x8xf16>, %g: tensor<8xf16>, %g2: tensor<3x8xf16>, %skip: tensor<3x8xf16>) {
  // CHECK: webnn.rmsNormalization %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x3x8xf16>, tensor<8xf16>) -> (tensor<2x3x8xf16>, tensor<2x3x1xf32>)
  %0:2 = webnn.rmsNormalization %x, %g {axis = 2 : i64, epsilon = 1.0e-6 : f64} : (tensor<2x3x8xf16>, tensor<8xf16>) -> (tensor<2x3x8xf16>, tensor<2x3x1xf32>)
  // CHECK: webnn.rmsNormalization %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x8xf16>, tensor<3x8xf16>) -> (tensor<2x3x8xf16>, tensor<2x1x1xf32>)
  %1:2 = webnn.rmsNormalization %x, %g2 {axis = 1 : i64} : (tensor<2x3x8xf16>, tensor<3x8xf16>) -> (tensor<2x3x8xf16>, tensor<2x1x1xf32>)
  // CHECK: webnn.skipRmsNormalization %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<2x3x8xf16>, tensor<3x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<2x3x8xf16>, tensor<2x3x1xf32>, tensor<2x3x8xf16>)
  %2:3 = webnn.skipRmsNormalization %x, %skip, %g bias %g : (tensor<2x3x8xf16>, tensor<3x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<2x3x8xf16>, tensor<2x3x1xf32>, tensor<2x3x8xf16>)
  return
}

// -----

// CHECK-LABEL: func @rotary
func.func @rotary(%x: tensor<1x5x64xf32>, %x4: tensor<1x4x5x16xf32>, %pos: tensor<1x5xi64>,
                  %p1: tensor<1xi64>, %c: tensor<32x8xf32>, %c4: tensor<32x4xf32>) {
  // CHECK: webnn.rotaryEmbedding %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {numHeads = 4 : i64} : (tensor<1x5x64xf32>, tensor<1x5xi64>, tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<1x5x64xf32>
  %0 = webnn.rotaryEmbedding %x, %pos, %c, %c {numHeads = 4 : i64} : (tensor<1x5x64xf32>, tensor<1x5xi64>, tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<1x5x64xf32>
  // Partial rotation (8 of 16 features), interleaved pairs, one start position.
  // CHECK: webnn.rotaryEmbedding %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {interleaved = true, rotaryEmbeddingDim = 8 : i64} : (tensor<1x4x5x16xf32>, tensor<1xi64>, tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<1x4x5x16xf32>
  %1 = webnn.rotaryEmbedding %x4, %p1, %c4, %c4 {interleaved = true, rotaryEmbeddingDim = 8 : i64} : (tensor<1x4x5x16xf32>, tensor<1xi64>, tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<1x4x5x16xf32>
  return
}

// -----

// CHECK-LABEL: func @gqa
func.func @gqa(%q: tensor<1x5x64xf32>, %kv: tensor<1x5x32xf32>, %past: tensor<1x2x7x16xf32>,
               %qkv: tensor<1x5x128xf32>, %sl: tensor<1xi32>, %t: tensor<i32>, %c: tensor<64x8xf32>) {
  // CHECK: webnn.groupQueryAttention %{{.*}} key %{{.*}} value %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} cosCache %{{.*}} sinCache %{{.*}} {doRotary = true, kvNumHeads = 2 : i64, numHeads = 4 : i64} : {{.*}} -> (tensor<1x5x64xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>)
  %0:3 = webnn.groupQueryAttention %q key %kv value %kv, %past, %past, %sl, %t cosCache %c sinCache %c {numHeads = 4 : i64, kvNumHeads = 2 : i64, doRotary = true} : (tensor<1x5x64xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32>, tensor<1xi32>, tensor<i32>, tensor<64x8xf32>, tensor<64x8xf32>) -> (tensor<1x5x64xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>)
  // Packed QKV: head size 128 / (4 + 2 * 2) = 16.
  // CHECK: webnn.groupQueryAttention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {kvNumHeads = 2 : i64, localWindowSize = 3 : i64, numHeads = 4 : i64, softcap = 5.000000e+01 : f64} : {{.*}} -> (tensor<1x5x64xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>)
  %1:3 = webnn.groupQueryAttention %qkv, %past, %past, %sl, %t {numHeads = 4 : i64, kvNumHeads = 2 : i64, localWindowSize = 3 : i64, softcap = 50.0 : f64} : (tensor<1x5x128xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x5x64xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>)
  return
}
