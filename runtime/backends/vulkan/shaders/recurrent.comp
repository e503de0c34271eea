// gru, gruCell, lstm and lstmCell (kernels/Recurrent.cpp): one workgroup per
// (direction, batch row) walks every step of its sequence, since step t
// needs all of step t-1's hidden state and workgroups cannot wait for each
// other inside a dispatch. The row's hidden state (and the LSTM cell state)
// lives in shared memory; each invocation owns hidden units lane, lane + 64,
// ... and forms their gates' dot products with the step's input row and the
// previous hidden state. A cell is the one-step, one-direction case.
//
// Gate rows: logical gate k reads rows GATEk * hidden .. of weight,
// recurrentWeight and the biases (GRU: z, r, n; LSTM: i, o, f, g), so both
// layouts of each op run the same code. Peephole weights are (i, o, f)
// whatever the layout and multiply the incoming cell state (WebNN's
// lstmCell). Arithmetic is float32; float16 tensors are widened on load and
// rounded once on store.
#version 450
#include "common.glsl"

layout(constant_id = 1) const int DT = DT_F32;
layout(constant_id = 2) const bool LSTM = false;
layout(constant_id = 3) const uint GATE0 = 0;
layout(constant_id = 4) const uint GATE1 = 1;
layout(constant_id = 5) const uint GATE2 = 2;
layout(constant_id = 6) const uint GATE3 = 3;
// 0 relu, 1 sigmoid, 2 tanh: GRU (gate, candidate), LSTM (gate, cell, output).
layout(constant_id = 7) const int ACT0 = 1;
layout(constant_id = 8) const int ACT1 = 2;
layout(constant_id = 9) const int ACT2 = 2;
layout(constant_id = 10) const bool RESET_AFTER = true;
layout(constant_id = 11) const bool HAS_BIAS = false;
layout(constant_id = 12) const bool HAS_RBIAS = false;
layout(constant_id = 13) const bool HAS_PEEPHOLE = false;
layout(constant_id = 14) const bool HAS_H0 = false;
layout(constant_id = 15) const bool HAS_C0 = false;
layout(constant_id = 16) const bool RETURN_SEQUENCE = false;
layout(constant_id = 17) const bool BACKWARD_ONLY = false;
// 4 * hidden words (GRU: h, next h, z, r * h; LSTM: h, next h, c).
layout(constant_id = 18) const uint STATE_WORDS = 4;

TENSOR_IN(0, X, DT)
TENSOR_IN(1, W, DT)
TENSOR_IN(2, R, DT)
TENSOR_IN(3, Bias, DT)
TENSOR_IN(4, RBias, DT)
TENSOR_IN(5, Peep, DT)
TENSOR_IN(6, H0, DT)
TENSOR_IN(7, C0, DT)
TENSOR_OUT(8, OutH, DT)
TENSOR_OUT(9, OutC, DT)
TENSOR_OUT(10, Seq, DT)

layout(push_constant) uniform Params {
  uint steps, batch, inputSize, hidden, dirs;
} p;

shared float state[STATE_WORDS];

float activate(int a, float x) {
  if (a == 0) return max(x, 0.0);
  if (a == 1) return 1.0 / (1.0 + exp(-x));
  // GLSL's tanh may overflow exp() for large |x| on some drivers.
  return abs(x) > 15.0 ? sign(x) : tanh(x);
}

uint gateRow(uint k) { return k == 0u ? GATE0 : k == 1u ? GATE1 : k == 2u ? GATE2 : GATE3; }

// x_t . W[gate row j] + bias, of direction d.
float inputDot(uint d, uint gates, uint k, uint j, uint xBase) {
  uint row = d * gates * p.hidden + gateRow(k) * p.hidden + j;
  uint w = row * p.inputSize;
  float s = 0.0;
  for (uint i = 0; i < p.inputSize; ++i) s += X_loadf(xBase + i) * W_loadf(w + i);
  if (HAS_BIAS) s += Bias_loadf(row);
  return s;
}

// v . R[gate row j] (+ recurrentBias), v in shared memory from word `v`.
float recurrentDot(uint d, uint gates, uint k, uint j, uint v, bool bias) {
  uint row = d * gates * p.hidden + gateRow(k) * p.hidden + j;
  uint r = row * p.hidden;
  float s = 0.0;
  for (uint i = 0; i < p.hidden; ++i) s += state[v + i] * R_loadf(r + i);
  if (HAS_RBIAS && bias) s += RBias_loadf(row);
  return s;
}

void main() {
  // Uniform per workgroup: the early return never splits a barrier.
  uint group = flatIndex() / gl_WorkGroupSize.x;
  if (group >= p.dirs * p.batch) return;
  uint lane = gl_LocalInvocationID.x;
  uint d = group / p.batch, b = group % p.batch;
  uint H = p.hidden, gates = LSTM ? 4u : 3u;
  bool backward = BACKWARD_ONLY || d == 1u;
  // Shared words: h at 0, the next h at H, then z / c at 2H, r * h at 3H.
  uint stateBase = (d * p.batch + b) * H;
  for (uint j = lane; j < H; j += gl_WorkGroupSize.x) {
    state[j] = HAS_H0 ? H0_loadf(stateBase + j) : 0.0;
    if (LSTM) state[2u * H + j] = HAS_C0 ? C0_loadf(stateBase + j) : 0.0;
  }
  barrier();
  for (uint t = 0; t < p.steps; ++t) {
    uint step = backward ? p.steps - 1u - t : t;
    uint xBase = (step * p.batch + b) * p.inputSize;
    if (LSTM) {
      for (uint j = lane; j < H; j += gl_WorkGroupSize.x) {
        float c = state[2u * H + j];
        float pi = 0.0, po = 0.0, pf = 0.0;
        if (HAS_PEEPHOLE) {
          uint pb = d * 3u * H + j;
          pi = Peep_loadf(pb) * c;
          po = Peep_loadf(pb + H) * c;
          pf = Peep_loadf(pb + 2u * H) * c;
        }
        float it = activate(ACT0, inputDot(d, gates, 0u, j, xBase) + recurrentDot(d, gates, 0u, j, 0u, true) + pi);
        float ot = activate(ACT0, inputDot(d, gates, 1u, j, xBase) + recurrentDot(d, gates, 1u, j, 0u, true) + po);
        float ft = activate(ACT0, inputDot(d, gates, 2u, j, xBase) + recurrentDot(d, gates, 2u, j, 0u, true) + pf);
        float gt = activate(ACT1, inputDot(d, gates, 3u, j, xBase) + recurrentDot(d, gates, 3u, j, 0u, true));
        float next = ft * c + it * gt;
        // Only this invocation reads c[j]: updated in place.
        state[2u * H + j] = next;
        state[H + j] = ot * activate(ACT2, next);
      }
    } else {
      for (uint j = lane; j < H; j += gl_WorkGroupSize.x) {
        float z = activate(ACT0, inputDot(d, gates, 0u, j, xBase) + recurrentDot(d, gates, 0u, j, 0u, true));
        float r = activate(ACT0, inputDot(d, gates, 1u, j, xBase) + recurrentDot(d, gates, 1u, j, 0u, true));
        if (RESET_AFTER) {
          float n = activate(ACT1, inputDot(d, gates, 2u, j, xBase) + r * recurrentDot(d, gates, 2u, j, 0u, true));
          state[H + j] = z * state[j] + (1.0 - z) * n;
        } else {
          state[2u * H + j] = z;
          state[3u * H + j] = r * state[j];
        }
      }
      if (!RESET_AFTER) {
        // The candidate's recurrent product needs every unit's r * h.
        barrier();
        for (uint j = lane; j < H; j += gl_WorkGroupSize.x) {
          float n = activate(ACT1, inputDot(d, gates, 2u, j, xBase) + recurrentDot(d, gates, 2u, j, 3u * H, true));
          float z = state[2u * H + j];
          state[H + j] = z * state[j] + (1.0 - z) * n;
        }
      }
    }
    // Everyone has read h before it is replaced.
    barrier();
    uint seqBase = ((step * p.dirs + d) * p.batch + b) * H;
    for (uint j = lane; j < H; j += gl_WorkGroupSize.x) {
      float h = state[H + j];
      state[j] = h;
      if (RETURN_SEQUENCE) Seq_storef(seqBase + j, h);
    }
    barrier();
  }
  for (uint j = lane; j < H; j += gl_WorkGroupSize.x) {
    OutH_storef(stateBase + j, state[j]);
    if (LSTM) OutC_storef(stateBase + j, state[2u * H + j]);
  }
}
