// gru, gruCell, lstm, lstmCell (WebNN spec sections of the same names).
//
// The cells compute the input and recurrent projections of all gates at once
// with sgemm (x * W^T is [batch, gates * hiddenSize]), then the gate math
// element by element. The sequence ops are checked here and run as one kernel
// per node (RecurrentLayer.h: LstmLayer.cpp, GruLayer.cpp); a backward pass
// reads input step steps-1-t and stores its hidden state at that same time
// index of the returned sequence (as the spec's emulation does). float16 runs
// through the float32 kernels via the shared adapter.
//
// The LSTM output gate's peephole multiplies the incoming cell state, as in
// the spec's lstmCell emulation (ONNX uses the new cell state instead; a
// front end mapping ONNX peepholes must account for it).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/RecurrentLayer.h"
#include "runtime/backends/cpu/kernels/Registry.h"
#include "runtime/backends/cpu/kernels/Sgemm.h"

namespace webnn::cpu::kernels {
namespace {

using Activation = RnnActivation;

inline float activate(Activation a, float x) {
  switch (a) {
    case Activation::kRelu: return x > 0.f ? x : 0.f;
    case Activation::kSigmoid: return 1.f / (1.f + std::exp(-x));
    default: return std::tanh(x);
  }
}

Status parseActivations(const NodeDesc &node, const std::string &defaults, size_t count, std::vector<Activation> *out) {
  std::string list = node.attributes.getString("activations", defaults);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  std::stringstream ss(list);
  std::string name;
  out->clear();
  while (std::getline(ss, name, ',')) {
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name == "relu") out->push_back(Activation::kRelu);
    else if (name == "sigmoid") out->push_back(Activation::kSigmoid);
    else if (name == "tanh") out->push_back(Activation::kTanh);
    else return nodeError(node, "unknown activation '" + name + "' (expected relu, sigmoid or tanh)");
  }
  if (out->size() != count)
    return nodeError(node, "activations must list " + std::to_string(count) + " names, got '" + list + "'");
  return Status::ok();
}

// Operand i must exist with `shape` (or be absent when optional).
Status checkOperand(const NodeDesc &node, size_t i, const char *what, const Shape &shape, bool optional) {
  const OperandDesc *d = i < node.inputs.size() ? node.inputs[i] : nullptr;
  if (!d) return optional ? Status::ok() : nodeError(node, std::string("missing operand ") + what);
  if (d->dtype != node.inputs[0]->dtype)
    return nodeError(node, std::string(what) + " must have the input's data type");
  if (d->shape != shape)
    return nodeError(node, std::string(what) + " has shape " + shapeToString(d->shape) + ", expected " +
                               shapeToString(shape));
  return Status::ok();
}

const float *optionalInput(const KernelContext &ctx, size_t i) {
  return i < ctx.numInputs && ctx.inputs[i] ? static_cast<const float *>(ctx.inputs[i]->data) : nullptr;
}

// ---- GRU step -----------------------------------------------------------
struct GruScratch {
  std::vector<float> gx, gh, rh;
  void init(const GruConfig &c) {
    gx.resize(size_t(c.batch * 3 * c.hidden));
    gh.resize(size_t(c.batch * 3 * c.hidden));
    rh.resize(size_t(c.batch * c.hidden));
  }
};

// hOut may alias h: each element of h is read only to produce the same
// element of hOut.
void gruStep(const GruConfig &c, GruScratch &s, const float *x, const float *W, const float *R, const float *bias,
             const float *rbias, const float *h, float *hOut, const KernelContext &ctx) {
  const int64_t B = c.batch, I = c.inputSize, H = c.hidden, G = 3 * H;
  sgemm(B, G, I, MatrixView{x, I, 1}, MatrixView{W, 1, I}, s.gx.data(), G, false, ctx);
  sgemm(B, G, H, MatrixView{h, H, 1}, MatrixView{R, 1, H}, s.gh.data(), G, false, ctx);
  auto b = [&](const float *v, int gate, int64_t j) { return v ? v[gate * H + j] : 0.f; };
  float *gx = s.gx.data(), *gh = s.gh.data();
  // z and r first (in place in gx), since resetAfter=false needs r * h before
  // the candidate's recurrent product.
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < H; ++j) {
      float *row = gx + i * G;
      const float *hrow = gh + i * G;
      row[c.z * H + j] = activate(c.gate, row[c.z * H + j] + b(bias, c.z, j) + hrow[c.z * H + j] + b(rbias, c.z, j));
      row[c.r * H + j] = activate(c.gate, row[c.r * H + j] + b(bias, c.r, j) + hrow[c.r * H + j] + b(rbias, c.r, j));
    }
  if (!c.resetAfter) {
    for (int64_t i = 0; i < B; ++i)
      for (int64_t j = 0; j < H; ++j) s.rh[size_t(i * H + j)] = gx[i * G + c.r * H + j] * h[i * H + j];
    // (r * h) * Rn^T replaces the candidate's recurrent projection.
    const float *Rn = R + int64_t(c.n) * H * H;
    sgemm(B, H, H, MatrixView{s.rh.data(), H, 1}, MatrixView{Rn, 1, H}, gh + c.n * H, G, false, ctx);
  }
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < H; ++j) {
      const float *row = gx + i * G, *hrow = gh + i * G;
      float zt = row[c.z * H + j], rt = row[c.r * H + j];
      float recurrent = c.resetAfter ? rt * (hrow[c.n * H + j] + b(rbias, c.n, j)) : hrow[c.n * H + j] + b(rbias, c.n, j);
      float nt = activate(c.candidate, row[c.n * H + j] + b(bias, c.n, j) + recurrent);
      hOut[i * H + j] = zt * h[i * H + j] + (1.f - zt) * nt;
    }
}

Status readGruOptions(const NodeDesc &node, GruConfig *c) {
  c->resetAfter = node.attributes.getBool("resetAfter", true);
  std::string layout = node.attributes.getString("layout", "zrn");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (layout == "zrn") {
    c->z = 0, c->r = 1, c->n = 2;
  } else if (layout == "rzn") {
    c->r = 0, c->z = 1, c->n = 2;
  } else {
    return nodeError(node, "unknown layout '" + layout + "' (expected zrn or rzn)");
  }
  std::vector<Activation> acts;
  WEBNN_RETURN_IF_ERROR(parseActivations(node, "sigmoid,tanh", 2, &acts));
  c->gate = acts[0];
  c->candidate = acts[1];
  return Status::ok();
}

// ---- LSTM step ----------------------------------------------------------
struct LstmScratch {
  std::vector<float> gx, gh;
  void init(const LstmConfig &c) {
    gx.resize(size_t(c.batch * 4 * c.hidden));
    gh.resize(size_t(c.batch * 4 * c.hidden));
  }
};

// hOut/cOut may alias h/c (element-wise reads and writes).
void lstmStep(const LstmConfig &c, LstmScratch &s, const float *x, const float *W, const float *R, const float *bias,
              const float *rbias, const float *peephole, const float *h, const float *cell, float *hOut, float *cOut,
              const KernelContext &ctx) {
  const int64_t B = c.batch, I = c.inputSize, H = c.hidden, G = 4 * H;
  sgemm(B, G, I, MatrixView{x, I, 1}, MatrixView{W, 1, I}, s.gx.data(), G, false, ctx);
  sgemm(B, G, H, MatrixView{h, H, 1}, MatrixView{R, 1, H}, s.gh.data(), G, false, ctx);
  auto pre = [&](int64_t row, int gate, int64_t j) {
    float v = s.gx[size_t(row * G + gate * H + j)] + s.gh[size_t(row * G + gate * H + j)];
    if (bias) v += bias[gate * H + j];
    if (rbias) v += rbias[gate * H + j];
    return v;
  };
  for (int64_t row = 0; row < B; ++row)
    for (int64_t j = 0; j < H; ++j) {
      float ct = cell[row * H + j];
      // Peephole weights are packed (i, o, f) whatever the layout.
      float pi = peephole ? peephole[j] * ct : 0.f;
      float po = peephole ? peephole[H + j] * ct : 0.f;
      float pf = peephole ? peephole[2 * H + j] * ct : 0.f;
      float it = activate(c.gate, pre(row, c.i, j) + pi);
      float ft = activate(c.gate, pre(row, c.f, j) + pf);
      float gt = activate(c.cellGate, pre(row, c.g, j));
      float ot = activate(c.gate, pre(row, c.o, j) + po);
      float next = ft * ct + it * gt;
      cOut[row * H + j] = next;
      hOut[row * H + j] = ot * activate(c.output, next);
    }
}

Status readLstmOptions(const NodeDesc &node, LstmConfig *c) {
  std::string layout = node.attributes.getString("layout", "iofg");
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (layout == "iofg") {
    c->i = 0, c->o = 1, c->f = 2, c->g = 3;
  } else if (layout == "ifgo") {
    c->i = 0, c->f = 1, c->g = 2, c->o = 3;
  } else {
    return nodeError(node, "unknown layout '" + layout + "' (expected iofg or ifgo)");
  }
  std::vector<Activation> acts;
  WEBNN_RETURN_IF_ERROR(parseActivations(node, "sigmoid,tanh,tanh", 3, &acts));
  c->gate = acts[0];
  c->cellGate = acts[1];
  c->output = acts[2];
  return Status::ok();
}

// Common front matter of the four factories: float types (float16 through
// the adapter), hiddenSize, and the input's [.., batch, inputSize] dims.
Status readHiddenSize(const NodeDesc &node, int64_t *h) {
  if (!node.attributes.has("hiddenSize")) return nodeError(node, "missing required attribute 'hiddenSize'");
  *h = node.attributes.getInt("hiddenSize", 0);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (*h <= 0) return nodeError(node, "hiddenSize must be > 0");
  // The gates' operands have 3 (GRU) or 4 (LSTM) x hiddenSize rows; a larger
  // value (a corrupt artifact) would overflow that product before the
  // operands' shapes are compared.
  if (*h > std::numeric_limits<int64_t>::max() / 4)
    return nodeError(node, "hiddenSize " + std::to_string(*h) + " is too large");
  return Status::ok();
}

// ---- gruCell ------------------------------------------------------------
class GruCellKernel final : public Kernel {
 public:
  explicit GruCellKernel(GruConfig c) : c_(c) { s_.init(c_); }
  Status run(const KernelContext &ctx) override {
    gruStep(c_, s_, in<float>(ctx, 0), in<float>(ctx, 1), in<float>(ctx, 2), optionalInput(ctx, 4),
            optionalInput(ctx, 5), in<float>(ctx, 3), outp<float>(ctx, 0), ctx);
    return Status::ok();
  }

 private:
  GruConfig c_;
  GruScratch s_;
};

Status makeGruCell(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 4, 6, 1));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  GruConfig c;
  WEBNN_RETURN_IF_ERROR(readHiddenSize(node, &c.hidden));
  WEBNN_RETURN_IF_ERROR(readGruOptions(node, &c));
  if (x.shape.size() != 2) return nodeError(node, "input must be 2-D [batchSize, inputSize]");
  c.batch = x.shape[0];
  c.inputSize = x.shape[1];
  const int64_t H = c.hidden;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {3 * H, c.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {3 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "hiddenState", {c.batch, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "bias", {3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "recurrentBias", {3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, {c.batch, H}, x.dtype));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeGruCell, out);
  *out = std::make_unique<GruCellKernel>(c);
  return Status::ok();
}

// ---- lstmCell -----------------------------------------------------------
class LstmCellKernel final : public Kernel {
 public:
  explicit LstmCellKernel(LstmConfig c) : c_(c) { s_.init(c_); }
  Status run(const KernelContext &ctx) override {
    lstmStep(c_, s_, in<float>(ctx, 0), in<float>(ctx, 1), in<float>(ctx, 2), optionalInput(ctx, 5),
             optionalInput(ctx, 6), optionalInput(ctx, 7), in<float>(ctx, 3), in<float>(ctx, 4), outp<float>(ctx, 0),
             outp<float>(ctx, 1), ctx);
    return Status::ok();
  }

 private:
  LstmConfig c_;
  LstmScratch s_;
};

Status makeLstmCell(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  WEBNN_RETURN_IF_ERROR(checkArity(node, 5, 8, 2));
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  LstmConfig c;
  WEBNN_RETURN_IF_ERROR(readHiddenSize(node, &c.hidden));
  WEBNN_RETURN_IF_ERROR(readLstmOptions(node, &c));
  if (x.shape.size() != 2) return nodeError(node, "input must be 2-D [batchSize, inputSize]");
  c.batch = x.shape[0];
  c.inputSize = x.shape[1];
  const int64_t H = c.hidden;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {4 * H, c.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {4 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "hiddenState", {c.batch, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "cellState", {c.batch, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "bias", {4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 6, "recurrentBias", {4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 7, "peepholeWeight", {3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 0, {c.batch, H}, x.dtype));
  WEBNN_RETURN_IF_ERROR(checkOutput(node, 1, {c.batch, H}, x.dtype));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeLstmCell, out);
  *out = std::make_unique<LstmCellKernel>(c);
  return Status::ok();
}

// ---- sequences ----------------------------------------------------------
Status readSequenceOptions(const NodeDesc &node, const OperandDesc &x, SequenceConfig *s, int64_t *batch,
                           int64_t *inputSize) {
  if (!node.attributes.has("steps")) return nodeError(node, "missing required attribute 'steps'");
  s->steps = node.attributes.getInt("steps", 0);
  std::string direction = node.attributes.getString("direction", "forward");
  s->returnSequence = node.attributes.getBool("returnSequence", false);
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  if (direction != "forward" && direction != "backward" && direction != "both")
    return nodeError(node, "unknown direction '" + direction + "' (expected forward, backward or both)");
  s->dirs = direction == "both" ? 2 : 1;
  s->backwardOnly = direction == "backward";
  if (x.shape.size() != 3) return nodeError(node, "input must be 3-D [steps, batchSize, inputSize]");
  if (s->steps <= 0 || x.shape[0] != s->steps) return nodeError(node, "steps must be > 0 and equal input.shape[0]");
  *batch = x.shape[1];
  *inputSize = x.shape[2];
  return Status::ok();
}

Status checkSequenceOutputs(const NodeDesc &node, const SequenceConfig &s, size_t states, int64_t batch, int64_t h) {
  size_t want = states + (s.returnSequence ? 1 : 0);
  if (node.outputs.size() != want)
    return nodeError(node, "expected " + std::to_string(want) + " results, got " + std::to_string(node.outputs.size()));
  for (size_t i = 0; i < states; ++i)
    WEBNN_RETURN_IF_ERROR(checkOutput(node, i, {s.dirs, batch, h}, node.inputs[0]->dtype));
  if (s.returnSequence)
    WEBNN_RETURN_IF_ERROR(checkOutput(node, states, {s.steps, s.dirs, batch, h}, node.inputs[0]->dtype));
  return Status::ok();
}

Status makeGru(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  if (node.inputs.size() < 3 || node.inputs.size() > 6 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2])
    return nodeError(node, "expected 3..6 operands (input, weight, recurrentWeight, bias?, recurrentBias?, "
                           "initialHiddenState?)");
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  GruConfig c;
  SequenceConfig s;
  WEBNN_RETURN_IF_ERROR(readHiddenSize(node, &c.hidden));
  WEBNN_RETURN_IF_ERROR(readGruOptions(node, &c));
  WEBNN_RETURN_IF_ERROR(readSequenceOptions(node, x, &s, &c.batch, &c.inputSize));
  const int64_t H = c.hidden, D = s.dirs;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {D, 3 * H, c.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {D, 3 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "bias", {D, 3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "recurrentBias", {D, 3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "initialHiddenState", {D, c.batch, H}, true));
  WEBNN_RETURN_IF_ERROR(checkSequenceOutputs(node, s, 1, c.batch, H));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeGru, out);
  *out = makeGruLayerKernel(node, c, s);
  return Status::ok();
}

Status makeLstm(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  if (node.inputs.size() < 3 || node.inputs.size() > 8 || !node.inputs[0] || !node.inputs[1] || !node.inputs[2])
    return nodeError(node, "expected 3..8 operands (input, weight, recurrentWeight, bias?, recurrentBias?, "
                           "peepholeWeight?, initialHiddenState?, initialCellState?)");
  const OperandDesc &x = *node.inputs[0];
  WEBNN_RETURN_IF_ERROR(checkDataType(node, x, "input", kFloatTypes));
  LstmConfig c;
  SequenceConfig s;
  WEBNN_RETURN_IF_ERROR(readHiddenSize(node, &c.hidden));
  WEBNN_RETURN_IF_ERROR(readLstmOptions(node, &c));
  WEBNN_RETURN_IF_ERROR(readSequenceOptions(node, x, &s, &c.batch, &c.inputSize));
  const int64_t H = c.hidden, D = s.dirs;
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 1, "weight", {D, 4 * H, c.inputSize}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 2, "recurrentWeight", {D, 4 * H, H}, false));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 3, "bias", {D, 4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 4, "recurrentBias", {D, 4 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 5, "peepholeWeight", {D, 3 * H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 6, "initialHiddenState", {D, c.batch, H}, true));
  WEBNN_RETURN_IF_ERROR(checkOperand(node, 7, "initialCellState", {D, c.batch, H}, true));
  WEBNN_RETURN_IF_ERROR(checkSequenceOutputs(node, s, 2, c.batch, H));
  if (anyFloat16(node)) return makeFloat16Adapter(node, &makeLstm, out);
  *out = makeLstmLayerKernel(node, c, s);
  return Status::ok();
}

}  // namespace

namespace rnn {

void packRecurrentPanels(const float *w, int64_t hidden, int64_t k, const int *gateRow, int slots, int width,
                         float *dst) {
  const int64_t blocks = (hidden + width - 1) / width;
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int s = 0; s < slots; ++s)
        for (int lane = 0; lane < width; ++lane) {
          const int64_t j = b * width + lane;
          *dst++ = j < hidden ? w[(gateRow[s] * hidden + j) * k + kk] : 0.f;
        }
}

void padGateRows(const float *w, int64_t hidden, int64_t paddedHidden, int64_t k, const int *gateRow, int slots,
                 float *dst) {
  for (int s = 0; s < slots; ++s)
    for (int64_t j = 0; j < paddedHidden; ++j) {
      float *row = dst + (s * paddedHidden + j) * k;
      if (j < hidden) std::memcpy(row, w + (gateRow[s] * hidden + j) * k, size_t(k) * sizeof(float));
      else std::fill(row, row + k, 0.f);
    }
}

void copyToPaddedRows(const float *src, int64_t rows, int64_t n, int64_t paddedN, float *dst) {
  for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * paddedN, src + r * n, size_t(n) * sizeof(float));
}

void copyFromPaddedRows(const float *src, int64_t rows, int64_t n, int64_t paddedN, float *dst) {
  for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * n, src + r * paddedN, size_t(n) * sizeof(float));
}

LayerKernel::LayerKernel(const NodeDesc &node, const SequenceConfig &s, int64_t batch, int64_t inputSize,
                         int64_t hidden, int slots, const int *gateRow)
    : s_(s), width_(useAvx512() ? 16 : 8), batch_(batch), inputSize_(inputSize), hidden_(hidden),
      hp_((hidden + width_ - 1) / width_ * width_), slots_(slots), gateRow_{},
      proj_(s.dirs, s.steps * batch, inputSize, slots * hp_) {
  std::copy(gateRow, gateRow + slots, gateRow_);
  w_ = static_cast<const float *>(node.inputs[1]->constantData);
  r_ = static_cast<const float *>(node.inputs[2]->constantData);
  const int64_t D = s.dirs;
  allocated_ = panels_.resize(size_t(D * hp_ * hidden * slots)) && allocated_;
  allocated_ = gx_.resize(size_t(D * s.steps * batch * slots * hp_)) && allocated_;
  allocated_ = bias_.resize(size_t(D * slots * hp_)) && allocated_;
}

void LayerKernel::fillDirection(int64_t d, float *state, float *seq, DirectionBuffers *dir) const {
  const int64_t BH = batch_ * hidden_;
  dir->panels = panels_.data() + d * hp_ * hidden_ * slots_;
  dir->gx = gx_.data() + d * s_.steps * batch_ * slots_ * hp_;
  dir->h[0] = state;
  dir->h[1] = state + batch_ * hp_;
  dir->seq = seq ? seq + d * BH : nullptr;
  dir->seqStride = s_.dirs * BH;
  dir->backward = s_.backwardOnly || d == 1;
}

void LayerKernel::warmUp(int numThreads) {
  (void)numThreads;
  if (w_ && r_ && buffersAllocated()) std::call_once(packOnce_, [&] { pack(w_, r_, true); });
}

void LayerKernel::packWeights(const KernelContext &ctx) {
  if (w_ && r_) std::call_once(packOnce_, [&] { pack(w_, r_, true); });
  else pack(in<float>(ctx, 1), in<float>(ctx, 2), false);
}

void LayerKernel::pack(const float *w, const float *r, bool constant) {
  const int64_t D = s_.dirs, H = hidden_, I = inputSize_;
  for (int64_t d = 0; d < D; ++d) {
    padGateRows(w + d * slots_ * H * I, H, hp_, I, gateRow_, slots_, proj_.staged(d));
    packRecurrent(r + d * slots_ * H * H, panels_.data() + d * hp_ * H * slots_);
  }
  proj_.pack(constant);
  if (constant) {
    releasePackedSource(w, size_t(D * slots_ * H * I) * sizeof(float));
    releasePackedSource(r, size_t(D * slots_ * H * H) * sizeof(float));
  }
}

int64_t stepParts(const KernelContext &ctx, int64_t blocks) {
  return std::max<int64_t>(1, std::min<int64_t>(threadPool(ctx).numThreads(), blocks / 4));
}

InputProjection::InputProjection(int64_t dirs, int64_t rows, int64_t k, int64_t n)
    : dirs_(dirs), rows_(rows), k_(k), n_(n), packed_(packedSgemmEnabled() && avx512Available() && useAvx512()),
      layout_(k, n) {
  allocated_ = staged_.resize(size_t(dirs * n * k)) &&
               (!packed_ || packedB_.resize(size_t(dirs) * layout_.bytes() / sizeof(float)));
}

void InputProjection::pack(bool final) {
  if (!packed_) return;
  const size_t perDir = layout_.bytes() / sizeof(float);
  // b(kk, j) = staged[j][kk].
  for (int64_t d = 0; d < dirs_; ++d) layout_.pack(staged(d), 1, k_, packedB_.data() + d * perDir);
  if (final) (void)staged_.resize(0);  // refused: the rows just stay
}

void InputProjection::run(const float *x, const float *bias, float *gx, const KernelContext &ctx) const {
  if (packed_) {
    const size_t perDir = layout_.bytes() / sizeof(float);
    const int64_t chunk = PackedSgemmB::rowChunk(rows_), panels = layout_.panels();
    const int64_t chunks = (rows_ + chunk - 1) / chunk, perDirTasks = chunks * panels;
    parallelFor(ctx, dirs_ * perDirTasks, 1, [&](int64_t t0, int64_t t1) {
      while (t0 < t1) {  // one call per (direction, row chunk) the range touches
        const int64_t d = t0 / perDirTasks, r = t0 % perDirTasks, c = r / panels, p0 = r % panels;
        const int64_t p1 = std::min(panels, p0 + (t1 - t0));
        SgemmEpilogue ep;
        ep.bias = bias + d * n_;
        packedSgemmAvx512(layout_, packedB_.data() + d * perDir, x, k_, gx + d * rows_ * n_, n_, ep, c * chunk,
                          std::min(rows_, (c + 1) * chunk), p0, p1);
        t0 += p1 - p0;
      }
    });
    return;
  }
  for (int64_t d = 0; d < dirs_; ++d) {
    float *y = gx + d * rows_ * n_;
    for (int64_t r = 0; r < rows_; ++r) std::memcpy(y + r * n_, bias + d * n_, size_t(n_) * sizeof(float));
    sgemm(rows_, n_, k_, MatrixView{x, k_, 1}, MatrixView{staged(d), 1, k_}, y,
          n_, true, ctx);
  }
}

}  // namespace rnn

void registerRecurrentKernels(KernelTable &t) {
  t.add("gru", &makeGru);
  t.add("gruCell", &makeGruCell);
  t.add("lstm", &makeLstm);
  t.add("lstmCell", &makeLstmCell);
}

}  // namespace webnn::cpu::kernels
