// RUN: webnn-opt %s -split-input-file -verify-diagnostics
// Verifier errors of the decoder-LLM ops (docs/LLM.md).

func.func @nbits_weight_shape(%a: tensor<1x64xf32>, %w: tensor<8x2x8xui8>, %s: tensor<8x2xf32>) {
  // expected-error @+2 {{'webnn.matmulNBits' op expected operand 'weight' of shape [8, 2, 16] (N, ceil(K / blockSize), blockSize * bits / 8) but got [8, 2, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmulNBits %a, %w, %s {K = 64 : i64, N = 8 : i64, blockSize = 32 : i64} : (tensor<1x64xf32>, tensor<8x2x8xui8>, tensor<8x2xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @nbits_block_size(%a: tensor<1x64xf32>, %w: tensor<8x2x12xui8>, %s: tensor<8x2xf32>) {
  // expected-error @+2 {{'webnn.matmulNBits' op expected blockSize a power of 2 >= 16 but got 24}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmulNBits %a, %w, %s {K = 64 : i64, N = 8 : i64, blockSize = 24 : i64} : (tensor<1x64xf32>, tensor<8x2x12xui8>, tensor<8x2xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @nbits_k(%a: tensor<1x48xf32>, %w: tensor<8x2x16xui8>, %s: tensor<8x2xf32>) {
  // expected-error @+2 {{'webnn.matmulNBits' op expected operand 'input' with last dimension K = 64 but got shape [1, 48]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmulNBits %a, %w, %s {K = 64 : i64, N = 8 : i64, blockSize = 32 : i64} : (tensor<1x48xf32>, tensor<8x2x16xui8>, tensor<8x2xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @nbits_zero_points(%a: tensor<1x64xf32>, %w: tensor<8x2x16xui8>, %s: tensor<8x2xf32>, %zp: tensor<8x2xui8>) {
  // expected-error @+2 {{'webnn.matmulNBits' op expected operand 'zeroPoints' with 8 elements but got shape [8, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.matmulNBits %a, %w, %s zeroPoints %zp {K = 64 : i64, N = 8 : i64, blockSize = 32 : i64} : (tensor<1x64xf32>, tensor<8x2x16xui8>, tensor<8x2xf32>, tensor<8x2xui8>) -> tensor<1x8xf32>
  return
}

// -----

func.func @rms_scale(%x: tensor<2x3x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'webnn.rmsNormalization' op expected operand 'scale' of shape [8] (input.shape[axis:]) but got [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = webnn.rmsNormalization %x, %g : (tensor<2x3x8xf32>, tensor<4xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x1xf32>)
  return
}

// -----

func.func @skip_rms_skip(%x: tensor<2x3x8xf32>, %s: tensor<2x1x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{'webnn.skipRmsNormalization' op expected operand 'skip' with the input's trailing dimensions [2, 3, 8] but got [2, 1, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = webnn.skipRmsNormalization %x, %s, %g : (tensor<2x3x8xf32>, tensor<2x1x8xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x1xf32>, tensor<2x3x8xf32>)
  return
}

// -----

func.func @rotary_cache(%x: tensor<1x5x64xf32>, %pos: tensor<1x5xi64>, %c: tensor<32x8xf32>, %s: tensor<32x4xf32>) {
  // expected-error @+2 {{'webnn.rotaryEmbedding' op expected operands 'cosCache' and 'sinCache' of one 2-D shape [maxSeq, rotaryDim / 2] but got [32, 8] and [32, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.rotaryEmbedding %x, %pos, %c, %s {numHeads = 4 : i64} : (tensor<1x5x64xf32>, tensor<1x5xi64>, tensor<32x8xf32>, tensor<32x4xf32>) -> tensor<1x5x64xf32>
  return
}

// -----

func.func @rotary_positions(%x: tensor<1x5x64xf32>, %pos: tensor<1x4xi64>, %c: tensor<32x8xf32>) {
  // expected-error @+2 {{'webnn.rotaryEmbedding' op expected operand 'positionIds' of shape [1] or [1, 5] but got [1, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = webnn.rotaryEmbedding %x, %pos, %c, %c {numHeads = 4 : i64} : (tensor<1x5x64xf32>, tensor<1x4xi64>, tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<1x5x64xf32>
  return
}

// -----

func.func @gqa_heads(%q: tensor<1x5x64xf32>, %kv: tensor<1x5x48xf32>, %past: tensor<1x3x7x16xf32>, %sl: tensor<1xi32>, %t: tensor<i32>) {
  // expected-error @+2 {{'webnn.groupQueryAttention' op expected numHeads a positive multiple of kvNumHeads but got 4 and 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = webnn.groupQueryAttention %q key %kv value %kv, %past, %past, %sl, %t {numHeads = 4 : i64, kvNumHeads = 3 : i64} : (tensor<1x5x64xf32>, tensor<1x5x48xf32>, tensor<1x5x48xf32>, tensor<1x3x7x16xf32>, tensor<1x3x7x16xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x5x64xf32>, tensor<1x3x12x16xf32>, tensor<1x3x12x16xf32>)
  return
}

// -----

func.func @gqa_past_shape(%q: tensor<1x5x64xf32>, %kv: tensor<1x5x32xf32>, %past: tensor<1x2x7x8xf32>, %sl: tensor<1xi32>, %t: tensor<i32>) {
  // expected-error @+2 {{'webnn.groupQueryAttention' op expected operands 'pastKey' and 'pastValue' of one shape [1, 2, P, 16] (BNSH) but got [1, 2, 7, 8] and [1, 2, 7, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = webnn.groupQueryAttention %q key %kv value %kv, %past, %past, %sl, %t {numHeads = 4 : i64, kvNumHeads = 2 : i64} : (tensor<1x5x64xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x5x64xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>)
  return
}

// -----

func.func @gqa_rotary_needs_caches(%q: tensor<1x5x64xf32>, %kv: tensor<1x5x32xf32>, %past: tensor<1x2x7x16xf32>, %sl: tensor<1xi32>, %t: tensor<i32>) {
  // expected-error @+2 {{'webnn.groupQueryAttention' op doRotary needs cosCache and sinCache}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = webnn.groupQueryAttention %q key %kv value %kv, %past, %past, %sl, %t {numHeads = 4 : i64, kvNumHeads = 2 : i64, doRotary = true} : (tensor<1x5x64xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32>, tensor<1xi32>, tensor<i32>) -> (tensor<1x5x64xf32>, tensor<1x2x12x16xf32>, tensor<1x2x12x16xf32>)
  return
}
