// matmul.comp's GEMM on tensor cores through VK_NV_cooperative_matrix, for
// relaxed-precision nodes only (operands rounded to float16, products
// accumulated in float32): C = act(alpha * op(A) * op(B) + beta * bias +
// residual), batch dims broadcast through per-operand batch strides.
//
// A workgroup is SG_M x SG_N subgroups; each subgroup owns WM x WN
// accumulator tiles of 16 x 16, so the workgroup computes a block of
// (SG_M * WM * 16) x (SG_N * WN * 16). Per step of BK along K the whole
// workgroup stages A's block [BM][BK] and B's block [BK][BN] in shared
// memory as float16 (A rounded from its storage type on load, B read as
// stored: float16 for a relaxed constant weight), zero-filled past M, N and
// K, so every shape is correct without guarding the matrix operations. The
// accumulators leave through a per-subgroup 16 x 16 float32 scratch tile in
// shared memory, from which each lane writes its elements with the epilogue
// and bounds checks.
//
// Where A is read along K and B along N in 4-element vectors (neither
// transposed, K and N multiples of 4), each invocation holds its share of
// the next step's blocks in registers while the subgroups multiply the
// current one, so global-memory latency overlaps the matrix operations;
// other shapes stage element by element, one step at a time. The fragment
// loops are unrolled in the SPIR-V so the accumulators stay in registers.
//
// Specialization constants keep matmul.comp's ids 1..10 (the kernel
// factory fills them the same way); TILE (id 2) is unused, TM / TN (ids 8,
// 9) are SG_M / SG_N here, and id 11 is the subgroup size. The workgroup
// size (id 0) must be SG_M * SG_N * SUBGROUP, with SUBGROUP >= 32 (so each
// invocation's share of a block is at most MAX_VECS vectors).
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const int TILE = 16;
layout(constant_id = 3) const bool A_TRANSPOSED = false;  // A stored [K, M]
layout(constant_id = 4) const bool B_TRANSPOSED = false;  // B stored [N, K]
layout(constant_id = 5) const bool HAS_BIAS = false;
layout(constant_id = 6) const bool HAS_RESIDUAL = false;
layout(constant_id = 7) const int ACT = 0;  // fusedMatmul: 0 none, 1 relu, 2 gelu
layout(constant_id = 8) const uint SG_M = 2;  // subgroups along M
layout(constant_id = 9) const uint SG_N = 2;  // subgroups along N
layout(constant_id = 10) const int B_DT = DT_F32;
layout(constant_id = 11) const uint SUBGROUP = 32;

TENSOR_IN(0, A, DT)
TENSOR_IN(1, B, B_DT)
TENSOR_OUT(2, C, DT)
TENSOR_IN(3, Bias, DT)
TENSOR_IN(4, Residual, DT)
// 4-element views of A and B for the vector loads (offsets of bindings are
// multiples of 64 bytes, and the loads' element offsets multiples of 4).
layout(set = 0, binding = 0) readonly buffer AV4F32 { vec4 A_v4f32[]; };
layout(set = 0, binding = 0) readonly buffer AV4F16 { f16vec4 A_v4f16[]; };
layout(set = 0, binding = 1) readonly buffer BV4F32 { vec4 B_v4f32[]; };
layout(set = 0, binding = 1) readonly buffer BV4F16 { f16vec4 B_v4f16[]; };

layout(push_constant) uniform Params {
  uint M, N, K;
  uint batchDims[4];
  uint aBatchStride[4];
  uint bBatchStride[4];
  float alpha, beta;
  uint biasRowStride, biasColStride;
} p;

// Accumulator tiles per subgroup and the K step: compile-time, so the
// fragment arrays have constant sizes.
const uint WM = 2, WN = 2;
const uint BK = 32;
const uint BM = SG_M * WM * 16, BN = SG_N * WN * 16;
const uint THREADS = SG_M * SG_N * SUBGROUP;
// Row strides of the staged blocks, padded by 8 halves: multiples of 16
// bytes (the alignment cooperative-matrix loads need) that spread rows over
// shared-memory banks.
const uint A_STRIDE = BK + 8, B_STRIDE = BN + 8;
// Vector loads: A's block is BM x BK/4 vectors, B's BK x BN/4; each
// invocation takes every THREADS-th (at most MAX_VECS of each).
const uint MAX_VECS = 8;
const uint A_VEC_TOTAL = BM * (BK / 4), B_VEC_TOTAL = BK * (BN / 4);
const uint A_VECS = (A_VEC_TOTAL + THREADS - 1) / THREADS;
const uint B_VECS = (B_VEC_TOTAL + THREADS - 1) / THREADS;

shared float16_t tileA[BM * A_STRIDE];  // [row][k]
shared float16_t tileB[BK * B_STRIDE];  // [k][column]
shared float scratch[SG_M * SG_N * 256];  // one 16 x 16 tile per subgroup

#define FRAG16 fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FRAG32 fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

FRAG32 acc[WM * WN];
uint tid, sgRow, sgCol, rowBase, colBase, aBase, bBase;
vec4 pa[MAX_VECS], pb[MAX_VECS];  // the next step's vectors, in registers

// Multiplies the staged blocks into the accumulators.
void multiplyStaged() {
  [[unroll]] for (uint kk = 0; kk < BK; kk += 16) {
    FRAG16 a[WM], b[WN];
    [[unroll]] for (uint i = 0; i < WM; ++i)
      coopMatLoadNV(a[i], tileA, (sgRow * WM * 16 + i * 16) * A_STRIDE + kk, A_STRIDE, false);
    [[unroll]] for (uint j = 0; j < WN; ++j)
      coopMatLoadNV(b[j], tileB, kk * B_STRIDE + sgCol * WN * 16 + j * 16, B_STRIDE, false);
    [[unroll]] for (uint i = 0; i < WM; ++i)
      [[unroll]] for (uint j = 0; j < WN; ++j) acc[i * WN + j] = coopMatMulAddNV(a[i], b[j], acc[i * WN + j]);
  }
}

// The vectors of step k0 into pa / pb (zero past M, N and K; K and N are
// multiples of 4, so a vector is wholly inside or wholly outside).
void loadVectors(uint k0) {
  [[unroll]] for (uint v = 0; v < MAX_VECS; ++v) {
    uint e = tid + v * THREADS;
    if (v < A_VECS && e < A_VEC_TOTAL) {
      uint r = e / (BK / 4), k = (e % (BK / 4)) * 4;
      uint ar = rowBase + r, ak = k0 + k;
      vec4 x = vec4(0.0);
      if (ar < p.M && ak < p.K) {
        uint i = (aBase + ar * p.K + ak) / 4;
        x = DT == DT_F16 ? vec4(A_v4f16[i]) : A_v4f32[i];
      }
      pa[v] = x;
    }
    if (v < B_VECS && e < B_VEC_TOTAL) {
      uint k = e / (BN / 4), c = (e % (BN / 4)) * 4;
      uint bk = k0 + k, bc = colBase + c;
      vec4 x = vec4(0.0);
      if (bk < p.K && bc < p.N) {
        uint i = (bBase + bk * p.N + bc) / 4;
        x = B_DT == DT_F16 ? vec4(B_v4f16[i]) : B_v4f32[i];
      }
      pb[v] = x;
    }
  }
}

// pa / pb into the shared blocks as float16.
void storeVectors() {
  [[unroll]] for (uint v = 0; v < MAX_VECS; ++v) {
    uint e = tid + v * THREADS;
    if (v < A_VECS && e < A_VEC_TOTAL) {
      uint base = (e / (BK / 4)) * A_STRIDE + (e % (BK / 4)) * 4;
      [[unroll]] for (uint c = 0; c < 4; ++c) tileA[base + c] = float16_t(pa[v][c]);
    }
    if (v < B_VECS && e < B_VEC_TOTAL) {
      uint base = (e / (BN / 4)) * B_STRIDE + (e % (BN / 4)) * 4;
      [[unroll]] for (uint c = 0; c < 4; ++c) tileB[base + c] = float16_t(pb[v][c]);
    }
  }
}

// Step k0's blocks element by element (transposed or unaligned operands).
void stageScalars(uint k0) {
  // Consecutive invocations read consecutive k of A (and columns of B):
  // coalesced for untransposed operands.
  for (uint e = tid; e < BM * BK; e += THREADS) {
    uint r = e / BK, k = e % BK;
    uint ar = rowBase + r, ak = k0 + k;
    float v = 0.0;
    if (ar < p.M && ak < p.K) v = A_loadf(aBase + (A_TRANSPOSED ? ak * p.M + ar : ar * p.K + ak));
    tileA[r * A_STRIDE + k] = float16_t(v);
  }
  for (uint e = tid; e < BK * BN; e += THREADS) {
    uint k = e / BN, c = e % BN;
    uint bk = k0 + k, bc = colBase + c;
    float16_t v = float16_t(0.0);
    if (bk < p.K && bc < p.N) {
      uint i = bBase + (B_TRANSPOSED ? bc * p.K + bk : bk * p.N + bc);
      v = B_DT == DT_F16 ? B_f16[i] : float16_t(B_loadf(i));
    }
    tileB[k * B_STRIDE + c] = v;
  }
}

void main() {
  tid = gl_LocalInvocationIndex;
  const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  sgRow = sg / SG_N;
  sgCol = sg % SG_N;
  rowBase = gl_WorkGroupID.y * BM;
  colBase = gl_WorkGroupID.x * BN;
  uint batch = gl_WorkGroupID.z, rest = batch;
  aBase = 0;
  bBase = 0;
  for (int d = 3; d >= 0; --d) {
    uint idx = rest % p.batchDims[d];
    rest /= p.batchDims[d];
    aBase += idx * p.aBatchStride[d];
    bBase += idx * p.bBatchStride[d];
  }

  [[unroll]] for (uint t = 0; t < WM * WN; ++t) acc[t] = FRAG32(0.0);

  const bool vectors = !A_TRANSPOSED && !B_TRANSPOSED && (DT == DT_F32 || DT == DT_F16) &&
                       (B_DT == DT_F32 || B_DT == DT_F16) && p.K % 4 == 0 && p.N % 4 == 0;
  if (vectors) {
    loadVectors(0);
    for (uint k0 = 0; k0 < p.K; k0 += BK) {
      storeVectors();
      barrier();
      // The next step's loads are in flight while this one multiplies.
      if (k0 + BK < p.K) loadVectors(k0 + BK);
      multiplyStaged();
      barrier();
    }
  } else {
    for (uint k0 = 0; k0 < p.K; k0 += BK) {
      stageScalars(k0);
      barrier();
      multiplyStaged();
      barrier();
    }
  }

  // Epilogue, one accumulator tile at a time through this subgroup's scratch.
  const uint scratchBase = sg * 256;
  [[unroll]] for (uint i = 0; i < WM; ++i) {
    [[unroll]] for (uint j = 0; j < WN; ++j) {
      coopMatStoreNV(acc[i * WN + j], scratch, scratchBase, 16, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      uint tileRow = rowBase + sgRow * WM * 16 + i * 16, tileCol = colBase + sgCol * WN * 16 + j * 16;
      for (uint e = lane; e < 256; e += SUBGROUP) {
        uint row = tileRow + e / 16, col = tileCol + e % 16;
        if (row >= p.M || col >= p.N) continue;
        float r = p.alpha * scratch[scratchBase + e];
        if (HAS_BIAS) r += p.beta * Bias_loadf(row * p.biasRowStride + col * p.biasColStride);
        uint dst = (batch * p.M + row) * p.N + col;
        if (HAS_RESIDUAL) r += Residual_loadf(dst);
        if (ACT == 1) r = max(r, 0.0);
        if (ACT == 2) r = 0.5 * r * (1.0 + erfApprox(r * 0.70710678118654752));
        C_storef(dst, r);
      }
      // The next tile's store overwrites the scratch the lanes just read.
      subgroupMemoryBarrierShared();
      subgroupBarrier();
    }
  }
}
